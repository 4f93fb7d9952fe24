//! The `footer` command: the parquet_footer_parsing benchmark. Generates (or reuses) the
//! datasets, loads each file's tail once, measures every implementation and mode on the same
//! bytes, then prints the tables and writes the requested JSON / CSV / PNG.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::datasets::{ensure_dataset, ColumnType, DatasetSpec, LoadedFile};
use crate::measure::{measure, MeasureArgs};
use crate::peers::{find_python, parquet_56_cases, parquet_60_cases, pyarrow_stats};
use crate::report::{print_footer_tables, write_csv, write_json, Cell};
use crate::workload::{Mode, PYARROW};
use crate::{parq_impl, plot};

#[derive(clap::Args, Debug)]
pub struct FooterArgs {
    /// Directory of the cached datasets [default: <workspace>/target/parq-bench-data].
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Only the 100 and 1,000 column datasets.
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// Every dataset, including 100,000 columns (large files, slow to generate).
    #[arg(long)]
    pub full: bool,
    /// Column counts to run instead of the preset (comma separated or repeated).
    #[arg(long, value_name = "N", value_delimiter = ',', conflicts_with_all = ["quick", "full"])]
    pub columns: Vec<usize>,
    /// Column types to run (default: both).
    #[arg(long, value_name = "TYPE", value_delimiter = ',', value_parser = ["float", "string"])]
    pub types: Vec<String>,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Extra peers measured out of process (comma separated): pyarrow.
    #[arg(long, value_name = "PEER", value_delimiter = ',', value_parser = ["pyarrow"])]
    pub peers: Vec<String>,
    /// Python interpreter for pyarrow [default: $PARQ_PYTHON, <workspace>/.venv/bin/python, python3].
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Write every cell as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write every cell as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw the decode-time and speedup charts into a PNG.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
}

impl FooterArgs {
    fn specs(&self) -> Vec<DatasetSpec> {
        let columns = if !self.columns.is_empty() {
            self.columns.clone()
        } else if self.quick {
            vec![100, 1_000]
        } else if self.full {
            vec![100, 1_000, 10_000, 100_000]
        } else {
            vec![100, 1_000, 10_000]
        };
        let types: Vec<ColumnType> = ColumnType::ALL
            .into_iter()
            .filter(|t| {
                self.types.is_empty() || self.types.iter().any(|s| s.eq_ignore_ascii_case(t.name()))
            })
            .collect();
        types
            .into_iter()
            .flat_map(|t| columns.iter().map(move |&c| DatasetSpec::new(t, c)))
            .collect()
    }
}

/// Creates (truncates) an output file up front so a bad path fails before the long run.
pub fn check_writable(path: &Option<PathBuf>) -> Result<()> {
    if let Some(p) = path {
        File::create(p).with_context(|| format!("cannot write output file {}", p.display()))?;
    }
    Ok(())
}

pub fn run(args: &FooterArgs, workspace_root: &Path) -> Result<()> {
    let specs = args.specs();
    if specs.iter().any(|s| s.columns == 0) {
        bail!("--columns must be at least 1");
    }
    for out in [&args.json, &args.csv, &args.plot] {
        check_writable(out)?;
    }
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| workspace_root.join("target/parq-bench-data"));
    let python = if args.peers.iter().any(|p| p == PYARROW) {
        find_python(args.python.as_deref(), workspace_root)
    } else {
        None
    };
    if let Some(py) = &python {
        eprintln!("pyarrow {} via {}", py.pyarrow_version, py.path.display());
    }
    if let Some(why) = parq_impl::UNAVAILABLE {
        eprintln!("note: no parq cells: {why}");
    }

    let paths = specs
        .iter()
        .map(|s| ensure_dataset(s, &data_dir))
        .collect::<Result<Vec<_>>>()?;

    let cfg = args.measure.config();
    let mut cells = Vec::new();
    for (spec, path) in specs.iter().zip(&paths) {
        let file = LoadedFile::load(path)?;
        if file.shape != spec.shape() {
            bail!(
                "cached file {} has shape {:?}, expected {:?}; delete it to regenerate",
                path.display(),
                file.shape,
                spec.shape()
            );
        }
        let mut cases = parquet_56_cases(&file, &Mode::ALL)?;
        cases.extend(parquet_60_cases(&file, &Mode::ALL)?);
        cases.extend(parq_impl::cases(&file, &Mode::ALL)?);
        eprintln!("measuring {} ({} cells)", spec.name(), cases.len());
        let stats = measure(&mut cases, &cfg).with_context(|| spec.name())?;
        let cell = |imp, mode, stats, heap_bytes| Cell {
            dataset: spec.name(),
            ty: spec.ty.name(),
            columns: spec.columns,
            row_groups: spec.row_groups,
            footer_bytes: file.footer_bytes(),
            imp,
            mode,
            stats,
            heap_bytes,
        };
        for (case, stats) in cases.iter().zip(stats) {
            cells.push(cell(case.imp, case.mode, stats, case.heap_bytes));
        }
        if let Some(py) = &python {
            let stats = pyarrow_stats(py, &file, &cfg).with_context(|| spec.name())?;
            cells.push(cell(PYARROW, Mode::Metadata, stats, None));
        }
    }

    print_footer_tables(&cells);
    if let Some(p) = &args.json {
        write_json(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.csv {
        write_csv(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.plot {
        plot::draw(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}
