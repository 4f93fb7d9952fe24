//! `parq-bench`: benchmarks of parq against its peers (`parquet` 56.2.0 and 60.1.0, pyarrow,
//! polars).
//!
//! - `parq-bench footer`: the parquet_footer_parsing benchmark (footer and page index decode
//!   on Float / String tables of 100 to 100,000 columns x 20 row groups).
//! - `parq-bench footer-study`: the wide-table study (footer size, decode time per column and
//!   writer memory by statistics level).
//! - `parq-bench decode`: column data decode (every encoding, codec and nullability) into
//!   Arrow, parq vs `parquet` 60.1.0 / pyarrow.
//! - `parq-bench encode`: the same cases written from Arrow to Parquet, parq vs `parquet`
//!   60.1.0's ArrowWriter / pyarrow (time, output size, peak memory).
//! - `parq-bench encode-wide`: one 100,000-column write per process (time, peak RSS).
//! - `parq-bench memory`: peak heap of a streaming read, parq vs `parquet` 60.1.0.
//! - `parq-bench scan`: selective reads (point lookup, 1% and 50% key ranges, full scan with
//!   threads) of a sorted 1 GB table, parq vs `parquet` 60.1.0 (page index, row-group and
//!   page pruning, row filter) / pyarrow / polars: time and bytes read from storage.
//! - `parq-bench tpch` (feature `datafusion`): TPC-H through DataFusion, parq's table
//!   provider vs DataFusion's built-in Parquet reader.
//!
//! Flow: datasets (generated once, cached) -> workload (modes, selections) -> worker (one
//! process per implementation and round) -> peers / parq_impl (one `Case` per implementation
//! and mode) -> measure (interleaved) -> report / plot. `scan`: scan_data (the table) ->
//! scan_impls (queries, parq and 60.1 reads) / scan_python (pyarrow, polars) -> measure ->
//! scan (rounds, checks, table).

mod alloc;
mod crypto;
mod dataset_scan;
mod datasets;
mod decode;
mod decode_cases;
mod encode;
mod encode_pyarrow;
mod encode_wide;
mod footer;
mod measure;
mod memory;
mod nested_cases;
mod parq_impl;
mod peers;
mod plot;
mod report;
mod scan;
mod scan_data;
mod scan_floor;
mod scan_impls;
mod scan_python;
mod study;
#[cfg(feature = "datafusion")]
mod tpch;
mod wide_read;
mod worker;
mod workload;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[global_allocator]
static GLOBAL: alloc::CountingAlloc = alloc::CountingAlloc;

#[derive(Parser, Debug)]
#[command(name = "parq-bench", about = "Benchmarks of parq against its peers")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Footer (FileMetaData) and page index decode times, parq vs parquet 56.2 / 60.1 / pyarrow.
    Footer(footer::FooterArgs),
    /// Wide-table study: footer size, decode time per column and writer memory by statistics level.
    FooterStudy(study::StudyArgs),
    /// Column data decode into Arrow, per encoding and codec, parq vs parquet 60.1 / pyarrow.
    Decode(decode::DecodeArgs),
    /// Arrow to Parquet writes of the decode cases, parq vs parquet 60.1 / pyarrow.
    Encode(decode::DecodeArgs),
    /// A wide write (100,000 Float32 columns x 20 row groups by default), one process per writer.
    EncodeWide(encode_wide::WideArgs),
    /// Internal: one wide write in this process, the facts printed as JSON.
    #[command(hide = true)]
    EncodeWideWorker(encode_wide::WideWorkerArgs),
    /// Internal: measure one implementation on one file, print the samples as JSON.
    #[command(hide = true)]
    Worker(worker::WorkerArgs),
    /// Peak heap growth of a streaming read of one 610 MB row group, parq vs parquet 60.1.
    Memory(memory::MemoryArgs),
    /// Selective reads of a sorted 1 GB table (point, 1%, 50%, full scan), parq vs parquet
    /// 60.1 / pyarrow / polars: time and bytes read.
    Scan(scan::ScanArgs),
    /// Encrypted reads and writes (AES_GCM_V1, AES_GCM_CTR_V1) of the 1 GB scan table, parq vs
    /// parquet 60.1 / pyarrow with the same keys, beside plaintext and the AES limit.
    Crypto(crypto::CryptoArgs),
    /// The codec floor of files: one thread's time to decompress all their pages.
    CodecFloor(scan_floor::FloorArgs),
    /// Datasets from S3 (moto behind a latency proxy) and local disk, parq vs
    /// pyarrow.dataset / polars: time, requests and bytes (`python/bench_dataset.py`).
    Dataset(dataset_scan::DatasetArgs),
    /// 100 named columns of a wide file read into Arrow (the footer grid's Float datasets and
    /// parq's indexed copies), parq vs parquet 60.1, one thread.
    WideRead(wide_read::WideReadArgs),
    /// TPC-H's 22 queries through DataFusion, parq's table provider vs DataFusion's own
    /// Parquet reader (feature `datafusion`).
    #[cfg(feature = "datafusion")]
    Tpch(tpch::TpchArgs),
    /// Re-print the footer tables (and optionally redraw the charts) from a `footer --json` file.
    Report(ReportArgs),
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// Cells written by `parq-bench footer --json`.
    #[arg(value_name = "RESULTS.json")]
    input: PathBuf,
    /// Draw the charts into a PNG.
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
}

fn report(args: &ReportArgs) -> anyhow::Result<()> {
    let cells = report::read_json(&args.input)?;
    report::print_footer_tables(&cells);
    if let Some(p) = &args.plot {
        plot::draw(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The workspace root (two levels above this crate), home of `target/` and `.venv/`.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let result = match &cli.command {
        Command::Footer(args) => footer::run(args, &root),
        Command::FooterStudy(args) => study::run(args, &root),
        Command::Decode(args) => decode::run(args, &root),
        Command::Encode(args) => encode::run(args, &root),
        Command::EncodeWide(args) => encode_wide::run(args, &root),
        Command::EncodeWideWorker(args) => encode_wide::worker_main(args),
        Command::Memory(args) => memory::run(args, &root),
        Command::Scan(args) => scan::run(args, &root),
        Command::Crypto(args) => crypto::run(args, &root),
        Command::CodecFloor(args) => scan_floor::run(args),
        Command::Dataset(args) => dataset_scan::run(args, &root),
        Command::WideRead(args) => wide_read::run(args, &root),
        #[cfg(feature = "datafusion")]
        Command::Tpch(args) => tpch::run(args, &root),
        Command::Report(args) => report(args),
        Command::Worker(args) => worker::worker_main(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
