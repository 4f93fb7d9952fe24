//! `PageHeader` and the per-type headers it carries (`DataPageHeader`, `IndexPageHeader`,
//! `DictionaryPageHeader`, `DataPageHeaderV2`). A page header is decoded once per page on the
//! data path, so decoding allocates nothing unless unknown fields appear, and sizes and counts
//! are checked to be non-negative.

use super::{invalid, missing, Arena, Encoding, PageType, Statistics, StructWriter, UnknownFields};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// Reads an i32 that must not be negative (a size or a count); `what` names it in the error.
#[inline]
pub(crate) fn read_non_negative_i32(r: &mut Reader<'_>, what: &'static str) -> Result<i32> {
    let v = r.read_i32()?;
    if v < 0 {
        return Err(invalid(r, what, v as i64));
    }
    Ok(v)
}

/// Reads an i64 that must not be negative (an offset, a size or a count).
#[inline]
pub(crate) fn read_non_negative_i64(r: &mut Reader<'_>, what: &'static str) -> Result<i64> {
    let v = r.read_i64()?;
    if v < 0 {
        return Err(invalid(r, what, v));
    }
    Ok(v)
}

/// The name of the first required field whose bit in `seen` is clear (bit `i` for
/// `required[i]`).
#[cold]
pub(crate) fn first_missing(seen: u32, required: &[&'static str]) -> &'static str {
    required
        .iter()
        .enumerate()
        .find(|&(bit, _)| seen & (1 << bit) == 0)
        .map_or("", |(_, &name)| name)
}

/// `PageHeader`: the header in front of every page of a column chunk.
///
/// ```thrift
/// struct PageHeader {
///   1: required PageType type
///   2: required i32 uncompressed_page_size
///   3: required i32 compressed_page_size
///   4: optional i32 crc
///   5: optional DataPageHeader data_page_header;
///   6: optional IndexPageHeader index_page_header;
///   7: optional DictionaryPageHeader dictionary_page_header;
///   8: optional DataPageHeaderV2 data_page_header_v2;
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHeader {
    /// Field 1, `type`.
    pub page_type: PageType,
    /// Field 2, `uncompressed_page_size` (not including the header); never negative.
    pub uncompressed_page_size: i32,
    /// Field 3, `compressed_page_size` (not including the header); never negative.
    pub compressed_page_size: i32,
    /// Field 4, `crc`: CRC-32 of the page bytes after the header.
    pub crc: Option<i32>,
    /// Field 5, `data_page_header`.
    pub data_page_header: Option<DataPageHeader>,
    /// Field 6, `index_page_header`.
    pub index_page_header: Option<IndexPageHeader>,
    /// Field 7, `dictionary_page_header`.
    pub dictionary_page_header: Option<DictionaryPageHeader>,
    /// Field 8, `data_page_header_v2`.
    pub data_page_header_v2: Option<DataPageHeaderV2>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl PageHeader {
    const NAME: &'static str = "PageHeader";

    /// Decodes a `PageHeader`. Byte values (statistics, unknown fields) are copied into
    /// `arena` when given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut h = PageHeader {
            page_type: PageType::DataPage,
            uncompressed_page_size: 0,
            compressed_page_size: 0,
            crc: None,
            data_page_header: None,
            index_page_header: None,
            dictionary_page_header: None,
            data_page_header_v2: None,
            unknown: UnknownFields::default(),
        };
        // Bits 0, 1, 2: the required fields 1, 2, 3 were seen.
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I32) => r.read_i32().map(|v| {
                h.page_type = PageType::from_thrift(v);
                seen |= 1;
            }),
            (2, wire::I32) => read_non_negative_i32(r, "uncompressed_page_size").map(|v| {
                h.uncompressed_page_size = v;
                seen |= 2;
            }),
            (3, wire::I32) => read_non_negative_i32(r, "compressed_page_size").map(|v| {
                h.compressed_page_size = v;
                seen |= 4;
            }),
            (4, wire::I32) => r.read_i32().map(|v| h.crc = Some(v)),
            (5, wire::STRUCT) => DataPageHeader::decode(r, arena.as_deref_mut())
                .map(|v| h.data_page_header = Some(v)),
            (6, wire::STRUCT) => IndexPageHeader::decode(r, arena.as_deref_mut())
                .map(|v| h.index_page_header = Some(v)),
            (7, wire::STRUCT) => DictionaryPageHeader::decode(r, arena.as_deref_mut())
                .map(|v| h.dictionary_page_header = Some(v)),
            (8, wire::STRUCT) => DataPageHeaderV2::decode(r, arena.as_deref_mut())
                .map(|v| h.data_page_header_v2 = Some(v)),
            _ => h.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if seen != 7 {
            let field = first_missing(
                seen,
                &["type", "uncompressed_page_size", "compressed_page_size"],
            );
            return Err(missing(r, Self::NAME, field));
        }
        Ok(h)
    }

    /// Decodes the page header at the start of `buf` and returns it with its encoded length
    /// (the page data starts at that offset). Byte ranges refer to `buf`.
    pub fn decode_prefix(buf: &[u8]) -> Result<(Self, usize)> {
        let mut r = Reader::new(buf);
        let h = Self::decode(&mut r, None)?;
        Ok((h, r.pos()))
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.page_type.to_thrift());
        s.i32(w, 2, self.uncompressed_page_size);
        s.i32(w, 3, self.compressed_page_size);
        if let Some(v) = self.crc {
            s.i32(w, 4, v);
        }
        if let Some(v) = &self.data_page_header {
            s.field(w, wire::STRUCT, 5);
            v.encode(w, buf);
        }
        if let Some(v) = &self.index_page_header {
            s.field(w, wire::STRUCT, 6);
            v.encode(w, buf);
        }
        if let Some(v) = &self.dictionary_page_header {
            s.field(w, wire::STRUCT, 7);
            v.encode(w, buf);
        }
        if let Some(v) = &self.data_page_header_v2 {
            s.field(w, wire::STRUCT, 8);
            v.encode(w, buf);
        }
        s.end(w);
    }
}

/// `DataPageHeader`: the header of a v1 data page.
///
/// ```thrift
/// struct DataPageHeader {
///   1: required i32 num_values
///   2: required Encoding encoding
///   3: required Encoding definition_level_encoding;
///   4: required Encoding repetition_level_encoding;
///   5: optional Statistics statistics;
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeader {
    /// Field 1, `num_values` (including nulls); never negative.
    pub num_values: i32,
    /// Field 2, `encoding` of the values.
    pub encoding: Encoding,
    /// Field 3, `definition_level_encoding`.
    pub definition_level_encoding: Encoding,
    /// Field 4, `repetition_level_encoding`.
    pub repetition_level_encoding: Encoding,
    /// Field 5, `statistics` of the page.
    pub statistics: Option<Statistics>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl DataPageHeader {
    const NAME: &'static str = "DataPageHeader";

    /// Decodes a `DataPageHeader`. Byte values are copied into `arena` when given, else kept
    /// as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut h = DataPageHeader {
            num_values: 0,
            encoding: Encoding::Plain,
            definition_level_encoding: Encoding::Rle,
            repetition_level_encoding: Encoding::Rle,
            statistics: None,
            unknown: UnknownFields::default(),
        };
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I32) => read_non_negative_i32(r, "num_values").map(|v| {
                h.num_values = v;
                seen |= 1;
            }),
            (2, wire::I32) => r.read_i32().map(|v| {
                h.encoding = Encoding::from_thrift(v);
                seen |= 2;
            }),
            (3, wire::I32) => r.read_i32().map(|v| {
                h.definition_level_encoding = Encoding::from_thrift(v);
                seen |= 4;
            }),
            (4, wire::I32) => r.read_i32().map(|v| {
                h.repetition_level_encoding = Encoding::from_thrift(v);
                seen |= 8;
            }),
            (5, wire::STRUCT) => {
                Statistics::decode(r, arena.as_deref_mut()).map(|v| h.statistics = Some(v))
            }
            _ => h.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if seen != 15 {
            let field = first_missing(
                seen,
                &[
                    "num_values",
                    "encoding",
                    "definition_level_encoding",
                    "repetition_level_encoding",
                ],
            );
            return Err(missing(r, Self::NAME, field));
        }
        Ok(h)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.num_values);
        s.i32(w, 2, self.encoding.to_thrift());
        s.i32(w, 3, self.definition_level_encoding.to_thrift());
        s.i32(w, 4, self.repetition_level_encoding.to_thrift());
        if let Some(v) = &self.statistics {
            s.field(w, wire::STRUCT, 5);
            v.encode(w, buf);
        }
        s.end(w);
    }
}

/// `IndexPageHeader`: an empty structure (index pages are not used by any writer); fields of
/// later format versions are kept as unknown fields.
///
/// ```thrift
/// struct IndexPageHeader {
///   // TODO
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexPageHeader {
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl IndexPageHeader {
    const NAME: &'static str = "IndexPageHeader";

    /// Decodes an `IndexPageHeader`. Byte values are copied into `arena` when given, else
    /// kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut h = IndexPageHeader::default();
        let mut id = 0i16;
        r.enter()?;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            if let Err(e) = h.unknown.keep(r, arena.as_deref_mut(), id, ty) {
                return Err(e.in_field(Self::NAME, id));
            }
        }
        r.leave();
        Ok(h)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        StructWriter::new(&self.unknown, buf).end(w);
    }
}

/// `DictionaryPageHeader`: the header of the (single) dictionary page of a column chunk.
///
/// ```thrift
/// struct DictionaryPageHeader {
///   1: required i32 num_values;
///   2: required Encoding encoding
///   3: optional bool is_sorted;
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictionaryPageHeader {
    /// Field 1, `num_values` in the dictionary; never negative.
    pub num_values: i32,
    /// Field 2, `encoding` of the dictionary values.
    pub encoding: Encoding,
    /// Field 3, `is_sorted`: the entries are sorted in ascending order.
    pub is_sorted: Option<bool>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl DictionaryPageHeader {
    const NAME: &'static str = "DictionaryPageHeader";

    /// Decodes a `DictionaryPageHeader`. Byte values are copied into `arena` when given, else
    /// kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut h = DictionaryPageHeader {
            num_values: 0,
            encoding: Encoding::Plain,
            is_sorted: None,
            unknown: UnknownFields::default(),
        };
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I32) => read_non_negative_i32(r, "num_values").map(|v| {
                h.num_values = v;
                seen |= 1;
            }),
            (2, wire::I32) => r.read_i32().map(|v| {
                h.encoding = Encoding::from_thrift(v);
                seen |= 2;
            }),
            (3, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                h.is_sorted = Some(ty == wire::BOOL_TRUE);
                Ok(())
            }
            _ => h.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if seen != 3 {
            let field = first_missing(seen, &["num_values", "encoding"]);
            return Err(missing(r, Self::NAME, field));
        }
        Ok(h)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.num_values);
        s.i32(w, 2, self.encoding.to_thrift());
        if let Some(v) = self.is_sorted {
            s.bool(w, 3, v);
        }
        s.end(w);
    }
}

/// `DataPageHeaderV2`: the header of a v2 data page, whose levels are stored uncompressed
/// in front of the (possibly compressed) values.
///
/// ```thrift
/// struct DataPageHeaderV2 {
///   1: required i32 num_values
///   2: required i32 num_nulls
///   3: required i32 num_rows
///   4: required Encoding encoding
///   5: required i32 definition_levels_byte_length;
///   6: required i32 repetition_levels_byte_length;
///   7: optional bool is_compressed = true;
///   8: optional Statistics statistics;
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeaderV2 {
    /// Field 1, `num_values` (including nulls); never negative.
    pub num_values: i32,
    /// Field 2, `num_nulls`; never negative.
    pub num_nulls: i32,
    /// Field 3, `num_rows`; never negative.
    pub num_rows: i32,
    /// Field 4, `encoding` of the values.
    pub encoding: Encoding,
    /// Field 5, `definition_levels_byte_length`; never negative.
    pub definition_levels_byte_length: i32,
    /// Field 6, `repetition_levels_byte_length`; never negative.
    pub repetition_levels_byte_length: i32,
    /// Field 7, `is_compressed` as written (absent means compressed; see
    /// [`DataPageHeaderV2::values_compressed`]).
    pub is_compressed: Option<bool>,
    /// Field 8, `statistics` of the page.
    pub statistics: Option<Statistics>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl DataPageHeaderV2 {
    const NAME: &'static str = "DataPageHeaderV2";
    const REQUIRED: [&'static str; 6] = [
        "num_values",
        "num_nulls",
        "num_rows",
        "encoding",
        "definition_levels_byte_length",
        "repetition_levels_byte_length",
    ];

    /// `is_compressed` with its default applied: true unless the field says false.
    #[inline]
    pub fn values_compressed(&self) -> bool {
        self.is_compressed.unwrap_or(true)
    }

    /// Decodes a `DataPageHeaderV2`. Byte values are copied into `arena` when given, else
    /// kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut h = DataPageHeaderV2 {
            num_values: 0,
            num_nulls: 0,
            num_rows: 0,
            encoding: Encoding::Plain,
            definition_levels_byte_length: 0,
            repetition_levels_byte_length: 0,
            is_compressed: None,
            statistics: None,
            unknown: UnknownFields::default(),
        };
        let mut seen = 0u32;
        let mut id = 0i16;
        r.enter()?;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            let res =
                match (id, ty) {
                    (1, wire::I32) => read_non_negative_i32(r, "num_values").map(|v| {
                        h.num_values = v;
                        seen |= 1;
                    }),
                    (2, wire::I32) => read_non_negative_i32(r, "num_nulls").map(|v| {
                        h.num_nulls = v;
                        seen |= 2;
                    }),
                    (3, wire::I32) => read_non_negative_i32(r, "num_rows").map(|v| {
                        h.num_rows = v;
                        seen |= 4;
                    }),
                    (4, wire::I32) => r.read_i32().map(|v| {
                        h.encoding = Encoding::from_thrift(v);
                        seen |= 8;
                    }),
                    (5, wire::I32) => read_non_negative_i32(r, "definition_levels_byte_length")
                        .map(|v| {
                            h.definition_levels_byte_length = v;
                            seen |= 16;
                        }),
                    (6, wire::I32) => read_non_negative_i32(r, "repetition_levels_byte_length")
                        .map(|v| {
                            h.repetition_levels_byte_length = v;
                            seen |= 32;
                        }),
                    (7, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                        h.is_compressed = Some(ty == wire::BOOL_TRUE);
                        Ok(())
                    }
                    (8, wire::STRUCT) => {
                        Statistics::decode(r, arena.as_deref_mut()).map(|v| h.statistics = Some(v))
                    }
                    _ => h.unknown.keep(r, arena.as_deref_mut(), id, ty),
                };
            if let Err(e) = res {
                return Err(e.in_field(Self::NAME, id));
            }
        }
        r.leave();
        if seen != 63 {
            return Err(missing(r, Self::NAME, first_missing(seen, &Self::REQUIRED)));
        }
        Ok(h)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.num_values);
        s.i32(w, 2, self.num_nulls);
        s.i32(w, 3, self.num_rows);
        s.i32(w, 4, self.encoding.to_thrift());
        s.i32(w, 5, self.definition_levels_byte_length);
        s.i32(w, 6, self.repetition_levels_byte_length);
        if let Some(v) = self.is_compressed {
            s.bool(w, 7, v);
        }
        if let Some(v) = &self.statistics {
            s.field(w, wire::STRUCT, 8);
            v.encode(w, buf);
        }
        s.end(w);
    }
}
