//! Reading encrypted files: every encrypted file of apache/parquet-testing (`data/` and
//! `data/aes256/`, written by parquet-cpp and parquet-mr) read with the keys of its README
//! equals what parquet 60.1 reads with the same keys (AES_GCM_CTR_V1, which 60.1 does not
//! read, equals the AES_GCM_V1 file of the same data); a column without its key is a clear
//! error while the others read; changed page bytes are caught per module.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use bytes::Bytes;
use parq::format::crypto::{FileDecryptionProperties, KeyRetriever};
use parq::format::footer::DecodeOptions;
use parq::read::ParquetReader;
use parq::ErrorKind;

/// The keys of parquet-testing's README (ASCII digits).
const FOOTER_128: &[u8] = b"0123456789012345";
const DOUBLE_128: &[u8] = b"1234567890123450";
const FLOAT_128: &[u8] = b"1234567890123451";

fn data(name: &str) -> PathBuf {
    common::testdata().join("parquet-testing/data").join(name)
}

fn keys_128(aad: bool) -> FileDecryptionProperties {
    let p = FileDecryptionProperties::with_footer_key(FOOTER_128)
        .unwrap()
        .column_key("double_field", DOUBLE_128)
        .unwrap()
        .column_key("float_field", FLOAT_128)
        .unwrap();
    if aad {
        p.aad_prefix("tester")
    } else {
        p
    }
}

/// The 256-bit keys of `data/aes256`: leaf path and the last digit of its key.
const AES256_COLUMNS: &[(&str, u8)] = &[
    ("double_field", 2),
    ("float_field", 3),
    ("boolean_field", 4),
    ("int32_field", 5),
    ("ba_field", 6),
    ("flba_field", 7),
    ("int64_field.list.element", 8),
    ("int96_field", 9),
];

fn footer_256() -> Vec<u8> {
    (0..32u8).map(|i| b'0' + i % 10).collect()
}

fn column_256(last: u8) -> Vec<u8> {
    let mut k: Vec<u8> = (0..32u8).map(|i| b'0' + (i + 1) % 10).collect();
    k[31] = b'0' + last;
    k
}

fn keys_256(aad: bool) -> FileDecryptionProperties {
    let mut p = FileDecryptionProperties::with_footer_key(footer_256()).unwrap();
    for &(c, last) in AES256_COLUMNS {
        p = p.column_key(c, column_256(last)).unwrap();
    }
    if aad {
        p.aad_prefix("tester")
    } else {
        p
    }
}

fn parq_read(path: &Path, keys: FileDecryptionProperties) -> Result<Vec<RecordBatch>, parq::Error> {
    ParquetReader::open_encrypted(path, Arc::new(keys))?
        .with_batch_size(1 << 20)
        .read_all()
}

/// parquet 60.1's read of `path` with the same keys.
fn peer_read(
    path: &Path,
    footer: &[u8],
    columns: &[(&str, Vec<u8>)],
    aad: bool,
) -> Vec<RecordBatch> {
    use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    use parquet::encryption::decrypt::FileDecryptionProperties as Peer;
    let mut b = Peer::builder(footer.to_vec());
    for (c, k) in columns {
        b = b.with_column_key(c, k.clone());
    }
    if aad {
        b = b.with_aad_prefix(b"tester".to_vec());
    }
    let opts = ArrowReaderOptions::new().with_file_decryption_properties(b.build().unwrap());
    let file = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new_with_options(file, opts)
        .unwrap_or_else(|e| panic!("parquet 60.1 on {}: {e}", path.display()))
        .with_batch_size(1 << 20)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn assert_same(what: &str, ours: &[RecordBatch], peer: &[RecordBatch]) {
    let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
    assert_eq!(rows(ours), rows(peer), "{what}: rows");
    assert!(rows(ours) > 0, "{what}: no rows");
    let ours = arrow_select::concat::concat_batches(&ours[0].schema(), ours).unwrap();
    let peer = arrow_select::concat::concat_batches(&peer[0].schema(), peer).unwrap();
    assert_eq!(ours.num_columns(), peer.num_columns(), "{what}");
    for i in 0..ours.num_columns() {
        let name = ours.schema().field(i).name().clone();
        let (a, b) = (ours.column(i), peer.column(i));
        // Compared as values: the peer may pick other Arrow types (INT96, lists).
        let b = arrow_cast::cast(b, a.data_type()).unwrap_or_else(|_| b.clone());
        assert_eq!(a.to_data(), b.to_data(), "{what}: column {name}");
    }
}

const FILES_128: &[(&str, &str, bool)] = &[
    // (file, the file of the same data that parquet 60.1 reads, AAD prefix to supply)
    ("encrypt_columns_and_footer.parquet.encrypted", "", false),
    (
        "encrypt_columns_and_footer_aad.parquet.encrypted",
        "",
        false,
    ),
    (
        "encrypt_columns_and_footer_ctr.parquet.encrypted",
        "encrypt_columns_and_footer.parquet.encrypted",
        false,
    ),
    (
        "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
        "",
        true,
    ),
    (
        "encrypt_columns_plaintext_footer.parquet.encrypted",
        "",
        false,
    ),
    ("uniform_encryption.parquet.encrypted", "", false),
];

#[test]
fn parquet_testing_128_bit_files_read_equal_to_parquet_60() {
    let peer_keys = [
        ("double_field", DOUBLE_128.to_vec()),
        ("float_field", FLOAT_128.to_vec()),
    ];
    for &(name, twin, aad) in FILES_128 {
        let ours = parq_read(&data(name), keys_128(aad)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let peer_file = if twin.is_empty() { name } else { twin };
        let peer = peer_read(&data(peer_file), FOOTER_128, &peer_keys, aad);
        assert_same(name, &ours, &peer);
    }
}

#[test]
fn parquet_testing_256_bit_files_read_equal() {
    // parquet 60.1 reads AES-256 GCM; the CTR file is compared with the GCM one.
    let columns: Vec<(&str, Vec<u8>)> = AES256_COLUMNS
        .iter()
        .map(|&(c, last)| (c, column_256(last)))
        .collect();
    let dir = data("aes256");
    let gcm = dir.join("encrypt_columns_and_footer.parquet.encrypted");
    let peer = peer_read(&gcm, &footer_256(), &columns, false);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let aad = name.contains("disable_aad_storage");
        let ours = parq_read(&path, keys_256(aad)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = if name.contains("ctr") {
            peer.clone()
        } else {
            peer_read(&path, &footer_256(), &columns, aad)
        };
        assert_same(&name, &ours, &expected);
    }
}

struct Ids;

impl KeyRetriever for Ids {
    fn retrieve_key(&self, key_metadata: &[u8]) -> Result<Vec<u8>, String> {
        match key_metadata {
            b"kf" => Ok(FOOTER_128.to_vec()),
            b"kc1" => Ok(DOUBLE_128.to_vec()),
            b"kc2" => Err("the KMS refuses kc2".to_string()),
            other => Err(format!("no key {:?}", String::from_utf8_lossy(other))),
        }
    }
}

#[test]
fn a_column_without_its_key_fails_alone() {
    let path = data("encrypt_columns_and_footer.parquet.encrypted");
    let keys = Arc::new(FileDecryptionProperties::with_key_retriever(Arc::new(Ids)));
    let reader = ParquetReader::open_encrypted(&path, keys).unwrap();
    let e = reader
        .clone()
        .with_columns(["float_field"])
        .read_all()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
    assert!(e.to_string().contains("refuses kc2"), "{e}");
    let batches = reader
        .with_columns(["double_field", "int32_field"])
        .read_all()
        .unwrap();
    assert!(batches.iter().map(RecordBatch::num_rows).sum::<usize>() > 0);

    // A plaintext footer without keys: its plaintext columns read, its encrypted ones say why
    // they cannot.
    let path = data("encrypt_columns_plaintext_footer.parquet.encrypted");
    let reader = ParquetReader::open(&path).unwrap();
    let ok = reader
        .clone()
        .with_columns(["int32_field"])
        .read_all()
        .unwrap();
    assert!(ok.iter().map(RecordBatch::num_rows).sum::<usize>() > 0);
    let e = reader
        .with_columns(["double_field"])
        .read_all()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
}

/// The column chunk byte ranges of `path`'s encrypted columns, from its decrypted footer.
fn encrypted_chunks(file: &Bytes, keys: &FileDecryptionProperties) -> Vec<(u64, u64)> {
    let opts = DecodeOptions {
        decryption: Some(Arc::new(keys.clone())),
        ..Default::default()
    };
    let md = parq::format::footer::decode_file_metadata(file, &opts).unwrap();
    let mut out = Vec::new();
    for rg in md.row_groups() {
        for c in rg.columns() {
            if c.extras().is_some_and(|e| e.crypto_metadata.is_some()) {
                let r = parq::page::chunk_range(c).unwrap();
                out.push((r.start, r.end));
            }
        }
    }
    out
}

#[test]
fn changed_page_bytes_are_caught() {
    for (name, ctr) in [
        ("encrypt_columns_and_footer.parquet.encrypted", false),
        ("encrypt_columns_and_footer_ctr.parquet.encrypted", true),
    ] {
        let file = Bytes::from(std::fs::read(data(name)).unwrap());
        let keys = keys_128(false);
        let chunks = encrypted_chunks(&file, &keys);
        assert!(!chunks.is_empty());
        let mut caught = 0;
        let mut changed = 0;
        for &(start, end) in &chunks {
            for at in (start..end).step_by(((end - start) / 40).max(1) as usize) {
                let mut bad = file.to_vec();
                bad[at as usize] ^= 0x10;
                changed += 1;
                let res = ParquetReader::from_source_with(
                    Arc::new(Bytes::from(bad)),
                    DecodeOptions {
                        decryption: Some(Arc::new(keys.clone())),
                        ..Default::default()
                    },
                )
                .and_then(|r| r.read_all());
                if let Err(e) = res {
                    caught += 1;
                    let text = e.to_string();
                    assert!(
                        !text.contains("internal error"),
                        "{name}: byte {at}: {text}"
                    );
                }
            }
        }
        if ctr {
            // CTR page bodies are not authenticated: only headers (and what decodes wrong)
            // are caught.
            assert!(caught > 0, "{name}");
        } else {
            assert_eq!(caught, changed, "{name}: every change under GCM is caught");
        }
    }
}

#[test]
fn page_crcs_cover_the_stored_encrypted_bodies() {
    // parquet-java writes the CRC of each encrypted page's body as stored (parquet.thrift:
    // "as written to disk"); parquet 60.1 checks it against the decrypted body and fails.
    let path = data("encrypt_columns_and_footer_bloom_filter.parquet.encrypted");
    let r = ParquetReader::open_encrypted(&path, Arc::new(keys_128(false))).unwrap();
    let rows = r.clone().with_verify_crc(true).read_all().unwrap();
    assert!(rows.iter().map(RecordBatch::num_rows).sum::<usize>() > 0);
}

#[test]
fn filters_use_encrypted_bloom_filters_and_page_indexes() {
    use arrow_array::Float64Array;
    // parquet-java's file: Bloom filters on double_field and float_field, page indexes.
    let path = data("encrypt_columns_and_footer_bloom_filter.parquet.encrypted");
    let reader = ParquetReader::open_encrypted(&path, Arc::new(keys_128(false))).unwrap();
    let all = reader.clone().read_all().unwrap();
    let all = arrow_select::concat::concat_batches(&all[0].schema(), &all).unwrap();
    let idx = all.schema().index_of("double_field").unwrap();
    let values = all
        .column(idx)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap()
        .clone();
    for row in [0, 7, 1234, values.len() - 1] {
        let v = values.value(row);
        let f = parq::read::parse_filter(&format!("double_field = {v:?}")).unwrap();
        let mut batches = reader.clone().with_filter(f).batches().unwrap();
        let got: usize = batches.by_ref().map(|b| b.unwrap().num_rows()).sum();
        let want = values.iter().filter(|x| *x == Some(v)).count();
        assert_eq!(got, want, "double_field = {v}");
        assert!(
            batches.stats().bloom_filters_read > 0,
            "{:?}",
            batches.stats()
        );
    }
    // A value inside the statistics' range that no row holds: the Bloom filter rules the row
    // group out.
    let (a, b) = (values.value(10), values.value(11));
    let absent = (a + b) / 2.0;
    assert!(!values.iter().any(|x| x == Some(absent)));
    let f = parq::read::parse_filter(&format!("double_field = {absent:?}")).unwrap();
    let mut batches = reader.with_filter(f).batches().unwrap();
    assert_eq!(
        batches
            .by_ref()
            .map(|b| b.unwrap().num_rows())
            .sum::<usize>(),
        0
    );
    let stats = batches.stats();
    assert!(stats.row_groups_skipped_by_bloom > 0, "{stats:?}");

    // The encrypted page index decodes: its double_field bounds are those of the values.
    for (name, aad) in [
        ("encrypt_columns_and_footer.parquet.encrypted", false),
        (
            "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
            true,
        ),
    ] {
        let path = data(name);
        let reader = ParquetReader::open_encrypted(&path, Arc::new(keys_128(aad))).unwrap();
        let md = reader.metadata();
        let leaf = md.schema().leaf_index("double_field").unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        let mut f = std::fs::File::open(&path).unwrap();
        let pi = parq::file::read_page_index_from(&mut f, md, None, None, len)
            .unwrap()
            .unwrap();
        let ci = pi
            .column_index(0, leaf)
            .expect("double_field's column index");
        let batches = reader.with_columns(["double_field"]).read_all().unwrap();
        let col = batches[0]
            .column(0)
            .as_any()
            .downcast_ref::<Float64Array>()
            .unwrap();
        let min = col.iter().flatten().fold(f64::INFINITY, f64::min);
        let max = col.iter().flatten().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(
            (ci.min_f64(0), ci.max_f64(0)),
            (Some(min), Some(max)),
            "{name}"
        );
        assert!(pi.offset_index(0, leaf).is_some());
    }
}
