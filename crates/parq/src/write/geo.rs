//! GEOMETRY / GEOGRAPHY columns from Arrow fields of the GeoArrow `geoarrow.wkb` extension
//! type (binary WKB): the logical type with its CRS and edge algorithm (see
//! [`crate::schema::geo`]) and, per GEOMETRY column chunk, `GeospatialStatistics` (see
//! [`crate::wkb`]). GEOGRAPHY chunks get none, as arrow-rs 60.1 writes none: the envelope of
//! the vertices does not bound spherical edges. These columns get no min/max statistics and
//! no column index (they have no sort order); the offset index is written as for any column.

use arrow_schema::{DataType, Field};

use crate::format::metadata::{ByteRange, LogicalType};
use crate::schema::geo::{geo_type, WKB_EXTENSION};
use crate::schema::tree::{EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};
use crate::{Error, ErrorKind, Result};

/// The GEOMETRY or GEOGRAPHY logical type of field `f` (at `path`) when it is a
/// `geoarrow.wkb` field, its CRS appended to `buf` (the schema's byte buffer); `None` for
/// other fields. A `geoarrow.wkb` field whose storage is not binary is an error.
pub(super) fn logical_type(
    f: &Field,
    path: &str,
    buf: &mut Vec<u8>,
) -> Result<Option<LogicalType>> {
    if f.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) != Some(WKB_EXTENSION) {
        return Ok(None);
    }
    if !matches!(
        f.data_type(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    ) {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "cannot write column `{path}`: geoarrow.wkb needs binary storage, not {}",
            f.data_type()
        ))));
    }
    let g = geo_type(
        path,
        f.metadata().get(EXTENSION_METADATA_KEY).map(String::as_str),
    )?;
    let crs = g.crs.map(|c| {
        let r = ByteRange::new(buf.len(), c.len());
        buf.extend_from_slice(c.as_bytes());
        r
    });
    Ok(Some(if g.geography {
        LogicalType::Geography {
            crs,
            algorithm: g.algorithm,
        }
    } else {
        LogicalType::Geometry { crs }
    }))
}
