//! The pages of an encrypted column chunk: each page header is an AES-GCM module and each
//! body an AES-GCM (or, under `AES_GCM_CTR_V1`, AES-CTR) module, authenticated with the AAD
//! of its kind, row group, column and data page ordinal. A page is decrypted as it is read;
//! what follows sees the plaintext header and compressed body.

use bytes::{Bytes, BytesMut};

use crate::format::crypto::cipher::LENGTH_BYTES;
use crate::format::crypto::{ColumnDecryptor, ModuleType};
use crate::format::metadata::PageHeader;
use crate::{Error, ErrorKind, Result};

/// How the pages of an encrypted chunk are decrypted.
#[derive(Debug)]
pub(super) struct PageCrypto {
    pub decryptor: ColumnDecryptor,
    /// The chunk starts with a dictionary page (`dictionary_page_offset` is set): its first
    /// page is decrypted as one.
    pub has_dictionary: bool,
    /// The buffers headers and bodies are decrypted into: each page's plaintext is split off
    /// as shared bytes, and the room is taken back once the page is let go, so a chunk's
    /// pages reuse one allocation (no fresh memory to fault in per page).
    pub headers: BytesMut,
    pub bodies: BytesMut,
}

/// Which page a module belongs to: the dictionary page, or the data page of an ordinal.
#[derive(Debug, Clone, Copy)]
pub(super) enum PageSlot {
    Dictionary,
    Data(u16),
}

impl PageSlot {
    /// The slot of the page at chunk offset `start`: the dictionary page when the chunk has
    /// one and the page is the chunk's first, else data page `data_ordinal`.
    pub fn of(crypto: &PageCrypto, start: u64, data_ordinal: u64) -> Result<PageSlot> {
        if start == 0 && crypto.has_dictionary {
            return Ok(PageSlot::Dictionary);
        }
        u16::try_from(data_ordinal)
            .ok()
            .filter(|&o| o <= i16::MAX as u16)
            .map(PageSlot::Data)
            .ok_or_else(|| {
                Error::new(ErrorKind::Unsupported(format!(
                    "data page {data_ordinal} of an encrypted chunk: encrypted chunks hold at \
                     most 32768 pages"
                )))
            })
    }

    fn header(self) -> (ModuleType, u16) {
        match self {
            PageSlot::Dictionary => (ModuleType::DictionaryPageHeader, 0),
            PageSlot::Data(o) => (ModuleType::DataPageHeader, o),
        }
    }

    fn body(self) -> (ModuleType, u16) {
        match self {
            PageSlot::Dictionary => (ModuleType::DictionaryPage, 0),
            PageSlot::Data(o) => (ModuleType::DataPage, o),
        }
    }
}

/// The chunk offset where the module starting at `start` ends, when `region` (the bytes
/// held from `start`) holds its length.
pub(super) fn module_end(region: &[u8], start: u64) -> Option<u64> {
    let len = region.first_chunk::<LENGTH_BYTES>()?;
    Some(start + LENGTH_BYTES as u64 + u32::from_le_bytes(*len) as u64)
}

impl PageCrypto {
    /// Decrypts the header module at the start of `region` (the bytes held from the page
    /// start) and decodes the header: the header, the module's length in the file, and the
    /// plaintext header bytes (its ranges refer to them). An error when the region does not
    /// hold the module, as the plain decoder fails on a cut header.
    pub fn header(&mut self, region: &[u8], slot: PageSlot) -> Result<(PageHeader, usize, Bytes)> {
        let end = module_end(region, 0).ok_or_else(|| cut(region.len(), LENGTH_BYTES as u64))?;
        let module = usize::try_from(end)
            .ok()
            .and_then(|e| region.get(..e))
            .ok_or_else(|| cut(region.len(), end))?;
        let (kind, ordinal) = slot.header();
        self.headers.reserve(module.len());
        self.decryptor
            .decrypt(kind, ordinal, module, &mut self.headers)?;
        let plain = self.headers.split().freeze();
        let (header, _) = PageHeader::decode_prefix(&plain)?;
        Ok((header, module.len(), plain))
    }

    /// Decrypts a page body module.
    pub fn body(&mut self, module: &[u8], slot: PageSlot) -> Result<Bytes> {
        let (kind, ordinal) = slot.body();
        self.bodies.reserve(module.len());
        self.decryptor
            .decrypt(kind, ordinal, module, &mut self.bodies)?;
        Ok(self.bodies.split().freeze())
    }
}

fn cut(held: usize, needed: u64) -> Error {
    Error::new(ErrorKind::Truncated {
        needed,
        remaining: held as u64,
    })
}
