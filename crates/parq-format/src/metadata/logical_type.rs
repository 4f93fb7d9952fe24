//! `LogicalType` (the annotation union of SchemaElement field 10) and `TimeUnit`. Unknown
//! union variants are kept raw and written back.

use super::{keep_raw, read_fields, Arena, ByteRange, EdgeInterpolationAlgorithm};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// `TimeUnit` union.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// `MILLIS`
    Millis,
    /// `MICROS`
    Micros,
    /// `NANOS`
    Nanos,
    /// A union variant this version does not know: its field id and raw struct bytes.
    Unrecognized {
        /// Field id of the variant.
        field_id: i16,
        /// Wire type of the variant.
        wire_type: u8,
        /// Raw value bytes.
        raw: ByteRange,
    },
}

impl TimeUnit {
    /// `"MILLIS"`, `"MICROS"`, `"NANOS"` or `"UNKNOWN"`.
    pub fn spec_name(self) -> &'static str {
        match self {
            TimeUnit::Millis => "MILLIS",
            TimeUnit::Micros => "MICROS",
            TimeUnit::Nanos => "NANOS",
            TimeUnit::Unrecognized { .. } => "UNKNOWN",
        }
    }
}

/// `LogicalType` union.
///
/// ```thrift
/// union LogicalType {
///   1: StringType STRING; 2: MapType MAP; 3: ListType LIST; 4: EnumType ENUM;
///   5: DecimalType DECIMAL; 6: DateType DATE; 7: TimeType TIME; 8: TimestampType TIMESTAMP;
///   10: IntType INTEGER; 11: NullType UNKNOWN; 12: JsonType JSON; 13: BsonType BSON;
///   14: UUIDType UUID; 15: Float16Type FLOAT16; 16: VariantType VARIANT;
///   17: GeometryType GEOMETRY; 18: GeographyType GEOGRAPHY;
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicalType {
    /// `STRING`: UTF-8 text.
    String,
    /// `MAP`
    Map,
    /// `LIST`
    List,
    /// `ENUM`
    Enum,
    /// `DECIMAL(precision, scale)`
    Decimal {
        /// Digits after the decimal point.
        scale: i32,
        /// Total digits.
        precision: i32,
    },
    /// `DATE`
    Date,
    /// `TIME`
    Time {
        /// Adjusted to UTC.
        is_adjusted_to_utc: bool,
        /// Unit.
        unit: TimeUnit,
    },
    /// `TIMESTAMP`
    Timestamp {
        /// Adjusted to UTC (an instant) or local (wall clock).
        is_adjusted_to_utc: bool,
        /// Unit.
        unit: TimeUnit,
    },
    /// `INTEGER(bit_width, is_signed)`
    Integer {
        /// 8, 16, 32 or 64.
        bit_width: i8,
        /// Signed or unsigned.
        is_signed: bool,
    },
    /// `UNKNOWN` (the spec's NullType: always null).
    Unknown,
    /// `JSON`
    Json,
    /// `BSON`
    Bson,
    /// `UUID`
    Uuid,
    /// `FLOAT16`
    Float16,
    /// `VARIANT`
    Variant {
        /// `specification_version`, when set.
        specification_version: Option<i8>,
    },
    /// `GEOMETRY`
    Geometry {
        /// Coordinate reference system, when set (a range of the schema's buffer).
        crs: Option<ByteRange>,
    },
    /// `GEOGRAPHY`
    Geography {
        /// Coordinate reference system, when set (a range of the schema's buffer).
        crs: Option<ByteRange>,
        /// Edge interpolation algorithm, when set.
        algorithm: Option<EdgeInterpolationAlgorithm>,
    },
    /// A union variant this version does not know: its field id, wire type and raw bytes.
    Unrecognized {
        /// Field id of the variant.
        field_id: i16,
        /// Wire type of the variant.
        wire_type: u8,
        /// Raw value bytes.
        raw: ByteRange,
    },
}

impl LogicalType {
    const NAME: &'static str = "LogicalType";

    /// The spec name of the variant, e.g. `"TIMESTAMP"`.
    pub fn spec_name(&self) -> &'static str {
        use LogicalType::*;
        match self {
            String => "STRING",
            Map => "MAP",
            List => "LIST",
            Enum => "ENUM",
            Decimal { .. } => "DECIMAL",
            Date => "DATE",
            Time { .. } => "TIME",
            Timestamp { .. } => "TIMESTAMP",
            Integer { .. } => "INTEGER",
            Unknown => "UNKNOWN",
            Json => "JSON",
            Bson => "BSON",
            Uuid => "UUID",
            Float16 => "FLOAT16",
            Variant { .. } => "VARIANT",
            Geometry { .. } => "GEOMETRY",
            Geography { .. } => "GEOGRAPHY",
            Unrecognized { .. } => "UNRECOGNIZED",
        }
    }

    /// Decodes the union. Byte values go to `arena`.
    pub fn decode(r: &mut Reader<'_>, arena: &mut Arena) -> Result<Self> {
        let mut id = 0i16;
        r.enter()?;
        let mut out = None;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            if out.is_some() {
                // A union has one field; extra ones are skipped (lenient, like parquet-cpp).
                r.skip_field(ty).map_err(|e| e.in_field(Self::NAME, id))?;
                continue;
            }
            let v =
                Self::decode_variant(r, arena, id, ty).map_err(|e| e.in_field(Self::NAME, id))?;
            out = Some(v);
        }
        r.leave();
        match out {
            Some(v) => Ok(v),
            None => Err(super::missing(r, Self::NAME, "<union variant>")),
        }
    }

    fn decode_variant(r: &mut Reader<'_>, arena: &mut Arena, id: i16, ty: u8) -> Result<Self> {
        use LogicalType::*;
        if ty != wire::STRUCT {
            return keep_raw(r, &mut Some(&mut *arena), ty).map(|raw| Unrecognized {
                field_id: id,
                wire_type: ty,
                raw,
            });
        }
        let empty = |r: &mut Reader<'_>, v: LogicalType| r.skip_struct().map(|_| v);
        match id {
            1 => empty(r, String),
            2 => empty(r, Map),
            3 => empty(r, List),
            4 => empty(r, Enum),
            5 => {
                let (mut scale, mut precision) = (None, None);
                read_fields(r, "DecimalType", |r, fid, fty| match (fid, fty) {
                    (1, wire::I32) => r.read_i32().map(|v| scale = Some(v)).map(|_| true),
                    (2, wire::I32) => r.read_i32().map(|v| precision = Some(v)).map(|_| true),
                    _ => Ok(false),
                })?;
                Ok(Decimal {
                    scale: scale.ok_or_else(|| super::missing(r, "DecimalType", "scale"))?,
                    precision: precision
                        .ok_or_else(|| super::missing(r, "DecimalType", "precision"))?,
                })
            }
            6 => empty(r, Date),
            7 | 8 => {
                let name = if id == 7 { "TimeType" } else { "TimestampType" };
                let (mut utc, mut unit) = (None, None);
                read_fields(r, name, |r, fid, fty| match (fid, fty) {
                    (1, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                        utc = Some(fty == wire::BOOL_TRUE);
                        Ok(true)
                    }
                    (2, wire::STRUCT) => TimeUnit::decode(r, arena)
                        .map(|u| unit = Some(u))
                        .map(|_| true),
                    _ => Ok(false),
                })?;
                let is_adjusted_to_utc =
                    utc.ok_or_else(|| super::missing(r, name, "isAdjustedToUTC"))?;
                let unit = unit.ok_or_else(|| super::missing(r, name, "unit"))?;
                Ok(if id == 7 {
                    Time {
                        is_adjusted_to_utc,
                        unit,
                    }
                } else {
                    Timestamp {
                        is_adjusted_to_utc,
                        unit,
                    }
                })
            }
            10 => {
                let (mut bw, mut signed) = (None, None);
                read_fields(r, "IntType", |r, fid, fty| match (fid, fty) {
                    (1, wire::BYTE) => r.read_i8().map(|v| bw = Some(v)).map(|_| true),
                    (2, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                        signed = Some(fty == wire::BOOL_TRUE);
                        Ok(true)
                    }
                    _ => Ok(false),
                })?;
                Ok(Integer {
                    bit_width: bw.ok_or_else(|| super::missing(r, "IntType", "bitWidth"))?,
                    is_signed: signed.ok_or_else(|| super::missing(r, "IntType", "isSigned"))?,
                })
            }
            11 => empty(r, Unknown),
            12 => empty(r, Json),
            13 => empty(r, Bson),
            14 => empty(r, Uuid),
            15 => empty(r, Float16),
            16 => {
                let mut version = None;
                read_fields(r, "VariantType", |r, fid, fty| match (fid, fty) {
                    (1, wire::BYTE) => r.read_i8().map(|v| version = Some(v)).map(|_| true),
                    _ => Ok(false),
                })?;
                Ok(Variant {
                    specification_version: version,
                })
            }
            17 | 18 => {
                let name = if id == 17 {
                    "GeometryType"
                } else {
                    "GeographyType"
                };
                let (mut crs, mut algorithm) = (None, None);
                read_fields(r, name, |r, fid, fty| match (fid, fty) {
                    (1, wire::BINARY) => {
                        let b = r.read_binary()?;
                        crs = Some(arena.push(b));
                        Ok(true)
                    }
                    (2, wire::I32) if id == 18 => r
                        .read_i32()
                        .map(|v| algorithm = Some(EdgeInterpolationAlgorithm::from_thrift(v)))
                        .map(|_| true),
                    _ => Ok(false),
                })?;
                Ok(if id == 17 {
                    Geometry { crs }
                } else {
                    Geography { crs, algorithm }
                })
            }
            _ => keep_raw(r, &mut Some(&mut *arena), ty).map(|raw| Unrecognized {
                field_id: id,
                wire_type: ty,
                raw,
            }),
        }
    }

    /// Encodes the union; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        use LogicalType::*;
        let mut last = 0i16;
        let empty = |w: &mut Writer<'_>, id: i16, last: &mut i16| {
            w.write_field_header(wire::STRUCT, id, last);
            w.write_stop();
        };
        match *self {
            String => empty(w, 1, &mut last),
            Map => empty(w, 2, &mut last),
            List => empty(w, 3, &mut last),
            Enum => empty(w, 4, &mut last),
            Decimal { scale, precision } => {
                w.write_field_header(wire::STRUCT, 5, &mut last);
                let mut l = 0;
                w.write_field_header(wire::I32, 1, &mut l);
                w.write_i32(scale);
                w.write_field_header(wire::I32, 2, &mut l);
                w.write_i32(precision);
                w.write_stop();
            }
            Date => empty(w, 6, &mut last),
            Time {
                is_adjusted_to_utc,
                unit,
            }
            | Timestamp {
                is_adjusted_to_utc,
                unit,
            } => {
                let id = if matches!(self, Time { .. }) { 7 } else { 8 };
                w.write_field_header(wire::STRUCT, id, &mut last);
                let mut l = 0;
                w.write_bool_field(1, is_adjusted_to_utc, &mut l);
                w.write_field_header(wire::STRUCT, 2, &mut l);
                unit.encode(w, buf);
                w.write_stop();
            }
            Integer {
                bit_width,
                is_signed,
            } => {
                w.write_field_header(wire::STRUCT, 10, &mut last);
                let mut l = 0;
                w.write_field_header(wire::BYTE, 1, &mut l);
                w.write_i8(bit_width);
                w.write_bool_field(2, is_signed, &mut l);
                w.write_stop();
            }
            Unknown => empty(w, 11, &mut last),
            Json => empty(w, 12, &mut last),
            Bson => empty(w, 13, &mut last),
            Uuid => empty(w, 14, &mut last),
            Float16 => empty(w, 15, &mut last),
            Variant {
                specification_version,
            } => {
                w.write_field_header(wire::STRUCT, 16, &mut last);
                if let Some(v) = specification_version {
                    let mut l = 0;
                    w.write_field_header(wire::BYTE, 1, &mut l);
                    w.write_i8(v);
                }
                w.write_stop();
            }
            Geometry { crs } | Geography { crs, .. } => {
                let id = if matches!(self, Geometry { .. }) {
                    17
                } else {
                    18
                };
                w.write_field_header(wire::STRUCT, id, &mut last);
                let mut l = 0;
                if let Some(c) = crs {
                    w.write_field_header(wire::BINARY, 1, &mut l);
                    w.write_binary(c.slice(buf));
                }
                if let Geography {
                    algorithm: Some(a), ..
                } = self
                {
                    w.write_field_header(wire::I32, 2, &mut l);
                    w.write_i32(a.to_thrift());
                }
                w.write_stop();
            }
            Unrecognized {
                field_id,
                wire_type,
                raw,
            } => {
                w.write_field_header(wire_type, field_id, &mut last);
                w.write_raw(raw.slice(buf));
            }
        }
        w.write_stop();
    }
}

impl TimeUnit {
    fn decode(r: &mut Reader<'_>, arena: &mut Arena) -> Result<Self> {
        let mut id = 0i16;
        let mut out = None;
        r.enter()?;
        while let Some(ty) = r.read_field_header(&mut id)? {
            if out.is_some() {
                r.skip_field(ty)?;
                continue;
            }
            out = Some(match (id, ty) {
                (1, wire::STRUCT) => r.skip_struct().map(|_| TimeUnit::Millis)?,
                (2, wire::STRUCT) => r.skip_struct().map(|_| TimeUnit::Micros)?,
                (3, wire::STRUCT) => r.skip_struct().map(|_| TimeUnit::Nanos)?,
                _ => {
                    let raw = keep_raw(r, &mut Some(&mut *arena), ty)?;
                    TimeUnit::Unrecognized {
                        field_id: id,
                        wire_type: ty,
                        raw,
                    }
                }
            });
        }
        r.leave();
        out.ok_or_else(|| super::missing(r, "TimeUnit", "<union variant>"))
    }

    fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut last = 0i16;
        match *self {
            TimeUnit::Millis | TimeUnit::Micros | TimeUnit::Nanos => {
                let id = match self {
                    TimeUnit::Millis => 1,
                    TimeUnit::Micros => 2,
                    _ => 3,
                };
                w.write_field_header(wire::STRUCT, id, &mut last);
                w.write_stop();
            }
            TimeUnit::Unrecognized {
                field_id,
                wire_type,
                raw,
            } => {
                w.write_field_header(wire_type, field_id, &mut last);
                w.write_raw(raw.slice(buf));
            }
        }
        w.write_stop();
    }
}
