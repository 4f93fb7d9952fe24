//! Arrow schema -> Parquet schema for the writer: groups for lists, maps and structs, leaves
//! typed and annotated as pyarrow 26 writes them (and, for intervals, which pyarrow 26 refuses,
//! as arrow-rs 60.1 writes them), and the `ARROW:schema` key-value (the base64 of an Arrow IPC
//! schema message behind the `0xFFFFFFFF` continuation marker and its length, as pyarrow and
//! arrow-rs embed it) so that Arrow readers get the exact types back.
//!
//! | Arrow | Parquet (physical, logical / converted) |
//! |---|---|
//! | Boolean | BOOLEAN |
//! | Int8, Int16 / UInt8, UInt16, UInt32 | INT32 INTEGER(n, signed) / INT_n, UINT_n |
//! | Int32, Int64 | INT32, INT64 (no annotation) |
//! | UInt64 | INT64 INTEGER(64, false) / UINT_64 |
//! | Float16 | FIXED_LEN_BYTE_ARRAY(2) FLOAT16 |
//! | Float32, Float64 | FLOAT, DOUBLE |
//! | Utf8, LargeUtf8, Utf8View | BYTE_ARRAY STRING / UTF8 |
//! | Binary, LargeBinary, BinaryView | BYTE_ARRAY |
//! | the same with extension `geoarrow.wkb` | BYTE_ARRAY GEOMETRY, or GEOGRAPHY when its metadata has `edges` (GEOMETRY with `GeospatialStatistics`; no min/max) |
//! | FixedSizeBinary(n) | FIXED_LEN_BYTE_ARRAY(n) |
//! | Struct with extension `arrow.parquet.variant` | group VARIANT(1) of `metadata`, `value` (and `typed_value`, shredded) |
//! | Decimal32/64/128/256(p, s) | FIXED_LEN_BYTE_ARRAY(bytes for p) DECIMAL(p, s) / DECIMAL; with `decimal_as_integer`, and always in a Variant's `typed_value`: INT32 for p <= 9, INT64 for p <= 18 (as pyarrow's `store_decimal_as_integer`) |
//! | FixedSizeBinary(16) with extension `arrow.uuid` | FIXED_LEN_BYTE_ARRAY(16) UUID |
//! | Date32, Date64 | INT32 DATE / DATE (Date64 values divided to days) |
//! | Time32(s, ms) | INT32 TIME(MILLIS, local) (seconds multiplied by 1000) |
//! | Time64(us, ns) | INT64 TIME(MICROS / NANOS, local) |
//! | Timestamp(unit, tz) | INT64 TIMESTAMP(ms/us/ns, UTC-adjusted iff tz) (seconds -> ms); TIMESTAMP_MILLIS/MICROS when UTC-adjusted |
//! | Duration | INT64 (unit restored from `ARROW:schema`) |
//! | Interval(YearMonth), Interval(DayTime) | FIXED_LEN_BYTE_ARRAY(12) / INTERVAL (no logical type): (months, 0, 0) / (0, days, milliseconds) |
//! | Dictionary(K, V), any integer K | the mapping of V (the values written; readers restore the dictionary from `ARROW:schema`: pyarrow 26 and parq over byte strings only, arrow-rs over any V) |
//! | Null | INT32 UNKNOWN, always OPTIONAL (also as the values of a dictionary) |
//!
//! INTERVAL is three little-endian 32-bit integers (months, days, milliseconds). As arrow-rs
//! 60.1 does (it reads them back), negative Arrow months, days or milliseconds are written as
//! their two's complement bits, though the spec calls the three numbers unsigned: a reader
//! following the spec sees `2^32 - n` for `-n`. INTERVAL has no sort order, so its columns get
//! no min/max statistics (the null count only) and no column index. Interval(MonthDayNano) is
//! refused (nanoseconds and month/day/nanosecond triples have no lossless INTERVAL form;
//! arrow-rs 60.1 refuses it too, pyarrow 26 refuses every interval).
//!
//! Lists, large lists, list views, fixed-size lists and maps are three-level LIST and MAP
//! groups, structs plain groups (see [`to_parquet_schema`]). Types without a Parquet mapping
//! (unions, run-end encoded arrays, structs without fields) are refused with an error naming
//! the field, before anything is written. A nullable field is OPTIONAL, else REQUIRED; the
//! field metadata `PARQUET:field_id` becomes `field_id`.

use arrow_schema::{
    DataType, Field, IntervalUnit, Schema as ArrowSchema, TimeUnit as ArrowTimeUnit,
};
use base64::Engine;

use crate::format::metadata::{
    ByteRange, ConvertedType, LogicalType, PhysicalType, Repetition, Schema, SchemaElement,
    TimeUnit, UnknownFields,
};
use crate::schema::tree::EXTENSION_NAME_KEY;
use crate::{Error, ErrorKind, Result};

/// The key of the embedded Arrow schema.
pub const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// The Parquet type of one leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafType {
    /// Physical type.
    pub physical: PhysicalType,
    /// FIXED_LEN_BYTE_ARRAY width.
    pub type_length: Option<i32>,
    /// Logical type.
    pub logical: Option<LogicalType>,
    /// Legacy converted type.
    pub converted: Option<ConvertedType>,
    /// Decimal precision and scale.
    pub decimal: Option<(i32, i32)>,
}

#[cold]
fn unsupported(field: &str, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Unsupported(format!(
        "cannot write column `{field}`: {message}"
    )))
}

/// The integer physical type of a decimal of `precision` digits written as an integer
/// (INT32 up to 9 digits, INT64 up to 18), `None` when it needs more than 64 bits.
pub fn integer_decimal(precision: u8) -> Option<PhysicalType> {
    match precision {
        0..=9 => Some(PhysicalType::Int32),
        10..=18 => Some(PhysicalType::Int64),
        _ => None,
    }
}

/// Leaf type `t` with its DECIMAL stored as an INT32 or INT64 when its precision allows;
/// other types as they are.
fn as_integer_decimal(t: LeafType) -> LeafType {
    match t.decimal {
        Some((p, _)) if t.physical == PhysicalType::FixedLenByteArray => {
            match u8::try_from(p).ok().and_then(integer_decimal) {
                Some(physical) => LeafType {
                    physical,
                    type_length: None,
                    ..t
                },
                None => t,
            }
        }
        _ => t,
    }
}

/// The fewest bytes of a two's complement integer holding every decimal of `precision` digits.
pub fn decimal_width(precision: u8) -> usize {
    (1..=32)
        .find(|&n: &usize| {
            // Digits that always fit n bytes: floor(log10(2^(8n - 1) - 1)).
            ((8 * n - 1) as f64 * std::f64::consts::LOG10_2).floor() as usize
                >= usize::from(precision)
        })
        .unwrap_or(32)
}

fn leaf(physical: PhysicalType) -> LeafType {
    LeafType {
        physical,
        type_length: None,
        logical: None,
        converted: None,
        decimal: None,
    }
}

fn int(physical: PhysicalType, bits: i8, signed: bool, converted: ConvertedType) -> LeafType {
    LeafType {
        logical: Some(LogicalType::Integer {
            bit_width: bits,
            is_signed: signed,
        }),
        converted: Some(converted),
        ..leaf(physical)
    }
}

fn decimal(field: &str, precision: u8, scale: i8) -> Result<LeafType> {
    if precision == 0 || precision > 76 {
        return Err(unsupported(
            field,
            format_args!("decimal precision {precision} is outside 1..=76"),
        ));
    }
    Ok(LeafType {
        type_length: Some(decimal_width(precision) as i32),
        logical: Some(LogicalType::Decimal {
            scale: i32::from(scale),
            precision: i32::from(precision),
        }),
        converted: Some(ConvertedType::Decimal),
        decimal: Some((i32::from(precision), i32::from(scale))),
        ..leaf(PhysicalType::FixedLenByteArray)
    })
}

/// The Parquet type of a leaf of Arrow type `dt` (field `field`, for errors).
pub fn leaf_type(field: &str, dt: &DataType) -> Result<LeafType> {
    use PhysicalType as P;
    Ok(match dt {
        DataType::Null => LeafType {
            logical: Some(LogicalType::Unknown),
            ..leaf(P::Int32)
        },
        DataType::Boolean => leaf(P::Boolean),
        DataType::Int8 => int(P::Int32, 8, true, ConvertedType::Int8),
        DataType::Int16 => int(P::Int32, 16, true, ConvertedType::Int16),
        DataType::Int32 => leaf(P::Int32),
        DataType::Int64 => leaf(P::Int64),
        DataType::UInt8 => int(P::Int32, 8, false, ConvertedType::Uint8),
        DataType::UInt16 => int(P::Int32, 16, false, ConvertedType::Uint16),
        DataType::UInt32 => int(P::Int32, 32, false, ConvertedType::Uint32),
        DataType::UInt64 => int(P::Int64, 64, false, ConvertedType::Uint64),
        DataType::Float16 => LeafType {
            type_length: Some(2),
            logical: Some(LogicalType::Float16),
            ..leaf(P::FixedLenByteArray)
        },
        DataType::Float32 => leaf(P::Float),
        DataType::Float64 => leaf(P::Double),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => LeafType {
            logical: Some(LogicalType::String),
            converted: Some(ConvertedType::Utf8),
            ..leaf(P::ByteArray)
        },
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => leaf(P::ByteArray),
        DataType::FixedSizeBinary(n) => {
            if *n < 1 {
                return Err(unsupported(
                    field,
                    format_args!("FixedSizeBinary({n}) has no Parquet type (width 0)"),
                ));
            }
            LeafType {
                type_length: Some(*n),
                ..leaf(P::FixedLenByteArray)
            }
        }
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) => decimal(field, *p, *s)?,
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => decimal(field, *p, *s)?,
        DataType::Date32 | DataType::Date64 => LeafType {
            logical: Some(LogicalType::Date),
            converted: Some(ConvertedType::Date),
            ..leaf(P::Int32)
        },
        DataType::Time32(_) => LeafType {
            logical: Some(LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: TimeUnit::Millis,
            }),
            ..leaf(P::Int32)
        },
        DataType::Time64(u) => LeafType {
            logical: Some(LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: if *u == ArrowTimeUnit::Nanosecond {
                    TimeUnit::Nanos
                } else {
                    TimeUnit::Micros
                },
            }),
            ..leaf(P::Int64)
        },
        DataType::Timestamp(u, tz) => {
            let utc = tz.is_some();
            let unit = match u {
                ArrowTimeUnit::Second | ArrowTimeUnit::Millisecond => TimeUnit::Millis,
                ArrowTimeUnit::Microsecond => TimeUnit::Micros,
                ArrowTimeUnit::Nanosecond => TimeUnit::Nanos,
            };
            let converted = match (utc, unit) {
                (true, TimeUnit::Millis) => Some(ConvertedType::TimestampMillis),
                (true, TimeUnit::Micros) => Some(ConvertedType::TimestampMicros),
                _ => None,
            };
            LeafType {
                logical: Some(LogicalType::Timestamp {
                    is_adjusted_to_utc: utc,
                    unit,
                }),
                converted,
                ..leaf(P::Int64)
            }
        }
        DataType::Duration(_) => leaf(P::Int64),
        DataType::Dictionary(k, v) => {
            if !k.is_dictionary_key_type() {
                return Err(unsupported(
                    field,
                    format_args!("dictionary keys of type {k} (integers only)"),
                ));
            }
            if matches!(**v, DataType::Dictionary(..)) {
                return Err(unsupported(field, "a dictionary of dictionaries"));
            }
            leaf_type(field, v)?
        }
        DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => LeafType {
            type_length: Some(12),
            converted: Some(ConvertedType::Interval),
            ..leaf(P::FixedLenByteArray)
        },
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            return Err(unsupported(
                field,
                format_args!(
                    "{dt} has no lossless Parquet mapping (INTERVAL holds months, days and \
                     milliseconds; arrow-rs 60.1 refuses it too)"
                ),
            ))
        }
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::ListView(_)
        | DataType::LargeListView(_)
        | DataType::FixedSizeList(..)
        | DataType::Struct(_)
        | DataType::Map(..) => {
            return Err(unsupported(
                field,
                format_args!("{dt} is a group, not a leaf"),
            ))
        }
        DataType::Union(..) | DataType::RunEndEncoded(..) => {
            return Err(unsupported(
                field,
                format_args!("{dt} has no Parquet mapping"),
            ))
        }
        #[allow(unreachable_patterns)]
        other => {
            return Err(unsupported(
                field,
                format_args!("{other} has no Parquet mapping"),
            ))
        }
    })
}

/// One leaf column of the written schema.
#[derive(Debug, Clone)]
pub struct LeafColumn {
    /// The leaf's Parquet type.
    pub ty: LeafType,
    /// The leaf's Arrow type (the values below every list, struct and map).
    pub data_type: DataType,
    /// The index of the top-level field the leaf belongs to.
    pub field: usize,
    /// The child taken at each struct and map on the way from the field to the leaf (a
    /// map's key is child 0, its value child 1); empty for a flat field.
    pub path: Vec<usize>,
    /// True when the field is a list, map or struct (the leaf has levels of its own).
    pub nested: bool,
}

/// Builds the elements of a schema, depth first, with their names in one buffer.
struct Builder {
    names: Vec<u8>,
    elements: Vec<SchemaElement>,
    leaves: Vec<LeafColumn>,
    compliant: bool,
    /// Decimals of up to 18 digits as INT32 / INT64 everywhere.
    decimal_as_integer: bool,
    /// Variant groups around the element being built (their `typed_value` decimals are
    /// integers whatever `decimal_as_integer` says, as the shredding spec requires).
    in_variant: usize,
    /// The path to the element being built (see [`LeafColumn::path`]).
    path: Vec<usize>,
}

impl Builder {
    fn name(&mut self, n: &str) -> ByteRange {
        let r = ByteRange::new(self.names.len(), n.len());
        self.names.extend_from_slice(n.as_bytes());
        r
    }

    /// A group element with `children` children.
    fn group(
        &mut self,
        name: &str,
        repetition: Repetition,
        children: usize,
        annotation: Option<(Option<ConvertedType>, LogicalType)>,
        field_id: Option<i32>,
        path: &str,
    ) -> Result<()> {
        let name = self.name(name);
        self.elements.push(SchemaElement {
            physical_type: None,
            type_length: None,
            repetition: Some(repetition),
            name,
            num_children: Some(
                i32::try_from(children).map_err(|_| unsupported(path, "too many children"))?,
            ),
            converted_type: annotation.and_then(|a| a.0),
            scale: None,
            precision: None,
            field_id,
            logical_type: annotation.map(|a| a.1),
            unknown: UnknownFields::default(),
        });
        Ok(())
    }

    /// The elements of field `f` (named `name`; `path`: its dotted Arrow path, for errors)
    /// and of everything below it; the leaves go to `self.leaves`, as parts of top-level
    /// field `top`.
    fn field(&mut self, f: &Field, name: &str, path: &str, top: usize) -> Result<()> {
        let repetition = if f.is_nullable() {
            Repetition::Optional
        } else {
            Repetition::Required
        };
        let field_id = field_id(f)?;
        match f.data_type() {
            DataType::List(child)
            | DataType::LargeList(child)
            | DataType::ListView(child)
            | DataType::LargeListView(child)
            | DataType::FixedSizeList(child, _) => {
                let list = Some((Some(ConvertedType::List), LogicalType::List));
                self.group(name, repetition, 1, list, field_id, path)?;
                self.group("list", Repetition::Repeated, 1, None, None, path)?;
                let element = if self.compliant {
                    "element"
                } else {
                    child.name()
                };
                self.field(child, element, &format!("{path}.{}", child.name()), top)
            }
            DataType::Map(entries, _) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(unsupported(path, "map entries that are not a struct"));
                };
                let [key, value] = kv.iter().collect::<Vec<_>>()[..] else {
                    return Err(unsupported(path, "map entries without two fields"));
                };
                if key.is_nullable() {
                    return Err(unsupported(path, "map keys that may be null"));
                }
                let map = Some((Some(ConvertedType::Map), LogicalType::Map));
                self.group(name, repetition, 1, map, field_id, path)?;
                self.group("key_value", Repetition::Repeated, 2, None, None, path)?;
                self.path.push(0);
                self.field(key, "key", &format!("{path}.{}", key.name()), top)?;
                if let Some(last) = self.path.last_mut() {
                    *last = 1;
                }
                self.field(value, "value", &format!("{path}.{}", value.name()), top)?;
                self.path.pop();
                Ok(())
            }
            DataType::Struct(children) => {
                if children.is_empty() {
                    return Err(unsupported(
                        path,
                        "a struct without fields has no Parquet group",
                    ));
                }
                let variant = super::variant::logical_type(f)?.map(|v| (None, v));
                let is_variant = usize::from(variant.is_some());
                self.group(name, repetition, children.len(), variant, field_id, path)?;
                self.in_variant += is_variant;
                for (i, c) in children.iter().enumerate() {
                    self.path.push(i);
                    self.field(c, c.name(), &format!("{path}.{}", c.name()), top)?;
                    self.path.pop();
                }
                self.in_variant -= is_variant;
                Ok(())
            }
            dt => {
                let mut t = leaf_type(path, dt)?;
                if self.decimal_as_integer || self.in_variant > 0 {
                    t = as_integer_decimal(t);
                }
                if let Some(g) = super::geo::logical_type(f, path, &mut self.names)? {
                    t.logical = Some(g);
                }
                if is_uuid(f) {
                    t.logical = Some(LogicalType::Uuid);
                }
                let name = self.name(name);
                self.elements.push(element(f, &t, name, field_id));
                self.leaves.push(LeafColumn {
                    ty: t,
                    data_type: dt.clone(),
                    field: top,
                    path: self.path.clone(),
                    nested: false,
                });
                Ok(())
            }
        }
    }
}

/// The Parquet schema of an Arrow schema, and its leaves (in schema order). Lists (all
/// five Arrow kinds) are three-level LIST groups (`<name> (LIST) { repeated group list {
/// <element> } }`), maps `<name> (MAP) { repeated group key_value { key; value } }`, as
/// pyarrow 26 writes them; the element of a list is named `element` when `compliant`, else
/// after its Arrow field (pyarrow's `use_compliant_nested_type=False`). Decimals of up to 18
/// digits are INT32 / INT64 when `decimal_as_integer` (and in Variant groups), else
/// FIXED_LEN_BYTE_ARRAY.
pub fn to_parquet_schema(
    schema: &ArrowSchema,
    compliant: bool,
    decimal_as_integer: bool,
) -> Result<(Schema, Vec<LeafColumn>)> {
    let n = schema.fields().len();
    let mut b = Builder {
        names: Vec::new(),
        elements: Vec::with_capacity(n + 1),
        leaves: Vec::with_capacity(n),
        compliant,
        decimal_as_integer,
        in_variant: 0,
        path: Vec::new(),
    };
    let name = b.name("schema");
    b.elements.push(SchemaElement {
        physical_type: None,
        type_length: None,
        repetition: None,
        name,
        num_children: Some(
            i32::try_from(n).map_err(|_| unsupported("<schema>", "too many columns"))?,
        ),
        converted_type: None,
        scale: None,
        precision: None,
        field_id: None,
        logical_type: None,
        unknown: UnknownFields::default(),
    });
    for (i, f) in schema.fields().iter().enumerate() {
        let first = b.leaves.len();
        b.field(f, f.name(), f.name(), i)?;
        let nested = is_group(f.data_type());
        for l in b.leaves.get_mut(first..).unwrap_or_default() {
            l.nested = nested;
        }
    }
    let schema = Schema::from_elements(
        b.elements,
        bytes::Bytes::from(b.names),
        ByteRange::default(),
    )?;
    Ok((schema, b.leaves))
}

/// True for the Arrow types written as groups (lists, maps, structs).
pub(super) fn is_group(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::FixedSizeList(..)
            | DataType::Map(..)
            | DataType::Struct(_)
    )
}

/// True for a FixedSizeBinary(16) field of extension `arrow.uuid` (written as UUID).
fn is_uuid(f: &Field) -> bool {
    *f.data_type() == DataType::FixedSizeBinary(16)
        && f.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
            == Some(crate::schema::annotation::UUID_EXTENSION)
}

/// The field's `PARQUET:field_id` metadata.
fn field_id(f: &Field) -> Result<Option<i32>> {
    match f.metadata().get("PARQUET:field_id") {
        Some(v) => Ok(Some(v.trim().parse::<i32>().map_err(|_| {
            unsupported(
                f.name(),
                format_args!("PARQUET:field_id `{v}` is not an integer"),
            )
        })?)),
        None => Ok(None),
    }
}

fn element(f: &Field, t: &LeafType, name: ByteRange, field_id: Option<i32>) -> SchemaElement {
    let null_type = match f.data_type() {
        DataType::Dictionary(_, v) => **v == DataType::Null,
        t => *t == DataType::Null,
    };
    let repetition = if f.is_nullable() || null_type {
        Repetition::Optional
    } else {
        Repetition::Required
    };
    SchemaElement {
        physical_type: Some(t.physical),
        type_length: t.type_length,
        repetition: Some(repetition),
        name,
        num_children: None,
        converted_type: t.converted,
        scale: t.decimal.map(|d| d.1),
        precision: t.decimal.map(|d| d.0),
        field_id,
        logical_type: t.logical,
        unknown: UnknownFields::default(),
    }
}

/// The `ARROW:schema` value of `schema`: base64 (standard alphabet, padded) of the
/// continuation marker, the message length (little-endian `u32`) and the IPC schema message.
pub fn encode_arrow_schema(schema: &ArrowSchema) -> String {
    let generator = arrow_ipc::writer::IpcDataGenerator::default();
    let mut tracker = arrow_ipc::writer::DictionaryTracker::new(true);
    let options = arrow_ipc::writer::IpcWriteOptions::default();
    let encoded = generator.schema_to_bytes_with_dictionary_tracker(schema, &mut tracker, &options);
    let msg = encoded.ipc_message;
    let mut framed = Vec::with_capacity(msg.len() + 8);
    framed.extend_from_slice(&[0xff; 4]);
    framed.extend_from_slice(&(msg.len() as u32).to_le_bytes());
    framed.extend_from_slice(&msg);
    base64::engine::general_purpose::STANDARD.encode(&framed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_widths_match_pyarrow() {
        for (p, w) in [
            (1, 1),
            (2, 1),
            (3, 2),
            (5, 3),
            (9, 4),
            (15, 7),
            (18, 8),
            (38, 16),
            (76, 32),
        ] {
            assert_eq!(decimal_width(p), w, "precision {p}");
        }
    }
}
