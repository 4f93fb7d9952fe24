//! Bounding-box filters on GEOMETRY / GEOGRAPHY columns (`ST_Intersects(col,
//! ST_MakeEnvelope(...))`): rows by the envelope of each WKB value ([`crate::wkb`]), row
//! groups by the chunk's `GeospatialStatistics` bounding box. Pages are not pruned: these
//! columns have no column index.

use arrow_array::cast::AsArray;
use arrow_array::{Array, BooleanArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use crate::format::metadata::BoundingBox;
use crate::wkb::envelope;
use crate::{Error, ErrorKind, Result};

/// Whether the values of `array` (WKB) have an envelope meeting `rect` (`[xmin, ymin, xmax,
/// ymax]`); null where the value is null, false for empty or invalid WKB.
pub(super) fn bbox_mask(array: &dyn Array, rect: [f64; 4]) -> Result<BooleanArray> {
    if let DataType::Dictionary(..) = array.data_type() {
        // A dictionary-encoded chunk decoded as its keys: test each entry once.
        let dict = array.as_any_dictionary();
        let entries = bbox_mask(dict.values().as_ref(), rect)?;
        let keys = dict.normalized_keys();
        let nulls = array.logical_nulls();
        let values: BooleanBuffer = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                nulls.as_ref().is_none_or(|n| n.is_valid(i))
                    && k < entries.len()
                    && entries.is_valid(k)
                    && entries.value(k)
            })
            .collect();
        return Ok(BooleanArray::new(values, nulls));
    }
    let [x0, y0, x1, y1] = rect;
    let hit = |v: Option<&[u8]>| {
        v.map(|b| envelope(b).is_ok_and(|(e, _)| e.intersects_xy(x0, y0, x1, y1)))
    };
    let bits: Vec<Option<bool>> = match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().map(hit).collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().map(hit).collect(),
        DataType::BinaryView => array.as_binary_view().iter().map(hit).collect(),
        t => {
            return Err(Error::new(ErrorKind::InvalidArgument(format!(
                "filter: ST_Intersects takes a WKB binary column, not {t}"
            ))))
        }
    };
    let values: BooleanBuffer = bits.iter().map(|b| b.unwrap_or(false)).collect();
    let nulls = array
        .logical_nulls()
        .map(|n| NullBuffer::new(n.inner().clone()));
    Ok(BooleanArray::new(values, nulls))
}

/// True when a chunk whose geospatial bounding box is `b` holds no value meeting `rect`.
pub(super) fn bbox_disjoint(b: &BoundingBox, rect: [f64; 4]) -> bool {
    let [x0, y0, x1, y1] = rect;
    // NaN bounds compare false: never disjoint.
    b.xmin > x1 || b.xmax < x0 || b.ymin > y1 || b.ymax < y0
}
