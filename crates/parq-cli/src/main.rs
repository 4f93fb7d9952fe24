//! `parq`: the command line tool. `parq schema FILE` prints the schema in message format;
//! `parq meta FILE [--json] [--page-index]` prints the footer; `parq cat FILE` prints rows
//! ([`cat`]); `parq convert IN OUT` writes Arrow IPC or, to a `.parquet` name, Parquet with the
//! writer options of [`write_options`] ([`convert`]).

mod cat;
mod convert;
mod json;
mod meta;
mod schema;
mod text;
mod write_options;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "parq", version, about = "Inspect Apache Parquet files")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the Parquet schema in message format.
    Schema {
        /// The Parquet file.
        file: PathBuf,
    },
    /// Print the footer: a readable summary, or the whole footer as JSON.
    Meta {
        /// The Parquet file.
        file: PathBuf,
        /// Print the whole footer as JSON (field names as in parquet.thrift).
        #[arg(long)]
        json: bool,
        /// Also decode and print the page index (column and offset indexes).
        #[arg(long)]
        page_index: bool,
    },
    /// Print rows of flat columns as a table, CSV or JSON lines.
    Cat {
        /// The Parquet file.
        file: PathBuf,
        /// Columns to print, by name, in this order (default: all).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
        columns: Option<Vec<String>>,
        /// Row groups to read, by index, in this order (default: all).
        #[arg(long, value_delimiter = ',', value_name = "INDEX,...")]
        row_groups: Option<Vec<usize>>,
        /// Print at most this many rows.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cat::Format::Table)]
        format: cat::Format,
    },
    /// Convert Parquet to Arrow IPC, or Parquet / Arrow IPC to Parquet (OUT ending in
    /// .parquet), through a temporary file renamed into place when complete.
    Convert {
        /// The Parquet or Arrow IPC file.
        input: PathBuf,
        /// The file to write: Parquet if its name ends in .parquet, else Arrow IPC (replaced
        /// if it exists; never the input).
        output: PathBuf,
        /// Columns to write, by name, in this order (default: all).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
        columns: Option<Vec<String>>,
        /// Row groups to read, by index, in this order (default: all).
        #[arg(long, value_delimiter = ',', value_name = "INDEX,...")]
        row_groups: Option<Vec<usize>>,
        #[command(flatten)]
        write: write_options::WriteArgs,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match &cli.command {
        Command::Schema { file } => schema::run(file),
        Command::Meta {
            file,
            json,
            page_index,
        } => meta::run(file, *json, *page_index),
        Command::Cat {
            file,
            columns,
            row_groups,
            limit,
            format,
        } => cat::run(
            file,
            columns.as_deref(),
            row_groups.as_deref(),
            *limit,
            *format,
            &mut std::io::stdout().lock(),
        )
        .map(|()| String::new()),
        Command::Convert {
            input,
            output,
            columns,
            row_groups,
            write,
        } => convert::run(
            input,
            output,
            columns.as_deref(),
            row_groups.as_deref(),
            write,
        )
        .map(|()| String::new()),
    };
    match res {
        Ok(out) => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = stdout.write_all(out.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("parq: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Errors of the CLI: the file that failed and why.
#[derive(Debug)]
pub struct CliError {
    file: PathBuf,
    error: parq::Error,
}

impl CliError {
    /// `error` about `file`.
    pub fn new(file: &std::path::Path, error: parq::Error) -> Self {
        CliError {
            file: file.to_path_buf(),
            error,
        }
    }

    /// An error about `file`, described in words.
    pub fn message(file: &std::path::Path, message: String) -> Self {
        Self::new(
            file,
            parq::Error::new(parq::ErrorKind::Inconsistent(message)),
        )
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.error)
    }
}

/// Reads the footer of `file` with default options, naming the file in errors.
pub fn read_footer(
    file: &std::path::Path,
) -> Result<parq::format::metadata::FileMetaData, CliError> {
    parq::file::read_metadata(file, Default::default()).map_err(|error| CliError {
        file: file.to_path_buf(),
        error,
    })
}

/// A reader of the chosen columns and row groups of `file`, checked (unknown columns, row
/// groups out of range, nested columns are errors here, before any output).
pub fn open_reader(
    file: &std::path::Path,
    columns: Option<&[String]>,
    row_groups: Option<&[usize]>,
) -> Result<parq::read::ParquetReader, CliError> {
    let data =
        std::fs::read(file).map_err(|e| CliError::message(file, format!("cannot read: {e}")))?;
    let mut reader =
        parq::read::ParquetReader::from_bytes(data.into()).map_err(|e| CliError::new(file, e))?;
    if let Some(columns) = columns {
        reader = reader.with_columns(columns.iter().map(String::as_str));
    }
    if let Some(row_groups) = row_groups {
        reader = reader.with_row_groups(row_groups.iter().copied());
    }
    if let Err(e) = reader.schema() {
        if let parq::ErrorKind::Unsupported(m) = e.kind() {
            let hint = if columns.is_none() {
                " (choose flat columns with --columns)"
            } else {
                ""
            };
            return Err(CliError::message(file, format!("{m}{hint}")));
        }
        if let parq::ErrorKind::Inconsistent(m) = e.kind() {
            if m.starts_with("no column") {
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
                    format!("{m} (columns: {})", names.join(", ")),
                ));
            }
        }
        return Err(CliError::new(file, e));
    }
    let groups = reader.metadata().row_groups().len();
    if let Some(&rg) = row_groups.and_then(|r| r.iter().find(|&&rg| rg >= groups)) {
        return Err(CliError::message(
            file,
            format!("row group {rg} out of range: the file has {groups} row group(s)"),
        ));
    }
    Ok(reader)
}
