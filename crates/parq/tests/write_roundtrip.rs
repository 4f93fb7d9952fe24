//! Tests of `parq::write`: what parq writes, parq's reader reads back equal (with the Arrow
//! types restored from `ARROW:schema`), for every type x encoding x codec x statistics
//! level x page version, with random data (nulls, empty batches, empty strings, extreme
//! values, NaN); pyarrow 26 reads every such file equal to the input and agrees with the
//! statistics; DuckDB and polars read a sample; impossible requests fail before output; the
//! footer bytes of one small file are pinned.
//!
//! The pyarrow venv (`bash scripts/venv.sh`) is required for the interop tests.

mod common;
use common::{run_python, write_ipc, Rng};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{i256, NullBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use bytes::Bytes;
use parq::format::metadata::{Compression, Encoding, FileMetaData};
use parq::read::ParquetReader;
use parq::write::file::ParquetWriter;
use parq::write::properties::{Codec, DataPageVersion, StatisticsLevel, WriterProperties};
use parq::write::BloomFilterProperties;

// ---------------------------------------------------------------------------------------
// Data

type F16 = <Float16Type as ArrowPrimitiveType>::Native;

/// The types written, by name.
fn types() -> Vec<(&'static str, DataType)> {
    use DataType as D;
    let mut v = common::plain_types();
    v.push(("fsb", D::FixedSizeBinary(5)));
    v.extend(common::decimal_types(5));
    v.extend(common::temporal_types("ts_ms_tz"));
    v.extend([
        ("dur_ns", D::Duration(TimeUnit::Nanosecond)),
        ("null", D::Null),
        (
            "dict_utf8",
            D::Dictionary(Box::new(D::Int32), Box::new(D::Utf8)),
        ),
        (
            "dict_i64",
            D::Dictionary(Box::new(D::Int8), Box::new(D::Int64)),
        ),
        // Dictionaries over values that are converted (their dictionary once per array).
        // Intervals are not in this matrix (polars 2.1 cannot open a file with an INTERVAL
        // column): `tests/write_types.rs` runs them through every encoding.
        (
            "dict_u16_date64",
            D::Dictionary(Box::new(D::UInt16), Box::new(D::Date64)),
        ),
        (
            "dict_u8_d128",
            D::Dictionary(Box::new(D::UInt8), Box::new(D::Decimal128(38, 4))),
        ),
        (
            "dict_i16_fsb",
            D::Dictionary(Box::new(D::Int16), Box::new(D::FixedSizeBinary(5))),
        ),
        (
            "dict_u64_bview",
            D::Dictionary(Box::new(D::UInt64), Box::new(D::BinaryView)),
        ),
        (
            "dict_u32_bool",
            D::Dictionary(Box::new(D::UInt32), Box::new(D::Boolean)),
        ),
        (
            "dict_i64_ts_s",
            D::Dictionary(
                Box::new(D::Int64),
                Box::new(D::Timestamp(TimeUnit::Second, None)),
            ),
        ),
    ]);
    v
}

fn nulls(rng: &mut Rng, n: usize, p: f64) -> Option<NullBuffer> {
    if p == 0.0 {
        return None;
    }
    Some(NullBuffer::from(
        (0..n).map(|_| !rng.chance_high(p)).collect::<Vec<bool>>(),
    ))
}

/// A random value among a few (to give dictionaries something to do) or any.
fn pick<T: Copy>(rng: &mut Rng, extremes: &[T], any: impl FnOnce(&mut Rng) -> T) -> T {
    match rng.below(10) {
        0 => extremes[rng.below(extremes.len() as u64) as usize],
        1..=4 => any(rng),
        _ => {
            // A small set of repeated values.
            let mut r = Rng(rng.below(16));
            any(&mut r)
        }
    }
}

fn prim<T: ArrowPrimitiveType>(
    rng: &mut Rng,
    n: usize,
    p: f64,
    extremes: &[T::Native],
    any: impl Fn(&mut Rng) -> T::Native,
) -> PrimitiveArray<T> {
    let v: Vec<T::Native> = (0..n).map(|_| pick(rng, extremes, &any)).collect();
    PrimitiveArray::<T>::new(v.into(), nulls(rng, n, p))
}

fn strings(rng: &mut Rng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| match rng.below(8) {
            0 => String::new(),
            1 => "\u{10FFFF}é€".repeat(rng.below(4) as usize),
            2 => "z".repeat(rng.below(100) as usize),
            _ => {
                let mut r = Rng(rng.below(40));
                let len = r.below(20) as usize;
                (0..len)
                    .map(|_| (b'a' + r.below(26) as u8) as char)
                    .collect()
            }
        })
        .collect()
}

/// A random array of `dt` with `n` slots, nulls with probability `p`.
fn gen(dt: &DataType, rng: &mut Rng, n: usize, p: f64) -> ArrayRef {
    use DataType as D;
    let i64any = |r: &mut Rng| r.next() as i64;
    match dt {
        D::Boolean => {
            let v: Vec<bool> = (0..n).map(|_| rng.chance_high(0.3)).collect();
            Arc::new(BooleanArray::new(v.into(), nulls(rng, n, p)))
        }
        D::Int8 => Arc::new(prim::<Int8Type>(rng, n, p, &[i8::MIN, i8::MAX, 0], |r| {
            r.next() as i8
        })),
        D::Int16 => Arc::new(prim::<Int16Type>(rng, n, p, &[i16::MIN, i16::MAX], |r| {
            r.next() as i16
        })),
        D::Int32 => Arc::new(prim::<Int32Type>(
            rng,
            n,
            p,
            &[i32::MIN, i32::MAX, 0, -1],
            |r| r.next() as i32,
        )),
        D::Int64 => Arc::new(prim::<Int64Type>(
            rng,
            n,
            p,
            &[i64::MIN, i64::MAX, 0],
            i64any,
        )),
        D::UInt8 => Arc::new(prim::<UInt8Type>(rng, n, p, &[0, u8::MAX], |r| {
            r.next() as u8
        })),
        D::UInt16 => Arc::new(prim::<UInt16Type>(rng, n, p, &[0, u16::MAX], |r| {
            r.next() as u16
        })),
        D::UInt32 => Arc::new(prim::<UInt32Type>(
            rng,
            n,
            p,
            &[0, u32::MAX, 1 << 31],
            |r| r.next() as u32,
        )),
        D::UInt64 => Arc::new(prim::<UInt64Type>(
            rng,
            n,
            p,
            &[0, u64::MAX, 1 << 63],
            |r| r.next(),
        )),
        D::Float16 => Arc::new(prim::<Float16Type>(
            rng,
            n,
            p,
            &[
                F16::from_bits(0x7e00),
                F16::from_bits(0x7c00),
                F16::from_bits(0xfc00),
                F16::from_bits(0x8000),
                F16::from_bits(0),
                F16::from_bits(0x7bff),
            ],
            |r| F16::from_f32((r.below(2000) as f32 - 1000.0) / 8.0),
        )),
        D::Float32 => Arc::new(prim::<Float32Type>(
            rng,
            n,
            p,
            &[
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                -0.0,
                0.0,
                f32::MIN,
                f32::MAX,
            ],
            |r| (r.next() as i32) as f32 / 7.0,
        )),
        D::Float64 => Arc::new(prim::<Float64Type>(
            rng,
            n,
            p,
            &[
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -0.0,
                0.0,
                f64::MIN,
                f64::MAX,
            ],
            |r| (r.next() as i64) as f64 / 3.0,
        )),
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => {
            let s = strings(rng, n);
            let nb = nulls(rng, n, p);
            let opt: Vec<Option<&str>> = s
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    nb.as_ref()
                        .is_none_or(|b| b.is_valid(i))
                        .then_some(v.as_str())
                })
                .collect();
            match dt {
                D::Utf8 => Arc::new(StringArray::from(opt)),
                D::LargeUtf8 => Arc::new(LargeStringArray::from(opt)),
                D::Utf8View => Arc::new(StringViewArray::from(opt)),
                D::Binary => Arc::new(BinaryArray::from(
                    opt.iter().map(|o| o.map(str::as_bytes)).collect::<Vec<_>>(),
                )),
                D::LargeBinary => Arc::new(LargeBinaryArray::from(
                    opt.iter().map(|o| o.map(str::as_bytes)).collect::<Vec<_>>(),
                )),
                _ => Arc::new(BinaryViewArray::from(
                    opt.iter().map(|o| o.map(str::as_bytes)).collect::<Vec<_>>(),
                )),
            }
        }
        D::FixedSizeBinary(w) => {
            let w = *w as usize;
            let mut bytes = Vec::with_capacity(n * w);
            for _ in 0..n {
                let x = pick(rng, &[0u64, u64::MAX], |r| r.next());
                bytes.extend_from_slice(&x.to_le_bytes()[..w]);
            }
            Arc::new(FixedSizeBinaryArray::new(
                w as i32,
                bytes.into(),
                nulls(rng, n, p),
            ))
        }
        D::Decimal32(pr, s) => Arc::new(
            prim::<Decimal32Type>(rng, n, p, &[999_999_999, -999_999_999, 0], |r| {
                (r.next() % 1_000_000_000) as i32 * if r.chance_high(0.5) { -1 } else { 1 }
            })
            .with_precision_and_scale(*pr, *s)
            .unwrap(),
        ),
        D::Decimal64(pr, s) => Arc::new(
            prim::<Decimal64Type>(
                rng,
                n,
                p,
                &[999_999_999_999_999_999, -999_999_999_999_999_999],
                |r| {
                    (r.next() % 1_000_000_000_000_000_000) as i64
                        * if r.chance_high(0.5) { -1 } else { 1 }
                },
            )
            .with_precision_and_scale(*pr, *s)
            .unwrap(),
        ),
        D::Decimal128(pr, s) => {
            let max = 10i128.pow(u32::from(*pr)) - 1;
            Arc::new(
                prim::<Decimal128Type>(rng, n, p, &[max, -max, 0], |r| {
                    ((r.next() as i128) << 64 | r.next() as i128) % (max + 1)
                })
                .with_precision_and_scale(*pr, *s)
                .unwrap(),
            )
        }
        D::Decimal256(pr, s) => {
            let max = i256::from_i128(10).wrapping_pow(u32::from(*pr)) - i256::ONE;
            Arc::new(
                prim::<Decimal256Type>(rng, n, p, &[max, max.wrapping_neg(), i256::ZERO], |r| {
                    i256::from_parts(
                        r.next() as u128 | (r.next() as u128) << 64,
                        (r.next() >> 4) as i128,
                    )
                    .checked_rem(max)
                    .unwrap_or(i256::ZERO)
                })
                .with_precision_and_scale(*pr, *s)
                .unwrap(),
            )
        }
        D::Date32 => Arc::new(prim::<Date32Type>(
            rng,
            n,
            p,
            &[0, -719_162, 2_932_896],
            |r| r.below(40000) as i32 - 20000,
        )),
        D::Date64 => Arc::new(prim::<Date64Type>(
            rng,
            n,
            p,
            &[0, 86_400_000 * 20000],
            |r| (r.below(40000) as i64 - 20000) * 86_400_000,
        )),
        D::Time32(TimeUnit::Second) => {
            Arc::new(prim::<Time32SecondType>(rng, n, p, &[0, 86399], |r| {
                r.below(86400) as i32
            }))
        }
        D::Time32(_) => Arc::new(prim::<Time32MillisecondType>(
            rng,
            n,
            p,
            &[0, 86_399_999],
            |r| r.below(86_400_000) as i32,
        )),
        D::Time64(TimeUnit::Microsecond) => Arc::new(prim::<Time64MicrosecondType>(
            rng,
            n,
            p,
            &[0, 86_399_999_999],
            |r| r.below(86_400_000_000) as i64,
        )),
        D::Time64(_) => Arc::new(prim::<Time64NanosecondType>(
            rng,
            n,
            p,
            &[0, 86_399_999_999_999],
            |r| r.below(86_400_000_000_000) as i64,
        )),
        D::Timestamp(TimeUnit::Second, tz) => Arc::new(
            prim::<TimestampSecondType>(rng, n, p, &[0, -1_000_000_000], |r| {
                r.below(4_000_000_000) as i64 - 2_000_000_000
            })
            .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(TimeUnit::Millisecond, tz) => Arc::new(
            prim::<TimestampMillisecondType>(rng, n, p, &[0, i64::MAX, i64::MIN], i64any)
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(TimeUnit::Microsecond, tz) => Arc::new(
            prim::<TimestampMicrosecondType>(rng, n, p, &[0, i64::MAX], i64any)
                .with_timezone_opt(tz.clone()),
        ),
        D::Timestamp(TimeUnit::Nanosecond, tz) => Arc::new(
            prim::<TimestampNanosecondType>(rng, n, p, &[0, i64::MIN], i64any)
                .with_timezone_opt(tz.clone()),
        ),
        D::Duration(TimeUnit::Second) => Arc::new(prim::<DurationSecondType>(
            rng,
            n,
            p,
            &[i64::MIN, i64::MAX],
            i64any,
        )),
        D::Duration(_) => Arc::new(prim::<DurationNanosecondType>(rng, n, p, &[0, -1], i64any)),
        D::Null => Arc::new(NullArray::new(n)),
        D::Dictionary(k, v) => {
            let m = 1 + rng.below(12) as usize;
            let values = gen(v, rng, m, if p > 0.0 { 0.1 } else { 0.0 });
            let m = values.len() as u64;
            let keys: Vec<i64> = (0..n).map(|_| rng.below(m) as i64).collect();
            let nb = nulls(rng, n, p);
            common::dictionary_array(k, &keys, nb, values)
        }
        other => panic!("no generator for {other}"),
    }
}

/// What parq's reader (and pyarrow) give back for an input array: the same, except for the
/// types Parquet coerces and `ARROW:schema` does not restore (as pyarrow 26): a dictionary
/// over byte strings stays a dictionary (its values compared materialized), one over other
/// values reads as its values' Parquet type (`ARROW:schema` does not apply inside).
fn expected(a: &ArrayRef) -> ArrayRef {
    match a.data_type() {
        DataType::Time32(TimeUnit::Second) => Arc::new(
            a.as_primitive::<Time32SecondType>()
                .unary::<_, Time32MillisecondType>(|v| v.wrapping_mul(1000)),
        ),
        DataType::Date64 => Arc::new(
            a.as_primitive::<Date64Type>()
                .unary::<_, Date32Type>(|v| (v / 86_400_000) as i32),
        ),
        DataType::Timestamp(TimeUnit::Second, tz) => Arc::new(
            a.as_primitive::<TimestampSecondType>()
                .unary::<_, TimestampMillisecondType>(|v| v.wrapping_mul(1000))
                .with_timezone_opt(tz.clone()),
        ),
        DataType::Dictionary(_, v) if !is_bytes(v) => expected(&materialize(a)),
        _ => a.clone(),
    }
}

fn is_bytes(t: &DataType) -> bool {
    use DataType as D;
    matches!(
        t,
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView
    )
}

/// A dictionary array's values, one per slot (a generic take; other arrays as they are).
fn materialize(a: &dyn Array) -> ArrayRef {
    let Some(d) = a.as_any_dictionary_opt() else {
        return make_array(a.to_data());
    };
    // (An empty dictionary: every slot is null.)
    let keys = if d.values().is_empty() {
        vec![0; a.len()]
    } else {
        d.normalized_keys()
    };
    let values = d.values().to_data();
    let mut m = arrow_data::transform::MutableArrayData::new(vec![&values], true, a.len());
    for (i, &k) in keys.iter().enumerate().take(a.len()) {
        if a.is_valid(i) && k < d.values().len() && d.values().is_valid(k) {
            m.try_extend(0, k, k + 1).unwrap();
        } else {
            m.try_extend_nulls(1).unwrap();
        }
    }
    make_array(m.freeze())
}

/// The values of a byte-string dictionary array, materialized.
fn dict_bytes(a: &dyn Array) -> Vec<Option<Vec<u8>>> {
    let m = materialize(a);
    (0..m.len())
        .map(|i| {
            m.is_valid(i).then(|| match m.data_type() {
                DataType::Utf8 => m.as_string::<i32>().value(i).as_bytes().to_vec(),
                DataType::LargeUtf8 => m.as_string::<i64>().value(i).as_bytes().to_vec(),
                DataType::Utf8View => m.as_string_view().value(i).as_bytes().to_vec(),
                DataType::Binary => m.as_binary::<i32>().value(i).to_vec(),
                DataType::LargeBinary => m.as_binary::<i64>().value(i).to_vec(),
                DataType::BinaryView => m.as_binary_view().value(i).to_vec(),
                other => panic!("not a byte string type: {other}"),
            })
        })
        .collect()
}

fn assert_array_eq(what: &str, got: &dyn Array, want: &dyn Array) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let DataType::Dictionary(k, v) = want.data_type() {
        // Byte strings read back as Utf8 / Binary values (`ARROW:schema` restores the key type).
        let value = if matches!(
            **v,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ) {
            DataType::Utf8
        } else {
            DataType::Binary
        };
        let t = DataType::Dictionary(k.clone(), Box::new(value));
        assert_eq!(got.data_type(), &t, "{what}: type");
        assert_eq!(dict_bytes(got), dict_bytes(want), "{what}: values");
        return;
    }
    assert_eq!(got.data_type(), want.data_type(), "{what}: type");
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

fn dataset(seed: u64, n: usize, nullable: bool) -> RecordBatch {
    let mut rng = Rng(seed);
    let mut fields = Vec::new();
    let mut cols = Vec::new();
    for (name, dt) in types() {
        let p = if nullable { 0.2 } else { 0.0 };
        let a = gen(&dt, &mut rng, n, p);
        fields.push(Field::new(
            name,
            dt.clone(),
            nullable || dt == DataType::Null,
        ));
        cols.push(a);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).expect("batch")
}

/// Writes `batch` in random slices, with an empty batch among them.
fn write_parts(
    batch: &RecordBatch,
    props: WriterProperties,
    rng: &mut Rng,
) -> (Vec<u8>, FileMetaData) {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).expect("writer");
    let mut off = 0;
    let n = batch.num_rows();
    w.write(&batch.slice(0, 0)).expect("empty batch");
    while off < n {
        let k = (1 + rng.below(900) as usize).min(n - off);
        w.write(&batch.slice(off, k)).expect("write");
        off += k;
    }
    w.write(&batch.slice(n, 0)).expect("empty batch");
    let meta = w.close().expect("close");
    (out, meta)
}

fn read_back(bytes: Vec<u8>) -> RecordBatch {
    let r = ParquetReader::from_bytes(Bytes::from(bytes)).expect("open");
    r.read_batch().expect("read")
}

fn check_roundtrip(what: &str, input: &RecordBatch, got: &RecordBatch) {
    assert_eq!(got.num_rows(), input.num_rows(), "{what}: rows");
    for (i, f) in input.schema().fields().iter().enumerate() {
        let want = expected(input.column(i));
        assert_eq!(got.schema().field(i).name(), f.name());
        assert_array_eq(&format!("{what} column {}", f.name()), got.column(i), &want);
    }
}

const ENCODINGS: [Encoding; 7] = [
    Encoding::RleDictionary,
    Encoding::Plain,
    Encoding::DeltaBinaryPacked,
    Encoding::DeltaLengthByteArray,
    Encoding::DeltaByteArray,
    Encoding::ByteStreamSplit,
    Encoding::Rle,
];

fn codecs() -> Vec<Codec> {
    vec![
        Codec::UNCOMPRESSED,
        Codec::SNAPPY,
        Codec::new(Compression::Gzip, Some(1)).unwrap(),
        Codec::LZ4_RAW,
        Codec::new(Compression::Zstd, Some(3)).unwrap(),
        Codec::new(Compression::Brotli, Some(2)).unwrap(),
    ]
}

/// Properties using `encoding` for every column whose physical type takes it (dictionary
/// with a tiny limit, i.e. fallback to `encoding`, when `fallback`).
fn props_for(
    schema: &SchemaRef,
    encoding: Encoding,
    fallback: bool,
    codec: Codec,
    stats: StatisticsLevel,
    version: DataPageVersion,
    rng: &mut Rng,
) -> WriterProperties {
    let mut b = WriterProperties::builder()
        .compression(codec)
        .statistics(stats)
        .data_page_version(version)
        .page_crc(rng.chance_high(0.5))
        .max_row_group_rows(Some([777, 5000][rng.below(2) as usize]))
        .data_page_rows(Some([37, 500, 20_000][rng.below(3) as usize]))
        .data_page_bytes(Some([300, 1 << 20][rng.below(2) as usize]));
    if encoding != Encoding::RleDictionary {
        for f in schema.fields() {
            let t = parq::write::arrow_schema::leaf_type(f.name(), f.data_type()).unwrap();
            if parq::write::properties::check_encoding(f.name(), encoding, t.physical).is_ok() {
                b = b.column_encoding(f.name(), encoding);
                if fallback && t.physical != parq::format::metadata::PhysicalType::Boolean {
                    b = b.column_dictionary(f.name(), true);
                }
            }
        }
        if fallback {
            b = b.dictionary_page_size_limit(64);
        }
    }
    b.build().expect("props")
}

fn out_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("parq-write-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Writes the whole matrix; returns (file, dataset index) of every file written.
fn matrix(dir: &Path, datasets: &[RecordBatch]) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    let mut rng = Rng(42);
    let mut k = 0usize;
    for encoding in ENCODINGS {
        for (ci, codec) in codecs().into_iter().enumerate() {
            for stats in [
                StatisticsLevel::None,
                StatisticsLevel::Chunk,
                StatisticsLevel::Page,
            ] {
                for version in [DataPageVersion::V1, DataPageVersion::V2] {
                    let d = k % datasets.len();
                    k += 1;
                    let input = &datasets[d];
                    let fallback = ci % 2 == 1;
                    let props = props_for(
                        &input.schema(),
                        encoding,
                        fallback,
                        codec,
                        stats,
                        version,
                        &mut rng,
                    );
                    let what = format!(
                        "{encoding} fallback={fallback} {codec} {stats} {version:?} dataset {d}"
                    );
                    let (bytes, meta) = write_parts(input, props, &mut rng);
                    assert_eq!(meta.num_rows(), input.num_rows() as i64, "{what}");
                    let path = dir.join(format!("{k:03}.parquet"));
                    std::fs::write(&path, &bytes).expect("write file");
                    let r = ParquetReader::from_bytes(Bytes::from(bytes)).expect("open");
                    let got = r.read_batch().unwrap_or_else(|e| panic!("{what}: {e}"));
                    check_roundtrip(&what, input, &got);
                    files.push((path, d));
                }
            }
        }
    }
    files
}

/// Reads every file with pyarrow and compares with its dataset (from IPC): values (floats
/// by bits), and per row group and column the statistics' null count, and min/max where
/// pyarrow decodes them to comparable Python values. Prints `ok` or the failures.
const PYARROW_CHECK: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq, pyarrow.compute as pc, decimal, math
n_sets = int(sys.argv[1])
sets = [pa.ipc.open_file(sys.argv[2 + i]).read_all() for i in range(n_sets)]
args = sys.argv[2 + n_sets:]
fails = []
MINMAX = {'i8','i16','i32','i64','u8','u16','u32','u64','f32','f64','utf8','large_utf8','utf8_view','binary','large_binary','binary_view','d32','d64','d128','d128_small','d256','date32','bool','fsb',
          'dict_i64','dict_u16_date64','dict_u8_d128','dict_i16_fsb','dict_u64_bview','dict_u32_bool'}
VIEWS = {'string_view': pa.string(), 'binary_view': pa.binary()}
def decode(col):
    # Dictionary arrays decoded (over views: over the plain type, pyarrow 26 has no take of
    # views).
    if not pa.types.is_dictionary(col.type):
        return col
    d = col.dictionary
    if str(d.type) in VIEWS:
        d = d.cast(VIEWS[str(d.type)])
    return pa.DictionaryArray.from_arrays(col.indices, d).dictionary_decode()
def bound_ok(v, s, is_max):
    # Equal, or a truncated byte-string bound: a prefix of the min; for the max, a prefix
    # with its last byte or character incremented.
    if v == s:
        return True
    if isinstance(v, (bytes, str)) and isinstance(s, type(v)) and 0 < len(s) < len(v):
        return s > v and v.startswith(s[:-1]) if is_max else v.startswith(s)
    return False
def norm(col):
    t = col.type
    if pa.types.is_floating(t):
        return col.view({16: pa.int16(), 32: pa.int32(), 64: pa.int64()}[t.bit_width])
    return col
for j in range(0, len(args), 2):
    path, d = args[j], int(args[j + 1])
    exp = sets[d]
    try:
        got = pq.read_table(path)
    except Exception as e:
        # pyarrow 26 cannot decode DELTA_LENGTH_BYTE_ARRAY pages into a dictionary column
        # (`DecodeArrow of DictAccumulator`): read those columns as plain strings.
        if "DictAccumulator" not in str(e):
            fails.append(f"{path}: read error {e}")
            continue
        # (a pyarrow limitation: those columns are left out of the comparison).
        sch = pq.read_schema(path)
        got = pq.read_table(path, columns=[f.name for f in sch if not pa.types.is_dictionary(f.type)])
    for name in got.column_names:
        g = got.column(name).combine_chunks()
        w = exp.column(name).combine_chunks()
        if g.type != w.type:
            w = w.cast(g.type) if not pa.types.is_dictionary(w.type) else decode(w).cast(g.type)
        if pa.types.is_dictionary(g.type):
            g, w = decode(g), decode(w)
        if not norm(g).equals(norm(w)):
            fails.append(f"{path}: column {name} differs")
    md = pq.ParquetFile(path).metadata
    off = 0
    for rg in range(md.num_row_groups):
        r = md.row_group(rg)
        for ci in range(r.num_columns):
            c = r.column(ci)
            name = c.path_in_schema
            sl = exp.column(name).slice(off, r.num_rows).combine_chunks()
            sl = decode(sl)
            st = c.statistics
            if st is None:
                continue
            if st.has_null_count and st.null_count != sl.null_count:
                fails.append(f"{path}: rg {rg} {name} null_count {st.null_count} != {sl.null_count}")
            if name in MINMAX:
                vals = [v for v in sl.to_pylist() if v is not None and not (isinstance(v, float) and math.isnan(v))]
                if vals and not st.has_min_max:
                    fails.append(f"{path}: rg {rg} {name} no min/max")
                if vals and st.has_min_max:
                    mn, mx = min(vals), max(vals)
                    smin, smax = st.min, st.max
                    if isinstance(mn, str) and isinstance(smin, bytes):
                        mn, mx = mn.encode(), mx.encode()
                    if isinstance(mn, bytes) and isinstance(smin, str):
                        smin, smax = smin.encode(), smax.encode()
                    if isinstance(mn, float):
                        ok = (mn == smin or (mn == 0 and smin == 0)) and (mx == smax or (mx == 0 and smax == 0))
                    else:
                        ok = bound_ok(mn, smin, False) and bound_ok(mx, smax, True)
                    if not ok:
                        fails.append(f"{path}: rg {rg} {name} min/max {smin!r}/{smax!r} != {mn!r}/{mx!r}")
        off += r.num_rows
print("ok" if not fails else "\n".join(fails[:40]))
"#;

/// DuckDB and polars on a sample: row count and, per column of a checked set, count,
/// min and max, compared with the same query on the input table.
const PEERS_CHECK: &str = r#"
import sys, pyarrow as pa, duckdb, polars as pl
n_sets = int(sys.argv[1])
sets = [pa.ipc.open_file(sys.argv[2 + i]).read_all() for i in range(n_sets)]
args = sys.argv[2 + n_sets:]
fails = []
COLS = ['i8','i16','i32','i64','u8','u16','u32','f64','utf8','large_utf8','binary','d128','date32','ts_ns','bool']
PL_COLS = ['i8','i32','i64','u32','utf8','large_utf8','date32','bool','ts_ns']
q = ", ".join(f"count(\"{c}\"), min(\"{c}\"), max(\"{c}\")" for c in COLS)
for j in range(0, len(args), 2):
    path, d = args[j], int(args[j + 1])
    cols = COLS
    try:
        duckdb.sql(f"select {q} from read_parquet('{path}')").fetchall()
    except duckdb.Error as e:
        # DuckDB 2.0 reads BYTE_STREAM_SPLIT of 4- and 8-byte types only (not of
        # FIXED_LEN_BYTE_ARRAY decimals).
        if "BYTE_STREAM_SPLIT" not in str(e):
            raise
        cols = [c for c in COLS if c != 'd128']
    qq = ", ".join(f"count(\"{c}\"), min(\"{c}\"), max(\"{c}\")" for c in cols)
    exp = sets[d].select(cols)
    got = duckdb.sql(f"select count(*), {qq} from read_parquet('{path}')").fetchall()
    want = duckdb.sql(f"select count(*), {qq} from exp").fetchall()
    # repr: NaN maxima compare equal as text.
    if repr(got) != repr(want):
        fails.append(f"duckdb {path}: {got} != {want}"[:300])
    # polars 2.1 reads decimals up to precision 38 only and no DELTA_BYTE_ARRAY
    # FIXED_LEN_BYTE_ARRAY pages: the checked columns.
    df = pl.read_parquet(path, columns=PL_COLS)
    if df.height != exp.num_rows:
        fails.append(f"polars {path}: {df.height} rows")
    e = pl.from_arrow(exp.select(PL_COLS))
    for c in PL_COLS:
        if not df[c].equals(e[c]):
            fails.append(f"polars {path}: column {c} differs")
print("ok" if not fails else "\n".join(fails[:40]))
"#;

#[test]
fn round_trip_and_interop_matrix() {
    let dir = out_dir();
    let datasets = vec![
        dataset(1, 3000, true),
        dataset(2, 2000, false),
        dataset(3, 1500, true),
    ];
    let files = matrix(&dir, &datasets);
    let mut args = vec![datasets.len().to_string()];
    for (i, d) in datasets.iter().enumerate() {
        let p = dir.join(format!("set{i}.arrow"));
        write_ipc(&p, d);
        args.push(p.display().to_string());
    }
    let mut all = args.clone();
    for (p, d) in &files {
        all.push(p.display().to_string());
        all.push(d.to_string());
    }
    let out = run_python(PYARROW_CHECK, &all);
    assert_eq!(out.trim(), "ok", "pyarrow:\n{out}");
    let mut sample = args.clone();
    for (p, d) in files.iter().step_by(9) {
        sample.push(p.display().to_string());
        sample.push(d.to_string());
    }
    let out = run_python(PEERS_CHECK, &sample);
    assert_eq!(out.trim(), "ok", "duckdb / polars:\n{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn try_writer(schema: Schema, props: WriterProperties) -> (parq::Result<()>, usize) {
    let mut out = Vec::new();
    let r = ParquetWriter::try_new(&mut out, Arc::new(schema), props).map(|_| ());
    (r, out.len())
}

#[test]
fn impossible_requests_fail_before_output() {
    let f = |name: &str, dt: DataType| Schema::new(vec![Field::new(name, dt, true)]);
    let cases: Vec<(Schema, WriterProperties, &str)> = vec![
        (
            f(
                "iv",
                DataType::Interval(arrow_schema::IntervalUnit::MonthDayNano),
            ),
            WriterProperties::default(),
            "`iv`",
        ),
        (
            f(
                "l",
                DataType::List(Arc::new(Field::new(
                    "item",
                    DataType::Struct(Vec::<Field>::new().into()),
                    true,
                ))),
            ),
            WriterProperties::default(),
            "`l.item`: a struct without fields",
        ),
        (
            f("x", DataType::Float64),
            WriterProperties::builder()
                .column_encoding("x", Encoding::DeltaBinaryPacked)
                .build()
                .unwrap(),
            "`x`",
        ),
        (
            f("x", DataType::Int32),
            WriterProperties::builder()
                .column_encoding("nope", Encoding::Plain)
                .build()
                .unwrap(),
            "`nope`",
        ),
        (
            f("b", DataType::Boolean),
            WriterProperties::builder()
                .column_bloom_filter("b", Some(BloomFilterProperties::default()))
                .build()
                .unwrap(),
            "`b`",
        ),
        (
            f(
                "d",
                DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(DataType::Interval(arrow_schema::IntervalUnit::MonthDayNano)),
                ),
            ),
            WriterProperties::default(),
            "`d`",
        ),
    ];
    for (schema, props, needle) in cases {
        let (r, written) = try_writer(schema.clone(), props);
        let e = r.expect_err(needle).to_string();
        assert!(e.contains(needle), "{e} should mention {needle}");
        assert_eq!(written, 0, "{e}: nothing may be written");
    }
}

#[test]
fn batches_of_the_wrong_shape_are_refused() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, schema, WriterProperties::default()).unwrap();
    let other = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)])),
        vec![Arc::new(Int64Array::from(vec![1]))],
    )
    .unwrap();
    let e = w.write(&other).unwrap_err().to_string();
    assert!(e.contains("`a`"), "{e}");
}

#[test]
fn bloom_filters_page_indexes_and_footer_reencode() {
    let full = dataset(7, 5000, true);
    let props = WriterProperties::builder()
        .bloom_filter(Some(BloomFilterProperties {
            ndv: 1000,
            fpp: 0.01,
        }))
        .column_bloom_filter("bool", None)
        .column_bloom_filter("dict_u32_bool", None)
        .max_row_group_rows(Some(2000))
        .data_page_rows(Some(300))
        .build()
        .unwrap();
    let mut rng = Rng(1);
    let (bytes, meta) = write_parts(&full, props, &mut rng);
    assert_eq!(meta.row_groups().len(), 3);
    // The footer parq returns is the footer written, and re-encodes to the same bytes.
    let footer = parq::format::footer::metadata_slice(&bytes).unwrap();
    let mut again = Vec::new();
    meta.encode(&mut again).unwrap();
    assert_eq!(again, footer);
    // Every value of an Int64 chunk is in its Bloom filter; the page indexes decode.
    let col = full.schema().index_of("i64").unwrap();
    let values = full.column(col).as_primitive::<Int64Type>();
    let mut off = 0usize;
    for g in meta.row_groups() {
        let c = &g.columns()[col];
        let (o, l) = (
            c.bloom_filter_offset().unwrap() as usize,
            c.bloom_filter_length().unwrap() as usize,
        );
        let (filter, used) = parq::write::Sbbf::read(&bytes[o..o + l]).unwrap();
        assert_eq!(used, l);
        for i in off..off + g.num_rows() as usize {
            if values.is_valid(i) {
                assert!(filter.check_hash(parq::bloom::hash_i64(values.value(i))));
            }
        }
        assert!(c.column_index_offset().is_some() && c.offset_index_offset().is_some());
        off += g.num_rows() as usize;
    }
    let idx = parq::file::read_page_index_from(
        &mut std::io::Cursor::new(&bytes),
        &meta,
        None,
        None,
        bytes.len() as u64,
    );
    assert!(matches!(idx, Ok(Some(_))), "{:?}", idx.err());
}

/// The footer of a fixed small file, pinned: a change of these bytes must be deliberate (the
/// float column's `nan_count` of 1 is in its chunk and page statistics).
#[test]
fn golden_footer() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("score", DataType::Float32, true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some("ccc"),
                Some(""),
            ])),
            Arc::new(Float32Array::from(vec![
                Some(0.5),
                Some(f32::NAN),
                None,
                Some(-0.0),
            ])),
        ],
    )
    .unwrap();
    let props = WriterProperties::builder()
        .created_by("parq golden")
        .compression(Codec::UNCOMPRESSED)
        .build()
        .unwrap();
    let mut bytes = Vec::new();
    let mut w = ParquetWriter::try_new(&mut bytes, batch.schema(), props).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let footer = parq::format::footer::metadata_slice(&bytes).unwrap();
    let hex: String = footer.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, GOLDEN_FOOTER, "footer bytes changed");
    assert_eq!(read_back(bytes), batch);
}

const GOLDEN_FOOTER: &str = concat!(
    "1504194c4806736368656d61150600150425001802696400150c250218046e616d6525004c1c00000015082502180573",
    "636f7265001608191c193c26001c1504193500061019180269641500160816e00116e001266226081c18080400000000",
    "0000001808010000000000000016002808040000000000000018080100000000000000111100192c1504150015020015",
    "0015101502000016c0051516169a04153e0026001c150c19350006101918046e616d6515001608168a01168a0126a202",
    "26e8011c360228036363631800111100192c15041500150200150015101502003c160829260206000016d605151c16d8",
    "04152c0026001c1508193500061019180573636f72651500160816a80116a80126a40326f2021c18040000003f180400",
    "000080160228040000003f1804000000801111160200192c15041500150200150015101502003c39260206000016f205",
    "1516168405153c0016920416082608169204140000191c180c4152524f573a736368656d6118e0022f2f2f2f2f774142",
    "41414151414141414141414b414177414367414a41415141436741414142414141414141415151414341414941414141",
    "42414149414141414241414141414d414141436341414141584141414142514141414151414259414541414f41413841",
    "424141414141674145414141414267414141416341414141414141424178674141414141414159414341414741415941",
    "414141414141454141414141414155414141427a593239795a5141414142414146414151414134414477414541414141",
    "434141514141414147414141414177414141414141414546454141414141414141414145414151414241414141415141",
    "414142755957316c41414141414241414641415141414141447741454141414143414151414141414741414141434141",
    "414141414141414348414141414167414441414541417341434141414145414141414141414141424141414141414941",
    "414142705a41414100180b7061727120676f6c64656e193c1c00001c00001c000000",
);

/// The issue's wide write: 100,000 Float32 columns x 20 row groups x 1,000 rows. Ignored by
/// default (run in release with `--ignored` under `/usr/bin/time -v` for the peak memory).
#[test]
#[ignore]
fn wide_write() {
    let cols = 100_000;
    let fields: Vec<Field> = (0..cols)
        .map(|i| Field::new(format!("c{i}"), DataType::Float32, true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(1000))
        .dictionary(std::env::var_os("PARQ_WIDE_NO_DICT").is_none())
        .build()
        .unwrap();
    let sink = std::io::BufWriter::new(std::fs::File::create("/tmp/parq-wide.parquet").unwrap());
    let mut w = ParquetWriter::try_new(sink, schema.clone(), props).unwrap();
    let mut rng = Rng(9);
    for _ in 0..20 {
        let arrays: Vec<ArrayRef> = (0..cols)
            .map(|_| {
                Arc::new(Float32Array::from_iter_values(
                    (0..1000).map(|_| rng.below(1000) as f32),
                )) as ArrayRef
            })
            .collect();
        w.write(&RecordBatch::try_new(schema.clone(), arrays).unwrap())
            .unwrap();
    }
    let meta = w.close().unwrap();
    assert_eq!(meta.num_rows(), 20_000);
}
