//! `parq`: the command line tool. It reads Parquet files and datasets ([`cat`], [`schema`],
//! [`meta`], [`dataset`] for `ls`), inspects a file's parts ([`inspect`]: `pages`,
//! `dictionary`, `index`, `bloom`, `footer`; [`layout`]), writes and converts files
//! ([`convert`] with the writer options of [`write_options`]) and changes them ([`edit`]:
//! `merge`, `append`, `rewrite`) and checks them against themselves ([`check`]). `parq --help`
//! lists the commands.

mod cat;
mod check;
mod convert;
mod dataset;
mod edit;
mod inspect;
mod json;
mod keys;
mod layout;
mod meta;
mod progress;
mod read_options;
mod schema;
mod text;
mod variant;
mod write_options;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "parq",
    version,
    about = "Read, inspect, convert, merge and rewrite Apache Parquet files and datasets"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the schema: a file's Parquet schema in message format, a dataset's Arrow schema.
    Schema {
        /// The Parquet file, or a dataset (a directory, glob or URL: its Arrow schema).
        file: PathBuf,
        #[command(flatten)]
        dataset: dataset::DatasetArgs,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print the footer: a readable summary, or the whole footer as JSON.
    Meta {
        /// The Parquet file, or a dataset (a directory, glob or URL: each file's footer).
        file: PathBuf,
        #[command(flatten)]
        dataset: dataset::DatasetArgs,
        /// Print the whole footer as JSON (field names as in parquet.thrift).
        #[arg(long)]
        json: bool,
        /// Also decode and print the page index (column and offset indexes).
        #[arg(long)]
        page_index: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print rows as a table, CSV or JSON lines.
    Cat {
        /// The Parquet file, or a dataset: a directory, a glob or a URL (s3://, gs://,
        /// az://, http(s)://).
        file: PathBuf,
        #[command(flatten)]
        read: read_options::ReadArgs,
        #[command(flatten)]
        dataset: dataset::DatasetArgs,
        /// Print at most this many rows.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cat::Format::Table)]
        format: cat::Format,
    },
    /// List a dataset's files (a directory, a glob or a URL) with their rows, row groups
    /// and bytes, then the totals and the dataset's columns.
    Ls {
        /// The dataset.
        source: PathBuf,
        #[command(flatten)]
        dataset: dataset::DatasetArgs,
    },
    /// Print every page header of every column chunk: type, encodings, sizes, values,
    /// rows, nulls, statistics and CRC (JSON: one object per page per line).
    Pages {
        /// The Parquet file.
        file: PathBuf,
        /// Only these columns (dotted leaf or group paths, comma separated).
        #[arg(long, value_name = "A,B", value_delimiter = ',')]
        columns: Vec<String>,
        /// One JSON object per page per line (field names as in parquet.thrift).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print the entries of a column's dictionary pages, decoded by the column's type.
    Dictionary {
        /// The Parquet file.
        file: PathBuf,
        /// The column (dotted leaf path).
        #[arg(long, value_name = "C")]
        column: String,
        /// Only this row group.
        #[arg(long, value_name = "N")]
        row_group: Option<usize>,
        /// One JSON object per column chunk per line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print the page index: column index (per page min, max, nulls) and offset index
    /// (page locations) of every column chunk.
    Index {
        /// The Parquet file.
        file: PathBuf,
        /// Print the page index as one JSON document.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Probe a column's Bloom filters for values: per row group, "might contain",
    /// "definitely not" or "no Bloom filter".
    Bloom {
        /// The Parquet file.
        file: PathBuf,
        /// The column (dotted leaf path).
        #[arg(long, value_name = "C")]
        column: String,
        /// The values, read as the column's type (dates YYYY-MM-DD, timestamps
        /// "YYYY-MM-DD HH:MM:SS", decimals, UUIDs, binary as 0x hex).
        #[arg(value_name = "VALUE", required = true)]
        values: Vec<String>,
        /// One JSON object per row group and value per line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print the sizes of the footer's parts (schema, row groups, statistics, key-value
    /// metadata, ...) and of the page index, Bloom filters and column data.
    Footer {
        /// The Parquet file.
        file: PathBuf,
        /// Print the sizes as one JSON document.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Check files: decode every page of every column, verify page CRCs, statistics, the
    /// page index, Bloom filters and row counts against the values, and report each finding
    /// with its location (exit status 1 when a finding is an error).
    Check {
        /// The Parquet files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        args: check::CheckArgs,
    },
    /// Convert Parquet to Arrow IPC, or Parquet / Arrow IPC to Parquet (OUT ending in
    /// .parquet), through a temporary file renamed into place when complete.
    Convert {
        /// The Parquet or Arrow IPC file, or a dataset (a directory, glob or URL).
        input: PathBuf,
        /// The file to write: Parquet if its name ends in .parquet, else Arrow IPC (replaced
        /// if it exists; never the input).
        output: PathBuf,
        #[command(flatten)]
        read: read_options::ReadArgs,
        #[command(flatten)]
        dataset: dataset::DatasetArgs,
        #[command(flatten)]
        write: Box<write_options::WriteArgs>,
        #[command(flatten)]
        quiet: progress::QuietArg,
    },
    /// Draw where the file's bytes go: row groups by columns as areas sized by bytes,
    /// coloured by codec and encoding, with sizes, pages and statistics on hover.
    Layout {
        /// The Parquet file.
        file: PathBuf,
        /// Write the picture as a standalone HTML page.
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Write the picture as a standalone SVG.
        #[arg(long, value_name = "OUT.svg")]
        svg: Option<PathBuf>,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    #[command(flatten)]
    Edit(EditCommand),
}

/// Commands that change files ([`edit`]).
#[derive(Subcommand)]
enum EditCommand {
    /// Merge Parquet files into one: row groups copied byte for byte where a file has the
    /// output's Parquet schema (pages, statistics, page index and Bloom filters kept), the
    /// rest decoded and encoded with the writer options; columns united by name.
    Merge {
        /// The input files, then the output file (written under a temporary name and
        /// renamed into place when complete).
        #[arg(required = true, num_args = 2.., value_name = "IN... OUT")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        write: Box<write_options::WriteArgs>,
        #[command(flatten)]
        quiet: progress::QuietArg,
    },
    /// Append the rows of Parquet files to FILE as new row groups and a new footer. FILE is
    /// rebuilt under a temporary name and renamed over itself: a crash leaves the old file
    /// or the new one.
    Append {
        /// The file to append to.
        file: PathBuf,
        /// The files whose rows are appended.
        #[arg(required = true, value_name = "IN")]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        write: Box<write_options::WriteArgs>,
        #[command(flatten)]
        quiet: progress::QuietArg,
    },
    /// Write a Parquet file again with other writer options (codec, encodings, row group
    /// and page sizes, statistics, ...), columns dropped or renamed, rows sorted.
    Rewrite {
        /// The Parquet file.
        input: PathBuf,
        /// The file to write (replaced if it exists; never the input).
        output: PathBuf,
        #[command(flatten)]
        rewrite: edit::RewriteArgs,
        #[command(flatten)]
        write: Box<write_options::WriteArgs>,
        #[command(flatten)]
        quiet: progress::QuietArg,
    },
}

impl EditCommand {
    fn run(&self) -> Result<String, CliError> {
        match self {
            EditCommand::Merge {
                files,
                write,
                quiet,
            } => edit::merge(files, write, *quiet),
            EditCommand::Append {
                file,
                inputs,
                write,
                quiet,
            } => edit::append(file, inputs, write, *quiet),
            EditCommand::Rewrite {
                input,
                output,
                rewrite,
                write,
                quiet,
            } => edit::rewrite(input, output, rewrite, write, *quiet),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match &cli.command {
        Command::Edit(e) => e.run(),
        Command::Schema {
            file,
            dataset,
            keys,
        } => schema::run(file, dataset, keys),
        Command::Meta {
            file,
            dataset,
            json,
            page_index,
            keys,
        } => meta::run(file, *json, *page_index, dataset, keys),
        Command::Cat {
            file,
            read,
            dataset,
            limit,
            format,
        } => cat::run(
            file,
            read,
            dataset,
            *limit,
            *format,
            &mut std::io::stdout().lock(),
        )
        .map(|()| String::new()),
        Command::Ls { source, dataset } => dataset::ls(source, dataset),
        Command::Pages {
            file,
            columns,
            json,
            keys,
        } => inspect::pages::run(file, columns, *json, keys),
        Command::Dictionary {
            file,
            column,
            row_group,
            json,
            keys,
        } => inspect::dictionary::run(file, column, *row_group, *json, keys),
        Command::Index { file, json, keys } => inspect::index::run(file, *json, keys),
        Command::Bloom {
            file,
            column,
            values,
            json,
            keys,
        } => inspect::bloom::run(file, column, values, *json, keys),
        Command::Footer { file, json, keys } => inspect::footer::run(file, *json, keys),
        Command::Check { files, args } => return check::run(files, args),
        Command::Convert {
            input,
            output,
            read,
            dataset,
            write,
            quiet,
        } => convert::run(input, output, read, dataset, write, *quiet).map(|()| String::new()),
        Command::Layout {
            file,
            html,
            svg,
            keys,
        } => layout::run(file, html.as_deref(), svg.as_deref(), keys),
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
        // An error that names its file already is printed as it is.
        match self.error.file() {
            Some(_) => write!(f, "{}", self.error),
            None => write!(f, "{}: {}", self.file.display(), self.error),
        }
    }
}

/// Reads the footer of `file` (with the keys of an encrypted file), naming the file in
/// errors.
pub fn read_footer(
    file: &std::path::Path,
    keys: &keys::KeyArgs,
) -> Result<parq::format::metadata::FileMetaData, CliError> {
    let opts = parq::format::footer::DecodeOptions {
        decryption: keys.decryption(file)?,
        ..Default::default()
    };
    parq::file::read_metadata(file, opts).map_err(|error| CliError {
        file: file.to_path_buf(),
        error,
    })
}
