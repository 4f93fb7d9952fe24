//! ALP interop with the `parquet` crate 60.1, both ways: files it writes with ALP pages
//! (float32 and float64; prices, sensor readings, random bits, NaN / infinities / -0.0,
//! exceptions, all exceptions, nulls, many pages and vectors) read by parq equal, bit for bit,
//! to its own read; and the files parq writes with ALP read by it equal to parq's input.

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::format::metadata::Encoding;
use parq::read::ParquetReader;
use parq::write::file::ParquetWriter;
use parq::write::properties::{parse_encoding_arg, WriterProperties as ParqProps};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Encoding as PEncoding;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

/// A column's values as raw bits (f32 widened), `None` for nulls.
type Bits = Vec<Option<u64>>;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The float64 shapes, `n` values each.
pub fn shapes_f64(n: usize) -> Vec<(&'static str, Vec<Option<f64>>)> {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let prices = (0..n)
        .map(|_| Some((r.unit() * 100_000.0).round() / 100.0))
        .collect();
    let mut level = 20.0f64;
    let sensor = (0..n)
        .map(|_| {
            level += (r.unit() - 0.5) * 0.2;
            Some((level * 1000.0).round() / 1000.0)
        })
        .collect();
    let random = (0..n).map(|_| Some(r.unit() * 1e6 - 5e5)).collect();
    let bits = (0..n).map(|_| Some(f64::from_bits(r.next()))).collect();
    let specials = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        1e300,
        5e-324,
    ];
    let special = (0..n)
        .map(|i| {
            Some(if i % 3 == 0 {
                specials[i / 3 % specials.len()]
            } else {
                (i % 1000) as f64 / 4.0
            })
        })
        .collect();
    // Mostly two decimals, one value in 20 with full precision: exceptions in every vector.
    let mixed = (0..n)
        .map(|i| {
            Some(if i % 20 == 7 {
                r.unit()
            } else {
                (r.unit() * 10_000.0).round() / 100.0
            })
        })
        .collect();
    let nulls = (0..n)
        .map(|i| (i % 7 != 2).then(|| (r.unit() * 1000.0).round() / 10.0))
        .collect();
    let constant = (0..n).map(|_| Some(3.25)).collect();
    let all_null = (0..n.min(100)).map(|_| None).collect();
    vec![
        ("prices", prices),
        ("sensor", sensor),
        ("random", random),
        ("bits", bits),
        ("special", special),
        ("mixed", mixed),
        ("nulls", nulls),
        ("constant", constant),
        ("all_null", all_null),
    ]
}

/// The float32 shapes.
pub fn shapes_f32(n: usize) -> Vec<(&'static str, Vec<Option<f32>>)> {
    let mut r = Rng(0x1234_5678_9ABC_DEF1);
    let prices = (0..n)
        .map(|_| Some(((r.unit() * 100_000.0).round() / 100.0) as f32))
        .collect();
    let bits = (0..n)
        .map(|_| Some(f32::from_bits(r.next() as u32)))
        .collect();
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        3e38,
        1e-45,
    ];
    let special = (0..n)
        .map(|i| {
            Some(if i % 3 == 0 {
                specials[i / 3 % specials.len()]
            } else {
                (i % 1000) as f32 / 8.0
            })
        })
        .collect();
    let nulls = (0..n)
        .map(|i| (i % 5 != 1).then(|| ((r.unit() * 1000.0).round() / 10.0) as f32))
        .collect();
    vec![
        ("prices", prices),
        ("bits", bits),
        ("special", special),
        ("nulls", nulls),
    ]
}

/// A batch of the shapes, float64 columns `d_*` and float32 columns `f_*`.
pub fn batch(n: usize) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (name, v) in shapes_f64(n) {
        let v: Vec<Option<f64>> = v
            .into_iter()
            .chain(std::iter::repeat(None))
            .take(n)
            .collect();
        fields.push(Field::new(format!("d_{name}"), DataType::Float64, true));
        columns.push(Arc::new(Float64Array::from(v)));
    }
    for (name, v) in shapes_f32(n) {
        fields.push(Field::new(format!("f_{name}"), DataType::Float32, true));
        columns.push(Arc::new(Float32Array::from(v)));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch")
}

fn bits_of(a: &dyn Array) -> Bits {
    match a.data_type() {
        DataType::Float64 => a
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| v.map(f64::to_bits))
            .collect(),
        DataType::Float32 => a
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| v.map(|v| u64::from(v.to_bits())))
            .collect(),
        other => panic!("unexpected type {other}"),
    }
}

fn columns_of(batches: &[RecordBatch], width: usize) -> Vec<Bits> {
    (0..width)
        .map(|c| {
            batches
                .iter()
                .flat_map(|b| bits_of(b.column(c).as_ref()))
                .collect()
        })
        .collect()
}

/// The `parquet` crate 60.1's read of every column.
pub fn peer_read(bytes: &Bytes) -> Vec<Bits> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .expect("parquet 60.1 open")
        .build()
        .expect("parquet 60.1 reader");
    let width = reader.schema().fields().len();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().expect("parquet 60.1 read");
    columns_of(&batches, width)
}

/// parq's read of every column.
pub fn parq_read(bytes: &Bytes, batch_size: usize) -> Vec<Bits> {
    let batches = ParquetReader::from_bytes(bytes.clone())
        .expect("parq open")
        .with_batch_size(batch_size)
        .read_all()
        .expect("parq read");
    let width = batches.first().map_or(0, |b| b.num_columns());
    columns_of(&batches, width)
}

/// The column input as bits.
fn input_bits(b: &RecordBatch) -> Vec<Bits> {
    columns_of(std::slice::from_ref(b), b.num_columns())
}

fn peer_write(batch: &RecordBatch, props: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

/// How many column chunks list ALP among their encodings.
fn alp_chunks(bytes: &Bytes) -> usize {
    let r = SerializedFileReader::new(bytes.clone()).expect("parquet 60.1 open");
    r.metadata()
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .filter(|c| c.encodings().any(|e| e == PEncoding::ALP))
        .count()
}

#[test]
fn parq_reads_alp_written_by_parquet_60_1() {
    for (rows, page_rows, rg_rows) in [
        (5_000, 1_500, 3_000),
        (20, 20, 20),
        (70_000, 40_000, 70_000),
    ] {
        let b = batch(rows);
        let props = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_encoding(PEncoding::ALP)
            .set_data_page_row_count_limit(page_rows)
            .set_write_batch_size(page_rows.min(1024))
            .set_max_row_group_row_count(Some(rg_rows))
            .build();
        let bytes = peer_write(&b, props);
        assert!(alp_chunks(&bytes) > 0, "no ALP chunk written");
        let want = input_bits(&b);
        assert_eq!(peer_read(&bytes), want, "parquet 60.1 round trip");
        for batch_size in [1_000, 8_192] {
            let got = parq_read(&bytes, batch_size);
            for (c, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    g == w,
                    "column {} ({rows} rows)",
                    b.schema().field(c).name()
                );
            }
        }
    }
}

#[test]
fn dictionary_fallback_to_alp_reads() {
    let b = batch(30_000);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(true)
        .set_dictionary_page_size_limit(4_000)
        .set_encoding(PEncoding::ALP)
        .set_data_page_row_count_limit(2_000)
        .build();
    let bytes = peer_write(&b, props);
    assert_eq!(parq_read(&bytes, 4_096), input_bits(&b));
}

fn parq_write(batch: &RecordBatch, props: ParqProps) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

#[test]
fn parquet_60_1_reads_alp_written_by_parq() {
    for (rows, page_rows, rg_rows) in [
        (5_000, 1_500, 3_000),
        (20, 20, 20),
        (70_000, 40_000, 70_000),
    ] {
        let b = batch(rows);
        let mut props = ParqProps::builder()
            .data_page_rows(Some(page_rows))
            .max_row_group_rows(Some(rg_rows));
        for f in b.schema().fields() {
            props = props.column_encoding(f.name(), Encoding::Alp);
        }
        let bytes = parq_write(&b, props.build().expect("props"));
        let n = b.num_columns();
        assert_eq!(alp_chunks(&bytes), n * rows.div_ceil(rg_rows));
        let want = input_bits(&b);
        assert_eq!(peer_read(&bytes), want, "parquet 60.1 read ({rows} rows)");
        assert_eq!(parq_read(&bytes, 4_096), want, "parq read ({rows} rows)");
    }
}

#[test]
fn alp_is_opt_in_for_float_columns_only() {
    assert_eq!(
        parse_encoding_arg("price=alp").expect("parse"),
        (Some("price".to_string()), Encoding::Alp)
    );
    let schema = Arc::new(Schema::new(vec![Field::new("i", DataType::Int64, false)]));
    let b = RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![1i64, 2]))])
        .expect("batch");
    let props = ParqProps::builder()
        .column_encoding("i", Encoding::Alp)
        .build();
    let refused = props.and_then(|p| {
        let mut out = Vec::new();
        ParquetWriter::try_new(&mut out, b.schema(), p).map(|_| ())
    });
    assert!(refused.is_err());
    // Without the opt-in, float columns are not ALP.
    let bytes = parq_write(&batch(2_000), ParqProps::default());
    assert_eq!(alp_chunks(&bytes), 0);
}

/// parq's ALP chunks are within 1% of parquet 60.1's for the same values and pages, plus up to
/// 64 bytes a page for the page headers (their statistics differ between the writers).
#[test]
fn alp_sizes_match_parquet_60_1() {
    let b = batch(50_000);
    let mut props = ParqProps::builder().data_page_rows(Some(20_000));
    for f in b.schema().fields() {
        props = props.column_encoding(f.name(), Encoding::Alp);
    }
    let ours = parq_write(&b, props.build().expect("props"));
    let theirs = peer_write(
        &b,
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_encoding(PEncoding::ALP)
            .set_compression(parquet::basic::Compression::UNCOMPRESSED)
            .set_data_page_row_count_limit(20_000)
            .set_write_batch_size(1024)
            .build(),
    );
    let sizes = |bytes: &Bytes| -> Vec<i64> {
        let r = SerializedFileReader::new(bytes.clone()).expect("open");
        let rg = r.metadata().row_group(0).clone();
        rg.columns().iter().map(|c| c.uncompressed_size()).collect()
    };
    let (a, z) = (sizes(&ours), sizes(&theirs));
    for (c, (a, z)) in a.iter().zip(&z).enumerate() {
        let name = b.schema().field(c).name().clone();
        assert!(
            (*a as f64 - *z as f64).abs() <= *z as f64 * 0.01 + 3.0 * 64.0,
            "{name}: parq {a} bytes, parquet 60.1 {z}"
        );
    }
}

/// pyarrow 26 either reads parq's ALP file equal to parquet 60.1's read or refuses it with a
/// Python exception (it does not crash); the outcome is printed.
#[test]
fn pyarrow_reads_or_refuses_alp() {
    let Some(py) = common::python_if_present() else {
        return;
    };
    let b = batch(3_000);
    let mut props = ParqProps::builder();
    for f in b.schema().fields() {
        props = props.column_encoding(f.name(), Encoding::Alp);
    }
    let bytes = parq_write(&b, props.build().expect("props"));
    let dir = common::tmp_dir("alp");
    let path = dir.join("alp.parquet");
    std::fs::write(&path, &bytes).expect("write file");
    let script = r#"
import sys, struct
import pyarrow as pa, pyarrow.parquet as pq
try:
    t = pq.read_table(sys.argv[1])
except Exception as e:
    print("refused:", type(e).__name__, str(e).splitlines()[0])
    sys.exit(0)
out = []
for c in t.columns:
    w = 8 if c.type == pa.float64() else 4
    fmt = "<d" if w == 8 else "<f"
    bits = []
    for v in c.to_pylist():
        bits.append("-" if v is None else struct.pack(fmt, v).hex())
    out.append(",".join(bits))
print("read")
for line in out:
    print(line)
"#;
    let out = common::run_python_at(&py, script, &[path.as_os_str()]);
    eprintln!(
        "pyarrow on parq's ALP file: {}",
        out.lines().next().unwrap_or("")
    );
    let mut lines = out.lines();
    match lines.next() {
        Some("read") => {
            let want = input_bits(&b);
            for (c, line) in lines.enumerate() {
                let w = if b.schema().field(c).data_type() == &DataType::Float64 {
                    8
                } else {
                    4
                };
                let got: Bits = line
                    .split(',')
                    .map(|h| {
                        (h != "-").then(|| {
                            let mut a = [0u8; 8];
                            for (k, byte) in a.iter_mut().take(w).enumerate() {
                                *byte = u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap();
                            }
                            u64::from_le_bytes(a)
                        })
                    })
                    .collect();
                assert_eq!(got, want[c], "pyarrow column {c}");
            }
        }
        other => assert!(
            other.is_some_and(|l| l.starts_with("refused:")),
            "pyarrow: {out}"
        ),
    }
    let _ = std::fs::remove_dir_all(dir);
}
