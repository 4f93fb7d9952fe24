//! The pages of an encrypted column chunk as a [`ColumnWriter`] closes them: each body
//! replaced by its module (AES-GCM, or AES-CTR under `AES_GCM_CTR_V1`) and each header by
//! its AES-GCM module, with the data page ordinal in their AADs. The dictionary page is
//! sealed where it is written (`chunk.rs`).

use super::*;

impl ColumnWriter {
    /// Sets the encryptor of the chunks written from now on (`None`: plaintext).
    pub fn set_encryptor(&mut self, encryptor: Option<ColumnEncryptor>) {
        self.encryptor = encryptor;
    }

    /// True when page bodies are left in the values buffer (uncompressed and not encrypted);
    /// else they are kept in the chunk's body buffer.
    pub(super) fn bodies_in_values(&self) -> bool {
        self.settings.codec.compression() == Compression::Uncompressed && self.encryptor.is_none()
    }

    /// The ordinal of the data page being closed among the chunk's data pages.
    pub(super) fn data_page_ordinal(&self) -> Result<u16> {
        let n: i64 = self
            .chunk
            .data_pages
            .iter()
            .map(|(_, c)| i64::from(*c))
            .sum();
        match (&self.encryptor, u16::try_from(n)) {
            (None, _) => Ok(0),
            (Some(_), Ok(o)) if o <= i16::MAX as u16 => Ok(o),
            (Some(_), _) => Err(column_error(
                &self.name,
                "an encrypted column chunk holds at most 32768 data pages: write smaller row \
                 groups or larger pages",
            )),
        }
    }

    /// Encrypts the page body at `bodies[start..end]` (the last bytes there) in place into
    /// its module; returns the module's end. Plaintext chunks are left as they are.
    pub(super) fn seal_body(
        &mut self,
        kind: ModuleType,
        ordinal: u16,
        start: usize,
        end: usize,
    ) -> Result<usize> {
        let Some(e) = &self.encryptor else {
            return Ok(end);
        };
        if end != self.chunk.bodies.len() || start > end {
            return Err(self.internal("an encrypted page body not at the end of the bodies"));
        }
        e.seal_tail(kind, ordinal, &mut self.chunk.bodies, start)?;
        Ok(self.chunk.bodies.len())
    }

    /// Encrypts the page header encoded at `headers[start..]` in place into its module.
    pub(super) fn seal_header(
        &mut self,
        kind: ModuleType,
        ordinal: u16,
        start: usize,
    ) -> Result<()> {
        match &self.encryptor {
            Some(e) => e.seal_tail(kind, ordinal, &mut self.chunk.headers, start),
            None => Ok(()),
        }
    }
}
