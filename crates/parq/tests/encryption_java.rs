//! parquet-java reads the encrypted files parq writes: the committed files of
//! `tests/data/encryption/` (written by parq, see its README) in three modes, read by
//! parquet-java 1.18.1's `ReadEncrypted` (`tests/writers/java`) with the same keys, page
//! checksums verified, its Bloom filters decrypted. Each committed read must be the table
//! written, and parq must still read the committed files equal to it.

mod common;

use std::path::Path;
use std::sync::Arc;

use parq::format::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileEncryptionProperties,
};
use parq::read::ParquetReader;
use parq::write::{BloomFilterProperties, ParquetWriter, WriterProperties};

const DIR: &str = "tests/data/encryption";
const FOOTER_KEY: &[u8] = b"parq-footer-key!";
const X_KEY: &[u8] = b"parq-x-column-k!";
const S_KEY: &[u8] = b"parq-s-column-key-256-bits-long!";
/// Values whose Bloom filter lookups parquet-java prints: present in every row group.
const PRESENT: [&str; 2] = ["parquet", "a longer value"];

/// A committed file: its name, algorithm, footer mode, per-column keys and AAD prefix
/// (stored or not).
struct Committed {
    name: &'static str,
    algorithm: Algorithm,
    plaintext_footer: bool,
    column_keys: bool,
    aad: Option<(&'static str, bool)>,
}

const FILES: [Committed; 3] = [
    Committed {
        name: "gcm_column_keys.parquet",
        algorithm: Algorithm::AesGcmV1,
        plaintext_footer: false,
        column_keys: true,
        aad: Some(("tables/2026", true)),
    },
    Committed {
        name: "ctr_plaintext_footer.parquet",
        algorithm: Algorithm::AesGcmCtrV1,
        plaintext_footer: true,
        column_keys: false,
        aad: None,
    },
    Committed {
        name: "gcm_supplied_aad.parquet",
        algorithm: Algorithm::AesGcmV1,
        plaintext_footer: false,
        column_keys: true,
        aad: Some(("supplied", false)),
    },
];

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn write(c: &Committed) -> Vec<u8> {
    let mut e = FileEncryptionProperties::new(FOOTER_KEY)
        .unwrap()
        .algorithm(c.algorithm)
        .plaintext_footer(c.plaintext_footer);
    if c.column_keys {
        for (name, key) in [("x", X_KEY), ("s", S_KEY)] {
            let k = ColumnKey {
                key: key.to_vec(),
                key_metadata: Some(name.as_bytes().to_vec()),
            };
            e = e.column_key(name, k).unwrap();
        }
    }
    if let Some((prefix, store)) = c.aad {
        e = e.aad_prefix(prefix.as_bytes().to_vec(), store);
    }
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(200))
        .column_bloom_filter("s", Some(BloomFilterProperties::default()))
        .page_crc(true)
        .encryption(e)
        .build()
        .unwrap();
    let batch = common::java_table();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

fn keys(c: &Committed) -> FileDecryptionProperties {
    let mut k = FileDecryptionProperties::with_footer_key(FOOTER_KEY).unwrap();
    if c.column_keys {
        k = k
            .column_key("x", X_KEY)
            .unwrap()
            .column_key("s", S_KEY)
            .unwrap();
    }
    match c.aad {
        Some((prefix, false)) => k.aad_prefix(prefix.as_bytes().to_vec()),
        _ => k,
    }
}

/// The arguments `ReadEncrypted` was run with for `c` (after the file), as the README
/// lists them.
fn java_args(c: &Committed) -> String {
    let mut args = vec![hex(FOOTER_KEY)];
    args.push(match c.aad {
        Some((prefix, false)) => prefix.to_string(),
        _ => "-".to_string(),
    });
    if c.column_keys {
        args.push(format!("x={}", hex(X_KEY)));
        args.push(format!("s={}", hex(S_KEY)));
    }
    args.push("--bloom".into());
    args.push("s".into());
    args.extend(PRESENT.iter().map(|v| format!("'{v}'")));
    args.join(" ")
}

/// What parquet-java prints for the table: the counts, every row group's Bloom filter
/// lookups of the present values (all `true`: a filter has no false negatives), the rows.
fn expected(batch: &arrow_array::RecordBatch) -> String {
    let dump = common::java_dump(batch);
    let (head, rows) = dump.split_once('\n').unwrap();
    let mut out = format!("{head}\n");
    for _ in 0..5 {
        for v in PRESENT {
            out.push_str(&format!("bloom\ts\t{v}\ttrue\n"));
        }
    }
    out.push_str(rows);
    out
}

#[test]
fn parquet_java_reads_the_encrypted_files_parq_writes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    let batch = common::java_table();
    if std::env::var_os("PARQ_REGENERATE").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for c in &FILES {
            std::fs::write(dir.join(c.name), write(c)).unwrap();
            println!("{}: ReadEncrypted {} {}", c.name, c.name, java_args(c));
        }
        return;
    }
    for c in &FILES {
        let path = dir.join(c.name);
        let back = ParquetReader::open_encrypted(&path, Arc::new(keys(c)))
            .unwrap()
            .with_verify_crc(true)
            .read_batch()
            .unwrap();
        assert_eq!(back, batch, "{}", c.name);
        let java = std::fs::read_to_string(dir.join(format!("{}.parquet-java.tsv", c.name)))
            .unwrap_or_else(|e| panic!("{}: {e} (regenerate: see {DIR}/README.md)", c.name));
        assert_eq!(java, expected(&batch), "{}", c.name);
    }
}
