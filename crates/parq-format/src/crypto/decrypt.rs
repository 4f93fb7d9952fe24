//! Reading an encrypted file's footer: the encrypted footer (`PARE`) decrypted, the plaintext
//! footer's signature verified, each encrypted column's `ColumnMetaData` decrypted with its
//! key; and the [`FileDecryptor`] that then gives each column chunk a [`ColumnDecryptor`] for
//! its pages, page index and Bloom filter.
//!
//! A column whose key cannot be had (not given, the retriever refuses) is left undecrypted,
//! with the reason kept: the file's other columns stay readable, and reading that column
//! says why it cannot be.

use std::sync::Arc;

use super::cipher::{
    constant_time_eq, decryption_error, Algorithm, ByteSink, KeyCipher, ModuleId, ModuleType,
    NONCE_BYTES, TAG_BYTES,
};
use super::properties::FileDecryptionProperties;
use crate::error::{Error, ErrorKind, Result};
use crate::footer::DecodeOptions;
use crate::metadata::{
    ColumnChunk, ColumnCryptoMetaData, EncryptionAlgorithm, FileCryptoMetaData, FileMetaData,
};
use crate::thrift::Reader;

/// How one leaf column of the file is stored.
#[derive(Debug, Clone)]
pub enum ColumnKeyState {
    /// Not encrypted.
    Plaintext,
    /// Encrypted, with its key at hand.
    Key(Arc<KeyCipher>),
    /// Encrypted, and its key could not be had: why.
    Unavailable(String),
}

/// The decryption state of a file read with keys: its algorithm, its AAD, and each leaf
/// column's key.
#[derive(Debug, Clone)]
pub struct FileDecryptor {
    algorithm: Algorithm,
    file_aad: Arc<[u8]>,
    /// Per leaf of the footer's schema: the column ordinal in the file (the AAD's), and how
    /// it is stored (`None`: no chunk of it was decoded).
    columns: Vec<(u16, Option<ColumnKeyState>)>,
}

/// Decrypts the modules of one column chunk.
#[derive(Debug, Clone)]
pub struct ColumnDecryptor {
    algorithm: Algorithm,
    file_aad: Arc<[u8]>,
    key: Arc<KeyCipher>,
    row_group: u16,
    column: u16,
}

impl ColumnDecryptor {
    /// The file's algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The module id of a module of this chunk.
    pub fn module(&self, kind: ModuleType, page: u16) -> ModuleId {
        ModuleId {
            kind,
            row_group: self.row_group,
            column: self.column,
            page,
        }
    }

    /// Decrypts one module of this chunk (`page`: the data page ordinal, for data pages and
    /// their headers), appending the plaintext to `out`: AES-CTR for page bodies under
    /// `AES_GCM_CTR_V1`, authenticated AES-GCM otherwise.
    pub fn decrypt(
        &self,
        kind: ModuleType,
        page: u16,
        module: &[u8],
        out: &mut impl ByteSink,
    ) -> Result<()> {
        let id = self.module(kind, page);
        let is_page = matches!(kind, ModuleType::DataPage | ModuleType::DictionaryPage);
        if is_page && self.algorithm == Algorithm::AesGcmCtrV1 {
            return self.key.decrypt_ctr(module, &id, out);
        }
        self.key
            .decrypt_gcm(module, &id.aad(&self.file_aad), &id, out)
    }
}

impl FileDecryptor {
    /// The file's algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The decryptor of the chunk of leaf `leaf` (of the footer's schema) in the row group of
    /// ordinal `row_group`: `None` for a plaintext column; an error when the column is
    /// encrypted and its key could not be had.
    pub fn column(
        &self,
        row_group: usize,
        leaf: usize,
        path: &str,
    ) -> Result<Option<ColumnDecryptor>> {
        let Some((ordinal, state)) = self.columns.get(leaf) else {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "leaf column",
                index: leaf as u64,
                len: self.columns.len() as u64,
            }));
        };
        let key = match state {
            Some(ColumnKeyState::Plaintext) => return Ok(None),
            Some(ColumnKeyState::Key(k)) => k.clone(),
            Some(ColumnKeyState::Unavailable(why)) => {
                return Err(Error::new(ErrorKind::MissingKey(format!(
                    "column `{path}` is encrypted: {why}"
                ))))
            }
            None => {
                return Err(Error::new(ErrorKind::MissingKey(format!(
                    "column `{path}` was not decrypted with the footer"
                ))))
            }
        };
        Ok(Some(ColumnDecryptor {
            algorithm: self.algorithm,
            file_aad: self.file_aad.clone(),
            key,
            row_group: ordinal16(row_group, "row group")?,
            column: *ordinal,
        }))
    }

    /// The decryptor of a footer narrowed to the leaves `leaves` (indices into this one's).
    pub fn project(&self, leaves: &[usize]) -> FileDecryptor {
        FileDecryptor {
            algorithm: self.algorithm,
            file_aad: self.file_aad.clone(),
            columns: leaves
                .iter()
                .map(|&l| self.columns.get(l).cloned().unwrap_or((0, None)))
                .collect(),
        }
    }
}

impl FileMetaData {
    /// The decryptor of `chunk`, the chunk of leaf `leaf` in row group `rg` (of those this
    /// footer holds): `None` for a plaintext chunk; an error for an encrypted one whose key
    /// is not at hand (the file read without keys, or that column's key not had).
    pub fn chunk_decryptor(
        &self,
        rg: usize,
        leaf: usize,
        chunk: &ColumnChunk,
    ) -> Result<Option<ColumnDecryptor>> {
        if chunk.extras().is_none_or(|e| e.crypto_metadata.is_none()) {
            return Ok(None);
        }
        let path = self.schema.leaf_path_string(leaf);
        match self.decryptor() {
            Some(d) => d.column(self.row_group_ordinal(rg), leaf, &path),
            None => Err(Error::new(ErrorKind::MissingKey(format!(
                "column `{path}` is encrypted; read the file with its keys (decryption \
                 properties)"
            )))),
        }
    }
}

fn ordinal16(v: usize, what: &str) -> Result<u16> {
    u16::try_from(v)
        .ok()
        .filter(|&v| v <= i16::MAX as u16)
        .ok_or_else(|| {
            Error::new(ErrorKind::Unsupported(format!(
                "{what} ordinal {v} is beyond what encrypted files allow (32767)"
            )))
        })
}

/// The algorithm and the file AAD (prefix, then the file's unique part) of an
/// `EncryptionAlgorithm` whose byte ranges refer to `buf`.
fn file_aad(
    ea: &EncryptionAlgorithm,
    buf: &[u8],
    props: &FileDecryptionProperties,
) -> Result<(Algorithm, Vec<u8>)> {
    let (algorithm, prefix, unique, supply) = match ea {
        EncryptionAlgorithm::AesGcmV1(p) => (
            Algorithm::AesGcmV1,
            p.aad_prefix,
            p.aad_file_unique,
            p.supply_aad_prefix,
        ),
        EncryptionAlgorithm::AesGcmCtrV1(p) => (
            Algorithm::AesGcmCtrV1,
            p.aad_prefix,
            p.aad_file_unique,
            p.supply_aad_prefix,
        ),
        EncryptionAlgorithm::Unknown { field_id, .. } => {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "encryption algorithm {field_id} (parq knows AES_GCM_V1 and AES_GCM_CTR_V1)"
            ))))
        }
    };
    let stored = prefix.map(|p| p.slice(buf));
    let given = props.aad_prefix_bytes();
    let prefix = match (stored, given) {
        (Some(s), Some(g)) if s != g => {
            return Err(decryption_error(
                &ModuleId::FOOTER,
                "the AAD prefix given differs from the one the file stores",
            ))
        }
        (_, Some(g)) => g,
        (Some(s), None) => s,
        (None, None) if supply == Some(true) => {
            return Err(Error::new(ErrorKind::MissingKey(
                "the file does not store its AAD prefix; it must be given".to_string(),
            )))
        }
        (None, None) => &[],
    };
    let mut aad = prefix.to_vec();
    aad.extend_from_slice(unique.map_or(&[][..], |u| u.slice(buf)));
    Ok((algorithm, aad))
}

/// Decodes the footer of a file ending in `PARE`: `footer` holds its `FileCryptoMetaData`
/// and the encrypted `FileMetaData` module after it.
pub fn decode_encrypted_footer(
    footer: &[u8],
    opts: &DecodeOptions,
    props: &FileDecryptionProperties,
) -> Result<FileMetaData> {
    let mut r = Reader::with_limits(footer, opts.limits);
    let crypto = FileCryptoMetaData::decode(&mut r, None)?;
    let at = r.pos();
    let (algorithm, aad) = file_aad(&crypto.encryption_algorithm, footer, props)?;
    let key = props.footer_key(crypto.key_metadata.map(|k| k.slice(footer)))?;
    let cipher = Arc::new(KeyCipher::new(&key)?);
    let mut plain = Vec::new();
    let module = footer.get(at..).unwrap_or(&[]);
    cipher
        .decrypt_gcm(
            module,
            &ModuleId::FOOTER.aad(&aad),
            &ModuleId::FOOTER,
            &mut plain,
        )
        .map_err(|e| e.with_offset(at as u64))?;
    let mut md = FileMetaData::decode(&plain, opts).map_err(|e| {
        // Offsets inside the decrypted footer mean nothing in the file.
        Error::new(ErrorKind::Decryption {
            module: "footer".to_string(),
            message: format!("the decrypted footer does not decode: {e}"),
        })
    })?;
    decrypt_columns(&mut md, algorithm, aad, Some(cipher), props, opts)?;
    Ok(md)
}

/// Finishes a plaintext footer `md` (decoded from `footer`, whose last 28 bytes are its
/// signature) of an encrypted file: verifies the signature when the footer key is at hand,
/// and decrypts the column metadata the keys open. A footer without `encryption_algorithm`
/// is returned as it is.
pub fn decrypt_plaintext_footer(
    mut md: FileMetaData,
    footer: &[u8],
    opts: &DecodeOptions,
    props: &FileDecryptionProperties,
) -> Result<FileMetaData> {
    let Some(ea) = md.encryption_algorithm.clone() else {
        return Ok(md);
    };
    let (algorithm, aad) = file_aad(&ea, md.buf(), props)?;
    let signing = md
        .footer_signing_key_metadata
        .map(|k| k.slice(md.buf()).to_vec());
    let footer_key = if props.has_footer_key_source() {
        match props.footer_key(signing.as_deref()) {
            Ok(k) => Some(Arc::new(KeyCipher::new(&k)?)),
            Err(e) if props.verifies_footer() => return Err(e),
            Err(_) => None,
        }
    } else {
        None
    };
    if let (Some(cipher), true) = (&footer_key, props.verifies_footer()) {
        verify_signature(cipher, footer, &aad)?;
    }
    decrypt_columns(&mut md, algorithm, aad, footer_key, props, opts)?;
    Ok(md)
}

/// Checks a plaintext footer's signature: the nonce and tag after it must be what AES-GCM
/// of the footer with that nonce, the footer key and the footer AAD gives.
fn verify_signature(cipher: &KeyCipher, footer: &[u8], aad: &[u8]) -> Result<()> {
    let sig = NONCE_BYTES + TAG_BYTES;
    let Some(body_len) = footer.len().checked_sub(sig) else {
        return Err(decryption_error(
            &ModuleId::FOOTER,
            format!(
                "a signed footer of {} bytes cannot hold its signature",
                footer.len()
            ),
        ));
    };
    let (body, signature) = footer.split_at(body_len);
    let (nonce, tag) = signature.split_at(NONCE_BYTES);
    let mut nonce12 = [0u8; NONCE_BYTES];
    nonce12.copy_from_slice(nonce);
    let mut module = Vec::with_capacity(footer.len() + 4);
    cipher.encrypt_gcm_with_nonce(body, &ModuleId::FOOTER.aad(aad), nonce12, &mut module)?;
    let computed = &module[module.len() - TAG_BYTES..];
    if !constant_time_eq(computed, tag) {
        return Err(decryption_error(
            &ModuleId::FOOTER,
            "the plaintext footer's signature does not match: the footer was changed, or the \
             footer key or AAD prefix is wrong",
        ));
    }
    Ok(())
}

/// Resolves the keys of the decoded chunks' columns and decrypts their `ColumnMetaData`;
/// stores the [`FileDecryptor`] in `md`.
fn decrypt_columns(
    md: &mut FileMetaData,
    algorithm: Algorithm,
    aad: Vec<u8>,
    footer: Option<Arc<KeyCipher>>,
    props: &FileDecryptionProperties,
    opts: &DecodeOptions,
) -> Result<()> {
    let schema = md.schema.clone();
    let n = schema.leaves().len();
    let mut columns: Vec<(u16, Option<ColumnKeyState>)> = Vec::with_capacity(n);
    for leaf in 0..n {
        columns.push((ordinal16(leaf, "column").unwrap_or(u16::MAX), None));
    }
    let ordinals: Vec<usize> = (0..md.row_groups.len())
        .map(|g| md.row_group_ordinal(g))
        .collect();
    let keep = opts.chunk_keep();
    md.replace_column_metadata(keep, opts.limits, |g, leaf, chunk, buf| {
        let Some((_, state)) = columns.get_mut(leaf) else {
            return Ok(None);
        };
        let Some((crypto, crypto_bytes)) = chunk_crypto(chunk, buf)? else {
            state.get_or_insert(ColumnKeyState::Plaintext);
            return Ok(None);
        };
        // The key is resolved once per column; its path is only needed then.
        let st = state.get_or_insert_with(|| {
            let path = schema.leaf_path_string(leaf);
            resolve_key(&crypto, crypto_bytes, &footer, &path, props)
        });
        let ColumnKeyState::Key(key) = st else {
            return Ok(None);
        };
        let Some(enc) = chunk.extras().and_then(|e| e.encrypted_column_metadata) else {
            // A column under the footer key in an encrypted footer: its metadata is there.
            return Ok(None);
        };
        let id = ModuleId {
            kind: ModuleType::ColumnMetaData,
            row_group: ordinal16(ordinals.get(g).copied().unwrap_or(g), "row group")?,
            column: ordinal16(leaf, "column")?,
            page: 0,
        };
        let mut plain = Vec::new();
        key.decrypt_gcm(enc.slice(buf), &id.aad(&aad), &id, &mut plain)?;
        Ok(Some(plain))
    })?;
    md.set_decryptor(FileDecryptor {
        algorithm,
        file_aad: Arc::from(aad),
        columns,
    });
    Ok(())
}

/// A chunk's `ColumnCryptoMetaData`, when it has one, and the bytes its ranges refer to.
fn chunk_crypto<'a>(
    chunk: &ColumnChunk,
    buf: &'a [u8],
) -> Result<Option<(ColumnCryptoMetaData, &'a [u8])>> {
    let Some(range) = chunk.extras().and_then(|e| e.crypto_metadata) else {
        return Ok(None);
    };
    let bytes = range.slice(buf);
    let mut r = Reader::new(bytes);
    ColumnCryptoMetaData::decode(&mut r, None).map(|c| Some((c, bytes)))
}

/// The key of a column as its crypto metadata says: the footer key, or its own.
fn resolve_key(
    crypto: &ColumnCryptoMetaData,
    crypto_bytes: &[u8],
    footer: &Option<Arc<KeyCipher>>,
    path: &str,
    props: &FileDecryptionProperties,
) -> ColumnKeyState {
    match crypto {
        ColumnCryptoMetaData::EncryptionWithFooterKey => match footer {
            Some(k) => ColumnKeyState::Key(k.clone()),
            None => ColumnKeyState::Unavailable(
                "it is encrypted with the footer key, which was not given".to_string(),
            ),
        },
        ColumnCryptoMetaData::EncryptionWithColumnKey(_) if !props.wants_column(path) => {
            ColumnKeyState::Unavailable(
                "its key was not asked for (a read of other columns)".into(),
            )
        }
        ColumnCryptoMetaData::EncryptionWithColumnKey(c) => {
            let metadata = c.key_metadata.map(|m| m.slice(crypto_bytes));
            match props
                .column_key_for(path, metadata)
                .and_then(|k| KeyCipher::new(&k))
            {
                Ok(k) => ColumnKeyState::Key(Arc::new(k)),
                Err(e) => ColumnKeyState::Unavailable(e.to_string()),
            }
        }
        ColumnCryptoMetaData::Unknown { field_id, .. } => ColumnKeyState::Unavailable(format!(
            "its crypto metadata is of a kind parq does not know ({field_id})"
        )),
    }
}
