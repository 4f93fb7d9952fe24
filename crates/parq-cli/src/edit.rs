//! `parq merge IN... OUT`, `parq append FILE IN...` and `parq rewrite IN OUT`: files
//! changed through [`parq::edit`], row groups copied byte for byte where the Parquet schemas
//! allow, with the writer options of [`WriteArgs`] for what is encoded, and a progress bar.

use std::path::{Path, PathBuf};

use parq::edit::{RewriteOptions, SortKey};
use parq::WriterProperties;

use crate::progress::{Bar, QuietArg};
use crate::write_options::WriteArgs;
use crate::CliError;

/// What `rewrite` changes besides the writer options.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct RewriteArgs {
    /// Leave out these top-level columns (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "COLUMN,...")]
    pub drop: Vec<String>,
    /// Rename a top-level column; repeatable.
    #[arg(long, value_name = "OLD=NEW")]
    pub rename: Vec<String>,
    /// Sort the rows by these top-level columns, the first first (`:desc` for largest
    /// first, `:nulls_first` to put nulls first); written as the row groups'
    /// `sorting_columns`. Sorting holds the file's rows in memory.
    #[arg(long, value_delimiter = ',', value_name = "COLUMN[:desc],...")]
    pub sort_by: Vec<String>,
}

/// The writer properties of `write` for `output` (its keys when it is encrypted).
fn properties(output: &Path, write: &WriteArgs) -> Result<WriterProperties, CliError> {
    let encryption = write.encrypt.encryption(output)?;
    write
        .properties(encryption)
        .map_err(|e| CliError::new(output, e))
}

/// The file an error of the library names, else `fallback`.
fn located(fallback: &Path, e: parq::Error) -> CliError {
    let file = e
        .file()
        .map_or_else(|| fallback.to_path_buf(), PathBuf::from);
    CliError::new(&file, e)
}

/// `parq merge IN... OUT`: the last of `files` is the output.
pub fn merge(files: &[PathBuf], write: &WriteArgs, quiet: QuietArg) -> Result<String, CliError> {
    let Some((output, inputs)) = files.split_last() else {
        return Err(CliError::message(
            Path::new("merge"),
            "give the input files, then the output".into(),
        ));
    };
    let props = properties(output, write)?;
    let bar = Bar::new(quiet, "merging");
    let report = parq::edit::merge_with_progress(inputs, output, props, &mut |p| bar.update(p))
        .map_err(|e| located(output, e))?;
    bar.finish();
    Ok(format!(
        "{}: {} rows from {} files ({} row groups copied, {} files encoded again)\n",
        output.display(),
        report.rows,
        inputs.len(),
        report.row_groups_copied,
        report.files_reencoded
    ))
}

/// `parq append FILE IN...`.
pub fn append(
    target: &Path,
    inputs: &[PathBuf],
    write: &WriteArgs,
    quiet: QuietArg,
) -> Result<String, CliError> {
    if write.encrypt.any() {
        return Err(CliError::message(
            target,
            "rows cannot be appended to an encrypted file".into(),
        ));
    }
    let props = properties(target, write)?;
    let bar = Bar::new(quiet, "appending");
    let report = parq::edit::append_files(target, inputs, props, &mut |p| bar.update(p))
        .map_err(|e| located(target, e))?;
    bar.finish();
    let rebuilt = match report.rebuilt {
        true => "; rebuilt whole: its Parquet schema is another writer's",
        false => "",
    };
    Ok(format!(
        "{}: {} rows appended from {} files ({} row groups copied, {} files encoded again{rebuilt})\n",
        target.display(),
        report.rows,
        inputs.len(),
        report.row_groups_copied,
        report.files_reencoded
    ))
}

/// `parq rewrite IN OUT`.
pub fn rewrite(
    input: &Path,
    output: &Path,
    args: &RewriteArgs,
    write: &WriteArgs,
    quiet: QuietArg,
) -> Result<String, CliError> {
    let props = properties(output, write)?;
    let bad = |m: String| {
        CliError::new(
            output,
            parq::Error::new(parq::ErrorKind::InvalidArgument(m)),
        )
    };
    let rename = args
        .rename
        .iter()
        .map(|r| match r.split_once('=') {
            Some((old, new)) if !old.is_empty() && !new.is_empty() => {
                Ok((old.to_string(), new.to_string()))
            }
            _ => Err(bad(format!("--rename {r}: give OLD=NEW"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sort_by = args
        .sort_by
        .iter()
        .map(|k| SortKey::parse(k).map_err(|e| CliError::new(output, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let options = RewriteOptions {
        drop: args.drop.clone(),
        rename,
        sort_by,
    };
    let bar = Bar::new(quiet, "rewriting");
    let rows = parq::edit::rewrite(input, output, props, &options, &mut |p| bar.update(p))
        .map_err(|e| located(input, e))?;
    bar.finish();
    Ok(format!("{}: {rows} rows\n", output.display()))
}
