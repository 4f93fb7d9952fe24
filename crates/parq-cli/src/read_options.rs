//! The read options of `parq cat` and `parq convert` ([`ReadArgs`]: columns, row groups, a
//! filter, CRC verification, strings that are not UTF-8, threads, the keys of an encrypted
//! file) and [`open_reader`], which applies
//! them and checks the request before any output; [`explain`] prints what a read did.

use std::path::Path;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use parq::format::footer::DecodeOptions;
use parq::read::parse_filter;
use parq::read::{FileSource, InvalidUtf8, ParquetReader, ReadStats};

use crate::keys::KeyArgs;
use crate::CliError;

/// What to do with string values that are not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Utf8Choice {
    /// Fail, naming the column, row group and row.
    #[default]
    Error,
    /// Read every string column as binary, unchecked.
    Binary,
}

/// How a Parquet file is read.
#[derive(Debug, Clone, Default, Args)]
pub struct ReadArgs {
    /// Columns to read, by name, in this order (default: all).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub columns: Option<Vec<String>>,
    /// Row groups to read, by index, in this order (default: all).
    #[arg(long, value_delimiter = ',', value_name = "INDEX,...")]
    pub row_groups: Option<Vec<usize>>,
    /// Verify the CRC of every page that has one (a mismatch is an error naming the page).
    #[arg(long)]
    pub verify_crc: bool,
    /// What to do with strings that are not valid UTF-8.
    #[arg(long, value_enum, default_value_t = Utf8Choice::Error, value_name = "WHAT")]
    pub invalid_utf8: Utf8Choice,
    /// Keep only the rows this SQL condition holds for: comparisons (= != <> < <= > >=) of
    /// a column with a literal, IN (...), IS NULL, IS NOT NULL, AND, OR, NOT, parentheses;
    /// strings in single quotes (dates and timestamps too), names bare or in double quotes.
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// After the output, print to stderr what the read did: row groups, pages and bytes
    /// read and skipped.
    #[arg(long)]
    pub explain: bool,
    /// Threads decoding row groups or columns side by side (0: one per core).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub threads: usize,
    #[command(flatten)]
    pub keys: KeyArgs,
}

impl ReadArgs {
    /// Whether an option that only a Parquet input takes is set (besides `--columns`).
    pub fn parquet_only(&self) -> Option<&'static str> {
        if self.row_groups.is_some() {
            Some("--row-groups")
        } else if self.filter.is_some() {
            Some("--where")
        } else if self.explain {
            Some("--explain")
        } else if self.verify_crc {
            Some("--verify-crc")
        } else if self.threads != 1 {
            Some("--threads")
        } else if self.invalid_utf8 != Utf8Choice::Error {
            Some("--invalid-utf8")
        } else if self.keys.any() {
            Some("--footer-key / --column-key / --aad-prefix / --key-file")
        } else {
            None
        }
    }
}

/// The read options `args` set.
pub fn read_options(args: &ReadArgs) -> parq::read::ReadOptions {
    parq::read::ReadOptions {
        verify_crc: args.verify_crc,
        threads: match args.threads {
            0 => parq::workers::threads(),
            n => n,
        },
        invalid_utf8: match args.invalid_utf8 {
            Utf8Choice::Error => InvalidUtf8::Error,
            Utf8Choice::Binary => InvalidUtf8::Binary,
        },
        ..Default::default()
    }
}

/// A reader of `file` with `args` applied, checked (unknown columns, row groups out of
/// range and unsupported columns are errors here, before any output).
pub fn open_reader(file: &Path, args: &ReadArgs) -> Result<ParquetReader, CliError> {
    let handle = std::fs::File::open(file)
        .map_err(|e| CliError::message(file, format!("cannot read: {e}")))?;
    let source = FileSource::new(handle).map_err(|e| CliError::new(file, e))?;
    let opts = DecodeOptions {
        decryption: args.keys.decryption(file)?,
        ..Default::default()
    };
    let mut reader = ParquetReader::from_source_with(Arc::new(source), opts)
        .map_err(|e| CliError::new(file, e))?
        .with_options(read_options(args));
    let columns = args.columns.as_deref();
    if let Some(columns) = columns {
        reader = reader.with_columns(columns.iter().map(String::as_str));
    }
    if let Some(row_groups) = &args.row_groups {
        reader = reader.with_row_groups(row_groups.iter().copied());
    }
    if let Some(text) = &args.filter {
        let predicate = parse_filter(text).map_err(|e| CliError::new(file, e))?;
        reader = reader.with_filter(predicate);
    }
    let groups = reader.metadata().row_groups().len();
    let out_of_range = args
        .row_groups
        .as_deref()
        .and_then(|r| r.iter().find(|&&rg| rg >= groups));
    if let Some(&rg) = out_of_range {
        return Err(CliError::message(
            file,
            format!("row group {rg} out of range: the file has {groups} row group(s)"),
        ));
    }
    if let Err(e) = reader.schema() {
        if let parq::ErrorKind::Unsupported(m) = e.kind() {
            return Err(CliError::message(file, m.clone()));
        }
        if let parq::ErrorKind::ColumnNotFound { .. } = e.kind() {
            let names = parq::schema::arrow_schema(reader.metadata(), &reader.options().schema)
                .map(|c| {
                    c.fields
                        .iter()
                        .map(|f| f.field.name().clone())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            return Err(CliError::message(
                file,
                format!("{} (columns: {})", e.kind(), names.join(", ")),
            ));
        }
        return Err(CliError::new(file, e));
    }
    // The filter's columns and literals, checked before any data is read.
    reader
        .builder()
        .build()
        .map_err(|e| CliError::new(file, e))?;
    Ok(reader)
}

/// Prints what a read did (`--explain`) to stderr: one line each for row groups, pages and
/// bytes read and skipped.
pub fn explain(reader: &ParquetReader, stats: &ReadStats) {
    let meta = reader.metadata();
    let chunks: u64 = meta
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| u64::try_from(c.total_compressed_size()).unwrap_or(0))
        .sum();
    let bloom = match stats.bloom_filters_read {
        0 => String::new(),
        n => format!(
            " ({} by Bloom filters, {n} read)",
            stats.row_groups_skipped_by_bloom
        ),
    };
    let dictionary = match stats.dictionaries_read {
        0 => String::new(),
        n => format!(
            " ({} by dictionaries, {n} read)",
            stats.row_groups_skipped_by_dictionary
        ),
    };
    eprintln!(
        "row groups: {} read, {} skipped{bloom}{dictionary}",
        stats.row_groups_read, stats.row_groups_skipped
    );
    eprintln!(
        "pages: {} read, {} skipped",
        stats.pages_read, stats.pages_skipped
    );
    eprintln!(
        "bytes: {} read, {} skipped (of the {chunks} bytes of column chunks)",
        stats.bytes_read,
        chunks.saturating_sub(stats.chunk_bytes)
    );
}
