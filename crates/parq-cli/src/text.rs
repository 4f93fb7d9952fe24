//! Arrow values as text for `parq cat`, in the format of Arrow C++'s cast to string
//! (`pyarrow.compute.cast(array, pa.string())`) wherever parq can match it:
//!
//! - integers and durations: decimal integers (a duration is its count of its unit);
//! - floats: shortest round-trip digits, fixed notation for decimal exponents -6..=9 and
//!   `1.5e+20` / `1e-7` otherwise, `-0`, `nan`, `inf`, `-inf`; half floats are widened to
//!   double first (as Arrow does);
//! - decimals: Java `BigDecimal.toString` (`1.20`, `-0.05`, `1E-10`, `1.2E+4`);
//! - dates `YYYY-MM-DD`; times `HH:MM:SS[.fff|.ffffff|.fffffffff]` (fraction width by unit);
//! - timestamps `YYYY-MM-DD HH:MM:SS[.fraction]`, plus `Z` for the zone `UTC` and local time
//!   with `+HHMM` for fixed offsets (`+05:30`). Deliberate difference: other named zones
//!   (`Europe/Paris`, `Etc/UTC`) are printed in UTC with `Z` (parq has no zone database;
//!   pyarrow prints local time and its offset);
//! - binary, fixed-size binary: hex of the bytes (lowercase, or uppercase as pyarrow's
//!   `to_string` shows them); strings as they are; dictionaries as their value;
//! - lists, structs and maps as JSON text: `[1, 2, null]`, `{"a": 1, "b": "x"}`, a map as
//!   an object of its entries `{"k": 1}` (keys as text); inside them strings, decimals,
//!   temporal values, hex and non-finite floats are JSON strings, numbers and booleans bare.

use std::fmt::Write;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};

/// What kind of value a cell holds: output formats quote and align by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    /// An integer or finite float: valid as a JSON number.
    Number,
    /// `nan`, `inf` or `-inf`: a float that JSON cannot hold as a number.
    NonFinite,
    /// Strings, decimals, temporal values.
    Text,
    /// Hex of binary data.
    Bytes,
    /// A list, struct or map as JSON text.
    Nested,
}

/// Whether [`Column`] can print values of this type.
pub fn supported(dt: &DataType) -> bool {
    use DataType::*;
    match dt {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(..)
        | Duration(_) | Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) | Utf8
        | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => true,
        Dictionary(_, v) => !matches!(**v, Dictionary(..)) && supported(v),
        List(f) | LargeList(f) | FixedSizeList(f, _) | Map(f, _) => supported(f.data_type()),
        Struct(fields) => fields.iter().all(|f| supported(f.data_type())),
        _ => false,
    }
}

/// Whether the type is numeric (right-aligned in tables).
pub fn is_numeric(dt: &DataType) -> bool {
    use DataType::*;
    match dt {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float16 | Float32
        | Float64 | Duration(_) | Decimal32(..) | Decimal64(..) | Decimal128(..)
        | Decimal256(..) => true,
        Dictionary(_, v) => is_numeric(v),
        _ => false,
    }
}

/// One column of one batch, ready to print cell by cell (a dictionary's keys are
/// normalized once).
pub struct Column<'a> {
    array: &'a dyn Array,
    dict: Option<(Vec<usize>, ArrayRef)>,
    upper_hex: bool,
}

impl<'a> Column<'a> {
    /// `array` must be of a [`supported`] type.
    pub fn new(array: &'a dyn Array, upper_hex: bool) -> Self {
        let dict = match array.data_type() {
            DataType::Dictionary(..) => {
                let d = array.as_any_dictionary();
                Some((d.normalized_keys(), d.values().clone()))
            }
            _ => None,
        };
        Column {
            array,
            dict,
            upper_hex,
        }
    }

    /// Appends the value at `row` to `out` (nothing for a null) and says what it is.
    pub fn write(&self, row: usize, out: &mut String) -> Kind {
        if self.array.is_null(row) {
            return Kind::Null;
        }
        match &self.dict {
            Some((keys, values)) => write_value(values.as_ref(), keys[row], self.upper_hex, out),
            None => write_value(self.array, row, self.upper_hex, out),
        }
    }
}

fn write_value(a: &dyn Array, i: usize, upper_hex: bool, out: &mut String) -> Kind {
    use DataType::*;
    if a.is_null(i) {
        return Kind::Null;
    }
    macro_rules! int {
        ($t:ty) => {{
            let _ = write!(out, "{}", a.as_primitive::<$t>().value(i));
            Kind::Number
        }};
    }
    match a.data_type() {
        Null => Kind::Null,
        Boolean => {
            out.push_str(if a.as_boolean().value(i) {
                "true"
            } else {
                "false"
            });
            Kind::Bool
        }
        Int8 => int!(Int8Type),
        Int16 => int!(Int16Type),
        Int32 => int!(Int32Type),
        Int64 => int!(Int64Type),
        UInt8 => int!(UInt8Type),
        UInt16 => int!(UInt16Type),
        UInt32 => int!(UInt32Type),
        UInt64 => int!(UInt64Type),
        Duration(TimeUnit::Second) => int!(DurationSecondType),
        Duration(TimeUnit::Millisecond) => int!(DurationMillisecondType),
        Duration(TimeUnit::Microsecond) => int!(DurationMicrosecondType),
        Duration(TimeUnit::Nanosecond) => int!(DurationNanosecondType),
        Float16 => float(
            f64::from(a.as_primitive::<Float16Type>().value(i).to_f32()),
            out,
        ),
        Float32 => float(a.as_primitive::<Float32Type>().value(i), out),
        Float64 => float(a.as_primitive::<Float64Type>().value(i), out),
        Decimal32(_, s) => decimal(a.as_primitive::<Decimal32Type>().value(i), *s, out),
        Decimal64(_, s) => decimal(a.as_primitive::<Decimal64Type>().value(i), *s, out),
        Decimal128(_, s) => decimal(a.as_primitive::<Decimal128Type>().value(i), *s, out),
        Decimal256(_, s) => decimal(a.as_primitive::<Decimal256Type>().value(i), *s, out),
        Date32 => {
            date(i64::from(a.as_primitive::<Date32Type>().value(i)), out);
            Kind::Text
        }
        Date64 => {
            let ms = a.as_primitive::<Date64Type>().value(i);
            date(ms.div_euclid(86_400_000), out);
            Kind::Text
        }
        Time32(u) => {
            let v = match u {
                TimeUnit::Second => a.as_primitive::<Time32SecondType>().value(i),
                _ => a.as_primitive::<Time32MillisecondType>().value(i),
            };
            time_of_day(i64::from(v), *u, out);
            Kind::Text
        }
        Time64(u) => {
            let v = match u {
                TimeUnit::Microsecond => a.as_primitive::<Time64MicrosecondType>().value(i),
                _ => a.as_primitive::<Time64NanosecondType>().value(i),
            };
            time_of_day(v, *u, out);
            Kind::Text
        }
        Timestamp(u, tz) => {
            let v = match u {
                TimeUnit::Second => a.as_primitive::<TimestampSecondType>().value(i),
                TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(i),
                TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value(i),
                TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().value(i),
            };
            timestamp(v, *u, tz.as_deref(), out);
            Kind::Text
        }
        Utf8 => text(a.as_string::<i32>().value(i), out),
        LargeUtf8 => text(a.as_string::<i64>().value(i), out),
        Utf8View => text(a.as_string_view().value(i), out),
        Binary => hex(a.as_binary::<i32>().value(i), upper_hex, out),
        LargeBinary => hex(a.as_binary::<i64>().value(i), upper_hex, out),
        BinaryView => hex(a.as_binary_view().value(i), upper_hex, out),
        FixedSizeBinary(_) => hex(a.as_fixed_size_binary().value(i), upper_hex, out),
        List(_) => list(a.as_list::<i32>().value(i).as_ref(), upper_hex, out),
        LargeList(_) => list(a.as_list::<i64>().value(i).as_ref(), upper_hex, out),
        FixedSizeList(..) => list(a.as_fixed_size_list().value(i).as_ref(), upper_hex, out),
        Struct(fields) => {
            let s = a.as_struct();
            out.push('{');
            for (k, (f, c)) in fields.iter().zip(s.columns()).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                crate::json::escape(f.name(), out);
                out.push_str(": ");
                element(c.as_ref(), i, upper_hex, out);
            }
            out.push('}');
            Kind::Nested
        }
        Map(..) => {
            let m = a.as_map();
            let entries = m.value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            out.push('{');
            let mut key = String::new();
            for j in 0..entries.len() {
                if j > 0 {
                    out.push_str(", ");
                }
                key.clear();
                write_value(keys.as_ref(), j, upper_hex, &mut key);
                crate::json::escape(&key, out);
                out.push_str(": ");
                element(values.as_ref(), j, upper_hex, out);
            }
            out.push('}');
            Kind::Nested
        }
        Dictionary(..) => {
            let d = a.as_any_dictionary();
            match dictionary_key(d.keys(), i) {
                Some(k) if k < d.values().len() => {
                    write_value(d.values().as_ref(), k, upper_hex, out)
                }
                _ => Kind::Null,
            }
        }
        other => {
            // Unreachable for supported types: callers check `supported` first.
            let _ = write!(out, "<{other}>");
            Kind::Text
        }
    }
}

/// The elements of one list as a JSON array.
fn list(values: &dyn Array, upper_hex: bool, out: &mut String) -> Kind {
    out.push('[');
    for j in 0..values.len() {
        if j > 0 {
            out.push_str(", ");
        }
        element(values, j, upper_hex, out);
    }
    out.push(']');
    Kind::Nested
}

/// Value `i` of `a` inside a list, struct or map: JSON (see the module docs).
fn element(a: &dyn Array, i: usize, upper_hex: bool, out: &mut String) {
    let mut cell = String::new();
    match write_value(a, i, upper_hex, &mut cell) {
        Kind::Null => out.push_str("null"),
        Kind::Bool | Kind::Number | Kind::Nested => out.push_str(&cell),
        Kind::NonFinite | Kind::Text | Kind::Bytes => crate::json::escape(&cell, out),
    }
}

/// Key `i` of the dictionary keys `keys` as an index.
fn dictionary_key(keys: &dyn Array, i: usize) -> Option<usize> {
    use DataType::*;
    let k = match keys.data_type() {
        Int8 => i64::from(keys.as_primitive::<Int8Type>().value(i)),
        Int16 => i64::from(keys.as_primitive::<Int16Type>().value(i)),
        Int32 => i64::from(keys.as_primitive::<Int32Type>().value(i)),
        Int64 => keys.as_primitive::<Int64Type>().value(i),
        UInt8 => i64::from(keys.as_primitive::<UInt8Type>().value(i)),
        UInt16 => i64::from(keys.as_primitive::<UInt16Type>().value(i)),
        UInt32 => i64::from(keys.as_primitive::<UInt32Type>().value(i)),
        UInt64 => i64::try_from(keys.as_primitive::<UInt64Type>().value(i)).ok()?,
        _ => return None,
    };
    usize::try_from(k).ok()
}

fn text(s: &str, out: &mut String) -> Kind {
    out.push_str(s);
    Kind::Text
}

fn hex(b: &[u8], upper: bool, out: &mut String) -> Kind {
    for x in b {
        let _ = if upper {
            write!(out, "{x:02X}")
        } else {
            write!(out, "{x:02x}")
        };
    }
    Kind::Bytes
}

/// Shortest round-trip digits laid out as Arrow C++ does (double-conversion's ToShortest
/// with fixed notation for decimal exponents -6..=9).
pub(crate) fn float<F: std::fmt::LowerExp + Into<f64> + Copy>(v: F, out: &mut String) -> Kind {
    let f: f64 = v.into();
    if f.is_nan() {
        out.push_str("nan");
        return Kind::NonFinite;
    }
    if f.is_infinite() {
        out.push_str(if f < 0.0 { "-inf" } else { "inf" });
        return Kind::NonFinite;
    }
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    if neg {
        out.push('-');
    }
    if !(-6..=9).contains(&exp) {
        let _ = write!(
            out,
            "{mantissa}e{}{}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        );
        return Kind::Number;
    }
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if exp < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    Kind::Number
}

/// A decimal of unscaled value `v` and `scale`, as Java's `BigDecimal.toString` (Arrow's
/// format): plain when `scale >= 0` and the adjusted exponent is at least -6, else
/// scientific.
pub(crate) fn decimal(v: impl std::fmt::Display, scale: i8, out: &mut String) -> Kind {
    let s = v.to_string();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.as_str()),
    };
    if neg {
        out.push('-');
    }
    let scale = i64::from(scale);
    let adjusted = digits.len() as i64 - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            out.push_str(digits);
        } else if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            let _ = write!(out, "{int}.{frac}");
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', scale - digits.len()));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "E{}{}",
            if adjusted < 0 { '-' } else { '+' },
            adjusted.abs()
        );
    }
    Kind::Text
}

/// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub(crate) fn date(days: i64, out: &mut String) {
    let (y, m, d) = civil(days);
    if y < 0 {
        let _ = write!(out, "-{:04}-{m:02}-{d:02}", -y);
    } else {
        let _ = write!(out, "{y:04}-{m:02}-{d:02}");
    }
}

/// Units per second and fraction digits of a time unit.
fn unit(u: TimeUnit) -> (i64, usize) {
    match u {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 3),
        TimeUnit::Microsecond => (1_000_000, 6),
        TimeUnit::Nanosecond => (1_000_000_000, 9),
    }
}

/// `HH:MM:SS[.fraction]` of `v` units since midnight.
pub(crate) fn time_of_day(v: i64, u: TimeUnit, out: &mut String) {
    let (per_sec, width) = unit(u);
    let secs = v.div_euclid(per_sec).rem_euclid(86_400);
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if width > 0 {
        let _ = write!(out, ".{:0width$}", v.rem_euclid(per_sec));
    }
}

/// A fixed offset in seconds from a zone like `+05:30`, `-0800` or `+01`.
fn fixed_offset(tz: &str) -> Option<i64> {
    let (sign, rest) = match tz.as_bytes().first()? {
        b'+' => (1, &tz[1..]),
        b'-' => (-1, &tz[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let h: i64 = digits[..2].parse().ok()?;
    let m: i64 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    Some(sign * (h * 3600 + m * 60))
}

pub(crate) fn timestamp(v: i64, u: TimeUnit, tz: Option<&str>, out: &mut String) {
    let (per_sec, _) = unit(u);
    let offset = tz.and_then(fixed_offset);
    let secs = v.div_euclid(per_sec) + offset.unwrap_or(0);
    date(secs.div_euclid(86_400), out);
    out.push(' ');
    time_of_day(
        secs.rem_euclid(86_400) * per_sec + v.rem_euclid(per_sec),
        u,
        out,
    );
    match (tz, offset) {
        (None, _) => {}
        (Some(_), Some(o)) => {
            let a = o.abs();
            let sign = if o < 0 { '-' } else { '+' };
            let _ = write!(out, "{sign}{:02}{:02}", a / 3600, a / 60 % 60);
        }
        (Some(_), None) => out.push('Z'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut s = String::new();
        float(v, &mut s);
        s
    }

    fn dec(v: i128, scale: i8) -> String {
        let mut s = String::new();
        decimal(v, scale, &mut s);
        s
    }

    #[test]
    fn floats_follow_arrow() {
        // Expected values: pyarrow.compute.cast(pa.array([...]), pa.string()).
        let cases = [
            (1e15, "1e+15"),
            (1e9, "1000000000"),
            (1e10, "1e+10"),
            (1.2345678901234568e16, "1.2345678901234568e+16"),
            (1e-6, "0.000001"),
            (1.5e-5, "0.000015"),
            (1e-7, "1e-7"),
            (-0.0, "-0"),
            (-1.5, "-1.5"),
            (120.0, "120"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::INFINITY, "inf"),
        ];
        for (v, want) in cases {
            assert_eq!(f(v), want, "{v}");
        }
        let mut s = String::new();
        float(3.402_823_5e38_f32, &mut s);
        assert_eq!(s, "3.4028235e+38");
    }

    #[test]
    fn decimals_follow_arrow() {
        assert_eq!(dec(120, 2), "1.20");
        assert_eq!(dec(-5, 2), "-0.05");
        assert_eq!(dec(1, 10), "1E-10");
        assert_eq!(dec(0, 10), "0E-10");
        assert_eq!(dec(-1000, 10), "-1.000E-7");
        assert_eq!(dec(-125000, 10), "-0.0000125000");
        assert_eq!(dec(-12, -3), "-1.2E+4");
        assert_eq!(dec(0, -3), "0E+3");
    }

    #[test]
    fn temporal_values_follow_arrow() {
        let mut s = String::new();
        timestamp(-1, TimeUnit::Millisecond, None, &mut s);
        assert_eq!(s, "1969-12-31 23:59:59.999");
        s.clear();
        timestamp(1, TimeUnit::Second, Some("+05:30"), &mut s);
        assert_eq!(s, "1970-01-01 05:30:01+0530");
        s.clear();
        timestamp(0, TimeUnit::Nanosecond, Some("UTC"), &mut s);
        assert_eq!(s, "1970-01-01 00:00:00.000000000Z");
        s.clear();
        timestamp(-100_000_000_000, TimeUnit::Second, None, &mut s);
        assert_eq!(s, "-1199-02-15 14:13:20");
        s.clear();
        time_of_day(1, TimeUnit::Nanosecond, &mut s);
        assert_eq!(s, "00:00:00.000000001");
    }
}
