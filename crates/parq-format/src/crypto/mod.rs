//! Parquet modular encryption: the AES-GCM and AES-CTR module ciphers and their AADs
//! ([`cipher`]), the keys and settings a caller gives ([`properties`]), and reading an
//! encrypted file's footer and column metadata ([`decrypt`]), which leaves a
//! [`FileDecryptor`] on the footer for the pages, page index and Bloom filters; writing one
//! ([`encrypt`]: the [`FileEncryptor`] of a file being written).

pub mod cipher;
pub mod decrypt;
pub mod encrypt;
pub mod properties;

pub use cipher::{Algorithm, KeyCipher, ModuleId, ModuleType};
pub use decrypt::{
    decode_encrypted_footer, decrypt_plaintext_footer, ColumnDecryptor, ColumnKeyState,
    FileDecryptor,
};
pub use encrypt::{ColumnEncryptor, FileEncryptor};
pub use properties::{ColumnKey, FileDecryptionProperties, FileEncryptionProperties, KeyRetriever};
