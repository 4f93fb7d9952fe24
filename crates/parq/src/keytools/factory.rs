//! [`CryptoFactory`]: encryption and decryption properties from master key ids, as
//! pyarrow's `pyarrow.parquet.encryption.CryptoFactory` and parquet-java's key tools make
//! them: a fresh data key for the footer and for every encrypted column, wrapped by its
//! master key through the KMS (single wrapping) or by a key encryption key that the KMS
//! wraps (double wrapping, the default), the key material stored as each key's metadata.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use base64::Engine;

use super::kms::{
    kms_error, unwrap_locally, wrap_locally, KmsClient, KmsClientFactory, KmsConnectionConfig,
    DEFAULT_KMS,
};
use super::material::{parse_external_file, KeyMaterial, KeyMetadata};
use crate::format::crypto::cipher::random_bytes;
use crate::format::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileEncryptionProperties, KeyRetriever,
};
use crate::{Error, ErrorKind, Result};

/// How to encrypt a file (pyarrow's `EncryptionConfiguration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptionConfiguration {
    /// The master key id of the footer key.
    pub footer_key: String,
    /// Master key id -> the columns encrypted with a data key it wraps (top-level names
    /// covering their leaves, or dotted leaf paths); the other columns stay plaintext.
    pub column_keys: BTreeMap<String, Vec<String>>,
    /// Every column under the footer key (no `column_keys`).
    pub uniform_encryption: bool,
    /// The algorithm.
    pub encryption_algorithm: Algorithm,
    /// Keep the footer plaintext (signed).
    pub plaintext_footer: bool,
    /// Wrap data keys with key encryption keys that the KMS wraps (default true).
    pub double_wrapping: bool,
    /// Store the key material in the file (default true; parq does not write external key
    /// material files).
    pub internal_key_material: bool,
    /// The data key length: 128, 192 or 256 bits.
    pub data_key_length_bits: u32,
}

impl EncryptionConfiguration {
    /// A configuration with pyarrow's defaults and footer master key `footer_key`.
    pub fn new(footer_key: impl Into<String>) -> Self {
        EncryptionConfiguration {
            footer_key: footer_key.into(),
            column_keys: BTreeMap::new(),
            uniform_encryption: false,
            encryption_algorithm: Algorithm::AesGcmV1,
            plaintext_footer: false,
            double_wrapping: true,
            internal_key_material: true,
            data_key_length_bits: 128,
        }
    }
}

/// How to decrypt files (pyarrow's `DecryptionConfiguration`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecryptionConfiguration {
    /// Where the file lies, for the external key material parquet-java may write beside it
    /// (`_KEY_MATERIAL_FOR_<name>.json` in its directory).
    pub file_path: Option<PathBuf>,
}

/// Makes encryption and decryption properties through a KMS.
#[derive(Clone)]
pub struct CryptoFactory {
    kms: KmsClientFactory,
}

impl std::fmt::Debug for CryptoFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CryptoFactory")
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidArgument(message.into()))
}

fn fresh_key(bytes: usize) -> Result<Vec<u8>> {
    let mut k = vec![0u8; bytes];
    random_bytes(&mut k)?;
    Ok(k)
}

/// Wraps the data keys of one file: with double wrapping, one key encryption key per master
/// key, wrapped by the KMS once.
struct Wrapper<'a> {
    kms: &'a dyn KmsClient,
    double: bool,
    /// Master key id -> (KEK, its id in base64, the KEK wrapped).
    keks: HashMap<String, (Vec<u8>, Vec<u8>, String)>,
}

impl Wrapper<'_> {
    fn material(
        &mut self,
        dek: &[u8],
        master: &str,
        footer: Option<&KmsConnectionConfig>,
    ) -> Result<KeyMaterial> {
        let (wrapped_dek, kek_id, wrapped_kek) = if self.double {
            if !self.keks.contains_key(master) {
                let kek = fresh_key(16)?;
                let id = fresh_key(16)?;
                let wrapped = self
                    .kms
                    .wrap_key(&kek, master)
                    .map_err(|e| kms_error(&format!("the KMS does not wrap with {master:?}"), e))?;
                self.keks.insert(master.to_string(), (kek, id, wrapped));
            }
            let (kek, id, wrapped) = &self.keks[master];
            let b64 = base64::engine::general_purpose::STANDARD.encode(id);
            (
                wrap_locally(dek, kek, id)?,
                Some(b64),
                Some(wrapped.clone()),
            )
        } else {
            let w = self
                .kms
                .wrap_key(dek, master)
                .map_err(|e| kms_error(&format!("the KMS does not wrap with {master:?}"), e))?;
            (w, None, None)
        };
        Ok(KeyMaterial {
            is_footer_key: footer.is_some(),
            kms_instance_id: footer.map(|c| c.kms_instance_id.clone()),
            kms_instance_url: footer.map(|c| c.kms_instance_url.clone()),
            master_key_id: master.to_string(),
            wrapped_dek,
            double_wrapping: self.double,
            kek_id,
            wrapped_kek,
        })
    }
}

impl CryptoFactory {
    /// A factory whose KMS clients `kms` makes.
    pub fn new(kms: KmsClientFactory) -> Self {
        CryptoFactory { kms }
    }

    fn client(&self, config: &KmsConnectionConfig) -> Result<Arc<dyn KmsClient>> {
        (self.kms)(config).map_err(|e| kms_error("the KMS client could not be made", e))
    }

    /// The encryption properties of one file written with `config`: fresh data keys wrapped
    /// through the KMS of `kms`, their key material stored in the file.
    pub fn file_encryption_properties(
        &self,
        kms: &KmsConnectionConfig,
        config: &EncryptionConfiguration,
    ) -> Result<FileEncryptionProperties> {
        let key_bytes = match config.data_key_length_bits {
            128 => 16,
            192 => 24,
            256 => 32,
            n => {
                return Err(invalid(format!(
                    "data_key_length_bits {n}: 128, 192 or 256"
                )))
            }
        };
        if !config.internal_key_material {
            return Err(Error::new(ErrorKind::Unsupported(
                "external key material (internal_key_material=False): parq reads the files \
                 parquet-java writes, and writes the key material into the file"
                    .into(),
            )));
        }
        if config.uniform_encryption && !config.column_keys.is_empty() {
            return Err(invalid(
                "uniform_encryption and column_keys cannot be used together",
            ));
        }
        if !config.uniform_encryption && config.column_keys.is_empty() {
            return Err(invalid(
                "either column_keys or uniform_encryption must be set",
            ));
        }
        let client = self.client(kms)?;
        let mut wrapper = Wrapper {
            kms: client.as_ref(),
            double: config.double_wrapping,
            keks: HashMap::new(),
        };
        let footer_dek = fresh_key(key_bytes)?;
        let footer_material = wrapper.material(&footer_dek, &config.footer_key, Some(kms))?;
        let mut props = FileEncryptionProperties::new(footer_dek)?
            .footer_key_metadata(footer_material.to_json().into_bytes())
            .algorithm(config.encryption_algorithm)
            .plaintext_footer(config.plaintext_footer);
        let mut seen = std::collections::HashSet::new();
        for (master, columns) in &config.column_keys {
            for column in columns {
                if !seen.insert(column.as_str()) {
                    return Err(invalid(format!(
                        "column {column:?} is given more than one master key"
                    )));
                }
                let dek = fresh_key(key_bytes)?;
                let material = wrapper.material(&dek, master, None)?;
                let key = ColumnKey {
                    key: dek,
                    key_metadata: Some(material.to_json().into_bytes()),
                };
                props = props.column_key(column.clone(), key)?;
            }
        }
        Ok(props)
    }

    /// The decryption properties of files written with key material: each key found by
    /// unwrapping its material through the KMS of `kms` when a read needs it (so a KMS that
    /// refuses a column's master key leaves the other columns readable).
    pub fn file_decryption_properties(
        &self,
        kms: &KmsConnectionConfig,
        config: &DecryptionConfiguration,
    ) -> Result<FileDecryptionProperties> {
        let retriever = KmsKeyRetriever {
            factory: self.clone(),
            config: kms.clone(),
            file_path: config.file_path.clone(),
            state: Arc::new(Mutex::new(RetrieverState::default())),
        };
        Ok(FileDecryptionProperties::with_key_retriever(Arc::new(
            retriever,
        )))
    }
}

#[derive(Default)]
struct RetrieverState {
    client: Option<Arc<dyn KmsClient>>,
    /// KEK id (base64) -> the KEK unwrapped.
    keks: HashMap<String, Vec<u8>>,
    /// The external key material file's entries, once read.
    external: Option<HashMap<String, KeyMaterial>>,
}

/// Finds keys by their key material, through the KMS.
#[derive(Clone)]
struct KmsKeyRetriever {
    factory: CryptoFactory,
    config: KmsConnectionConfig,
    file_path: Option<PathBuf>,
    state: Arc<Mutex<RetrieverState>>,
}

impl KmsKeyRetriever {
    fn material(&self, state: &mut RetrieverState, key_metadata: &[u8]) -> Result<KeyMaterial> {
        match KeyMetadata::parse(key_metadata)? {
            KeyMetadata::Internal(m) => Ok(m),
            KeyMetadata::External { reference } => {
                if state.external.is_none() {
                    state.external = Some(self.read_external()?);
                }
                state
                    .external
                    .as_ref()
                    .and_then(|e| e.get(&reference))
                    .cloned()
                    .ok_or_else(|| {
                        kms_error(
                            "external key material",
                            format!("no entry {reference:?} in the key material file"),
                        )
                    })
            }
        }
    }

    fn read_external(&self) -> Result<HashMap<String, KeyMaterial>> {
        let Some(path) = &self.file_path else {
            return Err(kms_error(
                "the key material is in an external file",
                "the file's path was not given (DecryptionConfiguration::file_path)",
            ));
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let side = path.with_file_name(format!("_KEY_MATERIAL_FOR_{name}.json"));
        let bytes = std::fs::read(&side)
            .map_err(|e| kms_error(&format!("reading {}", side.display()), e))?;
        Ok(parse_external_file(&bytes)?.into_iter().collect())
    }

    fn key(&self, key_metadata: &[u8]) -> Result<Vec<u8>> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| Error::new(ErrorKind::Internal("a key retriever's lock".into())))?;
        let m = self.material(&mut state, key_metadata)?;
        if state.client.is_none() {
            let mut config = self.config.clone();
            if m.is_footer_key {
                if config.kms_instance_id == DEFAULT_KMS {
                    if let Some(id) = &m.kms_instance_id {
                        config.kms_instance_id = id.clone();
                    }
                }
                if config.kms_instance_url == DEFAULT_KMS {
                    if let Some(url) = &m.kms_instance_url {
                        config.kms_instance_url = url.clone();
                    }
                }
            }
            state.client = Some(self.factory.client(&config)?);
        }
        let Some(client) = state.client.clone() else {
            return Err(Error::new(ErrorKind::Internal("no KMS client".into())));
        };
        let master = &m.master_key_id;
        let refuse = |e: String| kms_error(&format!("the KMS does not unwrap with {master:?}"), e);
        if !m.double_wrapping {
            return client.unwrap_key(&m.wrapped_dek, master).map_err(refuse);
        }
        let (Some(id), Some(wrapped_kek)) = (&m.kek_id, &m.wrapped_kek) else {
            return Err(kms_error("key material", "double wrapping without a KEK"));
        };
        let kek = match state.keks.get(id) {
            Some(k) => k.clone(),
            None => {
                let k = client.unwrap_key(wrapped_kek, master).map_err(refuse)?;
                state.keks.insert(id.clone(), k.clone());
                k
            }
        };
        let raw_id = base64::engine::general_purpose::STANDARD
            .decode(id)
            .map_err(|e| kms_error("a key encryption key id that is not base64", e))?;
        unwrap_locally(&m.wrapped_dek, &kek, &raw_id)
    }
}

impl KeyRetriever for KmsKeyRetriever {
    fn retrieve_key(&self, key_metadata: &[u8]) -> std::result::Result<Vec<u8>, String> {
        self.key(key_metadata).map_err(|e| e.to_string())
    }

    fn for_file(&self, path: &std::path::Path) -> Option<Arc<dyn KeyRetriever>> {
        // The KMS client and the KEKs unwrapped are shared; the external key material is the
        // file's own.
        let state = self.state.lock().ok()?;
        let fresh = RetrieverState {
            client: state.client.clone(),
            keks: state.keks.clone(),
            external: None,
        };
        Some(Arc::new(KmsKeyRetriever {
            file_path: Some(path.to_path_buf()),
            state: Arc::new(Mutex::new(fresh)),
            ..self.clone()
        }))
    }
}
