//! The page index (ColumnIndex and OffsetIndex of each column chunk), decoded for all or only
//! for chosen row groups x columns into one compact, flat [`PageIndex`]: every page's null
//! flag, bounds, null count and location live in shared arrays, so decoding allocates nothing
//! per column chunk. Views ([`ColumnIndexView`], [`OffsetIndexView`]) give typed access.
//!
//! Structures with unknown fields decode here too, but the fields are dropped; to re-encode
//! one index exactly, decode it with `metadata::{ColumnIndex, OffsetIndex}`.

use std::borrow::Cow;
use std::ops::Range;

use crate::crypto::ModuleType;
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{
    missing, BoundaryOrder, ByteRange, ColumnChunk, FileMetaData, PageLocation, PhysicalType,
    UnknownFields,
};
use crate::thrift::{wire, Reader};

/// Where one column chunk's column index lives in the shared arrays of a [`PageIndex`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ColumnIndexSpan {
    /// Pages: indices into `null_pages`, `min`, `max` (and `null_counts` when present).
    first_page: u32,
    pages: u32,
    null_counts: bool,
    nan_counts: bool,
    boundary_order: BoundaryOrder,
    physical_type: PhysicalType,
    /// Level histograms: ranges of `histograms`.
    rep_histograms: Option<(u32, u32)>,
    def_histograms: Option<(u32, u32)>,
}

/// Where one column chunk's offset index lives in the shared arrays of a [`PageIndex`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OffsetIndexSpan {
    first_page: u32,
    pages: u32,
    /// `unencoded_byte_array_data_bytes`: a range of `histograms`.
    unencoded: Option<(u32, u32)>,
}

/// The decoded page index of the chosen row groups x columns.
#[derive(Debug, Clone, Default)]
pub struct PageIndex {
    /// The row groups decoded (indices into `FileMetaData::row_groups`).
    pub row_groups: Vec<usize>,
    /// The columns decoded (indices into each `RowGroup::columns`).
    pub columns: Vec<usize>,
    /// Per chosen (row group, column), row-group major.
    column_indexes: Vec<Option<ColumnIndexSpan>>,
    offset_indexes: Vec<Option<OffsetIndexSpan>>,
    // Column index pages.
    null_pages: Vec<bool>,
    min: Vec<ByteRange>,
    max: Vec<ByteRange>,
    null_counts: Vec<i64>,
    nan_counts: Vec<i64>,
    /// Level histograms and unencoded byte counts.
    histograms: Vec<i64>,
    /// Offset index pages.
    locations: Vec<PageLocation>,
    /// Plain-encoded min/max values.
    values: Vec<u8>,
}

/// One column chunk's column index, borrowed from a [`PageIndex`].
#[derive(Debug, Clone, Copy)]
pub struct ColumnIndexView<'a> {
    index: &'a PageIndex,
    span: ColumnIndexSpan,
}

/// One column chunk's offset index, borrowed from a [`PageIndex`].
#[derive(Debug, Clone, Copy)]
pub struct OffsetIndexView<'a> {
    index: &'a PageIndex,
    span: OffsetIndexSpan,
}

fn sub<T>(v: &[T], start: u32, len: u32) -> &[T] {
    let s = start as usize;
    v.get(s..s + len as usize).unwrap_or(&[])
}

impl<'a> ColumnIndexView<'a> {
    /// The number of pages.
    pub fn len(&self) -> usize {
        self.span.pages as usize
    }

    /// True if the index covers no pages.
    pub fn is_empty(&self) -> bool {
        self.span.pages == 0
    }

    /// `null_pages`: true for pages that hold only nulls.
    pub fn null_pages(&self) -> &'a [bool] {
        sub(
            &self.index.null_pages,
            self.span.first_page,
            self.span.pages,
        )
    }

    /// `boundary_order`.
    pub fn boundary_order(&self) -> BoundaryOrder {
        self.span.boundary_order
    }

    /// The column's physical type, which says how to read the bounds.
    pub fn physical_type(&self) -> PhysicalType {
        self.span.physical_type
    }

    /// The plain-encoded minimum of page `page` (empty for null pages).
    pub fn min_bytes(&self, page: usize) -> &'a [u8] {
        self.bound(&self.index.min, page)
    }

    /// The plain-encoded maximum of page `page` (empty for null pages).
    pub fn max_bytes(&self, page: usize) -> &'a [u8] {
        self.bound(&self.index.max, page)
    }

    fn bound(&self, v: &'a [ByteRange], page: usize) -> &'a [u8] {
        match sub(v, self.span.first_page, self.span.pages).get(page) {
            Some(r) => r.slice(&self.index.values),
            None => &[],
        }
    }

    /// The minimum of page `page` as an INT32 (also DATE, TIME_MILLIS, ...), if it is one.
    pub fn min_i32(&self, page: usize) -> Option<i32> {
        fixed(self.min_bytes(page)).map(i32::from_le_bytes)
    }

    /// The maximum of page `page` as an INT32.
    pub fn max_i32(&self, page: usize) -> Option<i32> {
        fixed(self.max_bytes(page)).map(i32::from_le_bytes)
    }

    /// The minimum of page `page` as an INT64.
    pub fn min_i64(&self, page: usize) -> Option<i64> {
        fixed(self.min_bytes(page)).map(i64::from_le_bytes)
    }

    /// The maximum of page `page` as an INT64.
    pub fn max_i64(&self, page: usize) -> Option<i64> {
        fixed(self.max_bytes(page)).map(i64::from_le_bytes)
    }

    /// The minimum of page `page` as a FLOAT.
    pub fn min_f32(&self, page: usize) -> Option<f32> {
        fixed(self.min_bytes(page)).map(f32::from_le_bytes)
    }

    /// The maximum of page `page` as a FLOAT.
    pub fn max_f32(&self, page: usize) -> Option<f32> {
        fixed(self.max_bytes(page)).map(f32::from_le_bytes)
    }

    /// The minimum of page `page` as a DOUBLE.
    pub fn min_f64(&self, page: usize) -> Option<f64> {
        fixed(self.min_bytes(page)).map(f64::from_le_bytes)
    }

    /// The maximum of page `page` as a DOUBLE.
    pub fn max_f64(&self, page: usize) -> Option<f64> {
        fixed(self.max_bytes(page)).map(f64::from_le_bytes)
    }

    /// `null_counts` per page, when present.
    pub fn null_counts(&self) -> Option<&'a [i64]> {
        self.span.null_counts.then(|| {
            sub(
                &self.index.null_counts,
                self.span.first_page,
                self.span.pages,
            )
        })
    }

    /// `nan_counts` per page, when present.
    pub fn nan_counts(&self) -> Option<&'a [i64]> {
        self.span.nan_counts.then(|| {
            sub(
                &self.index.nan_counts,
                self.span.first_page,
                self.span.pages,
            )
        })
    }

    /// `repetition_level_histograms`, concatenated per page, when present.
    pub fn repetition_level_histograms(&self) -> Option<&'a [i64]> {
        self.span
            .rep_histograms
            .map(|(s, n)| sub(&self.index.histograms, s, n))
    }

    /// `definition_level_histograms`, concatenated per page, when present.
    pub fn definition_level_histograms(&self) -> Option<&'a [i64]> {
        self.span
            .def_histograms
            .map(|(s, n)| sub(&self.index.histograms, s, n))
    }
}

fn fixed<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    b.try_into().ok()
}

impl<'a> OffsetIndexView<'a> {
    /// `page_locations`.
    pub fn page_locations(&self) -> &'a [PageLocation] {
        sub(&self.index.locations, self.span.first_page, self.span.pages)
    }

    /// `unencoded_byte_array_data_bytes` per page, when present.
    pub fn unencoded_byte_array_data_bytes(&self) -> Option<&'a [i64]> {
        self.span
            .unencoded
            .map(|(s, n)| sub(&self.index.histograms, s, n))
    }
}

impl PageIndex {
    fn at(&self, i: usize, j: usize) -> usize {
        i * self.columns.len() + j
    }

    /// The column index of the `i`th chosen row group and `j`th chosen column.
    pub fn column_index(&self, i: usize, j: usize) -> Option<ColumnIndexView<'_>> {
        let span = (*self.column_indexes.get(self.at(i, j))?)?;
        Some(ColumnIndexView { index: self, span })
    }

    /// The offset index of the `i`th chosen row group and `j`th chosen column.
    pub fn offset_index(&self, i: usize, j: usize) -> Option<OffsetIndexView<'_>> {
        let span = (*self.offset_indexes.get(self.at(i, j))?)?;
        Some(OffsetIndexView { index: self, span })
    }

    /// The number of column indexes decoded.
    pub fn num_column_indexes(&self) -> usize {
        self.column_indexes.iter().flatten().count()
    }

    /// The number of offset indexes decoded.
    pub fn num_offset_indexes(&self) -> usize {
        self.offset_indexes.iter().flatten().count()
    }

    /// The number of pages in all decoded offset indexes.
    pub fn num_pages(&self) -> usize {
        self.locations.len()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.column_indexes.capacity() * size_of::<Option<ColumnIndexSpan>>()
            + self.offset_indexes.capacity() * size_of::<Option<OffsetIndexSpan>>()
            + self.null_pages.capacity()
            + (self.min.capacity() + self.max.capacity()) * size_of::<ByteRange>()
            + (self.null_counts.capacity()
                + self.nan_counts.capacity()
                + self.histograms.capacity())
                * 8
            + self.locations.capacity() * size_of::<PageLocation>()
            + self.values.capacity()
    }

    /// Decodes one `ColumnIndex` into the shared arrays.
    fn decode_column_index(
        &mut self,
        r: &mut Reader<'_>,
        physical_type: PhysicalType,
    ) -> Result<ColumnIndexSpan> {
        const NAME: &str = "ColumnIndex";
        let first_page = self.null_pages.len() as u32;
        let mut span = ColumnIndexSpan {
            first_page,
            pages: 0,
            null_counts: false,
            nan_counts: false,
            boundary_order: BoundaryOrder::Unordered,
            physical_type,
            rep_histograms: None,
            def_histograms: None,
        };
        let (mut seen_null_pages, mut seen_min, mut seen_max, mut seen_order) =
            (false, false, false, false);
        let mut min_pages = 0;
        let mut max_pages = 0;
        let mut null_count_pages = 0;
        let mut nan_count_pages = 0;
        r.enter()?;
        r.read_struct(NAME, |r, id, ty| match (id, ty) {
            (1, wire::LIST) if !seen_null_pages => {
                seen_null_pages = true;
                let n = r.read_list_len()?;
                self.null_pages.reserve(n);
                for _ in 0..n {
                    self.null_pages.push(r.read_bool_element()?);
                }
                span.pages = n as u32;
                Ok(())
            }
            (2 | 3, wire::LIST) if !(if id == 2 { seen_min } else { seen_max }) => {
                let n = r.read_list_len()?;
                let (list, count) = if id == 2 {
                    seen_min = true;
                    (&mut self.min, &mut min_pages)
                } else {
                    seen_max = true;
                    (&mut self.max, &mut max_pages)
                };
                list.reserve(n);
                for _ in 0..n {
                    let (s, len) = r.read_binary_range()?;
                    let at = self.values.len();
                    self.values.extend_from_slice(&r.buf()[s..s + len]);
                    list.push(ByteRange::new(at, len));
                }
                *count = n;
                Ok(())
            }
            (4, wire::I32) => {
                seen_order = true;
                r.read_i32()
                    .map(|v| span.boundary_order = BoundaryOrder::from_thrift(v))
            }
            (5, wire::LIST) if !span.null_counts => {
                span.null_counts = true;
                null_count_pages = read_i64s(r, &mut self.null_counts)?.1;
                Ok(())
            }
            (6 | 7, wire::LIST) => {
                let (s, n) = read_i64s(r, &mut self.histograms)?;
                let h = Some((s as u32, n as u32));
                if id == 6 {
                    span.rep_histograms = h;
                } else {
                    span.def_histograms = h;
                }
                Ok(())
            }
            (8, wire::LIST) if !span.nan_counts => {
                span.nan_counts = true;
                nan_count_pages = read_i64s(r, &mut self.nan_counts)?.1;
                Ok(())
            }
            _ => r.skip_field(ty),
        })?;
        r.leave();
        let required = [
            (seen_null_pages, "null_pages"),
            (seen_min, "min_values"),
            (seen_max, "max_values"),
            (seen_order, "boundary_order"),
        ];
        if let Some((_, field)) = required.iter().find(|(seen, _)| !seen) {
            return Err(missing(r, NAME, field));
        }
        let pages = span.pages as usize;
        // Every per-page list must cover the same pages, so the shared arrays stay aligned.
        for (what, n, present) in [
            ("min_values", min_pages, true),
            ("max_values", max_pages, true),
            ("null_counts", null_count_pages, span.null_counts),
            ("nan_counts", nan_count_pages, span.nan_counts),
        ] {
            if present && n != pages {
                return Err(Error::at(
                    ErrorKind::Inconsistent(format!(
                        "ColumnIndex has {pages} null_pages but {n} {what}"
                    )),
                    r.offset(),
                ));
            }
        }
        // Keep optional per-page arrays aligned with the pages of this index.
        if !span.null_counts {
            self.null_counts.resize(self.null_pages.len(), 0);
        }
        if !span.nan_counts {
            self.nan_counts.resize(self.null_pages.len(), 0);
        }
        Ok(span)
    }

    /// Decodes one `OffsetIndex` into the shared arrays.
    fn decode_offset_index(&mut self, r: &mut Reader<'_>) -> Result<OffsetIndexSpan> {
        const NAME: &str = "OffsetIndex";
        let mut span = OffsetIndexSpan {
            first_page: self.locations.len() as u32,
            pages: 0,
            unencoded: None,
        };
        let mut seen = false;
        r.enter()?;
        r.read_struct(NAME, |r, id, ty| match (id, ty) {
            (1, wire::LIST) if !seen => {
                seen = true;
                let n = r.read_list_len()?;
                self.locations.reserve(n);
                for i in 0..n {
                    let loc =
                        decode_location(r).map_err(|e| e.in_element("PageLocation", i as u32))?;
                    self.locations.push(loc);
                }
                span.pages = n as u32;
                Ok(())
            }
            (2, wire::LIST) => {
                let (s, n) = read_i64s(r, &mut self.histograms)?;
                span.unencoded = Some((s as u32, n as u32));
                Ok(())
            }
            _ => r.skip_field(ty),
        })?;
        r.leave();
        if !seen {
            return Err(missing(r, NAME, "page_locations"));
        }
        Ok(span)
    }
}

/// Decodes a `PageLocation` (unknown fields are dropped).
#[inline]
fn decode_location(r: &mut Reader<'_>) -> Result<PageLocation> {
    const NAME: &str = "PageLocation";
    let mut loc = PageLocation {
        offset: 0,
        compressed_page_size: 0,
        first_row_index: 0,
        unknown: UnknownFields::default(),
    };
    let mut seen = 0u8;
    r.enter()?;
    r.read_struct(NAME, |r, id, ty| {
        match (id, ty) {
            (1, wire::I64) => loc.offset = r.read_i64()?,
            (2, wire::I32) => loc.compressed_page_size = r.read_i32()?,
            (3, wire::I64) => loc.first_row_index = r.read_i64()?,
            _ => return r.skip_field(ty),
        }
        seen |= 1 << id;
        Ok(())
    })?;
    r.leave();
    if seen != 0b1110 {
        let field = match (!seen & 0b1110).trailing_zeros() {
            1 => "offset",
            2 => "compressed_page_size",
            _ => "first_row_index",
        };
        return Err(missing(r, NAME, field));
    }
    if loc.offset < 0 || loc.compressed_page_size < 0 || loc.first_row_index < 0 {
        return Err(Error::at(
            ErrorKind::InvalidValue {
                what: "page location",
                value: loc
                    .offset
                    .min(loc.compressed_page_size as i64)
                    .min(loc.first_row_index),
            },
            r.offset(),
        ));
    }
    Ok(loc)
}

/// Appends a `list<i64>` to `out`; returns where it starts and how many values it has.
fn read_i64s(r: &mut Reader<'_>, out: &mut Vec<i64>) -> Result<(usize, usize)> {
    let start = out.len();
    r.read_i64_list_into(out).map(|n| (start, n))
}

/// Checks that a structure read from `range.start` on ended within `range`.
fn within(r: &Reader<'_>, range: &Range<u64>) -> Result<()> {
    let len = range.end - range.start;
    if r.pos() as u64 > len {
        return Err(Error::at(
            ErrorKind::Inconsistent(format!(
                "the structure takes {} bytes, more than its declared length {len}",
                r.pos()
            )),
            range.start,
        ));
    }
    Ok(())
}

fn chosen(sel: Option<&[usize]>, n: usize, what: &'static str) -> Result<Vec<usize>> {
    match sel {
        None => Ok((0..n).collect()),
        Some(s) => {
            if let Some(&bad) = s.iter().find(|&&i| i >= n) {
                return Err(Error::new(ErrorKind::OutOfBounds {
                    what,
                    index: bad as u64,
                    len: n as u64,
                }));
            }
            Ok(s.to_vec())
        }
    }
}

fn ranges(c: &ColumnChunk) -> (Option<Range<u64>>, Option<Range<u64>>) {
    let r = |off: Option<i64>, len: Option<i32>| match (off, len) {
        (Some(o), Some(l)) if o >= 0 && l > 0 => Some(o as u64..o as u64 + l as u64),
        _ => None,
    };
    (
        r(c.column_index_offset(), c.column_index_length()),
        r(c.offset_index_offset(), c.offset_index_length()),
    )
}

/// The smallest file range that holds the page index of the chosen row groups x columns, or
/// `None` if none of them has one. Fetch it and pass it to [`decode_page_index`].
pub fn page_index_range(
    meta: &FileMetaData,
    row_groups: Option<&[usize]>,
    columns: Option<&[usize]>,
) -> Option<Range<u64>> {
    let mut out: Option<Range<u64>> = None;
    for (i, g) in meta.row_groups().iter().enumerate() {
        if row_groups.is_some_and(|s| !s.contains(&i)) {
            continue;
        }
        for (j, c) in g.columns().iter().enumerate() {
            if columns.is_some_and(|s| !s.contains(&j)) {
                continue;
            }
            let (ci, oi) = ranges(c);
            for r in [ci, oi].into_iter().flatten() {
                out = Some(match out {
                    None => r,
                    Some(o) => o.start.min(r.start)..o.end.max(r.end),
                });
            }
        }
    }
    out
}

/// Decodes the page index of the chosen row groups x columns (`None`: all) from `bytes`,
/// which hold the file from offset `bytes_offset` on and must cover [`page_index_range`]
/// (pass the whole file with offset 0, or just that range).
pub fn decode_page_index(
    bytes: &[u8],
    bytes_offset: u64,
    meta: &FileMetaData,
    row_groups: Option<&[usize]>,
    columns: Option<&[usize]>,
) -> Result<PageIndex> {
    let rgs = chosen(row_groups, meta.row_groups().len(), "row group")?;
    let ncols = meta.row_groups().first().map_or(0, |g| g.columns().len());
    let cols = chosen(columns, ncols, "column")?;
    let schema = meta.schema();
    // Each structure is read from the bytes that follow it too (so varints near its end take
    // the fast path), then checked to end within its declared length.
    let slice = |r: &Range<u64>| -> Result<(&[u8], u64)> {
        let s = r.start.checked_sub(bytes_offset);
        let e = r.end.checked_sub(bytes_offset);
        match (s, e) {
            (Some(s), Some(e)) if e as usize <= bytes.len() => Ok((&bytes[s as usize..], r.start)),
            _ => Err(Error::new(ErrorKind::WrongRange {
                expected_start: r.start,
                expected_len: r.end - r.start,
                got_start: bytes_offset,
                got_len: bytes.len() as u64,
            })),
        }
    };
    let entries = rgs.len() * cols.len();
    let mut pi = PageIndex {
        column_indexes: Vec::with_capacity(entries),
        offset_indexes: Vec::with_capacity(entries),
        ..PageIndex::default()
    };
    // A guess of one page per chunk; the arrays grow when there are more.
    pi.null_pages.reserve(entries);
    pi.min.reserve(entries);
    pi.max.reserve(entries);
    pi.null_counts.reserve(entries);
    pi.nan_counts.reserve(entries);
    pi.locations.reserve(entries);
    let selected_columns = meta.selection.as_ref().and_then(|s| s.columns.as_ref());
    for &i in &rgs {
        let g = &meta.row_groups()[i];
        for &j in &cols {
            let Some(c) = g.columns().get(j) else {
                pi.column_indexes.push(None);
                pi.offset_indexes.push(None);
                continue;
            };
            let leaf = selected_columns.map_or(j, |s| s.get(j).copied().unwrap_or(j));
            let physical_type = schema
                .leaf_element(leaf)
                .and_then(|e| e.physical_type)
                .unwrap_or(PhysicalType::Unknown(-1));
            let (ci, oi) = ranges(c);
            let ctx = |e: Error, what: &'static str| {
                e.in_struct(what).in_column(j as u32).in_row_group(i as u32)
            };
            // An encrypted chunk's indexes are modules decrypted with its key; without the key
            // they are left out.
            let decryptor = match meta.chunk_decryptor(i, leaf, c) {
                Ok(d) => d,
                Err(_) => {
                    pi.column_indexes.push(None);
                    pi.offset_indexes.push(None);
                    continue;
                }
            };
            // An index's bytes: as stored (with their file offset), or an encrypted chunk's
            // module decrypted.
            let bytes_of =
                |r: &Range<u64>, kind: ModuleType| -> Result<(Cow<'_, [u8]>, Option<u64>)> {
                    let (b, base) = slice(r)?;
                    let Some(d) = &decryptor else {
                        return Ok((Cow::Borrowed(b), Some(base)));
                    };
                    let module = b.get(..(r.end - r.start) as usize).unwrap_or(b);
                    let mut plain = Vec::new();
                    d.decrypt(kind, 0, module, &mut plain)
                        .map_err(|e| e.with_offset(r.start))?;
                    Ok((Cow::Owned(plain), None))
                };
            // A stored index must end within its declared length (a decrypted one is whole).
            let fits = |rd: &Reader<'_>, r: &Range<u64>, base: Option<u64>| match base {
                Some(_) => within(rd, r),
                None => Ok(()),
            };
            let col = match &ci {
                Some(r) => {
                    let (b, base) = bytes_of(r, ModuleType::ColumnIndex)?;
                    let mut rd = reader_at(&b, base);
                    let span = pi
                        .decode_column_index(&mut rd, physical_type)
                        .and_then(|span| fits(&rd, r, base).map(|_| span))
                        .map_err(|e| ctx(e, "ColumnIndex"))?;
                    Some(span)
                }
                None => None,
            };
            pi.column_indexes.push(col);
            let off = match &oi {
                Some(r) => {
                    let (b, base) = bytes_of(r, ModuleType::OffsetIndex)?;
                    let mut rd = reader_at(&b, base);
                    let span = pi
                        .decode_offset_index(&mut rd)
                        .and_then(|span| fits(&rd, r, base).map(|_| span))
                        .map_err(|e| ctx(e, "OffsetIndex"))?;
                    Some(span)
                }
                None => None,
            };
            pi.offset_indexes.push(off);
        }
    }
    pi.row_groups = rgs;
    pi.columns = cols;
    Ok(pi)
}

/// A reader of an index's bytes, at their file offset when they are the stored ones.
fn reader_at(b: &[u8], base: Option<u64>) -> Reader<'_> {
    match base {
        Some(base) => Reader::new(b).with_base(base),
        None => Reader::new(b),
    }
}
