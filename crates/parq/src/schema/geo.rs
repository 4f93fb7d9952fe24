//! GEOMETRY and GEOGRAPHY columns as the GeoArrow `geoarrow.wkb` extension type, the way
//! arrow-rs (`parquet` 60.1) maps them.
//!
//! Reading: the column is `Binary` WKB with `ARROW:extension:name = geoarrow.wkb` and
//! `ARROW:extension:metadata` a JSON object with `crs` and, for GEOGRAPHY, `edges`:
//!
//! - an omitted Parquet CRS is the spec's default `OGC:CRS84`, written out;
//! - `srid:0` (an unset CRS) omits `crs`;
//! - any other CRS is embedded as JSON when it parses as JSON (PROJJSON), else as a string
//!   (`srid:5070`, `projjson:key`, `EPSG:3857`);
//! - `edges` is the lowercase edge interpolation algorithm (`spherical` when omitted).
//!
//! Writing is the reverse: `edges` makes a GEOGRAPHY (its algorithm omitted when spherical),
//! no `edges` a GEOMETRY; a missing `crs` becomes `srid:0`, a longitude/latitude CRS
//! (`OGC:CRS84`, `EPSG:4326` or PROJJSON with either id) the default (omitted), any other
//! CRS its string (a JSON CRS its compact JSON text).

use parq_format::metadata::{EdgeInterpolationAlgorithm, LogicalType};
use serde_json::{Map, Value};

use super::annotation::schema_error;
use crate::{Error, ErrorKind, Result};

/// `ARROW:extension:name` of GeoArrow's well-known binary extension type.
pub const WKB_EXTENSION: &str = "geoarrow.wkb";

/// The CRS that an omitted Parquet CRS stands for.
const DEFAULT_CRS: &str = "OGC:CRS84";

fn edges_name(a: EdgeInterpolationAlgorithm) -> Option<&'static str> {
    Some(match a {
        EdgeInterpolationAlgorithm::Spherical => "spherical",
        EdgeInterpolationAlgorithm::Vincenty => "vincenty",
        EdgeInterpolationAlgorithm::Thomas => "thomas",
        EdgeInterpolationAlgorithm::Andoyer => "andoyer",
        EdgeInterpolationAlgorithm::Karney => "karney",
        EdgeInterpolationAlgorithm::Unknown(_) => return None,
    })
}

fn edges_from_name(s: &str) -> Option<EdgeInterpolationAlgorithm> {
    Some(match s {
        "spherical" => EdgeInterpolationAlgorithm::Spherical,
        "vincenty" => EdgeInterpolationAlgorithm::Vincenty,
        "thomas" => EdgeInterpolationAlgorithm::Thomas,
        "andoyer" => EdgeInterpolationAlgorithm::Andoyer,
        "karney" => EdgeInterpolationAlgorithm::Karney,
        _ => return None,
    })
}

/// The `ARROW:extension:metadata` JSON of a GEOMETRY or GEOGRAPHY logical type whose CRS
/// ranges point into `buf`; `None` for other logical types. An unknown edge algorithm is an
/// error, as in arrow-rs.
pub fn extension_metadata(lt: &LogicalType, buf: &[u8]) -> Result<Option<String>> {
    let (crs, edges) = match lt {
        LogicalType::Geometry { crs } => (crs, None),
        LogicalType::Geography { crs, algorithm } => {
            let a = algorithm.unwrap_or(EdgeInterpolationAlgorithm::Spherical);
            let name = edges_name(a).ok_or_else(|| {
                schema_error(format!(
                    "unknown edge interpolation algorithm {}",
                    a.to_thrift()
                ))
            })?;
            (crs, Some(name))
        }
        _ => return Ok(None),
    };
    let crs = crs
        .as_ref()
        .map(|r| String::from_utf8_lossy(r.slice(buf)).into_owned());
    let crs = match crs.as_deref() {
        None => Some(DEFAULT_CRS),
        Some("srid:0") => None,
        Some(c) => Some(c),
    };
    let mut md = Map::new();
    if let Some(c) = crs {
        let v = serde_json::from_str(c).unwrap_or_else(|_| Value::String(c.to_string()));
        md.insert("crs".to_string(), v);
    }
    if let Some(e) = edges {
        md.insert("edges".to_string(), Value::String(e.to_string()));
    }
    Ok(Some(Value::Object(md).to_string()))
}

/// The Parquet side of a `geoarrow.wkb` field: whether it is a GEOGRAPHY, its CRS (`None`:
/// the default) and its edge algorithm (`None`: the default, spherical).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeoType {
    /// GEOGRAPHY (the metadata has `edges`) rather than GEOMETRY.
    pub geography: bool,
    /// The CRS to write, `None` for the default `OGC:CRS84`.
    pub crs: Option<String>,
    /// The edge interpolation algorithm, `None` for the default.
    pub algorithm: Option<EdgeInterpolationAlgorithm>,
}

fn crs_is_lon_lat(crs: &Value) -> bool {
    match crs {
        Value::String(s) => s == "EPSG:4326" || s == DEFAULT_CRS,
        Value::Object(_) => match (&crs["id"]["authority"], &crs["id"]["code"]) {
            (Value::String(a), Value::String(c)) => {
                (a == "OGC" && c == "CRS84") || (a == "EPSG" && c == "4326")
            }
            (Value::String(a), Value::Number(c)) => a == "EPSG" && c.as_i64() == Some(4326),
            _ => false,
        },
        _ => false,
    }
}

/// The Parquet geospatial type of a `geoarrow.wkb` field with extension metadata `md`
/// (`None` or empty: no CRS, a GEOMETRY). Metadata that is not a JSON object or names an
/// unknown `edges` is an error naming `field`.
pub fn geo_type(field: &str, md: Option<&str>) -> Result<GeoType> {
    let bad = |m: String| {
        Error::new(ErrorKind::Unsupported(format!(
            "cannot write column `{field}`: geoarrow.wkb metadata {m}"
        )))
    };
    let obj = match md.map(str::trim) {
        None | Some("") => Map::new(),
        Some(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(o)) => o,
            _ => return Err(bad(format!("`{s}` is not a JSON object"))),
        },
    };
    let algorithm = match obj.get("edges") {
        None | Some(Value::Null) => None,
        Some(Value::String(e)) => {
            Some(edges_from_name(e).ok_or_else(|| bad(format!("has unknown edges `{e}`")))?)
        }
        Some(v) => return Err(bad(format!("has edges {v}, not a string"))),
    };
    let crs = match obj.get("crs") {
        None | Some(Value::Null) => Some("srid:0".to_string()),
        Some(c) if crs_is_lon_lat(c) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(c) => Some(c.to_string()),
    };
    Ok(GeoType {
        geography: algorithm.is_some(),
        crs,
        algorithm: algorithm.filter(|a| *a != EdgeInterpolationAlgorithm::Spherical),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_round_trips() {
        let g = geo_type("g", Some(r#"{"crs":"srid:5070"}"#)).unwrap();
        assert_eq!(g.crs.as_deref(), Some("srid:5070"));
        assert!(!g.geography);
        let g = geo_type("g", Some(r#"{"crs":"OGC:CRS84","edges":"spherical"}"#)).unwrap();
        assert_eq!(
            g,
            GeoType {
                geography: true,
                crs: None,
                algorithm: None
            }
        );
        let g = geo_type("g", None).unwrap();
        assert_eq!(g.crs.as_deref(), Some("srid:0"));
        assert!(geo_type("g", Some("[1]")).is_err());
        assert!(geo_type("g", Some(r#"{"edges":"flat"}"#)).is_err());
        let md = extension_metadata(&LogicalType::Geometry { crs: None }, &[]).unwrap();
        assert_eq!(md.as_deref(), Some(r#"{"crs":"OGC:CRS84"}"#));
    }
}
