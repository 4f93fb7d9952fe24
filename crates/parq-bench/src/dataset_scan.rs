//! `parq-bench dataset`: datasets read from moto's S3 server behind a latency proxy and from
//! local disk, parq against `pyarrow.dataset` and polars `scan_parquet`. Every reader of this
//! case (parq's dataset reader too) is driven from Python, so the measurement is
//! `python/bench_dataset.py`, run here with the workspace's venv; its arguments pass through.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

use crate::peers::find_python;

#[derive(clap::Args, Debug)]
pub struct DatasetArgs {
    /// The Python with pyarrow, polars and parq (default: `$PARQ_PYTHON`, else the
    /// workspace's `.venv`).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Arguments of `python/bench_dataset.py` (`--files`, `--rows-per-file`, `--delay-ms`,
    /// `--rounds`, `--dir`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

pub fn run(args: &DatasetArgs, root: &Path) -> anyhow::Result<()> {
    let Some(python) = find_python(args.python.as_deref(), root) else {
        bail!("no Python with pyarrow (run `bash scripts/venv.sh`)");
    };
    let script = root.join("python").join("bench_dataset.py");
    let status = Command::new(&python.path)
        .arg(&script)
        .args(&args.args)
        .status()
        .with_context(|| format!("cannot run {}", python.path.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", script.display());
    }
    Ok(())
}
