//! Variant values (`arrow.parquet.variant` columns) as JSON for `parq cat`: objects and
//! arrays as JSON objects and arrays, null, booleans, integers and finite floats bare;
//! decimals as strings with the scale applied (`"123.45"`); dates `"YYYY-MM-DD"`; times
//! `"HH:MM:SS.ffffff"`; timestamps ISO-8601 (`"2024-01-02T03:04:05.123456"`, the full
//! fraction of the unit, `Z` when UTC-adjusted); binary as base64; UUIDs as canonical text;
//! NaN and infinities as `"nan"`, `"inf"`, `"-inf"`.

use std::fmt::Write;

use arrow_array::cast::AsArray;
use arrow_array::{Array, StructArray};
use arrow_schema::{DataType, Field, TimeUnit};
use base64::Engine;
use parq::variant::{Metadata, Variant, EXTENSION_NAME, MAX_DEPTH};

use crate::json::escape;
use crate::text::{date, float, time_of_day};

/// The unshredded Variant struct of `field`'s column `array`, if it is one.
pub fn variant_column<'a>(field: &Field, array: &'a dyn Array) -> Option<&'a StructArray> {
    let name = field.metadata().get("ARROW:extension:name")?;
    if name != EXTENSION_NAME {
        return None;
    }
    let s = array.as_struct_opt()?;
    let binary = |n: &str| {
        s.column_by_name(n)
            .is_some_and(|c| c.data_type() == &DataType::Binary)
    };
    (binary("metadata") && binary("value") && s.num_columns() == 2).then_some(s)
}

/// Appends the Variant at `row` of `array` (a valid row of a [`variant_column`]) as JSON.
pub fn write_row(array: &StructArray, row: usize, out: &mut String) -> parq::Result<()> {
    let (Some(m), Some(v)) = (
        array.column_by_name("metadata"),
        array.column_by_name("value"),
    ) else {
        return Ok(());
    };
    let meta = Metadata::new(m.as_binary::<i32>().value(row))?;
    let value = Variant::new(v.as_binary::<i32>().value(row))?;
    write_json(&meta, &value, out, 0)
}

fn too_deep() -> parq::Error {
    parq::Error::new(parq::ErrorKind::Inconsistent(
        "Invalid variant, nested too deeply".to_string(),
    ))
}

/// Appends `v` as JSON.
pub fn write_json(
    meta: &Metadata<'_>,
    v: &Variant<'_>,
    out: &mut String,
    depth: usize,
) -> parq::Result<()> {
    match *v {
        Variant::Null => out.push_str("null"),
        Variant::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Variant::Int8(x) => write_int(out, x),
        Variant::Int16(x) => write_int(out, x),
        Variant::Int32(x) => write_int(out, x),
        Variant::Int64(x) => write_int(out, x),
        Variant::Float(x) => write_float(x, out),
        Variant::Double(x) => write_float(x, out),
        Variant::Decimal4(x, s) => quoted(out, |t| plain_decimal(i128::from(x), s, t)),
        Variant::Decimal8(x, s) => quoted(out, |t| plain_decimal(i128::from(x), s, t)),
        Variant::Decimal16(x, s) => quoted(out, |t| plain_decimal(x, s, t)),
        Variant::Date(d) => quoted(out, |t| date(i64::from(d), t)),
        Variant::TimeMicros(x) => quoted(out, |t| time_of_day(x, TimeUnit::Microsecond, t)),
        Variant::TimestampMicros(x) => quoted(out, |t| iso(x, TimeUnit::Microsecond, true, t)),
        Variant::TimestampNtzMicros(x) => quoted(out, |t| iso(x, TimeUnit::Microsecond, false, t)),
        Variant::TimestampNanos(x) => quoted(out, |t| iso(x, TimeUnit::Nanosecond, true, t)),
        Variant::TimestampNtzNanos(x) => quoted(out, |t| iso(x, TimeUnit::Nanosecond, false, t)),
        Variant::String(s) => escape(s, out),
        Variant::Binary(b) => escape(&base64::engine::general_purpose::STANDARD.encode(b), out),
        Variant::Uuid(u) => quoted(out, |t| uuid(&u, t)),
        Variant::Object(o) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('{');
            for i in 0..o.len() {
                if i > 0 {
                    out.push_str(", ");
                }
                let (id, f) = o.field(i)?;
                escape(meta.get(id)?, out);
                out.push_str(": ");
                write_json(meta, &f, out, depth + 1)?;
            }
            out.push('}');
        }
        Variant::Array(a) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('[');
            for i in 0..a.len() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(meta, &a.get(i)?, out, depth + 1)?;
            }
            out.push(']');
        }
    }
    Ok(())
}

fn write_int(out: &mut String, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn write_float<F: std::fmt::LowerExp + Into<f64> + Copy>(x: F, out: &mut String) {
    let mut t = String::new();
    match float(x, &mut t) {
        crate::text::Kind::NonFinite => escape(&t, out),
        _ => out.push_str(&t),
    }
}

/// Appends what `f` writes as a JSON string.
fn quoted(out: &mut String, f: impl FnOnce(&mut String)) {
    let mut t = String::new();
    f(&mut t);
    escape(&t, out);
}

/// `v` with `scale` fraction digits, in plain notation (`-0.05`, `1.20`).
fn plain_decimal(v: i128, scale: u8, out: &mut String) {
    let digits = v.unsigned_abs().to_string();
    if v < 0 {
        out.push('-');
    }
    let scale = usize::from(scale);
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        let _ = write!(out, "{int}.{frac}");
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    }
}

/// ISO-8601 of `v` units since the epoch: `YYYY-MM-DDTHH:MM:SS.fraction`, `Z` when `utc`.
fn iso(v: i64, unit: TimeUnit, utc: bool, out: &mut String) {
    let per_sec = match unit {
        TimeUnit::Nanosecond => 1_000_000_000,
        _ => 1_000_000,
    };
    let secs = v.div_euclid(per_sec);
    date(secs.div_euclid(86_400), out);
    out.push('T');
    time_of_day(
        secs.rem_euclid(86_400) * per_sec + v.rem_euclid(per_sec),
        unit,
        out,
    );
    if utc {
        out.push('Z');
    }
}

/// The canonical text of a UUID: `8-4-4-4-12` lowercase hex digits.
fn uuid(u: &[u8; 16], out: &mut String) {
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{b:02x}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_timestamps_and_uuids() {
        let mut s = String::new();
        plain_decimal(-5, 2, &mut s);
        s.push(' ');
        plain_decimal(12345, 2, &mut s);
        s.push(' ');
        iso(-1, TimeUnit::Microsecond, true, &mut s);
        s.push(' ');
        uuid(&[0xf2; 16], &mut s);
        assert_eq!(
            s,
            "-0.05 123.45 1969-12-31T23:59:59.999999Z f2f2f2f2-f2f2-f2f2-f2f2-f2f2f2f2f2f2"
        );
    }
}
