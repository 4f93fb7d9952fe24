//! Envelopes of well-known binary (WKB) geometries, for the `GeospatialStatistics` of
//! GEOMETRY / GEOGRAPHY columns and for bounding-box filters.
//!
//! The parser takes ISO WKB (type codes 1-7 plus 1000 for Z, 2000 for M, 3000 for ZM) and
//! the extended WKB flags of PostGIS (`0x80000000` Z, `0x40000000` M, `0x20000000` SRID), in
//! either byte order, nesting up to [`MAX_DEPTH`] collections. Bounds are checked before
//! every read, counts against the bytes left: malformed WKB is an `Err`, never a panic.
//!
//! The envelope of a geometry covers its vertices; NaN coordinates are skipped per
//! dimension (`POINT EMPTY` is a point of NaNs: an empty envelope), as the Parquet spec asks.
//! For GEOGRAPHY the envelope of the vertices is what arrow-rs 60.1 writes too; spherical
//! edges may bulge beyond it.

use crate::format::metadata::{BoundingBox, GeospatialStatistics};

/// Deepest nesting of collections the parser follows.
pub const MAX_DEPTH: usize = 64;

/// Why a WKB value could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidWkb;

/// A range per dimension; empty (`lo > hi`) until a value is added.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Envelope {
    /// `[xmin, xmax]`.
    pub x: (f64, f64),
    /// `[ymin, ymax]`.
    pub y: (f64, f64),
    /// `[zmin, zmax]`.
    pub z: (f64, f64),
    /// `[mmin, mmax]`.
    pub m: (f64, f64),
}

const EMPTY: (f64, f64) = (f64::INFINITY, f64::NEG_INFINITY);

impl Default for Envelope {
    fn default() -> Self {
        Envelope {
            x: EMPTY,
            y: EMPTY,
            z: EMPTY,
            m: EMPTY,
        }
    }
}

fn add(r: &mut (f64, f64), v: f64) {
    if !v.is_nan() {
        r.0 = r.0.min(v);
        r.1 = r.1.max(v);
    }
}

fn union(r: &mut (f64, f64), o: (f64, f64)) {
    if o.0 <= o.1 {
        r.0 = r.0.min(o.0);
        r.1 = r.1.max(o.1);
    }
}

fn is_set(r: (f64, f64)) -> bool {
    r.0 <= r.1
}

impl Envelope {
    /// True when x and y both have a value.
    pub fn is_empty(&self) -> bool {
        !(is_set(self.x) && is_set(self.y))
    }

    /// Widens this envelope to cover `o`.
    pub fn union(&mut self, o: &Envelope) {
        union(&mut self.x, o.x);
        union(&mut self.y, o.y);
        union(&mut self.z, o.z);
        union(&mut self.m, o.m);
    }

    /// True when the x/y ranges of this envelope meet the rectangle (edges included).
    pub fn intersects_xy(&self, xmin: f64, ymin: f64, xmax: f64, ymax: f64) -> bool {
        !self.is_empty()
            && self.x.0 <= xmax
            && self.x.1 >= xmin
            && self.y.0 <= ymax
            && self.y.1 >= ymin
    }
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], InvalidWkb> {
        let end = self.pos.checked_add(N).ok_or(InvalidWkb)?;
        let b = self.buf.get(self.pos..end).ok_or(InvalidWkb)?;
        self.pos = end;
        b.try_into().map_err(|_| InvalidWkb)
    }

    fn u8(&mut self) -> Result<u8, InvalidWkb> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self, le: bool) -> Result<u32, InvalidWkb> {
        let b = self.take::<4>()?;
        Ok(if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, le: bool) -> Result<f64, InvalidWkb> {
        let b = self.take::<8>()?;
        Ok(if le {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    /// A count of items of at least `min_bytes` each, checked against the bytes left.
    fn count(&mut self, le: bool, min_bytes: usize) -> Result<usize, InvalidWkb> {
        let n = self.u32(le)? as usize;
        let left = self.buf.len().saturating_sub(self.pos);
        if n.checked_mul(min_bytes).is_none_or(|b| b > left) {
            return Err(InvalidWkb);
        }
        Ok(n)
    }
}

/// The envelope of WKB value `wkb` and its ISO geometry type code (e.g. 1001 for a point Z).
pub fn envelope(wkb: &[u8]) -> Result<(Envelope, i32), InvalidWkb> {
    let mut c = Cursor { buf: wkb, pos: 0 };
    let mut env = Envelope::default();
    let code = geometry(&mut c, &mut env, 0)?;
    if c.pos != wkb.len() {
        return Err(InvalidWkb);
    }
    Ok((env, code))
}

fn geometry(c: &mut Cursor<'_>, env: &mut Envelope, depth: usize) -> Result<i32, InvalidWkb> {
    if depth > MAX_DEPTH {
        return Err(InvalidWkb);
    }
    let le = match c.u8()? {
        0 => false,
        1 => true,
        _ => return Err(InvalidWkb),
    };
    let raw = c.u32(le)?;
    let (mut has_z, mut has_m) = (raw & 0x8000_0000 != 0, raw & 0x4000_0000 != 0);
    if raw & 0x2000_0000 != 0 {
        c.u32(le)?; // the SRID of extended WKB
    }
    let iso = raw & 0x0fff_ffff;
    let base = iso % 1000;
    match iso / 1000 {
        0 => {}
        1 => has_z = true,
        2 => has_m = true,
        3 => (has_z, has_m) = (true, true),
        _ => return Err(InvalidWkb),
    }
    let dims = 2 + usize::from(has_z) + usize::from(has_m);
    let mut coords = |c: &mut Cursor<'_>, n: usize| -> Result<(), InvalidWkb> {
        for _ in 0..n {
            add(&mut env.x, c.f64(le)?);
            add(&mut env.y, c.f64(le)?);
            if has_z {
                add(&mut env.z, c.f64(le)?);
            }
            if has_m {
                add(&mut env.m, c.f64(le)?);
            }
        }
        Ok(())
    };
    match base {
        1 => coords(c, 1)?,
        2 => {
            let n = c.count(le, dims * 8)?;
            coords(c, n)?;
        }
        3 => {
            for _ in 0..c.count(le, 4)? {
                let n = c.count(le, dims * 8)?;
                coords(c, n)?;
            }
        }
        4..=7 => {
            for _ in 0..c.count(le, 5)? {
                geometry(c, env, depth + 1)?;
            }
        }
        _ => return Err(InvalidWkb),
    }
    let dim_code = match (has_z, has_m) {
        (false, false) => 0,
        (true, false) => 1000,
        (false, true) => 2000,
        (true, true) => 3000,
    };
    Ok(base as i32 + dim_code)
}

/// The `GeospatialStatistics` of a column chunk, value by value. A value that is not valid
/// WKB is left out.
#[derive(Debug, Clone, Default)]
pub struct GeoStatsAccumulator {
    env: Envelope,
    types: Vec<i32>,
}

impl GeoStatsAccumulator {
    /// Adds one WKB value.
    pub fn update(&mut self, wkb: &[u8]) {
        if let Ok((e, code)) = envelope(wkb) {
            self.env.union(&e);
            if let Err(i) = self.types.binary_search(&code) {
                self.types.insert(i, code);
            }
        }
    }

    /// The statistics of the values so far (`None` when there were none), and a reset.
    pub fn finish(&mut self) -> Option<GeospatialStatistics> {
        let s = std::mem::take(self);
        if s.types.is_empty() {
            return None;
        }
        let e = s.env;
        let bbox = (!e.is_empty()).then(|| BoundingBox {
            xmin: e.x.0,
            xmax: e.x.1,
            ymin: e.y.0,
            ymax: e.y.1,
            zmin: is_set(e.z).then_some(e.z.0),
            zmax: is_set(e.z).then_some(e.z.1),
            mmin: is_set(e.m).then_some(e.m.0),
            mmax: is_set(e.m).then_some(e.m.1),
        });
        Some(GeospatialStatistics {
            bbox,
            geospatial_types: Some(s.types),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f64, y: f64) -> Vec<u8> {
        let mut v = vec![1u8, 1, 0, 0, 0];
        v.extend_from_slice(&x.to_le_bytes());
        v.extend_from_slice(&y.to_le_bytes());
        v
    }

    #[test]
    fn points_lines_and_bad_values() {
        let (e, t) = envelope(&point(1.0, 2.0)).unwrap();
        assert_eq!((e.x, e.y, t), ((1.0, 1.0), (2.0, 2.0), 1));
        // A big-endian LINESTRING Z of two points.
        let mut l = vec![0u8];
        l.extend_from_slice(&1002u32.to_be_bytes());
        l.extend_from_slice(&2u32.to_be_bytes());
        for v in [0.0f64, 5.0, 1.0, -3.0, 4.0, f64::NAN] {
            l.extend_from_slice(&v.to_be_bytes());
        }
        let (e, t) = envelope(&l).unwrap();
        assert_eq!(
            (e.x, e.y, e.z, t),
            ((-3.0, 0.0), (4.0, 5.0), (1.0, 1.0), 1002)
        );
        // A MULTIPOINT of two points.
        let mut m = vec![1u8, 4, 0, 0, 0, 2, 0, 0, 0];
        m.extend(point(-1.0, 7.0));
        m.extend(point(3.0, 0.5));
        let (e, t) = envelope(&m).unwrap();
        assert_eq!((e.x, e.y, t), ((-1.0, 3.0), (0.5, 7.0), 4));
        for bad in [
            &[][..],
            &[1, 2, 0, 0, 0, 255, 255, 255, 255],
            &m[..m.len() - 1],
        ] {
            assert_eq!(envelope(bad), Err(InvalidWkb));
        }
        let mut deep = Vec::new();
        for _ in 0..100 {
            deep.extend_from_slice(&[1, 7, 0, 0, 0, 1, 0, 0, 0]);
        }
        assert_eq!(envelope(&deep), Err(InvalidWkb));
        let mut acc = GeoStatsAccumulator::default();
        acc.update(&point(1.0, 2.0));
        acc.update(&[1, 2, 3]);
        acc.update(&point(f64::NAN, f64::NAN));
        let s = acc.finish().unwrap();
        assert_eq!(s.geospatial_types, Some(vec![1]));
        let b = s.bbox.unwrap();
        assert_eq!(
            (b.xmin, b.xmax, b.ymin, b.ymax, b.zmin),
            (1.0, 1.0, 2.0, 2.0, None)
        );
        assert!(acc.finish().is_none());
    }
}
