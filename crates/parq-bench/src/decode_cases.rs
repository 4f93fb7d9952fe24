//! The cases of `parq-bench decode`: one column (or, for the table case, two) per case, its
//! values generated with a fixed seed and written once, in memory, by `parquet` 60.1.0's
//! `ArrowWriter` with an explicit encoding, codec and data page v1.
//!
//! The data of a case depends only on its type, encoding, nullability and size (not on the
//! codec), so the same values are measured uncompressed, with snappy and with zstd. The ALP
//! cases ([`alp_cases`]: prices, sensor readings, the scan table's `value`) hold the same
//! values for ALP, BYTE_STREAM_SPLIT and PLAIN too, so their sizes and times compare.
//!
//! `parq-bench encode` writes the same cases: [`case_batch`] is the input, [`props_60`] the
//! settings `parquet` 60.1.0 writes them with, [`check_encodings`] checks every writer's
//! output.

use std::sync::Arc;

use anyhow::{ensure, Context, Result};
use arrow_60::array::{
    ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, Float32Array, Float64Array,
    Int32Array, Int64Array, StringArray,
};
use arrow_60::RecordBatch;
use arrow_schema_60::{DataType, Field, Schema};
use bytes::Bytes;
use parquet_60::arrow::ArrowWriter;
use parquet_60::basic::{Compression, Encoding, ZstdLevel};
use parquet_60::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};
use parquet_60::schema::types::ColumnPath;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::nested_cases::Shape;

/// Share of nulls in the nullable variants.
pub const NULL_SHARE: f64 = 0.1;
/// The ZSTD level every writer uses: 1, the default of `parquet` 60.1.0, pyarrow and parq.
pub const ZSTD_LEVEL: i32 = 1;
/// Rows per row group when a case does not set them: the writers' default (1 Mi rows).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;

/// The physical (and Arrow) type of a generated column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int32,
    Int64,
    Float,
    Double,
    Boolean,
    /// FIXED_LEN_BYTE_ARRAY(16), Arrow FixedSizeBinary(16).
    Flba16,
    /// BYTE_ARRAY annotated STRING, Arrow Utf8.
    String,
    /// BYTE_ARRAY, Arrow Binary: the seed-001 blobs.
    Blob,
    /// A list, struct or map ([`crate::nested_cases`]).
    Nested(Shape),
    /// DOUBLE prices with two decimals (0.01 to 10,000.00), uniform.
    Prices,
    /// DOUBLE sensor readings with three decimals: a smooth random walk around 20.
    Sensor,
    /// DOUBLE uniform in [0, 1000), as the `value` column of the scan table.
    ScanValue,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int32 => "int32",
            Kind::Int64 => "int64",
            Kind::Float => "float",
            Kind::Double => "double",
            Kind::Boolean => "boolean",
            Kind::Flba16 => "flba16",
            Kind::String => "string",
            Kind::Blob => "binary",
            Kind::Nested(shape) => shape.name(),
            Kind::Prices => "prices",
            Kind::Sensor => "sensor",
            Kind::ScanValue => "scan-value",
        }
    }

    /// A number that tells the kinds apart (for seeds).
    fn code(self) -> u64 {
        match self {
            Kind::Int32 => 0,
            Kind::Int64 => 1,
            Kind::Float => 2,
            Kind::Double => 3,
            Kind::Boolean => 4,
            Kind::Flba16 => 5,
            Kind::String => 6,
            Kind::Blob => 7,
            Kind::Nested(shape) => 8 + shape as u64,
            Kind::Prices => 32,
            Kind::Sensor => 33,
            Kind::ScanValue => 34,
        }
    }

    fn data_type(self, nullable: bool) -> DataType {
        match self {
            Kind::Int32 => DataType::Int32,
            Kind::Int64 => DataType::Int64,
            Kind::Float => DataType::Float32,
            Kind::Double | Kind::Prices | Kind::Sensor | Kind::ScanValue => DataType::Float64,
            Kind::Boolean => DataType::Boolean,
            Kind::Flba16 => DataType::FixedSizeBinary(16),
            Kind::String => DataType::Utf8,
            Kind::Blob => DataType::Binary,
            Kind::Nested(shape) => shape.data_type(nullable),
        }
    }
}

/// How a column is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    Plain,
    /// Dictionary on (RLE_DICTIONARY data pages, PLAIN dictionary page), 1,000 distinct values.
    Dictionary,
    /// RLE booleans.
    Rle,
    DeltaBinaryPacked,
    DeltaLengthByteArray,
    DeltaByteArray,
    ByteStreamSplit,
    /// ALP (FLOAT and DOUBLE).
    Alp,
    /// The writer's defaults (dictionary on, PLAIN fallback when the dictionary grows past
    /// 1 MiB): the table case.
    Default,
}

impl Enc {
    pub fn name(self) -> &'static str {
        match self {
            Enc::Plain => "PLAIN",
            Enc::Dictionary => "DICT",
            Enc::Rle => "RLE",
            Enc::DeltaBinaryPacked => "DELTA_BINARY_PACKED",
            Enc::DeltaLengthByteArray => "DELTA_LENGTH_BYTE_ARRAY",
            Enc::DeltaByteArray => "DELTA_BYTE_ARRAY",
            Enc::ByteStreamSplit => "BYTE_STREAM_SPLIT",
            Enc::Alp => "ALP",
            Enc::Default => "default",
        }
    }

    /// The encoding set on the column, when it is not the dictionary.
    pub fn explicit(self) -> Option<Encoding> {
        match self {
            Enc::Plain => Some(Encoding::PLAIN),
            Enc::Rle => Some(Encoding::RLE),
            Enc::DeltaBinaryPacked => Some(Encoding::DELTA_BINARY_PACKED),
            Enc::DeltaLengthByteArray => Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
            Enc::DeltaByteArray => Some(Encoding::DELTA_BYTE_ARRAY),
            Enc::ByteStreamSplit => Some(Encoding::BYTE_STREAM_SPLIT),
            Enc::Alp => Some(Encoding::ALP),
            Enc::Dictionary | Enc::Default => None,
        }
    }

    /// The parquet.thrift name of [`Enc::explicit`] (as parq and pyarrow take it).
    pub fn explicit_name(self) -> Option<&'static str> {
        self.explicit().map(|_| self.name())
    }
}

/// A page codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    Uncompressed,
    Snappy,
    Zstd,
}

impl Codec {
    pub const ALL: [Codec; 3] = [Codec::Uncompressed, Codec::Snappy, Codec::Zstd];

    pub fn name(self) -> &'static str {
        match self {
            Codec::Uncompressed => "uncompressed",
            Codec::Snappy => "snappy",
            Codec::Zstd => "zstd",
        }
    }

    pub fn compression(self) -> Result<Compression> {
        Ok(match self {
            Codec::Uncompressed => Compression::UNCOMPRESSED,
            Codec::Snappy => Compression::SNAPPY,
            Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?),
        })
    }

    /// The level written with, for the codecs that have one.
    pub fn level(self) -> Option<i32> {
        (self == Codec::Zstd).then_some(ZSTD_LEVEL)
    }
}

/// One generated column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnSpec {
    pub name: &'static str,
    pub kind: Kind,
    pub enc: Enc,
}

/// One decode case: what to generate and how to write it.
#[derive(Clone, Debug)]
pub struct CaseSpec {
    /// e.g. "int32 PLAIN required uncompressed".
    pub name: String,
    /// The type column of the JSON output, e.g. "int32" or "int64+string".
    pub ty: String,
    pub columns: Vec<ColumnSpec>,
    pub nullable: bool,
    pub codec: Codec,
    pub rows: usize,
    /// Rows per row group (the writer's default, 1 Mi rows, unless set).
    pub row_group_rows: Option<usize>,
}

impl CaseSpec {
    fn single(kind: Kind, enc: Enc, nullable: bool, codec: Codec, rows: usize) -> CaseSpec {
        CaseSpec {
            name: format!(
                "{} {} {} {}",
                kind.name(),
                enc.name(),
                if nullable { "10%null" } else { "required" },
                codec.name()
            ),
            ty: kind.name().to_string(),
            columns: vec![ColumnSpec {
                name: "v",
                kind,
                enc,
            }],
            nullable,
            codec,
            rows,
            row_group_rows: None,
        }
    }

    /// Values decoded per call (rows x columns, nulls included).
    pub fn values(&self) -> usize {
        self.rows * self.columns.len()
    }

    /// The encodings of the columns, e.g. "DELTA_BINARY_PACKED" or "default+default".
    pub fn encodings(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.enc.name()).collect();
        names.join("+")
    }

    /// True if a column is ALP-encoded (which pyarrow 26 neither reads nor writes).
    pub fn has_alp(&self) -> bool {
        self.columns.iter().any(|c| c.enc == Enc::Alp)
    }

    /// Rows per row group as written: the case's, else [`DEFAULT_ROW_GROUP_ROWS`].
    pub fn rows_per_row_group(&self) -> usize {
        self.row_group_rows.unwrap_or(DEFAULT_ROW_GROUP_ROWS)
    }

    /// The row groups every writer produces for the case.
    pub fn row_groups(&self) -> usize {
        self.rows.div_ceil(self.rows_per_row_group().max(1))
    }
}

/// The (type, encoding) pairs of the matrix, in display order.
pub const MATRIX: [(Kind, Enc); 16] = [
    (Kind::Int32, Enc::Plain),
    (Kind::Int64, Enc::Plain),
    (Kind::Float, Enc::Plain),
    (Kind::Double, Enc::Plain),
    (Kind::Boolean, Enc::Plain),
    (Kind::Flba16, Enc::Plain),
    (Kind::Int32, Enc::Dictionary),
    (Kind::Int64, Enc::Dictionary),
    (Kind::String, Enc::Dictionary),
    (Kind::Boolean, Enc::Rle),
    (Kind::Int32, Enc::DeltaBinaryPacked),
    (Kind::Int64, Enc::DeltaBinaryPacked),
    (Kind::String, Enc::DeltaLengthByteArray),
    (Kind::String, Enc::DeltaByteArray),
    (Kind::Float, Enc::ByteStreamSplit),
    (Kind::Double, Enc::ByteStreamSplit),
];

/// The float64 data of the ALP cases, each written with ALP (uncompressed and zstd),
/// BYTE_STREAM_SPLIT + zstd and PLAIN + zstd: the same values for every encoding.
pub const ALP_KINDS: [Kind; 3] = [Kind::Prices, Kind::Sensor, Kind::ScanValue];

/// The ALP cases of the selected codecs: per kind of [`ALP_KINDS`] and nullability, ALP
/// uncompressed, then ALP, BYTE_STREAM_SPLIT and PLAIN with zstd.
pub fn alp_cases(values: usize, codecs: &[Codec], nullability: &[bool]) -> Vec<CaseSpec> {
    let mut cases = Vec::new();
    for kind in ALP_KINDS {
        for &nullable in nullability {
            for (enc, codec) in [
                (Enc::Alp, Codec::Uncompressed),
                (Enc::Alp, Codec::Zstd),
                (Enc::ByteStreamSplit, Codec::Zstd),
                (Enc::Plain, Codec::Zstd),
            ] {
                if codecs.contains(&codec) {
                    cases.push(CaseSpec::single(kind, enc, nullable, codec, values));
                }
            }
        }
    }
    cases
}

/// The seed-001 case: 2 row groups x 484 rows of 5-50 KB binary blobs, zstd.
pub const SEED_001_ROWS_PER_GROUP: usize = 484;

/// Every case: the matrix (for each codec, required then nullable), then seed-001 (when its
/// codec, zstd, is selected, or always with `seed_always`), then the int64 + string table of
/// `table_rows` rows for each codec.
pub fn all_cases(
    values: usize,
    table_rows: usize,
    codecs: &[Codec],
    nullability: &[bool],
    seed_always: bool,
) -> Vec<CaseSpec> {
    let mut cases = Vec::new();
    for &codec in codecs {
        for &(kind, enc) in &MATRIX {
            for &nullable in nullability {
                cases.push(CaseSpec::single(kind, enc, nullable, codec, values));
            }
        }
    }
    if seed_always || codecs.contains(&Codec::Zstd) {
        cases.push(CaseSpec {
            name: "seed-001 blobs 5-50KB 2x484 zstd".into(),
            ty: "binary".into(),
            columns: vec![ColumnSpec {
                name: "blob",
                kind: Kind::Blob,
                enc: Enc::Plain,
            }],
            nullable: false,
            codec: Codec::Zstd,
            rows: 2 * SEED_001_ROWS_PER_GROUP,
            row_group_rows: Some(SEED_001_ROWS_PER_GROUP),
        });
    }
    for &codec in codecs {
        cases.push(CaseSpec {
            name: format!("table int64+string {table_rows} rows {}", codec.name()),
            ty: "int64+string".into(),
            columns: vec![
                ColumnSpec {
                    name: "id",
                    kind: Kind::Int64,
                    enc: Enc::Default,
                },
                ColumnSpec {
                    name: "name",
                    kind: Kind::String,
                    enc: Enc::Default,
                },
            ],
            nullable: false,
            codec,
            rows: table_rows,
            row_group_rows: None,
        });
    }
    cases
}

/// The nested cases: every [`Shape`] without nulls and with nulls (when `nullability`
/// holds them), `rows` rows each, for each codec.
pub fn nested_cases(rows: usize, codecs: &[Codec], nullability: &[bool]) -> Vec<CaseSpec> {
    let mut cases = Vec::new();
    for &codec in codecs {
        for shape in Shape::ALL {
            for &nullable in nullability {
                let mut case =
                    CaseSpec::single(Kind::Nested(shape), Enc::Default, nullable, codec, rows);
                case.name = format!(
                    "nested {} {} {}",
                    shape.name(),
                    if nullable { "10%null" } else { "required" },
                    codec.name()
                );
                cases.push(case);
            }
        }
    }
    cases
}

/// A written case: the file bytes and the batch that was written.
pub struct Written {
    pub bytes: Bytes,
    pub batch: RecordBatch,
    pub row_groups: usize,
    pub null_count: usize,
}

/// The case's values: one Arrow batch of all its rows (the same whatever the codec).
pub fn case_batch(spec: &CaseSpec) -> Result<RecordBatch> {
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for (i, col) in spec.columns.iter().enumerate() {
        let seed = seed_of(col, spec.nullable, spec.rows) ^ ((i as u64) << 56);
        let array = generate(col, spec.nullable, spec.rows, seed);
        fields.push(Field::new(
            col.name,
            col.kind.data_type(spec.nullable),
            spec.nullable,
        ));
        arrays.push(array);
    }
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
}

/// The `parquet` 60.1.0 properties of a case: data page v1, its codec, its row group size
/// when it sets one, and per column the dictionary (DICT) or the explicit encoding with the
/// dictionary off; the writer's defaults for the rest.
pub fn props_60(spec: &CaseSpec) -> Result<WriterPropertiesBuilder> {
    let mut props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(spec.codec.compression()?);
    if let Some(rows) = spec.row_group_rows {
        props = props.set_max_row_group_row_count(Some(rows));
    }
    for col in &spec.columns {
        let path = ColumnPath::from(col.name);
        match col.enc {
            Enc::Default => {}
            Enc::Dictionary => props = props.set_column_dictionary_enabled(path, true),
            other => {
                let encoding = other.explicit().context("an explicit encoding")?;
                props = props
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, encoding);
            }
        }
    }
    Ok(props)
}

/// Generates the case's values and writes them with `parquet` 60.1.0.
pub fn write_case(spec: &CaseSpec) -> Result<Written> {
    let batch = case_batch(spec)?;
    let null_count = batch.columns().iter().map(|a| a.null_count()).sum();
    let mut buf = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props_60(spec)?.build()))?;
    writer.write(&batch)?;
    let meta = writer.close()?;
    let row_groups = meta.num_row_groups();
    let bytes = Bytes::from(buf);
    check_encodings(spec, &bytes)?;
    Ok(Written {
        bytes,
        batch,
        row_groups,
        null_count,
    })
}

/// Checks that a file of the case (whoever wrote it) uses the requested encodings (and, for
/// the dictionary cases, did not fall back to PLAIN); returns its number of row groups.
pub fn check_encodings(spec: &CaseSpec, bytes: &Bytes) -> Result<usize> {
    use parquet_60::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(bytes.clone())?;
    let nested = spec
        .columns
        .iter()
        .any(|c| matches!(c.kind, Kind::Nested(_)));
    ensure!(
        nested
            || reader
                .metadata()
                .file_metadata()
                .schema_descr()
                .num_columns()
                == spec.columns.len(),
        "{}: the file has {} columns, the case {}",
        spec.name,
        reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .num_columns(),
        spec.columns.len()
    );
    for rg in reader.metadata().row_groups() {
        for (col, chunk) in spec.columns.iter().zip(rg.columns()) {
            let encodings: Vec<Encoding> = chunk.encodings().collect();
            let ok = match col.enc {
                Enc::Default => true,
                Enc::Dictionary => {
                    encodings.contains(&Encoding::RLE_DICTIONARY)
                        || encodings.contains(&Encoding::PLAIN_DICTIONARY)
                }
                other => {
                    let want = other.explicit().context("an explicit encoding")?;
                    encodings.contains(&want)
                        && !encodings.contains(&Encoding::RLE_DICTIONARY)
                        && !encodings.contains(&Encoding::PLAIN_DICTIONARY)
                }
            };
            ensure!(
                ok,
                "{}: column {} was written with {encodings:?}, not {}",
                spec.name,
                col.name,
                col.enc.name()
            );
            if col.enc == Enc::Dictionary {
                if let Some(stats) = chunk.page_encoding_stats() {
                    ensure!(
                        !stats.iter().any(|s| s.encoding == Encoding::PLAIN
                            && s.page_type == parquet_60::basic::PageType::DATA_PAGE),
                        "{}: the dictionary fell back to PLAIN",
                        spec.name
                    );
                }
            }
        }
    }
    Ok(reader.metadata().num_row_groups())
}

fn seed_of(col: &ColumnSpec, nullable: bool, rows: usize) -> u64 {
    let kind = col.kind.code();
    // The ALP kinds hold the same values whatever the encoding.
    let enc = if ALP_KINDS.contains(&col.kind) {
        0
    } else {
        col.enc as u64
    };
    0xdec0_de00_0000_0000 ^ (kind << 40) ^ (enc << 32) ^ (u64::from(nullable) << 31) ^ rows as u64
}

/// Alphanumeric string of `len` characters.
fn word(rng: &mut SmallRng, len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// The values of one column (the comment on each arm describes their shape).
fn generate(col: &ColumnSpec, nullable: bool, rows: usize, seed: u64) -> ArrayRef {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut null_rng = SmallRng::seed_from_u64(seed ^ 0x0000_0000_5eed_0000);
    let mut valid = move || !nullable || !null_rng.random_bool(NULL_SHARE);
    macro_rules! column {
        ($array:ty, $next:expr) => {{
            let mut next = $next;
            let values = (0..rows).map(|_| {
                let v = next();
                valid().then_some(v)
            });
            Arc::new(values.collect::<$array>()) as ArrayRef
        }};
    }
    match (col.kind, col.enc) {
        (Kind::Nested(shape), _) => crate::nested_cases::generate(shape, nullable, rows, seed),
        // Dictionary: 1,000 distinct values drawn uniformly.
        (Kind::Int32, Enc::Dictionary) => {
            let dict: Vec<i32> = (0..1000).map(|_| rng.random()).collect();
            column!(Int32Array, || dict[rng.random_range(0..dict.len())])
        }
        (Kind::Int64, Enc::Dictionary) => {
            let dict: Vec<i64> = (0..1000).map(|_| rng.random()).collect();
            column!(Int64Array, || dict[rng.random_range(0..dict.len())])
        }
        (Kind::String, Enc::Dictionary) => {
            let dict: Vec<String> = (0..1000)
                .map(|_| {
                    let len = rng.random_range(8..=24);
                    word(&mut rng, len)
                })
                .collect();
            column!(StringArray, || dict[rng.random_range(0..dict.len())]
                .clone())
        }
        // Delta: random walks (ids, timestamps), small deltas.
        (Kind::Int32, Enc::DeltaBinaryPacked) => {
            let mut v: i32 = rng.random_range(0..1_000_000);
            column!(Int32Array, || {
                v = v.wrapping_add(rng.random_range(-100..=400));
                v
            })
        }
        (Kind::Int64, Enc::DeltaBinaryPacked | Enc::Default) => {
            // Timestamps in ms, 0-2 s apart (the table's id column too).
            let mut v: i64 = 1_700_000_000_000;
            column!(Int64Array, || {
                v += rng.random_range(0..2000);
                v
            })
        }
        // DELTA_BYTE_ARRAY: keys with long shared prefixes, in order.
        (Kind::String, Enc::DeltaByteArray) => {
            let mut i = 0u64;
            column!(StringArray, || {
                i += rng.random_range(1..4);
                format!(
                    "https://example.com/customers/{:06}/orders/{:010}",
                    i / 64,
                    i
                )
            })
        }
        // Table names: 100,000 distinct names, 8-32 characters (the dictionary spills to PLAIN).
        (Kind::String, Enc::Default) => {
            let dict: Vec<String> = (0..100_000)
                .map(|_| {
                    let len = rng.random_range(8..=32);
                    word(&mut rng, len)
                })
                .collect();
            column!(StringArray, || dict[rng.random_range(0..dict.len())]
                .clone())
        }
        // DELTA_LENGTH_BYTE_ARRAY (and any other string): random words of 0-32 characters.
        (Kind::String, _) => column!(StringArray, || {
            let len = rng.random_range(0..=32);
            word(&mut rng, len)
        }),
        // BYTE_STREAM_SPLIT: sensor-like readings (a random walk), where the split helps.
        (Kind::Float, Enc::ByteStreamSplit) => {
            let mut v = 20.0f32;
            column!(Float32Array, || {
                v += rng.random_range(-0.05f32..0.05);
                v
            })
        }
        (Kind::Double, Enc::ByteStreamSplit) => {
            let mut v = 1000.0f64;
            column!(Float64Array, || {
                v += rng.random_range(-0.5f64..0.5);
                v
            })
        }
        (Kind::Prices, _) => column!(Float64Array, || {
            rng.random_range(1..=1_000_000i64) as f64 / 100.0
        }),
        (Kind::Sensor, _) => {
            let mut v = 20_000i64;
            column!(Float64Array, || {
                v += rng.random_range(-50..=50i64);
                v as f64 / 1000.0
            })
        }
        (Kind::ScanValue, _) => column!(Float64Array, || rng.random::<f64>() * 1000.0),
        (Kind::Int32, _) => column!(Int32Array, || rng.random::<i32>()),
        (Kind::Int64, _) => column!(Int64Array, || rng.random::<i64>()),
        (Kind::Float, _) => column!(Float32Array, || rng.random_range(-1e6f32..1e6)),
        (Kind::Double, _) => column!(Float64Array, || rng.random_range(-1e9f64..1e9)),
        // RLE booleans: runs of 1-32 equal values.
        (Kind::Boolean, Enc::Rle) => {
            let (mut v, mut left) = (false, 0u32);
            column!(BooleanArray, || {
                if left == 0 {
                    v = !v;
                    left = rng.random_range(1..=32);
                }
                left -= 1;
                v
            })
        }
        (Kind::Boolean, _) => column!(BooleanArray, || rng.random_bool(0.5)),
        (Kind::Flba16, _) => {
            let values: Vec<Option<[u8; 16]>> = (0..rows)
                .map(|_| {
                    let v: [u8; 16] = rng.random();
                    valid().then_some(v)
                })
                .collect();
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.into_iter(), 16)
                    .expect("16-byte values"),
            )
        }
        // seed-001: 5-50 KB blobs of 8-byte tokens from a 512-token vocabulary (zstd gets
        // about 2x on them, like binary payloads with structure).
        (Kind::Blob, _) => {
            let tokens: Vec<[u8; 8]> = (0..512).map(|_| rng.random()).collect();
            let blobs: Vec<Vec<u8>> = (0..rows)
                .map(|_| {
                    let len = rng.random_range(5 * 1024..=50 * 1024);
                    let mut blob = Vec::with_capacity(len + 8);
                    while blob.len() < len {
                        blob.extend_from_slice(&tokens[rng.random_range(0..tokens.len())]);
                    }
                    blob.truncate(len);
                    blob
                })
                .collect();
            Arc::new(BinaryArray::from_iter_values(blobs.iter()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_matrix_case_writes_with_its_encoding() {
        for case in all_cases(300, 300, &Codec::ALL, &[false, true], false) {
            if case.columns[0].kind == Kind::Blob {
                continue;
            }
            let w = write_case(&case).unwrap_or_else(|e| panic!("{}: {e:#}", case.name));
            assert_eq!(w.batch.num_rows(), case.rows, "{}", case.name);
            assert_eq!(w.null_count > 0, case.nullable, "{}", case.name);
        }
    }

    #[test]
    fn alp_cases_share_their_values_across_encodings() {
        let cases = alp_cases(3000, &Codec::ALL, &[true]);
        assert_eq!(cases.len(), 4 * ALP_KINDS.len());
        for group in cases.chunks(4) {
            let batches: Vec<RecordBatch> = group
                .iter()
                .map(|c| {
                    write_case(c)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", c.name))
                        .batch
                })
                .collect();
            assert!(
                batches.iter().all(|b| *b == batches[0]),
                "{}",
                group[0].name
            );
        }
    }

    #[test]
    fn data_does_not_depend_on_the_codec() {
        let a = CaseSpec::single(Kind::Int32, Enc::Plain, true, Codec::Snappy, 100);
        let b = CaseSpec {
            codec: Codec::Zstd,
            ..a.clone()
        };
        assert_eq!(write_case(&a).unwrap().batch, write_case(&b).unwrap().batch);
    }
}
