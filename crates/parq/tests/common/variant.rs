//! Variant values as comparable text: objects by field name, so that two encodings of one
//! value compare equal; the metadata / value split of a `.variant.bin` file; the
//! `.variant.bin` files of a `shredded_variant/cases.json` case.

use parq::variant::{Metadata, Variant};

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
