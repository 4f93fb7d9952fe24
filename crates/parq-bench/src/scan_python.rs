//! The out-of-process peers of `parq-bench scan`: pyarrow (`pq.read_table(path,
//! filters=..., use_threads=...)`) and polars (`pl.scan_parquet(path).filter(...).collect()`,
//! `POLARS_MAX_THREADS=1` set before the import for single-threaded queries), timed in a
//! Python child with the harness's rules ([`run_harness_script`]).
//!
//! After timing a query the child reads it once more, untimed, between two readings of
//! `rchar` in `/proc/self/io` (bytes the process got from `read`/`pread` calls, all threads;
//! the cost of reading `/proc/self/io` itself taken off): the bytes read from the file. A
//! reader that maps the file instead reads (almost) nothing that way; then the bytes are
//! reported as unknown (`mmap`) rather than guessed.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{ensure, Context, Result};
use serde_json::{json, Value};

use crate::measure::{MeasureConfig, Samples};
use crate::peers::{json_samples, run_harness_script, Python};
use crate::scan_data::TS_BASE_US;
use crate::scan_impls::{Answer, Query};
use crate::workload::{POLARS, PYARROW};

/// Fewer bytes than this through `read` calls for a whole query means the file was mapped.
const MMAP_BELOW: u64 = 4096;

/// argv: path, peer (pyarrow | polars), threads (1 | all), the queries as JSON
/// (`[{"name", "terms": [[column, op, value], ...]}]`), `ts`'s base (the checksum of `ts`
/// is the sum of `ts - base`), then the harness's rules. Prints
/// `{"version", "threads", "queries": [{"name", "samples_ns", "iterations", "answer",
/// "bytes_read", "mmap"}]}`.
const SCRIPT: &str = r#"
import json, operator, os, sys, time
from functools import reduce
path, peer, threads, queries = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
TS_BASE = int(sys.argv[5])
exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = map(int, sys.argv[6:12])
if peer == "polars" and threads == "1":
    os.environ["POLARS_MAX_THREADS"] = "1"
if peer == "pyarrow":
    import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
    version, pool_threads = pa.__version__, pa.cpu_count()
    def read(terms):
        filters = [tuple(t) for t in terms] or None
        return pq.read_table(path, filters=filters, use_threads=threads != "1")
    def answer(t):
        s = lambda a: pc.sum(a).as_py() or 0
        return {"rows": t.num_rows, "sum_id": s(t["id"]),
            "sum_ts": s(pc.subtract(t["ts"].cast(pa.int64()), TS_BASE)),
            "sum_qty": s(t["qty"]), "null_qty": t["qty"].null_count,
            "tag_bytes": s(pc.binary_length(t["tag"])), "sum_value": s(t["value"])}
else:
    import polars as pl
    version, pool_threads = pl.__version__, pl.thread_pool_size()
    OPS = {"==": operator.eq, ">=": operator.ge, "<": operator.lt}
    def read(terms):
        lf = pl.scan_parquet(path)
        if terms:
            lf = lf.filter(reduce(operator.and_, [OPS[op](pl.col(c), v) for c, op, v in terms]))
        return lf.collect()
    def answer(df):
        return {"rows": df.height, "sum_id": df["id"].sum(),
            "sum_ts": (df["ts"].cast(pl.Int64) - TS_BASE).sum(),
            "sum_qty": df["qty"].cast(pl.Int64).sum(), "null_qty": df["qty"].null_count(),
            "tag_bytes": df["tag"].str.len_bytes().sum(), "sum_value": df["value"].sum()}
def rchar():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
out = []
for q in queries:
    terms = q["terms"]
    def once():
        t = time.perf_counter_ns()
        r = read(terms)
        return time.perf_counter_ns() - t, r
    samples, last = measure(once, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
    ans = answer(last)
    del last
    a = rchar(); b = rchar(); own = b - a
    a = rchar(); r = read(terms); b = rchar()
    del r
    out.append({"name": q["name"], "samples_ns": samples, "iterations": len(samples),
        "answer": ans, "bytes_read": b - a - own})
print(json.dumps({"version": version, "threads": pool_threads, "queries": out}))
"#;

/// One query measured by a Python peer.
pub struct PeerRun {
    pub query: &'static str,
    pub samples: Samples,
    pub answer: Answer,
    /// Bytes read from the file; `None` when the peer mapped it.
    pub bytes_read: Option<u64>,
    /// The threads the peer's pool has (pyarrow: `cpu_count`; polars: `thread_pool_size`).
    pub pool_threads: u64,
    pub version: String,
}

/// Whether `py` can import polars.
pub fn has_polars(py: &Python) -> bool {
    let ok = std::process::Command::new(&py.path)
        .args(["-c", "import polars"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "note: {} cannot import polars; skipping the polars peer",
            py.path.display()
        );
    }
    ok
}

/// Runs `queries` (all threaded or all single-threaded, as `threaded` says) with `peer` in
/// one Python child on the file at `path`.
pub fn run_peer(
    py: &Python,
    peer: &'static str,
    path: &Path,
    queries: &[&Query],
    threaded: bool,
    cfg: &MeasureConfig,
) -> Result<Vec<PeerRun>> {
    ensure!(peer == PYARROW || peer == POLARS, "unknown peer {peer}");
    let spec: Vec<Value> = queries
        .iter()
        .map(|q| json!({"name": q.name, "terms": q.filter.terms()}))
        .collect();
    let args: Vec<OsString> = vec![
        path.into(),
        peer.into(),
        (if threaded { "all" } else { "1" }).into(),
        Value::Array(spec).to_string().into(),
        TS_BASE_US.to_string().into(),
    ];
    let v = run_harness_script(py, SCRIPT, args, cfg).with_context(|| format!("{peer} child"))?;
    let version = v["version"].as_str().unwrap_or("?").to_string();
    let pool_threads = v["threads"].as_u64().unwrap_or(0);
    let runs = v["queries"]
        .as_array()
        .context("the output lacks queries")?;
    ensure!(
        runs.len() == queries.len(),
        "{peer} ran {} queries",
        runs.len()
    );
    queries
        .iter()
        .zip(runs)
        .map(|(q, r)| {
            ensure!(
                r["name"] == q.name,
                "{peer} answered {} for {}",
                r["name"],
                q.name
            );
            let bytes = r["bytes_read"].as_i64().context("bytes_read")?.max(0) as u64;
            Ok(PeerRun {
                query: q.name,
                samples: json_samples(r)?,
                answer: Answer::from_json(&r["answer"])?,
                bytes_read: (bytes >= MMAP_BELOW).then_some(bytes),
                pool_threads,
                version: version.clone(),
            })
        })
        .collect()
}
