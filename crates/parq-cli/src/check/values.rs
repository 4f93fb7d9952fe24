//! The decoded contents of data pages for `parq check`: levels and values decoded in bounded
//! batches (whatever counts a page claims) into a [`Summary`] per page: level, null and row
//! counts, the smallest and largest value in the column's sort order (NaN left out), values
//! not valid UTF-8 in string columns, and values a Bloom filter says it does not hold. Values
//! are seen in their PLAIN encoding (byte arrays without their length), the form statistics,
//! the column index and Bloom filter hashes use.

use std::cmp::Ordering;

use parq::bloom::{hash_bytes, Sbbf};
use parq::encoding::alp;
use parq::encoding::byte_stream_split::ByteStreamSplitDecoder;
use parq::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use parq::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parq::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use parq::encoding::dictionary::DictionaryDecoder;
use parq::encoding::plain::{for_each_byte_array, BooleanDecoder};
use parq::encoding::rle::RleDecoder;
use parq::format::metadata::{Encoding, PhysicalType};
use parq::page::DataSections;
use parq::schema::annotation::Annotation;
use parq::schema::stats::StatsContext;
use parq::write::StatsOrder;
use parq::{Error, ErrorKind, Result};

/// Levels and values decoded at a time.
const BATCH: usize = 4096;

/// How a leaf's values are stored and compared.
pub struct Column<'f> {
    /// Bytes per PLAIN value; `None` for BYTE_ARRAY.
    width: Option<usize>,
    physical: PhysicalType,
    /// The order min and max follow.
    pub order: StatsOrder,
    utf8: bool,
    pub max_def: i16,
    pub max_rep: i16,
    /// Whether the leaf itself is optional (its nulls are levels one below the maximum).
    pub optional: bool,
    /// The chunk's Bloom filter, probed for every value.
    pub filter: Option<&'f Sbbf>,
}

impl<'f> Column<'f> {
    /// The leaf described by `t`, with these maximum levels, optional or not.
    pub fn new(
        t: &StatsContext<'_>,
        max_def: i16,
        max_rep: i16,
        optional: bool,
    ) -> Result<Column<'f>> {
        use PhysicalType as P;
        let width = match t.physical {
            P::Boolean => Some(1),
            P::Int32 | P::Float => Some(4),
            P::Int64 | P::Double => Some(8),
            P::Int96 => Some(12),
            P::FixedLenByteArray => match usize::try_from(t.type_length) {
                Ok(w) if w > 0 => Some(w),
                _ => {
                    return Err(Error::new(ErrorKind::InvalidValue {
                        what: "type_length",
                        value: i64::from(t.type_length),
                    }))
                }
            },
            P::ByteArray => None,
            P::Unknown(v) => {
                return Err(Error::new(ErrorKind::Unsupported(format!(
                    "physical type {v}"
                ))))
            }
        };
        Ok(Column {
            width,
            physical: t.physical,
            order: {
                let o = StatsOrder::new(t.physical, t.annotation, Some(t.type_length));
                match t.column_order {
                    Some(parq::format::metadata::ColumnOrder::Ieee754TotalOrder) => o.total_order(),
                    _ => o,
                }
            },
            utf8: matches!(t.annotation, Annotation::String | Annotation::Json)
                && t.physical == P::ByteArray,
            max_def,
            max_rep,
            optional,
            filter: None,
        })
    }
}

/// What one page (or, merged, one chunk) holds.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Levels: values, nulls included.
    pub levels: u64,
    /// Levels below the maximum definition level.
    pub nulls: u64,
    /// Null values of the leaf itself (for an optional leaf, levels one below the maximum;
    /// the rest of `nulls` are null or empty parents).
    pub leaf_nulls: u64,
    /// Levels of repetition level 0: rows started.
    pub rows: u64,
    /// The first repetition level (of a page).
    pub first_rep: Option<u16>,
    /// Values stored.
    pub values: u64,
    /// The smallest and largest value (PLAIN), NaN left out.
    pub min: Option<Vec<u8>>,
    pub max: Option<Vec<u8>>,
    /// NaN values.
    pub nans: u64,
    /// Values of a string column that are not UTF-8, and the first.
    pub bad_utf8: u64,
    pub first_bad_utf8: Option<Vec<u8>>,
    /// Values the Bloom filter says are absent, and the first.
    pub bloom_misses: u64,
    pub first_miss: Option<Vec<u8>>,
}

impl Summary {
    /// Whether `n` is a null count writers give for these values: the levels below the
    /// maximum definition level; for nested columns, where writers differ, anything from the
    /// leaf's own nulls to that.
    pub fn nulls_match(&self, n: i64, col: &Column<'_>) -> bool {
        let Ok(n) = u64::try_from(n) else {
            return false;
        };
        let nested = col.max_rep > 0 || col.max_def > i16::from(col.optional);
        match nested {
            false => n == self.nulls,
            true => (self.leaf_nulls..=self.nulls).contains(&n),
        }
    }

    /// The nulls, in words.
    pub fn nulls_text(&self) -> String {
        match self.leaf_nulls == self.nulls {
            true => format!("{} nulls", self.nulls),
            false => format!(
                "{} levels below the maximum definition level, {} of them null values",
                self.nulls, self.leaf_nulls
            ),
        }
    }

    fn see(&mut self, v: &[u8], col: &Column<'_>) {
        self.values += 1;
        match col.order.compare(v, v) {
            _ if col.order.is_nan(v) => self.nans += 1,
            Some(_) => {
                if self
                    .min
                    .as_deref()
                    .is_none_or(|m| col.order.compare(v, m) == Some(Ordering::Less))
                {
                    self.min = Some(v.to_vec());
                }
                if self
                    .max
                    .as_deref()
                    .is_none_or(|m| col.order.compare(v, m) == Some(Ordering::Greater))
                {
                    self.max = Some(v.to_vec());
                }
            }
            None if matches!(col.physical, PhysicalType::Float | PhysicalType::Double)
                || col.order == StatsOrder::Float16 =>
            {
                self.nans += 1
            }
            None => {}
        }
        if col.utf8 && std::str::from_utf8(v).is_err() {
            self.bad_utf8 += 1;
            if self.first_bad_utf8.is_none() {
                self.first_bad_utf8 = Some(v.to_vec());
            }
        }
        if let Some(f) = col.filter {
            if !f.check_hash(hash_bytes(v)) {
                self.bloom_misses += 1;
                if self.first_miss.is_none() {
                    self.first_miss = Some(v.to_vec());
                }
            }
        }
    }

    /// Adds the page `p` to this chunk summary.
    pub fn merge(&mut self, p: &Summary, order: StatsOrder) {
        self.levels += p.levels;
        self.nulls += p.nulls;
        self.leaf_nulls += p.leaf_nulls;
        self.rows += p.rows;
        self.values += p.values;
        self.nans += p.nans;
        self.bad_utf8 += p.bad_utf8;
        self.bloom_misses += p.bloom_misses;
        if self.first_bad_utf8.is_none() {
            self.first_bad_utf8.clone_from(&p.first_bad_utf8);
        }
        if self.first_miss.is_none() {
            self.first_miss.clone_from(&p.first_miss);
        }
        let pick = |mine: &mut Option<Vec<u8>>, theirs: &Option<Vec<u8>>, keep: Ordering| {
            if let Some(t) = theirs {
                if mine
                    .as_deref()
                    .is_none_or(|m| order.compare(t, m) == Some(keep))
                {
                    *mine = Some(t.clone());
                }
            }
        };
        pick(&mut self.min, &p.min, Ordering::Less);
        pick(&mut self.max, &p.max, Ordering::Greater);
    }
}

/// Decoded values of one kind: fixed-width PLAIN values back to back, or byte arrays.
#[derive(Debug, Default)]
pub struct Values {
    width: Option<usize>,
    data: Vec<u8>,
    /// End offsets of the byte arrays in `data`.
    ends: Vec<usize>,
}

impl Values {
    fn new(width: Option<usize>) -> Values {
        Values {
            width,
            ..Values::default()
        }
    }

    fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
    }

    fn len(&self) -> usize {
        match self.width {
            Some(w) => self.data.len() / w.max(1),
            None => self.ends.len(),
        }
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        match self.width {
            Some(w) => self
                .data
                .get(i.checked_mul(w)?..i.checked_add(1)?.checked_mul(w)?),
            None => {
                let start = match i {
                    0 => 0,
                    _ => *self.ends.get(i - 1)?,
                };
                self.data.get(start..*self.ends.get(i)?)
            }
        }
    }

    fn push(&mut self, v: &[u8]) {
        self.data.extend_from_slice(v);
        if self.width.is_none() {
            self.ends.push(self.data.len());
        }
    }

    /// The `n` entries of a dictionary page (PLAIN) of `col`.
    pub fn dictionary(data: &[u8], n: usize, col: &Column<'_>) -> Result<Values> {
        let mut out = Values::new(col.width);
        let mut decoder = plain(data, col)?;
        decoder.next(n, &mut out)?;
        Ok(out)
    }
}

/// A bad page: `message` about `encoding`.
fn bad(encoding: &'static str, message: String) -> Error {
    Error::new(ErrorKind::Encoding { encoding, message })
}

/// A streaming decoder of a page's values into [`Values`].
enum Decoder<'a> {
    Fixed {
        data: &'a [u8],
        width: usize,
    },
    Bool(BooleanDecoder<'a>),
    Plain(&'a [u8]),
    Dict {
        indices: DictionaryDecoder<'a>,
        dict: &'a Values,
        buf: Vec<u32>,
    },
    RleBool {
        rle: RleDecoder<'a>,
        buf: Vec<u8>,
    },
    Delta32 {
        d: DeltaBinaryPackedDecoder<'a>,
        buf: Vec<i32>,
    },
    Delta64 {
        d: DeltaBinaryPackedDecoder<'a>,
        buf: Vec<i64>,
    },
    DeltaLength(DeltaLengthByteArrayDecoder<'a>),
    DeltaBytes(DeltaByteArrayDecoder<'a>),
    DeltaFixed(DeltaByteArrayDecoder<'a>, usize),
    Split(ByteStreamSplitDecoder<'a>),
    /// ALP, decoded whole up front (PLAIN layout), and the bytes handed out so far.
    Alp {
        bytes: Vec<u8>,
        pos: usize,
    },
}

fn plain<'a>(data: &'a [u8], col: &Column<'_>) -> Result<Decoder<'a>> {
    Ok(match (col.physical, col.width) {
        (PhysicalType::Boolean, _) => Decoder::Bool(BooleanDecoder::new(data)),
        (_, Some(width)) => Decoder::Fixed { data, width },
        (_, None) => Decoder::Plain(data),
    })
}

impl<'a> Decoder<'a> {
    fn new(
        encoding: Encoding,
        data: &'a [u8],
        col: &Column<'_>,
        dict: Option<&'a Values>,
        values: usize,
    ) -> Result<Decoder<'a>> {
        use PhysicalType as P;
        Ok(match (encoding, col.physical) {
            (Encoding::Plain, _) => plain(data, col)?,
            (Encoding::PlainDictionary | Encoding::RleDictionary, _) => {
                let dict = dict.ok_or_else(|| {
                    bad(
                        "RLE_DICTIONARY",
                        "a dictionary-encoded page without a dictionary page".into(),
                    )
                })?;
                Decoder::Dict {
                    indices: DictionaryDecoder::new(data)?,
                    dict,
                    buf: Vec::new(),
                }
            }
            (Encoding::Rle, P::Boolean) => Decoder::RleBool {
                rle: RleDecoder::with_length_prefix(data, 1)?.0,
                buf: Vec::new(),
            },
            (Encoding::DeltaBinaryPacked, P::Int32) => Decoder::Delta32 {
                d: DeltaBinaryPackedDecoder::new(data)?,
                buf: Vec::new(),
            },
            (Encoding::DeltaBinaryPacked, P::Int64) => Decoder::Delta64 {
                d: DeltaBinaryPackedDecoder::new(data)?,
                buf: Vec::new(),
            },
            (Encoding::DeltaLengthByteArray, P::ByteArray) => {
                Decoder::DeltaLength(DeltaLengthByteArrayDecoder::new(data)?)
            }
            (Encoding::DeltaByteArray, P::ByteArray) => {
                Decoder::DeltaBytes(DeltaByteArrayDecoder::new(data)?)
            }
            (Encoding::DeltaByteArray, P::FixedLenByteArray) => {
                Decoder::DeltaFixed(DeltaByteArrayDecoder::new(data)?, col.width.unwrap_or(1))
            }
            (
                Encoding::ByteStreamSplit,
                P::Int32 | P::Int64 | P::Float | P::Double | P::FixedLenByteArray,
            ) => Decoder::Split(ByteStreamSplitDecoder::new(data, col.width.unwrap_or(1))?),
            (Encoding::Alp, P::Float) => {
                let mut v: Vec<f32> = Vec::new();
                alp::decode(data, values, &mut v)?;
                let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                Decoder::Alp { bytes, pos: 0 }
            }
            (Encoding::Alp, P::Double) => {
                let mut v: Vec<f64> = Vec::new();
                alp::decode(data, values, &mut v)?;
                let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                Decoder::Alp { bytes, pos: 0 }
            }
            (e, p) => {
                return Err(bad(
                    e.spec_name(),
                    format!("values of {p} cannot be {e}-encoded"),
                ))
            }
        })
    }

    /// Appends the next `n` values to `out`.
    fn next(&mut self, n: usize, out: &mut Values) -> Result<()> {
        match self {
            Decoder::Fixed { data, width } => {
                let len = n
                    .checked_mul(*width)
                    .filter(|&l| l <= data.len())
                    .ok_or_else(|| {
                        bad(
                            "PLAIN",
                            format!("{n} values of {width} bytes, {} bytes left", data.len()),
                        )
                    })?;
                out.data.extend_from_slice(&data[..len]);
                *data = &data[len..];
            }
            Decoder::Bool(d) => {
                let mut b = vec![false; n];
                d.decode(&mut b)?;
                out.data.extend(b.iter().map(|&v| u8::from(v)));
            }
            Decoder::Plain(data) => {
                let used = for_each_byte_array(data, n, |v| out.push(v))?;
                *data = data.get(used..).unwrap_or(&[]);
            }
            Decoder::Dict { indices, dict, buf } => {
                buf.resize(n, 0);
                indices.indices().decode_exact(buf)?;
                for &i in buf.iter() {
                    let v = dict.get(i as usize).ok_or_else(|| {
                        bad(
                            "RLE_DICTIONARY",
                            format!("index {i} outside the dictionary of {} entries", dict.len()),
                        )
                    })?;
                    out.push(v);
                }
            }
            Decoder::RleBool { rle, buf } => {
                buf.resize(n, 0);
                rle.decode_exact(buf)?;
                out.data.extend(buf.iter().map(|&v| v & 1));
            }
            Decoder::Delta32 { d, buf } => {
                buf.clear();
                d.decode(n, buf)?;
                buf.iter()
                    .for_each(|v| out.data.extend_from_slice(&v.to_le_bytes()));
            }
            Decoder::Delta64 { d, buf } => {
                buf.clear();
                d.decode(n, buf)?;
                buf.iter()
                    .for_each(|v| out.data.extend_from_slice(&v.to_le_bytes()));
            }
            Decoder::DeltaLength(d) => {
                let mut offsets = vec![0i64];
                d.decode(n, &mut offsets, &mut out.data)?;
                out.ends.extend(offsets.iter().skip(1).map(|&o| o as usize));
            }
            Decoder::DeltaBytes(d) => {
                let mut offsets = vec![0i64];
                d.decode(n, &mut offsets, &mut out.data)?;
                out.ends.extend(offsets.iter().skip(1).map(|&o| o as usize));
            }
            Decoder::DeltaFixed(d, width) => d.decode_fixed(n, *width, &mut out.data)?,
            Decoder::Split(d) => d.decode_bytes(n, &mut out.data)?,
            Decoder::Alp { bytes, pos } => {
                let width = out.width.unwrap_or(1);
                let end = n.checked_mul(width).and_then(|l| l.checked_add(*pos));
                let Some(chunk) = end.and_then(|end| bytes.get(*pos..end)) else {
                    return Err(bad("ALP", format!("{n} more values than the page holds")));
                };
                out.data.extend_from_slice(chunk);
                *pos += chunk.len();
            }
        }
        Ok(())
    }
}

/// Decodes the levels and values of a data page of `num_values` levels encoded `encoding`,
/// its values' dictionary `dict`, into a [`Summary`].
pub fn summarize(
    col: &Column<'_>,
    sections: &DataSections<'_>,
    num_values: usize,
    encoding: Encoding,
    dict: Option<&Values>,
) -> Result<Summary> {
    let mut s = Summary {
        levels: num_values as u64,
        ..Summary::default()
    };
    let mut def = sections.definition.decoder()?;
    let mut rep = sections.repetition.decoder()?;
    let mut levels = vec![0u16; BATCH.min(num_values)];
    let mut left = num_values;
    while left > 0 {
        let n = left.min(BATCH);
        let batch = &mut levels[..n];
        rep.decode_exact(batch)?;
        if let Some(&l) = batch.iter().find(|&&l| l > col.max_rep as u16) {
            return Err(bad(
                "RLE",
                format!("repetition level {l} above the maximum {}", col.max_rep),
            ));
        }
        s.first_rep = s.first_rep.or(batch.first().copied());
        s.rows += batch.iter().filter(|&&l| l == 0).count() as u64;
        def.decode_exact(batch)?;
        if let Some(&l) = batch.iter().find(|&&l| l > col.max_def as u16) {
            return Err(bad(
                "RLE",
                format!("definition level {l} above the maximum {}", col.max_def),
            ));
        }
        s.nulls += batch.iter().filter(|&&l| l < col.max_def as u16).count() as u64;
        if col.optional {
            let leaf_null = (col.max_def - 1) as u16;
            s.leaf_nulls += batch.iter().filter(|&&l| l == leaf_null).count() as u64;
        }
        left -= n;
    }
    let mut left = num_values - s.nulls as usize;
    let mut decoder = Decoder::new(encoding, sections.values, col, dict, left)?;
    let mut out = Values::new(col.width);
    while left > 0 {
        let n = left.min(BATCH);
        out.clear();
        decoder.next(n, &mut out)?;
        if out.len() != n {
            return Err(bad(
                encoding.spec_name(),
                format!("{n} values asked, {} decoded", out.len()),
            ));
        }
        for i in 0..n {
            if let Some(v) = out.get(i) {
                s.see(v, col);
            }
        }
        left -= n;
    }
    Ok(s)
}
