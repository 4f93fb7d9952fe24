//! Property tests of `parq::write`: random schemas, batches and writer properties, each file
//! read back by parq and by the `parquet` crate 60.1.0 (the arrow-rs reader), whose view of
//! the values, the statistics, the page index, the pages and the Bloom filters must agree with
//! what the test computes from the input itself (its own reference of the spec's orders, NaN
//! and signed-zero rules and truncation, not parq's code).
//!
//! Every case is drawn from one seed: its columns (every Arrow type the writer takes:
//! integers of every width and sign, Float16/32/64, booleans, the six string and binary
//! types, FixedSizeBinary, Decimal32/64/128/256, dates, times, timestamps with units and time
//! zones, durations, intervals, dictionaries, Null; nullable or not, no / random / all nulls;
//! random, pooled, sorted or constant values with the extremes of each type, NaN payloads,
//! -0.0, infinities, empty and long strings; `PARQUET:field_id` sometimes), its batches
//! (empty ones, slices at offsets, `flush` between some), and its properties (encoding valid
//! for each column, dictionary with a small size limit for fallback, codec and level,
//! statistics level, truncation length, data page version, tiny page and row group limits,
//! CRC, Bloom filters, key-value metadata, `created_by`), file-wide or per column.
//!
//! Each file is checked for:
//! - values: parq's reader and 60.1's `ParquetRecordBatchReader` give back the input exactly
//!   (types included, `ArrayData` equality: floats by bits), except for the documented type
//!   differences of [`parq_expected`] and [`peer_expected`]; 60.1 also reads a random row
//!   selection, which skips pages through the offset index;
//! - metadata (60.1's view): rows and row group sizes (by the row limit and the flushes when no
//!   byte budget applies), ordinal, file offset, codec, column orders, field ids, key-values;
//! - chunk statistics: null count, min/max (truncated BYTE_ARRAY bounds with their exactness
//!   flags), none at level none; size statistics; the deprecated min/max (parq's decoder);
//! - page index: the offset index always (as `write::properties` documents: always written),
//!   pages back to back within the chunk, first rows and row counts within the limits; the
//!   column index exactly at level page (but never for a chunk with a NaN-only page or a
//!   column without order), per page null counts, null pages, bounds, level histograms and
//!   boundary order;
//! - pages (60.1's page reader: headers in sequence, decompressed, CRCs verified): as many as
//!   the offset index lists, v1 or v2 as asked, encodings as asked (dictionary, then the
//!   fallback), the dictionary's entries, the chunk's encodings and page encoding statistics;
//! - Bloom filters (60.1's reader): present as asked, every written value in, few others.
//!
//! - `PARQ_PROPTEST_SEED=S` starts at seed `S` (case `i` has seed `S + i`), default fixed;
//! - `PARQ_PROPTEST_CASES=N` runs `N` cases (default 300, about 10 s in debug; a release run
//!   of 5000 cases takes about a minute: `cargo test --release -p parq --test write_props`).
//!
//! A failing case prints its seed, its columns and properties: `PARQ_PROPTEST_SEED=<seed>
//! PARQ_PROPTEST_CASES=1` runs that case alone. Counts of what was exercised are printed at
//! the end (`-- --nocapture`).

mod common;
use common::Rng;

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{i256, NullBuffer};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use parq::format::metadata::{Compression, Encoding};
use parq::read::ParquetReader;
use parq::write::{
    BloomFilterProperties, Codec, DataPageVersion, ParquetWriter, StatisticsLevel, WriterProperties,
};
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
};
use parquet::basic::{BoundaryOrder as PBoundaryOrder, Encoding as PEncoding};
use parquet::column::page::{Page, PageReader};
use parquet::file::metadata::{ColumnChunkMetaData, PageIndexPolicy, ParquetMetaData};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use parquet::file::statistics::Statistics as PStatistics;

// ---------------------------------------------------------------------------------------
// Types

/// How the test orders (and finds the physical form of) a column's values: its own reference
/// for the spec's sort orders, independent of parq's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    /// INT32, signed.
    I32,
    /// INT32 annotated unsigned (UInt8/16/32).
    U32,
    I64,
    /// INT64 annotated unsigned (UInt64).
    U64,
    /// FIXED_LEN_BYTE_ARRAY(2) FLOAT16.
    F16,
    F32,
    F64,
    /// BYTE_ARRAY: unsigned lexicographic, truncated (at character boundaries when UTF-8).
    Bytes {
        utf8: bool,
    },
    /// FIXED_LEN_BYTE_ARRAY: unsigned lexicographic, never truncated.
    Fixed,
    /// DECIMAL on FIXED_LEN_BYTE_ARRAY: signed big-endian two's complement.
    Decimal,
    /// INTERVAL: no order (null count only, no column index).
    Unordered,
    /// The Null type: every value null.
    Null,
}

/// Physical types, for the encodings a column can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phys {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    ByteArray,
    Fixed,
}

fn kind_of(dt: &DataType) -> Kind {
    use DataType as D;
    match dt {
        D::Boolean => Kind::Bool,
        D::Int8 | D::Int16 | D::Int32 | D::Date32 | D::Date64 | D::Time32(_) => Kind::I32,
        D::UInt8 | D::UInt16 | D::UInt32 => Kind::U32,
        D::Int64 | D::Time64(_) | D::Timestamp(..) | D::Duration(_) => Kind::I64,
        D::UInt64 => Kind::U64,
        D::Float16 => Kind::F16,
        D::Float32 => Kind::F32,
        D::Float64 => Kind::F64,
        D::Utf8 | D::LargeUtf8 | D::Utf8View => Kind::Bytes { utf8: true },
        D::Binary | D::LargeBinary | D::BinaryView => Kind::Bytes { utf8: false },
        D::FixedSizeBinary(_) => Kind::Fixed,
        D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => {
            Kind::Decimal
        }
        D::Interval(_) => Kind::Unordered,
        D::Null => Kind::Null,
        D::Dictionary(_, v) => kind_of(v),
        other => panic!("no kind for {other}"),
    }
}

fn phys_of(dt: &DataType) -> Phys {
    match kind_of(dt) {
        Kind::Bool => Phys::Boolean,
        Kind::I32 | Kind::U32 | Kind::Null => Phys::Int32,
        Kind::I64 | Kind::U64 => Phys::Int64,
        Kind::F32 => Phys::Float,
        Kind::F64 => Phys::Double,
        Kind::Bytes { .. } => Phys::ByteArray,
        Kind::F16 | Kind::Fixed | Kind::Decimal | Kind::Unordered => Phys::Fixed,
    }
}

/// The value encodings (without the dictionary) a physical type takes.
fn encodings_for(p: Phys) -> &'static [Encoding] {
    use Encoding as E;
    match p {
        Phys::Boolean => &[E::Plain, E::Rle],
        Phys::Int32 | Phys::Int64 => &[E::Plain, E::DeltaBinaryPacked, E::ByteStreamSplit],
        Phys::Float | Phys::Double => &[E::Plain, E::ByteStreamSplit],
        Phys::ByteArray => &[E::Plain, E::DeltaLengthByteArray, E::DeltaByteArray],
        Phys::Fixed => &[E::Plain, E::DeltaByteArray, E::ByteStreamSplit],
    }
}

fn random_tz(rng: &mut Rng) -> Option<Arc<str>> {
    match rng.below(4) {
        0 => None,
        1 => Some("UTC".into()),
        2 => Some("+05:30".into()),
        _ => Some("America/New_York".into()),
    }
}

fn random_unit(rng: &mut Rng) -> TimeUnit {
    rng.pick(&[
        TimeUnit::Second,
        TimeUnit::Millisecond,
        TimeUnit::Microsecond,
        TimeUnit::Nanosecond,
    ])
}

/// A random column type among every type the writer takes.
fn random_type(rng: &mut Rng) -> DataType {
    use DataType as D;
    match rng.below(36) {
        34 | 35 => D::Boolean,
        0 => D::Boolean,
        1 => D::Int8,
        2 => D::Int16,
        3 => D::Int32,
        4 => D::Int64,
        5 => D::UInt8,
        6 => D::UInt16,
        7 => D::UInt32,
        8 => D::UInt64,
        9 => D::Float16,
        10 => D::Float32,
        11 => D::Float64,
        12 => D::Utf8,
        13 => D::LargeUtf8,
        14 => D::Utf8View,
        15 => D::Binary,
        16 => D::LargeBinary,
        17 => D::BinaryView,
        18 => D::FixedSizeBinary(rng.pick(&[1, 2, 3, 8, 16, 70])),
        19 => {
            let p = rng.range(1, 9) as u8;
            D::Decimal32(p, rng.range(0, i64::from(p)) as i8)
        }
        20 => {
            let p = rng.range(1, 18) as u8;
            D::Decimal64(p, rng.range(0, i64::from(p)) as i8)
        }
        21 => {
            let p = rng.range(1, 38) as u8;
            D::Decimal128(p, rng.range(0, i64::from(p)) as i8)
        }
        22 => {
            let p = rng.range(1, 76) as u8;
            D::Decimal256(p, rng.range(0, i64::from(p)) as i8)
        }
        23 => D::Date32,
        24 => D::Date64,
        25 => D::Time32(rng.pick(&[TimeUnit::Second, TimeUnit::Millisecond])),
        26 => D::Time64(rng.pick(&[TimeUnit::Microsecond, TimeUnit::Nanosecond])),
        27 => D::Timestamp(random_unit(rng), random_tz(rng)),
        28 => D::Duration(random_unit(rng)),
        29 | 30 => D::Dictionary(Box::new(D::Int32), Box::new(D::Utf8)),
        31 => {
            let key = rng.pick(&[D::Int8, D::Int16, D::UInt16, D::Int32, D::Int64, D::UInt64]);
            let value = rng.pick(&[
                D::Utf8,
                D::LargeUtf8,
                D::Binary,
                D::Int32,
                D::Int64,
                D::Float64,
                D::Date32,
                D::Decimal128(10, 2),
            ]);
            D::Dictionary(Box::new(key), Box::new(value))
        }
        32 => D::Interval(rng.pick(&[IntervalUnit::YearMonth, IntervalUnit::DayTime])),
        _ => D::Null,
    }
}

// ---------------------------------------------------------------------------------------
// Values

/// How a column's values are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Random,
    /// From a pool of this many values (dictionary friendly).
    Pool(usize),
    Ascending,
    Descending,
    Constant,
}

fn random_style(rng: &mut Rng) -> Style {
    match rng.below(8) {
        0..=2 => Style::Random,
        3 | 4 => Style::Pool(1 + rng.below(20) as usize),
        5 => Style::Ascending,
        6 => Style::Descending,
        _ => Style::Constant,
    }
}

/// Null density of a column.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Nulls {
    /// No validity buffer.
    None,
    /// Each slot null with this probability (a validity buffer even when no slot is null).
    Random(f64),
    All,
}

fn null_buffer(rng: &mut Rng, n: usize, nulls: Nulls) -> Option<NullBuffer> {
    match nulls {
        Nulls::None => None,
        Nulls::Random(p) => Some(NullBuffer::from(
            (0..n).map(|_| !rng.chance(p)).collect::<Vec<bool>>(),
        )),
        Nulls::All => Some(NullBuffer::new_null(n)),
    }
}

/// `n` values drawn by `one` in `style`, sorted with `cmp` for the sorted styles.
fn draw<T: Clone>(
    rng: &mut Rng,
    n: usize,
    style: Style,
    mut one: impl FnMut(&mut Rng) -> T,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> Vec<T> {
    match style {
        Style::Random => (0..n).map(|_| one(rng)).collect(),
        Style::Pool(k) => {
            let pool: Vec<T> = (0..k).map(|_| one(rng)).collect();
            (0..n).map(|_| rng.pick(&pool)).collect()
        }
        Style::Constant => {
            let v = one(rng);
            vec![v; n]
        }
        Style::Ascending | Style::Descending => {
            let mut v: Vec<T> = (0..n).map(|_| one(rng)).collect();
            v.sort_by(&cmp);
            if style == Style::Descending {
                v.reverse();
            }
            v
        }
    }
}

/// An integer: an extreme, any value, or a small one.
fn int_one<T: Copy>(
    rng: &mut Rng,
    extremes: &[T],
    any: impl Fn(u64) -> T,
    small: impl Fn(i64) -> T,
) -> T {
    match rng.below(10) {
        0 | 1 => rng.pick(extremes),
        2..=5 => any(rng.next()),
        _ => small(rng.range(-100, 100)),
    }
}

fn prim<T: ArrowPrimitiveType>(
    rng: &mut Rng,
    n: usize,
    style: Style,
    nulls: Option<NullBuffer>,
    one: impl FnMut(&mut Rng) -> T::Native,
    cmp: impl Fn(&T::Native, &T::Native) -> Ordering,
) -> PrimitiveArray<T> {
    let v = draw(rng, n, style, one, cmp);
    PrimitiveArray::<T>::new(v.into(), nulls)
}

fn string_one(rng: &mut Rng) -> String {
    let chars = [
        'a',
        'b',
        'z',
        '~',
        'é',
        '€',
        '\u{7f}',
        '\u{80}',
        '\u{ffff}',
        '\u{10ffff}',
    ];
    if rng.chance(0.01) {
        return "é".repeat(rng.range(500, 3000) as usize);
    }
    match rng.below(10) {
        0 => String::new(),
        1 => (0..rng.range(1, 4))
            .map(|_| rng.pick(&['a', 'b']))
            .collect(),
        2 => (0..rng.range(60, 200))
            .map(|_| (b'a' + rng.below(26) as u8) as char)
            .collect(),
        3 => (0..rng.range(0, 40)).map(|_| rng.pick(&chars)).collect(),
        4 => "\u{10ffff}".repeat(rng.range(1, 40) as usize),
        5 => "z".repeat(rng.range(50, 90) as usize),
        _ => (0..rng.range(0, 20))
            .map(|_| (b'a' + rng.below(26) as u8) as char)
            .collect(),
    }
}

fn binary_one(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(0.01) {
        let n = rng.range(1000, 5000) as usize;
        return rng.bytes(n);
    }
    match rng.below(8) {
        0 => Vec::new(),
        1 => vec![0xff; rng.range(1, 100) as usize],
        2 => vec![0; rng.range(1, 80) as usize],
        3 => {
            let n = rng.range(65, 150) as usize;
            rng.bytes(n)
        }
        4 => {
            let mut v = vec![0xff; rng.range(1, 70) as usize];
            let n = rng.range(0, 10) as usize;
            v.extend(rng.bytes(n));
            v
        }
        _ => {
            let n = rng.range(0, 16) as usize;
            rng.bytes(n)
        }
    }
}

fn fixed_one(rng: &mut Rng, w: usize) -> Vec<u8> {
    match rng.below(6) {
        0 => vec![0xff; w],
        1 => vec![0; w],
        2 => {
            let mut v = vec![0xff; w];
            v[w - 1] = rng.next() as u8;
            v
        }
        _ => rng.bytes(w),
    }
}

/// A decimal of at most `p` digits.
fn decimal_one(rng: &mut Rng, p: u8) -> i256 {
    let max = i256::from_i128(10).wrapping_pow(u32::from(p)) - i256::ONE;
    match rng.below(8) {
        0 => max,
        1 => max.wrapping_neg(),
        2 => rng.pick(&[i256::ZERO, i256::ONE, i256::MINUS_ONE]),
        3 | 4 => {
            let small = i256::from_i128(i128::from(rng.range(-1000, 1000)));
            if small > max {
                max
            } else if small < max.wrapping_neg() {
                max.wrapping_neg()
            } else {
                small
            }
        }
        _ => {
            let r = i256::from_parts(
                u128::from(rng.next()) | u128::from(rng.next()) << 64,
                (i128::from(rng.next()) << 64 | i128::from(rng.next())) >> 3,
            );
            r.wrapping_rem(max.wrapping_add(i256::ONE))
        }
    }
}

type F16 = <Float16Type as ArrowPrimitiveType>::Native;

fn f16_cmp(a: &F16, b: &F16) -> Ordering {
    a.total_cmp(b)
}

/// Byte strings as an array of `dt` (a string or binary type).
fn bytes_array(dt: &DataType, v: &[Vec<u8>], nulls: Option<NullBuffer>) -> ArrayRef {
    let opt: Vec<Option<&[u8]>> = v
        .iter()
        .enumerate()
        .map(|(i, b)| {
            nulls
                .as_ref()
                .is_none_or(|n| n.is_valid(i))
                .then_some(&b[..])
        })
        .collect();
    let strs = || {
        opt.iter()
            .map(|o| o.map(|b| std::str::from_utf8(b).expect("utf-8 strings")))
            .collect::<Vec<Option<&str>>>()
    };
    match dt {
        DataType::Utf8 => Arc::new(StringArray::from(strs())),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::from(strs())),
        DataType::Utf8View => Arc::new(StringViewArray::from(strs())),
        DataType::Binary => Arc::new(BinaryArray::from(opt)),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::from(opt)),
        DataType::BinaryView => Arc::new(BinaryViewArray::from(opt)),
        other => panic!("not a byte type: {other}"),
    }
}

/// A random array of `dt` with `n` slots.
fn gen_array(dt: &DataType, rng: &mut Rng, n: usize, style: Style, nulls: Nulls) -> ArrayRef {
    use DataType as D;
    let nb = null_buffer(rng, n, nulls);
    let any64 = |x: u64| x as i64;
    match dt {
        D::Null => Arc::new(NullArray::new(n)),
        D::Boolean => {
            let p = rng.unit();
            let v = draw(rng, n, style, |r| r.chance(p), bool::cmp);
            Arc::new(BooleanArray::new(v.into(), nb))
        }
        D::Int8 => Arc::new(prim::<Int8Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[i8::MIN, i8::MAX, 0, -1], |x| x as i8, |x| x as i8),
            Ord::cmp,
        )),
        D::Int16 => Arc::new(prim::<Int16Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[i16::MIN, i16::MAX, 0], |x| x as i16, |x| x as i16),
            Ord::cmp,
        )),
        D::Int32 => Arc::new(prim::<Int32Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[i32::MIN, i32::MAX, 0, -1], |x| x as i32, |x| x as i32),
            Ord::cmp,
        )),
        D::Int64 => Arc::new(prim::<Int64Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[i64::MIN, i64::MAX, 0, -1], any64, |x| x),
            Ord::cmp,
        )),
        D::UInt8 => Arc::new(prim::<UInt8Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[0, u8::MAX, 0x80], |x| x as u8, |x| x as u8),
            Ord::cmp,
        )),
        D::UInt16 => Arc::new(prim::<UInt16Type>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[0, u16::MAX, 0x8000],
                    |x| x as u16,
                    |x| x.unsigned_abs() as u16,
                )
            },
            Ord::cmp,
        )),
        D::UInt32 => Arc::new(prim::<UInt32Type>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[0, u32::MAX, 1 << 31],
                    |x| x as u32,
                    |x| x.unsigned_abs() as u32,
                )
            },
            Ord::cmp,
        )),
        D::UInt64 => Arc::new(prim::<UInt64Type>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[0, u64::MAX, 1 << 63], |x| x, |x| x.unsigned_abs()),
            Ord::cmp,
        )),
        D::Float16 => Arc::new(prim::<Float16Type>(
            rng,
            n,
            style,
            nb,
            |r| match r.below(6) {
                0 => F16::from_bits(r.pick(&[
                    0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x8000, 0x0000, 0x7bff, 0xfbff, 0x0001, 0x7c01,
                ])),
                1 => F16::from_bits(r.next() as u16),
                _ => F16::from_f32((r.range(-2000, 2000) as f32) / 8.0),
            },
            f16_cmp,
        )),
        D::Float32 => Arc::new(prim::<Float32Type>(
            rng,
            n,
            style,
            nb,
            |r| match r.below(6) {
                0 => r.pick(&[
                    f32::NAN,
                    -f32::NAN,
                    f32::from_bits(0x7f80_0001),
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    -0.0,
                    0.0,
                    f32::MIN,
                    f32::MAX,
                    f32::MIN_POSITIVE,
                    f32::from_bits(1),
                ]),
                1 => f32::from_bits(r.next() as u32),
                _ => r.range(-1000, 1000) as f32 / 4.0,
            },
            |a, b| a.total_cmp(b),
        )),
        D::Float64 => Arc::new(prim::<Float64Type>(
            rng,
            n,
            style,
            nb,
            |r| match r.below(6) {
                0 => r.pick(&[
                    f64::NAN,
                    -f64::NAN,
                    f64::from_bits(0x7ff0_0000_0000_0001),
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -0.0,
                    0.0,
                    f64::MIN,
                    f64::MAX,
                    f64::MIN_POSITIVE,
                    f64::from_bits(1),
                ]),
                1 => f64::from_bits(r.next()),
                _ => r.range(-1000, 1000) as f64 / 8.0,
            },
            |a, b| a.total_cmp(b),
        )),
        D::Utf8 | D::LargeUtf8 | D::Utf8View => {
            let v = draw(rng, n, style, |r| string_one(r).into_bytes(), Ord::cmp);
            bytes_array(dt, &v, nb)
        }
        D::Binary | D::LargeBinary | D::BinaryView => {
            let v = draw(rng, n, style, binary_one, Ord::cmp);
            bytes_array(dt, &v, nb)
        }
        D::FixedSizeBinary(w) => {
            let w = *w as usize;
            let v = draw(rng, n, style, |r| fixed_one(r, w), Ord::cmp);
            Arc::new(FixedSizeBinaryArray::new(w as i32, v.concat().into(), nb))
        }
        D::Decimal32(p, s) => {
            let v = draw(rng, n, style, |r| decimal_one(r, *p), Ord::cmp);
            let v: Vec<i32> = v.iter().map(|x| x.as_i128() as i32).collect();
            Arc::new(
                Decimal32Array::new(v.into(), nb)
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Decimal64(p, s) => {
            let v = draw(rng, n, style, |r| decimal_one(r, *p), Ord::cmp);
            let v: Vec<i64> = v.iter().map(|x| x.as_i128() as i64).collect();
            Arc::new(
                Decimal64Array::new(v.into(), nb)
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Decimal128(p, s) => {
            let v = draw(rng, n, style, |r| decimal_one(r, *p), Ord::cmp);
            let v: Vec<i128> = v.iter().map(|x| x.as_i128()).collect();
            Arc::new(
                Decimal128Array::new(v.into(), nb)
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Decimal256(p, s) => {
            let v = draw(rng, n, style, |r| decimal_one(r, *p), Ord::cmp);
            Arc::new(
                Decimal256Array::new(v.into(), nb)
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Date32 => Arc::new(prim::<Date32Type>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[i32::MIN, i32::MAX, 0, -719_162, 2_932_896],
                    |x| x as i32,
                    |x| x as i32 * 100,
                )
            },
            Ord::cmp,
        )),
        // Whole days only (the writer stores days).
        D::Date64 => Arc::new(prim::<Date64Type>(
            rng,
            n,
            style,
            nb,
            |r| {
                let days = int_one(
                    r,
                    &[i64::from(i32::MIN), i64::from(i32::MAX), 0],
                    |x| i64::from(x as i32),
                    |x| x * 100,
                );
                days * 86_400_000
            },
            Ord::cmp,
        )),
        D::Time32(TimeUnit::Second) => Arc::new(prim::<Time32SecondType>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[0, 86_399], |x| (x % 86_400) as i32, |x| x.abs() as i32),
            Ord::cmp,
        )),
        D::Time32(_) => Arc::new(prim::<Time32MillisecondType>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[0, 86_399_999],
                    |x| (x % 86_400_000) as i32,
                    |x| x.abs() as i32,
                )
            },
            Ord::cmp,
        )),
        D::Time64(TimeUnit::Microsecond) => Arc::new(prim::<Time64MicrosecondType>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[0, 86_399_999_999],
                    |x| (x % 86_400_000_000) as i64,
                    |x| x.abs(),
                )
            },
            Ord::cmp,
        )),
        D::Time64(_) => Arc::new(prim::<Time64NanosecondType>(
            rng,
            n,
            style,
            nb,
            |r| {
                int_one(
                    r,
                    &[0, 86_399_999_999_999],
                    |x| (x % 86_400_000_000_000) as i64,
                    |x| x.abs(),
                )
            },
            Ord::cmp,
        )),
        // Seconds are stored as milliseconds: values whose product fits.
        D::Timestamp(TimeUnit::Second, tz) => {
            const M: i64 = i64::MAX / 1000;
            Arc::new(
                prim::<TimestampSecondType>(
                    rng,
                    n,
                    style,
                    nb,
                    |r| int_one(r, &[-M, M, 0], |x| (x as i64) % M, |x| x),
                    Ord::cmp,
                )
                .with_timezone_opt(tz.clone()),
            )
        }
        D::Timestamp(unit, tz) => {
            macro_rules! ts {
                ($t:ty) => {
                    Arc::new(
                        prim::<$t>(
                            rng,
                            n,
                            style,
                            nb,
                            |r| int_one(r, &[i64::MIN, i64::MAX, 0], any64, |x| x),
                            Ord::cmp,
                        )
                        .with_timezone_opt(tz.clone()),
                    )
                };
            }
            match unit {
                TimeUnit::Second => unreachable!("seconds are the arm above"),
                TimeUnit::Millisecond => ts!(TimestampMillisecondType),
                TimeUnit::Microsecond => ts!(TimestampMicrosecondType),
                TimeUnit::Nanosecond => ts!(TimestampNanosecondType),
            }
        }
        D::Duration(u) => {
            let v = draw(
                rng,
                n,
                style,
                |r| int_one(r, &[i64::MIN, i64::MAX, 0], any64, |x| x),
                Ord::cmp,
            );
            match u {
                TimeUnit::Second => Arc::new(DurationSecondArray::new(v.into(), nb)),
                TimeUnit::Millisecond => Arc::new(DurationMillisecondArray::new(v.into(), nb)),
                TimeUnit::Microsecond => Arc::new(DurationMicrosecondArray::new(v.into(), nb)),
                TimeUnit::Nanosecond => Arc::new(DurationNanosecondArray::new(v.into(), nb)),
            }
        }
        D::Interval(IntervalUnit::YearMonth) => Arc::new(prim::<IntervalYearMonthType>(
            rng,
            n,
            style,
            nb,
            |r| int_one(r, &[i32::MIN, i32::MAX, 0], |x| x as i32, |x| x as i32),
            Ord::cmp,
        )),
        D::Interval(IntervalUnit::DayTime) => {
            let v = draw(
                rng,
                n,
                style,
                |r| {
                    IntervalDayTime::new(
                        int_one(r, &[i32::MIN, i32::MAX, 0], |x| x as i32, |x| x as i32),
                        int_one(r, &[i32::MIN, i32::MAX, 0], |x| x as i32, |x| x as i32),
                    )
                },
                |a, b| (a.days, a.milliseconds).cmp(&(b.days, b.milliseconds)),
            );
            Arc::new(IntervalDayTimeArray::new(v.into(), nb))
        }
        D::Dictionary(k, v) => {
            // Dictionary values (some unused; a null value only in columns with nulls), keys
            // into them.
            let m = 1 + rng.below(16) as usize;
            let value_nulls = if nb.as_ref().is_some_and(|n| n.null_count() > 0) && rng.chance(0.3)
            {
                Nulls::Random(0.2)
            } else {
                Nulls::None
            };
            let value_style = random_style(rng);
            let values = gen_array(v, rng, m, value_style, value_nulls);
            let keys: Vec<i64> = draw(rng, n, style, |r| r.below(m as u64) as i64, Ord::cmp);
            common::dictionary_array(k, &keys, nb, values)
        }
        other => panic!("no generator for {other}"),
    }
}

// ---------------------------------------------------------------------------------------
// Cases

/// One column of a case: its type and values, and the settings it resolves to (by the
/// documented rules of `write::properties`, applied by the test).
#[derive(Debug, Clone)]
struct Col {
    name: String,
    dt: DataType,
    nullable: bool,
    kind: Kind,
    style: Style,
    /// `PARQUET:field_id` of the field, if any.
    field_id: Option<i32>,
    nulls: Nulls,
    codec: Codec,
    stats: StatisticsLevel,
    max_len: Option<usize>,
    dictionary: bool,
    /// The encoding without the dictionary (the fallback when `dictionary`).
    encoding: Encoding,
    bloom: Option<BloomFilterProperties>,
}

/// One generated case: a schema, batches and properties.
struct Case {
    cols: Vec<Col>,
    schema: SchemaRef,
    /// The batches, each with whether `flush` follows it.
    batches: Vec<(RecordBatch, bool)>,
    props: WriterProperties,
    version: DataPageVersion,
    page_rows: Option<usize>,
    rg_rows: Option<usize>,
    rg_bytes: Option<usize>,
    /// Key-value metadata set in the properties.
    key_values: Vec<(String, Option<String>)>,
    /// `created_by` set in the properties.
    created_by: Option<String>,
    /// Batch size of the readers.
    read_batch: usize,
    /// Also read a random row selection with the `parquet` crate (offset index skipping).
    select: bool,
}

impl Case {
    fn describe(&self) -> String {
        let mut s = String::new();
        for c in &self.cols {
            let _ = writeln!(
                s,
                "    {} {} nullable={} {:?} {:?}: codec {} stats {} max_len {:?} dictionary {} \
                 encoding {} bloom {:?}",
                c.name,
                c.dt,
                c.nullable,
                c.nulls,
                c.style,
                c.codec,
                c.stats,
                c.max_len,
                c.dictionary,
                c.encoding,
                c.bloom.map(|b| (b.ndv, b.fpp)),
            );
        }
        let sizes: Vec<String> = self
            .batches
            .iter()
            .map(|(b, f)| format!("{}{}", b.num_rows(), if *f { "+flush" } else { "" }))
            .collect();
        let more = if sizes.len() > 40 { ", ..." } else { "" };
        let _ = writeln!(
            s,
            "    {} batches [{}{more}]",
            sizes.len(),
            sizes[..sizes.len().min(40)].join(", ")
        );
        let _ = writeln!(
            s,
            "    read batch {} selection {}",
            self.read_batch, self.select
        );
        let _ = write!(s, "    {:?}", self.props);
        s
    }
}

const DEFAULT_ROW_GROUP_BYTES: usize = 128 * 1024 * 1024;

fn random_codec(rng: &mut Rng) -> Codec {
    let level = |rng: &mut Rng, lo: i64, hi: i64| rng.chance(0.5).then(|| rng.range(lo, hi) as i32);
    match rng.below(6) {
        0 => Codec::UNCOMPRESSED,
        1 => Codec::SNAPPY,
        2 => Codec::new(Compression::Gzip, level(rng, 0, 9)).unwrap(),
        3 => Codec::LZ4_RAW,
        4 => Codec::new(Compression::Zstd, level(rng, -3, 6)).unwrap(),
        _ => Codec::new(Compression::Brotli, level(rng, 0, 6)).unwrap(),
    }
}

fn random_stats(rng: &mut Rng) -> StatisticsLevel {
    rng.pick(&[
        StatisticsLevel::None,
        StatisticsLevel::Chunk,
        StatisticsLevel::Page,
    ])
}

fn random_bloom(rng: &mut Rng) -> BloomFilterProperties {
    BloomFilterProperties {
        ndv: if rng.chance(0.05) {
            1 << 20
        } else {
            rng.pick(&[1, 16, 200, 5000])
        },
        fpp: rng.pick(&[0.001, 0.01, 0.05, 0.3]),
    }
}

fn random_max_len(rng: &mut Rng) -> Option<usize> {
    if rng.chance(0.3) {
        None
    } else {
        Some(rng.range(1, 20) as usize)
    }
}

fn gen_case(seed: u64) -> Case {
    let rng = &mut Rng(seed);
    // Mostly small files; a few wide ones, a few large ones (past the writer's 1024-row
    // mini-batches and 64Ki-row budget slices).
    let (wide, big) = (rng.chance(0.2), rng.chance(0.03));
    let ncols = 1 + rng.below(if big {
        2
    } else if wide {
        10
    } else {
        4
    }) as usize;
    let rows = match rng.below(20) {
        _ if big => rng.range(5_000, 70_000),
        0 | 1 => 0,
        2..=7 => rng.range(1, 20),
        8..=17 => rng.range(21, 400),
        _ => rng.range(401, 3000),
    } as usize;

    // File-wide settings, each set or left to the default.
    let mut b = WriterProperties::builder();
    let file_codec = rng.chance(0.8).then(|| random_codec(rng));
    if let Some(c) = file_codec {
        b = b.compression(c);
    }
    let file_stats = rng.chance(0.8).then(|| random_stats(rng));
    if let Some(s) = file_stats {
        b = b.statistics(s);
    }
    let file_len = rng.chance(0.5).then(|| random_max_len(rng));
    if let Some(l) = file_len {
        b = b.max_statistics_len(l);
    }
    let file_dict = match rng.below(5) {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    if let Some(d) = file_dict {
        b = b.dictionary(d);
    }
    let file_enc = match rng.below(8) {
        0 => Some(Encoding::Plain),
        1 if file_dict != Some(false) => Some(Encoding::RleDictionary),
        _ => None,
    };
    if let Some(e) = file_enc {
        b = b.encoding(e);
    }
    let file_bloom = rng.chance(0.1).then(|| random_bloom(rng));
    if file_bloom.is_some() {
        b = b.bloom_filter(file_bloom);
    }

    let mut cols = Vec::with_capacity(ncols);
    for j in 0..ncols {
        let dt = random_type(rng);
        let name = format!("c{j}");
        let nullable = dt == DataType::Null || rng.chance(0.7);
        let nulls = if !nullable {
            // A validity buffer without nulls, sometimes.
            if rng.chance(0.2) {
                Nulls::Random(0.0)
            } else {
                Nulls::None
            }
        } else {
            match rng.below(6) {
                0 => Nulls::None,
                1 => Nulls::All,
                _ => Nulls::Random(rng.pick(&[0.0, 0.01, 0.1, 0.5, 0.9, 0.99])),
            }
        };
        let kind = kind_of(&dt);
        let phys = phys_of(&dt);
        let boolean = phys == Phys::Boolean;

        let col_codec = rng.chance(0.25).then(|| random_codec(rng));
        if let Some(c) = col_codec {
            b = b.column_compression(&name, c);
        }
        let col_stats = rng.chance(0.25).then(|| random_stats(rng));
        if let Some(s) = col_stats {
            b = b.column_statistics(&name, s);
        }
        let col_len = rng.chance(0.2).then(|| random_max_len(rng));
        if let Some(l) = col_len {
            b = b.column_max_statistics_len(&name, l);
        }
        // Encoding and dictionary of the column.
        let valid = encodings_for(phys);
        let (mut col_enc, mut col_dict) = (None, None);
        match rng.below(6) {
            1 => col_enc = Some(rng.pick(valid)),
            2 if !boolean => {
                col_enc = Some(rng.pick(valid));
                col_dict = Some(true);
            }
            3 => col_dict = Some(false),
            4 if !boolean => col_dict = Some(true),
            5 if !boolean => col_enc = Some(Encoding::RleDictionary),
            _ => {}
        }
        let enc = col_enc.or(file_enc);
        if enc == Some(Encoding::RleDictionary) && col_dict.or(file_dict) == Some(false) {
            // RLE_DICTIONARY with the dictionary disabled is refused: enable it (BOOLEAN
            // columns refuse that: leave theirs unset, the file-wide one is not false).
            col_dict = if boolean { None } else { Some(true) };
        }
        if let Some(e) = col_enc {
            b = b.column_encoding(&name, e);
        }
        if let Some(d) = col_dict {
            b = b.column_dictionary(&name, d);
        }
        let explicit_dict = col_dict.or(file_dict);
        let (dictionary, encoding) = match enc {
            Some(Encoding::RleDictionary) => (true, Encoding::Plain),
            Some(e) => (explicit_dict.unwrap_or(false), e),
            None => (explicit_dict.unwrap_or(true), Encoding::Plain),
        };
        let dictionary = dictionary && !boolean;
        // Bloom filter (never on BOOLEAN columns, which refuse them).
        let bloom = if boolean {
            if file_bloom.is_some() {
                b = b.column_bloom_filter(&name, None);
            }
            None
        } else if rng.chance(0.25) {
            let f = rng.chance(0.8).then(|| random_bloom(rng));
            b = b.column_bloom_filter(&name, f);
            f
        } else {
            file_bloom
        };
        cols.push(Col {
            name,
            dt,
            nullable,
            kind,
            style: random_style(rng),
            field_id: rng.chance(0.2).then(|| rng.range(-5, 1000) as i32),
            nulls,
            codec: col_codec.or(file_codec).unwrap_or_default(),
            stats: col_stats.or(file_stats).unwrap_or(StatisticsLevel::Page),
            max_len: col_len.or(file_len).unwrap_or(Some(64)),
            dictionary,
            encoding,
            bloom,
        });
    }

    // Page and row group limits: tiny ones give many pages and row groups.
    let few = rows <= 400;
    let mut page_rows = rng.pick(&[
        None,
        Some(2),
        Some(5),
        Some(37),
        Some(128),
        Some(1000),
        Some(20_000),
    ]);
    if few && rng.chance(0.1) {
        page_rows = Some(1);
    }
    let mut page_bytes = rng.pick(&[None, Some(64), Some(500), Some(4096), Some(1 << 20)]);
    if few && rng.chance(0.1) {
        page_bytes = Some(1);
    }
    if page_rows.is_none() && page_bytes.is_none() {
        page_rows = Some(100);
    }
    let mut rg_rows = rng.pick(&[
        None,
        Some(7),
        Some(100),
        Some(256),
        Some(1000),
        Some(1 << 20),
    ]);
    if rows <= 100 && rng.chance(0.1) {
        rg_rows = Some(1);
    }
    if big && rg_rows.is_some_and(|r| r < 1000) {
        rg_rows = Some(10_000);
    }
    let mut rg_bytes = rng.pick(&[
        None,
        None,
        Some(500),
        Some(8192),
        Some(DEFAULT_ROW_GROUP_BYTES),
    ]);
    if few && rng.chance(0.05) {
        rg_bytes = Some(1);
    }
    if rg_rows.is_none() && rg_bytes.is_none() {
        rg_rows = Some(300);
    }
    let version = if rng.chance(0.5) {
        DataPageVersion::V1
    } else {
        DataPageVersion::V2
    };
    b = b
        .data_page_rows(page_rows)
        .data_page_bytes(page_bytes)
        .max_row_group_rows(rg_rows)
        .max_row_group_bytes(rg_bytes)
        .data_page_version(version)
        .page_crc(rng.chance(0.5));
    if rng.chance(0.3) {
        b = b.dictionary_page_size_limit(rng.range(1, 300) as usize);
    }
    let mut key_values = Vec::new();
    for k in 0..rng.below(3) {
        let v = rng.chance(0.8).then(|| string_one(rng));
        key_values.push((format!("key{k}"), v.clone()));
        b = b.key_value(format!("key{k}"), v);
    }
    let created_by = rng.chance(0.2).then(|| format!("parq proptest {seed}"));
    if let Some(c) = &created_by {
        b = b.created_by(c.clone());
    }
    let props = b.build().expect("valid properties");

    // The columns: one array each, with a few slots before and after the rows written so
    // that every batch is a slice at an offset.
    let fields: Vec<Field> = cols
        .iter()
        .map(|c| {
            let f = Field::new(&c.name, c.dt.clone(), c.nullable);
            match c.field_id {
                Some(id) => f.with_metadata(std::collections::HashMap::from([(
                    "PARQUET:field_id".to_string(),
                    id.to_string(),
                )])),
                None => f,
            }
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let full: Vec<(ArrayRef, usize)> = cols
        .iter()
        .map(|c| {
            let pad = rng.below(10) as usize;
            let tail = rng.below(5) as usize;
            (
                gen_array(&c.dt, rng, pad + rows + tail, c.style, c.nulls),
                pad,
            )
        })
        .collect();
    let slice = |off: usize, len: usize| {
        let arrays = full
            .iter()
            .map(|(a, pad)| a.slice(pad + off, len))
            .collect();
        RecordBatch::try_new(schema.clone(), arrays).expect("batch")
    };
    let mut batches = Vec::new();
    let max_batch = rng.pick(&[1u64, 7, 64, 500, 5000]);
    let mut off = 0;
    loop {
        if rng.chance(0.1) {
            batches.push((slice(off, 0), false));
        }
        if off == rows {
            break;
        }
        let k = 1 + rng.below(max_batch.min((rows - off) as u64)) as usize;
        batches.push((slice(off, k), rng.chance(0.1)));
        if rng.chance(0.02) {
            batches.push((slice(off + k, 0), true));
        }
        off += k;
    }
    Case {
        cols,
        schema,
        batches,
        props,
        version,
        page_rows,
        rg_rows,
        rg_bytes,
        key_values,
        created_by,
        read_batch: if big {
            rng.pick(&[1000, 65536])
        } else {
            rng.pick(&[1, 3, 100, 1024, 65536])
        },
        select: rng.chance(0.3),
    }
}

// ---------------------------------------------------------------------------------------
// The test's reference: physical values, orders, min/max

/// A value as Parquet stores it (floats by their bits).
#[derive(Debug, Clone, PartialEq, Eq)]
enum PV {
    Bool(bool),
    I32(i32),
    I64(i64),
    F16(u16),
    F32(u32),
    F64(u64),
    Bytes(Vec<u8>),
}

impl PV {
    /// The PLAIN bytes (without a length prefix): what Bloom filters hash.
    fn plain(&self) -> Vec<u8> {
        match self {
            PV::Bool(b) => vec![u8::from(*b)],
            PV::I32(v) => v.to_le_bytes().to_vec(),
            PV::I64(v) => v.to_le_bytes().to_vec(),
            PV::F16(v) => v.to_le_bytes().to_vec(),
            PV::F32(v) => v.to_le_bytes().to_vec(),
            PV::F64(v) => v.to_le_bytes().to_vec(),
            PV::Bytes(v) => v.clone(),
        }
    }

    fn is_nan(&self) -> bool {
        match self {
            PV::F16(b) => F16::from_bits(*b).is_nan(),
            PV::F32(b) => f32::from_bits(*b).is_nan(),
            PV::F64(b) => f64::from_bits(*b).is_nan(),
            _ => false,
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            PV::Bytes(b) => b,
            other => panic!("not bytes: {other:?}"),
        }
    }
}

/// The fewest bytes of a two's complement integer holding every decimal of `p` digits.
fn decimal_width(p: u8) -> usize {
    let max = i256::from_i128(10).wrapping_pow(u32::from(p)) - i256::ONE;
    let mut limit = i256::from_i128(128);
    for n in 1..32 {
        if max < limit {
            return n;
        }
        limit = limit.wrapping_mul(i256::from_i128(256));
    }
    32
}

/// The values of `a` as Parquet stores them (`None`: null, dictionary values resolved).
fn phys_values(a: &dyn Array) -> Vec<Option<PV>> {
    use DataType as D;
    if let D::Dictionary(..) = a.data_type() {
        let d = a.as_any_dictionary();
        let values = arrow_select::take::take(d.values().as_ref(), d.keys(), None).unwrap();
        return phys_values(values.as_ref());
    }
    let valid = a.logical_nulls();
    let n = a.len();
    let mut out = Vec::with_capacity(n);
    let dec = |v: i256, p: u8| PV::Bytes(v.to_be_bytes()[32 - decimal_width(p)..].to_vec());
    for i in 0..n {
        if valid.as_ref().is_some_and(|v| v.is_null(i)) {
            out.push(None);
            continue;
        }
        let v = match a.data_type() {
            D::Boolean => PV::Bool(a.as_boolean().value(i)),
            D::Int8 => PV::I32(a.as_primitive::<Int8Type>().value(i).into()),
            D::Int16 => PV::I32(a.as_primitive::<Int16Type>().value(i).into()),
            D::Int32 => PV::I32(a.as_primitive::<Int32Type>().value(i)),
            D::UInt8 => PV::I32(a.as_primitive::<UInt8Type>().value(i).into()),
            D::UInt16 => PV::I32(a.as_primitive::<UInt16Type>().value(i).into()),
            D::UInt32 => PV::I32(a.as_primitive::<UInt32Type>().value(i) as i32),
            D::Int64 => PV::I64(a.as_primitive::<Int64Type>().value(i)),
            D::UInt64 => PV::I64(a.as_primitive::<UInt64Type>().value(i) as i64),
            D::Float16 => PV::F16(a.as_primitive::<Float16Type>().value(i).to_bits()),
            D::Float32 => PV::F32(a.as_primitive::<Float32Type>().value(i).to_bits()),
            D::Float64 => PV::F64(a.as_primitive::<Float64Type>().value(i).to_bits()),
            D::Utf8 => PV::Bytes(a.as_string::<i32>().value(i).as_bytes().to_vec()),
            D::LargeUtf8 => PV::Bytes(a.as_string::<i64>().value(i).as_bytes().to_vec()),
            D::Utf8View => PV::Bytes(a.as_string_view().value(i).as_bytes().to_vec()),
            D::Binary => PV::Bytes(a.as_binary::<i32>().value(i).to_vec()),
            D::LargeBinary => PV::Bytes(a.as_binary::<i64>().value(i).to_vec()),
            D::BinaryView => PV::Bytes(a.as_binary_view().value(i).to_vec()),
            D::FixedSizeBinary(_) => PV::Bytes(a.as_fixed_size_binary().value(i).to_vec()),
            D::Decimal32(p, _) => dec(
                i256::from_i128(a.as_primitive::<Decimal32Type>().value(i).into()),
                *p,
            ),
            D::Decimal64(p, _) => dec(
                i256::from_i128(a.as_primitive::<Decimal64Type>().value(i).into()),
                *p,
            ),
            D::Decimal128(p, _) => dec(
                i256::from_i128(a.as_primitive::<Decimal128Type>().value(i)),
                *p,
            ),
            D::Decimal256(p, _) => dec(a.as_primitive::<Decimal256Type>().value(i), *p),
            D::Date32 => PV::I32(a.as_primitive::<Date32Type>().value(i)),
            D::Date64 => PV::I32((a.as_primitive::<Date64Type>().value(i) / 86_400_000) as i32),
            D::Time32(TimeUnit::Second) => {
                PV::I32(a.as_primitive::<Time32SecondType>().value(i) * 1000)
            }
            D::Time32(_) => PV::I32(a.as_primitive::<Time32MillisecondType>().value(i)),
            D::Time64(TimeUnit::Microsecond) => {
                PV::I64(a.as_primitive::<Time64MicrosecondType>().value(i))
            }
            D::Time64(_) => PV::I64(a.as_primitive::<Time64NanosecondType>().value(i)),
            D::Timestamp(TimeUnit::Second, _) => {
                PV::I64(a.as_primitive::<TimestampSecondType>().value(i) * 1000)
            }
            D::Timestamp(TimeUnit::Millisecond, _) => {
                PV::I64(a.as_primitive::<TimestampMillisecondType>().value(i))
            }
            D::Timestamp(TimeUnit::Microsecond, _) => {
                PV::I64(a.as_primitive::<TimestampMicrosecondType>().value(i))
            }
            D::Timestamp(TimeUnit::Nanosecond, _) => {
                PV::I64(a.as_primitive::<TimestampNanosecondType>().value(i))
            }
            D::Duration(TimeUnit::Second) => {
                PV::I64(a.as_primitive::<DurationSecondType>().value(i))
            }
            D::Duration(TimeUnit::Millisecond) => {
                PV::I64(a.as_primitive::<DurationMillisecondType>().value(i))
            }
            D::Duration(TimeUnit::Microsecond) => {
                PV::I64(a.as_primitive::<DurationMicrosecondType>().value(i))
            }
            D::Duration(TimeUnit::Nanosecond) => {
                PV::I64(a.as_primitive::<DurationNanosecondType>().value(i))
            }
            // INTERVAL: months, days, milliseconds, little-endian 32-bit each.
            D::Interval(IntervalUnit::YearMonth) => {
                let m = a.as_primitive::<IntervalYearMonthType>().value(i);
                PV::Bytes([m.to_le_bytes(), [0; 4], [0; 4]].concat())
            }
            D::Interval(IntervalUnit::DayTime) => {
                let v = a.as_primitive::<IntervalDayTimeType>().value(i);
                PV::Bytes([[0; 4], v.days.to_le_bytes(), v.milliseconds.to_le_bytes()].concat())
            }
            other => panic!("no physical values for {other}"),
        };
        out.push(Some(v));
    }
    out
}

/// The spec's order of two (non-NaN) values of a column of `kind`.
fn cmp_pv(kind: Kind, a: &PV, b: &PV) -> Ordering {
    match (a, b) {
        (PV::Bool(x), PV::Bool(y)) => x.cmp(y),
        (PV::I32(x), PV::I32(y)) if kind == Kind::U32 => (*x as u32).cmp(&(*y as u32)),
        (PV::I32(x), PV::I32(y)) => x.cmp(y),
        (PV::I64(x), PV::I64(y)) if kind == Kind::U64 => (*x as u64).cmp(&(*y as u64)),
        (PV::I64(x), PV::I64(y)) => x.cmp(y),
        (PV::F16(x), PV::F16(y)) => F16::from_bits(*x)
            .partial_cmp(&F16::from_bits(*y))
            .expect("no NaN"),
        (PV::F32(x), PV::F32(y)) => f32::from_bits(*x)
            .partial_cmp(&f32::from_bits(*y))
            .expect("no NaN"),
        (PV::F64(x), PV::F64(y)) => f64::from_bits(*x)
            .partial_cmp(&f64::from_bits(*y))
            .expect("no NaN"),
        // Signed big-endian two's complement of one width: the sign byte signed, then the
        // rest unsigned.
        (PV::Bytes(x), PV::Bytes(y)) if kind == Kind::Decimal => {
            assert_eq!(x.len(), y.len(), "decimals of one width");
            match (x.first(), y.first()) {
                (Some(&p), Some(&q)) => (p as i8).cmp(&(q as i8)).then_with(|| x[1..].cmp(&y[1..])),
                _ => x.cmp(y),
            }
        }
        (PV::Bytes(x), PV::Bytes(y)) => x.cmp(y),
        (x, y) => panic!("values of different kinds: {x:?} {y:?}"),
    }
}

/// What the statistics of a range of values must say.
#[derive(Debug, Default)]
struct Expected {
    nulls: u64,
    non_null: u64,
    /// Min/max by the spec: NaN never, a zero min is -0.0 and a zero max +0.0; `None`
    /// when there is no non-NaN value or the column has no order.
    min: Option<PV>,
    max: Option<PV>,
    /// Sum of the lengths of the non-null BYTE_ARRAY values.
    byte_array_bytes: i64,
}

fn expected(kind: Kind, vals: &[Option<PV>]) -> Expected {
    let mut e = Expected::default();
    for v in vals {
        let Some(v) = v else {
            e.nulls += 1;
            continue;
        };
        e.non_null += 1;
        if let (Kind::Bytes { .. }, PV::Bytes(b)) = (kind, v) {
            e.byte_array_bytes += b.len() as i64;
        }
        if matches!(kind, Kind::Unordered | Kind::Null) || v.is_nan() {
            continue;
        }
        if e.min
            .as_ref()
            .is_none_or(|m| cmp_pv(kind, v, m) == Ordering::Less)
        {
            e.min = Some(v.clone());
        }
        if e.max
            .as_ref()
            .is_none_or(|m| cmp_pv(kind, v, m) == Ordering::Greater)
        {
            e.max = Some(v.clone());
        }
    }
    let zero = |v: &mut Option<PV>, negative: bool| {
        *v = match v.take() {
            Some(PV::F16(b)) if F16::from_bits(b) == F16::ZERO => {
                Some(PV::F16(if negative { 0x8000 } else { 0 }))
            }
            Some(PV::F32(b)) if f32::from_bits(b) == 0.0 => {
                Some(PV::F32(if negative { (-0.0f32).to_bits() } else { 0 }))
            }
            Some(PV::F64(b)) if f64::from_bits(b) == 0.0 => {
                Some(PV::F64(if negative { (-0.0f64).to_bits() } else { 0 }))
            }
            other => other,
        }
    };
    zero(&mut e.min, true);
    zero(&mut e.max, false);
    e
}

/// Checks a written bound (`got`, with its exactness flag when the format has one) against
/// the true one (`want`): equal, or for a BYTE_ARRAY value longer than `max_len` a truncated
/// bound of at most `max_len` bytes below the true min / above the true max (a max that
/// cannot be incremented may stay whole and exact). UTF-8 bounds stay valid UTF-8.
fn check_bound(
    what: &str,
    col: &Col,
    is_max: bool,
    got: Option<&PV>,
    exact: Option<bool>,
    want: Option<&PV>,
) -> Result<(), String> {
    let name = if is_max { "max" } else { "min" };
    let (got, want) = match (got, want) {
        (None, None) => return Ok(()),
        (Some(g), Some(w)) => (g, w),
        (g, w) => return Err(format!("{what}: {name} {g:?}, expected {w:?}")),
    };
    let truncatable = match (col.kind, col.max_len) {
        (Kind::Bytes { .. }, Some(l)) => want.bytes().len() > l,
        _ => false,
    };
    bump("bounds checked", 1);
    if !truncatable || (is_max && got == want) {
        if got != want || exact == Some(false) {
            return Err(format!(
                "{what}: {name} {got:?} (exact {exact:?}), expected {want:?} exact"
            ));
        }
        return Ok(());
    }
    bump("bounds truncated", 1);
    let (g, w) = (got.bytes(), want.bytes());
    let l = col.max_len.unwrap();
    let ok_side = if is_max { g > w } else { g <= w };
    let utf8_ok = !matches!(col.kind, Kind::Bytes { utf8: true }) || std::str::from_utf8(g).is_ok();
    if g.len() > l || !ok_side || exact == Some(true) || !utf8_ok {
        return Err(format!(
            "{what}: truncated {name} {g:?} (exact {exact:?}) for {w:?} with max length {l}"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// What the readers give back

/// Resolves a dictionary array to its values.
fn undictionary(a: &ArrayRef) -> ArrayRef {
    let d = a.as_any_dictionary();
    arrow_select::take::take(d.values().as_ref(), d.keys(), None).unwrap()
}

/// The array parq's reader gives back for input `a`: the same, except for what Parquet
/// coerces and parq, like pyarrow 26, does not restore from `ARROW:schema` (documented in
/// `schema::embedded`): Date64 comes back as Date32, Time32(s) as Time32(ms), Timestamp(s)
/// as Timestamp(ms); dictionaries are restored over Utf8 / Binary values only (others come
/// back as their values).
fn parq_expected(a: &ArrayRef) -> ArrayRef {
    use DataType as D;
    match a.data_type() {
        D::Date64 => Arc::new(
            a.as_primitive::<Date64Type>()
                .unary::<_, Date32Type>(|v| (v / 86_400_000) as i32),
        ),
        D::Time32(TimeUnit::Second) => Arc::new(
            a.as_primitive::<Time32SecondType>()
                .unary::<_, Time32MillisecondType>(|v| v * 1000),
        ),
        D::Timestamp(TimeUnit::Second, tz) => Arc::new(
            a.as_primitive::<TimestampSecondType>()
                .unary::<_, TimestampMillisecondType>(|v| v * 1000)
                .with_timezone_opt(tz.clone()),
        ),
        D::Dictionary(_, v) if matches!(**v, D::LargeUtf8 | D::LargeBinary) => {
            // Restored over the Parquet type's Utf8 / Binary values.
            let d = a.as_any_dictionary();
            let values: ArrayRef = if **v == D::LargeUtf8 {
                Arc::new(
                    d.values()
                        .as_string::<i64>()
                        .iter()
                        .collect::<StringArray>(),
                )
            } else {
                Arc::new(
                    d.values()
                        .as_binary::<i64>()
                        .iter()
                        .collect::<BinaryArray>(),
                )
            };
            d.with_values(values)
        }
        D::Dictionary(_, v) if !matches!(**v, D::Utf8 | D::Binary) => {
            parq_expected(&undictionary(a))
        }
        _ => a.clone(),
    }
}

/// The array the `parquet` crate 60.1 gives back for input `a`. It applies `ARROW:schema`,
/// with these differences:
/// - Time32(s) comes back as Time32(ms) and Timestamp(s, tz) as Timestamp(ms, "UTC" when tz)
///   (the Parquet type's: 60.1 does not apply a seconds hint to a MILLIS column, and then
///   not the hint's time zone either);
/// - a dictionary of decimals (FIXED_LEN_BYTE_ARRAY) cannot be read as a dictionary
///   ("unsupported data type for byte array dictionary reader"): the test reads such
///   columns as their values, with a supplied schema ([`peer_schema`]).
fn peer_expected(a: &ArrayRef) -> ArrayRef {
    use DataType as D;
    match a.data_type() {
        D::Time32(TimeUnit::Second) => parq_expected(a),
        D::Dictionary(_, v) if is_decimal(v) => undictionary(a),
        D::Timestamp(TimeUnit::Second, tz) => Arc::new(
            a.as_primitive::<TimestampSecondType>()
                .unary::<_, TimestampMillisecondType>(|v| v * 1000)
                .with_timezone_opt(tz.as_ref().map(|_| "UTC")),
        ),
        _ => a.clone(),
    }
}

fn is_decimal(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Decimal32(..)
            | DataType::Decimal64(..)
            | DataType::Decimal128(..)
            | DataType::Decimal256(..)
    )
}

/// The schema 60.1 infers, with its unreadable dictionaries of decimals as their values;
/// `None` when there are none.
fn peer_schema(inferred: &SchemaRef) -> Option<SchemaRef> {
    let mut changed = false;
    let fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Dictionary(_, v) if is_decimal(v) => {
                changed = true;
                f.as_ref().clone().with_data_type((**v).clone())
            }
            _ => f.as_ref().clone(),
        })
        .collect();
    changed.then(|| {
        Arc::new(Schema::new_with_metadata(
            fields,
            inferred.metadata().clone(),
        ))
    })
}

/// Compares two arrays exactly (type, then `ArrayData` equality: floats by bits, dictionaries
/// by value), naming the first differing row.
fn compare_arrays(what: &str, got: &dyn Array, want: &dyn Array) -> Result<(), String> {
    if got.data_type() != want.data_type() {
        return Err(format!(
            "{what}: type {} expected {}",
            got.data_type(),
            want.data_type()
        ));
    }
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} rows expected {}",
            got.len(),
            want.len()
        ));
    }
    got.to_data()
        .validate_full()
        .map_err(|e| format!("{what}: invalid array: {e}"))?;
    if let DataType::Dictionary(..) = got.data_type() {
        // By value: a null may be a null key or a key to a null value.
        let (g, w) = (
            undictionary(&arrow_array::make_array(got.to_data())),
            undictionary(&arrow_array::make_array(want.to_data())),
        );
        return compare_arrays(what, g.as_ref(), w.as_ref());
    }
    if got.to_data() != want.to_data() {
        let first = (0..got.len())
            .find(|&r| got.slice(r, 1).to_data() != want.slice(r, 1).to_data())
            .unwrap_or(0);
        return Err(format!(
            "{what}: differs first at row {first}: got {:?} expected {:?}",
            got.slice(first, 1),
            want.slice(first, 1)
        ));
    }
    Ok(())
}

fn concat(dt: &DataType, arrays: &[ArrayRef]) -> ArrayRef {
    if arrays.is_empty() {
        return arrow_array::new_empty_array(dt);
    }
    let refs: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
    arrow_select::concat::concat(&refs).unwrap()
}

/// Counts of what the cases exercised, printed at the end (to see that the checks bite).
static COVERAGE: std::sync::Mutex<std::collections::BTreeMap<String, u64>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn bump(what: impl Into<String>, n: u64) {
    *COVERAGE.lock().unwrap().entry(what.into()).or_default() += n;
}

macro_rules! ensure {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(format!($($arg)+));
        }
    };
}

fn err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

// ---------------------------------------------------------------------------------------
// One case

/// Writes the case with parq; returns the file and the footer parq returns.
fn write_case(case: &Case) -> Result<(Vec<u8>, parq::format::metadata::FileMetaData), String> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, case.schema.clone(), case.props.clone())
        .map_err(err("parq writer"))?;
    for (b, flush) in &case.batches {
        w.write(b).map_err(err("parq write"))?;
        if *flush {
            w.flush().map_err(err("parq flush"))?;
        }
    }
    let meta = w.close().map_err(err("parq close"))?;
    let rows: usize = case.batches.iter().map(|(b, _)| b.num_rows()).sum();
    ensure!(
        meta.num_rows() == rows as i64,
        "parq's metadata: {} rows, {rows} written",
        meta.num_rows()
    );
    Ok((out, meta))
}

/// The deprecated `min`/`max` of the chunk statistics (read with parq's footer decoder, as
/// 60.1 ignores them when `min_value`/`max_value` are present): written, equal to
/// `min_value`/`max_value`, for the columns whose order is signed (BOOLEAN, signed integers,
/// floats, FLOAT16, decimals, as pyarrow 26 and arrow-rs write them), never for the others.
fn check_legacy_min_max(
    case: &Case,
    meta: &parq::format::metadata::FileMetaData,
) -> Result<(), String> {
    for (g, rg) in meta.row_groups().iter().enumerate() {
        for (j, (c, col)) in rg.columns().iter().zip(&case.cols).enumerate() {
            let Some(st) = c.statistics() else { continue };
            let signed = matches!(
                col.kind,
                Kind::Bool
                    | Kind::I32
                    | Kind::I64
                    | Kind::F16
                    | Kind::F32
                    | Kind::F64
                    | Kind::Decimal
            );
            let get = |r: Option<parq::format::metadata::ByteRange>| r.map(|r| meta.bytes(r));
            let (min, max) = (get(st.min), get(st.max));
            let want = if signed {
                (get(st.min_value), get(st.max_value))
            } else {
                (None, None)
            };
            ensure!(
                (min, max) == want,
                "row group {g} column {j}: deprecated min/max {min:?}/{max:?}, expected {want:?}"
            );
        }
    }
    Ok(())
}

/// The row group sizes the limits give, when the byte budget is never reached.
fn expected_row_groups(case: &Case) -> Option<Vec<usize>> {
    if case.rg_bytes.is_some_and(|b| b < DEFAULT_ROW_GROUP_BYTES) {
        return None;
    }
    let limit = case.rg_rows.unwrap_or(usize::MAX);
    let (mut sizes, mut open) = (Vec::new(), 0);
    for (b, flush) in &case.batches {
        let mut n = b.num_rows();
        while n > 0 {
            let k = n.min(limit - open);
            open += k;
            n -= k;
            if open == limit {
                sizes.push(open);
                open = 0;
            }
        }
        if *flush && open > 0 {
            sizes.push(open);
            open = 0;
        }
    }
    if open > 0 {
        sizes.push(open);
    }
    Some(sizes)
}

fn run_case(case: &Case) -> Result<(), String> {
    let (bytes, meta) = write_case(case)?;
    check_legacy_min_max(case, &meta)?;
    let bytes = Bytes::from(bytes);
    // The input, column by column.
    let inputs: Vec<ArrayRef> = (0..case.cols.len())
        .map(|j| {
            let parts: Vec<ArrayRef> = case
                .batches
                .iter()
                .map(|(b, _)| b.column(j).clone())
                .collect();
            concat(&case.cols[j].dt, &parts)
        })
        .collect();
    let rows = inputs.first().map_or(0, |a| a.len());
    bump("rows", rows as u64);
    bump("columns", case.cols.len() as u64);
    bump("batches", case.batches.len() as u64);
    for c in &case.cols {
        bump(format!("columns of {:?}", c.kind), 1);
    }
    read_with_parq(case, &bytes, &inputs)?;
    read_with_peer(case, &bytes, &inputs)?;
    let values: Vec<Vec<Option<PV>>> = inputs.iter().map(|a| phys_values(a.as_ref())).collect();
    check_metadata(case, &bytes, rows, &values)?;
    Ok(())
}

/// parq reads the file back equal to the input (with the types of [`parq_expected`]).
fn read_with_parq(case: &Case, bytes: &Bytes, inputs: &[ArrayRef]) -> Result<(), String> {
    let reader = ParquetReader::from_bytes(bytes.clone())
        .map_err(err("parq open"))?
        .with_batch_size(case.read_batch);
    let schema = reader.schema().map_err(err("parq schema"))?;
    let batches: Vec<RecordBatch> = reader
        .batches()
        .map_err(err("parq read"))?
        .collect::<parq::Result<_>>()
        .map_err(err("parq read"))?;
    ensure!(
        schema.fields().len() == inputs.len(),
        "parq: {} columns, {} written",
        schema.fields().len(),
        inputs.len()
    );
    for (i, (c, input)) in case.cols.iter().zip(inputs).enumerate() {
        let want = parq_expected(input);
        let f = schema.field(i);
        ensure!(
            f.name() == &c.name && f.is_nullable() == c.nullable,
            "parq: field {f:?} for column {}",
            c.name
        );
        let parts: Vec<ArrayRef> = batches.iter().map(|b| b.column(i).clone()).collect();
        let got = concat(f.data_type(), &parts);
        compare_arrays(
            &format!("parq reads {}", c.name),
            got.as_ref(),
            want.as_ref(),
        )?;
    }
    Ok(())
}

/// The `parquet` crate 60.1 reads the file back equal to the input (with the types of
/// [`peer_expected`]), whole and (sometimes) through a row selection that skips pages with
/// the offset index.
fn read_with_peer(case: &Case, bytes: &Bytes, inputs: &[ArrayRef]) -> Result<(), String> {
    let read = |selection: Option<RowSelection>| -> Result<(SchemaRef, Vec<RecordBatch>), String> {
        let options = ArrowReaderOptions::new()
            .with_column_index_policy(PageIndexPolicy::Optional)
            .with_offset_index_policy(PageIndexPolicy::Required);
        let mut builder =
            ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options.clone())
                .map_err(err("parquet 60.1 open"))?;
        if let Some(schema) = peer_schema(builder.schema()) {
            builder = ParquetRecordBatchReaderBuilder::try_new_with_options(
                bytes.clone(),
                options.with_schema(schema),
            )
            .map_err(err("parquet 60.1 open with a schema"))?;
        }
        builder = builder.with_batch_size(case.read_batch);
        if let Some(s) = selection {
            builder = builder.with_row_selection(s);
        }
        let schema = builder.schema().clone();
        let reader = builder.build().map_err(err("parquet 60.1 reader"))?;
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(err("parquet 60.1 read"))?;
        Ok((schema, batches))
    };
    let (schema, batches) = read(None)?;
    ensure!(
        schema.fields().len() == case.cols.len(),
        "parquet 60.1: {} columns",
        schema.fields().len()
    );
    let expected: Vec<ArrayRef> = inputs.iter().map(peer_expected).collect();
    for (j, (c, want)) in case.cols.iter().zip(&expected).enumerate() {
        let f = schema.field(j);
        ensure!(
            f.name() == &c.name,
            "parquet 60.1: field {f:?} for column {}",
            c.name
        );
        let parts: Vec<ArrayRef> = batches.iter().map(|b| b.column(j).clone()).collect();
        let got = concat(f.data_type(), &parts);
        compare_arrays(
            &format!("parquet 60.1 reads {}", c.name),
            got.as_ref(),
            want.as_ref(),
        )?;
    }
    let rows = inputs.first().map_or(0, |a| a.len());
    if case.select && rows > 0 {
        bump("row selections read by parquet 60.1", 1);
        let (sel, mask) = common::row_selection(rows as u64, rows);
        let (schema, batches) = read(Some(sel.clone()))?;
        for (j, (c, want)) in case.cols.iter().zip(&expected).enumerate() {
            let want = arrow_select::filter::filter(want.as_ref(), &mask).unwrap();
            let parts: Vec<ArrayRef> = batches.iter().map(|b| b.column(j).clone()).collect();
            let got = concat(schema.field(j).data_type(), &parts);
            compare_arrays(
                &format!("parquet 60.1 reads {} with selection {sel:?}", c.name),
                got.as_ref(),
                want.as_ref(),
            )?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Metadata, statistics, page index, pages and Bloom filters as the `parquet` crate sees them

fn peer_encoding(e: Encoding) -> PEncoding {
    match e {
        Encoding::Plain => PEncoding::PLAIN,
        Encoding::Rle => PEncoding::RLE,
        Encoding::DeltaBinaryPacked => PEncoding::DELTA_BINARY_PACKED,
        Encoding::DeltaLengthByteArray => PEncoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DeltaByteArray => PEncoding::DELTA_BYTE_ARRAY,
        Encoding::ByteStreamSplit => PEncoding::BYTE_STREAM_SPLIT,
        Encoding::RleDictionary => PEncoding::RLE_DICTIONARY,
        other => panic!("no peer encoding for {other}"),
    }
}

fn codec_matches(c: Codec, p: parquet::basic::Compression) -> bool {
    use parquet::basic::Compression as P;
    matches!(
        (c.compression(), p),
        (Compression::Uncompressed, P::UNCOMPRESSED)
            | (Compression::Snappy, P::SNAPPY)
            | (Compression::Gzip, P::GZIP(_))
            | (Compression::Lz4Raw, P::LZ4_RAW)
            | (Compression::Zstd, P::ZSTD(_))
            | (Compression::Brotli, P::BROTLI(_))
    )
}

/// A bound of 60.1's statistics as a physical value.
fn stat_bound(kind: Kind, s: &PStatistics, max: bool) -> Option<PV> {
    fn pick<T>(v: &parquet::file::statistics::ValueStatistics<T>, max: bool) -> Option<&T> {
        if max {
            v.max_opt()
        } else {
            v.min_opt()
        }
    }
    match s {
        PStatistics::Boolean(v) => pick(v, max).map(|x| PV::Bool(*x)),
        PStatistics::Int32(v) => pick(v, max).map(|x| PV::I32(*x)),
        PStatistics::Int64(v) => pick(v, max).map(|x| PV::I64(*x)),
        PStatistics::Float(v) => pick(v, max).map(|x| PV::F32(x.to_bits())),
        PStatistics::Double(v) => pick(v, max).map(|x| PV::F64(x.to_bits())),
        PStatistics::ByteArray(v) => pick(v, max).map(|x| PV::Bytes(x.data().to_vec())),
        PStatistics::FixedLenByteArray(v) => pick(v, max).map(|x| fixed_pv(kind, x.data())),
        PStatistics::Int96(_) => panic!("no INT96 columns are written"),
    }
}

fn fixed_pv(kind: Kind, b: &[u8]) -> PV {
    if kind == Kind::F16 && b.len() == 2 {
        PV::F16(u16::from_le_bytes([b[0], b[1]]))
    } else {
        PV::Bytes(b.to_vec())
    }
}

/// A bound of page `i` of 60.1's column index as a physical value.
fn index_bound(kind: Kind, ci: &ColumnIndexMetaData, i: usize, max: bool) -> Option<PV> {
    macro_rules! pick {
        ($x:expr) => {
            if max {
                $x.max_value(i)
            } else {
                $x.min_value(i)
            }
        };
    }
    match ci {
        ColumnIndexMetaData::BOOLEAN(x) => pick!(x).map(|v| PV::Bool(*v)),
        ColumnIndexMetaData::INT32(x) => pick!(x).map(|v| PV::I32(*v)),
        ColumnIndexMetaData::INT64(x) => pick!(x).map(|v| PV::I64(*v)),
        ColumnIndexMetaData::FLOAT(x) => pick!(x).map(|v| PV::F32(v.to_bits())),
        ColumnIndexMetaData::DOUBLE(x) => pick!(x).map(|v| PV::F64(v.to_bits())),
        ColumnIndexMetaData::BYTE_ARRAY(x) => pick!(x).map(|v| PV::Bytes(v.to_vec())),
        ColumnIndexMetaData::FIXED_LEN_BYTE_ARRAY(x) => pick!(x).map(|v| fixed_pv(kind, v)),
        ColumnIndexMetaData::INT96(_) => panic!("no INT96 columns are written"),
    }
}

/// The exactness flags 60.1 reads (for FLOAT, DOUBLE, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY;
/// for the other types it does not read them).
fn exact_flags(s: &PStatistics) -> (Option<bool>, Option<bool>) {
    match s {
        PStatistics::Float(_)
        | PStatistics::Double(_)
        | PStatistics::ByteArray(_)
        | PStatistics::FixedLenByteArray(_) => (Some(s.min_is_exact()), Some(s.max_is_exact())),
        _ => (None, None),
    }
}

/// The page index and the pages of one column chunk: what each page holds.
struct PageRange {
    start: usize,
    end: usize,
}

fn check_metadata(
    case: &Case,
    bytes: &Bytes,
    rows: usize,
    values: &[Vec<Option<PV>>],
) -> Result<(), String> {
    let options = ArrowReaderOptions::new()
        .with_column_index_policy(PageIndexPolicy::Optional)
        .with_offset_index_policy(PageIndexPolicy::Required);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
        .map_err(err("parquet 60.1 metadata"))?;
    let md: Arc<ParquetMetaData> = builder.metadata().clone();
    ensure!(
        md.file_metadata().num_rows() == rows as i64,
        "num_rows {} expected {rows}",
        md.file_metadata().num_rows()
    );
    let sizes: Vec<usize> = md
        .row_groups()
        .iter()
        .map(|g| g.num_rows() as usize)
        .collect();
    ensure!(
        sizes.iter().sum::<usize>() == rows && sizes.iter().all(|&n| n > 0),
        "row group sizes {sizes:?} for {rows} rows"
    );
    if let Some(limit) = case.rg_rows {
        ensure!(
            sizes.iter().all(|&n| n <= limit),
            "row group sizes {sizes:?} over the limit {limit}"
        );
    }
    if let Some(want) = expected_row_groups(case) {
        ensure!(sizes == want, "row group sizes {sizes:?} expected {want:?}");
    }
    // File metadata: key-value pairs (and ARROW:schema), created_by, column orders (the sort
    // order 60.1 derives from the annotations written), field ids.
    let fm = md.file_metadata();
    let kv: Vec<(String, Option<String>)> = fm
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|k| (k.key.clone(), k.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    for pair in &case.key_values {
        ensure!(kv.contains(pair), "key-value {pair:?} not in {kv:?}");
    }
    ensure!(
        kv.iter().any(|(k, v)| k == "ARROW:schema" && v.is_some()),
        "no ARROW:schema key"
    );
    let want_created_by = case
        .created_by
        .clone()
        .unwrap_or_else(|| format!("parq version {}", env!("CARGO_PKG_VERSION")));
    ensure!(
        fm.created_by() == Some(want_created_by.as_str()),
        "created_by {:?} expected {want_created_by:?}",
        fm.created_by()
    );
    for (j, col) in case.cols.iter().enumerate() {
        use parquet::basic::{ColumnOrder, SortOrder};
        let want = match col.kind {
            Kind::Bool | Kind::U32 | Kind::U64 | Kind::Bytes { .. } | Kind::Fixed => {
                SortOrder::UNSIGNED
            }
            Kind::I32 | Kind::I64 | Kind::F16 | Kind::F32 | Kind::F64 | Kind::Decimal => {
                SortOrder::SIGNED
            }
            Kind::Unordered | Kind::Null => SortOrder::UNDEFINED,
        };
        let order = fm.column_order(j);
        ensure!(
            order == ColumnOrder::TYPE_DEFINED_ORDER(want),
            "column {}: column order {order:?} expected TYPE_DEFINED_ORDER({want:?})",
            col.name
        );
        let info = fm
            .schema_descr()
            .column(j)
            .self_type()
            .get_basic_info()
            .clone();
        let id = info.has_id().then(|| info.id());
        ensure!(
            id == col.field_id,
            "column {}: field id {id:?} expected {:?}",
            col.name,
            col.field_id
        );
    }
    let read_options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let file = SerializedFileReader::new_with_options(bytes.clone(), read_options)
        .map_err(err("parquet 60.1 file reader"))?;
    bump("row groups", md.num_row_groups() as u64);
    let mut first = 0;
    for (g, rg) in md.row_groups().iter().enumerate() {
        let n = rg.num_rows() as usize;
        ensure!(
            rg.num_columns() == case.cols.len(),
            "row group {g}: {} columns",
            rg.num_columns()
        );
        let group = file
            .get_row_group(g)
            .map_err(err("parquet 60.1 row group"))?;
        ensure!(
            rg.ordinal() == Some(g as i32),
            "row group {g}: ordinal {:?}",
            rg.ordinal()
        );
        let c0 = rg.column(0);
        let start = c0.dictionary_page_offset().unwrap_or(c0.data_page_offset());
        ensure!(
            rg.file_offset() == Some(start),
            "row group {g}: file_offset {:?}, first page at {start}",
            rg.file_offset()
        );
        let uncompressed: i64 = rg.columns().iter().map(|c| c.uncompressed_size()).sum();
        ensure!(
            rg.total_byte_size() == uncompressed,
            "row group {g}: total_byte_size {} but its chunks {uncompressed} uncompressed",
            rg.total_byte_size()
        );
        for (j, col) in case.cols.iter().enumerate() {
            let what = format!("row group {g} column {}", col.name);
            let vals = &values[j][first..first + n];
            let cm = rg.column(j);
            let pages = check_chunk(case, col, &what, cm, vals, &md, g, j)?;
            let mut page_reader = group
                .get_column_page_reader(j)
                .map_err(err("parquet 60.1 page reader"))?;
            check_pages(case, col, &what, page_reader.as_mut(), vals, &pages, cm)?;
            check_bloom(
                col,
                &what,
                group.get_column_bloom_filter(j),
                vals,
                first as u64,
            )?;
        }
        first += n;
    }
    Ok(())
}

/// The column chunk's metadata, statistics and page index; returns the pages' row ranges.
#[allow(clippy::too_many_arguments)]
fn check_chunk(
    case: &Case,
    col: &Col,
    what: &str,
    cm: &ColumnChunkMetaData,
    vals: &[Option<PV>],
    md: &ParquetMetaData,
    g: usize,
    j: usize,
) -> Result<Vec<PageRange>, String> {
    let n = vals.len();
    ensure!(
        cm.num_values() == n as i64,
        "{what}: num_values {} expected {n}",
        cm.num_values()
    );
    ensure!(
        codec_matches(col.codec, cm.compression()),
        "{what}: codec {:?} expected {}",
        cm.compression(),
        col.codec
    );
    let e = expected(col.kind, vals);

    // Chunk statistics.
    match (col.stats, cm.statistics()) {
        (StatisticsLevel::None, s) => {
            ensure!(s.is_none(), "{what}: statistics {s:?} at level none")
        }
        (_, None) => return Err(format!("{what}: no statistics")),
        (_, Some(s)) => {
            ensure!(
                s.null_count_opt() == Some(e.nulls),
                "{what}: null count {:?} expected {}",
                s.null_count_opt(),
                e.nulls
            );
            let (min_exact, max_exact) = exact_flags(s);
            let w = format!("{what} statistics");
            check_bound(
                &w,
                col,
                false,
                stat_bound(col.kind, s, false).as_ref(),
                min_exact,
                e.min.as_ref(),
            )?;
            check_bound(
                &w,
                col,
                true,
                stat_bound(col.kind, s, true).as_ref(),
                max_exact,
                e.max.as_ref(),
            )?;
        }
    }
    // Size statistics (written with the statistics).
    if col.stats != StatisticsLevel::None {
        if let Kind::Bytes { .. } = col.kind {
            ensure!(
                cm.unencoded_byte_array_data_bytes() == Some(e.byte_array_bytes),
                "{what}: unencoded_byte_array_data_bytes {:?} expected {}",
                cm.unencoded_byte_array_data_bytes(),
                e.byte_array_bytes
            );
        }
        let hist = cm.definition_level_histogram().map(|h| h.values().to_vec());
        if col.nullable {
            let want = vec![e.nulls as i64, e.non_null as i64];
            ensure!(
                hist.as_ref() == Some(&want),
                "{what}: definition level histogram {hist:?} expected {want:?}"
            );
        }
    }

    // Offset index: always written.
    ensure!(
        cm.offset_index_offset().is_some(),
        "{what}: no offset index"
    );
    let pi = md.page_index_for_row_group(g);
    let oi = pi
        .offset_index(j)
        .ok_or_else(|| format!("{what}: parquet 60.1 read no offset index"))?;
    let locs = oi.page_locations();
    ensure!(!locs.is_empty(), "{what}: no pages in the offset index");
    let mut pages = Vec::with_capacity(locs.len());
    for (i, l) in locs.iter().enumerate() {
        let start = l.first_row_index as usize;
        let end = locs
            .get(i + 1)
            .map_or(n, |next| next.first_row_index as usize);
        ensure!(
            start < end && end <= n && (i > 0 || start == 0),
            "{what}: offset index first_row_index {:?} for {n} rows",
            locs.iter().map(|l| l.first_row_index).collect::<Vec<_>>()
        );
        if let Some(limit) = case.page_rows {
            ensure!(
                end - start <= limit,
                "{what}: page {i} of {} rows over the limit {limit}",
                end - start
            );
        }
        pages.push(PageRange { start, end });
    }
    // Page locations: back to back from the first data page to the end of the chunk, after
    // the dictionary page if any.
    let data_start = cm.data_page_offset();
    let chunk_start = match cm.dictionary_page_offset() {
        Some(d) => {
            ensure!(
                d < data_start,
                "{what}: dictionary page at {d}, data pages at {data_start}"
            );
            d
        }
        None => data_start,
    };
    let chunk_end = chunk_start + cm.compressed_size();
    ensure!(
        locs[0].offset == data_start,
        "{what}: first page at {} but data_page_offset {data_start}",
        locs[0].offset
    );
    for (i, w) in locs.windows(2).enumerate() {
        ensure!(
            w[0].offset + i64::from(w[0].compressed_page_size) == w[1].offset,
            "{what}: page {i} at {} + {} but page {} at {}",
            w[0].offset,
            w[0].compressed_page_size,
            i + 1,
            w[1].offset
        );
    }
    let last = locs.last().unwrap();
    ensure!(
        last.offset + i64::from(last.compressed_page_size) == chunk_end,
        "{what}: last page ends at {} but the chunk at {chunk_end}",
        last.offset + i64::from(last.compressed_page_size)
    );
    let page_expected: Vec<Expected> = pages
        .iter()
        .map(|p| expected(col.kind, &vals[p.start..p.end]))
        .collect();
    if let (Some(unencoded), Kind::Bytes { .. }) = (oi.unencoded_byte_array_data_bytes(), col.kind)
    {
        let want: Vec<i64> = page_expected.iter().map(|e| e.byte_array_bytes).collect();
        ensure!(
            unencoded == &want,
            "{what}: offset index unencoded bytes {unencoded:?} expected {want:?}"
        );
    }

    // Column index: at level page, unless a page with values has no min/max (NaN only), never
    // for a column without order (INTERVAL).
    let valid_index = col.kind != Kind::Unordered
        && page_expected
            .iter()
            .all(|e| e.non_null == 0 || e.min.is_some());
    let want_index = col.stats == StatisticsLevel::Page && valid_index;
    ensure!(
        cm.column_index_offset().is_some() == want_index,
        "{what}: column index offset {:?}, expected one: {want_index}",
        cm.column_index_offset()
    );
    let ci = pi.column_index(j);
    ensure!(
        ci.is_some() == want_index,
        "{what}: parquet 60.1 read a column index: {}, expected {want_index}",
        ci.is_some()
    );
    if col.stats == StatisticsLevel::Page && !valid_index {
        bump("chunks without column index (NaN-only page or no order)", 1);
    }
    if let Some(ci) = ci {
        bump("column indexes checked", 1);
        bump("column index pages checked", pages.len() as u64);
        ensure!(
            ci.num_pages() as usize == pages.len(),
            "{what}: column index of {} pages, offset index of {}",
            ci.num_pages(),
            pages.len()
        );
        let mut bounds = Vec::new();
        for (i, pe) in page_expected.iter().enumerate() {
            let w = format!("{what} column index page {i}");
            ensure!(
                ci.null_count(i) == Some(pe.nulls as i64),
                "{w}: null count {:?} expected {}",
                ci.null_count(i),
                pe.nulls
            );
            ensure!(
                ci.is_null_page(i) == (pe.non_null == 0),
                "{w}: null page {} with {} values",
                ci.is_null_page(i),
                pe.non_null
            );
            if pe.non_null > 0 {
                let min = index_bound(col.kind, ci, i, false);
                let max = index_bound(col.kind, ci, i, true);
                check_bound(&w, col, false, min.as_ref(), None, pe.min.as_ref())?;
                check_bound(&w, col, true, max.as_ref(), None, pe.max.as_ref())?;
                bounds.push((min.unwrap(), max.unwrap()));
            }
            if col.nullable {
                if let Some(h) = ci.definition_level_histogram(i) {
                    let want = [pe.nulls as i64, pe.non_null as i64];
                    ensure!(
                        h == want,
                        "{w}: definition level histogram {h:?} expected {want:?}"
                    );
                }
            }
        }
        // Boundary order, on the written bounds of the non-null pages (parq's documented
        // rule: ascending first, then descending, else unordered; unordered without bounds).
        let never = |o: Ordering| {
            bounds.windows(2).all(|w| {
                cmp_pv(col.kind, &w[1].0, &w[0].0) != o && cmp_pv(col.kind, &w[1].1, &w[0].1) != o
            })
        };
        let want = if bounds.is_empty() {
            PBoundaryOrder::UNORDERED
        } else if never(Ordering::Less) {
            PBoundaryOrder::ASCENDING
        } else if never(Ordering::Greater) {
            PBoundaryOrder::DESCENDING
        } else {
            PBoundaryOrder::UNORDERED
        };
        bump(format!("boundary order {want:?}"), 1);
        ensure!(
            ci.get_boundary_order() == Some(want),
            "{what}: boundary order {:?} expected {want:?} for bounds {bounds:?}",
            ci.get_boundary_order()
        );
    }
    ensure!(
        cm.bloom_filter_offset().is_some() == col.bloom.is_some(),
        "{what}: bloom filter offset {:?}, expected one: {}",
        cm.bloom_filter_offset(),
        col.bloom.is_some()
    );
    Ok(pages)
}

/// The pages of one chunk as 60.1's page reader decodes them (headers parsed in sequence,
/// pages decompressed, CRCs verified): as many as the offset index lists, of the page
/// version and encodings asked for, with the rows and nulls of the offset index's ranges.
fn check_pages(
    case: &Case,
    col: &Col,
    what: &str,
    reader: &mut dyn PageReader,
    vals: &[Option<PV>],
    pages: &[PageRange],
    cm: &ColumnChunkMetaData,
) -> Result<(), String> {
    let fallback = peer_encoding(col.encoding);
    let mut seen = Vec::new();
    // Entries of the dictionary page, and the distinct values of the dictionary encoded pages.
    let mut dictionary_entries = None;
    let mut dictionary_values = std::collections::HashSet::new();
    let (mut i, mut dictionary_page, mut fell_back) = (0, false, false);
    while let Some(page) = reader.get_next_page().map_err(err("parquet 60.1 page"))? {
        let (encoding, num_values, v2, statistics) = match &page {
            Page::DictionaryPage {
                num_values,
                encoding,
                ..
            } => {
                ensure!(
                    i == 0 && !dictionary_page && col.dictionary,
                    "{what}: a dictionary page after {i} data pages (dictionary {})",
                    col.dictionary
                );
                ensure!(
                    matches!(encoding, PEncoding::PLAIN | PEncoding::PLAIN_DICTIONARY),
                    "{what}: dictionary page in {encoding:?}"
                );
                dictionary_page = true;
                dictionary_entries = Some(*num_values as usize);
                continue;
            }
            Page::DataPage {
                encoding,
                num_values,
                statistics,
                ..
            } => (*encoding, *num_values, None, statistics),
            Page::DataPageV2 {
                encoding,
                num_values,
                num_nulls,
                num_rows,
                statistics,
                ..
            } => (
                *encoding,
                *num_values,
                Some((*num_nulls, *num_rows)),
                statistics,
            ),
        };
        if !seen.contains(&encoding) {
            seen.push(encoding);
        }
        let w = format!("{what} page {i}");
        let Some(range) = pages.get(i) else {
            return Err(format!(
                "{w}: more data pages than the offset index's {}",
                pages.len()
            ));
        };
        let rows = range.end - range.start;
        let nulls = vals[range.start..range.end]
            .iter()
            .filter(|v| v.is_none())
            .count();
        ensure!(
            num_values as usize == rows,
            "{w}: {num_values} values for {rows} rows"
        );
        match (case.version, v2) {
            (DataPageVersion::V1, None) => {}
            (DataPageVersion::V2, Some((num_nulls, num_rows))) => ensure!(
                num_rows as usize == rows && num_nulls as usize == nulls,
                "{w}: v2 header with {num_rows} rows and {num_nulls} nulls, expected {rows} and {nulls}"
            ),
            (v, _) => return Err(format!("{w}: {:?} page for {v:?}", page.page_type())),
        }
        let dict_encoded = matches!(
            encoding,
            PEncoding::RLE_DICTIONARY | PEncoding::PLAIN_DICTIONARY
        );
        bump(format!("data pages {encoding:?} {:?}", case.version), 1);
        if dict_encoded && fell_back {
            bump("dictionary pages after fallback (error)", 1);
        }
        if !dict_encoded && col.dictionary && dictionary_page && !fell_back {
            bump("chunks falling back from the dictionary", 1);
        }
        if dict_encoded {
            for v in vals[range.start..range.end].iter().flatten() {
                dictionary_values.insert(v.plain());
            }
            ensure!(
                col.dictionary && dictionary_page && !fell_back,
                "{w}: dictionary encoded (dictionary {}, dictionary page {dictionary_page}, \
                 after fallback {fell_back})",
                col.dictionary
            );
        } else {
            ensure!(
                encoding == fallback,
                "{w}: encoding {encoding:?}, expected {fallback:?} (dictionary {})",
                col.dictionary
            );
            fell_back = true;
        }
        // Page header statistics, when written: those of the page's values.
        if let Some(st) = statistics {
            bump("page header statistics checked", 1);
            let e = expected(col.kind, &vals[range.start..range.end]);
            ensure!(
                col.stats != StatisticsLevel::None,
                "{w}: page statistics at level none"
            );
            ensure!(
                st.null_count_opt().is_none_or(|n| n == e.nulls),
                "{w}: page statistics null count {:?} expected {}",
                st.null_count_opt(),
                e.nulls
            );
            let (min_exact, max_exact) = exact_flags(st);
            let ws = format!("{w} statistics");
            let (min, max) = (
                stat_bound(col.kind, st, false),
                stat_bound(col.kind, st, true),
            );
            check_bound(&ws, col, false, min.as_ref(), min_exact, e.min.as_ref())?;
            check_bound(&ws, col, true, max.as_ref(), max_exact, e.max.as_ref())?;
        }
        i += 1;
    }
    ensure!(
        i == pages.len(),
        "{what}: {i} data pages, the offset index lists {}",
        pages.len()
    );
    if let Some(n) = dictionary_entries {
        ensure!(
            n == dictionary_values.len(),
            "{what}: dictionary page of {n} entries for {} distinct values in the dictionary \
             encoded pages",
            dictionary_values.len()
        );
    }
    // The chunk's encodings list those of its pages; the page encoding statistics (as 60.1
    // keeps them by default: the data pages' encodings) name exactly those of the data pages.
    let listed: Vec<PEncoding> = cm.encodings().collect();
    for e in &seen {
        ensure!(
            listed.contains(e),
            "{what}: data pages in {e:?}, the chunk lists {listed:?}"
        );
    }
    if dictionary_page {
        ensure!(
            listed.contains(&PEncoding::PLAIN) || listed.contains(&PEncoding::PLAIN_DICTIONARY),
            "{what}: a dictionary page, the chunk lists {listed:?}"
        );
    }
    if let Some(mask) = cm.page_encoding_stats_mask() {
        bump("page encoding stats checked", 1);
        let mut from_stats: Vec<PEncoding> = mask.encodings().collect();
        let mut want = seen.clone();
        from_stats.sort_by_key(|e| format!("{e:?}"));
        want.sort_by_key(|e| format!("{e:?}"));
        ensure!(
            from_stats == want,
            "{what}: page encoding stats {from_stats:?}, data pages {want:?}"
        );
    }
    Ok(())
}

/// Every written value is in the chunk's Bloom filter, and values that are not are mostly
/// not (when the filter was sized for the chunk's distinct values).
fn check_bloom(
    col: &Col,
    what: &str,
    filter: Option<&parquet::bloom_filter::Sbbf>,
    vals: &[Option<PV>],
    seed: u64,
) -> Result<(), String> {
    let (Some(props), Some(f)) = (col.bloom, filter) else {
        ensure!(
            col.bloom.is_none() && filter.is_none(),
            "{what}: bloom filter read {}, expected {}",
            filter.is_some(),
            col.bloom.is_some()
        );
        return Ok(());
    };
    bump("bloom filters checked", 1);
    bump(
        "bloom filter values checked",
        vals.iter().flatten().count() as u64,
    );
    let mut present = std::collections::HashSet::new();
    for v in vals.iter().flatten() {
        let b = v.plain();
        ensure!(
            f.check(&b[..]),
            "{what}: value {v:?} not in the bloom filter"
        );
        present.insert(b);
    }
    if (present.len() as u64) <= props.ndv && props.fpp <= 0.05 {
        let rng = &mut Rng(seed ^ 0x000b_100f);
        let width = present.iter().next().map_or(8, Vec::len);
        let (mut probes, mut positives) = (0, 0);
        for _ in 0..200 {
            let p = match col.kind {
                Kind::Bytes { .. } => {
                    let n = 1 + rng.below(30) as usize;
                    rng.bytes(n)
                }
                _ => rng.bytes(width),
            };
            if present.contains(&p) {
                continue;
            }
            probes += 1;
            positives += usize::from(f.check(&p[..]));
        }
        bump("bloom filters probed for false positives", 1);
        ensure!(
            positives * 10 <= probes + 20,
            "{what}: {positives} of {probes} absent values pass the bloom filter (fpp {})",
            props.fpp
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The driver

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

const DEFAULT_SEED: u64 = 20_260_000;
const DEFAULT_CASES: u64 = 300;

#[test]
fn write_properties_round_trip() {
    let base = env_u64("PARQ_PROPTEST_SEED").unwrap_or(DEFAULT_SEED);
    let cases = env_u64("PARQ_PROPTEST_CASES").unwrap_or(DEFAULT_CASES);
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    for i in 0..cases {
        let seed = base.wrapping_add(i);
        let case = match catch_unwind(|| gen_case(seed)) {
            Ok(c) => c,
            Err(p) => {
                failures.push(format!(
                    "seed {seed}: generating the case panicked: {}",
                    panic_message(p)
                ));
                continue;
            }
        };
        let r = catch_unwind(AssertUnwindSafe(|| run_case(&case)))
            .unwrap_or_else(|p| Err(format!("panicked: {}", panic_message(p))));
        if let Err(e) = r {
            failures.push(format!(
                "case {i}, seed {seed} (reproduce with PARQ_PROPTEST_SEED={seed} \
                 PARQ_PROPTEST_CASES=1): {e}\n{}",
                case.describe()
            ));
            if failures.len() >= 20 {
                break;
            }
        }
    }
    for (k, v) in COVERAGE.lock().unwrap().iter() {
        eprintln!("  {k}: {v}");
    }
    eprintln!(
        "write_props: {cases} cases from seed {base} in {:.1?}: {} failed",
        start.elapsed(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Regression test (was a parq bug): a `Dictionary(Int8, Utf8)` column of 200 rows of two
/// values, written by parq, is read back by parq: its reader builds the Arrow dictionary from
/// every chunk's dictionary page plus one entry per value of the pages without the dictionary
/// (`read::dict`), which passed `i8::MAX` ("dictionary key 128 does not fit the key type
/// Int8") with the dictionary disabled (200 PLAIN values, 200 entries) or dictionary encoded
/// in row groups of 2 rows (100 chunk dictionaries of 2 entries); it now deduplicates such a
/// dictionary by value. The `parquet` crate 60.1 reads both files back too.
#[test]
fn narrow_dictionary_keys_read_back() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
        false,
    )]));
    let keys = Int8Array::from((0..200).map(|i| (i % 2) as i8).collect::<Vec<_>>());
    let values = Arc::new(StringArray::from(vec!["a", "b"]));
    let column: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
    let batch = RecordBatch::try_new(schema.clone(), vec![column.clone()]).unwrap();
    for props in [
        WriterProperties::builder()
            .dictionary(false)
            .build()
            .unwrap(),
        WriterProperties::builder()
            .max_row_group_rows(Some(2))
            .build()
            .unwrap(),
    ] {
        let mut out = Vec::new();
        let mut w = ParquetWriter::try_new(&mut out, schema.clone(), props.clone()).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let bytes = Bytes::from(out);
        // The peer reads it back.
        let peer: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let parts: Vec<ArrayRef> = peer.iter().map(|b| b.column(0).clone()).collect();
        compare_arrays(
            "parquet 60.1",
            concat(column.data_type(), &parts).as_ref(),
            column.as_ref(),
        )
        .unwrap();
        // So does parq.
        let got = ParquetReader::from_bytes(bytes)
            .unwrap()
            .read_batch()
            .unwrap_or_else(|e| panic!("parq cannot read back what it wrote with {props:?}: {e}"));
        compare_arrays("parq", got.column(0).as_ref(), column.as_ref()).unwrap();
    }
}
