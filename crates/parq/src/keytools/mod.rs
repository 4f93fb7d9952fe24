//! The Parquet key management tools: envelope encryption with master keys kept in a KMS, as
//! pyarrow (`pyarrow.parquet.encryption`) and parquet-java offer it, so that each reads the
//! other's files. [`CryptoFactory`] turns master key ids into the explicit
//! [`FileEncryptionProperties`](crate::format::crypto::FileEncryptionProperties) and
//! [`FileDecryptionProperties`](crate::format::crypto::FileDecryptionProperties) of
//! `parq_format::crypto`; [`material`] is the key material JSON, [`kms`] the KMS client and
//! the local wrapping of double wrapping.
//!
//! ```
//! use std::sync::Arc;
//!
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
//! use parq::keytools::{
//!     CryptoFactory, DecryptionConfiguration, EncryptionConfiguration, KmsClient,
//!     KmsConnectionConfig,
//! };
//! use parq::{ParquetReader, ParquetWriter, WriterProperties};
//!
//! /// A stand-in for a real KMS client (not secure): a key "wrapped" by a master key is the
//! /// master key's id and the key in hex.
//! struct ToyKms;
//!
//! impl KmsClient for ToyKms {
//!     fn wrap_key(&self, key: &[u8], master: &str) -> Result<String, String> {
//!         Ok(format!("{master}:{}", key.iter().map(|b| format!("{b:02x}")).collect::<String>()))
//!     }
//!     fn unwrap_key(&self, wrapped: &str, master: &str) -> Result<Vec<u8>, String> {
//!         let hex = wrapped.strip_prefix(&format!("{master}:")).ok_or("another master key")?;
//!         (0..hex.len())
//!             .step_by(2)
//!             .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| e.to_string()))
//!             .collect()
//!     }
//! }
//!
//! let factory = CryptoFactory::new(Arc::new(|_: &KmsConnectionConfig| {
//!     Ok(Arc::new(ToyKms) as Arc<dyn KmsClient>)
//! }));
//! let kms = KmsConnectionConfig::default();
//!
//! // `ssn` under a data key that master key `pii` wraps; the footer under `footer`'s.
//! let mut config = EncryptionConfiguration::new("footer");
//! config.column_keys.insert("pii".into(), vec!["ssn".into()]);
//! let props = WriterProperties::builder()
//!     .encryption(factory.file_encryption_properties(&kms, &config)?)
//!     .build()?;
//!
//! let id: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
//! let ssn: ArrayRef = Arc::new(StringArray::from(vec!["123-45-6789", "987-65-4321"]));
//! let batch = RecordBatch::try_from_iter([("id", id), ("ssn", ssn)]).unwrap();
//! let path = std::env::temp_dir().join("parq-doc-keytools.parquet");
//! let mut writer = ParquetWriter::try_new(std::fs::File::create(&path)?, batch.schema(), props)?;
//! writer.write(&batch)?;
//! writer.close()?;
//!
//! // The keys are unwrapped through the KMS as the read needs them.
//! let keys = factory.file_decryption_properties(&kms, &DecryptionConfiguration::default())?;
//! let read = ParquetReader::open_encrypted(&path, Arc::new(keys))?.read_batch()?;
//! assert_eq!(read, batch);
//! # Ok::<(), parq::Error>(())
//! ```

pub mod factory;
pub mod kms;
pub mod material;

pub use factory::{CryptoFactory, DecryptionConfiguration, EncryptionConfiguration};
pub use kms::{KmsClient, KmsClientFactory, KmsConnectionConfig};
pub use material::{KeyMaterial, KeyMetadata};
