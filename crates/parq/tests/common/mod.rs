//! Helpers shared by the integration tests of `parq` (each test binary includes this module
//! and uses a part of it): the pinned Python test venv and temporary directories (`env.rs`,
//! shared with the other crates' tests), the Arrow
//! IPC files through which tables go to and come back from Python, panics turned into
//! errors, row selections for the `parquet` crate's reader, hand-built encoded bytes, and an
//! HTTP range server with its client ([`http`]).
#![allow(dead_code)]

pub mod http;
pub mod variant;

use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_buffer::NullBuffer;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::{DataType, TimeUnit};
use parq::format::metadata::{Compression, PageHeader, PageType, UnknownFields};
use parq::format::thrift::Writer;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};

mod env;
pub use env::*;

/// The batches of an Arrow IPC file.
pub fn read_ipc(path: &Path) -> Vec<RecordBatch> {
    let f = File::open(path).expect("open ipc");
    let reader = FileReader::try_new(f, None).expect("ipc reader");
    reader.map(|b| b.expect("ipc batch")).collect()
}

/// Writes `batch` as an Arrow IPC file (how the tests hand their input to Python).
pub fn write_ipc(path: &Path, batch: &RecordBatch) {
    let f = File::create(path).expect("create ipc");
    let mut w = FileWriter::try_new(f, &batch.schema()).expect("ipc writer");
    w.write(batch).expect("ipc write");
    w.finish().expect("ipc finish");
}

/// A panic (of parq, or of a peer reader) turned into an error (`PANIC`).
pub fn guarded<T, E: std::fmt::Display>(what: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(what)) {
        Ok(r) => r.map_err(|e| format!("{e}")),
        Err(_) => Err("PANIC".to_string()),
    }
}

/// A random row selection of `rows` rows (runs of 1..10 or 1..300 rows, selected and skipped
/// in turn), and its mask.
pub fn row_selection(seed: u64, rows: usize) -> (RowSelection, BooleanArray) {
    let rng = &mut Rng(seed ^ 0x005e_1ec7);
    let (mut sel, mut mask) = (Vec::new(), Vec::new());
    let mut off = 0;
    let mut take = rng.chance(0.5);
    while off < rows {
        let short = rng.chance(0.5);
        let k = (1 + rng.below(if short { 10 } else { 300 }) as usize).min(rows - off);
        sel.push(if take {
            RowSelector::select(k)
        } else {
            RowSelector::skip(k)
        });
        mask.extend(std::iter::repeat_n(take, k));
        off += k;
        take = !take;
    }
    (RowSelection::from(sel), BooleanArray::from(mask))
}

/// SplitMix64: deterministic random data without a dependency (the write tests' generator).
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n` is 0, after drawing all the same).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo.wrapping_add(self.below(hi.wrapping_sub(lo) as u64 + 1) as i64)
    }
    /// A value in `-m..m`.
    pub fn signed(&mut self, m: i64) -> i64 {
        self.below(2 * m as u64) as i64 - m
    }
    /// Uniform in `0.0..1.0`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// True with probability `p` (a draw below `p`).
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// True with probability `p`, from the top of the unit interval (a draw above `1 - p`):
    /// the sequence `tests/write_roundtrip.rs`'s data is built on.
    pub fn chance_high(&mut self, p: f64) -> bool {
        self.unit() > 1.0 - p
    }
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize].clone()
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Xorshift64: the encoding tests' generator (a different sequence from [`Rng`]'s).
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// The top `w` bits of a draw (0, without drawing, for width 0).
    pub fn bits(&mut self, w: u32) -> u64 {
        if w == 0 {
            0
        } else {
            self.next() >> (64 - w)
        }
    }
}

// The spec's encoding examples, shared by the encoder (`tests/encode.rs`) and decoder
// (`tests/encoding.rs`) tests.

/// DELTA_LENGTH_BYTE_ARRAY "Hello", "World", "Foobar", "ABCDEF": lengths 5, 5, 6, 6 (block
/// 128, 4 miniblocks, min delta 0, widths 1 0 0 0, relative deltas 0 1 0), then the bytes.
pub fn spec_delta_length_byte_array() -> Vec<u8> {
    let mut v = vec![0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0b010, 0, 0, 0];
    v.extend_from_slice(b"HelloWorldFoobarABCDEF");
    v
}

/// DELTA_BYTE_ARRAY "axis", "axle", "babble", "babyhood": prefixes 0 2 0 3 (min delta -2,
/// width 3, relative 4 0 5), suffix lengths 4 2 6 5 (min delta -2, width 3, relative 0 6 1),
/// "axislebabbleyhood".
pub fn spec_delta_byte_array() -> Vec<u8> {
    let mut v = Vec::new();
    for (first, miniblock) in [(0, [0b0100_0100, 0b1]), (8, [0b0111_0000, 0])] {
        v.extend([0x80, 0x01, 4, 4, first, 3, 3, 0, 0, 0]);
        v.extend(miniblock);
        v.extend([0; 4 + 6]);
    }
    v.extend_from_slice(b"axislebabbleyhood");
    v
}

/// Appends `v` as a ULEB128 varint (the RLE run headers, DELTA headers and Thrift integers).
pub fn uleb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends `v` zigzag-encoded as a ULEB128 varint.
pub fn zigzag(v: i64, out: &mut Vec<u8>) {
    uleb(((v << 1) ^ (v >> 63)) as u64, out);
}

/// BYTE_STREAM_SPLIT of the u32s 0xDDCCBBAA, 0x33221100, 0xD6C5B4A3.
pub const SPEC_BYTE_STREAM_SPLIT: [u8; 12] = [
    0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6,
];

/// Every compression codec but UNCOMPRESSED that parq decompresses.
pub const CODECS: [Compression; 6] = [
    Compression::Snappy,
    Compression::Gzip,
    Compression::Lz4,
    Compression::Lz4Raw,
    Compression::Zstd,
    Compression::Brotli,
];

/// The Thrift compact encoding of a page header.
pub fn encode_header(h: &PageHeader) -> Vec<u8> {
    let mut out = Vec::new();
    h.encode(&mut Writer::new(&mut out), &[]);
    out
}

/// A page header of `page_type` and sizes, without a CRC or a type-specific header.
pub fn page_header(page_type: PageType, uncompressed: usize, compressed: usize) -> PageHeader {
    PageHeader {
        page_type,
        uncompressed_page_size: uncompressed as i32,
        compressed_page_size: compressed as i32,
        crc: None,
        data_page_header: None,
        index_page_header: None,
        dictionary_page_header: None,
        data_page_header_v2: None,
        unknown: UnknownFields::default(),
    }
}

/// The Arrow types without parameters up to the byte strings, by the short names the write
/// tests give their columns (in the order of their columns).
pub fn plain_types() -> Vec<(&'static str, DataType)> {
    use DataType as D;
    vec![
        ("bool", D::Boolean),
        ("i8", D::Int8),
        ("i16", D::Int16),
        ("i32", D::Int32),
        ("i64", D::Int64),
        ("u8", D::UInt8),
        ("u16", D::UInt16),
        ("u32", D::UInt32),
        ("u64", D::UInt64),
        ("f16", D::Float16),
        ("f32", D::Float32),
        ("f64", D::Float64),
        ("utf8", D::Utf8),
        ("large_utf8", D::LargeUtf8),
        ("utf8_view", D::Utf8View),
        ("binary", D::Binary),
        ("large_binary", D::LargeBinary),
        ("binary_view", D::BinaryView),
    ]
}

/// The dates, times, timestamps (the millisecond one in Europe/Paris, named `ts_ms_name`) and
/// the duration in seconds, by short name.
pub fn temporal_types(ts_ms_name: &'static str) -> Vec<(&'static str, DataType)> {
    use DataType as D;
    let paris = Some(Arc::from("Europe/Paris"));
    vec![
        ("date32", D::Date32),
        ("date64", D::Date64),
        ("time32s", D::Time32(TimeUnit::Second)),
        ("time32ms", D::Time32(TimeUnit::Millisecond)),
        ("time64us", D::Time64(TimeUnit::Microsecond)),
        ("time64ns", D::Time64(TimeUnit::Nanosecond)),
        ("ts_s", D::Timestamp(TimeUnit::Second, None)),
        (ts_ms_name, D::Timestamp(TimeUnit::Millisecond, paris)),
        (
            "ts_us_utc",
            D::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC"))),
        ),
        ("ts_ns", D::Timestamp(TimeUnit::Nanosecond, None)),
        ("dur_s", D::Duration(TimeUnit::Second)),
    ]
}

/// A dictionary array with keys of type `key` (any integer type) into `values`.
pub fn dictionary_array(
    key: &DataType,
    keys: &[i64],
    nulls: Option<NullBuffer>,
    values: ArrayRef,
) -> ArrayRef {
    use arrow_array::types::*;
    use arrow_array::{DictionaryArray, PrimitiveArray};
    macro_rules! dict {
        ($t:ty, $native:ty) => {{
            let k = PrimitiveArray::<$t>::new(
                keys.iter()
                    .map(|&k| k as $native)
                    .collect::<Vec<_>>()
                    .into(),
                nulls,
            );
            Arc::new(DictionaryArray::<$t>::try_new(k, values).unwrap()) as ArrayRef
        }};
    }
    match key {
        DataType::Int8 => dict!(Int8Type, i8),
        DataType::Int16 => dict!(Int16Type, i16),
        DataType::Int32 => dict!(Int32Type, i32),
        DataType::Int64 => dict!(Int64Type, i64),
        DataType::UInt8 => dict!(UInt8Type, u8),
        DataType::UInt16 => dict!(UInt16Type, u16),
        DataType::UInt32 => dict!(UInt32Type, u32),
        DataType::UInt64 => dict!(UInt64Type, u64),
        other => panic!("not a dictionary key type: {other}"),
    }
}

/// The decimal types by short name (`d128_small` of precision `small_precision`).
pub fn decimal_types(small_precision: u8) -> Vec<(&'static str, DataType)> {
    use DataType as D;
    vec![
        ("d32", D::Decimal32(9, 2)),
        ("d64", D::Decimal64(18, 3)),
        ("d128", D::Decimal128(38, 4)),
        ("d128_small", D::Decimal128(small_precision, 1)),
        ("d256", D::Decimal256(76, 5)),
    ]
}

const EXTENSION: &str = "ARROW:extension:name";

/// Compares parq's batch with the expected one (one batch, or none for an empty table);
/// returns one line per difference: column, and what differs (first differing row).
pub fn differences(got: &RecordBatch, expected: &[RecordBatch]) -> Vec<String> {
    let rows: usize = expected.iter().map(|b| b.num_rows()).sum();
    if got.num_rows() != rows {
        return vec![format!("{} rows, expected {rows}", got.num_rows())];
    }
    if rows == 0 {
        return Vec::new();
    }
    if expected.len() != 1 {
        return vec!["the IPC file should hold one batch".into()];
    }
    let want = &expected[0];
    if got.num_columns() != want.num_columns() {
        return vec![format!(
            "{} columns, expected {}",
            got.num_columns(),
            want.num_columns()
        )];
    }
    let mut out = Vec::new();
    let got_schema = got.schema();
    for (i, field) in want.schema().fields().iter().enumerate() {
        let gf = got_schema.field(i);
        let col = field.name();
        if gf.name() != col {
            out.push(format!(
                "column {i}: named `{}`, expected `{col}`",
                gf.name()
            ));
            continue;
        }
        let (g, w) = (got.column(i), want.column(i));
        if without_variant_tags(g.data_type()) != *w.data_type() {
            out.push(format!(
                "column `{col}`: type {}, expected {}",
                g.data_type(),
                w.data_type()
            ));
            continue;
        }
        if gf.is_nullable() != field.is_nullable() {
            out.push(format!(
                "column `{col}`: nullable {}, expected {}",
                gf.is_nullable(),
                field.is_nullable()
            ));
        }
        let (ge, we) = (
            gf.metadata().get(EXTENSION),
            field.metadata().get(EXTENSION),
        );
        // GEOMETRY / GEOGRAPHY read as `geoarrow.wkb` (as arrow-rs reads them), the plain
        // binary of pyarrow, which registers no GeoArrow type.
        let geoarrow = ge.is_some_and(|e| e == "geoarrow.wkb") && we.is_none();
        // Variant columns carry `arrow.parquet.variant` (as arrow-rs reads them), the plain
        // struct of pyarrow, which registers no Variant type.
        let variant = ge.is_some_and(|e| e == "arrow.parquet.variant") && we.is_none();
        if ge != we && !geoarrow && !variant {
            out.push(format!("column `{col}`: extension {ge:?}, expected {we:?}"));
        }
        let retyped;
        let g = match g.data_type() == w.data_type() {
            true => g,
            false => {
                retyped = arrow_cast::cast(g, w.data_type()).expect("the same layout");
                &retyped
            }
        };
        if g.to_data() != w.to_data() {
            let first = (0..g.len())
                .find(|&r| g.slice(r, 1).to_data() != w.slice(r, 1).to_data())
                .unwrap_or(0);
            out.push(format!(
                "column `{col}`: values differ, first at row {first}: parq {:?} expected {:?}",
                g.slice(first, 1),
                w.slice(first, 1)
            ));
        }
    }
    out
}

/// `ty` without the `arrow.parquet.variant` extension tags of its nested fields (parq tags
/// Variant groups at any depth; pyarrow registers no Variant type).
fn without_variant_tags(ty: &DataType) -> DataType {
    use arrow_schema::{Field, FieldRef};
    let field = |f: &FieldRef| -> FieldRef {
        let mut meta = f.metadata().clone();
        if meta
            .get(EXTENSION)
            .is_some_and(|e| e == "arrow.parquet.variant")
        {
            meta.remove(EXTENSION);
            meta.remove("ARROW:extension:metadata");
        }
        Arc::new(
            Field::new(
                f.name(),
                without_variant_tags(f.data_type()),
                f.is_nullable(),
            )
            .with_metadata(meta),
        )
    };
    match ty {
        DataType::Struct(fs) => DataType::Struct(fs.iter().map(field).collect()),
        DataType::List(f) => DataType::List(field(f)),
        DataType::LargeList(f) => DataType::LargeList(field(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(field(f), *n),
        DataType::Map(f, sorted) => DataType::Map(field(f), *sorted),
        other => other.clone(),
    }
}

/// The table of parq's files that parquet-java reads with `ReadDump` / `ReadEncrypted`
/// (`tests/writers/java`): 1,000 rows of `id` int64, `x` nullable double, `s` nullable string.
#[allow(dead_code)]
pub fn java_table() -> RecordBatch {
    let mut rng = Rng(29);
    let n = 1000;
    let id: arrow_array::Int64Array = (0..n).map(|i| i * 7 - 300).collect();
    let x: arrow_array::Float64Array = (0..n)
        .map(|_| (!rng.chance(0.1)).then(|| rng.signed(1_000_000) as f64 / 64.0))
        .collect();
    let words = ["", "a", "parquet", "été", "漢字", "a longer value"];
    let s: arrow_array::StringArray = (0..n)
        .map(|_| (!rng.chance(0.1)).then(|| rng.pick(&words)))
        .collect();
    let schema = arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", DataType::Int64, false),
        arrow_schema::Field::new("x", DataType::Float64, true),
        arrow_schema::Field::new("s", DataType::Utf8, true),
    ]);
    let columns: Vec<ArrayRef> = vec![Arc::new(id), Arc::new(x), Arc::new(s)];
    RecordBatch::try_new(Arc::new(schema), columns).expect("table")
}

/// The table as parquet-java's `ReadDump` prints it.
#[allow(dead_code)]
pub fn java_dump(batch: &RecordBatch) -> String {
    let id = batch
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::Int64Array>()
        .unwrap();
    let x = batch
        .column(1)
        .as_any()
        .downcast_ref::<arrow_array::Float64Array>()
        .unwrap();
    let s = batch
        .column(2)
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    let mut out = format!("rows\t{}\trow_groups\t5\n", batch.num_rows());
    for i in 0..batch.num_rows() {
        let x = if x.is_null(i) {
            "\\N".to_string()
        } else {
            format!("{:x}", x.value(i).to_bits())
        };
        let s = if s.is_null(i) { "\\N" } else { s.value(i) };
        out.push_str(&format!("{}\t{x}\t{s}\n", id.value(i)));
    }
    out
}

/// The `i` values of the rows parq's filter `sql` keeps of `file` (each batch's row count
/// where the file has no `i` column), and the row groups its statistics skipped.
pub fn filtered_rows(file: &Path, sql: &str) -> (Vec<i64>, usize) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    let reader = parq::read::ParquetReader::open(file)
        .unwrap()
        .with_filter(parq::read::parse_filter(sql).unwrap());
    let mut batches = reader.batches().unwrap();
    let mut rows = Vec::new();
    for b in &mut batches {
        let b = b.unwrap_or_else(|e| panic!("{sql}: {e}"));
        match b.column_by_name("i") {
            Some(i) => rows.extend(i.as_primitive::<Int64Type>().values().iter().copied()),
            None => rows.push(b.num_rows() as i64),
        }
    }
    (rows, batches.stats().row_groups_skipped)
}

/// Lines of comma-separated integers (a Python script's output), a vector per line.
pub fn int_lines(out: &str) -> Vec<Vec<i64>> {
    out.lines()
        .map(|l| {
            l.split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect()
        })
        .collect()
}
