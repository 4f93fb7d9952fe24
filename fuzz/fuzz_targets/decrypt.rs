//! Fuzzes the decryption path, read with the right keys:
//! - mode 0: arbitrary bytes as an encrypted file (module lengths, `FileCryptoMetaData`, the
//!   `PARE` tail, crypto metadata of chunks: what lies around the authenticated modules);
//! - mode 1: arbitrary bytes sealed as an authentic encrypted footer, so the decoders behind
//!   authentication see them (the decrypted `FileMetaData`, its chunks' crypto metadata);
//! - mode 2: a sound file parq wrote under AES_GCM_CTR_V1 with a signed plaintext footer,
//!   changed at the offsets the input names: CTR page bodies are not authenticated, so
//!   changed pages reach the page decoders, and every other change must fail cleanly.
//! Nothing may panic, hang or allocate without bound.
#![no_main]

use std::sync::{Arc, OnceLock};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterProperties};
use parq_format::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileEncryptionProperties, KeyCipher, ModuleId,
};
use parq_format::footer::{decode_file_metadata, DecodeOptions};

const FOOTER_KEY: &[u8] = b"0123456789012345";
const COLUMN_KEY: &[u8] = b"1234567890123450";
/// The unique part of mode 1's file AAD.
const UNIQUE: &[u8; 8] = b"fuzzfuzz";

fn opts() -> DecodeOptions {
    let keys = FileDecryptionProperties::with_footer_key(FOOTER_KEY)
        .and_then(|k| k.column_key("name", COLUMN_KEY))
        .expect("valid keys");
    DecodeOptions {
        decryption: Some(Arc::new(keys)),
        ..Default::default()
    }
}

fn read(file: Bytes) {
    if let Ok(r) = ParquetReader::from_source_with(Arc::new(file), opts()) {
        let _ = r.with_batch_size(256).read_all();
    }
}

/// `FileCryptoMetaData { encryption_algorithm: AES_GCM_V1 { aad_file_unique } }`, compact.
fn crypto_metadata() -> Vec<u8> {
    let mut out = vec![0x1c, 0x1c, 0x28, UNIQUE.len() as u8];
    out.extend_from_slice(UNIQUE);
    out.extend_from_slice(&[0, 0, 0]);
    out
}

/// `footer` sealed as the authentic encrypted footer of a file.
fn sealed_file(footer: &[u8]) -> Vec<u8> {
    let mut tail = crypto_metadata();
    let cipher = KeyCipher::new(FOOTER_KEY).expect("a 16-byte key");
    cipher
        .encrypt_gcm(footer, &ModuleId::FOOTER.aad(UNIQUE), &mut tail)
        .expect("encrypting");
    let mut file = b"PARE".to_vec();
    file.extend_from_slice(&tail);
    file.extend_from_slice(&(tail.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PARE");
    file
}

/// A sound file: 2,000 rows, `name` under its own key, CTR pages, a signed plaintext footer.
fn sound() -> &'static [u8] {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ]));
        let id: Int64Array = (0..2000i64).collect();
        let name: StringArray = (0..2000).map(|i| (i % 7 != 0).then(|| format!("n{}", i % 30))).collect();
        let columns: Vec<ArrayRef> = vec![Arc::new(id), Arc::new(name)];
        let batch = RecordBatch::try_new(schema.clone(), columns).expect("a batch");
        let key = ColumnKey {
            key: COLUMN_KEY.to_vec(),
            key_metadata: None,
        };
        let enc = FileEncryptionProperties::new(FOOTER_KEY)
            .and_then(|e| e.column_key("name", key))
            .expect("keys")
            .algorithm(Algorithm::AesGcmCtrV1)
            .plaintext_footer(true);
        let props = WriterProperties::builder()
            .max_row_group_rows(Some(700))
            .data_page_rows(Some(100))
            .encryption(enc)
            .build()
            .expect("properties");
        let mut out = Vec::new();
        let mut w = ParquetWriter::try_new(&mut out, schema, props).expect("a writer");
        w.write(&batch).expect("writing");
        w.close().expect("closing");
        out
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => read(Bytes::copy_from_slice(rest)),
        1 => {
            let file = sealed_file(rest);
            let _ = decode_file_metadata(&file, &opts());
            read(Bytes::from(file));
        }
        _ => {
            let mut file = sound().to_vec();
            for change in rest.chunks_exact(5) {
                let at = u32::from_le_bytes([change[0], change[1], change[2], change[3]]) as usize;
                let n = file.len();
                file[at % n] ^= change[4];
            }
            read(Bytes::from(file));
        }
    }
});
