//! Encrypted footers of apache/parquet-testing (written by parquet-cpp and parquet-mr, keys in
//! its `data/README.md`): decoded with explicit keys and with a key retriever, the AAD prefix
//! given where the file does not store it; wrong keys, a missing prefix and changed bytes are
//! clear errors naming the module.

mod common;

use std::sync::Arc;

use parq_format::crypto::{FileDecryptionProperties, KeyRetriever};
use parq_format::footer::{decode_file_metadata, DecodeOptions};
use parq_format::ErrorKind;

const FOOTER_KEY: &[u8] = b"0123456789012345";
const KEY_DOUBLE: &[u8] = b"1234567890123450";
const KEY_FLOAT: &[u8] = b"1234567890123451";

/// The keys of the README, {0,1,...}, are ASCII digits ("0123456789012345").
fn read(name: &str) -> Vec<u8> {
    let p = common::testdata().join("parquet-testing/data").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn explicit() -> FileDecryptionProperties {
    FileDecryptionProperties::with_footer_key(FOOTER_KEY)
        .unwrap()
        .column_key("double_field", KEY_DOUBLE)
        .unwrap()
        .column_key("float_field", KEY_FLOAT)
        .unwrap()
}

struct Ids;

impl KeyRetriever for Ids {
    fn retrieve_key(&self, key_metadata: &[u8]) -> Result<Vec<u8>, String> {
        match key_metadata {
            b"kf" => Ok(FOOTER_KEY.to_vec()),
            b"kc1" => Ok(KEY_DOUBLE.to_vec()),
            b"kc2" => Ok(KEY_FLOAT.to_vec()),
            other => Err(format!("no key {:?}", String::from_utf8_lossy(other))),
        }
    }
}

fn opts(props: FileDecryptionProperties) -> DecodeOptions {
    DecodeOptions {
        decryption: Some(Arc::new(props)),
        ..Default::default()
    }
}

const FILES: &[(&str, bool)] = &[
    ("encrypt_columns_and_footer.parquet.encrypted", false),
    ("encrypt_columns_and_footer_aad.parquet.encrypted", false),
    ("encrypt_columns_and_footer_ctr.parquet.encrypted", false),
    (
        "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
        true,
    ),
    ("encrypt_columns_plaintext_footer.parquet.encrypted", false),
    ("uniform_encryption.parquet.encrypted", false),
    (
        "encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
        false,
    ),
];

#[test]
fn footers_decrypt_with_explicit_keys_and_retriever() {
    for &(name, supply_prefix) in FILES {
        let file = read(name);
        for props in [
            explicit(),
            FileDecryptionProperties::with_key_retriever(Arc::new(Ids)),
        ] {
            let props = if supply_prefix {
                props.aad_prefix("tester")
            } else {
                props
            };
            let md =
                decode_file_metadata(&file, &opts(props)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(md.num_rows > 0, "{name}");
            let dec = md.decryptor().expect("a decryptor");
            for (g, rg) in md.row_groups.iter().enumerate() {
                for (j, c) in rg.columns.iter().enumerate() {
                    assert!(c.has_metadata(), "{name}: rg {g} column {j}");
                    let path = md.schema.leaf_path_string(j);
                    dec.column(md.row_group_ordinal(g), j, &path)
                        .unwrap_or_else(|e| panic!("{name} {path}: {e}"));
                }
            }
        }
    }
}

#[test]
fn aes256_footers_decrypt() {
    let dir = common::testdata().join("parquet-testing/data/aes256");
    // ASCII digits, as the 16-byte keys: "0123…01" and "1234…0" followed by the last digit.
    let key = |last: u8| {
        let mut k: Vec<u8> = (0..32u8).map(|i| b'0' + (i + 1) % 10).collect();
        k[31] = b'0' + last;
        k
    };
    let footer: Vec<u8> = (0..32u8).map(|i| b'0' + i % 10).collect();
    let columns = [
        ("double_field", 2),
        ("float_field", 3),
        ("boolean_field", 4),
        ("int32_field", 5),
        ("ba_field", 6),
        ("flba_field", 7),
        ("int64_field.list.element", 8),
        ("int96_field", 9),
    ];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let file = std::fs::read(&path).unwrap();
        let mut props = FileDecryptionProperties::with_footer_key(footer.clone()).unwrap();
        for (c, last) in columns {
            props = props.column_key(c, key(last)).unwrap();
        }
        if path.to_string_lossy().contains("disable_aad_storage") {
            props = props.aad_prefix("tester");
        }
        let md = decode_file_metadata(&file, &opts(props))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for rg in &md.row_groups {
            for c in &rg.columns {
                assert!(c.has_metadata(), "{}", path.display());
            }
        }
    }
}

#[test]
fn wrong_keys_and_prefix_are_clear_errors() {
    let file = read("encrypt_columns_and_footer.parquet.encrypted");
    let e = decode_file_metadata(&file, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::EncryptedFooter), "{e}");

    let wrong = FileDecryptionProperties::with_footer_key(KEY_DOUBLE).unwrap();
    let e = decode_file_metadata(&file, &opts(wrong)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
    assert!(e.to_string().contains("footer"), "{e}");

    // A wrong column key fails that column's metadata, naming it.
    let props = FileDecryptionProperties::with_footer_key(FOOTER_KEY)
        .unwrap()
        .column_key("double_field", KEY_FLOAT)
        .unwrap()
        .column_key("float_field", KEY_FLOAT)
        .unwrap();
    let e = decode_file_metadata(&file, &opts(props)).unwrap_err();
    assert!(e.to_string().contains("column metadata"), "{e}");

    // Without a column's key: the footer decodes, that column is left encrypted.
    let props = FileDecryptionProperties::with_footer_key(FOOTER_KEY)
        .unwrap()
        .column_key("double_field", KEY_DOUBLE)
        .unwrap();
    let md = decode_file_metadata(&file, &opts(props)).unwrap();
    let leaf = md.schema.leaf_index("float_field").unwrap();
    let dec = md.decryptor().unwrap();
    let e = dec.column(0, leaf, "float_field").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
    assert!(!md.row_groups[0].columns[leaf].has_metadata());
    let other = md.schema.leaf_index("double_field").unwrap();
    assert!(md.row_groups[0].columns[other].has_metadata());

    // The AAD prefix not stored and not given.
    let file = read("encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted");
    let e = decode_file_metadata(&file, &opts(explicit())).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MissingKey(_)), "{e}");
    let e = decode_file_metadata(&file, &opts(explicit().aad_prefix("wrong"))).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Decryption { .. }), "{e}");
    // A stored prefix that differs from the one given.
    let file = read("encrypt_columns_and_footer_aad.parquet.encrypted");
    let e = decode_file_metadata(&file, &opts(explicit().aad_prefix("other"))).unwrap_err();
    assert!(e.to_string().contains("AAD prefix"), "{e}");
}

#[test]
fn plaintext_footer_without_keys_and_tampered_signature() {
    let file = read("encrypt_columns_plaintext_footer.parquet.encrypted");
    // Without keys: the metadata, the encrypted columns' hidden.
    let md = decode_file_metadata(&file, &DecodeOptions::default()).unwrap();
    assert!(md.encryption_algorithm.is_some());
    assert!(md.decryptor().is_none());
    // A changed byte of the footer fails its signature.
    let n = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
    let start = file.len() - 8 - n;
    let created_by = md.created_by.map(|r| r.slice(md.buf()).to_vec()).unwrap();
    let at = file[start..]
        .windows(created_by.len())
        .position(|w| w == created_by)
        .unwrap()
        + start;
    let mut bad = file.clone();
    bad[at] ^= 0x20;
    let e = decode_file_metadata(&bad, &opts(explicit())).unwrap_err();
    assert!(e.to_string().contains("signature"), "{e}");
    // Without verification the same bytes decode.
    decode_file_metadata(&bad, &opts(explicit().skip_footer_verification())).unwrap();
    // Every byte of the encrypted footer module is authenticated.
    let file = read("encrypt_columns_and_footer.parquet.encrypted");
    let n = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
    let start = file.len() - 8 - n;
    for at in (start..file.len() - 8).step_by(7) {
        let mut bad = file.clone();
        bad[at] ^= 1;
        assert!(
            decode_file_metadata(&bad, &opts(explicit())).is_err(),
            "a change at {at} went unnoticed"
        );
    }
}
