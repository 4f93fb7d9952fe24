//! `parq-bench crypto`: encrypted reads and writes of the scan table (about 1 GB at the default
//! 45 million rows), parq vs parquet 60.1 (`encryption` feature; AES_GCM_V1 only, it has no
//! AES_GCM_CTR_V1) and pyarrow, each with the same keys: plaintext, AES_GCM_V1 and
//! AES_GCM_CTR_V1, every column under the footer key (uniform encryption), one thread each.
//!
//! parq writes the encrypted files through its key tools with a test KMS (the data key
//! wrapped as base64 of master key and key, as pyarrow's documented test client does), so
//! pyarrow reads them through its own `CryptoFactory` and 60.1 with the footer's data key.
//! The Rust cases run interleaved in rounds (medians); pyarrow's in one Python child with the
//! harness's rules. Beside them, the limit: one thread's AES-GCM and AES-CTR over as many
//! bytes as the file's pages hold (aws-lc), and parq's plaintext read.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use base64::Engine;
use bytes::Bytes;
use parq::format::crypto::{Algorithm, FileDecryptionProperties, KeyCipher, ModuleId};
use parq::format::footer::DecodeOptions;
use parq::keytools::{
    CryptoFactory, DecryptionConfiguration, EncryptionConfiguration, KmsClient, KmsConnectionConfig,
};
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterProperties};
use serde_json::json;

use crate::measure::{MeasureArgs, MeasureConfig, Samples};
use crate::peers::{json_samples, run_harness_script, Python};
use crate::scan_data::{ensure_table, DEFAULT_ROWS};

/// Options of `parq-bench crypto`.
#[derive(clap::Args, Debug)]
pub struct CryptoArgs {
    /// Rows of the table (45,000,000: about 1 GB).
    #[arg(long, default_value_t = DEFAULT_ROWS)]
    pub rows: usize,
    /// Peers beside parq: pyarrow, parquet-60.1.
    #[arg(long, value_delimiter = ',', default_value = "pyarrow,parquet-60.1")]
    pub peers: Vec<String>,
    /// Python with pyarrow (default: $PARQ_PYTHON, else .venv/bin/python).
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Where the table is kept (default target/parq-bench-data).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Write the cells as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

const MASTER: &str = "0123456789112345";

/// pyarrow's documented test KMS: a wrapped key is base64 of the master key and the key.
struct ConcatKms;

impl KmsClient for ConcatKms {
    fn wrap_key(&self, key: &[u8], _master: &str) -> Result<String, String> {
        let b = base64::engine::general_purpose::STANDARD;
        Ok(b.encode([MASTER.as_bytes(), key].concat()))
    }
    fn unwrap_key(&self, wrapped: &str, _master: &str) -> Result<Vec<u8>, String> {
        let raw = base64::engine::general_purpose::STANDARD
            .decode(wrapped)
            .map_err(|e| e.to_string())?;
        Ok(raw.get(16..).unwrap_or_default().to_vec())
    }
}

fn factory() -> CryptoFactory {
    CryptoFactory::new(Arc::new(|_: &KmsConnectionConfig| {
        Ok(Arc::new(ConcatKms) as Arc<dyn KmsClient>)
    }))
}

/// One encrypted (or plaintext) variant of the table.
struct Variant {
    name: &'static str,
    algorithm: Option<Algorithm>,
    path: PathBuf,
    /// The footer's data key (every column's, uniform encryption).
    key: Vec<u8>,
    bytes: u64,
}

fn encryption(algorithm: Algorithm) -> Result<parq::format::crypto::FileEncryptionProperties> {
    let mut config = EncryptionConfiguration::new("footer_key");
    config.uniform_encryption = true;
    config.encryption_algorithm = algorithm;
    Ok(factory().file_encryption_properties(&KmsConnectionConfig::default(), &config)?)
}

fn keys() -> Result<Arc<FileDecryptionProperties>> {
    Ok(Arc::new(factory().file_decryption_properties(
        &KmsConnectionConfig::default(),
        &DecryptionConfiguration::default(),
    )?))
}

/// The table's batches, read once.
fn batches(plain: &Path) -> Result<Vec<arrow_60::RecordBatch>> {
    Ok(ParquetReader::open(plain)?
        .with_batch_size(1 << 16)
        .read_all()?)
}

fn props(algorithm: Option<Algorithm>) -> Result<WriterProperties> {
    let mut b = WriterProperties::builder()
        .max_row_group_rows(Some(crate::scan_data::ROW_GROUP_ROWS))
        .dictionary(false)
        .column_dictionary("tag", true);
    if let Some(a) = algorithm {
        b = b.encryption(encryption(a)?);
    }
    Ok(b.build()?)
}

fn parq_write(batches: &[arrow_60::RecordBatch], props: WriterProperties) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batches[0].schema(), props)?;
    for b in batches {
        w.write(b)?;
    }
    w.close()?;
    Ok(out)
}

fn peer_write(batches: &[arrow_60::RecordBatch], key: Option<&[u8]>) -> Result<Vec<u8>> {
    use parquet_60::basic::Compression;
    use parquet_60::file::properties::WriterProperties as P;
    let mut b = P::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(crate::scan_data::ROW_GROUP_ROWS))
        .set_dictionary_enabled(false)
        .set_column_dictionary_enabled("tag".into(), true);
    if let Some(k) = key {
        let e = parquet_60::encryption::encrypt::FileEncryptionProperties::builder(k.to_vec())
            .build()?;
        b = b.with_file_encryption_properties(e);
    }
    let mut out = Vec::new();
    let mut w =
        parquet_60::arrow::ArrowWriter::try_new(&mut out, batches[0].schema(), Some(b.build()))?;
    for batch in batches {
        w.write(batch)?;
    }
    w.close()?;
    Ok(out)
}

fn parq_read(file: &Bytes, keys: Option<&Arc<FileDecryptionProperties>>) -> Result<usize> {
    let opts = DecodeOptions {
        decryption: keys.cloned(),
        ..Default::default()
    };
    let r = ParquetReader::from_source_with(Arc::new(file.clone()), opts)?.with_batch_size(1 << 16);
    let mut rows = 0;
    for b in r.batches()? {
        rows += b?.num_rows();
    }
    Ok(rows)
}

fn peer_read(file: &Bytes, key: Option<&[u8]>) -> Result<usize> {
    use parquet_60::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    let mut opts = ArrowReaderOptions::new();
    if let Some(k) = key {
        let d = parquet_60::encryption::decrypt::FileDecryptionProperties::builder(k.to_vec())
            .build()?;
        opts = opts.with_file_decryption_properties(d);
    }
    let r = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), opts)?
        .with_batch_size(1 << 16)
        .build()?;
    let mut rows = 0;
    for b in r {
        rows += b?.num_rows();
    }
    Ok(rows)
}

/// A Rust case: a name and a call returning the rows it handled.
type Call<'a> = Box<dyn FnMut() -> Result<usize> + 'a>;

/// Runs `cases` interleaved: a call of each per round, until each has `cfg`'s samples and
/// time; every call must handle `rows` rows.
fn interleaved(
    cases: &mut [(String, Call<'_>)],
    rows: usize,
    cfg: &MeasureConfig,
) -> Result<Vec<Samples>> {
    let mut samples: Vec<Vec<u128>> = vec![Vec::new(); cases.len()];
    let mut total = vec![Duration::ZERO; cases.len()];
    // Warm-up: one call each.
    for (name, call) in cases.iter_mut() {
        ensure!(call()? == rows, "{name}: wrong row count");
    }
    loop {
        let done = samples
            .iter()
            .zip(&total)
            .all(|(s, t)| match cfg.exact_iters {
                Some(n) => s.len() >= n,
                None => s.len() >= cfg.min_iters && *t >= cfg.min_time,
            });
        if done {
            break;
        }
        for (i, (name, call)) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            let n = call()?;
            let d = t.elapsed();
            ensure!(n == rows, "{name}: {n} rows, expected {rows}");
            samples[i].push(d.as_nanos());
            total[i] += d;
        }
    }
    Ok(samples
        .into_iter()
        .map(|s| Samples {
            iterations: s.len(),
            samples_ns: s.into_iter().map(|ns| ns as u64).collect(),
        })
        .collect())
}

/// pyarrow's reads and writes of the variants, with its own `CryptoFactory` and test KMS.
const PYARROW: &str = r#"
import base64, json, sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.parquet.encryption as pe
files = json.loads(sys.argv[1])
exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = map(int, sys.argv[2:8])
class Kms(pe.KmsClient):
    def __init__(self, config):
        pe.KmsClient.__init__(self)
    def wrap_key(self, key, master):
        return base64.b64encode(b"0123456789112345" + key)
    def unwrap_key(self, wrapped, master):
        return base64.b64decode(wrapped)[16:]
f = pe.CryptoFactory(lambda c: Kms(c))
kms = pe.KmsConnectionConfig()
dec = f.file_decryption_properties(kms)
table = pq.read_table(files["plain"], use_threads=False)
out = []
for name, path in files.items():
    props = None if name == "plain" else dec
    data = pa.py_buffer(open(path, "rb").read())
    def read():
        t = time.perf_counter_ns()
        r = pq.read_table(pa.BufferReader(data), use_threads=False, decryption_properties=props)
        return time.perf_counter_ns() - t, r.num_rows
    samples, rows = measure(read, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
    out.append({"case": "read-" + name, "samples_ns": samples, "iterations": len(samples), "rows": rows})
    if name == "plain":
        enc = None
    else:
        conf = pe.EncryptionConfiguration("footer_key", uniform_encryption=True,
            encryption_algorithm="AES_GCM_V1" if name == "gcm" else "AES_GCM_CTR_V1")
        enc = f.file_encryption_properties(kms, conf)
    def write():
        sink = pa.BufferOutputStream()
        t = time.perf_counter_ns()
        pq.write_table(table, sink, row_group_size=1_000_000, use_dictionary=["tag"],
            encryption_properties=enc)
        return time.perf_counter_ns() - t, table.num_rows
    samples, rows = measure(write, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
    out.append({"case": "write-" + name, "samples_ns": samples, "iterations": len(samples), "rows": rows})
print(json.dumps({"version": pa.__version__, "cells": out}))
"#;

/// One thread's AES over `n` bytes: (GCM encrypt, GCM decrypt, CTR).
fn aes_floor(n: usize) -> Result<(Duration, Duration, Duration)> {
    let c = KeyCipher::new(&[7u8; 16])?;
    let page = vec![0x5au8; 1 << 20];
    let pages = n.div_ceil(page.len()).max(1);
    let mut module = Vec::with_capacity(page.len() + 64);
    let mut plain = Vec::with_capacity(page.len());
    let aad = ModuleId::FOOTER.aad(b"file");
    let (mut enc, mut dec, mut ctr) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..pages {
        module.clear();
        let t = Instant::now();
        c.encrypt_gcm(&page, &aad, &mut module)?;
        enc += t.elapsed();
        plain.clear();
        let t = Instant::now();
        c.decrypt_gcm(&module, &aad, &ModuleId::FOOTER, &mut plain)?;
        dec += t.elapsed();
        module.clear();
        let t = Instant::now();
        c.encrypt_ctr(&page, &mut module)?;
        ctr += t.elapsed();
    }
    Ok((enc, dec, ctr))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn run(args: &CryptoArgs, workspace_root: &Path) -> Result<()> {
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| workspace_root.join("target/parq-bench-data"));
    let plain_path = ensure_table(args.rows, "snappy", &data_dir)?;
    let cfg = args.measure.config();
    let table = batches(&plain_path)?;
    let rows: usize = table.iter().map(|b| b.num_rows()).sum();
    // The variants, written by parq now (fresh data keys).
    let mut variants = Vec::new();
    for (name, algorithm) in [
        ("plain", None),
        ("gcm", Some(Algorithm::AesGcmV1)),
        ("ctr", Some(Algorithm::AesGcmCtrV1)),
    ] {
        let p = props(algorithm)?;
        let key = p
            .encryption()
            .map(|e| e.footer_key_bytes().to_vec())
            .unwrap_or_default();
        let bytes = parq_write(&table, p)?;
        let path = data_dir.join(format!("crypto_{}rows_{name}.parquet", args.rows));
        std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
        variants.push(Variant {
            name,
            algorithm,
            path,
            key,
            bytes: bytes.len() as u64,
        });
    }
    let keys = keys()?;
    let with_peer = args.peers.iter().any(|p| p == "parquet-60.1");
    let loaded: Vec<Bytes> = variants
        .iter()
        .map(|v| std::fs::read(&v.path).map(Bytes::from))
        .collect::<std::io::Result<_>>()?;
    let mut cases: Vec<(String, Call<'_>)> = Vec::new();
    for (v, file) in variants.iter().zip(&loaded) {
        let k = v.algorithm.map(|_| Arc::clone(&keys));
        cases.push((
            format!("read-{} parq", v.name),
            Box::new(move || parq_read(file, k.as_ref())),
        ));
        if with_peer && v.algorithm != Some(Algorithm::AesGcmCtrV1) {
            let key = v.algorithm.map(|_| v.key.clone());
            cases.push((
                format!("read-{} parquet-60.1", v.name),
                Box::new(move || peer_read(file, key.as_deref())),
            ));
        }
        let table = &table;
        // The properties (and the data keys they wrap) made once, outside the clock.
        let write_props = props(v.algorithm)?;
        cases.push((
            format!("write-{} parq", v.name),
            Box::new(move || parq_write(table, write_props.clone()).map(|_| rows)),
        ));
        if with_peer && v.algorithm != Some(Algorithm::AesGcmCtrV1) {
            let key = v.algorithm.map(|_| v.key.clone());
            cases.push((
                format!("write-{} parquet-60.1", v.name),
                Box::new(move || peer_write(table, key.as_deref()).map(|_| rows)),
            ));
        }
    }
    eprintln!(
        "crypto: {rows} rows, files of {} / {} / {} bytes (plain / GCM / CTR); measuring {} cases",
        variants[0].bytes,
        variants[1].bytes,
        variants[2].bytes,
        cases.len()
    );
    let samples = interleaved(&mut cases, rows, &cfg)?;
    let mut cells: BTreeMap<String, f64> = BTreeMap::new();
    for ((name, _), s) in cases.iter().zip(&samples) {
        cells.insert(name.clone(), s.stats().median_ns as f64 / 1e6);
    }
    let mut py_version = None;
    if args.peers.iter().any(|p| p == "pyarrow") {
        if let Some(py) = crate::peers::find_python(args.python.as_deref(), workspace_root) {
            let files: serde_json::Map<String, serde_json::Value> = variants
                .iter()
                .map(|v| (v.name.to_string(), json!(v.path.to_string_lossy())))
                .collect();
            let out = run_pyarrow(&py, &serde_json::Value::Object(files), &cfg)?;
            py_version = Some(out.0);
            for (case, s, n) in out.1 {
                ensure!(n == rows, "pyarrow {case}: {n} rows");
                cells.insert(format!("{case} pyarrow"), s.stats().median_ns as f64 / 1e6);
            }
        }
    }
    let page_bytes = variants[0].bytes as usize;
    let (enc, dec, ctr) = aes_floor(page_bytes)?;
    print_table(&cells, py_version.as_deref(), page_bytes, (enc, dec, ctr));
    if let Some(path) = &args.json {
        let out: Vec<_> = cells
            .iter()
            .map(|(k, v)| {
                let (case, imp) = k.split_once(' ').unwrap_or((k, ""));
                json!({"case": case, "impl": imp, "median_ms": v, "rows": rows})
            })
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&out)?)?;
    }
    Ok(())
}

type PeerCells = (String, Vec<(String, Samples, usize)>);

fn run_pyarrow(py: &Python, files: &serde_json::Value, cfg: &MeasureConfig) -> Result<PeerCells> {
    let v = run_harness_script(py, PYARROW, vec![OsString::from(files.to_string())], cfg)?;
    let version = v["version"].as_str().unwrap_or("?").to_string();
    let mut out = Vec::new();
    for c in v["cells"].as_array().context("pyarrow cells")? {
        let case = c["case"].as_str().context("case")?.to_string();
        let rows = c["rows"].as_u64().context("rows")? as usize;
        out.push((case, json_samples(c)?, rows));
    }
    Ok((version, out))
}

fn print_table(
    cells: &BTreeMap<String, f64>,
    pyarrow: Option<&str>,
    page_bytes: usize,
    (enc, dec, ctr): (Duration, Duration, Duration),
) {
    let get = |case: &str, imp: &str| cells.get(&format!("{case} {imp}")).copied();
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => format!("{:.2}x", b / a),
        _ => "-".to_string(),
    };
    println!(
        "{:<12} {:>9} {:>13} {:>9} {:>10} {:>10}",
        "case (ms)", "parq", "parquet-60.1", "pyarrow", "vs 60.1", "vs pyarrow"
    );
    for case in [
        "read-plain",
        "read-gcm",
        "read-ctr",
        "write-plain",
        "write-gcm",
        "write-ctr",
    ] {
        let (p, r, a) = (
            get(case, "parq"),
            get(case, "parquet-60.1"),
            get(case, "pyarrow"),
        );
        println!(
            "{case:<12} {:>9} {:>13} {:>9} {:>10} {:>10}",
            show(p),
            show(r),
            show(a),
            ratio(p, r),
            ratio(p, a)
        );
    }
    let own = |case: &str| match (
        get(case, "parq"),
        get(
            case.replace("gcm", "plain")
                .replace("ctr", "plain")
                .as_str(),
            "parq",
        ),
    ) {
        (Some(e), Some(p)) if p > 0.0 => format!("{:.3}", e / p),
        _ => "-".to_string(),
    };
    println!(
        "parq encrypted / own plaintext: read GCM {} CTR {}, write GCM {} CTR {}",
        own("read-gcm"),
        own("read-ctr"),
        own("write-gcm"),
        own("write-ctr")
    );
    println!(
        "limit, one thread over {page_bytes} bytes (the plaintext file): AES-GCM encrypt {:.0} ms, \
         decrypt {:.0} ms, AES-CTR {:.0} ms",
        ms(enc),
        ms(dec),
        ms(ctr)
    );
    if let Some(v) = pyarrow {
        println!("pyarrow {v}");
    }
}
