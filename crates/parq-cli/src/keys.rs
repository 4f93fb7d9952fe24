//! The keys of encrypted files on the command line: [`KeyArgs`] decrypt an input
//! (`--footer-key HEX`, `--column-key NAME=HEX`, `--aad-prefix TEXT`, `--key-file JSON`),
//! [`EncryptArgs`] encrypt a Parquet output of `convert` (`--encrypt-footer-key`, ...). A
//! key file holds `{"footer_key": HEX, "column_keys": {NAME: HEX, ...}, "aad_prefix": TEXT}`;
//! NAME is a dotted leaf path (`l.list.element`) or, when encrypting, a column covering its
//! leaves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use parq::format::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileEncryptionProperties,
};
use serde_json::Value;

use crate::CliError;

/// Keys to read an encrypted file.
#[derive(Debug, Clone, Default, Args)]
pub struct KeyArgs {
    /// The footer key of an encrypted file, in hex (16, 24 or 32 bytes).
    #[arg(long, value_name = "HEX")]
    pub footer_key: Option<String>,
    /// The key of an encrypted column, by dotted leaf path; repeatable.
    #[arg(long, value_name = "NAME=HEX")]
    pub column_key: Vec<String>,
    /// The AAD prefix, when the file does not store it.
    #[arg(long, value_name = "TEXT")]
    pub aad_prefix: Option<String>,
    /// A JSON file of keys: {"footer_key": HEX, "column_keys": {NAME: HEX}, "aad_prefix": TEXT}.
    #[arg(long, value_name = "JSON")]
    pub key_file: Option<PathBuf>,
}

/// Keys to encrypt a Parquet output.
#[derive(Debug, Clone, Default, Args)]
pub struct EncryptArgs {
    /// Encrypt the output: its footer key, in hex (16, 24 or 32 bytes). Without
    /// --encrypt-column-key every column is encrypted with it.
    #[arg(long, value_name = "HEX")]
    pub encrypt_footer_key: Option<String>,
    /// Encrypt this column (a dotted leaf path, or a column covering its leaves) with its
    /// own key, in hex; repeatable. The columns not named stay plaintext.
    #[arg(long, value_name = "NAME=HEX")]
    pub encrypt_column_key: Vec<String>,
    /// The encryption algorithm: AES_GCM_V1 (default) or AES_GCM_CTR_V1.
    #[arg(long, value_name = "NAME")]
    pub encryption_algorithm: Option<String>,
    /// Keep the footer plaintext (signed), readable without keys.
    #[arg(long)]
    pub plaintext_footer: bool,
    /// An AAD prefix for the output, stored in it (--no-store-aad-prefix: readers must give it).
    #[arg(long, value_name = "TEXT")]
    pub encrypt_aad_prefix: Option<String>,
    /// Do not store the AAD prefix in the output.
    #[arg(long)]
    pub no_store_aad_prefix: bool,
    /// A JSON file of the output's keys (as --key-file).
    #[arg(long, value_name = "JSON")]
    pub encrypt_key_file: Option<PathBuf>,
}

fn fail(file: &Path, message: String) -> CliError {
    CliError::message(file, message)
}

fn unhex(text: &str, what: &str, file: &Path) -> Result<Vec<u8>, CliError> {
    let t = text.trim();
    if !t.len().is_multiple_of(2) {
        return Err(fail(file, format!("{what}: {t:?} is not hex (odd length)")));
    }
    (0..t.len())
        .step_by(2)
        .map(|i| {
            t.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| fail(file, format!("{what}: {t:?} is not hex")))
        })
        .collect()
}

/// Keys gathered from the flags and a key file: the footer key, the column keys and the AAD
/// prefix (flags win over the file).
struct Keys {
    footer: Option<Vec<u8>>,
    columns: BTreeMap<String, Vec<u8>>,
    aad_prefix: Option<String>,
}

fn gather(
    footer: Option<&str>,
    columns: &[String],
    aad_prefix: Option<&str>,
    key_file: Option<&Path>,
    file: &Path,
) -> Result<Keys, CliError> {
    let mut keys = Keys {
        footer: None,
        columns: BTreeMap::new(),
        aad_prefix: None,
    };
    if let Some(path) = key_file {
        let text = std::fs::read(path)
            .map_err(|e| fail(file, format!("key file {}: {e}", path.display())))?;
        let bad = |m: &str| fail(file, format!("key file {}: {m}", path.display()));
        let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&text) else {
            return Err(bad("not a JSON object"));
        };
        for (k, v) in &o {
            match (k.as_str(), v) {
                ("footer_key", Value::String(h)) => {
                    keys.footer = Some(unhex(h, "footer_key", file)?);
                }
                ("column_keys", Value::Object(cols)) => {
                    for (name, h) in cols {
                        let Value::String(h) = h else {
                            return Err(bad(&format!("the key of {name:?} is not a hex string")));
                        };
                        keys.columns
                            .insert(name.clone(), unhex(h, &format!("key of {name}"), file)?);
                    }
                }
                ("aad_prefix", Value::String(p)) => keys.aad_prefix = Some(p.clone()),
                (other, _) => {
                    return Err(bad(&format!(
                        "unknown or mistyped entry {other:?} (footer_key, column_keys, \
                         aad_prefix)"
                    )))
                }
            }
        }
    }
    if let Some(h) = footer {
        keys.footer = Some(unhex(h, "footer key", file)?);
    }
    for arg in columns {
        let Some((name, h)) = arg.split_once('=') else {
            return Err(fail(file, format!("column key {arg:?}: expected NAME=HEX")));
        };
        keys.columns
            .insert(name.to_string(), unhex(h, &format!("key of {name}"), file)?);
    }
    if let Some(p) = aad_prefix {
        keys.aad_prefix = Some(p.to_string());
    }
    Ok(keys)
}

impl KeyArgs {
    /// True when any key was given.
    pub fn any(&self) -> bool {
        self.footer_key.is_some()
            || !self.column_key.is_empty()
            || self.aad_prefix.is_some()
            || self.key_file.is_some()
    }

    /// The decryption properties the flags give for `file`; `None` without keys.
    pub fn decryption(
        &self,
        file: &Path,
    ) -> Result<Option<Arc<FileDecryptionProperties>>, CliError> {
        if !self.any() {
            return Ok(None);
        }
        let keys = gather(
            self.footer_key.as_deref(),
            &self.column_key,
            self.aad_prefix.as_deref(),
            self.key_file.as_deref(),
            file,
        )?;
        let wrap = |e| CliError::new(file, e);
        let mut p = match keys.footer {
            Some(k) => FileDecryptionProperties::with_footer_key(k).map_err(wrap)?,
            None => FileDecryptionProperties::default(),
        };
        for (name, key) in keys.columns {
            p = p.column_key(name, key).map_err(wrap)?;
        }
        if let Some(prefix) = keys.aad_prefix {
            p = p.aad_prefix(prefix.into_bytes());
        }
        Ok(Some(Arc::new(p)))
    }
}

impl EncryptArgs {
    /// True when the output is to be encrypted.
    pub fn any(&self) -> bool {
        self.encrypt_footer_key.is_some()
            || !self.encrypt_column_key.is_empty()
            || self.encrypt_key_file.is_some()
            || self.encryption_algorithm.is_some()
            || self.plaintext_footer
            || self.encrypt_aad_prefix.is_some()
            || self.no_store_aad_prefix
    }

    /// The encryption properties the flags give for the output `file`; `None` when it is not
    /// encrypted.
    pub fn encryption(&self, file: &Path) -> Result<Option<FileEncryptionProperties>, CliError> {
        if !self.any() {
            return Ok(None);
        }
        let keys = gather(
            self.encrypt_footer_key.as_deref(),
            &self.encrypt_column_key,
            self.encrypt_aad_prefix.as_deref(),
            self.encrypt_key_file.as_deref(),
            file,
        )?;
        let Some(footer) = keys.footer else {
            return Err(fail(
                file,
                "encrypting needs a footer key (--encrypt-footer-key or the key file's \
                 footer_key)"
                    .to_string(),
            ));
        };
        let wrap = |e| CliError::new(file, e);
        let algorithm: Algorithm = match &self.encryption_algorithm {
            Some(a) => a.parse().map_err(wrap)?,
            None => Algorithm::AesGcmV1,
        };
        let mut p = FileEncryptionProperties::new(footer)
            .map_err(wrap)?
            .algorithm(algorithm)
            .plaintext_footer(self.plaintext_footer);
        for (name, key) in keys.columns {
            let key = ColumnKey {
                key,
                key_metadata: None,
            };
            p = p.column_key(name, key).map_err(wrap)?;
        }
        if let Some(prefix) = keys.aad_prefix {
            p = p.aad_prefix(prefix.into_bytes(), !self.no_store_aad_prefix);
        }
        Ok(Some(p))
    }
}
