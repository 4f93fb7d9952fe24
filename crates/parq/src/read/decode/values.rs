//! The decoded values of one column, by physical type ([`Storage`]): dictionary pages are
//! loaded into typed values, data pages decoded densely at the end of the value buffer, and
//! the page's values spread over its slots by [`crate::read::decode::spread`]. Byte arrays are in
//! [`crate::read::decode::bytes`].

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_schema::{DataType, IntervalUnit};

use crate::encoding::alp;
use crate::encoding::bitmap::copy_bits;
use crate::encoding::byte_stream_split::ByteStreamSplitDecoder;
use crate::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::dictionary::DictionaryDecoder;
use crate::encoding::plain::{self, BooleanDecoder, FixedWidth, Int96};
use crate::encoding::rle::RleDecoder;
use crate::encoding::{error as encoding_error, try_reserve};
use crate::format::metadata::{Encoding, PhysicalType};
use crate::read::decode::bytes::Bytes;
use crate::read::decode::convert::dictionary_array;
use crate::read::decode::convert::{self, Utf8Checked};
use crate::read::decode::dict::DictBytes;
use crate::read::decode::spread::{
    bits_range, spread_bits, spread_fixed, spread_fixed_bytes, spread_offsets,
};
use crate::read::decode::views::ViewBytes;
use crate::read::error::{no_dictionary, unsupported_encoding, ConvertError, SLOTS};
use crate::read::io::pool::{self, Recycled};
use crate::read::plan::fields::ColumnSpec;
use crate::{Error, ErrorKind, Result};

/// The values of a column, by physical type.
#[derive(Debug)]
pub(crate) enum Storage {
    Null,
    Bool(BoolValues),
    I32(Prim<i32>),
    I64(Prim<i64>),
    I96(Prim<Int96>),
    F32(Prim<f32>),
    F64(Prim<f64>),
    Fixed(FixedBytes),
    Bytes(Bytes<i32>),
    LargeBytes(Bytes<i64>),
    /// `Dictionary(_, Utf8 | Binary)` from the Parquet dictionary.
    Dict(DictBytes<i32>),
    /// `Dictionary(_, LargeUtf8 | LargeBinary)` likewise.
    LargeDict(DictBytes<i64>),
    /// `Utf8View | BinaryView`: views into the dictionary pages and decoded values.
    Views(ViewBytes),
}

/// What the metadata says is coming, for pre-sizing (see `chunk::chunk_hint`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Hint {
    /// Slots (values and nulls).
    pub values: usize,
    /// Value bytes of byte arrays.
    pub bytes: usize,
    /// The most bytes that pre-sizing may reserve for the values in all.
    pub budget: usize,
}

impl Hint {
    /// What `want` of the `of` records this hint is for need, in proportion (all of it for
    /// `want` at or above `of`).
    pub(crate) fn part(self, want: usize, of: usize) -> Hint {
        if want >= of {
            return self;
        }
        let part = |n: usize| (n as u128 * want as u128 / of as u128) as usize;
        Hint {
            values: part(self.values),
            bytes: part(self.bytes),
            budget: self.budget,
        }
    }
}

impl Storage {
    pub(in crate::read) fn for_spec(spec: &ColumnSpec) -> Result<Storage> {
        use DataType as D;
        use PhysicalType as P;
        let t = &spec.data_type;
        if *t == D::Null {
            return Ok(Storage::Null);
        }
        let ok = match spec.physical {
            P::Boolean => matches!(t, D::Boolean).then(|| Storage::Bool(BoolValues::default())),
            P::Int32 => matches!(
                t,
                D::Int8
                    | D::Int16
                    | D::Int32
                    | D::UInt8
                    | D::UInt16
                    | D::UInt32
                    | D::Date32
                    | D::Time32(_)
                    | D::Decimal32(..)
                    | D::Decimal64(..)
                    | D::Decimal128(..)
                    | D::Decimal256(..)
            )
            .then(|| Storage::I32(Prim::default())),
            P::Int64 => matches!(
                t,
                D::Int64
                    | D::UInt64
                    | D::Timestamp(..)
                    | D::Time64(_)
                    | D::Duration(_)
                    | D::Date64
                    | D::Decimal64(..)
                    | D::Decimal128(..)
                    | D::Decimal256(..)
            )
            .then(|| Storage::I64(Prim::default())),
            P::Int96 => matches!(t, D::Timestamp(..)).then(|| Storage::I96(Prim::default())),
            P::Float => matches!(t, D::Float32).then(|| Storage::F32(Prim::default())),
            P::Double => matches!(t, D::Float64).then(|| Storage::F64(Prim::default())),
            P::FixedLenByteArray => {
                let w = spec.type_length;
                let fits = match t {
                    D::FixedSizeBinary(n) => usize::try_from(*n) == Ok(w),
                    D::Float16 => w == 2,
                    D::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => w == 12,
                    D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => {
                        true
                    }
                    _ => false,
                };
                if w == 0 {
                    return Err(Error::new(ErrorKind::InvalidColumnData {
                        column: spec.path.clone(),
                        message: "FIXED_LEN_BYTE_ARRAY of type_length 0".to_string(),
                    }));
                }
                fits.then(|| Storage::Fixed(FixedBytes::new(w)))
            }
            P::ByteArray => match t {
                D::LargeUtf8 => Some(Storage::LargeBytes(Bytes::new(true))),
                D::LargeBinary => Some(Storage::LargeBytes(Bytes::new(false))),
                D::Utf8 => Some(Storage::Bytes(Bytes::new(true))),
                D::Utf8View => Some(Storage::Views(ViewBytes::new(true))),
                D::BinaryView => Some(Storage::Views(ViewBytes::new(false))),
                D::Binary
                | D::Decimal32(..)
                | D::Decimal64(..)
                | D::Decimal128(..)
                | D::Decimal256(..) => Some(Storage::Bytes(Bytes::new(false))),
                D::Dictionary(k, v) if k.is_dictionary_key_type() => match v.as_ref() {
                    D::Utf8 | D::Binary => Some(Storage::Dict(DictBytes::default())),
                    D::LargeUtf8 | D::LargeBinary => Some(Storage::LargeDict(DictBytes::default())),
                    // Hashed again at the end, from the values.
                    D::Utf8View => Some(Storage::Bytes(Bytes::new(false))),
                    D::BinaryView => Some(Storage::Bytes(Bytes::new(false))),
                    _ => None,
                },
                _ => None,
            },
            P::Unknown(_) => None,
        };
        ok.ok_or_else(|| {
            Error::new(ErrorKind::InvalidColumnData {
                column: spec.path.clone(),
                message: format!(
                    "a {} column cannot be read as Arrow {t}",
                    spec.physical.spec_name()
                ),
            })
        })
    }

    /// Reserves room for the slots and bytes `hint` announces, within its budget of bytes;
    /// returns the slots reserved for.
    pub(in crate::read) fn reserve(&mut self, hint: Hint) -> usize {
        let Hint {
            values,
            bytes,
            budget,
        } = hint;
        // The slots that fit in the budget at `width` bytes each.
        let fit = |width: usize| values.min(budget / width.max(1));
        match self {
            Storage::Null => values,
            Storage::Bool(b) => {
                let n = values.min(budget.saturating_mul(8));
                b.bits.reserve(n.div_ceil(8));
                n
            }
            Storage::I32(p) => reserve_vec(&mut p.values, fit(4)),
            Storage::I64(p) => reserve_vec(&mut p.values, fit(8)),
            Storage::I96(p) => reserve_vec(&mut p.values, fit(12)),
            Storage::F32(p) => reserve_vec(&mut p.values, fit(4)),
            Storage::F64(p) => reserve_vec(&mut p.values, fit(8)),
            Storage::Fixed(f) => {
                let n = fit(f.width);
                f.values.reserve(n.saturating_mul(f.width));
                n
            }
            Storage::Bytes(b) => {
                let n = fit(4);
                b.reserve(n, bytes);
                n
            }
            Storage::LargeBytes(b) => {
                let n = fit(8);
                b.reserve(n, bytes);
                n
            }
            Storage::Dict(d) => {
                let n = fit(4);
                d.reserve(n);
                n
            }
            Storage::LargeDict(d) => {
                let n = fit(8);
                d.reserve(n);
                n
            }
            Storage::Views(v) => {
                let n = fit(16);
                v.reserve(n);
                n
            }
        }
    }

    pub(in crate::read) fn clear_dictionary(&mut self) {
        match self {
            Storage::Null | Storage::Bool(_) => {}
            Storage::I32(p) => p.has_dict = false,
            Storage::I64(p) => p.has_dict = false,
            Storage::I96(p) => p.has_dict = false,
            Storage::F32(p) => p.has_dict = false,
            Storage::F64(p) => p.has_dict = false,
            Storage::Fixed(f) => f.has_dict = false,
            Storage::Bytes(b) => b.has_dict = false,
            Storage::LargeBytes(b) => b.has_dict = false,
            Storage::Dict(d) => d.clear_dictionary(),
            Storage::LargeDict(d) => d.clear_dictionary(),
            Storage::Views(v) => v.clear_dictionary(),
        }
    }

    pub(in crate::read) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        match self {
            Storage::Null => Ok(()),
            Storage::Bool(_) => Err(unsupported_encoding(
                Encoding::PlainDictionary,
                "BOOLEAN columns",
            )),
            Storage::I32(p) => p.load_dictionary(data, n),
            Storage::I64(p) => p.load_dictionary(data, n),
            Storage::I96(p) => p.load_dictionary(data, n),
            Storage::F32(p) => p.load_dictionary(data, n),
            Storage::F64(p) => p.load_dictionary(data, n),
            Storage::Fixed(f) => f.load_dictionary(data, n),
            Storage::Bytes(b) => b.load_dictionary(data, n),
            Storage::LargeBytes(b) => b.load_dictionary(data, n),
            Storage::Dict(d) => d.load_dictionary(data, n),
            Storage::LargeDict(d) => d.load_dictionary(data, n),
            Storage::Views(v) => v.load_dictionary(data, n),
        }
    }

    /// Before decoding a data page of `encoding` whose bytes start at `base`: a PLAIN page's
    /// long values are to be viewed in those bytes, for the storage of views.
    pub(in crate::read) fn view_page(&mut self, encoding: Encoding, base: *const u8) {
        if let (Storage::Views(v), Encoding::Plain) = (self, encoding) {
            v.view_page(base);
        }
    }

    /// After a data page decoded: keeps the page's bytes (`bytes` is called for them only
    /// when values are viewed in them).
    pub(in crate::read) fn adopt_page(
        &mut self,
        bytes: impl FnOnce() -> arrow_buffer::Buffer,
    ) -> Result<()> {
        match self {
            Storage::Views(v) => v.adopt_page(bytes),
            _ => Ok(()),
        }
    }

    /// After a data page: forgets its bytes (and a failed decode's views into them).
    pub(in crate::read) fn end_page(&mut self) {
        if let Storage::Views(v) = self {
            v.end_page();
        }
    }

    /// Whether [`Storage::decode`] can skip values of `encoding` without decoding them.
    pub(in crate::read) fn can_skip(&self, encoding: Encoding) -> bool {
        let plain_or_dict = matches!(
            encoding,
            Encoding::Plain | Encoding::PlainDictionary | Encoding::RleDictionary
        );
        match self {
            Storage::I32(_)
            | Storage::I64(_)
            | Storage::I96(_)
            | Storage::F32(_)
            | Storage::F64(_)
            | Storage::Bytes(_)
            | Storage::LargeBytes(_)
            | Storage::Views(_) => plain_or_dict,
            Storage::Dict(_) | Storage::LargeDict(_) => {
                matches!(
                    encoding,
                    Encoding::PlainDictionary | Encoding::RleDictionary
                )
            }
            Storage::Null | Storage::Bool(_) | Storage::Fixed(_) => false,
        }
    }

    /// Appends `n` (> 0) dense values of a data page, after skipping its first `skip`
    /// values (only where [`Storage::can_skip`]).
    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        skip: usize,
        n: usize,
        spec: &ColumnSpec,
    ) -> Result<()> {
        if skip > 0 && !self.can_skip(encoding) {
            return Err(crate::error::internal(format!(
                "values of {encoding:?} skipped in column `{}`",
                spec.path
            )));
        }
        match self {
            Storage::Null => Ok(()),
            Storage::Bool(b) => b.decode(encoding, data, n),
            Storage::I32(p) => p.decode(encoding, data, skip, n, spec),
            Storage::I64(p) => p.decode(encoding, data, skip, n, spec),
            Storage::I96(p) => p.decode(encoding, data, skip, n, spec),
            Storage::F32(p) => p.decode(encoding, data, skip, n, spec),
            Storage::F64(p) => p.decode(encoding, data, skip, n, spec),
            Storage::Fixed(f) => f.decode(encoding, data, n),
            Storage::Bytes(b) => b.decode(encoding, data, skip, n),
            Storage::LargeBytes(b) => b.decode(encoding, data, skip, n),
            Storage::Dict(d) => d.decode(encoding, data, skip, n),
            Storage::LargeDict(d) => d.decode(encoding, data, skip, n),
            Storage::Views(v) => v.decode(encoding, data, skip, n),
        }
    }

    /// Makes room for `slots` slots in all (values and nulls), before a page's levels grow
    /// the buffers: a page claiming more slots than can be held (a few RLE bytes can claim
    /// 2^31 nulls) is an error, not an abort.
    pub(in crate::read) fn try_room(&mut self, slots: usize) -> Result<()> {
        fn room<T>(v: &mut Vec<T>, len: usize) -> Result<()> {
            try_reserve(SLOTS, v, len.saturating_sub(v.len()))
        }
        match self {
            Storage::Null => Ok(()),
            Storage::Bool(b) => room(&mut b.bits, slots.div_ceil(8)),
            Storage::I32(p) => room(&mut p.values, slots),
            Storage::I64(p) => room(&mut p.values, slots),
            Storage::I96(p) => room(&mut p.values, slots),
            Storage::F32(p) => room(&mut p.values, slots),
            Storage::F64(p) => room(&mut p.values, slots),
            Storage::Fixed(f) => {
                let bytes = slots.checked_mul(f.width).ok_or_else(|| {
                    encoding_error(SLOTS, format!("{slots} values of {} bytes", f.width))
                })?;
                room(&mut f.values, bytes)
            }
            Storage::Bytes(b) => room(&mut b.offsets, slots.saturating_add(1)),
            Storage::LargeBytes(b) => room(&mut b.offsets, slots.saturating_add(1)),
            Storage::Dict(d) => d.try_room(slots),
            Storage::LargeDict(d) => d.try_room(slots),
            Storage::Views(v) => v.try_room(slots),
        }
    }

    /// Spreads the `dense` values decoded last (from slot `start`) over slots
    /// `start..start + total` following the validity bits.
    pub(in crate::read) fn spread(
        &mut self,
        start: usize,
        dense: usize,
        total: usize,
        validity: &[u8],
    ) {
        match self {
            Storage::Null => {}
            Storage::Bool(b) => b.spread(start, dense, total, validity),
            Storage::I32(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::I64(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::I96(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::F32(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::F64(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::Fixed(f) => f.spread(start, dense, total, validity),
            Storage::Bytes(b) => spread_offsets(&mut b.offsets, start, dense, total, validity),
            Storage::LargeBytes(b) => spread_offsets(&mut b.offsets, start, dense, total, validity),
            Storage::Dict(d) => d.spread(start, dense, total, validity),
            Storage::LargeDict(d) => d.spread(start, dense, total, validity),
            Storage::Views(v) => v.spread(start, dense, total, validity),
        }
    }

    /// The slots `from..from + n` of the `len` held, as a storage of their own, for one
    /// batch; the dictionary and decoder state stay here. Taking every slot moves the
    /// buffers out without a copy.
    pub(in crate::read) fn take(&mut self, from: usize, n: usize, len: usize) -> Storage {
        let all = from == 0 && n == len;
        fn part<T: Copy>(v: &mut Vec<T>, from: usize, n: usize, all: bool) -> Vec<T> {
            if all {
                std::mem::take(v)
            } else {
                v.get(from..from + n).map(<[T]>::to_vec).unwrap_or_default()
            }
        }
        // Moved out whole, the values leave a recycled vector as large behind, if one fits.
        fn prim<T: PrimValue>(v: &mut Vec<T>, from: usize, n: usize, all: bool) -> Vec<T> {
            let next = if all {
                pool::take_vec(v.capacity())
            } else {
                None
            };
            let out = part(v, from, n, all);
            if let Some(next) = next {
                *v = next;
            }
            out
        }
        match self {
            Storage::Null => Storage::Null,
            Storage::Bool(b) => Storage::Bool(BoolValues {
                bits: if all {
                    b.len = 0;
                    std::mem::take(&mut b.bits)
                } else {
                    bits_range(&b.bits, from, n)
                },
                len: n,
                scratch: Vec::new(),
            }),
            Storage::I32(p) => Storage::I32(Prim::with(prim(&mut p.values, from, n, all))),
            Storage::I64(p) => Storage::I64(Prim::with(prim(&mut p.values, from, n, all))),
            Storage::I96(p) => Storage::I96(Prim::with(prim(&mut p.values, from, n, all))),
            Storage::F32(p) => Storage::F32(Prim::with(prim(&mut p.values, from, n, all))),
            Storage::F64(p) => Storage::F64(Prim::with(prim(&mut p.values, from, n, all))),
            Storage::Fixed(f) => {
                let w = f.width;
                let mut head = FixedBytes::new(w);
                head.values = part(&mut f.values, from * w, n * w, all);
                Storage::Fixed(head)
            }
            Storage::Bytes(b) => Storage::Bytes(b.take(from, n, all)),
            Storage::LargeBytes(b) => Storage::LargeBytes(b.take(from, n, all)),
            Storage::Dict(d) => Storage::Dict(d.take(from, n, all)),
            Storage::LargeDict(d) => Storage::LargeDict(d.take(from, n, all)),
            Storage::Views(v) => Storage::Views(v.take(from, n, all)),
        }
    }

    /// The first `n` of the `len` slots held as values of their own, their buffers moved out
    /// and the rest copied into new ones, for a part larger than the rest (so fewer values
    /// are copied than by [`Storage::take`] and the compaction after it); `None` for the
    /// storages that do not split.
    pub(in crate::read) fn split_head(&mut self, n: usize, len: usize) -> Option<Storage> {
        fn split<T: PrimValue>(v: &mut Vec<T>, n: usize) -> Vec<T> {
            let mut rest = pool::vec_for(v.capacity());
            rest.extend_from_slice(v.get(n..).unwrap_or_default());
            let mut head = std::mem::replace(v, rest);
            head.truncate(n);
            head.shrink_to_fit();
            head
        }
        if n > len {
            return None;
        }
        Some(match self {
            Storage::I32(p) => Storage::I32(Prim::with(split(&mut p.values, n))),
            Storage::I64(p) => Storage::I64(Prim::with(split(&mut p.values, n))),
            Storage::I96(p) => Storage::I96(Prim::with(split(&mut p.values, n))),
            Storage::F32(p) => Storage::F32(Prim::with(split(&mut p.values, n))),
            Storage::F64(p) => Storage::F64(Prim::with(split(&mut p.values, n))),
            Storage::Bytes(b) => Storage::Bytes(b.split_head(n)),
            Storage::LargeBytes(b) => Storage::LargeBytes(b.split_head(n)),
            Storage::Views(v) if n < len => Storage::Views(v.split_head(n)),
            Storage::Null
            | Storage::Bool(_)
            | Storage::Fixed(_)
            | Storage::Dict(_)
            | Storage::LargeDict(_)
            | Storage::Views(_) => return None,
        })
    }

    /// Drops the first `n` of the `len` slots held (taken already).
    pub(in crate::read) fn discard(&mut self, n: usize, len: usize) {
        if n == 0 {
            return;
        }
        match self {
            Storage::Null => {}
            Storage::Bool(b) => {
                b.bits = bits_range(&b.bits, n, len - n);
                b.len = len - n;
            }
            Storage::I32(p) => drop(p.values.drain(..n.min(p.values.len()))),
            Storage::I64(p) => drop(p.values.drain(..n.min(p.values.len()))),
            Storage::I96(p) => drop(p.values.drain(..n.min(p.values.len()))),
            Storage::F32(p) => drop(p.values.drain(..n.min(p.values.len()))),
            Storage::F64(p) => drop(p.values.drain(..n.min(p.values.len()))),
            Storage::Fixed(f) => {
                let bytes = (n * f.width).min(f.values.len());
                f.values.drain(..bytes);
            }
            Storage::Bytes(b) => b.discard(n),
            Storage::LargeBytes(b) => b.discard(n),
            Storage::Dict(d) => d.discard(n),
            Storage::LargeDict(d) => d.discard(n),
            Storage::Views(v) => v.discard(n),
        }
    }

    pub(in crate::read) fn finish(
        self,
        len: usize,
        nulls: Option<arrow_buffer::NullBuffer>,
        spec: &ColumnSpec,
    ) -> std::result::Result<ArrayRef, ConvertError> {
        let t = &spec.data_type;
        match self {
            Storage::Null => Ok(Arc::new(arrow_array::NullArray::new(len))),
            Storage::Bool(b) => Ok(convert::boolean(b.bits, len, nulls)),
            Storage::I32(p) => convert::from_i32(p.values, nulls, t),
            Storage::I64(p) => convert::from_i64(p.values, nulls, t),
            Storage::I96(p) => convert::from_int96(&p.values, nulls, t),
            Storage::F32(p) => convert::from_f32(p.values, nulls, t),
            Storage::F64(p) => convert::from_f64(p.values, nulls, t),
            Storage::Fixed(f) => convert::from_fixed(f.values, f.width, len, nulls, t),
            Storage::Bytes(b) => {
                let checked = Utf8Checked(b.utf8_checked);
                convert::from_bytes(b.offsets, b.values, nulls, t, checked)
            }
            Storage::LargeBytes(b) => {
                let checked = Utf8Checked(b.utf8_checked);
                convert::from_large_bytes(b.offsets, b.values, nulls, t, checked)
            }
            Storage::Dict(d) => {
                let (key, value) = dictionary_parts(t)?;
                let (keys, offsets, values) = d.finish(key, nulls.as_ref())?;
                let dict = convert::from_bytes(offsets, values, None, value, Utf8Checked(false))?;
                dictionary_array(keys, nulls, key, dict)
            }
            Storage::LargeDict(d) => {
                let (key, value) = dictionary_parts(t)?;
                let (keys, offsets, values) = d.finish(key, nulls.as_ref())?;
                let dict =
                    convert::from_large_bytes(offsets, values, None, value, Utf8Checked(false))?;
                dictionary_array(keys, nulls, key, dict)
            }
            Storage::Views(v) => v.finish(nulls, t),
        }
    }
}

/// Booleans: an LSB-first bitmap.
#[derive(Debug, Default)]
pub(crate) struct BoolValues {
    bits: Vec<u8>,
    /// Bits in `bits`.
    len: usize,
    /// The dense values of one page.
    scratch: Vec<u8>,
}

impl BoolValues {
    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        n: usize,
    ) -> Result<()> {
        self.scratch.clear();
        match encoding {
            Encoding::Plain => {
                BooleanDecoder::new(data).decode_bitmap(n, &mut self.scratch, 0)?;
            }
            Encoding::Rle => {
                let (mut d, _) = RleDecoder::with_length_prefix(data, 1)?;
                d.decode_bitmap(n, &mut self.scratch, 0)?;
            }
            other => return Err(unsupported_encoding(other, "BOOLEAN columns")),
        }
        let end = (self.len + n).div_ceil(8);
        if self.bits.len() < end {
            self.bits.resize(end, 0);
        }
        copy_bits(&self.scratch, n, &mut self.bits, self.len);
        self.len += n;
        Ok(())
    }

    pub(in crate::read) fn spread(
        &mut self,
        start: usize,
        dense: usize,
        total: usize,
        validity: &[u8],
    ) {
        // The dense bits are in `scratch` too: rewrite the page's slots from it.
        if dense == 0 {
            self.scratch.clear();
        }
        spread_bits(&mut self.bits, &self.scratch, start, total, validity);
        self.len = start + total;
    }
}

/// A physical type stored as a vector of fixed-width values, whose buffers are recycled
/// ([`pool`]).
pub(crate) trait PrimValue: FixedWidth + Recycled + std::fmt::Debug {
    /// DELTA_BINARY_PACKED, for INT32 and INT64.
    fn delta(_data: &[u8], _n: usize, _out: &mut Vec<Self>) -> Option<Result<()>> {
        None
    }
    /// ALP, for FLOAT and DOUBLE.
    fn alp(_data: &[u8], _n: usize, _out: &mut Vec<Self>) -> Option<Result<()>> {
        None
    }
}

impl PrimValue for i32 {
    fn delta(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(DeltaBinaryPackedDecoder::new(data).and_then(|mut d| d.decode(n, out)))
    }
}
impl PrimValue for i64 {
    fn delta(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(DeltaBinaryPackedDecoder::new(data).and_then(|mut d| d.decode(n, out)))
    }
}
impl PrimValue for f32 {
    fn alp(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(alp::decode(data, n, out))
    }
}
impl PrimValue for f64 {
    fn alp(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(alp::decode(data, n, out))
    }
}
impl PrimValue for Int96 {}

/// Reserves room for `n` more values in `v` (recycled memory first); returns `n`.
fn reserve_vec<T: Recycled>(v: &mut Vec<T>, n: usize) -> usize {
    pool::reserve(v, n);
    n
}

/// Fixed-width physical values and their dictionary.
#[derive(Debug, Default)]
pub(crate) struct Prim<T> {
    values: Vec<T>,
    dict: Vec<T>,
    has_dict: bool,
}

impl<T: PrimValue> Prim<T> {
    fn with(values: Vec<T>) -> Self {
        Prim {
            values,
            dict: Vec::new(),
            has_dict: false,
        }
    }

    pub(in crate::read) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict.clear();
        plain::decode_fixed(data, n, &mut self.dict)?;
        self.has_dict = true;
        Ok(())
    }

    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        skip: usize,
        n: usize,
        spec: &ColumnSpec,
    ) -> Result<()> {
        match encoding {
            Encoding::Plain => {
                let data = data
                    .get(skip.saturating_mul(T::WIDTH)..)
                    .unwrap_or_default();
                plain::decode_fixed(data, n, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                let mut d = DictionaryDecoder::new(data)?;
                d.skip(skip)?;
                d.gather(n, &self.dict, &mut self.values)
            }
            Encoding::DeltaBinaryPacked => match T::delta(data, n, &mut self.values) {
                Some(r) => r,
                None => Err(unsupported_encoding(encoding, spec.physical.spec_name())),
            },
            Encoding::ByteStreamSplit => {
                let mut d = ByteStreamSplitDecoder::new(data, T::WIDTH)?;
                d.decode(n, &mut self.values)
            }
            Encoding::Alp => match T::alp(data, n, &mut self.values) {
                Some(r) => r,
                None => Err(unsupported_encoding(encoding, spec.physical.spec_name())),
            },
            other => Err(unsupported_encoding(other, spec.physical.spec_name())),
        }
    }
}

/// FIXED_LEN_BYTE_ARRAY values back to back.
#[derive(Debug)]
pub(crate) struct FixedBytes {
    width: usize,
    values: Vec<u8>,
    dict: Vec<u8>,
    has_dict: bool,
    indices: Vec<u32>,
}

impl FixedBytes {
    fn new(width: usize) -> Self {
        FixedBytes {
            width,
            values: Vec::new(),
            dict: Vec::new(),
            has_dict: false,
            indices: Vec::new(),
        }
    }

    pub(in crate::read) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict.clear();
        plain::decode_fixed_len_byte_array(data, self.width, n, &mut self.dict)?;
        self.has_dict = true;
        Ok(())
    }

    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        n: usize,
    ) -> Result<()> {
        let w = self.width;
        match encoding {
            Encoding::Plain => {
                plain::decode_fixed_len_byte_array(data, w, n, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                let mut d = RleDecoder::for_dictionary_indices(data)?;
                self.indices.clear();
                self.indices.resize(n, 0);
                d.decode_exact(&mut self.indices)?;
                let entries = self.dict.len() / w;
                if let Some(&bad) = self.indices.iter().find(|&&i| i as usize >= entries) {
                    return Err(Error::new(ErrorKind::Encoding {
                        encoding: "RLE_DICTIONARY",
                        message: format!("index {bad} out of the dictionary of {entries} entries"),
                    }));
                }
                self.values.reserve(n * w);
                for &i in &self.indices {
                    let s = i as usize * w;
                    self.values.extend_from_slice(&self.dict[s..s + w]);
                }
                Ok(())
            }
            Encoding::DeltaByteArray => {
                DeltaByteArrayDecoder::new(data)?.decode_fixed(n, w, &mut self.values)
            }
            Encoding::ByteStreamSplit => {
                ByteStreamSplitDecoder::new(data, w)?.decode_bytes(n, &mut self.values)
            }
            other => Err(unsupported_encoding(other, "FIXED_LEN_BYTE_ARRAY columns")),
        }
    }

    pub(in crate::read) fn spread(
        &mut self,
        start: usize,
        dense: usize,
        total: usize,
        validity: &[u8],
    ) {
        spread_fixed_bytes(&mut self.values, self.width, start, dense, total, validity);
    }
}

/// The key and value types of a `Dictionary` type.
fn dictionary_parts(t: &DataType) -> std::result::Result<(&DataType, &DataType), ConvertError> {
    match t {
        DataType::Dictionary(k, v) => Ok((k, v)),
        _ => Err(ConvertError::new(format!("{t} is not a dictionary type"))),
    }
}
