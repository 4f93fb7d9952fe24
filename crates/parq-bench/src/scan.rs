//! The `scan` command: selective reads of a sorted table as a query engine does them, parq
//! vs `parquet` 60.1.0 vs pyarrow vs polars, every query returning all columns of the
//! matching rows.
//!
//! The table ([`crate::scan_data`]): about 1 GB (`--quick`: 100 MB) written once by parq,
//! sorted by `id`. The queries ([`Query::all`]): a point lookup, ranges of 1% and 50% of the
//! keys (one thread each), and the full scan with every implementation's threads (`parquet`
//! 60.1.0 has none). Each call opens the file and reads the footer: nothing is cached between
//! calls but the OS page cache, warm for all. parq and 60.1 hand out batches of parq's default
//! size; each implementation's whole result is collected (a `Vec` of batches, a `pa.Table`, a
//! `pl.DataFrame`).
//!
//! Before any clock, parq's answer is checked against the keys (rows, sum of `id`) and 60.1's
//! against parq's (arrays equal for the point and 1% queries, [`Answer`] checksums for the
//! others); every timed call's result (the last of each timed batch) and each Python run's is
//! checked against the same checksums. Bytes read from storage: parq and 60.1 count their
//! positional reads of the file (footer and page index included); the Python peers count
//! `rchar` ([`crate::scan_python`]). Measured in [`ROUNDS`] rounds: the Rust readers
//! interleaved by [`measure`], then each Python peer in a child process, so drift hits all.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use serde_json::json;

use crate::decode::{compare, facts};
use crate::footer::check_writable;
use crate::measure::{measure, timed_simple, Case, MeasureArgs, Samples};
use crate::peers::{find_python, Python};
use crate::report::{
    fmt_ms, fmt_speedup, machine_line, render_table, target_summary, write_json_values, Tally,
};
use crate::scan_data::{ensure_table, CODECS, DEFAULT_ROWS, QUICK_ROWS};
use crate::scan_floor::{codec_floor, file_bytes};
use crate::scan_impls::{read_60, read_parq, Answer, ParqSource, Query, Scanned};
use crate::scan_python::{has_polars, run_peer};
use crate::worker::ROUNDS;
use crate::workload::{selected_impls, Facts, Mode, PARQ, PARQUET_60, POLARS, PYARROW};

/// Targets: parq at least this much faster than 60.1 and pyarrow on each selective query ...
pub const TARGET_SELECTIVE: f64 = 2.0;
/// ... and than pyarrow and polars on the full scan, all with threads.
pub const TARGET_FULL_SCAN: f64 = 1.5;

#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// The 100 MB table (4.5 million rows) instead of the 1 GB one (45 million).
    #[arg(long)]
    pub quick: bool,
    /// Rows of the table instead of the preset.
    #[arg(long, value_name = "N", conflicts_with = "quick")]
    pub rows: Option<usize>,
    /// Only these queries (comma separated) [default: all].
    #[arg(long, value_name = "QUERY", value_delimiter = ',', value_parser = Query::NAMES)]
    pub queries: Vec<String>,
    /// parq and `parquet` 60.1 read the `tag` strings as `Utf8View` (views into the
    /// dictionary pages, as query engines such as DataFusion and polars hold strings)
    /// instead of `Utf8`; pyarrow reads them as `string` either way.
    #[arg(long)]
    pub views: bool,
    /// parq reads the file through a memory mapping (`parq::read::MappedFile`, as polars
    /// reads local files) instead of positional reads.
    #[arg(long)]
    pub mmap: bool,
    /// The page codec of the table (`none` shows the decode path without a codec).
    #[arg(long, value_name = "CODEC", default_value = "snappy", value_parser = CODECS)]
    pub codec: String,
    /// Threads parq reads the full scan with [default: the available cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Only these Rust implementations (comma separated; default: both).
    #[arg(long, value_name = "IMPL", value_delimiter = ',', value_parser = [PARQ, PARQUET_60])]
    pub impls: Vec<String>,
    /// Peers measured out of process (comma separated; `none` for neither).
    #[arg(long, value_name = "PEER", value_delimiter = ',', default_value = "pyarrow,polars",
        value_parser = [PYARROW, POLARS, "none"])]
    pub peers: Vec<String>,
    /// Python interpreter with pyarrow (and polars) (default: $PARQ_PYTHON,
    /// `<workspace>/.venv/bin/python`, python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Directory of the cached table (default: `<workspace>/target/parq-bench-data`).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Write every cell as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// One measured cell: a query and an implementation.
#[derive(Debug)]
pub struct ScanCell {
    pub query: &'static str,
    pub imp: &'static str,
    /// Threads the implementation read with.
    pub threads: usize,
    pub samples: Samples,
    /// Bytes read from the file by one call (`None`: unknown, the peer mapped the file).
    pub bytes_read: Option<u64>,
    pub version: String,
}

/// What the run is about, for the tables and the JSON.
struct Setup {
    path: PathBuf,
    rows: usize,
    file_bytes: u64,
    queries: Vec<Query>,
    /// parq's threads for the full scan.
    threads: usize,
    /// The Rust implementations read strings as `Utf8View`.
    views: bool,
    /// How parq reads the file.
    parq_source: ParqSource,
    /// The page codec's `--codec` name.
    codec: String,
}

impl Setup {
    fn query(&self, name: &str) -> Option<&Query> {
        self.queries.iter().find(|q| q.name == name)
    }
}

/// The threads `imp` reads `q` with in-process.
fn rust_threads(imp: &str, q: &Query, threads: usize) -> usize {
    if imp == PARQ && q.threaded {
        threads
    } else {
        1
    }
}

/// One read of `q` by a Rust implementation.
fn read(imp: &str, setup: &Setup, q: &Query) -> Result<Scanned> {
    let batch_size = parq::read::ReadOptions::default().batch_size;
    let (path, views) = (&setup.path, setup.views);
    match imp {
        PARQ => read_parq(
            path,
            q.filter,
            rust_threads(imp, q, setup.threads),
            views,
            setup.parq_source,
        ),
        _ => read_60(path, q.filter, batch_size, views),
    }
}

/// parq's answer to `q`, checked against the keys, and each Rust implementation's bytes read;
/// 60.1's answer checked against parq's.
fn check_rust(
    setup: &Setup,
    q: &Query,
    impls: &[&'static str],
) -> Result<(Answer, Vec<(&'static str, u64)>)> {
    let parq = read(PARQ, setup, q).context("parq")?;
    let answer = Answer::of(&parq.batches)?;
    let rows = q.filter.matching_rows(setup.rows);
    let (lo, hi) = q.filter.bounds().unwrap_or((0, setup.rows as i64));
    let (lo, hi) = (lo.max(0) as i128, hi.min(setup.rows as i64) as i128);
    let sum_id = ((lo + hi - 1) * (hi - lo) / 2) as i64;
    ensure!(
        answer.rows == rows && answer.sum_id == sum_id,
        "parq found {} rows (sum of id {}), expected {rows} ({sum_id})",
        answer.rows,
        answer.sum_id
    );
    let mut bytes = vec![(PARQ, parq.bytes_read)];
    if impls.contains(&PARQUET_60) {
        let p60 = read(PARQUET_60, setup, q).context("parquet 60.1.0")?;
        if rows <= (setup.rows as u64 / 100).max(1) {
            compare(&parq.batches, &p60.batches, "parquet 60.1.0 vs parq")?;
        }
        Answer::of(&p60.batches)?.check(&answer, PARQUET_60)?;
        bytes.push((PARQUET_60, p60.bytes_read));
    }
    Ok((answer, bytes))
}

/// A Rust implementation's case for `q`: every timed batch's last result checked against
/// `expected`.
fn rust_case<'a>(setup: &'a Setup, q: &'a Query, imp: &'static str, expected: Answer) -> Case<'a> {
    let shape = Facts {
        num_rows: Some(expected.rows as i64),
        row_groups: 0,
        column_chunks: crate::scan_data::schema().fields().len(),
    };
    Case::new(imp, Mode::Decode, shape, None, move |n| {
        let mut answer = None;
        let (elapsed, facts) = timed_simple(
            n,
            || read(imp, setup, q),
            |s| {
                answer = Some(Answer::of(&s.batches));
                facts(&s.batches)
            },
        )?;
        answer.context("no call")??.check(&expected, imp)?;
        Ok((elapsed, facts))
    })
}

/// Adds `samples` to the cell of (`query`, `imp`), creating it with the other fields.
fn merge_cell(cells: &mut Vec<ScanCell>, cell: ScanCell) {
    match cells
        .iter_mut()
        .find(|c| c.query == cell.query && c.imp == cell.imp)
    {
        Some(c) => c.samples.merge(cell.samples),
        None => cells.push(cell),
    }
}

/// Python and the peers it can run, announced on stderr.
fn python_peers(args: &ScanArgs, root: &Path) -> (Option<Python>, Vec<&'static str>) {
    let wanted: Vec<&'static str> = [PYARROW, POLARS]
        .into_iter()
        .filter(|p| args.peers.iter().any(|a| a == p))
        .collect();
    if wanted.is_empty() {
        return (None, wanted);
    }
    let Some(py) = find_python(args.python.as_deref(), root) else {
        return (None, Vec::new());
    };
    let peers: Vec<&'static str> = wanted
        .into_iter()
        .filter(|&p| p == PYARROW || has_polars(&py))
        .collect();
    eprintln!("{} via {}", peers.join(" and "), py.path.display());
    (Some(py), peers)
}

pub fn run(args: &ScanArgs, root: &Path) -> Result<()> {
    check_writable(&args.json)?;
    let rows = args
        .rows
        .unwrap_or(if args.quick { QUICK_ROWS } else { DEFAULT_ROWS });
    ensure!(rows > 0, "--rows must be at least 1");
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| root.join("target/parq-bench-data"));
    let path = ensure_table(rows, &args.codec, &data_dir)?;
    let file_bytes = std::fs::metadata(&path)?.len();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let setup = Setup {
        rows,
        file_bytes,
        queries: Query::all(rows)
            .into_iter()
            .filter(|q| args.queries.is_empty() || args.queries.iter().any(|n| n == q.name))
            .collect(),
        threads: args.threads.map_or(cores, usize::from),
        views: args.views,
        parq_source: if args.mmap {
            ParqSource::Mmap
        } else {
            ParqSource::Pread
        },
        codec: args.codec.clone(),
        path,
    };
    let impls = selected_impls(&[PARQUET_60, PARQ], &args.impls);
    let (python, peers) = python_peers(args, root);
    let cfg = args.measure.config();
    eprintln!(
        "{} ({:.1} MB, {rows} rows, {}) before measuring",
        machine_line(),
        file_bytes as f64 / 1e6,
        args.codec
    );

    let mut expected = Vec::new();
    let mut cells: Vec<ScanCell> = Vec::new();
    for q in &setup.queries {
        let (answer, bytes) = check_rust(&setup, q, &impls).with_context(|| q.name)?;
        expected.push(answer);
        for (imp, b) in bytes.into_iter().filter(|(i, _)| impls.contains(i)) {
            cells.push(ScanCell {
                query: q.name,
                imp,
                threads: rust_threads(imp, q, setup.threads),
                samples: Samples::default(),
                bytes_read: Some(b),
                version: String::new(),
            });
        }
    }

    let round_cfg = cfg.per_round(ROUNDS);
    for round in 0..cfg.rounds(ROUNDS) {
        eprintln!("round {}: {}", round + 1, impls.join(", "));
        let mut cases = Vec::new();
        for (q, &answer) in setup.queries.iter().zip(&expected) {
            for &imp in &impls {
                cases.push((q.name, rust_case(&setup, q, imp, answer)));
            }
        }
        let (names, mut cases): (Vec<_>, Vec<_>) = cases.into_iter().unzip();
        let samples = measure(&mut cases, &round_cfg)?;
        for ((query, case), samples) in names.into_iter().zip(&cases).zip(samples) {
            let cell = cells
                .iter_mut()
                .find(|c| c.query == query && c.imp == case.imp);
            cell.context("a checked cell")?.samples.merge(samples);
        }
        drop(cases);
        let Some(py) = &python else { continue };
        for &peer in &peers {
            for threaded in [false, true] {
                let qs: Vec<&Query> = setup
                    .queries
                    .iter()
                    .filter(|q| q.threaded == threaded)
                    .collect();
                if qs.is_empty() {
                    continue;
                }
                eprintln!("round {}: {peer} (threads: {threaded})", round + 1);
                for r in run_peer(py, peer, &setup.path, &qs, threaded, &round_cfg)? {
                    let i = setup.queries.iter().position(|q| q.name == r.query);
                    let i = i.context("a query of the run")?;
                    r.answer.check(&expected[i], peer)?;
                    merge_cell(
                        &mut cells,
                        ScanCell {
                            query: r.query,
                            imp: peer,
                            // pyarrow's pool is there with use_threads=False too;
                            // polars' pool is what POLARS_MAX_THREADS left.
                            threads: if threaded || peer == POLARS {
                                r.pool_threads as usize
                            } else {
                                1
                            },
                            samples: r.samples,
                            bytes_read: r.bytes_read,
                            version: r.version,
                        },
                    );
                }
            }
        }
    }

    println!("{} after measuring", machine_line());
    print!("{}", render_scan_table(&setup, &expected, &cells));
    print!("{}", floor_line(&setup)?);
    if let Some(p) = &args.json {
        write_json(&setup, &expected, &cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The codec floor of each query ([`crate::scan_floor`]).
fn floor_line(setup: &Setup) -> Result<String> {
    let bytes = file_bytes(&setup.path)?;
    let mut parts = Vec::new();
    for q in &setup.queries {
        let rows = q
            .filter
            .bounds()
            .map(|(lo, hi)| (lo.max(0) as u64, hi.max(0) as u64));
        let ns = u64::try_from(codec_floor(&bytes, rows)?.as_nanos()).unwrap_or(u64::MAX);
        parts.push(match q.threaded {
            true => format!(
                "{} {} ({} on {} threads)",
                q.name,
                fmt_ms(ns),
                fmt_ms(ns / setup.threads.max(1) as u64),
                setup.threads
            ),
            false => format!("{} {}", q.name, fmt_ms(ns)),
        });
    }
    Ok(format!(
        "codec floor, ms (one thread decompressing the pages that hold each query's rows, all \
         columns, with parq's page reader): {}\n",
        parts.join(", ")
    ))
}

fn find<'c>(cells: &'c [ScanCell], query: &str, imp: &str) -> Option<&'c ScanCell> {
    cells.iter().find(|c| c.query == query && c.imp == imp)
}

/// Bytes as MB with about three significant digits.
fn fmt_mb(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    match mb {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 10.0 => format!("{m:.1}"),
        m if m >= 1.0 => format!("{m:.2}"),
        m => format!("{m:.3}"),
    }
}

/// The results table, what each query is, and the target summary.
fn render_scan_table(setup: &Setup, expected: &[Answer], cells: &[ScanCell]) -> String {
    const IMPLS: [(&str, &str); 4] = [
        (PARQ, "parq"),
        (PARQUET_60, "60.1"),
        (PYARROW, "pyarrow"),
        (POLARS, "polars"),
    ];
    let mut headers = vec!["Query".to_string(), "rows".to_string()];
    headers.extend(IMPLS.iter().map(|(_, s)| format!("{s}\nms")));
    headers.extend(
        IMPLS[1..]
            .iter()
            .map(|(_, s)| format!("parq speedup\nvs {s}")),
    );
    headers.extend(IMPLS.iter().map(|(_, s)| format!("{s}\nMB read")));
    let stats = |c: &ScanCell| c.samples.stats();
    let speedup = |q: &str, peer: &str| {
        let parq = find(cells, q, PARQ)?;
        let peer = find(cells, q, peer)?;
        Some(stats(peer).median_ns as f64 / stats(parq).median_ns.max(1) as f64)
    };
    let bytes_ratio = |q: &str, peer: &str| {
        let parq = find(cells, q, PARQ)?.bytes_read?;
        Some(find(cells, q, peer)?.bytes_read? as f64 / parq.max(1) as f64)
    };
    let mut rows = Vec::new();
    let (mut sel_60, mut sel_py, mut bytes_60, mut bytes_py, mut full_py, mut full_pl) = (
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
    );
    for (q, answer) in setup.queries.iter().zip(expected) {
        let mut row = vec![q.name.to_string(), answer.rows.to_string()];
        row.extend(IMPLS.iter().map(|(i, _)| {
            find(cells, q.name, i).map_or("-".into(), |c| fmt_ms(stats(c).median_ns))
        }));
        row.extend(
            IMPLS[1..]
                .iter()
                .map(|(i, _)| speedup(q.name, i).map_or("-".into(), fmt_speedup)),
        );
        row.extend(IMPLS.iter().map(|(i, _)| match find(cells, q.name, i) {
            None => "-".into(),
            Some(c) => c.bytes_read.map_or("n/a (mmap)".into(), fmt_mb),
        }));
        rows.push(row);
        if q.threaded {
            full_py.add(q.name, speedup(q.name, PYARROW), |s| s < TARGET_FULL_SCAN);
            full_pl.add(q.name, speedup(q.name, POLARS), |s| s < TARGET_FULL_SCAN);
        } else {
            sel_60.add(q.name, speedup(q.name, PARQUET_60), |s| {
                s < TARGET_SELECTIVE
            });
            sel_py.add(q.name, speedup(q.name, PYARROW), |s| s < TARGET_SELECTIVE);
            bytes_60.add(q.name, bytes_ratio(q.name, PARQUET_60), |r| r <= 1.0);
            bytes_py.add(q.name, bytes_ratio(q.name, PYARROW), |r| r <= 1.0);
        }
    }
    let mut out = format!(
        "Selective reads of a {:.1} MB table ({} rows sorted by id), median ms per query \
         (open, footer and all columns of the matching rows)\n",
        setup.file_bytes as f64 / 1e6,
        setup.rows
    );
    out.push_str(&render_table(&headers, &rows));
    for q in &setup.queries {
        let threads: Vec<String> = IMPLS
            .iter()
            .filter_map(|(i, s)| find(cells, q.name, i).map(|c| format!("{s} {}", c.threads)))
            .collect();
        out.push_str(&format!(
            "  {}: {} (threads: {})\n",
            q.name,
            q.filter.sql().unwrap_or_else(|| "no filter".into()),
            threads.join(", ")
        ));
    }
    out.push_str(if setup.views {
        "  strings: parq and 60.1 Utf8View (views into the dictionary pages), pyarrow string, \
         polars its own views\n"
    } else {
        "  strings: parq, 60.1 and pyarrow Utf8 / string, polars its own views\n"
    });
    if setup.parq_source == ParqSource::Mmap {
        out.push_str("  parq reads the file through a memory mapping (--mmap)\n");
    }
    let versions: Vec<String> = [PYARROW, POLARS]
        .iter()
        .filter_map(|p| {
            cells
                .iter()
                .find(|c| c.imp == *p)
                .map(|c| format!("{p} {}", c.version))
        })
        .collect();
    if !versions.is_empty() {
        out.push_str(&format!(
            "  peers: {}; bytes read: parq and 60.1 count their reads of the file, the Python \
             peers the process's rchar\n",
            versions.join(", ")
        ));
    }
    target_summary(&mut out, "parquet 60.1.0", TARGET_SELECTIVE, &sel_60);
    target_summary(&mut out, "pyarrow (1 thread)", TARGET_SELECTIVE, &sel_py);
    for (peer, tally) in [("parquet 60.1.0", &bytes_60), ("pyarrow", &bytes_py)] {
        if tally.n > 0 {
            out.push_str(&format!(
                "target parq reads fewer bytes than {peer} on each selective query: met in {} \
                 of {}\n",
                tally.n - tally.misses.len(),
                tally.n
            ));
            for (q, r) in &tally.misses {
                out.push_str(&format!(
                    "  missed: {q} ({peer} reads {r:.2}x parq's bytes)\n"
                ));
            }
        }
    }
    target_summary(&mut out, "pyarrow (threads)", TARGET_FULL_SCAN, &full_py);
    target_summary(&mut out, "polars (threads)", TARGET_FULL_SCAN, &full_pl);
    out
}

/// Writes the cells in the `footer --json` shape, plus the query's details.
fn write_json(setup: &Setup, expected: &[Answer], cells: &[ScanCell], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = cells
        .iter()
        .filter_map(|c| {
            let i = setup.queries.iter().position(|q| q.name == c.query)?;
            let q = setup.query(c.query)?;
            let s = c.samples.stats();
            Some(json!({
                "dataset": format!("scan {} rows", setup.rows),
                "codec": setup.codec,
                "query": c.query,
                "filter": q.filter.sql(),
                "impl": c.imp,
                "mode": "scan",
                "threads": c.threads,
                "strings": match (setup.views, c.imp) {
                    (true, PARQ | PARQUET_60) => "utf8_view",
                    (_, POLARS) => "polars",
                    _ => "utf8",
                },
                "median_ns": s.median_ns,
                "min_ns": s.min_ns,
                "iterations": s.iterations,
                "rows": expected[i].rows,
                "bytes_read": c.bytes_read,
                "file_bytes": setup.file_bytes,
                "table_rows": setup.rows,
                "version": (!c.version.is_empty()).then_some(&c.version),
            }))
        })
        .collect();
    write_json_values(&values, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan_impls::Filter;

    #[test]
    fn queries_and_their_forms() {
        let qs = Query::all(1000);
        assert_eq!(qs.len(), 4);
        assert_eq!(qs[0].filter, Filter::Eq(370));
        assert_eq!(qs[0].filter.sql().unwrap(), "id = 370");
        assert_eq!(qs[1].filter.matching_rows(1000), 10);
        assert_eq!(qs[2].filter.matching_rows(1000), 500);
        assert_eq!(
            qs[2].filter.terms(),
            json!([["id", ">=", 370], ["id", "<", 870]])
        );
        assert!(qs[3].threaded && !qs[0].threaded);
        assert_eq!(qs[3].filter.matching_rows(1000), 1000);
        assert_eq!(fmt_mb(1_234_567), "1.23");
    }

    #[test]
    fn parq_and_parquet_60_answer_every_query_alike() {
        let dir = std::env::temp_dir().join(format!("parq-bench-scan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let rows = 250_000;
        crate::scan_data::write_table(&path, rows, 60_000, parq::write::Codec::SNAPPY).unwrap();
        let mut setup = Setup {
            file_bytes: std::fs::metadata(&path).unwrap().len(),
            path,
            rows,
            queries: Query::all(rows),
            threads: 2,
            views: false,
            parq_source: ParqSource::Pread,
            codec: "snappy".into(),
        };
        for (views, from) in [
            (false, ParqSource::Pread),
            (true, ParqSource::Pread),
            (false, ParqSource::Mmap),
        ] {
            setup.views = views;
            setup.parq_source = from;
            for q in &setup.queries {
                let (answer, bytes) = check_rust(&setup, q, &[PARQ, PARQUET_60]).unwrap();
                assert_eq!(answer.rows, q.filter.matching_rows(rows), "{}", q.name);
                assert!(answer.null_qty > 0 || answer.rows < 1000, "{}", q.name);
                assert!(answer.tag_bytes >= 10 * answer.rows, "{}", q.name);
                assert!(bytes.iter().all(|&(_, b)| b > 0), "{}", q.name);
            }
        }
        // A wrong answer is caught.
        let q = &setup.queries[1];
        let (answer, _) = check_rust(&setup, q, &[PARQ]).unwrap();
        let read = read(PARQUET_60, &setup, &setup.queries[2]).unwrap();
        assert!(Answer::of(&read.batches)
            .unwrap()
            .check(&answer, "x")
            .is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
