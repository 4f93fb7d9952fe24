//! Hive partitions: `key=value` directories above a dataset's files. Values are
//! percent-decoded (`+` stays `+`), `__HIVE_DEFAULT_PARTITION__` is null, and a key is typed as
//! pyarrow infers it (int32 when every non-null value is an optional `-` and digits that fit
//! an int32, else string) unless a partitioning schema gives its type. Keys come after the
//! file columns, in the order first seen.

use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, Int32Array, StringArray};
use arrow_schema::{DataType, Field, SchemaRef};
use percent_encoding::percent_decode_str;

use crate::error::arrow_error;
use crate::{Error, ErrorKind, Result};

/// The value of a partition key that is null.
const NULL_VALUE: &str = "__HIVE_DEFAULT_PARTITION__";

/// How a dataset's directories give columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Partitioning {
    /// `key=value` directories, keys typed as pyarrow infers them.
    #[default]
    Hive,
    /// `key=value` directories; only the keys of this schema, of its types.
    HiveSchema(SchemaRef),
    /// No partition columns.
    None,
}

/// The partition columns of a dataset and each file's values.
#[derive(Debug, Clone, Default)]
pub(crate) struct Partitions {
    /// The partition columns, in order.
    pub(crate) fields: Vec<Arc<Field>>,
    /// Per file, a one-value array per field.
    pub(crate) values: Vec<Vec<ArrayRef>>,
}

/// The `key=value` pairs of a file's directory parts, decoded (`None`: null).
fn pairs(dirs: &[String]) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for dir in dirs {
        let Some((key, value)) = dir.split_once('=') else {
            continue;
        };
        let key = percent_decode_str(key).decode_utf8_lossy().into_owned();
        let value = percent_decode_str(value).decode_utf8_lossy().into_owned();
        let value = (value != NULL_VALUE).then_some(value);
        // A key seen twice in one path keeps its innermost value.
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => out.push((key, value)),
        }
    }
    out
}

/// Whether `v` is an int32 as pyarrow infers one: an optional `-`, then digits, in range.
fn int32_of(v: &str) -> Option<i32> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse::<i32>().ok().or_else(|| {
        // Leading zeros past i32's width of digits ("-0000000000001").
        let trimmed = digits.trim_start_matches('0');
        let n: i64 = if trimmed.is_empty() {
            0
        } else if trimmed.len() > 10 {
            return None;
        } else {
            trimmed.parse().ok()?
        };
        let n = if v.starts_with('-') { -n } else { n };
        i32::try_from(n).ok()
    })
}

/// The partitions of files whose directory parts are `dirs`.
pub(crate) fn partitions(partitioning: &Partitioning, dirs: &[&[String]]) -> Result<Partitions> {
    let per_file: Vec<Vec<(String, Option<String>)>> = match partitioning {
        Partitioning::None => return Ok(Partitions::default()),
        _ => dirs.iter().map(|d| pairs(d)).collect(),
    };
    let fields: Vec<Arc<Field>> = match partitioning {
        Partitioning::HiveSchema(schema) => schema.fields().iter().cloned().collect(),
        _ => {
            let mut keys: Vec<String> = Vec::new();
            for file in &per_file {
                for (k, _) in file {
                    if !keys.contains(k) {
                        keys.push(k.clone());
                    }
                }
            }
            keys.into_iter()
                .map(|k| {
                    let all_int = per_file.iter().all(|file| {
                        file.iter()
                            .filter(|(key, _)| *key == k)
                            .all(|(_, v)| v.as_deref().is_none_or(|v| int32_of(v).is_some()))
                    });
                    let ty = if all_int {
                        DataType::Int32
                    } else {
                        DataType::Utf8
                    };
                    Arc::new(Field::new(k, ty, true))
                })
                .collect()
        }
    };
    let mut values = Vec::with_capacity(per_file.len());
    for file in &per_file {
        let mut row = Vec::with_capacity(fields.len());
        for field in &fields {
            let value = file
                .iter()
                .find(|(k, _)| k == field.name())
                .and_then(|(_, v)| v.as_deref());
            row.push(value_array(field, value)?);
        }
        values.push(row);
    }
    Ok(Partitions { fields, values })
}

/// `value` as a one-value array of `field`'s type.
fn value_array(field: &Field, value: Option<&str>) -> Result<ArrayRef> {
    let Some(v) = value else {
        return Ok(new_null_array(field.data_type(), 1));
    };
    Ok(match field.data_type() {
        DataType::Int32 => match int32_of(v) {
            Some(i) => Arc::new(Int32Array::from(vec![i])),
            None => return Err(bad_value(field, v)),
        },
        DataType::Utf8 => Arc::new(StringArray::from(vec![v])),
        ty => {
            let text: ArrayRef = Arc::new(StringArray::from(vec![v]));
            let opts = arrow_cast::CastOptions {
                safe: false,
                ..Default::default()
            };
            arrow_cast::cast_with_options(&text, ty, &opts)
                .map_err(arrow_error)
                .map_err(|_| bad_value(field, v))?
        }
    })
}

fn bad_value(field: &Field, v: &str) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "partition value `{v}` of `{}` is not a {}",
        field.name(),
        field.data_type()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    fn dirs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keys_are_typed_as_pyarrow_infers_them() {
        for (v, want) in [
            ("007", Some(7)),
            ("-5", Some(-5)),
            ("+3", None),
            ("1e3", None),
            ("3000000000", None),
            ("2147483647", Some(i32::MAX)),
            ("-2147483648", Some(i32::MIN)),
            ("", None),
            ("-", None),
            ("00000000000000000001", Some(1)),
        ] {
            assert_eq!(int32_of(v), want, "{v}");
        }
        let a = dirs(&["year=2026", "tag=a%2Fb+c", "x=__HIVE_DEFAULT_PARTITION__"]);
        let b = dirs(&["year=007", "tag=2"]);
        let p = partitions(&Partitioning::Hive, &[&a, &b]).unwrap();
        let names: Vec<_> = p
            .fields
            .iter()
            .map(|f| (f.name().as_str(), f.data_type().clone()))
            .collect();
        assert_eq!(
            names,
            [
                ("year", DataType::Int32),
                ("tag", DataType::Utf8),
                ("x", DataType::Int32)
            ]
        );
        let tag = p.values[0][1]
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(tag.value(0), "a/b+c");
        assert!(p.values[0][2].is_null(0) && p.values[1][2].is_null(0));
        assert!(partitions(&Partitioning::None, &[&a])
            .unwrap()
            .fields
            .is_empty());
    }
}
