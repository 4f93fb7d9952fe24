//! Envelope encryption through a KMS (`parq::keytools`): the encrypted files of DuckDB's test
//! data (written by pyarrow with its test KMS) and parquet-java's file with external key
//! material (`parquet-testing`) read with the same KMS clients; files parq writes through the
//! key tools in every wrapping read back, their key material shaped as pyarrow writes it; a
//! KMS that refuses one column's master key leaves the other columns readable.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use base64::Engine;
use bytes::Bytes;
use parq::format::crypto::{Algorithm, FileDecryptionProperties, KeyCipher, ModuleId};
use parq::format::footer::DecodeOptions;
use parq::keytools::{
    CryptoFactory, DecryptionConfiguration, EncryptionConfiguration, KeyMaterial, KmsClient,
    KmsConnectionConfig,
};
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterProperties};
use parq::ErrorKind;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// pyarrow's test KMS: a wrapped key is base64 of the master key followed by the key.
struct ConcatKms {
    masters: BTreeMap<String, Vec<u8>>,
    unwrapped: Mutex<Vec<String>>,
}

impl KmsClient for ConcatKms {
    fn wrap_key(&self, key: &[u8], master: &str) -> Result<String, String> {
        let m = self
            .masters
            .get(master)
            .ok_or(format!("no master key {master}"))?;
        Ok(B64.encode([m.as_slice(), key].concat()))
    }
    fn unwrap_key(&self, wrapped: &str, master: &str) -> Result<Vec<u8>, String> {
        self.unwrapped.lock().unwrap().push(master.to_string());
        let m = self
            .masters
            .get(master)
            .ok_or(format!("master key {master} refused"))?;
        let raw = B64.decode(wrapped).map_err(|e| e.to_string())?;
        match raw.strip_prefix(m.as_slice()) {
            Some(k) => Ok(k.to_vec()),
            None => Err("wrapped with another master key".into()),
        }
    }
}

/// parquet-java's InMemoryKMS (and parquet-cpp's TestOnlyInServerWrapKms): AES-GCM with the
/// master key, the master key id as AAD, base64 of nonce, ciphertext and tag.
struct GcmKms {
    masters: BTreeMap<String, Vec<u8>>,
}

impl KmsClient for GcmKms {
    fn wrap_key(&self, key: &[u8], master: &str) -> Result<String, String> {
        let m = self
            .masters
            .get(master)
            .ok_or(format!("no master key {master}"))?;
        let mut module = Vec::new();
        KeyCipher::new(m)
            .and_then(|c| c.encrypt_gcm(key, master.as_bytes(), &mut module))
            .map_err(|e| e.to_string())?;
        Ok(B64.encode(&module[4..]))
    }
    fn unwrap_key(&self, wrapped: &str, master: &str) -> Result<Vec<u8>, String> {
        let m = self
            .masters
            .get(master)
            .ok_or(format!("no master key {master}"))?;
        let raw = B64.decode(wrapped).map_err(|e| e.to_string())?;
        let mut module = (raw.len() as u32).to_le_bytes().to_vec();
        module.extend_from_slice(&raw);
        let mut key = Vec::new();
        KeyCipher::new(m)
            .and_then(|c| c.decrypt_gcm(&module, master.as_bytes(), &ModuleId::FOOTER, &mut key))
            .map_err(|e| e.to_string())?;
        Ok(key)
    }
}

fn masters(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect()
}

fn concat_factory(pairs: &[(&str, &str)]) -> (CryptoFactory, Arc<ConcatKms>) {
    let kms = Arc::new(ConcatKms {
        masters: masters(pairs),
        unwrapped: Mutex::new(Vec::new()),
    });
    let k = kms.clone();
    (
        CryptoFactory::new(Arc::new(move |_: &KmsConnectionConfig| {
            Ok(k.clone() as Arc<dyn KmsClient>)
        })),
        kms,
    )
}

fn read_all(path: &Path, keys: FileDecryptionProperties) -> parq::Result<Vec<RecordBatch>> {
    ParquetReader::open_encrypted(path, Arc::new(keys))?.read_all()
}

fn duckdb(name: &str) -> PathBuf {
    common::testdata()
        .join("real-world/duckdb__duckdb")
        .join(format!("data__parquet-testing__{name}"))
}

#[test]
fn duckdb_test_files_written_by_pyarrow_read_with_its_test_kms() {
    let (factory, _) = concat_factory(&[
        ("footer_key", "0123456789112345"),
        ("col_key", "1234567890123450"),
    ]);
    for name in [
        "encryption__encrypted_column.parquet",
        "encryption__encrypted_footer.parquet",
    ] {
        let keys = factory
            .file_decryption_properties(
                &KmsConnectionConfig::default(),
                &DecryptionConfiguration::default(),
            )
            .unwrap();
        let batches = read_all(&duckdb(name), keys).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            batches.iter().map(RecordBatch::num_rows).sum::<usize>() > 0,
            "{name}"
        );
    }
}

#[test]
fn parquet_java_external_key_material_reads() {
    let kms = Arc::new(GcmKms {
        masters: masters(&[
            ("kf", "0123456789012345"),
            ("kc1", "1234567890123450"),
            ("kc2", "1234567890123451"),
        ]),
    });
    let factory = CryptoFactory::new(Arc::new(move |_: &KmsConnectionConfig| {
        Ok(kms.clone() as Arc<dyn KmsClient>)
    }));
    let path = common::testdata()
        .join("parquet-testing/data/external_key_material_java.parquet.encrypted");
    let config = DecryptionConfiguration {
        file_path: Some(path.clone()),
    };
    let keys = factory
        .file_decryption_properties(&KmsConnectionConfig::default(), &config)
        .unwrap();
    let batches = read_all(&path, keys).unwrap();
    assert!(batches.iter().map(RecordBatch::num_rows).sum::<usize>() > 0);
    // A read of the path finds the material itself.
    let keys = kms_keys(&factory);
    assert_eq!(read_all(&path, keys.clone()).unwrap(), batches);
    // Bytes without a path: the external material cannot be found, a clear error.
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    let e = ParquetReader::from_source_with(
        Arc::new(bytes),
        DecodeOptions {
            decryption: Some(Arc::new(keys)),
            ..Default::default()
        },
    )
    .and_then(|r| r.read_all())
    .unwrap_err();
    assert!(e.to_string().contains("external"), "{e}");
}

fn table() -> RecordBatch {
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("secret", DataType::Utf8, true),
        Field::new("salary", DataType::Int64, true),
    ]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new((0..500i64).collect::<Int64Array>()),
            Arc::new(
                (0..500)
                    .map(|i| Some(format!("s{i}")))
                    .collect::<StringArray>(),
            ),
            Arc::new((0..500i64).map(|i| Some(i * 10)).collect::<Int64Array>()),
        ],
    )
    .unwrap()
}

fn write(props: WriterProperties) -> Bytes {
    let batch = table();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// Decryption properties through `factory`'s KMS.
fn kms_keys(factory: &CryptoFactory) -> FileDecryptionProperties {
    factory
        .file_decryption_properties(
            &KmsConnectionConfig::default(),
            &DecryptionConfiguration::default(),
        )
        .unwrap()
}

/// A reader of the file `file` with `keys`.
fn reader_of(file: Bytes, keys: FileDecryptionProperties) -> ParquetReader {
    ParquetReader::from_source_with(
        Arc::new(file),
        DecodeOptions {
            decryption: Some(Arc::new(keys)),
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn key_tools_round_trip_in_every_wrapping() {
    let (factory, kms) = concat_factory(&[
        ("footer_key", "0123456789112345"),
        ("col_key", "1234567890123450"),
        ("hr_key", "1234567890123451"),
    ]);
    for (double, plaintext, bits, algorithm) in [
        (true, false, 128, Algorithm::AesGcmV1),
        (false, false, 256, Algorithm::AesGcmV1),
        (true, true, 192, Algorithm::AesGcmCtrV1),
        (false, true, 128, Algorithm::AesGcmCtrV1),
    ] {
        let mut config = EncryptionConfiguration::new("footer_key");
        config
            .column_keys
            .insert("col_key".into(), vec!["secret".into()]);
        config
            .column_keys
            .insert("hr_key".into(), vec!["salary".into()]);
        config.double_wrapping = double;
        config.plaintext_footer = plaintext;
        config.data_key_length_bits = bits;
        config.encryption_algorithm = algorithm;
        let props = factory
            .file_encryption_properties(&KmsConnectionConfig::default(), &config)
            .unwrap();
        // The footer's key material as pyarrow writes it.
        let m = KeyMaterial::parse(props.footer_key_metadata_bytes().unwrap()).unwrap();
        assert!(m.is_footer_key && m.double_wrapping == double);
        assert_eq!(
            m.to_json().as_bytes(),
            props.footer_key_metadata_bytes().unwrap()
        );
        assert_eq!(props.footer_key_bytes().len() * 8, bits as usize);
        let file = write(
            WriterProperties::builder()
                .encryption(props)
                .build()
                .unwrap(),
        );
        let keys = factory
            .file_decryption_properties(
                &KmsConnectionConfig::default(),
                &DecryptionConfiguration::default(),
            )
            .unwrap();
        let r = ParquetReader::from_source_with(
            Arc::new(file.clone()),
            DecodeOptions {
                decryption: Some(Arc::new(keys)),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            r.read_batch().unwrap(),
            table(),
            "double {double} bits {bits}"
        );
    }
    // Double wrapping asks the KMS for each master key's KEK once per file.
    kms.unwrapped.lock().unwrap().clear();
    let mut config = EncryptionConfiguration::new("footer_key");
    config
        .column_keys
        .insert("col_key".into(), vec!["secret".into(), "salary".into()]);
    let props = factory
        .file_encryption_properties(&KmsConnectionConfig::default(), &config)
        .unwrap();
    let file = write(
        WriterProperties::builder()
            .encryption(props)
            .build()
            .unwrap(),
    );
    let keys = kms_keys(&factory);
    let r = reader_of(file, keys);
    r.read_batch().unwrap();
    let mut asked = kms.unwrapped.lock().unwrap().clone();
    asked.sort();
    assert_eq!(asked, ["col_key", "footer_key"]);
}

#[test]
fn a_refused_master_key_leaves_other_columns_readable() {
    let (writer, _) = concat_factory(&[
        ("footer_key", "0123456789112345"),
        ("col_key", "1234567890123450"),
        ("hr_key", "1234567890123451"),
    ]);
    let mut config = EncryptionConfiguration::new("footer_key");
    config
        .column_keys
        .insert("col_key".into(), vec!["secret".into()]);
    config
        .column_keys
        .insert("hr_key".into(), vec!["salary".into()]);
    let props = writer
        .file_encryption_properties(&KmsConnectionConfig::default(), &config)
        .unwrap();
    let file = write(
        WriterProperties::builder()
            .encryption(props)
            .build()
            .unwrap(),
    );
    // A reader whose KMS refuses hr_key.
    let (reader, _) = concat_factory(&[
        ("footer_key", "0123456789112345"),
        ("col_key", "1234567890123450"),
    ]);
    let keys = kms_keys(&reader);
    let r = reader_of(file, keys);
    let ok = r
        .clone()
        .with_columns(["id", "secret"])
        .read_batch()
        .unwrap();
    assert_eq!(ok.num_rows(), 500);
    let e = r.with_columns(["salary"]).read_batch().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
    assert!(e.to_string().contains("hr_key refused"), "{e}");
}

/// pyarrow's side of the page checksum test: writes `argv[1]` encrypted with page CRCs, and
/// reads `argv[2]` (written by parq with CRCs) with page checksum verification.
const PYARROW_CRC: &str = r#"
import base64, sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.parquet.encryption as pe

class Kms(pe.KmsClient):
    def __init__(self, config):
        pe.KmsClient.__init__(self)
        self.keys = dict(config.custom_kms_conf)
    def wrap_key(self, key, master):
        return base64.b64encode(self.keys[master].encode() + key)
    def unwrap_key(self, wrapped, master):
        return base64.b64decode(wrapped)[16:]

f = pe.CryptoFactory(lambda c: Kms(c))
kms = pe.KmsConnectionConfig(custom_kms_conf={"footer_key": "0123456789112345", "col_key": "1234567890123450"})
t = pa.table({"id": pa.array(range(500), pa.int64()), "secret": [f"s{i}" for i in range(500)]})
conf = pe.EncryptionConfiguration("footer_key", column_keys={"col_key": ["secret"]})
pq.write_table(t, sys.argv[1], encryption_properties=f.file_encryption_properties(kms, conf), write_page_checksum=True)
got = pq.read_table(sys.argv[2], decryption_properties=f.file_decryption_properties(kms), page_checksum_verification=True)
print(got.num_rows)
"#;

#[test]
fn page_checksums_of_encrypted_pages_agree_with_pyarrow() {
    // The CRC of an encrypted page covers its body as stored (encrypted): pyarrow writes and
    // checks it so, as parquet-java does.
    let (factory, _) = concat_factory(&[
        ("footer_key", "0123456789112345"),
        ("col_key", "1234567890123450"),
    ]);
    let dir = common::tmp_dir("encrypted-crc");
    let theirs = dir.join("pyarrow.parquet");
    let ours = dir.join("parq.parquet");
    let mut config = EncryptionConfiguration::new("footer_key");
    config
        .column_keys
        .insert("col_key".into(), vec!["secret".into()]);
    let props = factory
        .file_encryption_properties(&KmsConnectionConfig::default(), &config)
        .unwrap();
    let props = WriterProperties::builder()
        .page_crc(true)
        .encryption(props)
        .build()
        .unwrap();
    std::fs::write(&ours, write(props)).unwrap();
    let out = common::run_python(PYARROW_CRC, &[theirs.as_os_str(), ours.as_os_str()]);
    assert_eq!(out.trim(), "500");
    let keys = kms_keys(&factory);
    let r = ParquetReader::open_encrypted(&theirs, Arc::new(keys))
        .unwrap()
        .with_verify_crc(true);
    assert_eq!(r.read_batch().unwrap().num_rows(), 500);
    let _ = std::fs::remove_dir_all(&dir);
}
