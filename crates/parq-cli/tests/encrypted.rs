//! The keys of encrypted files on the command line: `meta`, `schema`, `cat` and `convert`
//! read parquet-testing's encrypted files with `--footer-key`, `--column-key`,
//! `--aad-prefix` or `--key-file`; `convert` writes encrypted outputs that read back with the
//! keys and, with a plaintext footer, whose plaintext columns pyarrow reads without them.
//! (Values against other implementations are checked by the library's tests; here the CTR
//! file reads as its GCM twin, and a converted file as its input.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::parq;

fn data(name: &str) -> String {
    let p = common::testdata().join("parquet-testing/data").join(name);
    assert!(p.exists(), "missing test file {}", p.display());
    p.to_str().unwrap().to_string()
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = parq(args);
    assert_eq!(code, 0, "parq {args:?}: {err}");
    out
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("encrypted")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The key flags of parquet-testing's README.
fn keys() -> Vec<String> {
    vec![
        "--footer-key".into(),
        hex("0123456789012345"),
        "--column-key".into(),
        format!("double_field={}", hex("1234567890123450")),
        "--column-key".into(),
        format!("float_field={}", hex("1234567890123451")),
    ]
}

fn with_keys<'a>(args: &[&'a str], keys: &'a [String]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(keys.iter().map(String::as_str));
    v
}

#[test]
fn meta_schema_and_cat_read_with_keys() {
    let keys = keys();
    let gcm = data("encrypt_columns_and_footer.parquet.encrypted");
    let ctr = data("encrypt_columns_and_footer_ctr.parquet.encrypted");
    let (code, _, err) = parq(&["meta", &gcm]);
    assert_ne!(code, 0);
    assert!(err.contains("encrypted"), "{err}");
    let meta = ok(&with_keys(&["meta", &gcm], &keys));
    assert!(meta.contains("double_field"), "{meta}");
    ok(&with_keys(&["meta", "--json", "--page-index", &gcm], &keys));
    let schema = ok(&with_keys(&["schema", &gcm], &keys));
    assert!(schema.contains("float_field"), "{schema}");
    let a = ok(&with_keys(&["cat", "--format", "csv", &gcm], &keys));
    let b = ok(&with_keys(&["cat", "--format", "csv", &ctr], &keys));
    assert_eq!(a, b);
    assert!(a.lines().count() > 10);
    // A wrong column key: the error names the column metadata module.
    let mut wrong = keys.clone();
    wrong[3] = format!("double_field={}", hex("1234567890123451"));
    let (code, _, err) = parq(&with_keys(&["cat", &gcm], &wrong));
    assert_ne!(code, 0);
    assert!(err.contains("column metadata"), "{err}");
    // The AAD prefix the file does not store, from a key file.
    let dir = tmp("key_file");
    let key_file = dir.join("keys.json");
    std::fs::write(
        &key_file,
        format!(
            r#"{{"footer_key": "{}", "column_keys": {{"double_field": "{}", "float_field": "{}"}}, "aad_prefix": "tester"}}"#,
            hex("0123456789012345"),
            hex("1234567890123450"),
            hex("1234567890123451")
        ),
    )
    .unwrap();
    let no_aad = data("encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted");
    let c = ok(&[
        "cat",
        "--format",
        "csv",
        "--key-file",
        key_file.to_str().unwrap(),
        &no_aad,
    ]);
    assert_eq!(c, a);
    let (code, _, err) = parq(&with_keys(&["cat", &no_aad], &keys));
    assert_ne!(code, 0);
    assert!(err.contains("AAD prefix"), "{err}");
}

#[test]
fn convert_writes_encrypted_outputs() {
    let keys = keys();
    let dir = tmp("convert");
    let input = data("encrypt_columns_and_footer.parquet.encrypted");
    let want = ok(&with_keys(&["cat", "--format", "csv", &input], &keys));
    let out = dir.join("out.parquet");
    let out_s = out.to_str().unwrap();
    let footer = hex("abcdefghijklmnop");
    let column = format!("double_field={}", hex("ponmlkjihgfedcba"));
    let mut args = with_keys(&["convert", &input, out_s], &keys);
    args.extend([
        "--encrypt-footer-key",
        &footer,
        "--encrypt-column-key",
        &column,
        "--plaintext-footer",
        "--encryption-algorithm",
        "AES_GCM_CTR_V1",
    ]);
    ok(&args);
    let back = ok(&[
        "cat",
        "--format",
        "csv",
        "--footer-key",
        &footer,
        "--column-key",
        &column,
        out_s,
    ]);
    assert_eq!(back, want);
    // Without keys: the plaintext columns read (by parq and pyarrow), the encrypted one not.
    ok(&["cat", "--columns", "int32_field", out_s]);
    let (code, _, err) = parq(&["cat", "--columns", "double_field", out_s]);
    assert_ne!(code, 0);
    assert!(err.contains("encrypted"), "{err}");
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    let script = "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1], columns=['int32_field']); print(t.num_rows)";
    let st = Command::new(python)
        .args(["-c", script, out_s])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&st.stdout).trim(), "50");
    // Encrypting needs a footer key.
    let (code, _, err) = parq(&["convert", &input, out_s, "--plaintext-footer"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("footer key") || err.contains("encrypted"),
        "{err}"
    );
}
