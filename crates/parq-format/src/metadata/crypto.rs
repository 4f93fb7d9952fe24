//! Modular encryption metadata: the `EncryptionAlgorithm` union (`AesGcmV1`, `AesGcmCtrV1`),
//! `FileCryptoMetaData` (the plaintext prefix of an encrypted footer) and the
//! `ColumnCryptoMetaData` union of a column chunk. Union variants this version does not know
//! are kept raw, never an error (see the union helpers in `bloom`).

use super::bloom::{keep_union, read_empty_struct, union_ends};
use super::page_index::{read_binary_list, write_binary_list};
use super::statistics::keep_binary;
use super::{missing, Arena, ByteRange, StructWriter, UnknownFields};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

macro_rules! aes_params {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct $name {
            /// Field 1, `aad_prefix`.
            pub aad_prefix: Option<ByteRange>,
            /// Field 2, `aad_file_unique`: the unique file identifier part of the AAD suffix.
            pub aad_file_unique: Option<ByteRange>,
            /// Field 3, `supply_aad_prefix`: readers must supply the AAD prefix, which the
            /// file does not store.
            pub supply_aad_prefix: Option<bool>,
            /// Fields this version does not know.
            pub unknown: UnknownFields,
        }

        impl $name {
            const NAME: &'static str = stringify!($name);

            /// Decodes the struct. Byte values are copied into `arena` when given, else kept
            /// as ranges of `r`'s buffer.
            pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
                let mut s = $name::default();
                r.enter()?;
                r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
                    (1, wire::BINARY) => {
                        keep_binary(r, &mut arena, None).map(|v| s.aad_prefix = Some(v))
                    }
                    (2, wire::BINARY) => {
                        keep_binary(r, &mut arena, None).map(|v| s.aad_file_unique = Some(v))
                    }
                    (3, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                        s.supply_aad_prefix = Some(ty == wire::BOOL_TRUE);
                        Ok(())
                    }
                    _ => s.unknown.keep(r, arena.as_deref_mut(), id, ty),
                })?;
                r.leave();
                Ok(s)
            }

            /// Encodes this struct; byte ranges refer to `buf`.
            pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
                let mut s = StructWriter::new(&self.unknown, buf);
                if let Some(v) = self.aad_prefix {
                    s.binary(w, 1, v.slice(buf));
                }
                if let Some(v) = self.aad_file_unique {
                    s.binary(w, 2, v.slice(buf));
                }
                if let Some(v) = self.supply_aad_prefix {
                    s.bool(w, 3, v);
                }
                s.end(w);
            }
        }
    };
}

aes_params! {
    /// `AesGcmV1`: AES-GCM for both metadata and pages.
    ///
    /// ```thrift
    /// struct AesGcmV1 {
    ///   1: optional binary aad_prefix
    ///   2: optional binary aad_file_unique
    ///   3: optional bool supply_aad_prefix
    /// }
    /// ```
    AesGcmV1
}

aes_params! {
    /// `AesGcmCtrV1`: AES-GCM for metadata, AES-CTR for pages.
    ///
    /// ```thrift
    /// struct AesGcmCtrV1 {
    ///   1: optional binary aad_prefix
    ///   2: optional binary aad_file_unique
    ///   3: optional bool supply_aad_prefix
    /// }
    /// ```
    AesGcmCtrV1
}

/// `EncryptionAlgorithm`: the algorithm and AAD parameters of an encrypted file.
///
/// ```thrift
/// union EncryptionAlgorithm {
///   1: AesGcmV1 AES_GCM_V1
///   2: AesGcmCtrV1 AES_GCM_CTR_V1
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncryptionAlgorithm {
    /// `AES_GCM_V1`.
    AesGcmV1(AesGcmV1),
    /// `AES_GCM_CTR_V1`.
    AesGcmCtrV1(AesGcmCtrV1),
    /// A variant this version does not know (or more than one field): `field_id` is the
    /// union's first field id and `raw` the whole union structure, from its first field
    /// header through its STOP.
    Unknown {
        /// The id of the union's first field.
        field_id: i16,
        /// The raw union structure.
        raw: ByteRange,
    },
}

impl EncryptionAlgorithm {
    const NAME: &'static str = "EncryptionAlgorithm";

    /// Decodes the union (a union with no field set is an error). Byte values are copied into
    /// `arena` when given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let start = r.pos();
        r.enter()?;
        let mut id = 0i16;
        let ty = match r.read_field_header(&mut id) {
            Ok(Some(ty)) => ty,
            Ok(None) => return Err(missing(r, Self::NAME, "<union variant>")),
            Err(e) => return Err(e.in_struct(Self::NAME)),
        };
        let first = id;
        let known = match (id, ty) {
            (1, wire::STRUCT) => AesGcmV1::decode(r, arena.as_deref_mut())
                .map(|v| Some(EncryptionAlgorithm::AesGcmV1(v))),
            (2, wire::STRUCT) => AesGcmCtrV1::decode(r, arena.as_deref_mut())
                .map(|v| Some(EncryptionAlgorithm::AesGcmCtrV1(v))),
            _ => Ok(None),
        }
        .map_err(|e| e.in_field(Self::NAME, first))?;
        if let Some(v) = known {
            if union_ends(r, Self::NAME, &mut id)? {
                r.leave();
                return Ok(v);
            }
        }
        r.leave();
        let raw = keep_union(r, &mut arena, start, Self::NAME)?;
        Ok(EncryptionAlgorithm::Unknown {
            field_id: first,
            raw,
        })
    }

    /// Encodes the union; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut last = 0i16;
        match self {
            EncryptionAlgorithm::AesGcmV1(v) => {
                w.write_field_header(wire::STRUCT, 1, &mut last);
                v.encode(w, buf);
                w.write_stop();
            }
            EncryptionAlgorithm::AesGcmCtrV1(v) => {
                w.write_field_header(wire::STRUCT, 2, &mut last);
                v.encode(w, buf);
                w.write_stop();
            }
            EncryptionAlgorithm::Unknown { raw, .. } => w.write_raw(raw.slice(buf)),
        }
    }
}

/// `FileCryptoMetaData`: the plaintext structure in front of an encrypted footer (files with
/// the `PARE` magic).
///
/// ```thrift
/// struct FileCryptoMetaData {
///   1: required EncryptionAlgorithm encryption_algorithm
///   2: optional binary key_metadata
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCryptoMetaData {
    /// Field 1, `encryption_algorithm`.
    pub encryption_algorithm: EncryptionAlgorithm,
    /// Field 2, `key_metadata`: retrieval metadata of the footer key.
    pub key_metadata: Option<ByteRange>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl FileCryptoMetaData {
    const NAME: &'static str = "FileCryptoMetaData";

    /// Decodes a `FileCryptoMetaData`. Byte values are copied into `arena` when given, else
    /// kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut algorithm = None;
        let mut key_metadata = None;
        let mut unknown = UnknownFields::default();
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::STRUCT) => {
                EncryptionAlgorithm::decode(r, arena.as_deref_mut()).map(|v| algorithm = Some(v))
            }
            (2, wire::BINARY) => keep_binary(r, &mut arena, None).map(|v| key_metadata = Some(v)),
            _ => unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        let Some(encryption_algorithm) = algorithm else {
            return Err(missing(r, Self::NAME, "encryption_algorithm"));
        };
        Ok(FileCryptoMetaData {
            encryption_algorithm,
            key_metadata,
            unknown,
        })
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.field(w, wire::STRUCT, 1);
        self.encryption_algorithm.encode(w, buf);
        if let Some(v) = self.key_metadata {
            s.binary(w, 2, v.slice(buf));
        }
        s.end(w);
    }
}

/// `EncryptionWithColumnKey`: the column is encrypted with its own key.
///
/// ```thrift
/// struct EncryptionWithColumnKey {
///   1: required list<string> path_in_schema
///   2: optional binary key_metadata
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncryptionWithColumnKey {
    /// Field 1, `path_in_schema`: the column path, one range per name.
    pub path_in_schema: Vec<ByteRange>,
    /// Field 2, `key_metadata`: retrieval metadata of the column key.
    pub key_metadata: Option<ByteRange>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl EncryptionWithColumnKey {
    const NAME: &'static str = "EncryptionWithColumnKey";

    /// Decodes an `EncryptionWithColumnKey`. Byte values are copied into `arena` when given,
    /// else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut s = EncryptionWithColumnKey::default();
        let mut seen = false;
        let mut id = 0i16;
        r.enter()?;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            let is_binary_list = r
                .buf()
                .get(r.pos())
                .is_some_and(|b| b & 0x0f == wire::BINARY);
            let res = match (id, ty) {
                (1, wire::LIST) if is_binary_list => {
                    read_binary_list(r, &mut arena, "path_in_schema").map(|v| {
                        s.path_in_schema = v;
                        seen = true;
                    })
                }
                (2, wire::BINARY) => {
                    keep_binary(r, &mut arena, None).map(|v| s.key_metadata = Some(v))
                }
                _ => s.unknown.keep(r, arena.as_deref_mut(), id, ty),
            };
            if let Err(e) = res {
                return Err(e.in_field(Self::NAME, id));
            }
        }
        r.leave();
        if !seen {
            return Err(missing(r, Self::NAME, "path_in_schema"));
        }
        Ok(s)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.field(w, wire::LIST, 1);
        write_binary_list(w, &self.path_in_schema, buf);
        if let Some(v) = self.key_metadata {
            s.binary(w, 2, v.slice(buf));
        }
        s.end(w);
    }
}

/// `ColumnCryptoMetaData`: how a column chunk is encrypted.
///
/// ```thrift
/// struct EncryptionWithFooterKey {
/// }
/// union ColumnCryptoMetaData {
///   1: EncryptionWithFooterKey ENCRYPTION_WITH_FOOTER_KEY
///   2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnCryptoMetaData {
    /// `ENCRYPTION_WITH_FOOTER_KEY`: the column is encrypted with the footer key.
    EncryptionWithFooterKey,
    /// `ENCRYPTION_WITH_COLUMN_KEY`: the column is encrypted with its own key.
    EncryptionWithColumnKey(EncryptionWithColumnKey),
    /// A variant this version does not know (or a known one with content it does not know,
    /// or more than one field): `field_id` is the union's first field id and `raw` the whole
    /// union structure, from its first field header through its STOP.
    Unknown {
        /// The id of the union's first field.
        field_id: i16,
        /// The raw union structure.
        raw: ByteRange,
    },
}

impl ColumnCryptoMetaData {
    const NAME: &'static str = "ColumnCryptoMetaData";

    /// Decodes the union (a union with no field set is an error). Byte values are copied into
    /// `arena` when given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let start = r.pos();
        r.enter()?;
        let mut id = 0i16;
        let ty = match r.read_field_header(&mut id) {
            Ok(Some(ty)) => ty,
            Ok(None) => return Err(missing(r, Self::NAME, "<union variant>")),
            Err(e) => return Err(e.in_struct(Self::NAME)),
        };
        let first = id;
        let known = match (id, ty) {
            (1, wire::STRUCT) => read_empty_struct(r)
                .map(|empty| empty.then_some(ColumnCryptoMetaData::EncryptionWithFooterKey)),
            (2, wire::STRUCT) => EncryptionWithColumnKey::decode(r, arena.as_deref_mut())
                .map(|v| Some(ColumnCryptoMetaData::EncryptionWithColumnKey(v))),
            _ => Ok(None),
        }
        .map_err(|e| e.in_field(Self::NAME, first))?;
        if let Some(v) = known {
            if union_ends(r, Self::NAME, &mut id)? {
                r.leave();
                return Ok(v);
            }
        }
        r.leave();
        let raw = keep_union(r, &mut arena, start, Self::NAME)?;
        Ok(ColumnCryptoMetaData::Unknown {
            field_id: first,
            raw,
        })
    }

    /// Encodes the union; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut last = 0i16;
        match self {
            ColumnCryptoMetaData::EncryptionWithFooterKey => {
                w.write_field_header(wire::STRUCT, 1, &mut last);
                w.write_stop();
                w.write_stop();
            }
            ColumnCryptoMetaData::EncryptionWithColumnKey(v) => {
                w.write_field_header(wire::STRUCT, 2, &mut last);
                v.encode(w, buf);
                w.write_stop();
            }
            ColumnCryptoMetaData::Unknown { raw, .. } => w.write_raw(raw.slice(buf)),
        }
    }
}
