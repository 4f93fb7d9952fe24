//! Variant values as comparable text: objects by field name, so that two encodings of one
//! value compare equal; the metadata / value split of a `.variant.bin` file; the
//! `.variant.bin` files of a `shredded_variant/cases.json` case; values encoded and a batch
//! of an `id` and a Variant column `v` of them.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, Int64Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use parq::variant::{encode, Metadata, Variant, EXTENSION_NAME};

/// `v` as text with object fields by name.
pub fn canon(meta: &Metadata<'_>, v: &Variant<'_>) -> String {
    match v {
        Variant::Object(o) => {
            let mut fields: Vec<String> = (0..o.len())
                .map(|i| {
                    let (id, f) = o.field(i).unwrap();
                    format!("{:?}: {}", meta.get(id).unwrap(), canon(meta, &f))
                })
                .collect();
            fields.sort();
            format!("{{{}}}", fields.join(", "))
        }
        Variant::Array(a) => {
            let items: Vec<String> = (0..a.len())
                .map(|i| canon(meta, &a.get(i).unwrap()))
                .collect();
            format!("[{}]", items.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// The metadata and value of a `.variant.bin` file's bytes.
pub fn split(bytes: &[u8]) -> (&[u8], &[u8]) {
    let n = Metadata::new(bytes).unwrap().size().unwrap();
    bytes.split_at(n)
}

/// [`canon`] of the value in `value` with metadata `metadata`.
pub fn canon_of(metadata: &[u8], value: &[u8]) -> String {
    let meta = Metadata::new(metadata).unwrap();
    canon(&meta, &Variant::new(value).unwrap())
}

/// The `.variant.bin` file of each row of `case` (of `cases.json`), `None` for a null row.
pub fn case_files(case: &serde_json::Value) -> Vec<Option<String>> {
    match case.get("variant_files") {
        Some(list) => list
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().map(str::to_string))
            .collect(),
        None => vec![case["variant_file"].as_str().map(str::to_string)],
    }
}

/// The encoding of primitive value `v`.
pub fn primitive(v: Variant<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    encode::write(&mut out, &v).unwrap();
    out
}

/// Metadata with names `a`, `b`, `c` (sorted) and object values built from `(id, bytes)`.
pub const META: &[u8] = &[0x11, 3, 0, 1, 2, 3, b'a', b'b', b'c'];

pub fn int64(x: i64) -> Vec<u8> {
    let mut out = Vec::new();
    encode::write(&mut out, &Variant::Int64(x)).unwrap();
    out
}

pub fn string(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    encode::write(&mut out, &Variant::String(s)).unwrap();
    out
}

pub fn object(fields: &[(usize, Vec<u8>)]) -> Vec<u8> {
    let refs: Vec<(usize, &[u8])> = fields.iter().map(|(i, b)| (*i, b.as_slice())).collect();
    let mut out = Vec::new();
    encode::object(&mut out, &refs).unwrap();
    out
}

/// A batch of `id` and Variant column `v` of `values` (`None`: a null row).
pub fn variant_batch(values: Vec<Option<Vec<u8>>>) -> RecordBatch {
    let n = values.len();
    let metadata = BinaryArray::from_iter_values(std::iter::repeat_n(META, n));
    let value = BinaryArray::from_iter_values(values.iter().map(|v| v.clone().unwrap_or(vec![0])));
    let nulls: arrow_buffer::NullBuffer = values.iter().map(Option::is_some).collect();
    let fields = Fields::from(vec![
        Field::new("metadata", DataType::Binary, false),
        Field::new("value", DataType::Binary, false),
    ]);
    let v = StructArray::new(
        fields.clone(),
        vec![Arc::new(metadata) as ArrayRef, Arc::new(value)],
        Some(nulls),
    );
    let field = Field::new("v", DataType::Struct(fields), true).with_metadata(
        std::collections::HashMap::from([
            (
                "ARROW:extension:name".to_string(),
                EXTENSION_NAME.to_string(),
            ),
            ("ARROW:extension:metadata".to_string(), String::new()),
        ]),
    );
    let schema = Schema::new(vec![Field::new("id", DataType::Int64, false), field]);
    let ids = Int64Array::from_iter_values(0..n as i64);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(ids), Arc::new(v)]).unwrap()
}
