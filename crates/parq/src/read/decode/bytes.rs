//! BYTE_ARRAY values of one column ([`Bytes`]): Arrow-style offsets and one value buffer,
//! with the chunk's dictionary made ready for gathering once, for every byte-array encoding.

use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use crate::encoding::dictionary::{ByteArrayDictionary, DictionaryDecoder};
use crate::encoding::plain;
use crate::encoding::OffsetSize;
use crate::format::metadata::Encoding;
use crate::read::decode::convert::values_utf8;
use crate::read::error::{no_dictionary, unsupported_encoding};
use crate::read::io::pool::{self, Recycled};
use crate::Result;

/// BYTE_ARRAY values: Arrow-style offsets (one more than the slots, starting at 0) and bytes.
#[derive(Debug)]
pub(crate) struct Bytes<O> {
    pub(in crate::read) offsets: Vec<O>,
    pub(in crate::read) values: Vec<u8>,
    dict: ByteArrayDictionary,
    pub(in crate::read) has_dict: bool,
    /// Length buffers of the DELTA_LENGTH_BYTE_ARRAY (`lengths`) and DELTA_BYTE_ARRAY
    /// (`prefixes`, `lengths`) decoders, kept from page to page.
    lengths: Vec<i32>,
    prefixes: Vec<i32>,
    /// The values are read as strings: UTF-8 is checked as pages are decoded.
    utf8: bool,
    /// The dictionary is UTF-8, entry by entry.
    dict_utf8: bool,
    /// Every value so far is known to be UTF-8 (checked per page while the bytes are in
    /// cache, or gathered from a checked dictionary). When a page fails the check this turns
    /// false and the conversion at the end checks again (and names the slot).
    pub(in crate::read) utf8_checked: bool,
}

impl<O: OffsetSize> Default for Bytes<O> {
    fn default() -> Self {
        Bytes {
            offsets: vec![O::from_usize(0)],
            values: Vec::new(),
            dict: ByteArrayDictionary::default(),
            has_dict: false,
            lengths: Vec::new(),
            prefixes: Vec::new(),
            utf8: false,
            dict_utf8: false,
            utf8_checked: false,
        }
    }
}

impl<O: OffsetSize + Recycled> Bytes<O> {
    /// Values read as strings (`utf8`) or as binary.
    pub(in crate::read) fn new(utf8: bool) -> Self {
        Bytes {
            utf8,
            utf8_checked: utf8,
            ..Bytes::default()
        }
    }

    pub(in crate::read) fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        pool::reserve(&mut self.values, bytes);
    }

    /// Slots `from..from + n` as values of their own (the dictionary stays here); `all`:
    /// every slot, moved out without a copy.
    pub(in crate::read) fn take(&mut self, from: usize, n: usize, all: bool) -> Self {
        let mut head = Bytes::new(self.utf8);
        head.utf8_checked = self.utf8_checked;
        if all {
            // Recycled vectors as large, if some fit, for the next batch.
            let mut offsets = pool::take_vec(self.offsets.capacity()).unwrap_or_default();
            offsets.push(O::from_usize(0));
            head.offsets = std::mem::replace(&mut self.offsets, offsets);
            let values = pool::take_vec(self.values.capacity()).unwrap_or_default();
            head.values = std::mem::replace(&mut self.values, values);
            self.utf8_checked = self.utf8;
            return head;
        }
        let offset = |i: usize| self.offsets.get(i).and_then(|o| o.to_usize()).unwrap_or(0);
        let (start, end) = (offset(from), offset(from + n));
        head.offsets.clear();
        head.offsets
            .extend((from..=from + n).map(|i| O::from_usize(offset(i).saturating_sub(start))));
        head.values = self
            .values
            .get(start..end)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        head
    }

    /// The first `n` slots as values of their own, their buffers moved out (shrunk to fit)
    /// and the rest copied into new ones (the dictionary stays here): for a part larger than
    /// the rest.
    pub(in crate::read) fn split_head(&mut self, n: usize) -> Self {
        let start = self.offsets.get(n).and_then(|o| o.to_usize()).unwrap_or(0);
        let mut rest_offsets = pool::vec_for(self.offsets.capacity());
        rest_offsets.extend(
            self.offsets
                .get(n..)
                .unwrap_or_default()
                .iter()
                .map(|o| O::from_usize(o.to_usize().unwrap_or(0).saturating_sub(start))),
        );
        if rest_offsets.is_empty() {
            rest_offsets.push(O::from_usize(0));
        }
        let mut rest_values = pool::vec_for(self.values.capacity());
        rest_values.extend_from_slice(self.values.get(start..).unwrap_or_default());
        let mut head = Bytes::new(self.utf8);
        head.utf8_checked = self.utf8_checked;
        head.offsets = std::mem::replace(&mut self.offsets, rest_offsets);
        head.offsets.truncate(n + 1);
        head.offsets.shrink_to_fit();
        head.values = std::mem::replace(&mut self.values, rest_values);
        head.values.truncate(start);
        head.values.shrink_to_fit();
        head
    }

    /// Drops the first `n` slots.
    pub(in crate::read) fn discard(&mut self, n: usize) {
        let n = n.min(self.offsets.len().saturating_sub(1));
        let start = self.offsets.get(n).and_then(|o| o.to_usize()).unwrap_or(0);
        self.offsets.drain(..n);
        for o in &mut self.offsets {
            *o = O::from_usize(o.to_usize().unwrap_or(0).saturating_sub(start));
        }
        self.values.drain(..start.min(self.values.len()));
    }

    pub(in crate::read) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        let (mut offsets, mut values) = (Vec::<O>::new(), Vec::new());
        plain::decode_byte_array(data, n, &mut offsets, &mut values)?;
        if offsets.is_empty() {
            offsets.push(O::from_usize(0));
        }
        self.dict_utf8 = self.utf8 && values_utf8(&offsets, &values);
        self.dict = ByteArrayDictionary::new(&offsets, &values)?;
        self.has_dict = true;
        Ok(())
    }

    /// Appends `n` values of a data page after skipping its first `skip` (PLAIN and
    /// dictionary encodings only).
    pub(in crate::read) fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        skip: usize,
        n: usize,
    ) -> Result<()> {
        let first = self.offsets.len() - 1;
        self.decode_values(encoding, data, skip, n)?;
        if self.utf8_checked {
            let from_dictionary = matches!(
                encoding,
                Encoding::PlainDictionary | Encoding::RleDictionary
            );
            if !(from_dictionary && self.dict_utf8) {
                let page = self.offsets.get(first..).unwrap_or_default();
                self.utf8_checked = values_utf8(page, &self.values);
            }
        }
        Ok(())
    }

    fn decode_values(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        skip: usize,
        n: usize,
    ) -> Result<()> {
        match encoding {
            Encoding::Plain => {
                let data = plain::skip_byte_array(data, skip)?;
                plain::decode_byte_array(data, n, &mut self.offsets, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                let mut d = DictionaryDecoder::new(data)?;
                d.skip(skip)?;
                d.gather_bytes(n, &self.dict, &mut self.offsets, &mut self.values)
            }
            Encoding::DeltaLengthByteArray => {
                let lengths = std::mem::take(&mut self.lengths);
                let mut d = DeltaLengthByteArrayDecoder::with_buffer(data, lengths)?;
                let r = d.decode(n, &mut self.offsets, &mut self.values);
                self.lengths = d.into_buffer();
                r
            }
            Encoding::DeltaByteArray => {
                let prefixes = std::mem::take(&mut self.prefixes);
                let lengths = std::mem::take(&mut self.lengths);
                let mut d = DeltaByteArrayDecoder::with_buffers(data, prefixes, lengths)?;
                let r = d.decode(n, &mut self.offsets, &mut self.values);
                (self.prefixes, self.lengths) = d.into_buffers();
                r
            }
            other => Err(unsupported_encoding(other, "BYTE_ARRAY columns")),
        }
    }
}
