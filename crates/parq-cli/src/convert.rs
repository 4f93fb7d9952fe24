//! `parq convert IN OUT [--columns a,b] [--row-groups 0,2] [--verify-crc] [--invalid-utf8
//! error|binary] [writer options]`: IN is a
//! Parquet file, an Arrow IPC file (told by its magic bytes) or a dataset (a directory, glob
//! or URL: its files merged into one); OUT is written as Parquet when
//! its name ends in `.parquet` (with the writer options of [`WriteArgs`]), else as an Arrow
//! IPC file, with the Arrow schema parq reads (file key-value metadata included, as pyarrow
//! keeps it).
//!
//! Every request is checked before OUT is touched: writer options on an Arrow output, an
//! unknown column, an encoding a column's type cannot take are errors naming the problem.
//!
//! The file is written to a temporary file (`.OUT.<pid>.<n>.tmp`) in OUT's directory, synced,
//! then renamed over OUT: a failure (read error, full disk, interruption of the write)
//! never leaves a truncated file under the target name, and the temporary file is removed
//! on error. OUT is replaced if it exists, unless it is the input (same path or same inode).
//!
//! One record batch per row group (parq's batches never span row groups). Arrow IPC files
//! allow a single dictionary per field, so when a column is dictionary-typed all chosen row
//! groups are decoded into one batch instead (one dictionary per column).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::{DataType, SchemaRef};
use parq::edit::{same_file, Progress, TempFile};
use parq::write::file::ParquetWriter;

use crate::dataset::DatasetArgs;
use crate::progress::{Bar, QuietArg};
use crate::read_options::{explain, open_reader, ReadArgs};
use crate::write_options::WriteArgs;
use crate::CliError;

/// Converts `input` to `output` (Parquet or Arrow IPC, by `output`'s name).
pub fn run(
    input: &Path,
    output: &Path,
    read: &ReadArgs,
    dataset: &DatasetArgs,
    write: &WriteArgs,
    quiet: QuietArg,
) -> Result<(), CliError> {
    let out_err = |m: String| CliError::message(output, m);
    let bar = Bar::new(quiet, "converting");
    if same_file(input, output) {
        return Err(out_err("refusing to overwrite the input file".into()));
    }
    if output.is_dir() {
        return Err(out_err("is a directory".into()));
    }
    let to_parquet = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
    if !to_parquet && write.any() {
        return Err(out_err(
            "writer options apply to a Parquet output (a name ending in .parquet)".into(),
        ));
    }
    if crate::dataset::is_dataset(input) {
        return run_dataset(input, output, read, dataset, write, to_parquet, &bar);
    }
    if is_arrow_ipc(input)? {
        if let Some(option) = read.parquet_only() {
            return Err(CliError::message(
                input,
                format!("{option} applies to a Parquet input"),
            ));
        }
        let (schema, batches) = read_ipc(input, read.columns.as_deref())?;
        return match to_parquet {
            true => {
                let total = batches.iter().map(|b| b.num_rows() as u64).sum();
                let rows = shown(batches.into_iter().map(Ok), &bar, total);
                write_parquet(output, schema, rows, write)
            }
            false => Err(out_err(
                "an Arrow IPC input converts to Parquet (a name ending in .parquet)".into(),
            )),
        };
    }
    if to_parquet {
        let reader = open_reader(input, read)?;
        let read_err = |e| CliError::new(input, e);
        let schema = reader.schema().map_err(read_err)?;
        let mut batches = reader.batches().map_err(read_err)?;
        let total = rows_read(&reader, read);
        let rows = shown((&mut batches).map(|b| b.map_err(read_err)), &bar, total);
        write_parquet(output, schema, rows, write)?;
        if read.explain {
            explain(&reader, &batches.stats());
        }
        return Ok(());
    }
    let reader = open_reader(input, read)?;
    let read_err = |e| CliError::new(input, e);
    let schema = reader.schema().map_err(read_err)?;

    let has_dictionary = schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::Dictionary(..)));
    // The IPC file format cannot replace a dictionary, and a dictionary column's batches
    // share one dictionary only within a row group: with dictionary columns and several row
    // groups the rows go out as one batch.
    let groups = read
        .row_groups
        .as_ref()
        .map_or(reader.metadata().row_groups().len(), Vec::len);
    let single = has_dictionary && groups > 1;
    let mut batches = match single {
        true => reader.single_batch(),
        false => reader.batches(),
    }
    .map_err(read_err)?;
    let total = rows_read(&reader, read);
    let rows = shown((&mut batches).map(|b| b.map_err(read_err)), &bar, total);
    write_ipc(output, &schema, rows)?;
    if read.explain {
        explain(&reader, &batches.stats());
    }
    Ok(())
}

/// The rows a read of `reader` with `read`'s row groups gives at most (before filters).
fn rows_read(reader: &parq::ParquetReader, read: &ReadArgs) -> u64 {
    let groups = reader.metadata().row_groups();
    let rows = |g: &parq::format::metadata::RowGroup| u64::try_from(g.num_rows()).unwrap_or(0);
    match &read.row_groups {
        Some(chosen) => chosen.iter().filter_map(|&i| groups.get(i)).map(rows).sum(),
        None => groups.iter().map(rows).sum(),
    }
}

/// `batches`, with the rows that pass shown on `bar` (of `total`, when known).
fn shown<'a>(
    batches: impl Iterator<Item = Result<RecordBatch, CliError>> + 'a,
    bar: &'a Bar,
    total: u64,
) -> impl Iterator<Item = Result<RecordBatch, CliError>> + 'a {
    let mut rows = 0u64;
    batches.inspect(move |b| {
        if let Ok(b) = b {
            rows += b.num_rows() as u64;
            bar.update(Progress {
                rows,
                rows_total: total,
                ..Progress::default()
            });
        }
    })
}

/// Converts the dataset `input` (a directory, glob or URL) to `output`.
fn run_dataset(
    input: &Path,
    output: &Path,
    read: &ReadArgs,
    dataset: &DatasetArgs,
    write: &WriteArgs,
    to_parquet: bool,
    bar: &Bar,
) -> Result<(), CliError> {
    let (schema, mut batches, files) = crate::dataset::scan(input, read, dataset)?;
    let read_err = |e| CliError::new(input, e);
    let rows = shown((&mut batches).map(|b| b.map_err(read_err)), bar, 0);
    match to_parquet {
        true => write_parquet(output, schema, rows, write)?,
        false => write_ipc(output, &schema, rows)?,
    }
    if read.explain {
        eprintln!("files: {} of {files} read", batches.files_read());
    }
    Ok(())
}

/// Writes `batches` of `schema` to `output` as an Arrow IPC file, through a temporary file.
fn write_ipc(
    output: &Path,
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, CliError>>,
) -> Result<(), CliError> {
    let out_err = |m: String| CliError::message(output, m);
    let (mut tmp, file) = TempFile::create(output).map_err(|e| CliError::new(output, e))?;
    let mut writer = FileWriter::try_new(BufWriter::with_capacity(1 << 20, file), schema)
        .map_err(|e| out_err(format!("cannot write: {e}")))?;
    let write_err = |e: arrow_schema::ArrowError| out_err(format!("cannot write: {e}"));
    let has_dictionary = schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::Dictionary(..)));
    let mut wrote = false;
    for batch in batches {
        writer.write(&batch?).map_err(write_err)?;
        wrote = true;
    }
    if !wrote && has_dictionary {
        writer
            .write(&RecordBatch::new_empty(schema.clone()))
            .map_err(write_err)?;
    }
    writer.finish().map_err(write_err)?;
    let buf = writer.into_inner().map_err(write_err)?;
    tmp.commit(buf).map_err(|e| CliError::new(output, e))
}

/// Whether `path` is an Arrow IPC file (`ARROW1` magic), not a Parquet file.
fn is_arrow_ipc(path: &Path) -> Result<bool, CliError> {
    use std::io::Read;
    let mut magic = [0u8; 6];
    let mut f =
        File::open(path).map_err(|e| CliError::message(path, format!("cannot read: {e}")))?;
    let n = f
        .read(&mut magic)
        .map_err(|e| CliError::message(path, format!("cannot read: {e}")))?;
    Ok(n == 6 && &magic == b"ARROW1")
}

/// The batches of an Arrow IPC file, with the chosen columns (by name).
fn read_ipc(
    input: &Path,
    columns: Option<&[String]>,
) -> Result<(SchemaRef, Vec<RecordBatch>), CliError> {
    let err = |m: String| CliError::message(input, m);
    let file = File::open(input).map_err(|e| err(format!("cannot read: {e}")))?;
    let probe = FileReader::try_new(std::io::BufReader::new(file), None)
        .map_err(|e| err(format!("not a readable Arrow IPC file: {e}")))?;
    let projection = match columns {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    probe
                        .schema()
                        .index_of(n)
                        .map_err(|_| err(format!("no column `{n}` in the file")))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    drop(probe);
    let file = File::open(input).map_err(|e| err(format!("cannot read: {e}")))?;
    let reader = FileReader::try_new(std::io::BufReader::new(file), projection)
        .map_err(|e| err(format!("not a readable Arrow IPC file: {e}")))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| err(format!("cannot read: {e}")))?;
    Ok((schema, batches))
}

/// Writes `batches` of `schema` to the Parquet file `output` through a temporary file.
fn write_parquet(
    output: &Path,
    schema: SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, CliError>>,
    write: &WriteArgs,
) -> Result<(), CliError> {
    let lib_err = |e: parq::Error| CliError::new(output, e);
    // Every request is checked before the temporary file exists.
    let encryption = write.encrypt.encryption(output)?;
    let properties = write.properties(encryption).map_err(lib_err)?;
    ParquetWriter::try_new(std::io::sink(), schema.clone(), properties.clone()).map_err(lib_err)?;
    let (mut tmp, file) = TempFile::create(output).map_err(lib_err)?;
    let mut buf = BufWriter::with_capacity(1 << 20, file);
    let mut writer = ParquetWriter::try_new(&mut buf, schema, properties).map_err(lib_err)?;
    for batch in batches {
        writer.write(&batch?).map_err(lib_err)?;
    }
    writer.close_summary().map_err(lib_err)?;
    tmp.commit(buf).map_err(lib_err)
}
