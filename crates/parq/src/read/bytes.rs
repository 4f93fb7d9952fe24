//! BYTE_ARRAY values of one column ([`Bytes`]): Arrow-style offsets and one value buffer,
//! with the chunk's dictionary as offsets + bytes, for every byte-array encoding.

use super::values::{no_dictionary, unsupported_encoding};
use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use crate::encoding::dictionary::DictionaryDecoder;
use crate::encoding::plain;
use crate::encoding::OffsetSize;
use crate::format::metadata::Encoding;
use crate::Result;

/// BYTE_ARRAY values: Arrow-style offsets (one more than the slots, starting at 0) and bytes.
#[derive(Debug)]
pub(crate) struct Bytes<O> {
    pub(super) offsets: Vec<O>,
    pub(super) values: Vec<u8>,
    dict_offsets: Vec<O>,
    dict_values: Vec<u8>,
    pub(super) has_dict: bool,
    /// Length buffers of the DELTA_LENGTH_BYTE_ARRAY (`lengths`) and DELTA_BYTE_ARRAY
    /// (`prefixes`, `lengths`) decoders, kept from page to page.
    lengths: Vec<i32>,
    prefixes: Vec<i32>,
}

impl<O: OffsetSize> Default for Bytes<O> {
    fn default() -> Self {
        Bytes {
            offsets: vec![O::from_usize(0)],
            values: Vec::new(),
            dict_offsets: Vec::new(),
            dict_values: Vec::new(),
            has_dict: false,
            lengths: Vec::new(),
            prefixes: Vec::new(),
        }
    }
}

impl<O: OffsetSize> Bytes<O> {
    pub(super) fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        self.values.reserve(bytes);
    }

    pub(super) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict_offsets.clear();
        self.dict_values.clear();
        plain::decode_byte_array(data, n, &mut self.dict_offsets, &mut self.dict_values)?;
        if self.dict_offsets.is_empty() {
            self.dict_offsets.push(O::from_usize(0));
        }
        self.has_dict = true;
        Ok(())
    }

    pub(super) fn decode(&mut self, encoding: Encoding, data: &[u8], n: usize) -> Result<()> {
        match encoding {
            Encoding::Plain => {
                plain::decode_byte_array(data, n, &mut self.offsets, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                DictionaryDecoder::new(data)?.gather_byte_array(
                    n,
                    &self.dict_offsets,
                    &self.dict_values,
                    &mut self.offsets,
                    &mut self.values,
                )
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
