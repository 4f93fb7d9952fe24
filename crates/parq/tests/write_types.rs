//! Type coverage of `parq::write`: every Arrow type with a Parquet mapping, written plain and
//! as dictionary arrays of every key type (Int8..Int64, UInt8..UInt64) over every value type,
//! including Interval(YearMonth) and Interval(DayTime) (FIXED_LEN_BYTE_ARRAY(12) INTERVAL).
//!
//! - parq's reader reads every column back equal, with the Arrow type `ARROW:schema` restores
//!   (intervals exactly; dictionaries over byte strings as dictionaries, over other values as
//!   the Parquet type of the values, as pyarrow 26 restores them);
//! - pyarrow 26 reads the same values (expected values from the input, decoded by pyarrow),
//!   and its statistics agree: null counts everywhere, min/max of the referenced dictionary
//!   values only (each dictionary has unreferenced extreme entries), no min/max for INTERVAL;
//! - INTERVAL columns have no min/max and no column index; the `parquet` crate 60.1 reads
//!   parq's intervals back to the Arrow types, and parq reads the `parquet` crate's;
//! - Interval(MonthDayNano) is refused before any output, naming the column.
//!
//! The pyarrow venv (`bash scripts/venv.sh`) is required.

mod common;
use common::{run_python, tmp_dir, Rng};

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{i256, IntervalDayTime, NullBuffer};
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use parq::format::metadata::FileMetaData;
use parq::read::ParquetReader;
use parq::write::file::ParquetWriter;
use parq::write::properties::{DataPageVersion, StatisticsLevel, WriterProperties};

type F16 = <Float16Type as ArrowPrimitiveType>::Native;

/// Every Arrow type with a Parquet mapping (by a short name).
fn value_types() -> Vec<(&'static str, DataType)> {
    use DataType as D;
    let mut v = common::plain_types();
    v.push(("fsb", D::FixedSizeBinary(3)));
    v.extend(common::decimal_types(4));
    v.extend(common::temporal_types("ts_ms_paris"));
    v.extend([
        ("dur_ms", D::Duration(TimeUnit::Millisecond)),
        ("dur_us", D::Duration(TimeUnit::Microsecond)),
        ("dur_ns", D::Duration(TimeUnit::Nanosecond)),
        ("iv_ym", D::Interval(IntervalUnit::YearMonth)),
        ("iv_dt", D::Interval(IntervalUnit::DayTime)),
        ("null", D::Null),
    ]);
    v
}

fn key_types() -> Vec<(&'static str, DataType)> {
    use DataType as D;
    vec![
        ("k_i8", D::Int8),
        ("k_i16", D::Int16),
        ("k_i32", D::Int32),
        ("k_i64", D::Int64),
        ("k_u8", D::UInt8),
        ("k_u16", D::UInt16),
        ("k_u32", D::UInt32),
        ("k_u64", D::UInt64),
    ]
}

fn prim<T: ArrowPrimitiveType>(
    rng: &mut Rng,
    n: usize,
    f: impl Fn(&mut Rng) -> T::Native,
) -> PrimitiveArray<T> {
    PrimitiveArray::<T>::from_iter_values((0..n).map(|_| f(rng)))
}

fn word(rng: &mut Rng) -> String {
    let len = 1 + rng.below(8) as usize;
    (0..len)
        .map(|_| match rng.below(30) {
            0 => 'é',
            1 => '€',
            k => (b'b' + (k % 24) as u8) as char,
        })
        .collect()
}

/// `n` ordinary values of `dt` (no nulls), strictly inside the range of [`extremes`].
fn ordinary(dt: &DataType, rng: &mut Rng, n: usize) -> ArrayRef {
    use DataType as D;
    use TimeUnit as U;
    match dt {
        D::Boolean => Arc::new(BooleanArray::from(vec![false; n])),
        D::Int8 => Arc::new(prim::<Int8Type>(rng, n, |r| r.signed(100) as i8)),
        D::Int16 => Arc::new(prim::<Int16Type>(rng, n, |r| r.signed(30000) as i16)),
        D::Int32 => Arc::new(prim::<Int32Type>(rng, n, |r| r.signed(1 << 30) as i32)),
        D::Int64 => Arc::new(prim::<Int64Type>(rng, n, |r| r.signed(1 << 62))),
        D::UInt8 => Arc::new(prim::<UInt8Type>(rng, n, |r| 1 + r.below(250) as u8)),
        D::UInt16 => Arc::new(prim::<UInt16Type>(rng, n, |r| 1 + r.below(65000) as u16)),
        D::UInt32 => Arc::new(prim::<UInt32Type>(rng, n, |r| {
            1 + r.below(u32::MAX as u64 - 2) as u32
        })),
        D::UInt64 => Arc::new(prim::<UInt64Type>(rng, n, |r| 1 + r.below(u64::MAX - 2))),
        D::Float16 => Arc::new(prim::<Float16Type>(rng, n, |r| {
            F16::from_f32(r.signed(4000) as f32 / 4.0)
        })),
        D::Float32 => Arc::new(prim::<Float32Type>(rng, n, |r| {
            r.signed(1 << 30) as f32 / 7.0
        })),
        D::Float64 => Arc::new(prim::<Float64Type>(rng, n, |r| {
            r.signed(1 << 60) as f64 / 3.0
        })),
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => {
            let s: Vec<String> = (0..n).map(|_| word(rng)).collect();
            strings(dt, s.iter().map(|s| Some(s.as_str())))
        }
        D::FixedSizeBinary(w) => {
            let bytes: Vec<u8> = (0..n * *w as usize)
                .map(|_| 0x10 + rng.below(0xe0) as u8)
                .collect();
            Arc::new(FixedSizeBinaryArray::new(*w, bytes.into(), None))
        }
        D::Decimal32(p, s) => Arc::new(
            prim::<Decimal32Type>(rng, n, |r| r.signed(100_000) as i32)
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        D::Decimal64(p, s) => Arc::new(
            prim::<Decimal64Type>(rng, n, |r| r.signed(1 << 40))
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        D::Decimal128(p, s) => {
            let m = 10i64.pow(u32::from(*p).min(15)) - 1;
            Arc::new(
                prim::<Decimal128Type>(rng, n, |r| i128::from(r.signed(m)))
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Decimal256(p, s) => Arc::new(
            prim::<Decimal256Type>(rng, n, |r| {
                i256::from_i128(i128::from(r.signed(1 << 62)) << 40)
            })
            .with_precision_and_scale(*p, *s)
            .unwrap(),
        ),
        D::Date32 => Arc::new(prim::<Date32Type>(rng, n, |r| r.signed(20000) as i32)),
        D::Date64 => Arc::new(prim::<Date64Type>(rng, n, |r| r.signed(20000) * 86_400_000)),
        D::Time32(U::Second) => Arc::new(prim::<Time32SecondType>(rng, n, |r| {
            1 + r.below(86_000) as i32
        })),
        D::Time32(_) => Arc::new(prim::<Time32MillisecondType>(rng, n, |r| {
            1 + r.below(86_000_000) as i32
        })),
        D::Time64(U::Microsecond) => Arc::new(prim::<Time64MicrosecondType>(rng, n, |r| {
            1 + r.below(86_000_000_000) as i64
        })),
        D::Time64(_) => Arc::new(prim::<Time64NanosecondType>(rng, n, |r| {
            1 + r.below(86_000_000_000_000) as i64
        })),
        D::Timestamp(U::Second, tz) => Arc::new(
            prim::<TimestampSecondType>(rng, n, |r| r.signed(4_000_000_000))
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Millisecond, tz) => Arc::new(
            prim::<TimestampMillisecondType>(rng, n, |r| r.signed(1 << 50))
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Microsecond, tz) => Arc::new(
            prim::<TimestampMicrosecondType>(rng, n, |r| r.signed(1 << 55))
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Nanosecond, tz) => Arc::new(
            prim::<TimestampNanosecondType>(rng, n, |r| r.signed(1 << 61))
                .with_timezone_opt(tz.clone()),
        ),
        D::Duration(U::Second) => {
            Arc::new(prim::<DurationSecondType>(rng, n, |r| r.signed(1 << 40)))
        }
        D::Duration(U::Millisecond) => Arc::new(prim::<DurationMillisecondType>(rng, n, |r| {
            r.signed(1 << 40)
        })),
        D::Duration(U::Microsecond) => Arc::new(prim::<DurationMicrosecondType>(rng, n, |r| {
            r.signed(1 << 40)
        })),
        D::Duration(U::Nanosecond) => Arc::new(prim::<DurationNanosecondType>(rng, n, |r| {
            r.signed(1 << 40)
        })),
        // Negative intervals included: their two's complement bits round-trip.
        D::Interval(IntervalUnit::YearMonth) => {
            Arc::new(prim::<IntervalYearMonthType>(rng, n, |r| {
                r.signed(1200) as i32
            }))
        }
        D::Interval(IntervalUnit::DayTime) => Arc::new(prim::<IntervalDayTimeType>(rng, n, |r| {
            IntervalDayTime::new(r.signed(400) as i32, r.signed(86_400_000) as i32)
        })),
        D::Null => Arc::new(NullArray::new(n)),
        other => panic!("no generator for {other}"),
    }
}

/// Two values of `dt` below and above every [`ordinary`] value (for booleans: false, true).
fn extremes(dt: &DataType) -> ArrayRef {
    use DataType as D;
    use TimeUnit as U;
    match dt {
        D::Boolean => Arc::new(BooleanArray::from(vec![false, true])),
        D::Int8 => Arc::new(Int8Array::from(vec![i8::MIN, i8::MAX])),
        D::Int16 => Arc::new(Int16Array::from(vec![i16::MIN, i16::MAX])),
        D::Int32 => Arc::new(Int32Array::from(vec![i32::MIN, i32::MAX])),
        D::Int64 => Arc::new(Int64Array::from(vec![i64::MIN, i64::MAX])),
        D::UInt8 => Arc::new(UInt8Array::from(vec![0, u8::MAX])),
        D::UInt16 => Arc::new(UInt16Array::from(vec![0, u16::MAX])),
        D::UInt32 => Arc::new(UInt32Array::from(vec![0, u32::MAX])),
        D::UInt64 => Arc::new(UInt64Array::from(vec![0, u64::MAX])),
        D::Float16 => Arc::new(Float16Array::from(vec![
            F16::from_f32(-65504.0),
            F16::from_f32(65504.0),
        ])),
        D::Float32 => Arc::new(Float32Array::from(vec![f32::MIN, f32::MAX])),
        D::Float64 => Arc::new(Float64Array::from(vec![f64::MIN, f64::MAX])),
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => {
            strings(dt, [Some(""), Some("zzzz\u{10FFFF}")].into_iter())
        }
        D::FixedSizeBinary(w) => {
            let w = *w as usize;
            let mut bytes = vec![0u8; w];
            bytes.extend(std::iter::repeat_n(0xff, w));
            Arc::new(FixedSizeBinaryArray::new(w as i32, bytes.into(), None))
        }
        D::Decimal32(p, s) => Arc::new(
            Decimal32Array::from(vec![-999_999_999, 999_999_999])
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        D::Decimal64(p, s) => Arc::new(
            Decimal64Array::from(vec![-999_999_999_999_999_999, 999_999_999_999_999_999])
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        D::Decimal128(p, s) => {
            let m = 10i128.pow(u32::from(*p)) - 1;
            Arc::new(
                Decimal128Array::from(vec![-m, m])
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Decimal256(p, s) => {
            let m = i256::from_i128(10).wrapping_pow(u32::from(*p)) - i256::ONE;
            Arc::new(
                Decimal256Array::from(vec![m.wrapping_neg(), m])
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
            )
        }
        D::Date32 => Arc::new(Date32Array::from(vec![-719_162, 2_932_896])),
        D::Date64 => Arc::new(Date64Array::from(vec![
            -719_162 * 86_400_000,
            2_932_896 * 86_400_000,
        ])),
        D::Time32(U::Second) => Arc::new(Time32SecondArray::from(vec![0, 86_399])),
        D::Time32(_) => Arc::new(Time32MillisecondArray::from(vec![0, 86_399_999])),
        D::Time64(U::Microsecond) => {
            Arc::new(Time64MicrosecondArray::from(vec![0, 86_399_999_999]))
        }
        D::Time64(_) => Arc::new(Time64NanosecondArray::from(vec![0, 86_399_999_999_999])),
        D::Timestamp(U::Second, tz) => Arc::new(
            TimestampSecondArray::from(vec![-1_000_000_000_000_000, 1_000_000_000_000_000])
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Millisecond, tz) => Arc::new(
            TimestampMillisecondArray::from(vec![-(4 << 60), 4 << 60])
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Microsecond, tz) => Arc::new(
            TimestampMicrosecondArray::from(vec![-(4 << 60), 4 << 60])
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(U::Nanosecond, tz) => Arc::new(
            TimestampNanosecondArray::from(vec![-(4 << 60), 4 << 60]).with_timezone_opt(tz.clone()),
        ),
        D::Duration(U::Second) => Arc::new(DurationSecondArray::from(vec![i64::MIN, i64::MAX])),
        D::Duration(U::Millisecond) => {
            Arc::new(DurationMillisecondArray::from(vec![i64::MIN, i64::MAX]))
        }
        D::Duration(U::Microsecond) => {
            Arc::new(DurationMicrosecondArray::from(vec![i64::MIN, i64::MAX]))
        }
        D::Duration(U::Nanosecond) => {
            Arc::new(DurationNanosecondArray::from(vec![i64::MIN, i64::MAX]))
        }
        D::Interval(IntervalUnit::YearMonth) => {
            Arc::new(IntervalYearMonthArray::from(vec![i32::MIN, i32::MAX]))
        }
        D::Interval(IntervalUnit::DayTime) => Arc::new(IntervalDayTimeArray::from(vec![
            IntervalDayTime::new(i32::MIN, i32::MIN),
            IntervalDayTime::new(i32::MAX, i32::MAX),
        ])),
        D::Null => Arc::new(NullArray::new(2)),
        other => panic!("no extremes for {other}"),
    }
}

fn strings<'s>(dt: &DataType, v: impl Iterator<Item = Option<&'s str>>) -> ArrayRef {
    use DataType as D;
    let v: Vec<Option<&str>> = v.collect();
    let b = || v.iter().map(|o| o.map(str::as_bytes)).collect::<Vec<_>>();
    match dt {
        D::Utf8 => Arc::new(StringArray::from(v)),
        D::LargeUtf8 => Arc::new(LargeStringArray::from(v)),
        D::Utf8View => Arc::new(StringViewArray::from(v)),
        D::Binary => Arc::new(BinaryArray::from(b())),
        D::LargeBinary => Arc::new(LargeBinaryArray::from(b())),
        D::BinaryView => Arc::new(BinaryViewArray::from(b())),
        other => panic!("not a string type: {other}"),
    }
}

/// `values[k]` for every `Some(k)`, null for `None` (a generic take).
fn take(values: &dyn Array, idx: &[Option<usize>]) -> ArrayRef {
    let data = values.to_data();
    let mut m = MutableArrayData::new(vec![&data], true, idx.len());
    for i in idx {
        match i {
            Some(k) if values.is_valid(*k) => m.try_extend(0, *k, *k + 1).unwrap(),
            _ => m.try_extend_nulls(1).unwrap(),
        }
    }
    make_array(m.freeze())
}

fn concat(a: &dyn Array, b: &dyn Array) -> ArrayRef {
    let (da, db) = (a.to_data(), b.to_data());
    let mut m = MutableArrayData::new(vec![&da, &db], true, a.len() + b.len());
    m.try_extend(0, 0, a.len()).unwrap();
    m.try_extend(1, 0, b.len()).unwrap();
    make_array(m.freeze())
}

/// A dictionary array of `n` slots with keys of type `key`: 12 ordinary values (one of them
/// null) then the two extremes (never referenced); about one key in ten is null, with a
/// key value out of the dictionary. When `sliced`, the dictionary is a slice of a longer array.
fn dictionary(key: &DataType, value: &DataType, rng: &mut Rng, n: usize, sliced: bool) -> ArrayRef {
    let m = 12;
    let base = ordinary(value, rng, m + 1);
    let with_null = take(
        base.as_ref(),
        &(0..=m).map(|i| (i != 2).then_some(i)).collect::<Vec<_>>(),
    );
    let all = concat(with_null.as_ref(), extremes(value).as_ref());
    let (values, first) = if sliced {
        (all.slice(1, all.len() - 1), 1)
    } else {
        (all, 0)
    };
    let keys: Vec<Option<i64>> = (0..n)
        .map(|_| (rng.below(10) != 0).then(|| rng.below((m + 1 - first) as u64) as i64))
        .collect();
    // Null keys carry a value past the dictionary (or negative).
    let raw: Vec<i64> = keys.iter().map(|k| k.unwrap_or(-1)).collect();
    let nulls = NullBuffer::from(keys.iter().map(Option::is_some).collect::<Vec<_>>());
    common::dictionary_array(key, &raw, Some(nulls), values)
}

/// A plain column: ordinary values, the extremes and nulls.
fn plain(dt: &DataType, rng: &mut Rng, n: usize) -> ArrayRef {
    let pool = concat(ordinary(dt, rng, 30).as_ref(), extremes(dt).as_ref());
    let idx: Vec<Option<usize>> = (0..n)
        .map(|_| (rng.below(7) != 0).then(|| rng.below(pool.len() as u64) as usize))
        .collect();
    take(pool.as_ref(), &idx)
}

/// The schema: `p_<type>` plain columns, then `d_<key>_<type>` dictionary columns.
fn schema() -> SchemaRef {
    let mut fields = Vec::new();
    for (name, dt) in value_types() {
        fields.push(Field::new(format!("p_{name}"), dt, true));
    }
    for (kn, k) in key_types() {
        for (vn, v) in value_types() {
            let dt = DataType::Dictionary(Box::new(k.clone()), Box::new(v));
            fields.push(Field::new(format!("d_{kn}_{vn}"), dt, true));
        }
    }
    Arc::new(Schema::new(fields))
}

fn batch(schema: &SchemaRef, seed: u64, n: usize) -> RecordBatch {
    let mut rng = Rng(seed);
    let cols: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| match f.data_type() {
            DataType::Dictionary(k, v) => dictionary(k, v, &mut rng, n, i % 2 == 1),
            dt => plain(dt, &mut rng, n),
        })
        .collect();
    RecordBatch::try_new(schema.clone(), cols).unwrap()
}

// ---------------------------------------------------------------------------------------
// What parq reads back

/// The Arrow type of a Parquet leaf written for `dt`, from the Parquet schema alone.
fn parquet_only(dt: &DataType) -> DataType {
    use DataType as D;
    match dt {
        D::Decimal32(p, s) | D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s) => {
            if *p <= 38 {
                D::Decimal128(*p, *s)
            } else {
                D::Decimal256(*p, *s)
            }
        }
        D::Date64 => D::Date32,
        D::Time32(_) => D::Time32(TimeUnit::Millisecond),
        D::Timestamp(u, tz) => D::Timestamp(
            if *u == TimeUnit::Second {
                TimeUnit::Millisecond
            } else {
                *u
            },
            tz.as_ref().map(|_| Arc::from("UTC")),
        ),
        D::Duration(_) => D::Int64,
        D::Interval(_) => D::FixedSizeBinary(12),
        D::LargeUtf8 | D::Utf8View => D::Utf8,
        D::LargeBinary | D::BinaryView => D::Binary,
        other => other.clone(),
    }
}

/// The Arrow type parq's reader gives a column written as `dt` (with `ARROW:schema`).
fn read_type(dt: &DataType) -> DataType {
    use DataType as D;
    match dt {
        D::Date64 => D::Date32,
        D::Time32(_) => D::Time32(TimeUnit::Millisecond),
        D::Timestamp(TimeUnit::Second, tz) => D::Timestamp(TimeUnit::Millisecond, tz.clone()),
        // Dictionaries are restored over byte strings only (as pyarrow 26), with their key
        // type; other values read as their Parquet type.
        D::Dictionary(k, v) => match parquet_only(v) {
            t @ (D::Utf8 | D::Binary) => D::Dictionary(k.clone(), Box::new(t)),
            t => t,
        },
        other => other.clone(),
    }
}

/// The dictionary array `a` materialized (other arrays as they are).
fn decode(a: &ArrayRef) -> ArrayRef {
    let Some(d) = a.as_any_dictionary_opt() else {
        return a.clone();
    };
    // (An empty dictionary: every slot is null.)
    let keys = if d.values().is_empty() {
        vec![0; a.len()]
    } else {
        d.normalized_keys()
    };
    let idx: Vec<Option<usize>> = (0..a.len())
        .map(|i| (a.is_valid(i) && keys[i] < d.values().len()).then(|| keys[i]))
        .collect();
    take(d.values().as_ref(), &idx)
}

fn relabel(a: &ArrayRef, to: &DataType) -> ArrayRef {
    make_array(
        a.to_data()
            .into_builder()
            .data_type(to.clone())
            .build()
            .unwrap(),
    )
}

/// INTERVAL bytes (months, days, milliseconds; little-endian) of an interval array.
fn interval_bytes(a: &ArrayRef) -> ArrayRef {
    let triple = |i: usize| -> [i32; 3] {
        match a.data_type() {
            DataType::Interval(IntervalUnit::YearMonth) => {
                [a.as_primitive::<IntervalYearMonthType>().value(i), 0, 0]
            }
            _ => {
                let v = a.as_primitive::<IntervalDayTimeType>().value(i);
                [0, v.days, v.milliseconds]
            }
        }
    };
    let values: Vec<Option<Vec<u8>>> = (0..a.len())
        .map(|i| {
            a.is_valid(i)
                .then(|| triple(i).iter().flat_map(|x| x.to_le_bytes()).collect())
        })
        .collect();
    Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.into_iter(), 12).unwrap())
}

/// The plain array `a` as parq reads it back as type `to`.
fn coerce(a: &ArrayRef, to: &DataType) -> ArrayRef {
    use DataType as D;
    match (a.data_type(), to) {
        (x, y) if x == y => a.clone(),
        (D::Time32(TimeUnit::Second), _) => Arc::new(
            a.as_primitive::<Time32SecondType>()
                .unary::<_, Time32MillisecondType>(|v| v.wrapping_mul(1000)),
        ),
        (D::Date64, _) => Arc::new(
            a.as_primitive::<Date64Type>()
                .unary::<_, Date32Type>(|v| (v / 86_400_000) as i32),
        ),
        (D::Timestamp(TimeUnit::Second, _), D::Timestamp(_, tz)) => Arc::new(
            a.as_primitive::<TimestampSecondType>()
                .unary::<_, TimestampMillisecondType>(|v| v.wrapping_mul(1000))
                .with_timezone_opt(tz.clone()),
        ),
        (D::Timestamp(..), D::Timestamp(..)) | (D::Duration(_), D::Int64) => relabel(a, to),
        (D::Decimal32(..), D::Decimal128(p, s)) => Arc::new(
            a.as_primitive::<Decimal32Type>()
                .unary::<_, Decimal128Type>(i128::from)
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        (D::Decimal64(..), D::Decimal128(p, s)) => Arc::new(
            a.as_primitive::<Decimal64Type>()
                .unary::<_, Decimal128Type>(i128::from)
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        (D::Interval(_), D::FixedSizeBinary(12)) => interval_bytes(a),
        (D::LargeUtf8 | D::Utf8View, D::Utf8) => Arc::new(StringArray::from(
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| string_at(a, i)))
                .collect::<Vec<_>>(),
        )),
        (D::LargeBinary | D::BinaryView, D::Binary) => Arc::new(BinaryArray::from(
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| binary_at(a, i)))
                .collect::<Vec<_>>(),
        )),
        (from, to) => panic!("no coercion from {from} to {to}"),
    }
}

fn string_at(a: &ArrayRef, i: usize) -> &str {
    match a.data_type() {
        DataType::LargeUtf8 => a.as_string::<i64>().value(i),
        _ => a.as_string_view().value(i),
    }
}

fn binary_at(a: &ArrayRef, i: usize) -> &[u8] {
    match a.data_type() {
        DataType::LargeBinary => a.as_binary::<i64>().value(i),
        _ => a.as_binary_view().value(i),
    }
}

fn assert_same(what: &str, got: &ArrayRef, want: &ArrayRef) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if got.to_data() != want.to_data() {
        let first = (0..got.len())
            .find(|&r| got.slice(r, 1).to_data() != want.slice(r, 1).to_data())
            .unwrap_or(0);
        panic!(
            "{what}: differs first at row {first}: got {:?} want {:?}",
            got.slice(first, 1),
            want.slice(first, 1)
        );
    }
}

/// parq reads `bytes` back as `inputs` (concatenated), with the types of [`read_type`].
fn check_parq_reads(what: &str, bytes: &[u8], inputs: &[RecordBatch]) {
    let schema = inputs[0].schema();
    let r = ParquetReader::from_bytes(Bytes::copy_from_slice(bytes)).expect("open");
    let got = r.read_batch().unwrap_or_else(|e| panic!("{what}: {e}"));
    let rows: usize = inputs.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(got.num_rows(), rows, "{what}: rows");
    assert_eq!(got.num_columns(), schema.fields().len(), "{what}: columns");
    for (i, f) in schema.fields().iter().enumerate() {
        let what = format!("{what} column {}", f.name());
        let want_type = read_type(f.data_type());
        assert_eq!(got.schema().field(i).name(), f.name());
        assert_eq!(got.column(i).data_type(), &want_type, "{what}: type");
        let plain_type = match &want_type {
            DataType::Dictionary(_, v) => v.as_ref().clone(),
            t => t.clone(),
        };
        let want: Vec<ArrayRef> = inputs
            .iter()
            .map(|b| coerce(&decode(b.column(i)), &plain_type))
            .collect();
        let datas: Vec<_> = want.iter().map(|a| a.to_data()).collect();
        let mut m = MutableArrayData::new(datas.iter().collect(), true, rows);
        for (k, a) in want.iter().enumerate() {
            m.try_extend(k, 0, a.len()).unwrap();
        }
        let want = make_array(m.freeze());
        assert_same(&what, &decode(got.column(i)), &want);
    }
}

fn write_file(batches: &[RecordBatch], props: WriterProperties) -> (Vec<u8>, FileMetaData) {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batches[0].schema(), props).expect("writer");
    for b in batches {
        // Slices of more than one mini-batch (1024 rows), so that a dictionary's converted
        // values are reused across the slices of an array.
        let n = b.num_rows();
        let cut = n * 3 / 5;
        w.write(&b.slice(0, cut)).expect("write");
        w.write(&b.slice(cut, n - cut)).expect("write");
    }
    let meta = w.close().expect("close");
    (out, meta)
}

/// Writes `batch` for pyarrow, which has no Python arrays of Interval(YearMonth) and
/// Interval(DayTime): their columns (plain or dictionary) become the INTERVAL bytes the spec
/// gives their values, as FixedSizeBinary(12).
fn write_ipc(path: &Path, batch: &RecordBatch) {
    let mut fields = Vec::new();
    let mut cols = Vec::new();
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        if is_interval(f.data_type()) {
            fields.push(Field::new(f.name(), DataType::FixedSizeBinary(12), true));
            cols.push(interval_bytes(&decode(c)));
        } else {
            fields.push(f.as_ref().clone());
            cols.push(c.clone());
        }
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
    let f = std::fs::File::create(path).expect("ipc file");
    let mut w = arrow_ipc::writer::FileWriter::try_new(f, &batch.schema()).expect("ipc writer");
    w.write(&batch).expect("ipc write");
    w.finish().expect("ipc finish");
}

/// The writer settings of the files: dictionary encoding (one row group), no dictionary
/// (page statistics and indexes, v2 pages, several row groups), and dictionary falling back
/// to PLAIN (page statistics, small pages).
fn settings() -> Vec<(&'static str, WriterProperties)> {
    vec![
        (
            "dictionary",
            WriterProperties::builder()
                .statistics(StatisticsLevel::Chunk)
                .build()
                .unwrap(),
        ),
        (
            "plain",
            WriterProperties::builder()
                .dictionary(false)
                .statistics(StatisticsLevel::Page)
                .data_page_version(DataPageVersion::V2)
                .data_page_rows(Some(300))
                .max_row_group_rows(Some(1500))
                .build()
                .unwrap(),
        ),
        (
            "fallback",
            WriterProperties::builder()
                .dictionary_page_size_limit(64)
                .statistics(StatisticsLevel::Page)
                .data_page_rows(Some(500))
                .build()
                .unwrap(),
        ),
    ]
}

fn is_interval(dt: &DataType) -> bool {
    match dt {
        DataType::Dictionary(_, v) => is_interval(v),
        t => matches!(t, DataType::Interval(_)),
    }
}

/// INTERVAL chunks: a null count, no min/max, no column index (whatever the statistics
/// level); an offset index.
fn check_interval_metadata(what: &str, meta: &FileMetaData, schema: &Schema) {
    for (rg, g) in meta.row_groups().iter().enumerate() {
        for (j, f) in schema.fields().iter().enumerate() {
            if !is_interval(f.data_type()) {
                continue;
            }
            let c = &g.columns()[j];
            let what = format!("{what} row group {rg} column {}", f.name());
            if let Some(st) = c.statistics() {
                assert!(st.null_count.is_some(), "{what}: null count");
                assert!(
                    st.min.is_none()
                        && st.max.is_none()
                        && st.min_value.is_none()
                        && st.max_value.is_none(),
                    "{what}: min/max of an INTERVAL column"
                );
            }
            assert!(c.column_index_offset().is_none(), "{what}: column index");
            assert!(c.offset_index_offset().is_some(), "{what}: offset index");
        }
    }
}

/// pyarrow reads each file like its input batches: values (dictionaries decoded; INTERVAL as
/// fixed_size_binary(12), compared with the bytes the spec gives the input intervals, see
/// [`write_ipc`]) and
/// statistics (null counts; min/max where pyarrow gives comparable Python values; none for
/// INTERVAL). Prints `ok` or the failures.
const PYARROW_CHECK: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
inputs = [pa.ipc.open_file(p).read_all() for p in sys.argv[1].split(',')]
files = sys.argv[2:]
fails = []

VIEWS = {'string_view': pa.string(), 'binary_view': pa.binary()}

def decoded(chunks):
    out = []
    for c in chunks:
        if pa.types.is_dictionary(c.type):
            d = c.dictionary
            if str(d.type) in VIEWS:
                # pyarrow 26 has no take of views: decode over the plain type.
                d = d.cast(VIEWS[str(d.type)])
            c = pa.DictionaryArray.from_arrays(c.indices, d).dictionary_decode()
        out.append(c)
    return out

def is_interval(name):
    # Interval columns come as the INTERVAL bytes of their values (fixed_size_binary[12]).
    return 'iv_' in name

def comparable(t):
    return (pa.types.is_integer(t) or pa.types.is_float32(t) or pa.types.is_float64(t)
            or pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_decimal(t)
            or pa.types.is_boolean(t) or str(t) in ('string_view', 'binary_view'))

names = inputs[0].schema.names
expected = {}
for name in names:
    chunks = decoded([c for t in inputs for c in t.column(name).chunks])
    expected[name] = pa.chunked_array(chunks, type=chunks[0].type).combine_chunks()

n_values = n_minmax = 0
for path in files:
    try:
        got = pq.read_table(path)
    except Exception as e:
        fails.append(f"{path}: read error {e}")
        continue
    for name in names:
        g = pa.chunked_array(decoded(got.column(name).chunks)).combine_chunks()
        w = expected[name]
        if is_interval(name):
            if g.type != pa.binary(12):
                fails.append(f"{path}: {name} read as {g.type}, not fixed_size_binary[12]")
                continue
        if g.type != w.type:
            try:
                w = w.cast(g.type)
            except Exception:
                w = w.view(g.type)
        if not g.equals(w):
            fails.append(f"{path}: column {name} differs: {g.to_pylist()[:5]} / {w.to_pylist()[:5]}")
        n_values += 1
    md = pq.ParquetFile(path).metadata
    off = 0
    for rg in range(md.num_row_groups):
        r = md.row_group(rg)
        for ci in range(r.num_columns):
            c = r.column(ci)
            name = c.path_in_schema
            st = c.statistics
            sl = expected[name].slice(off, r.num_rows)
            t = inputs[0].schema.field(name).type
            vt = t.value_type if pa.types.is_dictionary(t) else t
            if st is None:
                if 'nostats' not in path:
                    fails.append(f"{path}: rg {rg} {name} no statistics")
                continue
            if not st.has_null_count or st.null_count != sl.null_count:
                fails.append(f"{path}: rg {rg} {name} null_count {st.null_count} != {sl.null_count}")
            if is_interval(name):
                if st.has_min_max:
                    fails.append(f"{path}: rg {rg} {name}: INTERVAL min/max")
                continue
            if not comparable(vt):
                continue
            vals = [v for v in sl.to_pylist() if v is not None]
            if vals and not st.has_min_max:
                fails.append(f"{path}: rg {rg} {name} no min/max")
            if vals and st.has_min_max:
                mn, mx = min(vals), max(vals)
                smin, smax = st.min, st.max
                if isinstance(mn, str) and isinstance(smin, bytes):
                    mn, mx = mn.encode(), mx.encode()
                if isinstance(mn, bytes) and isinstance(smin, str):
                    smin, smax = smin.encode(), smax.encode()
                if mn != smin or mx != smax:
                    fails.append(f"{path}: rg {rg} {name} min/max {smin!r}/{smax!r} != {mn!r}/{mx!r}")
                n_minmax += 1
        off += r.num_rows
print(f"ok {n_values} {n_minmax}" if not fails else "\n".join(fails[:40]))
"#;

/// Writes each input batch to IPC in `dir` and runs [`PYARROW_CHECK`] over `files`; returns
/// the number of columns compared and of chunks whose min/max were compared.
fn check_with_pyarrow(dir: &Path, inputs: &[RecordBatch], files: &[String]) -> (usize, usize) {
    let ipc: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let p = dir.join(format!("input{i}.arrow"));
            write_ipc(&p, b);
            p.display().to_string()
        })
        .collect();
    let mut args = vec![ipc.join(",")];
    args.extend(files.iter().cloned());
    let out = run_python(PYARROW_CHECK, &args);
    match out.trim().strip_prefix("ok ") {
        Some(c) => {
            let n: Vec<usize> = c.split(' ').map(|n| n.parse().unwrap()).collect();
            (n[0], n[1])
        }
        None => panic!("pyarrow:\n{out}"),
    }
}

#[test]
fn every_type_plain_and_as_dictionary_round_trips_and_pyarrow_agrees() {
    let schema = schema();
    let inputs = vec![batch(&schema, 1, 2200), batch(&schema, 2, 1300)];
    let dir = tmp_dir("types");
    let mut files = Vec::new();
    for (what, props) in settings() {
        let (bytes, meta) = write_file(&inputs, props);
        check_parq_reads(what, &bytes, &inputs);
        check_interval_metadata(what, &meta, &schema);
        let p = dir.join(format!("{what}.parquet"));
        std::fs::write(&p, &bytes).expect("write file");
        files.push(p.display().to_string());
    }
    let (columns, min_max) = check_with_pyarrow(&dir, &inputs, &files);
    assert_eq!(
        columns,
        files.len() * schema.fields().len(),
        "columns compared"
    );
    assert!(min_max > 1000, "min/max compared: {min_max}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// INTERVAL (plain and dictionary) and other FIXED_LEN_BYTE_ARRAY columns through every
/// encoding of FIXED_LEN_BYTE_ARRAY (dictionary, PLAIN, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT;
/// with and without a dictionary falling back to them) x page version x statistics level:
/// parq and pyarrow read them back.
#[test]
fn intervals_and_fixed_dictionaries_in_every_encoding() {
    use parq::format::metadata::Encoding;
    use DataType as D;
    let ym = D::Interval(IntervalUnit::YearMonth);
    let dt = D::Interval(IntervalUnit::DayTime);
    let dict = |k: D, v: D| D::Dictionary(Box::new(k), Box::new(v));
    let fields = vec![
        Field::new("p_iv_ym", ym.clone(), true),
        Field::new("p_iv_dt", dt.clone(), true),
        Field::new("d_k_u16_iv_ym", dict(D::UInt16, ym), true),
        Field::new("d_k_i64_iv_dt", dict(D::Int64, dt), true),
        Field::new("d_k_i8_d32", dict(D::Int8, D::Decimal32(9, 2)), true),
        Field::new("d_k_u32_f16", dict(D::UInt32, D::Float16), true),
        Field::new("d_k_u8_fsb", dict(D::UInt8, D::FixedSizeBinary(3)), true),
    ];
    let schema = Arc::new(Schema::new(fields));
    let inputs = vec![batch(&schema, 3, 1700), batch(&schema, 4, 800)];
    let dir = tmp_dir("encodings");
    let mut files = Vec::new();
    for encoding in [
        Encoding::RleDictionary,
        Encoding::Plain,
        Encoding::DeltaByteArray,
        Encoding::ByteStreamSplit,
    ] {
        for fallback in [false, true] {
            if encoding == Encoding::RleDictionary && fallback {
                continue;
            }
            for version in [DataPageVersion::V1, DataPageVersion::V2] {
                for stats in [
                    StatisticsLevel::None,
                    StatisticsLevel::Chunk,
                    StatisticsLevel::Page,
                ] {
                    let mut b = WriterProperties::builder()
                        .data_page_version(version)
                        .statistics(stats)
                        .data_page_rows(Some(200))
                        .max_row_group_rows(Some(1000));
                    if encoding != Encoding::RleDictionary {
                        b = b.encoding(encoding).dictionary(fallback);
                        if fallback {
                            b = b.dictionary_page_size_limit(64);
                        }
                    }
                    let props = b.build().unwrap();
                    let what = format!(
                        "{encoding} fallback={fallback} {version:?} {}",
                        if stats == StatisticsLevel::None {
                            "nostats".to_string()
                        } else {
                            stats.to_string()
                        }
                    );
                    let (bytes, meta) = write_file(&inputs, props);
                    check_parq_reads(&what, &bytes, &inputs);
                    check_interval_metadata(&what, &meta, &schema);
                    let p = dir.join(format!("{}.parquet", what.replace([' ', '='], "_")));
                    std::fs::write(&p, &bytes).expect("write file");
                    files.push(p.display().to_string());
                }
            }
        }
    }
    let (columns, _) = check_with_pyarrow(&dir, &inputs, &files);
    assert_eq!(
        columns,
        files.len() * schema.fields().len(),
        "columns compared"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn interval_batch() -> RecordBatch {
    let ym: ArrayRef = Arc::new(IntervalYearMonthArray::from(vec![
        Some(0),
        Some(14),
        None,
        Some(-1),
        Some(i32::MIN),
        Some(i32::MAX),
    ]));
    let dt: ArrayRef = Arc::new(IntervalDayTimeArray::from(vec![
        Some(IntervalDayTime::new(0, 0)),
        Some(IntervalDayTime::new(3, 1500)),
        Some(IntervalDayTime::new(-2, -86_399_999)),
        None,
        Some(IntervalDayTime::new(i32::MIN, i32::MAX)),
        Some(IntervalDayTime::new(i32::MAX, i32::MIN)),
    ]));
    let schema = Schema::new(vec![
        Field::new("ym", ym.data_type().clone(), true),
        Field::new("dt", dt.data_type().clone(), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![ym, dt]).unwrap()
}

/// The `parquet` crate 60.1 reads parq's INTERVAL columns back to the Arrow interval types
/// (negative values included); parq reads the `parquet` crate's back to them, and without
/// `ARROW:schema` to FixedSizeBinary(12) holding the spec's bytes.
#[test]
fn intervals_interoperate_with_arrow_rs() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    let input = interval_batch();
    // Schema: FIXED_LEN_BYTE_ARRAY(12), converted type INTERVAL, no logical type.
    let (bytes, meta) = write_file(std::slice::from_ref(&input), WriterProperties::default());
    for e in &meta.schema().elements()[1..] {
        assert_eq!(
            e.physical_type,
            Some(parq::format::metadata::PhysicalType::FixedLenByteArray)
        );
        assert_eq!(e.type_length, Some(12));
        assert_eq!(
            e.converted_type,
            Some(parq::format::metadata::ConvertedType::Interval)
        );
        assert!(e.logical_type.is_none());
    }
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
        .unwrap()
        .build()
        .unwrap();
    let got: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0], input, "arrow-rs reading parq's intervals");

    for skip_arrow_metadata in [false, true] {
        let mut out = Vec::new();
        let props = parquet::file::properties::WriterProperties::builder().build();
        let options = parquet::arrow::arrow_writer::ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(skip_arrow_metadata);
        let mut w = ArrowWriter::try_new_with_options(&mut out, input.schema(), options).unwrap();
        w.write(&input).unwrap();
        w.close().unwrap();
        let got = ParquetReader::from_bytes(Bytes::from(out))
            .unwrap()
            .read_batch()
            .unwrap();
        if skip_arrow_metadata {
            for i in 0..input.num_columns() {
                assert_eq!(got.column(i).data_type(), &DataType::FixedSizeBinary(12));
                assert_same(
                    "parq reading arrow-rs's intervals without ARROW:schema",
                    got.column(i),
                    &interval_bytes(input.column(i)),
                );
            }
        } else {
            assert_eq!(got, input, "parq reading arrow-rs's intervals");
        }
    }
}

#[test]
fn month_day_nano_intervals_are_refused_before_output() {
    let mdn = DataType::Interval(IntervalUnit::MonthDayNano);
    for (name, dt) in [
        ("mdn", mdn.clone()),
        (
            "dict_mdn",
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(mdn)),
        ),
        (
            "float_keys",
            DataType::Dictionary(Box::new(DataType::Float32), Box::new(DataType::Int32)),
        ),
    ] {
        let schema = Arc::new(Schema::new(vec![Field::new(name, dt, true)]));
        let mut out = Vec::new();
        let e = ParquetWriter::try_new(&mut out, schema, WriterProperties::default())
            .map(|_| ())
            .expect_err(name)
            .to_string();
        assert!(e.contains(&format!("`{name}`")), "{e}");
        assert!(out.is_empty(), "{e}: nothing may be written");
    }
}

// ---------------------------------------------------------------------------------------
// Time values that do not fit their physical type: Timestamp(Second) and Time32(Second) are
// written in milliseconds, Date64 in INT32 days. A valid value whose conversion overflows is
// an error naming the column, the row and the value, before anything of the array is put
// (null slots may hold anything); the values at the limits are written exactly.

const MS_PER_DAY: i64 = 86_400_000;

/// `values` as an array of `dt` (Timestamp(s), Time32(s) or Date64), `None` a null slot
/// holding the most overflowing value of the type.
fn time_array(dt: &DataType, values: &[Option<i64>]) -> ArrayRef {
    use TimeUnit as U;
    let nulls = NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<_>>());
    let raw = |garbage: i64| -> Vec<i64> { values.iter().map(|v| v.unwrap_or(garbage)).collect() };
    match dt {
        DataType::Timestamp(U::Second, tz) => Arc::new(
            TimestampSecondArray::new(raw(i64::MAX).into(), Some(nulls))
                .with_timezone_opt(tz.clone()),
        ),
        DataType::Time32(U::Second) => {
            let v: Vec<i32> = raw(i64::from(i32::MAX))
                .into_iter()
                .map(|v| v as i32)
                .collect();
            Arc::new(Time32SecondArray::new(v.into(), Some(nulls)))
        }
        DataType::Date64 => Arc::new(Date64Array::new(raw(i64::MAX).into(), Some(nulls))),
        other => panic!("not a checked time type: {other}"),
    }
}

/// What the file holds for `v` of `dt`: milliseconds, or days truncated toward zero.
fn physical_time(dt: &DataType, v: i64) -> i64 {
    match dt {
        DataType::Date64 => v / MS_PER_DAY,
        _ => v * 1000,
    }
}

/// Writes a null row then `column` as the only column `c`; on error also how many bytes the
/// writer buffered of `column`.
fn write_column(column: ArrayRef) -> Result<Vec<u8>, (parq::Error, usize)> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c",
        column.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, schema, WriterProperties::default()).unwrap();
    // A null row first: the open page's room for its levels is made then.
    let null = RecordBatch::try_new(
        batch.schema(),
        vec![new_null_array(batch.column(0).data_type(), 1)],
    )
    .unwrap();
    w.write(&null).unwrap();
    let before = w.buffered_bytes();
    if let Err(e) = w.write(&batch) {
        return Err((e, w.buffered_bytes() - before));
    }
    w.close().unwrap();
    Ok(out)
}

/// pyarrow 26 reads column `c` of `path` as its raw integers (dictionaries decoded).
fn pyarrow_raw(path: &Path) -> Vec<Option<i64>> {
    const SCRIPT: &str = r#"
import sys, json
import pyarrow as pa, pyarrow.parquet as pq
c = pq.read_table(sys.argv[1]).column("c").combine_chunks()
if pa.types.is_dictionary(c.type):
    c = c.dictionary_decode()
print(json.dumps(c.view(pa.int64() if c.type.bit_width == 64 else pa.int32()).to_pylist()))
"#;
    let out = run_python(SCRIPT, &[path.display().to_string()]);
    serde_json::from_str(out.trim()).expect("pyarrow JSON")
}

/// parq reads column `c` of `bytes` as its raw integers (Timestamp(ms), Time32(ms), Date32).
fn parq_raw(bytes: &[u8]) -> Vec<Option<i64>> {
    let r = ParquetReader::from_bytes(Bytes::copy_from_slice(bytes)).unwrap();
    let got = r.read_batch().unwrap();
    let a = got.column(0);
    let a = match a.data_type() {
        DataType::Dictionary(..) => decode(a),
        _ => a.clone(),
    };
    match a.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, _) => a
            .as_primitive::<TimestampMillisecondType>()
            .iter()
            .collect(),
        DataType::Time32(TimeUnit::Millisecond) => a
            .as_primitive::<Time32MillisecondType>()
            .iter()
            .map(|v| v.map(i64::from))
            .collect(),
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .iter()
            .map(|v| v.map(i64::from))
            .collect(),
        other => panic!("parq read {other}"),
    }
}

#[test]
fn time_values_at_the_limits_are_written_exactly() {
    let ts = i64::MAX / 1000;
    let t32 = i64::from(i32::MAX / 1000);
    let (dmax, dmin) = (
        i64::from(i32::MAX) * MS_PER_DAY,
        i64::from(i32::MIN) * MS_PER_DAY,
    );
    let cases: Vec<(DataType, Vec<Option<i64>>)> = vec![
        (
            DataType::Timestamp(TimeUnit::Second, None),
            vec![Some(ts), Some(-ts), Some(i64::MIN / 1000), Some(0), None],
        ),
        (
            DataType::Timestamp(TimeUnit::Second, Some(Arc::from("UTC"))),
            vec![None, Some(ts), Some(-1)],
        ),
        (
            DataType::Time32(TimeUnit::Second),
            vec![
                Some(0),
                Some(86_399),
                Some(t32),
                Some(-t32),
                None,
                Some(86_400),
            ],
        ),
        (
            DataType::Date64,
            vec![
                Some(dmax),
                Some(dmax + MS_PER_DAY - 1),
                Some(dmin),
                Some(dmin - MS_PER_DAY + 1),
                None,
                // Truncated toward zero, as pyarrow 26 writes them: days 0, 1, -1.
                Some(-1),
                Some(MS_PER_DAY + 1),
                Some(-MS_PER_DAY - 1),
            ],
        ),
    ];
    let dir = tmp_dir("time-limits");
    for (i, (dt, values)) in cases.iter().enumerate() {
        let what = format!("{dt} {values:?}");
        // After the null row `write_column` writes first.
        let want: Vec<Option<i64>> = std::iter::once(None)
            .chain(values.iter().map(|v| v.map(|v| physical_time(dt, v))))
            .collect();
        let bytes =
            write_column(time_array(dt, values)).unwrap_or_else(|(e, _)| panic!("{what}: {e}"));
        assert_eq!(parq_raw(&bytes), want, "{what}: parq");
        let p = dir.join(format!("limits{i}.parquet"));
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(pyarrow_raw(&p), want, "{what}: pyarrow");
    }
    // A dictionary value that does not fit, used by no valid row (a null key points at it).
    let values = time_array(
        &DataType::Timestamp(TimeUnit::Second, None),
        &[Some(7), Some(1 << 62)],
    );
    let keys = Int8Array::from(vec![Some(0), None, Some(0)]);
    let keys = Int8Array::new(vec![0, 1, 0].into(), keys.nulls().cloned());
    let dict: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
    let bytes = write_column(dict).unwrap_or_else(|(e, _)| panic!("unused dictionary value: {e}"));
    let want = vec![None, Some(7000), None, Some(7000)];
    assert_eq!(parq_raw(&bytes), want, "dictionary: parq");
    let p = dir.join("dictionary.parquet");
    std::fs::write(&p, &bytes).unwrap();
    assert_eq!(pyarrow_raw(&p), want, "dictionary: pyarrow");
}

#[test]
fn time_values_that_do_not_fit_are_errors_naming_column_row_and_value() {
    let ts = i64::MAX / 1000;
    let t32 = i64::from(i32::MAX / 1000);
    let day_max = i64::from(i32::MAX) * MS_PER_DAY;
    let day_min = i64::from(i32::MIN) * MS_PER_DAY;
    let ts_s = DataType::Timestamp(TimeUnit::Second, None);
    let ts_tz = DataType::Timestamp(TimeUnit::Second, Some(Arc::from("Europe/Paris")));
    let t32_s = DataType::Time32(TimeUnit::Second);
    // (type, values, the row and value of the error)
    let mut cases: Vec<(DataType, Vec<Option<i64>>, usize, i64)> = vec![
        (ts_s.clone(), vec![Some(0), Some(ts + 1)], 1, ts + 1),
        (
            ts_s.clone(),
            vec![Some(i64::MIN / 1000 - 1)],
            0,
            i64::MIN / 1000 - 1,
        ),
        (
            ts_tz,
            vec![None, Some(1 << 62), Some(-(1 << 62))],
            1,
            1 << 62,
        ),
        (
            t32_s.clone(),
            vec![Some(86_399), Some(3_000_000)],
            1,
            3_000_000,
        ),
        (t32_s.clone(), vec![Some(-t32 - 1)], 0, -t32 - 1),
        (
            t32_s,
            vec![None, Some(i64::from(i32::MIN))],
            1,
            i64::from(i32::MIN),
        ),
        (
            DataType::Date64,
            vec![Some(day_max + MS_PER_DAY)],
            0,
            day_max + MS_PER_DAY,
        ),
        (
            DataType::Date64,
            vec![Some(0), Some(day_min - MS_PER_DAY)],
            1,
            day_min - MS_PER_DAY,
        ),
        (DataType::Date64, vec![Some(i64::MAX)], 0, i64::MAX),
        (DataType::Date64, vec![Some(i64::MIN)], 0, i64::MIN),
    ];
    // In a later slice of an array of several mini-batches (1024 rows): still nothing of the
    // array is put.
    let mut long: Vec<Option<i64>> = (0..6000).map(|i| Some(i * 1000)).collect();
    long[5000] = Some(ts + 5);
    cases.push((ts_s.clone(), long, 5000, ts + 5));
    for (dt, values, row, value) in cases {
        let what = format!("{dt} row {row}");
        let (e, buffered) = write_column(time_array(&dt, &values))
            .map(|_| ())
            .expect_err(&what);
        let message = e.to_string();
        assert!(
            matches!(e.kind(), parq::ErrorKind::InvalidColumnData { column, .. } if column == "c"),
            "{what}: {message}"
        );
        for part in [format!("row {row}:"), format!("value {value} ")] {
            assert!(message.contains(&part), "{what}: {part:?} not in {message}");
        }
        assert_eq!(buffered, 0, "{what}: nothing of the array may be put");
    }
    // A dictionary value that does not fit, used by row 3 (rows 0..3 use another).
    let values = time_array(&ts_s, &[Some(7), Some(1 << 62)]);
    let keys = Int16Array::from(vec![Some(0), None, Some(0), Some(1), Some(1)]);
    let dict: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
    let (e, buffered) = write_column(dict).map(|_| ()).expect_err("dictionary");
    let message = e.to_string();
    assert!(
        message.contains("column `c`: row 3 (dictionary value 1):")
            && message.contains(&format!("value {} s", 1i64 << 62)),
        "{message}"
    );
    assert_eq!(buffered, 0, "dictionary: nothing of the array may be put");
}
