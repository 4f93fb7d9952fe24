//! The Parquet key management tools: envelope encryption with master keys kept in a KMS, as
//! pyarrow (`pyarrow.parquet.encryption`) and parquet-java offer it, so that each reads the
//! other's files. [`CryptoFactory`] turns master key ids into the explicit
//! [`FileEncryptionProperties`](crate::format::crypto::FileEncryptionProperties) and
//! [`FileDecryptionProperties`](crate::format::crypto::FileDecryptionProperties) of
//! `parq_format::crypto`; [`material`] is the key material JSON, [`kms`] the KMS client and
//! the local wrapping of double wrapping.

pub mod factory;
pub mod kms;
pub mod material;

pub use factory::{CryptoFactory, DecryptionConfiguration, EncryptionConfiguration};
pub use kms::{KmsClient, KmsClientFactory, KmsConnectionConfig};
pub use material::{KeyMaterial, KeyMetadata};
