//! The ciphers of Parquet modular encryption and the module format they read and write.
//!
//! A module is `u32 length (little-endian) | nonce (12 bytes) | ciphertext [| tag (16 bytes)]`,
//! the length counting the bytes after it. AES-GCM modules carry the tag and are
//! authenticated with an AAD that names the module (its type, row group, column and page
//! ordinals, after the file's AAD); AES-CTR modules (page bodies under `AES_GCM_CTR_V1`) have
//! no tag and no AAD. Keys are 16, 24 or 32 bytes (AES-128, -192, -256).

use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;

use crate::error::{Error, ErrorKind, Result};

/// Bytes of a module's length prefix.
pub const LENGTH_BYTES: usize = 4;
/// Bytes of a module's nonce.
pub const NONCE_BYTES: usize = 12;
/// Bytes of an AES-GCM tag.
pub const TAG_BYTES: usize = 16;
/// Bytes an AES-GCM module adds to its plaintext.
pub const GCM_OVERHEAD: usize = LENGTH_BYTES + NONCE_BYTES + TAG_BYTES;
/// Bytes an AES-CTR module adds to its plaintext.
pub const CTR_OVERHEAD: usize = LENGTH_BYTES + NONCE_BYTES;

/// The encryption algorithm of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// `AES_GCM_V1`: every module AES-GCM.
    AesGcmV1,
    /// `AES_GCM_CTR_V1`: page bodies AES-CTR, every other module AES-GCM.
    AesGcmCtrV1,
}

impl Algorithm {
    /// The name parquet.thrift and pyarrow give it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::AesGcmV1 => "AES_GCM_V1",
            Algorithm::AesGcmCtrV1 => "AES_GCM_CTR_V1",
        }
    }

    /// Bytes a page body module adds to the compressed page.
    pub fn page_overhead(self) -> usize {
        match self {
            Algorithm::AesGcmV1 => GCM_OVERHEAD,
            Algorithm::AesGcmCtrV1 => CTR_OVERHEAD,
        }
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "AES_GCM_V1" => Ok(Algorithm::AesGcmV1),
            "AES_GCM_CTR_V1" => Ok(Algorithm::AesGcmCtrV1),
            _ => Err(Error::new(ErrorKind::InvalidArgument(format!(
                "unknown encryption algorithm {s:?}: AES_GCM_V1 or AES_GCM_CTR_V1"
            )))),
        }
    }
}

/// The module types of the AAD suffix (Parquet encryption spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleType {
    /// The encrypted footer, or the signed plaintext footer.
    Footer = 0,
    /// A column chunk's `ColumnMetaData`.
    ColumnMetaData = 1,
    /// A data page body.
    DataPage = 2,
    /// A dictionary page body.
    DictionaryPage = 3,
    /// A data page header.
    DataPageHeader = 4,
    /// A dictionary page header.
    DictionaryPageHeader = 5,
    /// A column index.
    ColumnIndex = 6,
    /// An offset index.
    OffsetIndex = 7,
    /// A Bloom filter header.
    BloomFilterHeader = 8,
    /// A Bloom filter bitset.
    BloomFilterBitset = 9,
}

impl ModuleType {
    /// What the module is, for errors.
    pub fn describe(self) -> &'static str {
        match self {
            ModuleType::Footer => "footer",
            ModuleType::ColumnMetaData => "column metadata",
            ModuleType::DataPage => "data page",
            ModuleType::DictionaryPage => "dictionary page",
            ModuleType::DataPageHeader => "data page header",
            ModuleType::DictionaryPageHeader => "dictionary page header",
            ModuleType::ColumnIndex => "column index",
            ModuleType::OffsetIndex => "offset index",
            ModuleType::BloomFilterHeader => "Bloom filter header",
            ModuleType::BloomFilterBitset => "Bloom filter bitset",
        }
    }

    /// True for the modules whose AAD carries a page ordinal.
    pub fn has_page_ordinal(self) -> bool {
        matches!(self, ModuleType::DataPage | ModuleType::DataPageHeader)
    }
}

/// Where a module sits: its type and the ordinals its AAD names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleId {
    /// The module type.
    pub kind: ModuleType,
    /// The row group ordinal (not used by the footer).
    pub row_group: u16,
    /// The column ordinal: the leaf's index in the schema (not used by the footer).
    pub column: u16,
    /// The page ordinal among the chunk's data pages (data pages and their headers only).
    pub page: u16,
}

impl ModuleId {
    /// The footer module.
    pub const FOOTER: ModuleId = ModuleId {
        kind: ModuleType::Footer,
        row_group: 0,
        column: 0,
        page: 0,
    };

    /// The AAD of this module in a file whose AAD is `file_aad`.
    pub fn aad(&self, file_aad: &[u8]) -> Vec<u8> {
        let mut aad = Vec::with_capacity(file_aad.len() + 7);
        aad.extend_from_slice(file_aad);
        aad.push(self.kind as u8);
        if self.kind == ModuleType::Footer {
            return aad;
        }
        aad.extend_from_slice(&self.row_group.to_le_bytes());
        aad.extend_from_slice(&self.column.to_le_bytes());
        if self.kind.has_page_ordinal() {
            aad.extend_from_slice(&self.page.to_le_bytes());
        }
        aad
    }

    /// Words for errors: "data page header 3 of row group 0, column 2".
    pub fn describe(&self) -> String {
        match self.kind {
            ModuleType::Footer => "footer".to_string(),
            k if k.has_page_ordinal() => format!(
                "{} {} of row group {}, column {}",
                k.describe(),
                self.page,
                self.row_group,
                self.column
            ),
            k => format!(
                "{} of row group {}, column {}",
                k.describe(),
                self.row_group,
                self.column
            ),
        }
    }
}

fn aes_algorithms(
    key: &[u8],
) -> Option<(
    &'static aead::Algorithm,
    &'static aws_lc_rs::cipher::Algorithm,
)> {
    match key.len() {
        16 => Some((&aead::AES_128_GCM, &aws_lc_rs::cipher::AES_128)),
        24 => Some((&aead::AES_192_GCM, &aws_lc_rs::cipher::AES_192)),
        32 => Some((&aead::AES_256_GCM, &aws_lc_rs::cipher::AES_256)),
        _ => None,
    }
}

/// A decryption failure: which module, and why.
pub fn decryption_error(module: &ModuleId, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Decryption {
        module: module.describe(),
        message: message.into(),
    })
}

/// Where decrypted bytes go: a `Vec<u8>`, or a reused `BytesMut` (a page reader's).
pub trait ByteSink {
    /// Bytes held.
    fn len(&self) -> usize;
    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends `b`.
    fn extend_from_slice(&mut self, b: &[u8]);
    /// Keeps the first `n` bytes.
    fn truncate(&mut self, n: usize);
    /// The bytes from `from` on.
    fn tail_mut(&mut self, from: usize) -> &mut [u8];
}

impl ByteSink for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn extend_from_slice(&mut self, b: &[u8]) {
        Vec::extend_from_slice(self, b);
    }
    fn truncate(&mut self, n: usize) {
        Vec::truncate(self, n);
    }
    fn tail_mut(&mut self, from: usize) -> &mut [u8] {
        &mut self[from..]
    }
}

impl ByteSink for bytes::BytesMut {
    fn len(&self) -> usize {
        bytes::BytesMut::len(self)
    }
    fn extend_from_slice(&mut self, b: &[u8]) {
        bytes::BytesMut::extend_from_slice(self, b);
    }
    fn truncate(&mut self, n: usize) {
        bytes::BytesMut::truncate(self, n);
    }
    fn tail_mut(&mut self, from: usize) -> &mut [u8] {
        &mut self[from..]
    }
}

/// One AES key ready to decrypt and encrypt modules: its GCM and CTR forms.
pub struct KeyCipher {
    gcm: LessSafeKey,
    ctr_decrypt: DecryptingKey,
    ctr_encrypt: EncryptingKey,
    key_len: usize,
}

impl std::fmt::Debug for KeyCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key bytes.
        write!(f, "KeyCipher(AES-{})", self.key_len * 8)
    }
}

impl KeyCipher {
    /// A cipher of `key` (16, 24 or 32 bytes).
    pub fn new(key: &[u8]) -> Result<KeyCipher> {
        let invalid = || {
            Error::new(ErrorKind::InvalidArgument(format!(
                "an AES key is 16, 24 or 32 bytes, not {}",
                key.len()
            )))
        };
        let (gcm_alg, ctr_alg) = aes_algorithms(key).ok_or_else(invalid)?;
        let gcm = LessSafeKey::new(UnboundKey::new(gcm_alg, key).map_err(|_| invalid())?);
        let ctr_decrypt =
            DecryptingKey::ctr(UnboundCipherKey::new(ctr_alg, key).map_err(|_| invalid())?)
                .map_err(|_| invalid())?;
        let ctr_encrypt =
            EncryptingKey::ctr(UnboundCipherKey::new(ctr_alg, key).map_err(|_| invalid())?)
                .map_err(|_| invalid())?;
        Ok(KeyCipher {
            gcm,
            ctr_decrypt,
            ctr_encrypt,
            key_len: key.len(),
        })
    }

    /// The key length in bytes.
    pub fn key_len(&self) -> usize {
        self.key_len
    }

    /// The body of a module (the bytes after its length) checked against the length: `module`
    /// must be exactly one module.
    fn body<'a>(module: &'a [u8], id: &ModuleId, min: usize) -> Result<&'a [u8]> {
        let Some((len, body)) = module.split_first_chunk::<LENGTH_BYTES>() else {
            return Err(decryption_error(
                id,
                format!("{} bytes cannot hold a module length", module.len()),
            ));
        };
        let len = u32::from_le_bytes(*len) as usize;
        if len != body.len() {
            return Err(decryption_error(
                id,
                format!(
                    "the module length {len} differs from the {} bytes stored",
                    body.len()
                ),
            ));
        }
        if len < min {
            return Err(decryption_error(
                id,
                format!("a module of {len} bytes is shorter than its nonce and tag ({min})"),
            ));
        }
        Ok(body)
    }

    /// Decrypts and authenticates an AES-GCM module (length, nonce, ciphertext, tag) with
    /// the AAD `aad`, appending the plaintext to `out` (decrypted in place there). The tag is
    /// checked in constant time; nothing is appended when it fails.
    pub fn decrypt_gcm(
        &self,
        module: &[u8],
        aad: &[u8],
        id: &ModuleId,
        out: &mut impl ByteSink,
    ) -> Result<()> {
        let body = Self::body(module, id, NONCE_BYTES + TAG_BYTES)?;
        let (nonce, rest) = body.split_at(NONCE_BYTES);
        let (ciphertext, tag) = rest.split_at(rest.len() - TAG_BYTES);
        let nonce = Nonce::try_assume_unique_for_key(nonce)
            .map_err(|_| decryption_error(id, "bad nonce"))?;
        let start = out.len();
        out.extend_from_slice(ciphertext);
        let res =
            self.gcm
                .open_in_place_separate_tag(nonce, Aad::from(aad), tag, out.tail_mut(start));
        if res.is_err() {
            out.truncate(start);
            return Err(decryption_error(
                id,
                "AES-GCM authentication failed: a wrong key or AAD prefix, changed bytes, or a \
                 module moved from elsewhere",
            ));
        }
        Ok(())
    }

    /// Decrypts an AES-CTR module (length, nonce, ciphertext), appending the plaintext to
    /// `out`. CTR modules are not authenticated.
    pub fn decrypt_ctr(&self, module: &[u8], id: &ModuleId, out: &mut impl ByteSink) -> Result<()> {
        let body = Self::body(module, id, NONCE_BYTES)?;
        let (nonce, ciphertext) = body.split_at(NONCE_BYTES);
        let start = out.len();
        out.extend_from_slice(ciphertext);
        let iv = ctr_iv(nonce);
        if self
            .ctr_decrypt
            .decrypt(out.tail_mut(start), DecryptionContext::Iv128(iv))
            .is_err()
        {
            out.truncate(start);
            return Err(decryption_error(id, "AES-CTR decryption failed"));
        }
        Ok(())
    }

    /// Encrypts `plaintext` as an AES-GCM module with the AAD `aad` and a fresh random nonce,
    /// appending the whole module (length first) to `out`.
    pub fn encrypt_gcm(&self, plaintext: &[u8], aad: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let nonce = random_nonce()?;
        self.encrypt_gcm_with_nonce(plaintext, aad, nonce, out)
    }

    /// [`KeyCipher::encrypt_gcm`] with the nonce given (the footer signature recomputes a
    /// module with the nonce the file stores).
    pub fn encrypt_gcm_with_nonce(
        &self,
        plaintext: &[u8],
        aad: &[u8],
        nonce: [u8; NONCE_BYTES],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let len = module_len(plaintext.len() + NONCE_BYTES + TAG_BYTES)?;
        out.reserve(plaintext.len() + GCM_OVERHEAD);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&nonce);
        let start = out.len();
        out.extend_from_slice(plaintext);
        let tag = self
            .gcm
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad),
                &mut out[start..],
            )
            .map_err(|_| internal("AES-GCM encryption failed"))?;
        out.extend_from_slice(tag.as_ref());
        Ok(())
    }

    /// Encrypts the bytes of `buf` from `start` on, in place, into an AES-GCM module (AAD
    /// `aad`, a fresh random nonce): they move up by the length and nonce, the tag follows.
    pub fn seal_gcm_tail(&self, buf: &mut Vec<u8>, start: usize, aad: &[u8]) -> Result<()> {
        let nonce = random_nonce()?;
        let n = buf.len().saturating_sub(start);
        let len = module_len(n + NONCE_BYTES + TAG_BYTES)?;
        Self::open_room(buf, start, &len, &nonce);
        let tag = self
            .gcm
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad),
                &mut buf[start + LENGTH_BYTES + NONCE_BYTES..],
            )
            .map_err(|_| internal("AES-GCM encryption failed"))?;
        buf.extend_from_slice(tag.as_ref());
        Ok(())
    }

    /// Encrypts the bytes of `buf` from `start` on, in place, into an AES-CTR module (a
    /// fresh random nonce).
    pub fn seal_ctr_tail(&self, buf: &mut Vec<u8>, start: usize) -> Result<()> {
        let nonce = random_nonce()?;
        let n = buf.len().saturating_sub(start);
        let len = module_len(n + NONCE_BYTES)?;
        Self::open_room(buf, start, &len, &nonce);
        self.ctr_encrypt
            .less_safe_encrypt(
                &mut buf[start + LENGTH_BYTES + NONCE_BYTES..],
                EncryptionContext::Iv128(ctr_iv(&nonce)),
            )
            .map_err(|_| internal("AES-CTR encryption failed"))?;
        Ok(())
    }

    /// Moves `buf[start..]` up to make room for a module's length and nonce, and writes them.
    fn open_room(buf: &mut Vec<u8>, start: usize, len: &u32, nonce: &[u8; NONCE_BYTES]) {
        let start = start.min(buf.len());
        let end = buf.len();
        buf.reserve(LENGTH_BYTES + NONCE_BYTES + TAG_BYTES);
        buf.resize(end + LENGTH_BYTES + NONCE_BYTES, 0);
        buf.copy_within(start..end, start + LENGTH_BYTES + NONCE_BYTES);
        buf[start..start + LENGTH_BYTES].copy_from_slice(&len.to_le_bytes());
        buf[start + LENGTH_BYTES..start + LENGTH_BYTES + NONCE_BYTES].copy_from_slice(nonce);
    }

    /// Encrypts `plaintext` as an AES-CTR module with a fresh random nonce, appending the
    /// whole module (length first) to `out`.
    pub fn encrypt_ctr(&self, plaintext: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let nonce = random_nonce()?;
        let len = module_len(plaintext.len() + NONCE_BYTES)?;
        out.reserve(plaintext.len() + CTR_OVERHEAD);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&nonce);
        let start = out.len();
        out.extend_from_slice(plaintext);
        self.ctr_encrypt
            .less_safe_encrypt(&mut out[start..], EncryptionContext::Iv128(ctr_iv(&nonce)))
            .map_err(|_| internal("AES-CTR encryption failed"))?;
        Ok(())
    }
}

/// The CTR IV of a nonce: the 12 nonce bytes, then a 32-bit big-endian counter starting at 1.
fn ctr_iv(nonce: &[u8]) -> FixedLength<16> {
    let mut iv = [0u8; 16];
    iv[..NONCE_BYTES].copy_from_slice(&nonce[..NONCE_BYTES]);
    iv[15] = 1;
    FixedLength::from(iv)
}

fn module_len(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| {
        Error::new(ErrorKind::InvalidArgument(format!(
            "a module of {len} bytes is larger than an encrypted module can be (4 GiB)"
        )))
    })
}

fn internal(message: &str) -> Error {
    Error::new(ErrorKind::Internal(message.to_string()))
}

/// A fresh random nonce.
pub fn random_nonce() -> Result<[u8; NONCE_BYTES]> {
    let mut nonce = [0u8; NONCE_BYTES];
    random_bytes(&mut nonce)?;
    Ok(nonce)
}

/// Fills `buf` from the system's secure random source.
pub fn random_bytes(buf: &mut [u8]) -> Result<()> {
    aws_lc_rs::rand::fill(buf).map_err(|_| internal("the system random source failed"))
}

/// Compares two byte strings in constant time (in their common length).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    aws_lc_rs::constant_time::verify_slices_are_equal(a, b).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5];

    #[test]
    fn gcm_round_trip_and_tamper() {
        let c = KeyCipher::new(&KEY).unwrap();
        let id = ModuleId {
            kind: ModuleType::DataPage,
            row_group: 1,
            column: 2,
            page: 3,
        };
        let aad = id.aad(b"file");
        let mut m = Vec::new();
        c.encrypt_gcm(b"hello pages", &aad, &mut m).unwrap();
        assert_eq!(m.len(), 11 + GCM_OVERHEAD);
        let mut out = Vec::new();
        c.decrypt_gcm(&m, &aad, &id, &mut out).unwrap();
        assert_eq!(out, b"hello pages");
        for i in LENGTH_BYTES..m.len() {
            let mut bad = m.clone();
            bad[i] ^= 1;
            let mut out = Vec::new();
            let e = c.decrypt_gcm(&bad, &aad, &id, &mut out).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
            assert!(out.is_empty());
        }
        let other = ModuleId { page: 4, ..id }.aad(b"file");
        assert!(c.decrypt_gcm(&m, &other, &id, &mut out).is_err());
        assert!(c
            .decrypt_gcm(&m[..m.len() - 1], &aad, &id, &mut out)
            .is_err());
    }

    #[test]
    fn ctr_round_trip() {
        for key in [&[7u8; 16][..], &[7u8; 24], &[7u8; 32]] {
            let c = KeyCipher::new(key).unwrap();
            let mut m = Vec::new();
            let plain: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
            c.encrypt_ctr(&plain, &mut m).unwrap();
            assert_eq!(m.len(), plain.len() + CTR_OVERHEAD);
            let mut out = Vec::new();
            c.decrypt_ctr(&m, &ModuleId::FOOTER, &mut out).unwrap();
            assert_eq!(out, plain);
        }
        assert!(KeyCipher::new(&[0u8; 15]).is_err());
    }

    #[test]
    fn tails_seal_in_place() {
        let c = KeyCipher::new(&KEY).unwrap();
        let aad = ModuleId::FOOTER.aad(b"f");
        let mut buf = b"headXXXXpayload".to_vec();
        c.seal_gcm_tail(&mut buf, 4, &aad).unwrap();
        assert_eq!(&buf[..4], b"head");
        let mut out = Vec::new();
        c.decrypt_gcm(&buf[4..], &aad, &ModuleId::FOOTER, &mut out)
            .unwrap();
        assert_eq!(out, b"XXXXpayload");
        let mut buf = b"headpayload".to_vec();
        c.seal_ctr_tail(&mut buf, 4).unwrap();
        out.clear();
        c.decrypt_ctr(&buf[4..], &ModuleId::FOOTER, &mut out)
            .unwrap();
        assert_eq!(out, b"payload");
    }

    #[test]
    fn aad_layout() {
        let id = ModuleId {
            kind: ModuleType::DataPageHeader,
            row_group: 0x0102,
            column: 3,
            page: 4,
        };
        assert_eq!(id.aad(b"F"), b"F\x04\x02\x01\x03\x00\x04\x00");
        let id = ModuleId {
            kind: ModuleType::ColumnIndex,
            ..id
        };
        assert_eq!(id.aad(b"F"), b"F\x06\x02\x01\x03\x00");
        assert_eq!(ModuleId::FOOTER.aad(b"F"), b"F\x00");
    }
}
