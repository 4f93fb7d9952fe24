//! The `footer` command: the parquet_footer_parsing benchmark. Generates (or reuses) the
//! datasets, measures every implementation and mode on the same in-memory bytes of each file
//! (all interleaved in this process by default; `--isolate` gives each implementation a
//! process of its own, see `worker`), then prints the tables and writes the requested JSON /
//! CSV / PNG.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::datasets::{ensure_dataset, ensure_parq_copy, ColumnType, DatasetSpec, LoadedFile};
use crate::measure::MeasureArgs;
use crate::peers::pyarrow_peer;
use crate::plot;
use crate::report::{machine_line, print_footer_tables, write_csv, write_json, Cell};
use crate::worker::{measure_in_process, measure_isolated};
use crate::workload::{selected_impls, Mode, PARQ, PARQUET_56, PARQUET_60};

#[derive(clap::Args, Debug)]
pub struct FooterArgs {
    /// Directory of the cached datasets (default: `<workspace>/target/parq-bench-data`).
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
    /// Only these Rust implementations (comma separated; default: all).
    #[arg(long, value_name = "IMPL", value_delimiter = ',', value_parser = [PARQ, PARQUET_60, PARQUET_56])]
    pub impls: Vec<String>,
    /// Extra peers measured out of process (comma separated): pyarrow.
    #[arg(long, value_name = "PEER", value_delimiter = ',', value_parser = ["pyarrow"])]
    pub peers: Vec<String>,
    /// Python interpreter for pyarrow (default: $PARQ_PYTHON, `<workspace>/.venv/bin/python`, python3).
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
    /// Measure each implementation in a process of its own (in rounds) instead of all of them
    /// interleaved in this one. In one process a peer's heap can slow the next one down;
    /// isolated runs show each library on a clean heap.
    #[arg(long)]
    pub isolate: bool,
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
    let python = pyarrow_peer(&args.peers, args.python.as_deref(), workspace_root);

    let paths = specs
        .iter()
        .map(|s| ensure_dataset(s, &data_dir))
        .collect::<Result<Vec<_>>>()?;

    let cfg = args.measure.config();
    let impls = selected_impls(&[PARQUET_56, PARQUET_60, PARQ], &args.impls);
    eprintln!("{} before measuring", machine_line());
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
        // parq's own copy, with the footer index: parq's indexed modes, reported under the
        // same dataset name (its full decode of the copy as `copy-metadata`).
        let copy = if impls.contains(&PARQ) {
            let p = ensure_parq_copy(spec, path, &data_dir)?;
            Some(LoadedFile::load(&p)?)
        } else {
            None
        };
        eprintln!("measuring {}", spec.name());
        let mut measured = if args.isolate {
            measure_isolated(&file, &impls, &Mode::ALL, python.as_ref(), &cfg)
        } else {
            measure_in_process(&file, &impls, &Mode::ALL, python.as_ref(), &cfg)
        }
        .with_context(|| spec.name())?;
        if let Some(copy) = &copy {
            measured.extend(
                measure_in_process(copy, &[PARQ], &Mode::INDEXED, None, &cfg)
                    .with_context(|| format!("parq's copy of {}", spec.name()))?,
            );
        }
        cells.extend(measured.into_iter().map(|m| Cell {
            dataset: spec.name(),
            ty: spec.ty.name(),
            columns: spec.columns,
            row_groups: spec.row_groups,
            footer_bytes: file.footer_bytes(),
            imp: m.imp,
            mode: m.mode,
            stats: m.samples.stats(),
            heap_bytes: m.heap_bytes,
        }));
    }

    println!("{} after measuring", machine_line());
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
