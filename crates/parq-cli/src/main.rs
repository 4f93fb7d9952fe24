//! `parq`: the command line tool. `parq schema FILE` prints the schema in message format;
//! `parq meta FILE [--json] [--page-index]` prints the footer.

mod json;
mod meta;
mod schema;

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
