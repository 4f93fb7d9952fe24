//! Encryption from Python: explicit keys ([`FileDecryptionProperties`],
//! [`FileEncryptionProperties`]) and the key tools through KMS clients written in Python
//! (pyarrow's `KmsClient` classes work as they are: any object with `wrap_key(key_bytes,
//! master_key_identifier)` and `unwrap_key(wrapped_key, master_key_identifier)`). The Python
//! side of `parq.encryption` (its `CryptoFactory` and configurations) calls
//! [`kms_encryption_properties`] and [`kms_decryption_properties`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use parq::format::crypto::{self as crypto, Algorithm, ColumnKey};
use parq::keytools::{
    CryptoFactory, DecryptionConfiguration, EncryptionConfiguration, KmsClient, KmsConnectionConfig,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::error;

/// Keys to read an encrypted file: the footer key, column keys by dotted leaf path, the AAD
/// prefix when the file does not store it (or key-tool properties from
/// `CryptoFactory.file_decryption_properties`).
#[pyclass(module = "parq.encryption", name = "FileDecryptionProperties", frozen)]
pub(crate) struct PyFileDecryptionProperties {
    pub(crate) inner: Arc<crypto::FileDecryptionProperties>,
}

#[pymethods]
impl PyFileDecryptionProperties {
    #[new]
    #[pyo3(signature = (footer_key, column_keys=None, aad_prefix=None))]
    fn new(
        footer_key: Vec<u8>,
        column_keys: Option<HashMap<String, Vec<u8>>>,
        aad_prefix: Option<Vec<u8>>,
    ) -> PyResult<Self> {
        let mut p = crypto::FileDecryptionProperties::with_footer_key(footer_key).map_err(error)?;
        for (path, key) in column_keys.unwrap_or_default() {
            p = p.column_key(path, key).map_err(error)?;
        }
        if let Some(prefix) = aad_prefix {
            p = p.aad_prefix(prefix);
        }
        Ok(PyFileDecryptionProperties { inner: Arc::new(p) })
    }

    fn __repr__(&self) -> String {
        format!("<parq.encryption.{:?}>", self.inner)
    }
}

/// How to encrypt a file: the footer key, column keys by dotted leaf path (`None`: every
/// column under the footer key; a dict: those columns under their keys, the rest
/// plaintext), the algorithm, a plaintext (signed) footer, the AAD prefix and whether the
/// file stores it.
#[pyclass(module = "parq.encryption", name = "FileEncryptionProperties", frozen)]
pub(crate) struct PyFileEncryptionProperties {
    pub(crate) inner: crypto::FileEncryptionProperties,
}

fn algorithm(name: &str) -> PyResult<Algorithm> {
    name.parse().map_err(error)
}

#[pymethods]
impl PyFileEncryptionProperties {
    #[new]
    #[pyo3(signature = (footer_key, column_keys=None, algorithm="AES_GCM_V1", plaintext_footer=false, aad_prefix=None, store_aad_prefix=true))]
    fn new(
        footer_key: Vec<u8>,
        column_keys: Option<HashMap<String, Vec<u8>>>,
        algorithm: &str,
        plaintext_footer: bool,
        aad_prefix: Option<Vec<u8>>,
        store_aad_prefix: bool,
    ) -> PyResult<Self> {
        let mut p = crypto::FileEncryptionProperties::new(footer_key)
            .map_err(error)?
            .algorithm(self::algorithm(algorithm)?)
            .plaintext_footer(plaintext_footer);
        for (path, key) in column_keys.unwrap_or_default() {
            let key = ColumnKey {
                key,
                key_metadata: None,
            };
            p = p.column_key(path, key).map_err(error)?;
        }
        if let Some(prefix) = aad_prefix {
            p = p.aad_prefix(prefix, store_aad_prefix);
        }
        Ok(PyFileEncryptionProperties { inner: p })
    }

    fn __repr__(&self) -> String {
        format!("<parq.encryption.{:?}>", self.inner)
    }
}

/// A KMS client written in Python.
struct PyKms(Py<PyAny>);

impl KmsClient for PyKms {
    fn wrap_key(&self, key: &[u8], master_key_id: &str) -> Result<String, String> {
        Python::attach(|py| {
            let r = self
                .0
                .bind(py)
                .call_method1("wrap_key", (PyBytes::new(py, key), master_key_id))
                .map_err(|e| e.to_string())?;
            if let Ok(s) = r.cast::<PyString>() {
                return Ok(s.to_string());
            }
            match r.cast::<PyBytes>() {
                Ok(b) => String::from_utf8(b.as_bytes().to_vec())
                    .map_err(|_| "wrap_key returned bytes that are not text".to_string()),
                Err(_) => Err("wrap_key returned neither str nor bytes".to_string()),
            }
        })
    }

    fn unwrap_key(&self, wrapped: &str, master_key_id: &str) -> Result<Vec<u8>, String> {
        Python::attach(|py| {
            let r = self
                .0
                .bind(py)
                .call_method1("unwrap_key", (wrapped, master_key_id))
                .map_err(|e| e.to_string())?;
            match r.cast::<PyBytes>() {
                Ok(b) => Ok(b.as_bytes().to_vec()),
                Err(_) => r
                    .extract::<Vec<u8>>()
                    .map_err(|_| "unwrap_key returned no bytes".to_string()),
            }
        })
    }
}

/// A crypto factory whose KMS clients `make_client(kms_instance_id, kms_instance_url,
/// key_access_token, custom_kms_conf)` makes (the Python factory, given pyarrow's
/// `KmsConnectionConfig`).
fn factory(make_client: Py<PyAny>) -> CryptoFactory {
    let make = Arc::new(make_client);
    CryptoFactory::new(Arc::new(move |c: &KmsConnectionConfig| {
        Python::attach(|py| {
            let conf = PyDict::new(py);
            for (k, v) in &c.custom_kms_conf {
                conf.set_item(k, v).map_err(|e| e.to_string())?;
            }
            let client = make
                .bind(py)
                .call1((
                    c.kms_instance_id.as_str(),
                    c.kms_instance_url.as_str(),
                    c.key_access_token.as_str(),
                    conf,
                ))
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(PyKms(client.unbind())) as Arc<dyn KmsClient>)
        })
    }))
}

fn connection(
    kms_instance_id: String,
    kms_instance_url: String,
    key_access_token: String,
    custom_kms_conf: BTreeMap<String, String>,
) -> KmsConnectionConfig {
    KmsConnectionConfig {
        kms_instance_id,
        kms_instance_url,
        key_access_token,
        custom_kms_conf,
    }
}

/// `CryptoFactory.file_encryption_properties`: data keys made and wrapped through the KMS
/// client, as pyarrow's key tools do.
#[pyfunction]
#[pyo3(signature = (make_client, kms_instance_id, kms_instance_url, key_access_token, custom_kms_conf, footer_key, column_keys, uniform_encryption, encryption_algorithm, plaintext_footer, double_wrapping, internal_key_material, data_key_length_bits))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn kms_encryption_properties(
    py: Python<'_>,
    make_client: Py<PyAny>,
    kms_instance_id: String,
    kms_instance_url: String,
    key_access_token: String,
    custom_kms_conf: BTreeMap<String, String>,
    footer_key: String,
    column_keys: BTreeMap<String, Vec<String>>,
    uniform_encryption: bool,
    encryption_algorithm: &str,
    plaintext_footer: bool,
    double_wrapping: bool,
    internal_key_material: bool,
    data_key_length_bits: u32,
) -> PyResult<PyFileEncryptionProperties> {
    let config = EncryptionConfiguration {
        footer_key,
        column_keys,
        uniform_encryption,
        encryption_algorithm: algorithm(encryption_algorithm)?,
        plaintext_footer,
        double_wrapping,
        internal_key_material,
        data_key_length_bits,
    };
    let kms = connection(
        kms_instance_id,
        kms_instance_url,
        key_access_token,
        custom_kms_conf,
    );
    let f = factory(make_client);
    let inner = py
        .detach(|| f.file_encryption_properties(&kms, &config))
        .map_err(error)?;
    Ok(PyFileEncryptionProperties { inner })
}

/// `CryptoFactory.file_decryption_properties`: keys found through the KMS client when a
/// read needs them; `file_path` locates external key material.
#[pyfunction]
#[pyo3(signature = (make_client, kms_instance_id, kms_instance_url, key_access_token, custom_kms_conf, file_path=None))]
pub(crate) fn kms_decryption_properties(
    make_client: Py<PyAny>,
    kms_instance_id: String,
    kms_instance_url: String,
    key_access_token: String,
    custom_kms_conf: BTreeMap<String, String>,
    file_path: Option<std::path::PathBuf>,
) -> PyResult<PyFileDecryptionProperties> {
    let kms = connection(
        kms_instance_id,
        kms_instance_url,
        key_access_token,
        custom_kms_conf,
    );
    let inner = factory(make_client)
        .file_decryption_properties(&kms, &DecryptionConfiguration { file_path })
        .map_err(error)?;
    Ok(PyFileDecryptionProperties {
        inner: Arc::new(inner),
    })
}
