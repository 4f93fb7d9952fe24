//! The KMS side of envelope encryption: a [`KmsClient`] wraps and unwraps keys with master
//! keys it keeps, made per connection ([`KmsConnectionConfig`]) by a [`KmsClientFactory`];
//! and the local wrapping of a data key by a key encryption key (double wrapping).

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine;

use crate::format::crypto::{KeyCipher, ModuleId};
use crate::{Error, ErrorKind, Result};

/// A client of a key management service: wraps data keys (or key encryption keys) with the
/// master key of an id, and unwraps them. Errors are the KMS's words.
pub trait KmsClient: Send + Sync {
    /// `key` wrapped with the master key `master_key_id`.
    fn wrap_key(&self, key: &[u8], master_key_id: &str) -> std::result::Result<String, String>;
    /// The key `wrapped` holds, unwrapped with the master key `master_key_id`.
    fn unwrap_key(
        &self,
        wrapped: &str,
        master_key_id: &str,
    ) -> std::result::Result<Vec<u8>, String>;
}

/// Where and how to reach the KMS (pyarrow's `KmsConnectionConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmsConnectionConfig {
    /// The KMS instance; `DEFAULT` takes the one a file's footer key material names.
    pub kms_instance_id: String,
    /// The KMS URL; `DEFAULT` takes the one a file's footer key material names.
    pub kms_instance_url: String,
    /// The access token handed to the KMS.
    pub key_access_token: String,
    /// Settings of the KMS client.
    pub custom_kms_conf: BTreeMap<String, String>,
}

/// The id and URL meaning "as the file says".
pub const DEFAULT_KMS: &str = "DEFAULT";

impl Default for KmsConnectionConfig {
    fn default() -> Self {
        KmsConnectionConfig {
            kms_instance_id: DEFAULT_KMS.to_string(),
            kms_instance_url: DEFAULT_KMS.to_string(),
            key_access_token: DEFAULT_KMS.to_string(),
            custom_kms_conf: BTreeMap::new(),
        }
    }
}

/// Makes the KMS client of a connection.
pub type KmsClientFactory = Arc<
    dyn Fn(&KmsConnectionConfig) -> std::result::Result<Arc<dyn KmsClient>, String> + Send + Sync,
>;

pub(super) fn kms_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::MissingKey(format!("{what}: {e}")))
}

/// A key wrapped locally with `kek` (double wrapping): base64 of nonce, AES-GCM ciphertext
/// and tag, authenticated with `aad` (the KEK's id).
pub(super) fn wrap_locally(key: &[u8], kek: &[u8], aad: &[u8]) -> Result<String> {
    let mut module = Vec::with_capacity(key.len() + 32);
    KeyCipher::new(kek)?.encrypt_gcm(key, aad, &mut module)?;
    // Without the module's length prefix.
    Ok(base64::engine::general_purpose::STANDARD.encode(&module[4..]))
}

/// The key `wrapped` holds (see [`wrap_locally`]).
pub(super) fn unwrap_locally(wrapped: &str, kek: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(wrapped)
        .map_err(|e| kms_error("a wrapped data key that is not base64", e))?;
    let len = u32::try_from(raw.len()).map_err(|_| kms_error("a wrapped data key", "too long"))?;
    let mut module = Vec::with_capacity(raw.len() + 4);
    module.extend_from_slice(&len.to_le_bytes());
    module.extend_from_slice(&raw);
    let mut key = Vec::new();
    KeyCipher::new(kek)?
        .decrypt_gcm(&module, aad, &ModuleId::FOOTER, &mut key)
        .map_err(|_| {
            kms_error(
                "a data key does not unwrap with its key encryption key",
                "authentication failed",
            )
        })?;
    Ok(key)
}
