//! Parquet schema -> Arrow schema, as pyarrow 26 (Arrow C++'s `FromParquetSchema` with the
//! default reader properties) produces it, and typed statistics for pruning.
//!
//! - [`annotation`]: the annotation of a leaf (logical type, else converted type) and its
//!   Arrow type;
//! - [`tree`]: groups, lists, maps and repeated fields;
//! - [`embedded`]: the `ARROW:schema` key-value that restores what Parquet cannot express;
//!   [`ipc_select`] decodes only some of its fields, for a read of some columns;
//! - [`geo`]: GEOMETRY / GEOGRAPHY as the `geoarrow.wkb` extension type;
//! - [`stats`]: typed min/max statistics.
//!
//! Mapping of leaves (pyarrow 26 defaults):
//!
//! | Parquet | Arrow |
//! |---|---|
//! | BOOLEAN | Boolean |
//! | INT32 / INTEGER(8,16,32, signed or not) / INT_8.. UINT_32 | Int32 / Int8.. UInt32 |
//! | INT64 / INTEGER(64) / INT_64, UINT_64 | Int64 / UInt64 |
//! | INT96 | Timestamp(ns) (unit configurable), no time zone |
//! | FLOAT, DOUBLE | Float32, Float64 |
//! | FIXED_LEN_BYTE_ARRAY(2) FLOAT16 | Float16 |
//! | BYTE_ARRAY STRING / UTF8 | Utf8 |
//! | BYTE_ARRAY JSON | Utf8 with extension `arrow.json` (pyarrow: `extension<arrow.json>`) |
//! | BYTE_ARRAY ENUM, BSON, none | Binary |
//! | BYTE_ARRAY GEOMETRY, GEOGRAPHY | Binary with extension `geoarrow.wkb` (CRS, edges: see [`geo`]; as arrow-rs 60.1) |
//! | FIXED_LEN_BYTE_ARRAY(n), INTERVAL | FixedSizeBinary(n) |
//! | FIXED_LEN_BYTE_ARRAY(16) UUID | FixedSizeBinary(16) with extension `arrow.uuid` |
//! | DECIMAL(p, s) on any physical type | Decimal128 (p <= 38), Decimal256 (p <= 76) |
//! | DATE | Date32 |
//! | TIME(MILLIS) / TIME(MICROS, NANOS) | Time32(ms) / Time64(us, ns) |
//! | TIMESTAMP(unit, UTC) / TIMESTAMP_MILLIS, _MICROS | Timestamp(unit, "UTC") |
//! | TIMESTAMP(unit, local) | Timestamp(unit) |
//! | UNKNOWN (null) | Null |
//!
//! Nested: an optional/required group is a Struct; a LIST group a List (item named after the
//! Parquet element); a MAP (or MAP_KEY_VALUE) group a Map whose entries struct is named after
//! the map; a MAP without values a List of keys; a repeated group a non-null List of non-null
//! Structs; a repeated primitive a non-null List of non-null items. Nullability is
//! `OPTIONAL`; a Parquet `field_id` becomes the field metadata `PARQUET:field_id`. Extension
//! types are field metadata (`ARROW:extension:name`, `ARROW:extension:metadata`), as arrow-rs
//! represents them.
//!
//! Deliberate differences from pyarrow: a malformed `ARROW:schema` (bad base64, truncated
//! or invalid IPC message) is ignored with the plain mapping, reported in
//! [`EmbeddedSchema::Ignored`], where pyarrow fails to open the file; schemas nested deeper
//! than [`tree::MAX_NESTING`] groups are refused; an `ARROW:schema` Interval(YearMonth) or
//! Interval(DayTime) over INTERVAL (FIXED_LEN_BYTE_ARRAY(12)) is restored, as arrow-rs does
//! (pyarrow keeps FixedSizeBinary(12)).

pub mod annotation;
pub mod embedded;
pub mod geo;
pub mod ipc_select;
pub mod stats;
pub mod tree;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{Schema as ArrowSchema, SchemaRef, TimeUnit};
use parq_format::metadata::{FileMetaData, Schema as ParquetSchema};

pub use annotation::{Annotation, SortOrder};
pub use embedded::{decode_arrow_schema, ARROW_SCHEMA_KEY};
pub use stats::{column_statistics, typed_statistics, StatValue, StatsContext, TypedStatistics};
pub use tree::{FieldNode, FIELD_ID_KEY};

use crate::Result;

/// Options of the conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrowSchemaOptions {
    /// The unit of INT96 timestamps (pyarrow's `coerce_int96_timestamp_unit`); nanoseconds by
    /// default.
    pub int96_unit: TimeUnit,
    /// Whether to apply the embedded `ARROW:schema` (true by default).
    pub use_embedded_schema: bool,
}

impl Default for ArrowSchemaOptions {
    fn default() -> Self {
        ArrowSchemaOptions {
            int96_unit: TimeUnit::Nanosecond,
            use_embedded_schema: true,
        }
    }
}

/// What became of the embedded `ARROW:schema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbeddedSchema {
    /// The file has none (or it was not asked for).
    Absent,
    /// It was decoded and applied.
    Applied,
    /// It was ignored: malformed, or with another number of top-level fields than the
    /// Parquet schema. The reason, in words.
    Ignored(String),
}

/// The Arrow schema of a Parquet file, with the per-field tree.
#[derive(Debug, Clone)]
pub struct SchemaConversion {
    /// The Arrow schema.
    pub schema: SchemaRef,
    /// One node per top-level field, with nested fields, leaf columns and levels.
    pub fields: Vec<FieldNode>,
    /// What became of the embedded `ARROW:schema`.
    pub embedded: EmbeddedSchema,
}

/// The key-value metadata of `meta` as (key, value) strings (lossy UTF-8; a missing value is
/// empty).
pub fn key_value_metadata(meta: &FileMetaData) -> Vec<(String, String)> {
    raw_key_values(meta)
        .map(|(k, v)| (lossy(k), lossy(v)))
        .collect()
}

/// The key-value pairs of `meta` as bytes (a missing value is empty).
fn raw_key_values(meta: &FileMetaData) -> impl Iterator<Item = (&[u8], &[u8])> {
    meta.key_value_metadata
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|kv| {
            (
                meta.bytes(kv.key),
                kv.value.map(|v| meta.bytes(v)).unwrap_or(&[]),
            )
        })
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What a file's key-value metadata gives its Arrow schema, decoded once per file: the
/// pairs as strings and the embedded `ARROW:schema` (decoded, or why it could not be).
#[derive(Debug, Clone)]
pub struct FileKeyValues {
    /// The pairs other than the first `ARROW:schema`.
    pairs: Vec<(String, String)>,
    embedded: Option<Embedded>,
}

/// A file's `ARROW:schema`: its value as written, and its fields decoded (those at the
/// positions `projection` names, or all of them).
#[derive(Debug, Clone)]
struct Embedded {
    value: Vec<u8>,
    projection: Option<Vec<usize>>,
    decoded: std::result::Result<ArrowSchema, String>,
}

impl FileKeyValues {
    /// The key-value metadata of `meta`, its `ARROW:schema` decoded (only the fields of
    /// `meta`'s projection, when it has one).
    pub fn of(meta: &FileMetaData) -> FileKeyValues {
        let mut pairs = Vec::new();
        let mut embedded = None;
        for (k, v) in raw_key_values(meta) {
            if embedded.is_none() && k == ARROW_SCHEMA_KEY.as_bytes() {
                embedded = Some(Embedded::decode(v.to_vec(), meta.projection.clone()));
            } else {
                pairs.push((lossy(k), lossy(v)));
            }
        }
        FileKeyValues { pairs, embedded }
    }

    fn from_pairs(mut pairs: Vec<(String, String)>) -> FileKeyValues {
        let embedded = pairs
            .iter()
            .position(|(k, _)| k == ARROW_SCHEMA_KEY)
            .map(|i| Embedded::decode(pairs.remove(i).1.into_bytes(), None));
        FileKeyValues { pairs, embedded }
    }

    /// Every pair, the `ARROW:schema` included (later pairs of a key win).
    fn all_metadata(&self) -> HashMap<String, String> {
        let first = self
            .embedded
            .as_ref()
            .map(|e| (ARROW_SCHEMA_KEY.to_string(), lossy(&e.value)));
        first
            .into_iter()
            .chain(self.pairs.iter().cloned())
            .collect()
    }
}

impl Embedded {
    fn decode(value: Vec<u8>, projection: Option<Vec<usize>>) -> Embedded {
        let decoded = embedded::decode_arrow_schema_fields(&value, projection.as_deref());
        Embedded {
            value,
            projection,
            decoded,
        }
    }

    /// The fields at the positions `projection` names (all without one).
    fn fields_at(&self, projection: Option<&[usize]>) -> std::result::Result<ArrowSchema, String> {
        if self.projection.as_deref() == projection {
            return self.decoded.clone();
        }
        match (&self.projection, projection) {
            (None, Some(p)) => self.decoded.clone().and_then(|o| project(o, Some(p))),
            _ => embedded::decode_arrow_schema_fields(&self.value, projection),
        }
    }
}

/// The Arrow schema of the file whose footer is `meta`.
pub fn arrow_schema(meta: &FileMetaData, opts: &ArrowSchemaOptions) -> Result<SchemaConversion> {
    arrow_schema_with(meta, &FileKeyValues::of(meta), opts)
}

/// [`arrow_schema`](fn@arrow_schema) with the file's key-value metadata decoded before (once per file).
pub fn arrow_schema_with(
    meta: &FileMetaData,
    key_values: &FileKeyValues,
    opts: &ArrowSchemaOptions,
) -> Result<SchemaConversion> {
    convert(meta.schema(), key_values, meta.projection.as_deref(), opts)
}

/// The Arrow schema of Parquet schema `schema` with file key-value metadata `key_value`.
pub fn parquet_to_arrow(
    schema: &ParquetSchema,
    key_value: &[(String, String)],
    opts: &ArrowSchemaOptions,
) -> Result<SchemaConversion> {
    convert(
        schema,
        &FileKeyValues::from_pairs(key_value.to_vec()),
        None,
        opts,
    )
}

/// [`parquet_to_arrow`] for a schema narrowed to the file's top-level fields `projection`
/// (the embedded Arrow schema's fields are taken at those positions).
fn convert(
    schema: &ParquetSchema,
    key_values: &FileKeyValues,
    projection: Option<&[usize]>,
    opts: &ArrowSchemaOptions,
) -> Result<SchemaConversion> {
    let mut fields = tree::convert(schema, opts.int96_unit)?;
    let embedded_value = key_values
        .embedded
        .as_ref()
        .filter(|_| opts.use_embedded_schema);
    let (metadata, embedded) = match embedded_value {
        None => (key_values.all_metadata(), EmbeddedSchema::Absent),
        Some(value) => match value.fields_at(projection) {
            Err(reason) => (key_values.all_metadata(), EmbeddedSchema::Ignored(reason)),
            Ok(origin) if origin.fields().len() != fields.len() => (
                key_values.all_metadata(),
                EmbeddedSchema::Ignored(format!(
                    "it has {} top-level fields, the Parquet schema {}",
                    origin.fields().len(),
                    fields.len()
                )),
            ),
            Ok(origin) => {
                for (node, of) in fields.iter_mut().zip(origin.fields().iter()) {
                    embedded::apply(of, node);
                }
                (origin.metadata().into(), EmbeddedSchema::Applied)
            }
        },
    };
    let arrow = ArrowSchema::new_with_metadata(
        fields.iter().map(|f| f.field.clone()).collect::<Vec<_>>(),
        metadata,
    );
    Ok(SchemaConversion {
        schema: Arc::new(arrow),
        fields,
        embedded,
    })
}

/// The fields of `origin` at the positions `projection` gives (all of them without one).
fn project(
    origin: ArrowSchema,
    projection: Option<&[usize]>,
) -> std::result::Result<ArrowSchema, String> {
    let Some(p) = projection else {
        return Ok(origin);
    };
    let fields = p
        .iter()
        .map(|&i| {
            origin.fields().get(i).cloned().ok_or_else(|| {
                format!(
                    "it has {} top-level fields, the projection names field {i}",
                    origin.fields().len()
                )
            })
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    Ok(ArrowSchema::new_with_metadata(
        fields,
        origin.metadata().clone(),
    ))
}
