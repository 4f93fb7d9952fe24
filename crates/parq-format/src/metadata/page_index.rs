//! The page index of a column chunk: `ColumnIndex` (per-page min/max, null pages and counts)
//! and `OffsetIndex` (per-page locations). Besides the plain form, where min/max values are
//! [`ByteRange`]s, a column index converts to a [`TypedColumnIndex`] whose bounds are vectors
//! of the column's physical type ([`PageBounds`]); both re-encode to the bytes they came from.

use super::page_header::{first_missing, read_non_negative_i32, read_non_negative_i64};
use super::statistics::keep_binary;
use super::{missing, Arena, BoundaryOrder, ByteRange, PhysicalType, StructWriter, UnknownFields};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// True if the list header at the reader's position declares elements of one of `types`
/// (looked at without consuming it). A list of another element type is kept as an unknown
/// field, so that it is written back unchanged.
#[inline]
fn list_of(r: &Reader<'_>, types: &[u8]) -> bool {
    r.buf()
        .get(r.pos())
        .is_some_and(|b| types.contains(&(b & 0x0f)))
}

/// Reads a `list<bool>` (one byte per element: 1 is true).
fn read_bool_list(r: &mut Reader<'_>) -> Result<Vec<bool>> {
    let (_, n) = r.read_list_header()?;
    let bytes = r.read_bytes(n)?;
    Ok(bytes.iter().map(|&b| b == wire::BOOL_TRUE).collect())
}

/// Reads a `list<i64>`; `name` labels errors.
fn read_i64_list(r: &mut Reader<'_>, name: &'static str) -> Result<Vec<i64>> {
    let mut v = Vec::new();
    r.read_i64_list_into(&mut v)
        .map_err(|e| e.in_struct(name))?;
    Ok(v)
}

/// Reads a `list<binary>` as ranges (copied into `arena` when given); `name` labels element
/// errors.
pub(crate) fn read_binary_list(
    r: &mut Reader<'_>,
    arena: &mut Option<&mut Arena>,
    name: &'static str,
) -> Result<Vec<ByteRange>> {
    let (_, n) = r.read_list_header()?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        v.push(keep_binary(r, arena, None).map_err(|e| e.in_element(name, i as u32))?);
    }
    Ok(v)
}

fn write_bool_list(w: &mut Writer<'_>, v: &[bool]) {
    w.write_list_header(wire::BOOL_TRUE, v.len());
    for &b in v {
        w.write_bool_element(b);
    }
}

fn write_i64_list(w: &mut Writer<'_>, v: &[i64]) {
    w.write_list_header(wire::I64, v.len());
    for &x in v {
        w.write_i64(x);
    }
}

/// Writes a `list<binary>` of ranges inside `buf`.
pub(crate) fn write_binary_list(w: &mut Writer<'_>, v: &[ByteRange], buf: &[u8]) {
    w.write_list_header(wire::BINARY, v.len());
    for &x in v {
        w.write_binary(x.slice(buf));
    }
}

/// Encodes a column index (either form): `values(w, true)` writes the `min_values` list and
/// `values(w, false)` the `max_values` list; `lists` are the optional fields 5 to 8.
fn encode_index(
    w: &mut Writer<'_>,
    buf: &[u8],
    unknown: &UnknownFields,
    null_pages: &[bool],
    boundary_order: BoundaryOrder,
    lists: [&Option<Vec<i64>>; 4],
    values: impl Fn(&mut Writer<'_>, bool),
) {
    let mut s = StructWriter::new(unknown, buf);
    s.field(w, wire::LIST, 1);
    write_bool_list(w, null_pages);
    s.field(w, wire::LIST, 2);
    values(w, true);
    s.field(w, wire::LIST, 3);
    values(w, false);
    s.i32(w, 4, boundary_order.to_thrift());
    for (id, list) in (5..).zip(lists) {
        if let Some(v) = list {
            s.field(w, wire::LIST, id);
            write_i64_list(w, v);
        }
    }
    s.end(w);
}

/// `ColumnIndex`, plain form: min/max values are [`ByteRange`]s of plain-encoded values
/// (byte arrays without length prefix) inside the owner's buffer.
///
/// ```thrift
/// struct ColumnIndex {
///   1: required list<bool> null_pages
///   2: required list<binary> min_values
///   3: required list<binary> max_values
///   4: required BoundaryOrder boundary_order
///   5: optional list<i64> null_counts
///   6: optional list<i64> repetition_level_histograms;
///   7: optional list<i64> definition_level_histograms;
///   8: optional list<i64> nan_counts
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnIndex {
    /// Field 1, `null_pages`: true for pages that hold only nulls.
    pub null_pages: Vec<bool>,
    /// Field 2, `min_values` (empty for null pages).
    pub min_values: Vec<ByteRange>,
    /// Field 3, `max_values` (empty for null pages).
    pub max_values: Vec<ByteRange>,
    /// Field 4, `boundary_order`.
    pub boundary_order: BoundaryOrder,
    /// Field 5, `null_counts` per page.
    pub null_counts: Option<Vec<i64>>,
    /// Field 6, `repetition_level_histograms`, concatenated per page.
    pub repetition_level_histograms: Option<Vec<i64>>,
    /// Field 7, `definition_level_histograms`, concatenated per page.
    pub definition_level_histograms: Option<Vec<i64>>,
    /// Field 8, `nan_counts` per page (format 2.12 and later).
    pub nan_counts: Option<Vec<i64>>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl ColumnIndex {
    const NAME: &'static str = "ColumnIndex";

    /// Decodes a `ColumnIndex`. Byte values are copied into `arena` when given, else kept as
    /// ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        const BOOLS: &[u8] = &[wire::BOOL_TRUE, wire::BOOL_FALSE];
        let mut c = ColumnIndex {
            null_pages: Vec::new(),
            min_values: Vec::new(),
            max_values: Vec::new(),
            boundary_order: BoundaryOrder::Unordered,
            null_counts: None,
            repetition_level_histograms: None,
            definition_level_histograms: None,
            nan_counts: None,
            unknown: UnknownFields::default(),
        };
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::LIST) if list_of(r, BOOLS) => read_bool_list(r).map(|v| {
                c.null_pages = v;
                seen |= 1;
            }),
            (2, wire::LIST) if list_of(r, &[wire::BINARY]) => {
                read_binary_list(r, &mut arena, "min_values").map(|v| {
                    c.min_values = v;
                    seen |= 2;
                })
            }
            (3, wire::LIST) if list_of(r, &[wire::BINARY]) => {
                read_binary_list(r, &mut arena, "max_values").map(|v| {
                    c.max_values = v;
                    seen |= 4;
                })
            }
            (4, wire::I32) => r.read_i32().map(|v| {
                c.boundary_order = BoundaryOrder::from_thrift(v);
                seen |= 8;
            }),
            (5, wire::LIST) if list_of(r, &[wire::I64]) => {
                read_i64_list(r, "null_counts").map(|v| c.null_counts = Some(v))
            }
            (6, wire::LIST) if list_of(r, &[wire::I64]) => {
                read_i64_list(r, "repetition_level_histograms")
                    .map(|v| c.repetition_level_histograms = Some(v))
            }
            (7, wire::LIST) if list_of(r, &[wire::I64]) => {
                read_i64_list(r, "definition_level_histograms")
                    .map(|v| c.definition_level_histograms = Some(v))
            }
            (8, wire::LIST) if list_of(r, &[wire::I64]) => {
                read_i64_list(r, "nan_counts").map(|v| c.nan_counts = Some(v))
            }
            _ => c.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if seen != 15 {
            let required = ["null_pages", "min_values", "max_values", "boundary_order"];
            return Err(missing(r, Self::NAME, first_missing(seen, &required)));
        }
        Ok(c)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let lists = [
            &self.null_counts,
            &self.repetition_level_histograms,
            &self.definition_level_histograms,
            &self.nan_counts,
        ];
        let (min, max) = (&self.min_values, &self.max_values);
        let (unknown, np, order) = (&self.unknown, &self.null_pages, self.boundary_order);
        encode_index(w, buf, unknown, np, order, lists, |w, is_min| {
            write_binary_list(w, if is_min { min } else { max }, buf)
        });
    }

    /// The min/max values typed by the column's physical type (`type_length` is the
    /// schema's, used for FIXED_LEN_BYTE_ARRAY). Values are read from `buf`, the buffer the
    /// ranges refer to. Falls back to [`PageBounds::Raw`] whenever the typed form would not
    /// re-encode to the same bytes (see [`PageBounds`]).
    pub fn bounds(
        &self,
        buf: &[u8],
        physical_type: PhysicalType,
        type_length: Option<i32>,
    ) -> PageBounds {
        let ranges = (self.min_values.clone(), self.max_values.clone());
        make_bounds(&self.null_pages, ranges, buf, physical_type, type_length)
    }

    /// Converts to the typed form (see [`ColumnIndex::bounds`]), moving the other fields.
    pub fn into_typed(
        self,
        buf: &[u8],
        physical_type: PhysicalType,
        type_length: Option<i32>,
    ) -> TypedColumnIndex {
        let ranges = (self.min_values, self.max_values);
        TypedColumnIndex {
            bounds: make_bounds(&self.null_pages, ranges, buf, physical_type, type_length),
            null_pages: self.null_pages,
            boundary_order: self.boundary_order,
            null_counts: self.null_counts,
            repetition_level_histograms: self.repetition_level_histograms,
            definition_level_histograms: self.definition_level_histograms,
            nan_counts: self.nan_counts,
            unknown: self.unknown,
        }
    }
}

/// The min/max values of a column index, by physical type. Entries of null pages hold the
/// type's zero (`false`, `0`, `0.0`, zero bytes, an empty range).
///
/// A typed variant is used only when it re-encodes to the same bytes: the three lists have
/// the same length, every null page has empty min and max values, and every other page's
/// values have the type's width (4 bytes for INT32 and FLOAT, 8 for INT64 and DOUBLE, 12 for
/// INT96, `type_length` for FIXED_LEN_BYTE_ARRAY, one byte 0 or 1 for BOOLEAN). Otherwise,
/// and for unknown physical types, the values stay [`PageBounds::Raw`].
#[derive(Debug, Clone, PartialEq)]
pub enum PageBounds {
    /// BOOLEAN.
    Boolean {
        /// Per-page minimums.
        min: Vec<bool>,
        /// Per-page maximums.
        max: Vec<bool>,
    },
    /// INT32.
    Int32 {
        /// Per-page minimums.
        min: Vec<i32>,
        /// Per-page maximums.
        max: Vec<i32>,
    },
    /// INT64.
    Int64 {
        /// Per-page minimums.
        min: Vec<i64>,
        /// Per-page maximums.
        max: Vec<i64>,
    },
    /// INT96, the 12 plain-encoded bytes.
    Int96 {
        /// Per-page minimums.
        min: Vec<[u8; 12]>,
        /// Per-page maximums.
        max: Vec<[u8; 12]>,
    },
    /// FLOAT (bit patterns, including NaNs, are preserved).
    Float {
        /// Per-page minimums.
        min: Vec<f32>,
        /// Per-page maximums.
        max: Vec<f32>,
    },
    /// DOUBLE (bit patterns, including NaNs, are preserved).
    Double {
        /// Per-page minimums.
        min: Vec<f64>,
        /// Per-page maximums.
        max: Vec<f64>,
    },
    /// BYTE_ARRAY: ranges of the values (possibly truncated by the writer) in the owner's
    /// buffer.
    ByteArray {
        /// Per-page minimums.
        min: Vec<ByteRange>,
        /// Per-page maximums.
        max: Vec<ByteRange>,
    },
    /// FIXED_LEN_BYTE_ARRAY: ranges of `type_length` bytes (empty for null pages).
    FixedLenByteArray {
        /// The schema's `type_length`, the width of every non-null value.
        type_length: u32,
        /// Per-page minimums.
        min: Vec<ByteRange>,
        /// Per-page maximums.
        max: Vec<ByteRange>,
    },
    /// Values as written, when they do not fit the physical type.
    Raw {
        /// Per-page minimums.
        min: Vec<ByteRange>,
        /// Per-page maximums.
        max: Vec<ByteRange>,
    },
}

impl PageBounds {
    /// True for [`PageBounds::Raw`].
    pub fn is_raw(&self) -> bool {
        matches!(self, PageBounds::Raw { .. })
    }

    /// The number of pages (the length of `min`).
    pub fn len(&self) -> usize {
        match self {
            PageBounds::Boolean { min, .. } => min.len(),
            PageBounds::Int32 { min, .. } => min.len(),
            PageBounds::Int64 { min, .. } => min.len(),
            PageBounds::Int96 { min, .. } => min.len(),
            PageBounds::Float { min, .. } => min.len(),
            PageBounds::Double { min, .. } => min.len(),
            PageBounds::ByteArray { min, .. }
            | PageBounds::FixedLenByteArray { min, .. }
            | PageBounds::Raw { min, .. } => min.len(),
        }
    }

    /// True if there are no pages.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Converts one list of values, or returns `None` if a value does not fit (see
/// [`PageBounds`]).
fn typed_list<T: Copy>(
    null_pages: &[bool],
    values: &[ByteRange],
    buf: &[u8],
    zero: T,
    conv: impl Fn(&[u8]) -> Option<T>,
) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(values.len());
    for (&null, &v) in null_pages.iter().zip(values) {
        let bytes = v.slice(buf);
        out.push(match (null, v.len) {
            (true, 0) => zero,
            (false, len) if bytes.len() == len as usize => conv(bytes)?,
            _ => return None,
        });
    }
    Some(out)
}

/// Min and max values, per page.
type MinMax<T> = (Vec<T>, Vec<T>);

/// Converts both lists (see [`typed_list`]).
fn typed_min_max<T: Copy>(
    null_pages: &[bool],
    ranges: &MinMax<ByteRange>,
    buf: &[u8],
    zero: T,
    conv: impl Fn(&[u8]) -> Option<T> + Copy,
) -> Option<MinMax<T>> {
    Some((
        typed_list(null_pages, &ranges.0, buf, zero, conv)?,
        typed_list(null_pages, &ranges.1, buf, zero, conv)?,
    ))
}

/// The typed bounds of `ranges` (min, max), or the ranges themselves as
/// [`PageBounds::Raw`].
fn make_bounds(
    np: &[bool],
    ranges: MinMax<ByteRange>,
    buf: &[u8],
    physical_type: PhysicalType,
    type_length: Option<i32>,
) -> PageBounds {
    if ranges.0.len() != np.len() || ranges.1.len() != np.len() {
        let (min, max) = ranges;
        return PageBounds::Raw { min, max };
    }
    let r = &ranges;
    let typed = match physical_type {
        PhysicalType::Boolean => {
            let conv = |b: &[u8]| match b {
                [0] => Some(false),
                [1] => Some(true),
                _ => None,
            };
            typed_min_max(np, r, buf, false, conv)
                .map(|(min, max)| PageBounds::Boolean { min, max })
        }
        PhysicalType::Int32 => {
            let conv = |b: &[u8]| b.try_into().ok().map(i32::from_le_bytes);
            typed_min_max(np, r, buf, 0, conv).map(|(min, max)| PageBounds::Int32 { min, max })
        }
        PhysicalType::Int64 => {
            let conv = |b: &[u8]| b.try_into().ok().map(i64::from_le_bytes);
            typed_min_max(np, r, buf, 0, conv).map(|(min, max)| PageBounds::Int64 { min, max })
        }
        PhysicalType::Int96 => {
            let conv = |b: &[u8]| <[u8; 12]>::try_from(b).ok();
            typed_min_max(np, r, buf, [0; 12], conv)
                .map(|(min, max)| PageBounds::Int96 { min, max })
        }
        PhysicalType::Float => {
            let conv = |b: &[u8]| b.try_into().ok().map(f32::from_le_bytes);
            typed_min_max(np, r, buf, 0.0, conv).map(|(min, max)| PageBounds::Float { min, max })
        }
        PhysicalType::Double => {
            let conv = |b: &[u8]| b.try_into().ok().map(f64::from_le_bytes);
            typed_min_max(np, r, buf, 0.0, conv).map(|(min, max)| PageBounds::Double { min, max })
        }
        PhysicalType::ByteArray => {
            if typed_min_max(np, r, buf, (), |_| Some(())).is_some() {
                let (min, max) = ranges;
                return PageBounds::ByteArray { min, max };
            }
            None
        }
        PhysicalType::FixedLenByteArray => {
            let width = type_length.and_then(|t| u32::try_from(t).ok());
            if let Some(type_length) = width {
                let conv = |b: &[u8]| (b.len() == type_length as usize).then_some(());
                if typed_min_max(np, r, buf, (), conv).is_some() {
                    let (min, max) = ranges;
                    return PageBounds::FixedLenByteArray {
                        type_length,
                        min,
                        max,
                    };
                }
            }
            None
        }
        PhysicalType::Unknown(_) => None,
    };
    typed.unwrap_or_else(|| {
        let (min, max) = ranges;
        PageBounds::Raw { min, max }
    })
}

/// `ColumnIndex`, typed form: the same fields with min/max values as [`PageBounds`].
/// [`TypedColumnIndex::encode`] writes the bytes the plain form was decoded from.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedColumnIndex {
    /// Field 1, `null_pages`: true for pages that hold only nulls.
    pub null_pages: Vec<bool>,
    /// Fields 2 and 3, `min_values` and `max_values`.
    pub bounds: PageBounds,
    /// Field 4, `boundary_order`.
    pub boundary_order: BoundaryOrder,
    /// Field 5, `null_counts` per page.
    pub null_counts: Option<Vec<i64>>,
    /// Field 6, `repetition_level_histograms`, concatenated per page.
    pub repetition_level_histograms: Option<Vec<i64>>,
    /// Field 7, `definition_level_histograms`, concatenated per page.
    pub definition_level_histograms: Option<Vec<i64>>,
    /// Field 8, `nan_counts` per page.
    pub nan_counts: Option<Vec<i64>>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl TypedColumnIndex {
    /// Decodes a `ColumnIndex` of a column of `physical_type` (and `type_length`, for
    /// FIXED_LEN_BYTE_ARRAY) straight into the typed form. Byte values are copied into
    /// `arena` when given, else kept as ranges of `r`'s buffer.
    pub fn decode(
        r: &mut Reader<'_>,
        mut arena: Option<&mut Arena>,
        physical_type: PhysicalType,
        type_length: Option<i32>,
    ) -> Result<Self> {
        let plain = ColumnIndex::decode(r, arena.as_deref_mut())?;
        let buf = match arena.as_deref() {
            Some(a) => a.as_slice(),
            None => r.buf(),
        };
        Ok(plain.into_typed(buf, physical_type, type_length))
    }

    /// Encodes this struct as a `ColumnIndex`; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let lists = [
            &self.null_counts,
            &self.repetition_level_histograms,
            &self.definition_level_histograms,
            &self.nan_counts,
        ];
        let (unknown, np, order) = (&self.unknown, &self.null_pages, self.boundary_order);
        encode_index(w, buf, unknown, np, order, lists, |w, is_min| {
            self.write_values(w, is_min, buf)
        });
    }

    /// Writes the `list<binary>` of the minimums (`min`) or maximums.
    fn write_values(&self, w: &mut Writer<'_>, min: bool, buf: &[u8]) {
        fn pick<'t, T>(min: bool, lo: &'t [T], hi: &'t [T]) -> &'t [T] {
            if min {
                lo
            } else {
                hi
            }
        }
        let np = &self.null_pages;
        match &self.bounds {
            PageBounds::Boolean { min: lo, max: hi } => {
                write_fixed(w, np, pick(min, lo, hi), |v| [*v as u8])
            }
            PageBounds::Int32 { min: lo, max: hi } => {
                write_fixed(w, np, pick(min, lo, hi), |v| v.to_le_bytes())
            }
            PageBounds::Int64 { min: lo, max: hi } => {
                write_fixed(w, np, pick(min, lo, hi), |v| v.to_le_bytes())
            }
            PageBounds::Int96 { min: lo, max: hi } => write_fixed(w, np, pick(min, lo, hi), |v| *v),
            PageBounds::Float { min: lo, max: hi } => {
                write_fixed(w, np, pick(min, lo, hi), |v| v.to_le_bytes())
            }
            PageBounds::Double { min: lo, max: hi } => {
                write_fixed(w, np, pick(min, lo, hi), |v| v.to_le_bytes())
            }
            PageBounds::ByteArray { min: lo, max: hi }
            | PageBounds::FixedLenByteArray {
                min: lo, max: hi, ..
            }
            | PageBounds::Raw { min: lo, max: hi } => write_binary_list(w, pick(min, lo, hi), buf),
        }
    }
}

/// Writes a `list<binary>` of typed values: empty for null pages, else the plain bytes.
fn write_fixed<T, const N: usize>(
    w: &mut Writer<'_>,
    null_pages: &[bool],
    values: &[T],
    bytes: impl Fn(&T) -> [u8; N],
) {
    w.write_list_header(wire::BINARY, values.len());
    for (i, v) in values.iter().enumerate() {
        if null_pages.get(i).copied().unwrap_or(false) {
            w.write_binary(&[]);
        } else {
            w.write_binary(&bytes(v));
        }
    }
}

/// `PageLocation`: where one page of a column chunk is and its first row.
///
/// ```thrift
/// struct PageLocation {
///   1: required i64 offset
///   2: required i32 compressed_page_size
///   3: required i64 first_row_index
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageLocation {
    /// Field 1, `offset` of the page header in the file; never negative.
    pub offset: i64,
    /// Field 2, `compressed_page_size`, including the page header; never negative.
    pub compressed_page_size: i32,
    /// Field 3, `first_row_index` of the page inside the row group; never negative.
    pub first_row_index: i64,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl PageLocation {
    const NAME: &'static str = "PageLocation";

    /// Decodes a `PageLocation`. Byte values of unknown fields are copied into `arena` when
    /// given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut p = PageLocation::default();
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I64) => read_non_negative_i64(r, "offset").map(|v| {
                p.offset = v;
                seen |= 1;
            }),
            (2, wire::I32) => read_non_negative_i32(r, "compressed_page_size").map(|v| {
                p.compressed_page_size = v;
                seen |= 2;
            }),
            (3, wire::I64) => read_non_negative_i64(r, "first_row_index").map(|v| {
                p.first_row_index = v;
                seen |= 4;
            }),
            _ => p.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if seen != 7 {
            let field = first_missing(seen, &["offset", "compressed_page_size", "first_row_index"]);
            return Err(missing(r, Self::NAME, field));
        }
        Ok(p)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i64(w, 1, self.offset);
        s.i32(w, 2, self.compressed_page_size);
        s.i64(w, 3, self.first_row_index);
        s.end(w);
    }
}

/// `OffsetIndex`: the location of every data page of a column chunk.
///
/// ```thrift
/// struct OffsetIndex {
///   1: required list<PageLocation> page_locations
///   2: optional list<i64> unencoded_byte_array_data_bytes
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetIndex {
    /// Field 1, `page_locations`, by increasing offset.
    pub page_locations: Vec<PageLocation>,
    /// Field 2, `unencoded_byte_array_data_bytes` per page (BYTE_ARRAY columns).
    pub unencoded_byte_array_data_bytes: Option<Vec<i64>>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl OffsetIndex {
    const NAME: &'static str = "OffsetIndex";

    /// Decodes an `OffsetIndex`. Byte values of unknown fields are copied into `arena` when
    /// given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut o = OffsetIndex::default();
        let mut seen = false;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::LIST) if list_of(r, &[wire::STRUCT]) => Self::read_locations(r, &mut arena)
                .map(|v| {
                    o.page_locations = v;
                    seen = true;
                }),
            (2, wire::LIST) if list_of(r, &[wire::I64]) => {
                read_i64_list(r, "unencoded_byte_array_data_bytes")
                    .map(|v| o.unencoded_byte_array_data_bytes = Some(v))
            }
            _ => o.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        if !seen {
            return Err(missing(r, Self::NAME, "page_locations"));
        }
        Ok(o)
    }

    fn read_locations(
        r: &mut Reader<'_>,
        arena: &mut Option<&mut Arena>,
    ) -> Result<Vec<PageLocation>> {
        r.enter()?;
        let (_, n) = r.read_list_header()?;
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let loc = PageLocation::decode(r, arena.as_deref_mut())
                .map_err(|e| e.in_element(PageLocation::NAME, i as u32))?;
            v.push(loc);
        }
        r.leave();
        Ok(v)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.field(w, wire::LIST, 1);
        w.write_list_header(wire::STRUCT, self.page_locations.len());
        for p in &self.page_locations {
            p.encode(w, buf);
        }
        if let Some(v) = &self.unencoded_byte_array_data_bytes {
            s.field(w, wire::LIST, 2);
            write_i64_list(w, v);
        }
        s.end(w);
    }
}
