//! The value encoders of a column chunk's data pages: the dictionary (fixed-width values or
//! byte arrays, with the re-encoding of its indices when the column falls back), and PLAIN,
//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, ALP and
//! RLE booleans.

/// Rows given to the encoders at a time: page limits are checked after each slice (as
/// parquet-cpp checks them after each write batch of 1024 values).
pub const MINI_BATCH: usize = 1024;

use crate::encoding::encode::alp::AlpEncoder;
use crate::encoding::encode::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::encode::delta::{
    DeltaBinaryPackedEncoder, DeltaByteArrayEncoder, DeltaLengthByteArrayEncoder,
};
use crate::encoding::encode::dictionary::{ByteArrayDictEncoder, DictEncoder};
use crate::encoding::encode::plain::{self, BooleanEncoder};
use crate::encoding::encode::rle::{self, RleEncoder};
use crate::format::metadata::{Encoding, PhysicalType};
use crate::Result;

use super::values::column_error;

/// The value encoder of data pages.
#[derive(Debug)]
pub(super) enum ValueEnc {
    /// PLAIN, appended to the page's value buffer (booleans through the bit encoder).
    Plain(BooleanEncoder),
    /// RLE_DICTIONARY indices.
    Dict,
    DeltaI32(Box<DeltaBinaryPackedEncoder<i32>>),
    DeltaI64(Box<DeltaBinaryPackedEncoder<i64>>),
    DeltaLength(Box<DeltaLengthByteArrayEncoder>),
    DeltaBytes(Box<DeltaByteArrayEncoder>),
    Bss(ByteStreamSplitEncoder),
    AlpF32(Box<AlpEncoder<f32>>),
    AlpF64(Box<AlpEncoder<f64>>),
    /// RLE booleans, streamed behind a 4-byte length prefix in the value buffer.
    RleBool(RleEncoder),
}

impl ValueEnc {
    /// True for the dictionary's indices.
    pub(super) fn is_dict(&self) -> bool {
        matches!(self, ValueEnc::Dict)
    }

    pub(super) fn encoding(&self) -> Encoding {
        match self {
            ValueEnc::Plain(_) => Encoding::Plain,
            ValueEnc::Dict => Encoding::RleDictionary,
            ValueEnc::DeltaI32(_) | ValueEnc::DeltaI64(_) => Encoding::DeltaBinaryPacked,
            ValueEnc::DeltaLength(_) => Encoding::DeltaLengthByteArray,
            ValueEnc::DeltaBytes(_) => Encoding::DeltaByteArray,
            ValueEnc::Bss(_) => Encoding::ByteStreamSplit,
            ValueEnc::AlpF32(_) | ValueEnc::AlpF64(_) => Encoding::Alp,
            ValueEnc::RleBool(_) => Encoding::Rle,
        }
    }
}

/// The dictionary of a chunk.
#[derive(Debug)]
pub(super) enum Dict {
    I32(DictEncoder<i32>),
    I64(DictEncoder<i64>),
    F32(DictEncoder<f32>),
    F64(DictEncoder<f64>),
    Bytes(ByteArrayDictEncoder),
}

impl Dict {
    pub(super) fn new(physical: PhysicalType, width: usize) -> Option<Dict> {
        Some(match physical {
            PhysicalType::Int32 => Dict::I32(DictEncoder::new()),
            PhysicalType::Int64 => Dict::I64(DictEncoder::new()),
            PhysicalType::Float => Dict::F32(DictEncoder::new()),
            PhysicalType::Double => Dict::F64(DictEncoder::new()),
            PhysicalType::ByteArray => Dict::Bytes(ByteArrayDictEncoder::new()),
            PhysicalType::FixedLenByteArray => Dict::Bytes(ByteArrayDictEncoder::new_fixed(width)),
            _ => return None,
        })
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Dict::I32(d) => d.len(),
            Dict::I64(d) => d.len(),
            Dict::F32(d) => d.len(),
            Dict::F64(d) => d.len(),
            Dict::Bytes(d) => d.len(),
        }
    }

    pub(super) fn size_bytes(&self) -> usize {
        match self {
            Dict::I32(d) => d.dict_size_bytes(),
            Dict::I64(d) => d.dict_size_bytes(),
            Dict::F32(d) => d.dict_size_bytes(),
            Dict::F64(d) => d.dict_size_bytes(),
            Dict::Bytes(d) => d.dict_size_bytes(),
        }
    }

    pub(super) fn write_page(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Dict::I32(d) => d.write_dictionary_page(out),
            Dict::I64(d) => d.write_dictionary_page(out),
            Dict::F32(d) => d.write_dictionary_page(out),
            Dict::F64(d) => d.write_dictionary_page(out),
            Dict::Bytes(d) => return d.write_dictionary_page(out),
        }
        Ok(())
    }

    pub(super) fn write_indices(&self, indices: &[u32], out: &mut Vec<u8>) -> Result<()> {
        rle::encode_dictionary_indices(indices, self.len(), out)
    }

    /// Heap bytes of the hash table.
    pub(super) fn table_bytes(&self) -> usize {
        match self {
            Dict::I32(d) => d.table_bytes(),
            Dict::I64(d) => d.table_bytes(),
            Dict::F32(d) => d.table_bytes(),
            Dict::F64(d) => d.table_bytes(),
            Dict::Bytes(d) => d.table_bytes(),
        }
    }

    /// Frees the hash table (no more values are interned, or the column is idle).
    pub(super) fn release_table(&mut self) {
        match self {
            Dict::I32(d) => d.release_table(),
            Dict::I64(d) => d.release_table(),
            Dict::F32(d) => d.release_table(),
            Dict::F64(d) => d.release_table(),
            Dict::Bytes(d) => d.release_table(),
        }
    }

    /// The PLAIN size of the values `indices` stand for.
    pub(super) fn plain_size(&self, indices: &[u32]) -> usize {
        match self {
            Dict::I32(d) => d.plain_size(indices),
            Dict::I64(d) => d.plain_size(indices),
            Dict::F32(d) => d.plain_size(indices),
            Dict::F64(d) => d.plain_size(indices),
            Dict::Bytes(d) => d.plain_size(indices),
        }
    }

    /// Encodes the values `indices` stand for with `enc` (a fallback encoder: PLAIN appends to
    /// `out`, the others keep them until their page is flushed). `fixed` is the width of
    /// FIXED_LEN_BYTE_ARRAY values.
    pub(super) fn reencode(
        &self,
        name: &str,
        indices: &[u32],
        enc: &mut ValueEnc,
        out: &mut Vec<u8>,
        fixed: Option<usize>,
    ) -> Result<()> {
        match self {
            Dict::I32(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::I64(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::F32(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::F64(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::Bytes(d) => {
                let (mut offsets, mut data) = (Vec::new(), Vec::new());
                for part in indices.chunks(MINI_BATCH) {
                    d.gather(part, &mut offsets, &mut data)?;
                    match (enc as &mut ValueEnc, fixed) {
                        (ValueEnc::Plain(_), Some(w)) => {
                            plain::put_fixed_len_byte_array(&data, w, out)?
                        }
                        (ValueEnc::Plain(_), None) => plain::put_byte_array(&offsets, &data, out)?,
                        (ValueEnc::DeltaLength(e), None) => e.put(&offsets, &data)?,
                        (ValueEnc::DeltaBytes(e), Some(w)) => e.put_fixed(&data, w)?,
                        (ValueEnc::DeltaBytes(e), None) => e.put(&offsets, &data)?,
                        (ValueEnc::Bss(e), Some(_)) => e.put_bytes(&data)?,
                        _ => {
                            return Err(column_error(
                                name,
                                "internal error: no fallback encoder for the dictionary's values",
                            ))
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// [`Dict::reencode`] for fixed-width values, a mini-batch at a time.
fn reencode_fixed<T>(
    name: &str,
    d: &DictEncoder<T>,
    indices: &[u32],
    enc: &mut ValueEnc,
    out: &mut Vec<u8>,
) -> Result<()>
where
    T: crate::encoding::encode::dictionary::DictValue + DeltaOrNot,
{
    // Indices 0, 1, 2, ... (every value a new entry, as when a first page of distinct
    // values gives the dictionary up) stand for the entries themselves, in order.
    let entries = d.entries();
    if indices.len() == entries.len() && indices.iter().zip(0u32..).all(|(&i, k)| i == k) {
        for part in entries.chunks(MINI_BATCH) {
            encode_fixed(name, enc, part, out)?;
        }
        return Ok(());
    }
    let mut buf = Vec::with_capacity(indices.len().min(MINI_BATCH));
    for part in indices.chunks(MINI_BATCH) {
        buf.clear();
        d.gather(part, &mut buf)?;
        encode_fixed(name, enc, &buf, out)?;
    }
    Ok(())
}

/// Encodes fixed-width values with a value encoder other than the dictionary (PLAIN appends
/// to `out`, the others keep them until their page is flushed).
pub(super) fn encode_fixed<T>(
    name: &str,
    enc: &mut ValueEnc,
    v: &[T],
    out: &mut Vec<u8>,
) -> Result<()>
where
    T: crate::encoding::encode::dictionary::DictValue + DeltaOrNot,
{
    match enc {
        ValueEnc::Plain(_) => plain::put_fixed(v, out),
        ValueEnc::Bss(e) => e.put(v)?,
        other => {
            if !T::put_delta(other, v) {
                return Err(column_error(
                    name,
                    "internal error: no encoder for these values",
                ));
            }
        }
    }
    Ok(())
}

/// The typed streaming encoders: DELTA_BINARY_PACKED for the integer types, ALP for floats.
pub(super) trait DeltaOrNot: Sized {
    /// Puts `v` into `enc` when it is a delta encoder of this type; false if it is not.
    fn put_delta(enc: &mut ValueEnc, v: &[Self]) -> bool;
}

macro_rules! delta_or_not {
    ($t:ty, $variant:ident) => {
        impl DeltaOrNot for $t {
            fn put_delta(enc: &mut ValueEnc, v: &[Self]) -> bool {
                match enc {
                    ValueEnc::$variant(e) => {
                        e.put(v);
                        true
                    }
                    _ => false,
                }
            }
        }
    };
    ($t:ty) => {
        impl DeltaOrNot for $t {
            fn put_delta(_: &mut ValueEnc, _: &[Self]) -> bool {
                false
            }
        }
    };
}
delta_or_not!(i32, DeltaI32);
delta_or_not!(i64, DeltaI64);
delta_or_not!(f32, AlpF32);
delta_or_not!(f64, AlpF64);
