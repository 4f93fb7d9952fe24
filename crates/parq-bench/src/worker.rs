//! Process isolation: every implementation is measured in a child process of its own (this
//! binary's hidden `worker` command), so one library's heap cannot slow another down.
//! Measured on this machine: `parquet` 60.1.0 decodes the 10,000-column Float footer in
//! ~65 ms alone but ~150 ms in a process where `parquet` 56.2.0 has decoded the same footer
//! (allocator state and heap fragmentation left behind by the other library).
//!
//! Each dataset is measured in [`ROUNDS`] rounds, every implementation (and pyarrow) once per
//! round with a share of the time budget, so drift still hits all alike; the rounds' samples
//! are merged before the median is taken. Within a worker the implementation's modes are
//! interleaved by [`measure`].

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::json;

use crate::datasets::LoadedFile;
use crate::measure::{measure, Case, MeasureArgs, MeasureConfig, Samples};
use crate::parq_impl;
use crate::peers::{json_samples, parquet_56_cases, parquet_60_cases, pyarrow_samples, Python};
use crate::workload::{Mode, PARQ, PARQUET_56, PARQUET_60, PYARROW};

/// Rounds per dataset when measuring by time.
pub const ROUNDS: usize = 3;

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The Parquet file.
    #[arg(long, value_name = "PATH")]
    file: PathBuf,
    /// The implementation to measure.
    #[arg(long = "impl", value_name = "IMPL", value_parser = [PARQ, PARQUET_60, PARQUET_56])]
    imp: String,
    /// The modes to measure (those the implementation supports).
    #[arg(long, value_name = "MODE", value_delimiter = ',')]
    modes: Vec<String>,
    #[command(flatten)]
    measure: MeasureArgs,
}

fn cases_for<'a>(imp: &str, file: &'a LoadedFile, modes: &[Mode]) -> Result<Vec<Case<'a>>> {
    match imp {
        PARQ => parq_impl::cases(file, modes),
        PARQUET_60 => parquet_60_cases(file, modes),
        PARQUET_56 => parquet_56_cases(file, modes),
        _ => bail!("unknown implementation {imp:?}"),
    }
}

/// The child side: measures one implementation on one file, prints the samples as JSON.
pub fn worker_main(args: &WorkerArgs) -> Result<()> {
    let modes = args
        .modes
        .iter()
        .map(|m| Mode::parse(m).with_context(|| format!("unknown mode {m:?}")))
        .collect::<Result<Vec<_>>>()?;
    let file = LoadedFile::load(&args.file)?;
    let mut cases = cases_for(&args.imp, &file, &modes)?;
    let samples = measure(&mut cases, &args.measure.config())?;
    let out: Vec<serde_json::Value> = cases
        .iter()
        .zip(samples)
        .map(|(c, s)| {
            json!({
                "mode": c.mode.as_str(),
                "samples_ns": s.samples_ns,
                "iterations": s.iterations,
                "heap_bytes": c.heap_bytes,
            })
        })
        .collect();
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}

/// One measured cell.
#[derive(Debug)]
pub struct Measured {
    pub imp: &'static str,
    pub mode: Mode,
    pub samples: Samples,
    pub heap_bytes: Option<usize>,
}

/// Measures `impls` in `modes` (and pyarrow's full decode if `python` is given) on `file`, all
/// in this process, every case interleaved round by round with every other, so drift hits
/// all alike. (The default: the peers run side by side in one process.)
pub fn measure_in_process(
    file: &LoadedFile,
    impls: &[&'static str],
    modes: &[Mode],
    python: Option<&Python>,
    cfg: &MeasureConfig,
) -> Result<Vec<Measured>> {
    let mut cases = Vec::new();
    let mut owners = Vec::new();
    for &imp in impls {
        for case in cases_for(imp, file, modes)? {
            owners.push(imp);
            cases.push(case);
        }
    }
    let samples = measure(&mut cases, cfg)?;
    let mut cells: Vec<Measured> = cases
        .iter()
        .zip(samples)
        .zip(owners)
        .map(|((c, samples), imp)| Measured {
            imp,
            mode: c.mode,
            samples,
            heap_bytes: c.heap_bytes,
        })
        .collect();
    if let Some(py) = python.filter(|_| modes.contains(&Mode::Metadata)) {
        cells.push(Measured {
            imp: PYARROW,
            mode: Mode::Metadata,
            samples: pyarrow_samples(py, file, cfg)?,
            heap_bytes: None,
        });
    }
    Ok(cells)
}

/// The parent side: measures `impls` in `modes` (and pyarrow's full decode if `python` is
/// given) on `file`, each implementation in its own process, in rounds.
pub fn measure_isolated(
    file: &LoadedFile,
    impls: &[&'static str],
    modes: &[Mode],
    python: Option<&Python>,
    cfg: &MeasureConfig,
) -> Result<Vec<Measured>> {
    let round = cfg.per_round(ROUNDS);
    let mut cells: Vec<Measured> = Vec::new();
    let mut add =
        |imp: &'static str, mode: Mode, samples: Samples, heap_bytes: Option<usize>| match cells
            .iter_mut()
            .find(|c| c.imp == imp && c.mode == mode)
        {
            Some(c) => c.samples.merge(samples),
            None => cells.push(Measured {
                imp,
                mode,
                samples,
                heap_bytes,
            }),
        };
    for _ in 0..cfg.rounds(ROUNDS) {
        for &imp in impls {
            for (mode, samples, heap) in run_worker(&file.path, imp, modes, &round)? {
                add(imp, mode, samples, heap);
            }
        }
        if let Some(py) = python.filter(|_| modes.contains(&Mode::Metadata)) {
            add(
                PYARROW,
                Mode::Metadata,
                pyarrow_samples(py, file, &round)?,
                None,
            );
        }
    }
    Ok(cells)
}

fn run_worker(
    path: &Path,
    imp: &'static str,
    modes: &[Mode],
    cfg: &MeasureConfig,
) -> Result<Vec<(Mode, Samples, Option<usize>)>> {
    let exe = std::env::current_exe().context("locating the parq-bench binary")?;
    let mut cmd = Command::new(exe);
    cmd.arg("worker")
        .arg("--file")
        .arg(path)
        .args(["--impl", imp]);
    let modes: Vec<&str> = modes.iter().map(|m| m.as_str()).collect();
    cmd.arg("--modes").arg(modes.join(","));
    if let Some(n) = cfg.exact_iters {
        cmd.arg("--iters").arg(n.to_string());
    }
    cmd.arg("--min-iters").arg(cfg.min_iters.to_string());
    cmd.arg("--min-time-ms").arg(
        cfg.min_time
            .as_millis()
            .max(u128::from(!cfg.min_time.is_zero()))
            .to_string(),
    );
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting the {imp} worker"))?;
    if !out.status.success() {
        bail!(
            "the {imp} worker on {} failed ({})",
            path.display(),
            out.status
        );
    }
    let values: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).with_context(|| format!("{imp} worker output"))?;
    values
        .iter()
        .map(|v| {
            let mode = v["mode"]
                .as_str()
                .and_then(Mode::parse)
                .context("worker output: mode")?;
            let samples = json_samples(v).context("worker output")?;
            let heap = v["heap_bytes"].as_u64().map(|h| h as usize);
            Ok((mode, samples, heap))
        })
        .collect()
}
