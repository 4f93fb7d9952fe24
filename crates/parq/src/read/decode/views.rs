//! BYTE_ARRAY columns read as Arrow `Utf8View` / `BinaryView` ([`ViewBytes`]). The values
//! of a dictionary-encoded page become views into the chunk's dictionary page, decoded
//! once and shared by every batch that uses it: each value is one 16-byte view gathered
//! from the dictionary's views, and no string is copied. The values of a PLAIN page are
//! viewed where they are, in the page's own bytes (the decompressed page, or the file bytes
//! of an uncompressed one), which the arrays then keep ([`ViewBytes::view_page`],
//! [`ViewBytes::adopt_page`]); values of other encodings are decoded once into a buffer of
//! their own and viewed there.
//!
//! The views name their buffer by index. The current dictionary is always buffer 0; the
//! buffer non-dictionary pages are decoded into (`plain.values`, "open") becomes buffer
//! `buffers.len()` when it is frozen, the index its views were given. A new chunk's
//! dictionary moves the old one to the end, and the views still pending are renamed to it.

use arrow_array::builder::make_view;
use arrow_array::{Array, ArrayRef, BinaryViewArray, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use std::sync::Arc;

use crate::encoding::dictionary::{bad_index, DictionaryDecoder};
use crate::encoding::{plain, try_reserve};
use crate::error::internal;
use crate::format::metadata::Encoding;
use crate::read::decode::bytes::Bytes;
use crate::read::decode::convert::{invalid_utf8, values_utf8};
use crate::read::decode::spread::spread_fixed;
use crate::read::error::{no_dictionary, ConvertError, SLOTS};
use crate::read::io::pool;
use crate::Result;

/// The open buffer is frozen before a page once it holds this many bytes, so that its
/// offsets stay far from the view's 32-bit limit (and the decoders' i32 offsets).
const FREEZE_AT: usize = 1 << 30;

/// A page reading fewer than one value per this many dictionary entries makes its views
/// one by one rather than the dictionary's all.
const FEW: usize = 8;

/// The longest value a view holds inline.
const INLINE: usize = 12;

/// Values as Arrow views, with the buffers they point into.
#[derive(Debug)]
pub(crate) struct ViewBytes {
    views: Vec<u128>,
    /// `[0]`: the current chunk's dictionary (empty without one); then frozen buffers.
    buffers: Vec<Buffer>,
    /// The offsets of the current dictionary's entries in `buffers[0]`.
    dict_offsets: Vec<i32>,
    /// The view of each entry of the current dictionary, made when a page first needs
    /// more than a few of them (empty until then).
    dict_views: Vec<u128>,
    /// A page's dictionary indices, when only a few values are read from it.
    indices: Vec<u32>,
    has_dict: bool,
    /// Every entry of the current dictionary is UTF-8.
    dict_utf8: bool,
    /// Decodes the pages without the dictionary; its `values` is the open buffer.
    plain: Bytes<i32>,
    /// The values are read as strings.
    utf8: bool,
    /// Every value viewed so far is known to be UTF-8.
    utf8_checked: bool,
    /// The PLAIN data page being decoded, whose bytes its long values are viewed in.
    page: Option<PageView>,
}

/// A page whose values are viewed in its own bytes: the address of those bytes, the buffer
/// index they take when adopted, the first of the page's views, and whether any view names
/// the page's bytes yet.
#[derive(Debug, Clone, Copy)]
struct PageView {
    base: usize,
    index: u32,
    first: usize,
    viewed: bool,
}

impl ViewBytes {
    pub(in crate::read) fn new(utf8: bool) -> Self {
        ViewBytes {
            views: Vec::new(),
            buffers: vec![Buffer::from_vec(Vec::<u8>::new())],
            dict_offsets: Vec::new(),
            dict_views: Vec::new(),
            indices: Vec::new(),
            has_dict: false,
            dict_utf8: false,
            plain: Bytes::new(utf8),
            utf8,
            utf8_checked: utf8,
            page: None,
        }
    }

    /// Before decoding a PLAIN data page whose bytes start at address `base`: its values
    /// longer than a view holds are to be viewed in place; the leaf offers the page's bytes
    /// to [`ViewBytes::adopt_page`] after the page.
    pub(in crate::read) fn view_page(&mut self, base: *const u8) {
        // Views name the open buffer by the index it takes when frozen: frozen first, the
        // page's bytes take the next index.
        self.freeze();
        self.page = Some(PageView {
            base: base as usize,
            index: self.buffers.len() as u32,
            first: self.views.len(),
            viewed: false,
        });
    }

    /// Keeps the page's bytes (from `bytes`, called only when a view names them: they hold
    /// the values viewed from the address given to [`ViewBytes::view_page`] on) for the
    /// views into them; ends the page.
    pub(in crate::read) fn adopt_page(&mut self, bytes: impl FnOnce() -> Buffer) -> Result<()> {
        let Some(page) = self.page.take_if(|p| p.viewed) else {
            return Ok(());
        };
        let bytes = bytes();
        // The views' offsets count from `base`, where the page's values start in its bytes
        // (after a v2 page's levels).
        let start = page.base.wrapping_sub(bytes.as_ptr() as usize);
        if start > bytes.len() || self.buffers.len() != page.index as usize {
            return Err(internal(
                "a page's bytes are not those its values were viewed in",
            ));
        }
        self.buffers.push(bytes.slice(start));
        Ok(())
    }

    /// Ends the page of [`ViewBytes::view_page`] without its bytes, dropping the views a
    /// failed decode made (the page's views when they name its bytes).
    pub(in crate::read) fn end_page(&mut self) {
        if let Some(page) = self.page.take() {
            if page.viewed {
                self.views.truncate(page.first);
            }
        }
    }

    pub(in crate::read) fn reserve(&mut self, values: usize) {
        pool::reserve(&mut self.views, values);
    }

    /// Room for `slots` views in all (recycled memory first), or an error if they cannot be
    /// allocated.
    pub(in crate::read) fn try_room(&mut self, slots: usize) -> Result<()> {
        pool::recycle_into(&mut self.views, slots);
        let more = slots.saturating_sub(self.views.len());
        try_reserve(SLOTS, &mut self.views, more)
    }

    pub(in crate::read) fn clear_dictionary(&mut self) {
        self.has_dict = false;
    }

    pub(in crate::read) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        let mut offsets = std::mem::take(&mut self.dict_offsets);
        offsets.clear();
        offsets.push(0);
        let mut values = Vec::new();
        plain::decode_byte_array(data, n, &mut offsets, &mut values)?;
        self.retire_dictionary();
        self.dict_utf8 = self.utf8 && values_utf8(&offsets, &values);
        self.dict_offsets = offsets;
        self.dict_views.clear();
        let buffer = Buffer::from_vec(values);
        match self.buffers.first_mut() {
            Some(first) => *first = buffer,
            None => self.buffers.push(buffer),
        }
        self.has_dict = true;
        Ok(())
    }

    /// Moves the current dictionary from buffer 0 to the end of the buffers, renaming the
    /// views still held that point into it, before a new one takes its place.
    fn retire_dictionary(&mut self) {
        if self.views.is_empty() {
            return;
        }
        let Some(dictionary) = self.buffers.first().cloned() else {
            return;
        };
        // The open buffer first: its views were given the index `buffers.len()`.
        self.freeze();
        let index = self.buffers.len() as u32;
        self.buffers.push(dictionary);
        for v in &mut self.views {
            if view_buffer(*v) == Some(0) {
                *v = with_buffer(*v, index);
            }
        }
    }

    /// Makes the open buffer an Arrow buffer of its own (`buffers.len()`, the index its
    /// views name).
    fn freeze(&mut self) {
        if !self.plain.values.is_empty() {
            let values = std::mem::take(&mut self.plain.values);
            self.buffers.push(pool::buffer(values));
        }
    }

    /// Appends `n` (> 0) values of a data page after skipping its first `skip`.
    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        skip: usize,
        n: usize,
    ) -> Result<()> {
        if matches!(
            encoding,
            Encoding::PlainDictionary | Encoding::RleDictionary
        ) {
            if !self.has_dict {
                return Err(no_dictionary());
            }
            let mut d = DictionaryDecoder::new(data)?;
            d.skip(skip)?;
            let entries = self.dict_offsets.len().saturating_sub(1);
            if self.dict_views.is_empty() && n.saturating_mul(FEW) < entries {
                self.view_few(&mut d, n)?;
            } else {
                if self.dict_views.is_empty() {
                    let dictionary = dictionary(&self.buffers);
                    push_views(&self.dict_offsets, dictionary, 0, &mut self.dict_views);
                }
                d.gather(n, &self.dict_views, &mut self.views)?;
            }
            self.utf8_checked &= self.dict_utf8;
            return Ok(());
        }
        if self.plain.values.len() >= FREEZE_AT {
            self.freeze();
        }
        let index = self.buffers.len() as u32;
        if encoding == Encoding::Plain {
            return self.decode_plain(data, skip, n, index);
        }
        let first = self.plain.values.len();
        self.plain.offsets.clear();
        // Below FREEZE_AT: fits i32.
        self.plain.offsets.push(first as i32);
        self.plain.utf8_checked = self.utf8;
        self.plain.decode(encoding, data, skip, n)?;
        self.utf8_checked &= self.plain.utf8_checked;
        push_views(
            &self.plain.offsets,
            &self.plain.values,
            index,
            &mut self.views,
        );
        Ok(())
    }

    /// Appends the views of the next `n` indices of `d`, each made from the dictionary's
    /// offsets (for a few values from a large dictionary, such as a point lookup's: cheaper
    /// than the views of every entry).
    fn view_few(&mut self, d: &mut DictionaryDecoder<'_>, n: usize) -> Result<()> {
        self.indices.clear();
        self.indices.resize(n, 0);
        d.indices().decode_exact(&mut self.indices)?;
        let dictionary = dictionary(&self.buffers);
        let offsets = &self.dict_offsets;
        try_reserve(SLOTS, &mut self.views, n)?;
        for &i in &self.indices {
            let i = i as usize;
            let (Some(&s), Some(&e)) = (offsets.get(i), offsets.get(i + 1)) else {
                return Err(bad_index(i as u64, offsets.len().saturating_sub(1)));
            };
            // Offsets from the dictionary's decoding: increasing, within it, below 2^31.
            let value = dictionary.get(s as usize..e as usize).unwrap_or_default();
            self.views.push(make_view(value, 0, s as u32));
        }
        Ok(())
    }

    /// Appends `n` values of a PLAIN page after skipping its first `skip`, in one pass over
    /// the page: a value of at most 12 bytes is its view alone (nothing copied); a longer one
    /// is viewed in the page's own bytes when [`ViewBytes::view_page`] gave them, otherwise
    /// copied into the open buffer (`index`) and viewed there.
    fn decode_plain(&mut self, data: &[u8], skip: usize, n: usize, index: u32) -> Result<()> {
        let data = plain::skip_byte_array(data, skip)?;
        try_reserve(SLOTS, &mut self.views, n)?;
        // A page that is ASCII throughout (its length prefixes too: values shorter than 128
        // bytes) holds only UTF-8 values: one pass over it instead of one per value.
        let check = self.utf8 && !data.is_ascii();
        let mut utf8 = true;
        // Long values' views: into the page's bytes (which start at `base`), or copied into
        // the open buffer.
        let page = self.page.map(|p| (p.base, p.index));
        let (views, open) = (&mut self.views, &mut self.plain.values);
        let mut viewed = false;
        plain::for_each_byte_array(data, n, |v| {
            if check {
                utf8 &= v.is_ascii() || std::str::from_utf8(v).is_ok();
            }
            if v.len() <= INLINE {
                views.push(make_view(v, 0, 0));
                return;
            }
            // Offsets fit u32: a page's bytes are shorter than 2^31 (the page size limit), the
            // open buffer below FREEZE_AT plus one page.
            let (buffer, offset) = match page {
                Some((base, at)) => {
                    viewed = true;
                    (at, (v.as_ptr() as usize).wrapping_sub(base) as u32)
                }
                None => {
                    let offset = open.len() as u32;
                    open.extend_from_slice(v);
                    (index, offset)
                }
            };
            views.push(make_view(v, buffer, offset));
        })?;
        if let Some(p) = self.page.as_mut() {
            p.viewed |= viewed;
        }
        self.utf8_checked &= utf8;
        Ok(())
    }

    pub(in crate::read) fn spread(
        &mut self,
        start: usize,
        dense: usize,
        total: usize,
        validity: &[u8],
    ) {
        // Null slots get the zero view: an empty value, inline.
        spread_fixed(&mut self.views, start, dense, total, validity);
    }

    /// Views `from..from + n`, with every buffer (shared, not copied); `all`: every view,
    /// moved out, letting go of all buffers but the dictionary.
    pub(in crate::read) fn take(&mut self, from: usize, n: usize, all: bool) -> Self {
        self.freeze();
        let views = if all {
            let next = pool::take_vec(self.views.capacity()).unwrap_or_default();
            std::mem::replace(&mut self.views, next)
        } else {
            self.views
                .get(from..from + n)
                .map(<[u128]>::to_vec)
                .unwrap_or_default()
        };
        let head = self.head(views);
        if all {
            self.buffers.truncate(1);
            self.utf8_checked = self.utf8;
        }
        head
    }

    /// The first `n` views (fewer than held) as values of their own: the views' vector moved
    /// out and the rest copied into another (so fewer views are copied than by
    /// [`ViewBytes::take`] and the compaction after it).
    pub(in crate::read) fn split_head(&mut self, n: usize) -> Self {
        self.freeze();
        let mut rest = pool::vec_for(self.views.capacity());
        rest.extend_from_slice(self.views.get(n..).unwrap_or_default());
        let mut views = std::mem::replace(&mut self.views, rest);
        views.truncate(n);
        self.head(views)
    }

    /// `views` taken from these as values of their own, with the buffers they may name.
    fn head(&self, views: Vec<u128>) -> Self {
        let mut head = ViewBytes::new(self.utf8);
        head.views = views;
        head.buffers = self.buffers.clone();
        head.utf8_checked = self.utf8_checked;
        head
    }

    /// Drops the first `n` views; with none left, the buffers but the dictionary go too.
    pub(in crate::read) fn discard(&mut self, n: usize) {
        self.views.drain(..n.min(self.views.len()));
        if self.views.is_empty() {
            self.plain.values.clear();
            self.buffers.truncate(1);
            self.utf8_checked = self.utf8;
        }
    }

    /// The `Utf8View` or `BinaryView` array (per `t`) of the views held.
    pub(in crate::read) fn finish(
        self,
        nulls: Option<NullBuffer>,
        t: &DataType,
    ) -> std::result::Result<ArrayRef, ConvertError> {
        let ViewBytes {
            views,
            mut buffers,
            mut plain,
            utf8_checked,
            ..
        } = self;
        if !plain.values.is_empty() {
            buffers.push(pool::buffer(std::mem::take(&mut plain.values)));
        }
        let len = views.len();
        if nulls.as_ref().is_some_and(|n| n.len() != len) {
            return Err(ConvertError::new(format!(
                "{} null bits for {len} values",
                nulls.as_ref().map_or(0, NullBuffer::len)
            )));
        }
        let views = ScalarBuffer::new(pool::buffer(views), 0, len);
        match t {
            DataType::Utf8View if utf8_checked => {
                // SAFETY: every view was made by `make_view` from the bytes it describes, in
                // the buffer at the index it names (the dictionary's views name 0 while it
                // is buffer 0, and are renamed when it moves; an open buffer's views name
                // the index it gets when frozen), and every buffer is kept while a view
                // names it (cloned with the views, dropped only with no view left); null
                // slots hold the zero view (empty, inline). `utf8_checked`: each value's
                // bytes were checked to be UTF-8 (per dictionary entry, or page by page),
                // and the null buffer's length was checked above: `try_new` would not fail.
                let a = unsafe { StringViewArray::new_unchecked(views, buffers.into(), nulls) };
                Ok(Arc::new(a))
            }
            DataType::Utf8View => {
                // SAFETY: as above; only UTF-8 is not known, and binary values need none.
                let bytes = unsafe { BinaryViewArray::new_unchecked(views, buffers.into(), nulls) };
                let slot = (0..bytes.len()).position(|i| {
                    bytes.is_valid(i) && std::str::from_utf8(bytes.value(i)).is_err()
                });
                match slot {
                    Some(slot) => Err(invalid_utf8(slot)),
                    None => {
                        let a: StringViewArray = bytes
                            .to_string_view()
                            .map_err(|e| ConvertError::new(e.to_string()))?;
                        Ok(Arc::new(a))
                    }
                }
            }
            _ => {
                // SAFETY: as above; binary values need no UTF-8.
                let a = unsafe { BinaryViewArray::new_unchecked(views, buffers.into(), nulls) };
                Ok(Arc::new(a))
            }
        }
    }
}

/// Appends to `out` the views of the values between consecutive `offsets` of `values`, into
/// buffer `index`.
fn push_views(offsets: &[i32], values: &[u8], index: u32, out: &mut Vec<u128>) {
    out.extend(offsets.windows(2).map(|w| {
        let (s, e) = (w[0] as usize, w[1] as usize);
        // Offsets come from the decoders: increasing, within `values`, below 2^31.
        make_view(values.get(s..e).unwrap_or_default(), index, w[0] as u32)
    }));
}

/// The bytes of the current dictionary (`buffers[0]`).
fn dictionary(buffers: &[Buffer]) -> &[u8] {
    buffers.first().map_or(&[][..], Buffer::as_slice)
}

/// The buffer a view points into (`None` for a value of at most 12 bytes, held inline).
fn view_buffer(view: u128) -> Option<u32> {
    ((view as u32) as usize > INLINE).then_some((view >> 64) as u32)
}

/// `view` pointing into buffer `index` instead.
fn with_buffer(view: u128, index: u32) -> u128 {
    let mask = u128::from(u32::MAX) << 64;
    (view & !mask) | (u128::from(index) << 64)
}
