//! The annotation of a leaf column, resolved as parquet-cpp resolves it: the `LogicalType`
//! when present (ignored when it does not apply to the physical type), else the legacy
//! `ConvertedType` (an error when it does not apply), and the Arrow type of the leaf.
//!
//! Rules (pyarrow 26 defaults): an inapplicable logical type falls back to the plain physical
//! type (`INTEGER(32)` on INT64 -> Int64, `STRING` on FIXED_LEN_BYTE_ARRAY -> FixedSizeBinary),
//! while a logical type that cannot exist (DECIMAL precision < 1, INTEGER bit width 7) and an
//! inapplicable converted type are errors, as pyarrow raises them.

use arrow_schema::{DataType, TimeUnit as ArrowTimeUnit};
use parq_format::metadata::{ConvertedType, LogicalType, PhysicalType, SchemaElement, TimeUnit};

use crate::{Error, ErrorKind, Result};

/// `ARROW:extension:name` of Arrow's canonical JSON extension type.
pub const JSON_EXTENSION: &str = "arrow.json";
/// `ARROW:extension:name` of Arrow's canonical UUID extension type.
pub const UUID_EXTENSION: &str = "arrow.uuid";

/// A time unit of a TIME or TIMESTAMP annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl Unit {
    fn arrow(self) -> ArrowTimeUnit {
        match self {
            Unit::Millis => ArrowTimeUnit::Millisecond,
            Unit::Micros => ArrowTimeUnit::Microsecond,
            Unit::Nanos => ArrowTimeUnit::Nanosecond,
        }
    }
}

/// The resolved annotation of a leaf column (logical type, or converted type when there is
/// no logical type). `None` is a plain physical value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Annotation {
    /// No (applicable) annotation.
    None,
    /// `STRING` / `UTF8`.
    String,
    /// `ENUM`.
    Enum,
    /// `JSON`.
    Json,
    /// `BSON`.
    Bson,
    /// `UUID` (on FIXED_LEN_BYTE_ARRAY(16)).
    Uuid,
    /// `FLOAT16` (on FIXED_LEN_BYTE_ARRAY(2)).
    Float16,
    /// `DATE`.
    Date,
    /// `INTERVAL` (converted type only, on FIXED_LEN_BYTE_ARRAY(12)).
    Interval,
    /// `UNKNOWN` (the spec's null type): always null.
    Null,
    /// `GEOMETRY` or `GEOGRAPHY` (WKB in BYTE_ARRAY).
    Geospatial,
    /// `INTEGER` / `INT_*` / `UINT_*`.
    Integer {
        /// 8, 16, 32 or 64.
        bit_width: u8,
        /// Signed or unsigned.
        signed: bool,
    },
    /// `DECIMAL`.
    Decimal {
        /// Total digits (1..).
        precision: i32,
        /// Digits after the point (0..=precision).
        scale: i32,
    },
    /// `TIME` / `TIME_MILLIS` / `TIME_MICROS`.
    Time {
        /// Unit.
        unit: Unit,
        /// `isAdjustedToUTC` (converted types: true).
        utc: bool,
    },
    /// `TIMESTAMP` / `TIMESTAMP_MILLIS` / `TIMESTAMP_MICROS`.
    Timestamp {
        /// Unit.
        unit: Unit,
        /// `isAdjustedToUTC` (converted types: true, as parquet-cpp reads them).
        utc: bool,
    },
}

/// How statistics of a column are ordered (parquet-cpp's `SortOrder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortOrder {
    /// Signed comparison of the (logical) values.
    Signed,
    /// Unsigned (byte-wise for binary) comparison.
    Unsigned,
    /// No defined order: min/max must not be used.
    Unknown,
}

pub(crate) fn schema_error(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::SchemaConversion(msg.into()))
}

fn unit_of(u: TimeUnit) -> Option<Unit> {
    match u {
        TimeUnit::Millis => Some(Unit::Millis),
        TimeUnit::Micros => Some(Unit::Micros),
        TimeUnit::Nanos => Some(Unit::Nanos),
        TimeUnit::Unrecognized { .. } => None,
    }
}

/// The largest decimal precision a FIXED_LEN_BYTE_ARRAY of `len` bytes holds.
fn flba_max_precision(len: i32) -> i64 {
    (std::f64::consts::LOG10_2 * (8.0 * f64::from(len) - 1.0)).floor() as i64
}

/// Resolves the annotation of leaf element `e` (`is_leaf()`): its logical type if it is
/// set and applies, else its converted type.
pub fn resolve(e: &SchemaElement) -> Result<Annotation> {
    let Some(phys) = e.physical_type else {
        return Err(schema_error("a leaf without a physical type"));
    };
    let len = e.type_length.unwrap_or(0);
    if phys == PhysicalType::FixedLenByteArray && len <= 0 {
        return Err(schema_error(format!(
            "invalid FIXED_LEN_BYTE_ARRAY length: {len}"
        )));
    }
    match e.logical_type {
        Some(lt) => from_logical(lt, phys, len),
        None => match e.converted_type {
            Some(ct) => from_converted(ct, e, phys, len),
            None => Ok(Annotation::None),
        },
    }
}

fn from_logical(lt: LogicalType, phys: PhysicalType, len: i32) -> Result<Annotation> {
    use PhysicalType as P;
    let a = match lt {
        LogicalType::String => Annotation::String,
        LogicalType::Enum => Annotation::Enum,
        LogicalType::Json => Annotation::Json,
        LogicalType::Bson => Annotation::Bson,
        LogicalType::Uuid => Annotation::Uuid,
        LogicalType::Float16 => Annotation::Float16,
        LogicalType::Date => Annotation::Date,
        LogicalType::Unknown => Annotation::Null,
        LogicalType::Geometry { .. } | LogicalType::Geography { .. } => Annotation::Geospatial,
        LogicalType::Decimal { scale, precision } => {
            if precision < 1 {
                return Err(schema_error(format!(
                    "DECIMAL precision {precision} must be at least 1"
                )));
            }
            if scale < 0 || scale > precision {
                return Err(schema_error(format!(
                    "DECIMAL scale {scale} must be in 0..={precision}"
                )));
            }
            Annotation::Decimal { precision, scale }
        }
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => match bit_width {
            8 | 16 | 32 | 64 => Annotation::Integer {
                bit_width: bit_width as u8,
                signed: is_signed,
            },
            _ => {
                return Err(schema_error(format!(
                    "INTEGER bit width {bit_width} is not 8, 16, 32 or 64"
                )))
            }
        },
        LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        } => match unit_of(unit) {
            Some(unit) => Annotation::Time {
                unit,
                utc: is_adjusted_to_utc,
            },
            None => return Ok(Annotation::None),
        },
        LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        } => match unit_of(unit) {
            Some(unit) => Annotation::Timestamp {
                unit,
                utc: is_adjusted_to_utc,
            },
            None => return Ok(Annotation::None),
        },
        // Group-only annotations and unknown union members: the plain physical type.
        LogicalType::List
        | LogicalType::Map
        | LogicalType::Variant { .. }
        | LogicalType::Unrecognized { .. } => return Ok(Annotation::None),
    };
    let applies = match a {
        Annotation::String
        | Annotation::Enum
        | Annotation::Json
        | Annotation::Bson
        | Annotation::Geospatial => phys == P::ByteArray,
        Annotation::Uuid => phys == P::FixedLenByteArray && len == 16,
        Annotation::Float16 => phys == P::FixedLenByteArray && len == 2,
        Annotation::Date => phys == P::Int32,
        Annotation::Null | Annotation::None => true,
        Annotation::Interval => phys == P::FixedLenByteArray && len == 12,
        Annotation::Integer { bit_width, .. } => {
            (bit_width <= 32 && phys == P::Int32) || (bit_width == 64 && phys == P::Int64)
        }
        Annotation::Decimal { precision, .. } => match phys {
            P::Int32 => precision <= 9,
            P::Int64 => precision <= 18,
            P::FixedLenByteArray => i64::from(precision) <= flba_max_precision(len),
            P::ByteArray => true,
            _ => false,
        },
        Annotation::Time { unit, .. } => match unit {
            Unit::Millis => phys == P::Int32,
            Unit::Micros | Unit::Nanos => phys == P::Int64,
        },
        Annotation::Timestamp { .. } => phys == P::Int64,
    };
    Ok(if applies { a } else { Annotation::None })
}

fn from_converted(
    ct: ConvertedType,
    e: &SchemaElement,
    phys: PhysicalType,
    len: i32,
) -> Result<Annotation> {
    use ConvertedType as C;
    use PhysicalType as P;
    let need = |ok: bool, what: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(schema_error(format!(
                "{} can only annotate {what}, not {phys}",
                ct.spec_name()
            )))
        }
    };
    let int = |bit_width: u8, signed: bool| Annotation::Integer { bit_width, signed };
    Ok(match ct {
        C::Utf8 | C::Enum | C::Json | C::Bson => {
            need(phys == P::ByteArray, "BYTE_ARRAY")?;
            match ct {
                C::Utf8 => Annotation::String,
                C::Enum => Annotation::Enum,
                C::Json => Annotation::Json,
                _ => Annotation::Bson,
            }
        }
        C::Int8
        | C::Int16
        | C::Int32
        | C::Uint8
        | C::Uint16
        | C::Uint32
        | C::Date
        | C::TimeMillis => {
            need(phys == P::Int32, "INT32")?;
            match ct {
                C::Int8 => int(8, true),
                C::Int16 => int(16, true),
                C::Int32 => int(32, true),
                C::Uint8 => int(8, false),
                C::Uint16 => int(16, false),
                C::Uint32 => int(32, false),
                C::Date => Annotation::Date,
                _ => Annotation::Time {
                    unit: Unit::Millis,
                    utc: true,
                },
            }
        }
        C::Int64 | C::Uint64 | C::TimeMicros | C::TimestampMillis | C::TimestampMicros => {
            need(phys == P::Int64, "INT64")?;
            match ct {
                C::Int64 => int(64, true),
                C::Uint64 => int(64, false),
                C::TimeMicros => Annotation::Time {
                    unit: Unit::Micros,
                    utc: true,
                },
                C::TimestampMillis => Annotation::Timestamp {
                    unit: Unit::Millis,
                    utc: true,
                },
                _ => Annotation::Timestamp {
                    unit: Unit::Micros,
                    utc: true,
                },
            }
        }
        C::Interval => {
            need(
                phys == P::FixedLenByteArray && len == 12,
                "FIXED_LEN_BYTE_ARRAY(12)",
            )?;
            Annotation::Interval
        }
        C::Decimal => {
            need(
                matches!(
                    phys,
                    P::Int32 | P::Int64 | P::ByteArray | P::FixedLenByteArray
                ),
                "INT32, INT64, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY",
            )?;
            let precision = e.precision.unwrap_or(0);
            let scale = e.scale.unwrap_or(0);
            if precision <= 0 {
                return Err(schema_error(format!(
                    "invalid DECIMAL precision: {precision}"
                )));
            }
            if scale < 0 || scale > precision {
                return Err(schema_error(format!(
                    "invalid DECIMAL scale {scale} for precision {precision}"
                )));
            }
            Annotation::Decimal { precision, scale }
        }
        C::Map | C::MapKeyValue | C::List => {
            return Err(schema_error(format!(
                "{} cannot annotate a primitive column",
                ct.spec_name()
            )))
        }
        // 24: the NA (null) type old parquet-cpp wrote for all-null columns, which Arrow
        // C++ reads as Null.
        C::Unknown(24) => Annotation::Null,
        // A converted type this version does not know: the plain physical type.
        C::Unknown(_) => Annotation::None,
    })
}

fn decimal_type(precision: i32, scale: i32) -> Result<DataType> {
    // Both are validated (1 <= precision, 0 <= scale <= precision) before.
    match u8::try_from(precision) {
        Ok(p) if p <= 38 => Ok(DataType::Decimal128(p, scale as i8)),
        Ok(p) if p <= 76 => Ok(DataType::Decimal256(p, scale as i8)),
        _ => Err(schema_error(format!(
            "decimal precision {precision} is out of Arrow's range 1..=76"
        ))),
    }
}

/// The Arrow type of a leaf of physical type `phys` (FIXED_LEN_BYTE_ARRAY of `len` bytes)
/// annotated `a`, and the canonical extension type that pyarrow 26 reads it as, if any (JSON
/// -> `arrow.json` on Utf8, UUID -> `arrow.uuid` on FixedSizeBinary(16)).
pub fn arrow_type(
    phys: PhysicalType,
    len: i32,
    a: Annotation,
    int96_unit: ArrowTimeUnit,
) -> Result<(DataType, Option<&'static str>)> {
    use PhysicalType as P;
    if a == Annotation::Null {
        return Ok((DataType::Null, None));
    }
    let t = match phys {
        P::Boolean => DataType::Boolean,
        P::Int32 => match a {
            Annotation::Integer { bit_width, signed } => match (bit_width, signed) {
                (8, true) => DataType::Int8,
                (8, false) => DataType::UInt8,
                (16, true) => DataType::Int16,
                (16, false) => DataType::UInt16,
                (_, true) => DataType::Int32,
                (_, false) => DataType::UInt32,
            },
            Annotation::Date => DataType::Date32,
            Annotation::Time { .. } => DataType::Time32(ArrowTimeUnit::Millisecond),
            Annotation::Decimal { precision, scale } => decimal_type(precision, scale)?,
            _ => DataType::Int32,
        },
        P::Int64 => match a {
            Annotation::Integer { signed: true, .. } => DataType::Int64,
            Annotation::Integer { signed: false, .. } => DataType::UInt64,
            Annotation::Decimal { precision, scale } => decimal_type(precision, scale)?,
            Annotation::Timestamp { unit, utc } => {
                DataType::Timestamp(unit.arrow(), utc.then(|| "UTC".into()))
            }
            Annotation::Time { unit, .. } => DataType::Time64(unit.arrow()),
            _ => DataType::Int64,
        },
        P::Int96 => DataType::Timestamp(int96_unit, None),
        P::Float => DataType::Float32,
        P::Double => DataType::Float64,
        P::ByteArray => match a {
            Annotation::String => DataType::Utf8,
            Annotation::Json => return Ok((DataType::Utf8, Some(JSON_EXTENSION))),
            Annotation::Decimal { precision, scale } => decimal_type(precision, scale)?,
            _ => DataType::Binary,
        },
        P::FixedLenByteArray => match a {
            Annotation::Decimal { precision, scale } => decimal_type(precision, scale)?,
            Annotation::Float16 => DataType::Float16,
            Annotation::Uuid => {
                return Ok((DataType::FixedSizeBinary(16), Some(UUID_EXTENSION)));
            }
            _ => DataType::FixedSizeBinary(len),
        },
        P::Unknown(v) => {
            return Err(schema_error(format!("invalid physical type {v}")));
        }
    };
    Ok((t, None))
}

/// The order of statistics of a column of physical type `phys` annotated `a`, as
/// parquet-cpp's `GetSortOrder` decides it.
pub fn sort_order(phys: PhysicalType, a: Annotation) -> SortOrder {
    use PhysicalType as P;
    match a {
        Annotation::Integer { signed: false, .. } => SortOrder::Unsigned,
        Annotation::Integer { signed: true, .. }
        | Annotation::Decimal { .. }
        | Annotation::Date
        | Annotation::Time { .. }
        | Annotation::Timestamp { .. }
        | Annotation::Float16 => SortOrder::Signed,
        Annotation::String
        | Annotation::Enum
        | Annotation::Json
        | Annotation::Bson
        | Annotation::Uuid => SortOrder::Unsigned,
        Annotation::Interval | Annotation::Geospatial => SortOrder::Unknown,
        Annotation::None | Annotation::Null => match phys {
            P::Boolean | P::Int32 | P::Int64 | P::Float | P::Double => SortOrder::Signed,
            P::ByteArray | P::FixedLenByteArray => SortOrder::Unsigned,
            P::Int96 | P::Unknown(_) => SortOrder::Unknown,
        },
    }
}
