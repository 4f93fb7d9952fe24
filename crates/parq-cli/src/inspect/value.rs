//! Single PLAIN-encoded values of a leaf column, read and written by the column's type: the
//! statistics, page index bounds and dictionary entries the inspection verbs print
//! ([`render`], [`to_json`]), and the values `parq bloom` probes for ([`parse`]). Text follows
//! the formats of [`crate::text`] (dates, times, timestamps, decimals, floats); bytes that do
//! not fit the type are shown as hex.

use arrow_schema::TimeUnit;
use parq::format::metadata::PhysicalType;
use parq::schema::annotation::{Annotation, Unit};
use parq::schema::stats::{decode_value, StatValue, StatsContext};

use crate::json::{hex, Json};
use crate::text::{self, Kind};

fn arrow_unit(u: Unit) -> TimeUnit {
    match u {
        Unit::Millis => TimeUnit::Millisecond,
        Unit::Micros => TimeUnit::Microsecond,
        Unit::Nanos => TimeUnit::Nanosecond,
    }
}

/// Days between the Julian day number epoch of INT96 timestamps and 1970-01-01.
const JULIAN_UNIX_EPOCH: i64 = 2_440_588;
const NANOS_PER_DAY: i128 = 86_400_000_000_000;

/// A big-endian two's complement integer of at most 16 bytes.
fn be_int(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

fn scale_of(a: Annotation) -> Option<i8> {
    match a {
        Annotation::Decimal { scale, .. } => i8::try_from(scale).ok(),
        _ => None,
    }
}

/// The value `bytes` (one PLAIN-encoded value, BYTE_ARRAY without its length) of a column
/// of type `t`, as text, and what kind of value it is.
pub fn render(bytes: &[u8], t: &StatsContext<'_>) -> (String, Kind) {
    let mut out = String::new();
    let kind = write(bytes, t, &mut out).unwrap_or_else(|| {
        out.clear();
        out.push_str(&hex(bytes));
        Kind::Bytes
    });
    (out, kind)
}

/// [`render`] as text only.
pub fn text(bytes: &[u8], t: &StatsContext<'_>) -> String {
    render(bytes, t).0
}

/// The value as JSON: numbers and booleans bare, everything else as its text.
pub fn to_json(bytes: &[u8], t: &StatsContext<'_>) -> Json {
    let (s, kind) = render(bytes, t);
    match kind {
        Kind::Bool => Json::Bool(s == "true"),
        Kind::Number => match s.parse::<i64>() {
            Ok(i) => Json::Int(i),
            Err(_) => match s.parse::<f64>() {
                Ok(f) if s.contains(['.', 'e']) => Json::Float(f),
                _ => Json::Str(s),
            },
        },
        _ => Json::Str(s),
    }
}

fn write(bytes: &[u8], t: &StatsContext<'_>, out: &mut String) -> Option<Kind> {
    let a = t.annotation;
    if t.physical == PhysicalType::Int96 {
        let b: &[u8; 12] = bytes.try_into().ok()?;
        let nanos = i64::from_le_bytes(b[..8].try_into().ok()?);
        let day = i64::from(i32::from_le_bytes(b[8..].try_into().ok()?));
        let v = i128::from(day - JULIAN_UNIX_EPOCH) * NANOS_PER_DAY + i128::from(nanos);
        text::timestamp(i64::try_from(v).ok()?, TimeUnit::Nanosecond, None, out);
        return Some(Kind::Text);
    }
    let v = decode_value(bytes, t)?;
    let int = |v: i64, out: &mut String| -> Kind {
        match a {
            Annotation::Date => {
                text::date(v, out);
                Kind::Text
            }
            Annotation::Decimal { .. } => match scale_of(a) {
                Some(s) => text::decimal(v, s, out),
                None => {
                    out.push_str(&v.to_string());
                    Kind::Number
                }
            },
            Annotation::Time { unit, .. } => {
                text::time_of_day(v, arrow_unit(unit), out);
                Kind::Text
            }
            Annotation::Timestamp { unit, utc } => {
                text::timestamp(v, arrow_unit(unit), utc.then_some("UTC"), out);
                Kind::Text
            }
            _ => {
                out.push_str(&v.to_string());
                Kind::Number
            }
        }
    };
    Some(match v {
        StatValue::Boolean(b) => {
            out.push_str(if b { "true" } else { "false" });
            Kind::Bool
        }
        StatValue::Int32(v) => {
            let v = i64::from(v);
            if matches!(
                a,
                Annotation::Time {
                    unit: Unit::Millis,
                    ..
                }
            ) {
                text::time_of_day(v, TimeUnit::Millisecond, out);
                Kind::Text
            } else {
                int(v, out)
            }
        }
        StatValue::Int64(v) => int(v, out),
        StatValue::UInt32(v) => {
            out.push_str(&v.to_string());
            Kind::Number
        }
        StatValue::UInt64(v) => {
            out.push_str(&v.to_string());
            Kind::Number
        }
        StatValue::Float(f) | StatValue::Float16(f) => text::float(f, out),
        StatValue::Double(f) => text::float(f, out),
        StatValue::Bytes(b) => match a {
            Annotation::String | Annotation::Enum | Annotation::Json => {
                out.push_str(std::str::from_utf8(b).ok()?);
                Kind::Text
            }
            Annotation::Decimal { .. } => text::decimal(be_int(b)?, scale_of(a)?, out),
            Annotation::Uuid if b.len() == 16 => {
                let h = hex(b);
                for (i, part) in [0..8, 8..12, 12..16, 16..20, 20..32]
                    .into_iter()
                    .enumerate()
                {
                    if i > 0 {
                        out.push('-');
                    }
                    out.push_str(h.get(part)?);
                }
                Kind::Text
            }
            _ => {
                out.push_str(&hex(b));
                Kind::Bytes
            }
        },
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD` as days since 1970-01-01.
fn parse_date(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let mut parts = s.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    let y = if neg { -y } else { y };
    let valid = (1..=12).contains(&m) && (1..=31).contains(&d);
    let days = days_from_civil(y, m, d);
    // A day past the month's end (2021-02-30) does not come back as itself.
    let back = days_from_civil(y, m, 1) + d - 1;
    (valid && days == back && {
        let next = if m == 12 {
            days_from_civil(y + 1, 1, 1)
        } else {
            days_from_civil(y, m + 1, 1)
        };
        days < next
    })
    .then_some(days)
}

/// Units per second and fraction digits of a unit.
fn per_second(u: Unit) -> (i64, usize) {
    match u {
        Unit::Millis => (1_000, 3),
        Unit::Micros => (1_000_000, 6),
        Unit::Nanos => (1_000_000_000, 9),
    }
}

/// `HH:MM:SS[.fraction]` as units of `u` since midnight.
fn parse_time(s: &str, u: Unit) -> Option<i64> {
    let (per_sec, width) = per_second(u);
    let (hms, frac) = match s.split_once('.') {
        Some((a, b)) => (a, b),
        None => (s, ""),
    };
    let mut parts = hms.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let sec: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || h > 23 || m > 59 || sec > 60 || h < 0 || m < 0 || sec < 0 {
        return None;
    }
    if frac.len() > width || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let f: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<width$}").parse().ok()?
    };
    Some(((h * 60 + m) * 60 + sec) * per_sec + f)
}

/// `YYYY-MM-DD[ T]HH:MM:SS[.fraction][Z]` (UTC) as units of `u` since the epoch.
fn parse_timestamp(s: &str, u: Unit) -> Option<i64> {
    let s = s.strip_suffix('Z').unwrap_or(s);
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let days = parse_date(date)?;
    let (per_sec, _) = per_second(u);
    let time = match time {
        Some(t) => parse_time(t, u)?,
        None => 0,
    };
    days.checked_mul(86_400)?
        .checked_mul(per_sec)?
        .checked_add(time)
}

/// A decimal literal (`-12.5`) as the unscaled integer of `scale`; `None` when it has more
/// fraction digits than the scale or does not fit.
fn parse_decimal(s: &str, scale: i32) -> Option<i128> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let scale = usize::try_from(scale).ok()?;
    let all_digits = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale || int.len() + scale > 38 {
        return None;
    }
    let digits = format!("{int}{frac:0<scale$}");
    let v: i128 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// The shortest big-endian two's complement bytes of `v`.
fn minimal_be(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut i = 0;
    while i < 15 {
        let (x, next) = (b[i], b[i + 1]);
        let redundant = (x == 0 && next & 0x80 == 0) || (x == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        i += 1;
    }
    b[i..].to_vec()
}

/// `v` as `len` big-endian two's complement bytes, when it fits.
fn fixed_be(v: i128, len: usize) -> Option<Vec<u8>> {
    let min = minimal_be(v);
    if min.len() > len {
        return None;
    }
    let fill = if v < 0 { 0xff } else { 0 };
    let mut out = vec![fill; len - min.len()];
    out.extend_from_slice(&min);
    Some(out)
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// f32 to IEEE half-precision bits (round to nearest even).
fn f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let rest = man & 0x1fff;
    let mut r = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// The PLAIN encoding (BYTE_ARRAY without its length) of `s` read as a value of a column of
/// type `t`: what a Bloom filter hashes. Integers, floats, `true`/`false`; DATE as
/// `YYYY-MM-DD`; TIME as `HH:MM:SS[.fff]`; TIMESTAMP as `YYYY-MM-DD HH:MM:SS[.fff]` (UTC);
/// DECIMAL as `-12.50`; UUID as `8-4-4-4-12` hex; strings as they are; other binary as
/// text, or as hex after `0x`. An integer is taken as the stored value of every integer type.
pub fn parse(s: &str, t: &StatsContext<'_>) -> Result<Vec<u8>, String> {
    let a = t.annotation;
    let bad = |what: &str| format!("{s:?} is not {what}");
    let int = |s: &str| s.trim().parse::<i64>().ok();
    match t.physical {
        PhysicalType::Boolean => match s {
            "true" => Ok(vec![1]),
            "false" => Ok(vec![0]),
            _ => Err(bad("a BOOLEAN (true or false)")),
        },
        PhysicalType::Int32 => {
            let v: Option<i64> = match a {
                Annotation::Date => int(s).or_else(|| parse_date(s)),
                Annotation::Time { unit, .. } => int(s).or_else(|| parse_time(s, unit)),
                Annotation::Decimal { scale, .. } => {
                    parse_decimal(s, scale).and_then(|v| i64::try_from(v).ok())
                }
                Annotation::Integer { signed: false, .. } => s
                    .parse::<u32>()
                    .ok()
                    .map(|v| i64::from(v as i32))
                    .or_else(|| int(s)),
                _ => int(s),
            };
            let what = match a {
                Annotation::Date => "a DATE (YYYY-MM-DD)",
                Annotation::Time { .. } => "a TIME (HH:MM:SS[.fff])",
                Annotation::Decimal { .. } => "a decimal of the column's scale that fits INT32",
                _ => "an INT32",
            };
            v.and_then(|v| i32::try_from(v).ok())
                .map(|v| v.to_le_bytes().to_vec())
                .ok_or_else(|| bad(what))
        }
        PhysicalType::Int64 => {
            let v: Option<i64> = match a {
                Annotation::Timestamp { unit, .. } => int(s).or_else(|| parse_timestamp(s, unit)),
                Annotation::Time { unit, .. } => int(s).or_else(|| parse_time(s, unit)),
                Annotation::Decimal { scale, .. } => {
                    parse_decimal(s, scale).and_then(|v| i64::try_from(v).ok())
                }
                Annotation::Integer { signed: false, .. } => {
                    s.parse::<u64>().ok().map(|v| v as i64).or_else(|| int(s))
                }
                _ => int(s),
            };
            let what = match a {
                Annotation::Timestamp { .. } => {
                    "a TIMESTAMP (YYYY-MM-DD HH:MM:SS[.fraction], UTC, or an integer)"
                }
                Annotation::Time { .. } => "a TIME (HH:MM:SS[.fraction])",
                Annotation::Decimal { .. } => "a decimal of the column's scale that fits INT64",
                _ => "an INT64",
            };
            v.map(|v| v.to_le_bytes().to_vec()).ok_or_else(|| bad(what))
        }
        PhysicalType::Float => s
            .trim()
            .parse::<f32>()
            .map(|v| v.to_le_bytes().to_vec())
            .map_err(|_| bad("a FLOAT")),
        PhysicalType::Double => s
            .trim()
            .parse::<f64>()
            .map(|v| v.to_le_bytes().to_vec())
            .map_err(|_| bad("a DOUBLE")),
        PhysicalType::ByteArray => match a {
            Annotation::Decimal { scale, .. } => parse_decimal(s, scale)
                .map(minimal_be)
                .ok_or_else(|| bad("a decimal of the column's scale")),
            Annotation::String | Annotation::Enum | Annotation::Json => Ok(s.as_bytes().to_vec()),
            _ => match s.strip_prefix("0x") {
                Some(h) => unhex(h).ok_or_else(|| bad("hex after 0x")),
                None => Ok(s.as_bytes().to_vec()),
            },
        },
        PhysicalType::FixedLenByteArray => {
            let len = usize::try_from(t.type_length).unwrap_or(0);
            let v = match a {
                Annotation::Uuid => unhex(&s.replace('-', ""))
                    .filter(|b| b.len() == 16)
                    .ok_or_else(|| bad("a UUID"))?,
                Annotation::Decimal { scale, .. } => parse_decimal(s, scale)
                    .and_then(|v| fixed_be(v, len))
                    .ok_or_else(|| bad("a decimal of the column's scale and width"))?,
                Annotation::Float16 => s
                    .trim()
                    .parse::<f32>()
                    .map(|v| f16_bits(v).to_le_bytes().to_vec())
                    .map_err(|_| bad("a FLOAT16"))?,
                _ => match s.strip_prefix("0x") {
                    Some(h) => unhex(h).ok_or_else(|| bad("hex after 0x"))?,
                    None => s.as_bytes().to_vec(),
                },
            };
            if v.len() != len {
                return Err(format!(
                    "{s:?} is {} bytes; the column holds FIXED_LEN_BYTE_ARRAY({len})",
                    v.len()
                ));
            }
            Ok(v)
        }
        PhysicalType::Int96 | PhysicalType::Unknown(_) => {
            Err(format!("values of {} columns cannot be given", t.physical))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_parse() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(11_017));
        assert_eq!(parse_date("2021-02-29"), None);
        assert_eq!(parse_date("2020-02-29"), Some(18_321));
        assert_eq!(parse_time("01:00:00.5", Unit::Millis), Some(3_600_500));
        assert_eq!(
            parse_timestamp("1970-01-02 00:00:01", Unit::Micros),
            Some(86_401_000_000)
        );
    }

    #[test]
    fn decimals_parse() {
        assert_eq!(parse_decimal("-12.5", 2), Some(-1250));
        assert_eq!(parse_decimal("1.234", 2), None);
        assert_eq!(minimal_be(-1), vec![0xff]);
        assert_eq!(minimal_be(128), vec![0, 128]);
        assert_eq!(fixed_be(-2, 4), Some(vec![0xff, 0xff, 0xff, 0xfe]));
    }

    #[test]
    fn half_floats_round() {
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(f32::INFINITY), 0x7c00);
    }
}
