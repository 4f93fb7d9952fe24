//! The column chunk sub-structures that a footer keeps raw and decodes on access:
//! `PageEncodingStats`, `SizeStatistics`, `GeospatialStatistics` (with `BoundingBox`).

use super::{missing, ColumnChunk, Encoding, PageType};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// `PageEncodingStats`: how many pages of a type use an encoding.
///
/// ```thrift
/// struct PageEncodingStats { 1: required PageType page_type; 2: required Encoding encoding;
///                            3: required i32 count; }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEncodingStats {
    /// Field 1, `page_type`.
    pub page_type: PageType,
    /// Field 2, `encoding`.
    pub encoding: Encoding,
    /// Field 3, `count`.
    pub count: i32,
}

/// `SizeStatistics`.
///
/// ```thrift
/// struct SizeStatistics { 1: optional i64 unencoded_byte_array_data_bytes;
///   2: optional list<i64> repetition_level_histogram;
///   3: optional list<i64> definition_level_histogram; }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SizeStatistics {
    /// Field 1, `unencoded_byte_array_data_bytes`.
    pub unencoded_byte_array_data_bytes: Option<i64>,
    /// Field 2, `repetition_level_histogram`.
    pub repetition_level_histogram: Option<Vec<i64>>,
    /// Field 3, `definition_level_histogram`.
    pub definition_level_histogram: Option<Vec<i64>>,
}

/// `BoundingBox` of geospatial statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BoundingBox {
    /// Fields 1-4: `xmin`, `xmax`, `ymin`, `ymax`.
    pub xmin: f64,
    /// `xmax`
    pub xmax: f64,
    /// `ymin`
    pub ymin: f64,
    /// `ymax`
    pub ymax: f64,
    /// Field 5, `zmin`.
    pub zmin: Option<f64>,
    /// Field 6, `zmax`.
    pub zmax: Option<f64>,
    /// Field 7, `mmin`.
    pub mmin: Option<f64>,
    /// Field 8, `mmax`.
    pub mmax: Option<f64>,
}

/// `GeospatialStatistics`.
///
/// ```thrift
/// struct GeospatialStatistics { 1: optional BoundingBox bbox;
///                               2: optional list<i32> geospatial_types; }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeospatialStatistics {
    /// Field 1, `bbox`.
    pub bbox: Option<BoundingBox>,
    /// Field 2, `geospatial_types` (WKB type codes).
    pub geospatial_types: Option<Vec<i32>>,
}

fn read_i64_list(r: &mut Reader<'_>) -> Result<Vec<i64>> {
    let mut v = Vec::new();
    r.read_i64_list_into(&mut v)?;
    Ok(v)
}

impl PageEncodingStats {
    /// Decodes a `list<PageEncodingStats>` (after its field header).
    pub fn decode_list(r: &mut Reader<'_>) -> Result<Vec<PageEncodingStats>> {
        let n = r.read_list_len()?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (mut pt, mut enc, mut count) = (None, None, None);
            super::read_fields(r, "PageEncodingStats", |r, id, ty| match (id, ty) {
                (1, wire::I32) => r
                    .read_i32()
                    .map(|v| pt = Some(PageType::from_thrift(v)))
                    .map(|_| true),
                (2, wire::I32) => r
                    .read_i32()
                    .map(|v| enc = Some(Encoding::from_thrift(v)))
                    .map(|_| true),
                (3, wire::I32) => r.read_i32().map(|v| count = Some(v)).map(|_| true),
                _ => Ok(false),
            })
            .map_err(|e| e.in_element("PageEncodingStats", i as u32))?;
            out.push(PageEncodingStats {
                page_type: pt.ok_or_else(|| missing(r, "PageEncodingStats", "page_type"))?,
                encoding: enc.ok_or_else(|| missing(r, "PageEncodingStats", "encoding"))?,
                count: count.ok_or_else(|| missing(r, "PageEncodingStats", "count"))?,
            });
        }
        Ok(out)
    }

    /// Encodes a `list<PageEncodingStats>` (without field header).
    pub fn encode_list(list: &[PageEncodingStats], w: &mut Writer<'_>) {
        w.write_list_header(wire::STRUCT, list.len());
        for s in list {
            let mut l = 0;
            w.write_field_header(wire::I32, 1, &mut l);
            w.write_i32(s.page_type.to_thrift());
            w.write_field_header(wire::I32, 2, &mut l);
            w.write_i32(s.encoding.to_thrift());
            w.write_field_header(wire::I32, 3, &mut l);
            w.write_i32(s.count);
            w.write_stop();
        }
    }
}

impl SizeStatistics {
    /// Decodes a `SizeStatistics` struct.
    pub fn decode(r: &mut Reader<'_>) -> Result<SizeStatistics> {
        let mut s = SizeStatistics::default();
        super::read_fields(r, "SizeStatistics", |r, id, ty| match (id, ty) {
            (1, wire::I64) => r
                .read_i64()
                .map(|v| s.unencoded_byte_array_data_bytes = Some(v))
                .map(|_| true),
            (2, wire::LIST) => read_i64_list(r)
                .map(|v| s.repetition_level_histogram = Some(v))
                .map(|_| true),
            (3, wire::LIST) => read_i64_list(r)
                .map(|v| s.definition_level_histogram = Some(v))
                .map(|_| true),
            _ => Ok(false),
        })?;
        Ok(s)
    }

    /// Encodes the struct.
    pub fn encode(&self, w: &mut Writer<'_>) {
        let mut l = 0;
        if let Some(v) = self.unencoded_byte_array_data_bytes {
            w.write_field_header(wire::I64, 1, &mut l);
            w.write_i64(v);
        }
        for (id, list) in [
            (2, &self.repetition_level_histogram),
            (3, &self.definition_level_histogram),
        ] {
            if let Some(list) = list {
                w.write_field_header(wire::LIST, id, &mut l);
                w.write_list_header(wire::I64, list.len());
                for &v in list {
                    w.write_i64(v);
                }
            }
        }
        w.write_stop();
    }
}

impl GeospatialStatistics {
    /// Decodes a `GeospatialStatistics` struct.
    pub fn decode(r: &mut Reader<'_>) -> Result<GeospatialStatistics> {
        let mut s = GeospatialStatistics::default();
        super::read_fields(r, "GeospatialStatistics", |r, id, ty| match (id, ty) {
            (1, wire::STRUCT) => decode_bbox(r).map(|b| s.bbox = Some(b)).map(|_| true),
            (2, wire::LIST) => {
                let n = r.read_list_len()?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(r.read_i32()?);
                }
                s.geospatial_types = Some(v);
                Ok(true)
            }
            _ => Ok(false),
        })?;
        Ok(s)
    }

    /// Encodes the struct.
    pub fn encode(&self, w: &mut Writer<'_>) {
        let mut l = 0;
        if let Some(b) = &self.bbox {
            w.write_field_header(wire::STRUCT, 1, &mut l);
            let mut bl = 0;
            let fields = [
                (1, Some(b.xmin)),
                (2, Some(b.xmax)),
                (3, Some(b.ymin)),
                (4, Some(b.ymax)),
                (5, b.zmin),
                (6, b.zmax),
                (7, b.mmin),
                (8, b.mmax),
            ];
            for (id, v) in fields {
                if let Some(v) = v {
                    w.write_field_header(wire::DOUBLE, id, &mut bl);
                    w.write_double(v);
                }
            }
            w.write_stop();
        }
        if let Some(types) = &self.geospatial_types {
            w.write_field_header(wire::LIST, 2, &mut l);
            w.write_list_header(wire::I32, types.len());
            for &t in types {
                w.write_i32(t);
            }
        }
        w.write_stop();
    }
}

fn decode_bbox(r: &mut Reader<'_>) -> Result<BoundingBox> {
    let mut b = BoundingBox::default();
    let mut seen = 0u8;
    super::read_fields(r, "BoundingBox", |r, id, ty| {
        if ty != wire::DOUBLE || !(1..=8).contains(&id) {
            return Ok(false);
        }
        let v = r.read_double()?;
        seen |= 1 << (id - 1);
        match id {
            1 => b.xmin = v,
            2 => b.xmax = v,
            3 => b.ymin = v,
            4 => b.ymax = v,
            5 => b.zmin = Some(v),
            6 => b.zmax = Some(v),
            7 => b.mmin = Some(v),
            _ => b.mmax = Some(v),
        }
        Ok(true)
    })?;
    if seen & 0x0f != 0x0f {
        return Err(missing(r, "BoundingBox", "xmin/xmax/ymin/ymax"));
    }
    Ok(b)
}

impl ColumnChunk {
    /// Decodes `encoding_stats`, when present and kept; `buf` is the owner's buffer.
    pub fn encoding_stats(&self, buf: &[u8]) -> Option<Result<Vec<PageEncodingStats>>> {
        if let Some(bits) = self.encoding_stats_packed() {
            return Some(Ok(super::column_chunk::unpack_encoding_stats(bits)));
        }
        self.encoding_stats_raw()
            .map(|r| PageEncodingStats::decode_list(&mut Reader::new(r.slice(buf))))
    }

    /// Decodes `size_statistics`, when present and kept; `buf` is the owner's buffer.
    pub fn size_statistics(&self, buf: &[u8]) -> Option<Result<SizeStatistics>> {
        if let Some(s) = self.size_statistics_packed() {
            return Some(Ok(s));
        }
        self.size_statistics_raw()
            .map(|r| SizeStatistics::decode(&mut Reader::new(r.slice(buf))))
    }

    /// Decodes `geospatial_statistics`, when present and kept; `buf` is the owner's buffer.
    pub fn geospatial_statistics(&self, buf: &[u8]) -> Option<Result<GeospatialStatistics>> {
        self.extras()
            .and_then(|e| e.geospatial_statistics)
            .map(|r| GeospatialStatistics::decode(&mut Reader::new(r.slice(buf))))
    }

    /// Decodes `crypto_metadata`, when present; `buf` is the owner's buffer.
    pub fn crypto_metadata(&self, buf: &[u8]) -> Option<Result<super::ColumnCryptoMetaData>> {
        self.extras()
            .and_then(|e| e.crypto_metadata)
            .map(|r| super::ColumnCryptoMetaData::decode(&mut reader_at(buf, r), None))
    }

    /// Decodes the column's `key_value_metadata`, when present; `buf` is the owner's buffer.
    pub fn key_value_metadata(&self, buf: &[u8]) -> Option<Result<Vec<super::KeyValue>>> {
        self.extras()
            .and_then(|e| e.key_value_metadata)
            .map(|r| super::KeyValue::decode_list(&mut reader_at(buf, r), None))
    }
}

/// A reader over `buf` that ends where `range` ends and starts at its start, so that ranges
/// decoded from it refer to `buf` itself.
fn reader_at(buf: &[u8], range: super::ByteRange) -> Reader<'_> {
    let end = (range.start as usize + range.len as usize).min(buf.len());
    let mut rd = Reader::new(buf.get(..end).unwrap_or(&[]));
    rd.set_pos(range.start as usize);
    rd
}
