//! BYTE_ARRAY columns read as Arrow `Dictionary` arrays straight from the Parquet dictionary
//! ([`DictBytes`]): in the common case no value is gathered or hashed.
//!
//! The Arrow dictionary is every chunk's dictionary page, one after the other; the keys of a
//! dictionary-encoded data page are its indices (decoded straight into the key buffer)
//! plus the position of the chunk's dictionary in the Arrow one. Pages of a chunk written
//! without the dictionary (a writer falls back to PLAIN when the dictionary grows too big)
//! add their values to the Arrow dictionary as new entries, one per value. Null slots get
//! key 0. UTF-8 is checked once per dictionary entry, not per row.
//!
//! That dictionary may hold the same value many times (each chunk's dictionary repeats the
//! values of the others; each fallback value is an entry), more entries than a narrow key
//! type (Int8, UInt8, Int16, UInt16) can index although the distinct values would fit. Then,
//! and only then, [`DictBytes::finish`] deduplicates it: each entry a valid slot uses is
//! hashed by its bytes (once per entry, not per row) and the keys are renumbered to the
//! distinct values in order of first use (unused entries are dropped). The common case (wide
//! keys, or few entries) costs one comparison. Only when the slots use more distinct values
//! than the key type can index is it an error, naming the column, the row group and row where
//! the first value too many appears, and the key type: the Arrow type cannot hold them.

use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, DictionaryArray, PrimitiveArray};
use arrow_buffer::{ArrowNativeType, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::bytes::Bytes;
use super::column::ConvertError;
use super::spread::spread_fixed;
use super::values::no_dictionary;
use crate::encoding::encode::dictionary::ByteArrayDictEncoder;
use crate::encoding::plain;
use crate::encoding::rle::RleDecoder;
use crate::encoding::OffsetSize;
use crate::format::metadata::Encoding;
use crate::{Error, ErrorKind, Result};

/// Keys and the Arrow dictionary (offsets + bytes) of a dictionary-preserving column.
#[derive(Debug)]
pub(crate) struct DictBytes<O> {
    keys: Vec<i32>,
    dict_offsets: Vec<O>,
    dict_values: Vec<u8>,
    /// Where the current chunk's dictionary starts in the Arrow one, and its length.
    chunk_base: usize,
    chunk_len: usize,
    has_dict: bool,
    /// Values of a page without the dictionary, before they join the Arrow dictionary.
    fallback: Bytes<O>,
}

impl<O: OffsetSize> Default for DictBytes<O> {
    fn default() -> Self {
        DictBytes {
            keys: Vec::new(),
            dict_offsets: vec![O::from_usize(0)],
            dict_values: Vec::new(),
            chunk_base: 0,
            chunk_len: 0,
            has_dict: false,
            fallback: Bytes::default(),
        }
    }
}

impl<O: OffsetSize> DictBytes<O> {
    /// Entries of the Arrow dictionary so far.
    fn entries(&self) -> usize {
        self.dict_offsets.len() - 1
    }

    pub(super) fn reserve(&mut self, values: usize) {
        self.keys.reserve(values);
    }

    pub(super) fn clear_dictionary(&mut self) {
        self.has_dict = false;
    }

    pub(super) fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.chunk_base = self.entries();
        plain::decode_byte_array(data, n, &mut self.dict_offsets, &mut self.dict_values)?;
        self.chunk_len = self.entries() - self.chunk_base;
        check_key_room(self.entries())?;
        self.has_dict = true;
        Ok(())
    }

    /// Appends the keys of `n` (> 0) dense values of a data page.
    pub(super) fn decode(&mut self, encoding: Encoding, data: &[u8], n: usize) -> Result<()> {
        match encoding {
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                let start = self.keys.len();
                self.keys.resize(start + n, 0);
                RleDecoder::for_dictionary_indices(data)?.decode_exact(&mut self.keys[start..])?;
                // Indices are at most 32 bits: as i32, an index >= 2^31 is negative, which
                // the unsigned comparison below catches with the others.
                let (len, base) = (self.chunk_len as u32, self.chunk_base as i32);
                let mut bad = None;
                for k in &mut self.keys[start..] {
                    if (*k as u32) >= len {
                        bad = Some(*k as u32);
                    }
                    *k = k.wrapping_add(base);
                }
                match bad {
                    Some(index) => Err(Error::new(ErrorKind::Encoding {
                        encoding: "RLE_DICTIONARY",
                        message: format!(
                            "index {index} out of the dictionary of {} entries",
                            self.chunk_len
                        ),
                    })),
                    None => Ok(()),
                }
            }
            _ => {
                // Decoded like any byte-array page, then added to the dictionary.
                self.fallback = Bytes::default();
                self.fallback.decode(encoding, data, n)?;
                let first = self.entries();
                let base = self.dict_values.len();
                if base + self.fallback.values.len() > O::MAX {
                    return Err(Error::new(ErrorKind::Unsupported(format!(
                        "dictionary values of more than {} bytes",
                        O::MAX
                    ))));
                }
                self.dict_values.extend_from_slice(&self.fallback.values);
                for &end in self.fallback.offsets.get(1..).unwrap_or_default() {
                    let end = end.to_usize().unwrap_or(0);
                    self.dict_offsets.push(O::from_usize(base + end));
                }
                check_key_room(self.entries())?;
                self.keys.extend((first..self.entries()).map(|k| k as i32));
                Ok(())
            }
        }
    }

    pub(super) fn spread(&mut self, start: usize, dense: usize, total: usize, validity: &[u8]) {
        spread_fixed(&mut self.keys, start, dense, total, validity);
    }

    /// The keys, and the dictionary's offsets and bytes, for Arrow keys of type `key` (the
    /// slots `nulls` marks null are not looked at). A dictionary of more entries than `key`
    /// can index is deduplicated first ([`compact`]); an error if the distinct values the
    /// valid slots use do not fit `key` either.
    pub(super) fn finish(
        self,
        key: &DataType,
        nulls: Option<&NullBuffer>,
    ) -> std::result::Result<(Vec<i32>, Vec<O>, Vec<u8>), ConvertError> {
        let DictBytes {
            mut keys,
            dict_offsets,
            dict_values,
            ..
        } = self;
        let capacity = key_capacity(key);
        if dict_offsets.len() - 1 <= capacity {
            return Ok((keys, dict_offsets, dict_values));
        }
        let (offsets, values) = compact(&mut keys, &dict_offsets, &dict_values, nulls, key)?;
        Ok((keys, offsets, values))
    }
}

/// How many dictionary entries keys of type `key` can index (keys are built as i32, so
/// wider types index as many as i32 does: `check_key_room` keeps the entries below that).
fn key_capacity(key: &DataType) -> usize {
    match key {
        DataType::Int8 => 1 << 7,
        DataType::UInt8 => 1 << 8,
        DataType::Int16 => 1 << 15,
        DataType::UInt16 => 1 << 16,
        _ => 1 << 31,
    }
}

/// Deduplicates the dictionary `offsets` / `values` by value for keys of type `key`: the
/// entries the valid slots (per `nulls`) use, each hashed once, become the distinct values in
/// order of first use, and `keys` are renumbered to them (null slots get key 0). Returns the
/// new dictionary, or an error at the first slot whose value is one more distinct value than
/// `key` can index.
#[cold]
#[inline(never)]
fn compact<O: OffsetSize>(
    keys: &mut [i32],
    offsets: &[O],
    values: &[u8],
    nulls: Option<&NullBuffer>,
    key: &DataType,
) -> std::result::Result<(Vec<O>, Vec<u8>), ConvertError> {
    /// An entry no valid slot used so far.
    const UNSEEN: u32 = u32::MAX;
    let capacity = key_capacity(key);
    let internal = |what: String| ConvertError::new(format!("internal error: {what}"));
    // The new entry of each old entry, once a valid slot used it.
    let mut new_of = vec![UNSEEN; offsets.len().saturating_sub(1)];
    let mut distinct = ByteArrayDictEncoder::new();
    let mut index = Vec::with_capacity(1);
    for (slot, k) in keys.iter_mut().enumerate() {
        if nulls.is_some_and(|n| n.is_null(slot)) {
            *k = 0;
            continue;
        }
        let old = usize::try_from(*k).unwrap_or(usize::MAX);
        let Some(new) = new_of.get_mut(old) else {
            return Err(internal(format!(
                "dictionary key {k} out of {} entries",
                offsets.len() - 1
            )));
        };
        if *new == UNSEEN {
            let entry = offsets
                .get(old..old + 2)
                .ok_or_else(|| internal(format!("no offsets for dictionary entry {old}")))?;
            index.clear();
            distinct
                .put(entry, values, &mut index)
                .map_err(|e| internal(e.to_string()))?;
            *new = index.first().copied().unwrap_or(UNSEEN);
            if distinct.len() > capacity {
                return Err(ConvertError {
                    message: format!(
                        "more than {capacity} distinct values, which the dictionary key type \
                         {key} cannot index: value {} of them first appears",
                        capacity + 1
                    ),
                    slot: Some(slot),
                });
            }
        }
        // At most `capacity` (<= 2^16) distinct values: the new key fits.
        *k = *new as i32;
    }
    let all: Vec<u32> = (0..distinct.len() as u32).collect();
    let (mut wide, mut dict_values) = (Vec::new(), Vec::new());
    distinct
        .gather(&all, &mut wide, &mut dict_values)
        .map_err(|e| internal(e.to_string()))?;
    // At most the bytes of the dictionary it comes from: they fit `O`.
    let dict_offsets = wide
        .iter()
        .map(|&o| O::from_usize(usize::try_from(o).unwrap_or(0)))
        .collect();
    Ok((dict_offsets, dict_values))
}

/// Keys are i32 while they are built: the dictionary must stay below 2^31 entries.
fn check_key_room(entries: usize) -> Result<()> {
    if entries > i32::MAX as usize {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "a dictionary of {entries} entries (more than 2^31 - 1)"
        ))));
    }
    Ok(())
}

/// A `DictionaryArray` with `key` keys from i32 `keys` (checked to fit) and `values`.
pub(crate) fn dictionary_array(
    keys: Vec<i32>,
    nulls: Option<NullBuffer>,
    key: &DataType,
    values: ArrayRef,
) -> std::result::Result<ArrayRef, ConvertError> {
    fn build<K: ArrowDictionaryKeyType>(
        keys: Vec<i32>,
        nulls: Option<NullBuffer>,
        values: ArrayRef,
    ) -> std::result::Result<ArrayRef, ConvertError> {
        let native: ScalarBuffer<K::Native> = if K::DATA_TYPE == DataType::Int32 {
            // i32 keys are the key type's native values already: the buffer is handed over.
            let len = keys.len();
            ScalarBuffer::new(Buffer::from_vec(keys), 0, len)
        } else {
            let mut out = Vec::with_capacity(keys.len());
            for (slot, &k) in keys.iter().enumerate() {
                let native = usize::try_from(k).ok().and_then(K::Native::from_usize);
                out.push(native.ok_or_else(|| ConvertError {
                    message: format!(
                        "dictionary key {k} does not fit the key type {}: more distinct \
                         values than it can index",
                        K::DATA_TYPE
                    ),
                    slot: Some(slot),
                })?);
            }
            ScalarBuffer::from(out)
        };
        let keys = PrimitiveArray::<K>::new(native, nulls);
        let a = DictionaryArray::<K>::try_new(keys, values)
            .map_err(|e| ConvertError::new(e.to_string()))?;
        Ok(Arc::new(a))
    }
    match key {
        DataType::Int8 => build::<Int8Type>(keys, nulls, values),
        DataType::Int16 => build::<Int16Type>(keys, nulls, values),
        DataType::Int32 => build::<Int32Type>(keys, nulls, values),
        DataType::Int64 => build::<Int64Type>(keys, nulls, values),
        DataType::UInt8 => build::<UInt8Type>(keys, nulls, values),
        DataType::UInt16 => build::<UInt16Type>(keys, nulls, values),
        DataType::UInt32 => build::<UInt32Type>(keys, nulls, values),
        DataType::UInt64 => build::<UInt64Type>(keys, nulls, values),
        _ => Err(ConvertError::new(format!(
            "invalid dictionary key type {key}"
        ))),
    }
}
