//! Datasets on the command line: a directory, a glob or a URL given where a file is
//! ([`is_dataset`]), opened with `--partitioning`, `--storage-option` and
//! `--first-file-schema` ([`DatasetArgs`]);
//! `parq ls SOURCE` lists a dataset's files with their rows and bytes ([`ls`]).

use std::fmt::Write as _;
use std::path::Path;

use arrow_schema::SchemaRef;
use clap::{Args, ValueEnum};
use parq::dataset::{Dataset, DatasetBatches, DatasetOptions, Partitioning};

use crate::read_options::{read_options, ReadArgs};
use crate::CliError;

/// How directories give columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum PartitioningChoice {
    /// `key=value` directories (keys typed int32 when every value is an integer).
    #[default]
    Hive,
    /// No partition columns.
    None,
}

/// How a dataset (a directory, glob or URL) is found.
#[derive(Debug, Clone, Default, Args)]
pub struct DatasetArgs {
    /// Partition columns of a directory, glob or URL source.
    #[arg(long, value_enum, default_value_t = PartitioningChoice::Hive, value_name = "HOW")]
    pub partitioning: PartitioningChoice,
    /// An object-store option (object_store's keys: aws_endpoint_url, aws_access_key_id,
    /// aws_secret_access_key, aws_region, aws_allow_http, ...), repeatable.
    #[arg(long = "storage-option", value_name = "KEY=VALUE")]
    pub storage_options: Vec<String>,
    /// Take the first file's schema instead of uniting every file's by name (only that
    /// footer is read before the scan: the others' columns it lacks are null, their extra
    /// columns left out, other types cast).
    #[arg(long)]
    pub first_file_schema: bool,
}

/// Whether `source` names a dataset rather than one local file: a URL, a directory, or a
/// path that does not exist but has glob wildcards.
pub fn is_dataset(source: &Path) -> bool {
    let s = source.to_string_lossy();
    s.contains("://") || source.is_dir() || (!source.exists() && s.contains(['*', '?', '[']))
}

/// The dataset of `source`.
pub fn open(
    source: &Path,
    args: &DatasetArgs,
    read: parq::read::ReadOptions,
) -> Result<Dataset, CliError> {
    let mut storage_options = Vec::new();
    for kv in &args.storage_options {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(CliError::new(
                source,
                parq::Error::new(parq::ErrorKind::InvalidArgument(format!(
                    "--storage-option takes KEY=VALUE, not `{kv}`"
                ))),
            ));
        };
        storage_options.push((k.to_string(), v.to_string()));
    }
    let options = DatasetOptions {
        partitioning: match args.partitioning {
            PartitioningChoice::Hive => Partitioning::Hive,
            PartitioningChoice::None => Partitioning::None,
        },
        storage_options,
        read,
        union_by_name: !args.first_file_schema,
        ..Default::default()
    };
    Dataset::open(source.to_string_lossy().as_ref(), options).map_err(|e| CliError::new(source, e))
}

/// The scan of the dataset `source` that `read` asks for: its schema, its batches and how
/// many files the dataset has.
pub fn scan(
    source: &Path,
    read: &ReadArgs,
    args: &DatasetArgs,
) -> Result<(SchemaRef, DatasetBatches, usize), CliError> {
    let err = |e| CliError::new(source, e);
    if read.row_groups.is_some() {
        return Err(err(parq::Error::new(parq::ErrorKind::InvalidArgument(
            "--row-groups applies to one file, not to a dataset".into(),
        ))));
    }
    let options = read_options(read);
    let threads = options.threads;
    let ds = open(source, args, options)?;
    let mut scan = ds.scan().with_threads(threads);
    if let Some(c) = &read.columns {
        scan = scan.with_columns(c.iter().cloned());
    }
    if let Some(text) = &read.filter {
        scan = scan.with_filter(parq::read::parse_filter(text).map_err(err)?);
    }
    let schema = scan.schema().map_err(err)?;
    let batches = scan.batches().map_err(err)?;
    Ok((schema, batches, ds.files().len()))
}

/// `parq schema DATASET`: the dataset's Arrow schema (its files' united, then the partition
/// columns), a column per line.
pub fn schema(source: &Path, args: &DatasetArgs) -> Result<String, CliError> {
    let ds = open(source, args, Default::default())?;
    let mut out = String::new();
    let _ = writeln!(out, "dataset of {} files", ds.files().len());
    for f in ds.schema().fields() {
        let null = if f.is_nullable() { "" } else { " not null" };
        let _ = writeln!(out, "  {}: {}{null}", f.name(), f.data_type());
    }
    Ok(out)
}

/// `parq ls SOURCE`: each file's rows, row groups and bytes, then the totals.
pub fn ls(source: &Path, args: &DatasetArgs) -> Result<String, CliError> {
    let ds = open(source, args, Default::default())?;
    let metas = ds.metadata().map_err(|e| CliError::new(source, e))?;
    let mut out = String::new();
    let (mut rows, mut bytes) = (0i64, 0u64);
    let _ = writeln!(out, "{:>12} {:>6} {:>14}  file", "rows", "groups", "bytes");
    for ((name, size), meta) in ds.files().into_iter().zip(ds.file_sizes()).zip(&metas) {
        rows = rows.saturating_add(meta.num_rows());
        bytes = bytes.saturating_add(size);
        let groups = meta.row_groups().len();
        let _ = writeln!(
            out,
            "{:>12} {:>6} {:>14}  {name}",
            meta.num_rows(),
            groups,
            size
        );
    }
    let _ = writeln!(
        out,
        "{rows:>12} {:>6} {bytes:>14}  {} files",
        "",
        metas.len()
    );
    let schema = ds.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let _ = writeln!(out, "columns: {}", names.join(", "));
    Ok(out)
}
