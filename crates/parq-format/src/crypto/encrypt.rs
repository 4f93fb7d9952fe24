//! Writing an encrypted file: the [`FileEncryptor`] made from the caller's
//! [`FileEncryptionProperties`] for a schema (the file's AAD with a fresh unique part, each
//! leaf's key), the [`ColumnEncryptor`] of a chunk for its pages, page index and Bloom filter,
//! each chunk's metadata encrypted, and the footer encrypted (`PARE`) or signed (`PAR1`).

use std::sync::Arc;

use super::cipher::{Algorithm, KeyCipher, ModuleId, ModuleType, NONCE_BYTES, TAG_BYTES};
use super::properties::FileEncryptionProperties;
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::column_chunk::PlaintextMeta;
use crate::metadata::{
    AesGcmCtrV1, AesGcmV1, Arena, ByteRange, ColumnChunk, ColumnCryptoMetaData,
    EncryptionAlgorithm, EncryptionWithColumnKey, FileCryptoMetaData, Schema,
};
use crate::thrift::{wire, Writer};

/// Bytes of the random unique part of a file's AAD.
const AAD_FILE_UNIQUE_BYTES: usize = 8;

/// How one leaf is encrypted.
#[derive(Debug, Clone)]
struct LeafKey {
    key: Arc<KeyCipher>,
    /// Its own key (else the footer key), with the key metadata stored beside it.
    column_key: Option<Option<Vec<u8>>>,
}

/// The encryption state of a file being written.
#[derive(Debug)]
pub struct FileEncryptor {
    algorithm: Algorithm,
    plaintext_footer: bool,
    file_aad: Arc<[u8]>,
    aad_file_unique: Vec<u8>,
    /// The AAD prefix stored in the file, or `None` (none, or readers must supply it).
    stored_prefix: Option<Vec<u8>>,
    supply_prefix: bool,
    footer: Arc<KeyCipher>,
    footer_key_metadata: Option<Vec<u8>>,
    /// Per leaf of the schema: `None` for a plaintext column.
    leaves: Vec<Option<LeafKey>>,
}

/// Encrypts the modules of one column chunk.
#[derive(Debug, Clone)]
pub struct ColumnEncryptor {
    algorithm: Algorithm,
    file_aad: Arc<[u8]>,
    key: Arc<KeyCipher>,
    row_group: u16,
    column: u16,
}

impl ColumnEncryptor {
    /// Encrypts `plain` as one module of this chunk (`page`: the data page ordinal, for data
    /// pages and their headers), appending it to `out`: AES-CTR for page bodies under
    /// `AES_GCM_CTR_V1`, AES-GCM otherwise.
    pub fn encrypt(
        &self,
        kind: ModuleType,
        page: u16,
        plain: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let is_page = matches!(kind, ModuleType::DataPage | ModuleType::DictionaryPage);
        if is_page && self.algorithm == Algorithm::AesGcmCtrV1 {
            return self.key.encrypt_ctr(plain, out);
        }
        let id = ModuleId {
            kind,
            row_group: self.row_group,
            column: self.column,
            page,
        };
        self.key.encrypt_gcm(plain, &id.aad(&self.file_aad), out)
    }
}

impl ColumnEncryptor {
    /// Encrypts the bytes of `buf` from `start` on, in place, into one module of this chunk
    /// (as [`ColumnEncryptor::encrypt`] would append it).
    pub fn seal_tail(
        &self,
        kind: ModuleType,
        page: u16,
        buf: &mut Vec<u8>,
        start: usize,
    ) -> Result<()> {
        let is_page = matches!(kind, ModuleType::DataPage | ModuleType::DictionaryPage);
        if is_page && self.algorithm == Algorithm::AesGcmCtrV1 {
            return self.key.seal_ctr_tail(buf, start);
        }
        let id = ModuleId {
            kind,
            row_group: self.row_group,
            column: self.column,
            page,
        };
        self.key.seal_gcm_tail(buf, start, &id.aad(&self.file_aad))
    }
}

fn ordinal16(v: usize, what: &str) -> Result<u16> {
    u16::try_from(v)
        .ok()
        .filter(|&v| v <= i16::MAX as u16)
        .ok_or_else(|| {
            Error::new(ErrorKind::InvalidArgument(format!(
                "an encrypted file holds at most 32768 {what}s ({v} is past it)"
            )))
        })
}

/// The leaves a configured column names: the leaf at that dotted path, else every leaf
/// under the group at that path.
fn leaves_named(schema: &Schema, path: &str) -> Vec<usize> {
    if let Some(leaf) = schema.leaf_index(path) {
        return vec![leaf];
    }
    let want: Vec<&str> = path.split('.').collect();
    (0..schema.leaves().len())
        .filter(|&i| {
            let mut p = schema.leaf_path(i);
            want.iter().all(|w| p.next() == Some(w.as_bytes()))
        })
        .collect()
}

impl FileEncryptor {
    /// The encryptor of a file of `schema` written with `props`: a fresh unique AAD part,
    /// each configured column's leaves (a column named by its dotted leaf path, or a group
    /// naming all its leaves) under their keys. A column name the schema does not have is an
    /// error.
    pub fn new(props: &FileEncryptionProperties, schema: &Schema) -> Result<FileEncryptor> {
        let footer = Arc::new(KeyCipher::new(props.footer_key_bytes())?);
        let n = schema.leaves().len();
        let mut leaves: Vec<Option<LeafKey>> = vec![None; n];
        match props.column_keys() {
            None => {
                for l in &mut leaves {
                    *l = Some(LeafKey {
                        key: footer.clone(),
                        column_key: None,
                    });
                }
            }
            Some(keys) => {
                for (path, k) in keys {
                    let found = leaves_named(schema, path);
                    if found.is_empty() {
                        return Err(Error::new(ErrorKind::ColumnNotFound { path: path.clone() }));
                    }
                    let key = Arc::new(KeyCipher::new(&k.key)?);
                    for leaf in found {
                        leaves[leaf] = Some(LeafKey {
                            key: key.clone(),
                            column_key: Some(k.key_metadata.clone()),
                        });
                    }
                }
            }
        }
        let mut unique = vec![0u8; AAD_FILE_UNIQUE_BYTES];
        super::cipher::random_bytes(&mut unique)?;
        let (prefix, store) = match props.aad_prefix_setting() {
            Some((p, store)) => (p.to_vec(), store),
            None => (Vec::new(), false),
        };
        let mut file_aad = prefix.clone();
        file_aad.extend_from_slice(&unique);
        let has_prefix = props.aad_prefix_setting().is_some();
        Ok(FileEncryptor {
            algorithm: props.algorithm_kind(),
            plaintext_footer: props.is_plaintext_footer(),
            file_aad: Arc::from(file_aad),
            aad_file_unique: unique,
            stored_prefix: (has_prefix && store).then_some(prefix),
            supply_prefix: has_prefix && !store,
            footer,
            footer_key_metadata: props.footer_key_metadata_bytes().map(<[u8]>::to_vec),
            leaves,
        })
    }

    /// True when the footer stays plaintext (signed).
    pub fn plaintext_footer(&self) -> bool {
        self.plaintext_footer
    }

    /// The magic the file starts and ends with: `PARE` for an encrypted footer.
    pub fn magic(&self) -> &'static [u8; 4] {
        if self.plaintext_footer {
            crate::footer::MAGIC
        } else {
            crate::footer::MAGIC_ENCRYPTED
        }
    }

    /// The encryptor of the chunk of leaf `leaf` in row group `row_group`; `None` for a
    /// plaintext column.
    pub fn column(&self, row_group: usize, leaf: usize) -> Result<Option<ColumnEncryptor>> {
        let Some(Some(k)) = self.leaves.get(leaf) else {
            return Ok(None);
        };
        Ok(Some(ColumnEncryptor {
            algorithm: self.algorithm,
            file_aad: self.file_aad.clone(),
            key: k.key.clone(),
            row_group: ordinal16(row_group, "row group")?,
            column: ordinal16(leaf, "column")?,
        }))
    }

    /// Marks `chunk` (of leaf `leaf` in row group `row_group`, its byte values in `arena`)
    /// as encrypted: its crypto metadata, and its `ColumnMetaData` encrypted with the
    /// column's key where the spec wants it separate (a column key, or a plaintext footer),
    /// the plaintext copy then redacted (plaintext footer) or left out. `schema` is the
    /// file's. A plaintext column is left as it is.
    pub fn seal_chunk(
        &self,
        row_group: usize,
        leaf: usize,
        chunk: &mut ColumnChunk,
        arena: &mut Arena,
        schema: &Schema,
    ) -> Result<()> {
        let Some(Some(k)) = self.leaves.get(leaf) else {
            return Ok(());
        };
        let path: Vec<&[u8]> = schema.leaf_path(leaf).collect();
        // The ColumnCryptoMetaData union, encoded.
        let mut crypto = Vec::new();
        let mut names = Vec::new();
        let ccm = match &k.column_key {
            None => ColumnCryptoMetaData::EncryptionWithFooterKey,
            Some(metadata) => {
                let mut ranges = Vec::with_capacity(path.len());
                for p in &path {
                    ranges.push(ByteRange::new(names.len(), p.len()));
                    names.extend_from_slice(p);
                }
                let key_metadata = metadata.as_ref().map(|m| {
                    let r = ByteRange::new(names.len(), m.len());
                    names.extend_from_slice(m);
                    r
                });
                ColumnCryptoMetaData::EncryptionWithColumnKey(EncryptionWithColumnKey {
                    path_in_schema: ranges,
                    key_metadata,
                    unknown: Default::default(),
                })
            }
        };
        ccm.encode(&mut Writer::new(&mut crypto), &names);
        let separate = k.column_key.is_some() || self.plaintext_footer;
        let encrypted = if separate {
            let mut plain = Vec::new();
            chunk.encode_metadata(&mut plain, arena.as_slice(), path.iter().copied());
            let id = ModuleId {
                kind: ModuleType::ColumnMetaData,
                row_group: ordinal16(row_group, "row group")?,
                column: ordinal16(leaf, "column")?,
                page: 0,
            };
            let mut module = Vec::with_capacity(plain.len() + 32);
            k.key
                .encrypt_gcm(&plain, &id.aad(&self.file_aad), &mut module)?;
            Some(arena.push(&module))
        } else {
            None
        };
        let crypto = arena.push(&crypto);
        let meta = match (separate, self.plaintext_footer) {
            (false, _) => PlaintextMeta::Keep,
            (true, true) => PlaintextMeta::Redact,
            (true, false) => PlaintextMeta::Drop,
        };
        chunk.set_encrypted(crypto, encrypted, meta);
        Ok(())
    }

    /// The `EncryptionAlgorithm` of the file and the buffer its ranges refer to.
    fn algorithm_struct(&self) -> (EncryptionAlgorithm, Vec<u8>) {
        let mut buf = Vec::new();
        let prefix = self.stored_prefix.as_ref().map(|p| {
            buf.extend_from_slice(p);
            ByteRange::new(0, p.len())
        });
        let unique = ByteRange::new(buf.len(), self.aad_file_unique.len());
        buf.extend_from_slice(&self.aad_file_unique);
        let supply = self.supply_prefix.then_some(true);
        let alg = match self.algorithm {
            Algorithm::AesGcmV1 => EncryptionAlgorithm::AesGcmV1(AesGcmV1 {
                aad_prefix: prefix,
                aad_file_unique: Some(unique),
                supply_aad_prefix: supply,
                unknown: Default::default(),
            }),
            Algorithm::AesGcmCtrV1 => EncryptionAlgorithm::AesGcmCtrV1(AesGcmCtrV1 {
                aad_prefix: prefix,
                aad_file_unique: Some(unique),
                supply_aad_prefix: supply,
                unknown: Default::default(),
            }),
        };
        (alg, buf)
    }

    /// For a plaintext footer: writes `FileMetaData` fields 8 and 9 (`encryption_algorithm`,
    /// `footer_signing_key_metadata`) with `w`, `last` being the last field id written.
    pub fn write_footer_fields(&self, w: &mut Writer<'_>, last: &mut i16) {
        if !self.plaintext_footer {
            return;
        }
        let (alg, buf) = self.algorithm_struct();
        w.write_field_header(wire::STRUCT, 8, last);
        alg.encode(w, &buf);
        if let Some(m) = &self.footer_key_metadata {
            w.write_field_header(wire::BINARY, 9, last);
            w.write_binary(m);
        }
    }

    /// The bytes that follow the data for the footer `footer` (the encoded `FileMetaData`,
    /// with [`FileEncryptor::write_footer_fields`] in it for a plaintext footer), before
    /// the length and [`FileEncryptor::magic`]: the `FileCryptoMetaData` and the encrypted
    /// footer, or the plaintext footer and its signature (nonce and tag).
    pub fn seal_footer(&self, footer: &[u8]) -> Result<Vec<u8>> {
        let aad = ModuleId::FOOTER.aad(&self.file_aad);
        if self.plaintext_footer {
            let mut module = Vec::with_capacity(footer.len() + 32);
            self.footer.encrypt_gcm(footer, &aad, &mut module)?;
            let mut out = Vec::with_capacity(footer.len() + NONCE_BYTES + TAG_BYTES);
            out.extend_from_slice(footer);
            // The module is length | nonce | ciphertext | tag: the signature is its nonce
            // and tag.
            out.extend_from_slice(&module[4..4 + NONCE_BYTES]);
            out.extend_from_slice(&module[module.len() - TAG_BYTES..]);
            return Ok(out);
        }
        let (alg, mut buf) = self.algorithm_struct();
        let key_metadata = self.footer_key_metadata.as_ref().map(|m| {
            let r = ByteRange::new(buf.len(), m.len());
            buf.extend_from_slice(m);
            r
        });
        let crypto = FileCryptoMetaData {
            encryption_algorithm: alg,
            key_metadata,
            unknown: Default::default(),
        };
        let mut out = Vec::with_capacity(footer.len() + 128);
        crypto.encode(&mut Writer::new(&mut out), &buf);
        self.footer.encrypt_gcm(footer, &aad, &mut out)?;
        Ok(out)
    }
}
