//! What a caller gives to read or write an encrypted file: the keys (explicit, or from a
//! [`KeyRetriever`] that is handed each key's metadata), the AAD prefix, and for writing the
//! algorithm, footer mode and which columns are encrypted under which key.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::cipher::Algorithm;
use crate::error::{Error, ErrorKind, Result};

/// Finds a key from the key metadata a file stores beside what the key encrypts (the footer's
/// `key_metadata` or `footer_signing_key_metadata`, a column's `key_metadata`): a key id, or
/// the key material of an envelope encryption scheme.
pub trait KeyRetriever: Send + Sync {
    /// The key (16, 24 or 32 bytes) that `key_metadata` names; an error says why it cannot
    /// be had (an unknown id, a KMS that refuses, ...).
    fn retrieve_key(&self, key_metadata: &[u8]) -> std::result::Result<Vec<u8>, String>;

    /// This retriever for reading the file at `path` (key material kept beside the file is
    /// found there); `None` when the file's place does not matter to it.
    fn for_file(&self, _path: &std::path::Path) -> Option<Arc<dyn KeyRetriever>> {
        None
    }
}

fn check_key(key: &[u8], what: &str) -> Result<()> {
    match key.len() {
        16 | 24 | 32 => Ok(()),
        n => Err(Error::new(ErrorKind::InvalidArgument(format!(
            "the {what} is {n} bytes; AES keys are 16, 24 or 32 bytes"
        )))),
    }
}

/// How to decrypt a file: the footer key and column keys given outright (columns by their
/// dotted leaf path, e.g. `l.list.element`), or a [`KeyRetriever`] for the keys not given;
/// the AAD prefix when the file does not store it.
#[derive(Clone, Default)]
pub struct FileDecryptionProperties {
    footer_key: Option<Vec<u8>>,
    column_keys: BTreeMap<String, Vec<u8>>,
    retriever: Option<Arc<dyn KeyRetriever>>,
    aad_prefix: Option<Vec<u8>>,
    skip_footer_verification: bool,
    columns: Option<Vec<String>>,
}

impl fmt::Debug for FileDecryptionProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the keys.
        f.debug_struct("FileDecryptionProperties")
            .field("footer_key", &self.footer_key.as_ref().map(|_| "<given>"))
            .field("column_keys", &self.column_keys.keys().collect::<Vec<_>>())
            .field("key_retriever", &self.retriever.is_some())
            .field("aad_prefix", &self.aad_prefix.is_some())
            .finish()
    }
}

impl FileDecryptionProperties {
    /// Properties with the footer key given (it also decrypts the columns encrypted with it).
    pub fn with_footer_key(key: impl Into<Vec<u8>>) -> Result<Self> {
        let key = key.into();
        check_key(&key, "footer key")?;
        Ok(FileDecryptionProperties {
            footer_key: Some(key),
            ..Default::default()
        })
    }

    /// Properties whose keys all come from `retriever`.
    pub fn with_key_retriever(retriever: Arc<dyn KeyRetriever>) -> Self {
        FileDecryptionProperties {
            retriever: Some(retriever),
            ..Default::default()
        }
    }

    /// Adds the key of the column at dotted leaf path `path`.
    pub fn column_key(mut self, path: impl Into<String>, key: impl Into<Vec<u8>>) -> Result<Self> {
        let (path, key) = (path.into(), key.into());
        check_key(&key, &format!("key of column `{path}`"))?;
        self.column_keys.insert(path, key);
        Ok(self)
    }

    /// Sets the key retriever asked for the keys not given.
    pub fn key_retriever(mut self, retriever: Arc<dyn KeyRetriever>) -> Self {
        self.retriever = Some(retriever);
        self
    }

    /// Sets the AAD prefix (needed when the file was written without storing it; checked
    /// against the stored one otherwise).
    pub fn aad_prefix(mut self, prefix: impl Into<Vec<u8>>) -> Self {
        self.aad_prefix = Some(prefix.into());
        self
    }

    /// Asks for the keys of these columns only (top-level names covering their leaves, or
    /// dotted leaf paths): a read of some columns leaves the others' keys unrequested (and a
    /// KMS unasked), those columns unreadable.
    pub fn only_columns(mut self, columns: Vec<String>) -> Self {
        self.columns = Some(columns);
        self
    }

    /// True when the column at dotted leaf path `path` is among those whose keys are asked
    /// for.
    pub fn wants_column(&self, path: &str) -> bool {
        self.columns.as_ref().is_none_or(|cs| {
            cs.iter().any(|c| {
                path == c
                    || path
                        .strip_prefix(c.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            })
        })
    }

    /// These properties for reading the file at `path` (the key retriever may keep key
    /// material beside the file).
    pub fn for_file(&self, path: &std::path::Path) -> Self {
        let mut p = self.clone();
        if let Some(r) = self.retriever.as_ref().and_then(|r| r.for_file(path)) {
            p.retriever = Some(r);
        }
        p
    }

    /// Does not verify the signature of a plaintext footer (verified by default when the
    /// footer key is available).
    pub fn skip_footer_verification(mut self) -> Self {
        self.skip_footer_verification = true;
        self
    }

    /// The AAD prefix given.
    pub fn aad_prefix_bytes(&self) -> Option<&[u8]> {
        self.aad_prefix.as_deref()
    }

    /// True unless [`FileDecryptionProperties::skip_footer_verification`] was set.
    pub fn verifies_footer(&self) -> bool {
        !self.skip_footer_verification
    }

    /// The footer key: the one given, else the retriever's for `key_metadata`.
    pub fn footer_key(&self, key_metadata: Option<&[u8]>) -> Result<Vec<u8>> {
        if let Some(k) = &self.footer_key {
            return Ok(k.clone());
        }
        self.retrieve(key_metadata, "the footer key")
    }

    /// True when a footer key can be asked for (given, or a retriever).
    pub fn has_footer_key_source(&self) -> bool {
        self.footer_key.is_some() || self.retriever.is_some()
    }

    /// The key of the column at `path`: the one given, else the retriever's for
    /// `key_metadata`.
    pub fn column_key_for(&self, path: &str, key_metadata: Option<&[u8]>) -> Result<Vec<u8>> {
        if let Some(k) = self.column_keys.get(path) {
            return Ok(k.clone());
        }
        self.retrieve(key_metadata, &format!("the key of column `{path}`"))
    }

    fn retrieve(&self, key_metadata: Option<&[u8]>, what: &str) -> Result<Vec<u8>> {
        let Some(r) = &self.retriever else {
            return Err(Error::new(ErrorKind::MissingKey(format!(
                "{what} was not given{}",
                key_metadata
                    .map(|m| format!(" (key metadata {})", show_metadata(m)))
                    .unwrap_or_default()
            ))));
        };
        let m = key_metadata.unwrap_or(&[]);
        let key = r.retrieve_key(m).map_err(|e| {
            Error::new(ErrorKind::MissingKey(format!(
                "{what} (key metadata {}) could not be retrieved: {e}",
                show_metadata(m)
            )))
        })?;
        check_key(&key, &format!("{what} retrieved"))?;
        Ok(key)
    }
}

/// Key metadata for messages: as text when it is short printable text, else its length.
fn show_metadata(m: &[u8]) -> String {
    match std::str::from_utf8(m) {
        Ok(s) if s.len() <= 64 && !s.chars().any(char::is_control) => format!("{s:?}"),
        _ => format!("of {} bytes", m.len()),
    }
}

/// A column's key for writing: the key, and the key metadata stored with the column (a key id,
/// or key material) so that readers can find the key.
#[derive(Clone, PartialEq, Eq)]
pub struct ColumnKey {
    /// The key: 16, 24 or 32 bytes.
    pub key: Vec<u8>,
    /// Stored as the column's `key_metadata`.
    pub key_metadata: Option<Vec<u8>>,
}

impl fmt::Debug for ColumnKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ColumnKey")
            .field("key", &"<given>")
            .field("key_metadata", &self.key_metadata.as_ref().map(|m| m.len()))
            .finish()
    }
}

/// How to encrypt a file: the footer key (which also encrypts the columns not given keys of
/// their own when the encryption is uniform), the algorithm, whether the footer stays
/// plaintext (signed), the column keys, and the AAD prefix.
#[derive(Clone, PartialEq, Eq)]
pub struct FileEncryptionProperties {
    footer_key: Vec<u8>,
    footer_key_metadata: Option<Vec<u8>>,
    algorithm: Algorithm,
    plaintext_footer: bool,
    column_keys: Option<BTreeMap<String, ColumnKey>>,
    aad_prefix: Option<Vec<u8>>,
    store_aad_prefix: bool,
}

impl fmt::Debug for FileEncryptionProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileEncryptionProperties")
            .field("algorithm", &self.algorithm)
            .field("plaintext_footer", &self.plaintext_footer)
            .field(
                "column_keys",
                &self
                    .column_keys
                    .as_ref()
                    .map(|c| c.keys().collect::<Vec<_>>()),
            )
            .field("aad_prefix", &self.aad_prefix.is_some())
            .field("store_aad_prefix", &self.store_aad_prefix)
            .finish()
    }
}

impl FileEncryptionProperties {
    /// Uniform encryption: the footer and every column under `footer_key`, AES_GCM_V1, an
    /// encrypted footer.
    pub fn new(footer_key: impl Into<Vec<u8>>) -> Result<Self> {
        let footer_key = footer_key.into();
        check_key(&footer_key, "footer key")?;
        Ok(FileEncryptionProperties {
            footer_key,
            footer_key_metadata: None,
            algorithm: Algorithm::AesGcmV1,
            plaintext_footer: false,
            column_keys: None,
            aad_prefix: None,
            store_aad_prefix: true,
        })
    }

    /// Stores `metadata` as the footer's key metadata.
    pub fn footer_key_metadata(mut self, metadata: impl Into<Vec<u8>>) -> Self {
        self.footer_key_metadata = Some(metadata.into());
        self
    }

    /// Sets the algorithm.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Keeps the footer plaintext (signed with the footer key), so readers without keys see
    /// the metadata and read the columns that are not encrypted.
    pub fn plaintext_footer(mut self, plaintext: bool) -> Self {
        self.plaintext_footer = plaintext;
        self
    }

    /// Encrypts the column at dotted leaf path `path` with `key`. Once any column has a key
    /// of its own, the columns without one are written plaintext.
    pub fn column_key(mut self, path: impl Into<String>, key: ColumnKey) -> Result<Self> {
        let path = path.into();
        check_key(&key.key, &format!("key of column `{path}`"))?;
        self.column_keys
            .get_or_insert_with(BTreeMap::new)
            .insert(path, key);
        Ok(self)
    }

    /// Sets the AAD prefix, stored in the file when `store` (else readers must supply it).
    pub fn aad_prefix(mut self, prefix: impl Into<Vec<u8>>, store: bool) -> Self {
        self.aad_prefix = Some(prefix.into());
        self.store_aad_prefix = store;
        self
    }

    /// The footer key.
    pub fn footer_key_bytes(&self) -> &[u8] {
        &self.footer_key
    }

    /// The footer key metadata.
    pub fn footer_key_metadata_bytes(&self) -> Option<&[u8]> {
        self.footer_key_metadata.as_deref()
    }

    /// The algorithm.
    pub fn algorithm_kind(&self) -> Algorithm {
        self.algorithm
    }

    /// True for a plaintext (signed) footer.
    pub fn is_plaintext_footer(&self) -> bool {
        self.plaintext_footer
    }

    /// The column keys, `None` for uniform encryption.
    pub fn column_keys(&self) -> Option<&BTreeMap<String, ColumnKey>> {
        self.column_keys.as_ref()
    }

    /// The AAD prefix and whether it is stored.
    pub fn aad_prefix_setting(&self) -> Option<(&[u8], bool)> {
        self.aad_prefix
            .as_deref()
            .map(|p| (p, self.store_aad_prefix))
    }
}
