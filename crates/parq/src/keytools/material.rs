//! The key material of the Parquet key management tools (`PKMT1`), as pyarrow and
//! parquet-java write it: a JSON object saying which master key wraps a data key, how (single
//! or double wrapping) and with which KMS; stored as a footer's or column's key metadata
//! (internal storage), or in a side file that the key metadata refers to (external storage,
//! written by parquet-java).

use serde_json::{Map, Value};

use crate::{Error, ErrorKind, Result};

/// The key material type these tools read and write.
pub const KEY_MATERIAL_TYPE: &str = "PKMT1";

/// The key material of one data key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMaterial {
    /// The footer's key (its material names the KMS).
    pub is_footer_key: bool,
    /// The KMS instance (footer key material only).
    pub kms_instance_id: Option<String>,
    /// The KMS instance URL (footer key material only).
    pub kms_instance_url: Option<String>,
    /// The master key that wraps the data key (or its key encryption key).
    pub master_key_id: String,
    /// The data key, wrapped: by the KMS (single wrapping), or by the key encryption key as
    /// base64 of nonce, AES-GCM ciphertext and tag (double wrapping).
    pub wrapped_dek: String,
    /// Double wrapping: the data key wrapped locally by a key encryption key (KEK) that the
    /// KMS wraps.
    pub double_wrapping: bool,
    /// The KEK's id, base64 (double wrapping).
    pub kek_id: Option<String>,
    /// The KEK wrapped by the KMS (double wrapping).
    pub wrapped_kek: Option<String>,
}

/// What a footer's or column's key metadata holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMetadata {
    /// The key material itself.
    Internal(KeyMaterial),
    /// A reference to key material in the file's external key material file.
    External {
        /// The entry's name in that file (`footerKey`, `columnKey0`, ...).
        reference: String,
    },
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::MissingKey(format!(
        "key material: {}",
        message.into()
    )))
}

fn string(o: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(format!("`{key}` is {other}, not a string"))),
    }
}

fn flag(o: &Map<String, Value>, key: &str) -> Result<Option<bool>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(invalid(format!("`{key}` is {other}, not a boolean"))),
    }
}

fn object(json: &[u8]) -> Result<Map<String, Value>> {
    match serde_json::from_slice::<Value>(json) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(invalid("not a JSON object")),
        Err(e) => Err(invalid(format!("not JSON: {e}"))),
    }
}

fn check_type(o: &Map<String, Value>) -> Result<()> {
    match string(o, "keyMaterialType")?.as_deref() {
        Some(KEY_MATERIAL_TYPE) => Ok(()),
        Some(t) => Err(invalid(format!("type {t:?}, not {KEY_MATERIAL_TYPE}"))),
        None => Err(invalid("no keyMaterialType")),
    }
}

impl KeyMaterial {
    /// Parses key material (a JSON object).
    pub fn parse(json: &[u8]) -> Result<KeyMaterial> {
        let o = object(json)?;
        check_type(&o)?;
        let required = |key: &str| string(&o, key)?.ok_or_else(|| invalid(format!("no `{key}`")));
        let double_wrapping = flag(&o, "doubleWrapping")?.unwrap_or(false);
        let m = KeyMaterial {
            is_footer_key: flag(&o, "isFooterKey")?.unwrap_or(false),
            kms_instance_id: string(&o, "kmsInstanceID")?,
            kms_instance_url: string(&o, "kmsInstanceURL")?,
            master_key_id: required("masterKeyID")?,
            wrapped_dek: required("wrappedDEK")?,
            double_wrapping,
            kek_id: string(&o, "keyEncryptionKeyID")?,
            wrapped_kek: string(&o, "wrappedKEK")?,
        };
        if double_wrapping && (m.kek_id.is_none() || m.wrapped_kek.is_none()) {
            return Err(invalid(
                "double wrapping without keyEncryptionKeyID and wrappedKEK",
            ));
        }
        Ok(m)
    }

    /// The material as pyarrow writes it for internal storage (its fields in pyarrow's
    /// order, compact).
    pub fn to_json(&self) -> String {
        self.json(true)
    }

    /// The material as an external key material file holds it (no `internalStorage`).
    pub fn to_external_json(&self) -> String {
        self.json(false)
    }

    fn json(&self, internal: bool) -> String {
        let q = |s: &str| Value::String(s.to_string()).to_string();
        let mut out = format!("{{\"keyMaterialType\":{}", q(KEY_MATERIAL_TYPE));
        if internal {
            out.push_str(",\"internalStorage\":true");
        }
        out.push_str(&format!(",\"isFooterKey\":{}", self.is_footer_key));
        if self.is_footer_key {
            let id = self.kms_instance_id.as_deref().unwrap_or("DEFAULT");
            let url = self.kms_instance_url.as_deref().unwrap_or("DEFAULT");
            out.push_str(&format!(
                ",\"kmsInstanceID\":{},\"kmsInstanceURL\":{}",
                q(id),
                q(url)
            ));
        }
        out.push_str(&format!(
            ",\"masterKeyID\":{},\"wrappedDEK\":{},\"doubleWrapping\":{}",
            q(&self.master_key_id),
            q(&self.wrapped_dek),
            self.double_wrapping
        ));
        if let (true, Some(id), Some(kek)) = (self.double_wrapping, &self.kek_id, &self.wrapped_kek)
        {
            out.push_str(&format!(
                ",\"keyEncryptionKeyID\":{},\"wrappedKEK\":{}",
                q(id),
                q(kek)
            ));
        }
        out.push('}');
        out
    }
}

impl KeyMetadata {
    /// Parses a footer's or column's key metadata.
    pub fn parse(bytes: &[u8]) -> Result<KeyMetadata> {
        let o = object(bytes)?;
        check_type(&o)?;
        if flag(&o, "internalStorage")?.unwrap_or(true) {
            return KeyMaterial::parse(bytes).map(KeyMetadata::Internal);
        }
        let reference = string(&o, "keyReference")?
            .ok_or_else(|| invalid("external key material without a keyReference"))?;
        Ok(KeyMetadata::External { reference })
    }
}

/// The entries of an external key material file (`_KEY_MATERIAL_FOR_<file>.json`): each
/// reference with its key material (stored as a JSON string).
pub fn parse_external_file(json: &[u8]) -> Result<Vec<(String, KeyMaterial)>> {
    let o = object(json)?;
    o.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), KeyMaterial::parse(s.as_bytes())?)),
            Value::Object(_) => Ok((k.clone(), KeyMaterial::parse(v.to_string().as_bytes())?)),
            other => Err(invalid(format!("entry {k:?} is {other}"))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyarrow_material_round_trips_byte_for_byte() {
        // As pyarrow 26 writes them (DuckDB's test files).
        let footer = r#"{"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":true,"kmsInstanceID":"DEFAULT","kmsInstanceURL":"DEFAULT","masterKeyID":"footer_key","wrappedDEK":"YcOZ","doubleWrapping":true,"keyEncryptionKeyID":"kHti","wrappedKEK":"MDEy"}"#;
        let column = r#"{"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":false,"masterKeyID":"col_key","wrappedDEK":"MTIz","doubleWrapping":false}"#;
        for json in [footer, column] {
            let m = KeyMaterial::parse(json.as_bytes()).unwrap();
            assert_eq!(m.to_json(), json);
        }
        let m = KeyMetadata::parse(
            br#"{"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"footerKey"}"#,
        )
        .unwrap();
        assert_eq!(
            m,
            KeyMetadata::External {
                reference: "footerKey".into()
            }
        );
        assert!(KeyMaterial::parse(b"kf").is_err());
        assert!(KeyMaterial::parse(br#"{"keyMaterialType":"X"}"#).is_err());
    }
}
