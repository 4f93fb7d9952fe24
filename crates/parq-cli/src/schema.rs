//! `parq schema`: the schema in Parquet's message format, as parquet-cpp and parquet-java
//! print it (for a dataset, its Arrow schema: [`crate::dataset::schema`]).

use std::fmt::Write;
use std::path::Path;

use parq::format::metadata::{LogicalType, PhysicalType, Schema, SchemaElement, TimeUnit};

use crate::dataset::DatasetArgs;
use crate::keys::KeyArgs;
use crate::{read_footer, CliError};

pub fn run(file: &Path, dataset: &DatasetArgs, keys: &KeyArgs) -> Result<String, CliError> {
    if crate::dataset::is_dataset(file) {
        return crate::dataset::schema(file, dataset);
    }
    if keys.any() && crate::dataset::is_dataset(file) {
        return Err(CliError::message(
            file,
            "keys apply to one file, not a dataset".into(),
        ));
    }
    let md = read_footer(file, keys)?;
    Ok(message(md.schema()))
}

/// The logical type annotation as the message format writes it, e.g. `TIMESTAMP(MICROS,true)`.
pub fn logical_type_text(t: &LogicalType, schema_buf: &[u8]) -> String {
    let unit = |u: &TimeUnit| u.spec_name();
    match t {
        LogicalType::Decimal { scale, precision } => format!("DECIMAL({precision},{scale})"),
        LogicalType::Time {
            is_adjusted_to_utc,
            unit: u,
        } => {
            format!("TIME({},{is_adjusted_to_utc})", unit(u))
        }
        LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit: u,
        } => {
            format!("TIMESTAMP({},{is_adjusted_to_utc})", unit(u))
        }
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => format!("INTEGER({bit_width},{is_signed})"),
        LogicalType::Geometry { crs: Some(c) } => {
            format!("GEOMETRY({})", String::from_utf8_lossy(c.slice(schema_buf)))
        }
        LogicalType::Geography { crs, algorithm } => {
            let crs = crs.map(|c| String::from_utf8_lossy(c.slice(schema_buf)).into_owned());
            match (crs, algorithm) {
                (None, None) => "GEOGRAPHY".into(),
                (c, a) => format!(
                    "GEOGRAPHY({},{})",
                    c.unwrap_or_default(),
                    a.map(|a| a.spec_name()).unwrap_or("")
                ),
            }
        }
        other => other.spec_name().to_string(),
    }
}

fn type_name(e: &SchemaElement) -> String {
    match e.physical_type {
        Some(PhysicalType::FixedLenByteArray) => {
            format!("fixed_len_byte_array({})", e.type_length.unwrap_or(0))
        }
        Some(PhysicalType::ByteArray) => "binary".into(),
        Some(t) => t.spec_name().to_ascii_lowercase(),
        None => "group".into(),
    }
}

/// The whole schema in message format.
pub fn message(schema: &Schema) -> String {
    let mut out = String::new();
    let elements = schema.elements();
    let _ = writeln!(out, "message {} {{", schema.name(0));
    // Stack of remaining children per open group.
    let mut stack: Vec<i32> = vec![elements.first().and_then(|e| e.num_children).unwrap_or(0)];
    for (i, e) in elements.iter().enumerate().skip(1) {
        while stack.last() == Some(&0) {
            stack.pop();
            let _ = writeln!(out, "{}}}", "  ".repeat(stack.len()));
        }
        if let Some(top) = stack.last_mut() {
            *top -= 1;
        }
        let indent = "  ".repeat(stack.len());
        let rep = e
            .repetition
            .map(|r| r.spec_name().to_ascii_lowercase())
            .unwrap_or_default();
        let mut line = format!("{indent}{rep} {} {}", type_name(e), schema.name(i));
        if let Some(id) = e.field_id {
            let _ = write!(line, " = {id}");
        }
        let annotation = match (&e.logical_type, e.converted_type) {
            (Some(t), _) => Some(logical_type_text(t, schema.buf())),
            (None, Some(c)) => Some(match c {
                parq::format::metadata::ConvertedType::Decimal => format!(
                    "DECIMAL({},{})",
                    e.precision.unwrap_or(0),
                    e.scale.unwrap_or(0)
                ),
                c => c.to_string(),
            }),
            _ => None,
        };
        if let Some(a) = annotation {
            let _ = write!(line, " ({a})");
        }
        if e.is_leaf() {
            let _ = writeln!(out, "{line};");
        } else {
            let _ = writeln!(out, "{line} {{");
            stack.push(e.num_children.unwrap_or(0));
        }
    }
    while stack.pop().is_some() {
        let _ = writeln!(out, "{}}}", "  ".repeat(stack.len()));
    }
    out
}
