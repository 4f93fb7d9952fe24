//! `parq cat FILE [--columns a,b] [--row-groups 0,2] [--verify-crc] [--invalid-utf8 error|binary]
//! [--limit N] [--format table|csv|jsonl]`:
//! prints rows. Values are text as [`crate::text`] describes (Arrow C++'s cast to string).
//!
//! - `table` (default): a header, a rule, then rows; numeric columns right-aligned, others
//!   left-aligned; null as `null`; binary as uppercase hex (as pyarrow shows it); control
//!   characters in strings escaped (`\n`). Column widths are computed over blocks of
//!   [`TABLE_BLOCK`] rows and only grow, so output streams with bounded memory (a later,
//!   wider value widens the columns from its block on).
//! - `csv`: a header row, then rows; fields quoted per RFC 4180 when they hold `,` `"` CR or
//!   LF; null as an empty field and the empty string as `""`; binary as lowercase hex;
//!   lines end in `\n` (so with a single column, a null is an empty line, as Arrow C++
//!   writes it; some readers skip blank lines).
//! - `jsonl`: one object per row, keys in column order; null, booleans and numbers (integers,
//!   durations, finite floats) as JSON values; NaN and infinities as the strings `"nan"`,
//!   `"inf"`, `"-inf"`; strings, decimals, dates, times and timestamps as JSON strings;
//!   binary as lowercase hex strings; lists, structs and maps as JSON arrays and objects.
//!
//! Variant columns (`arrow.parquet.variant`) print as JSON in every format, as
//! [`crate::variant`] describes; an invalid Variant value is an error.
//!
//! `--limit N` stops reading once N rows are printed (row groups after it are not decoded).

use std::io::{self, Write};
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::dataset::DatasetArgs;
use crate::read_options::{explain, open_reader, ReadArgs};
use crate::text::{self, Column, Kind};
use crate::{variant, CliError};

/// Rows per block of table output (see the module docs).
pub const TABLE_BLOCK: usize = 1000;

/// The output format of `parq cat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns with a header.
    Table,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// Why printing stopped: a read error, or an output error.
enum Stop {
    Read(parq::Error),
    Write(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop::Write(e)
    }
}

impl From<parq::Error> for Stop {
    fn from(e: parq::Error) -> Self {
        Stop::Read(e)
    }
}

/// Prints the chosen rows of `file` (or of the dataset it names) to `out`.
pub fn run(
    file: &Path,
    read: &ReadArgs,
    dataset: &DatasetArgs,
    limit: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if crate::dataset::is_dataset(file) {
        return run_dataset(file, read, dataset, limit, format, out);
    }
    let reader = open_reader(file, read)?;
    let schema = reader.schema().map_err(|e| CliError::new(file, e))?;
    check_printable(file, &schema)?;
    let mut batches = reader.batches().map_err(|e| CliError::new(file, e))?;
    print(file, &schema, &mut batches, limit, format, out)?;
    if read.explain {
        explain(&reader, &batches.stats());
    }
    Ok(())
}

/// Prints the chosen rows of a dataset.
fn run_dataset(
    source: &Path,
    read: &ReadArgs,
    dataset: &DatasetArgs,
    limit: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (schema, mut batches, files) = crate::dataset::scan(source, read, dataset)?;
    check_printable(source, &schema)?;
    print(source, &schema, &mut batches, limit, format, out)?;
    if read.explain {
        eprintln!("files: {} of {files} read", batches.files_read());
    }
    Ok(())
}

/// Refuses a schema with a column `parq cat` cannot print.
fn check_printable(file: &Path, schema: &Schema) -> Result<(), CliError> {
    for f in schema.fields() {
        if !text::supported(f.data_type()) {
            return Err(CliError::message(
                file,
                format!(
                    "column `{}` has type {}, which parq cat cannot print",
                    f.name(),
                    f.data_type()
                ),
            ));
        }
    }
    Ok(())
}

/// The cells of one column of a batch: values as [`crate::text`] writes them, or Variant
/// values as JSON ([`crate::variant`]).
enum Cells<'a> {
    Plain(Column<'a>),
    Variant(&'a arrow_array::StructArray),
}

impl Cells<'_> {
    /// Appends the value at `row` to `out` (nothing for a null) and says what it is; an
    /// invalid Variant value is an error.
    fn write(&self, row: usize, out: &mut String) -> io::Result<Kind> {
        match self {
            Cells::Plain(c) => Ok(c.write(row, out)),
            Cells::Variant(a) if arrow_array::Array::is_null(*a, row) => Ok(Kind::Null),
            Cells::Variant(a) => match variant::write_row(a, row, out) {
                Ok(()) => Ok(Kind::Nested),
                Err(e) => Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
            },
        }
    }
}

/// Prints `batches` of `schema` (at most `limit` rows) to `out`.
fn print(
    file: &Path,
    schema: &Schema,
    batches: &mut dyn Iterator<Item = parq::Result<RecordBatch>>,
    limit: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let res = (|| -> Result<(), Stop> {
        let mut printer = Printer::new(format, schema);
        printer.header(&mut out)?;
        let mut left = limit.unwrap_or(usize::MAX);
        if left > 0 {
            for batch in batches {
                let batch = batch?;
                let n = left.min(batch.num_rows());
                printer.rows(&batch, n, &mut out)?;
                left -= n;
                if left == 0 {
                    break;
                }
            }
        }
        printer.finish(&mut out)?;
        out.flush()?;
        Ok(())
    })();
    match res {
        Ok(()) => Ok(()),
        Err(Stop::Read(e)) => {
            // Print what was read before the error, then report it.
            let _ = out.flush();
            Err(CliError::new(file, e))
        }
        // A closed pipe (`parq cat f | head`) ends the output quietly.
        Err(Stop::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(Stop::Write(e)) => Err(CliError::message(
            Path::new("<stdout>"),
            format!("cannot write: {e}"),
        )),
    }
}

/// Per-format state.
struct Printer {
    format: Format,
    names: Vec<String>,
    /// Right-align (numeric) per column, for tables.
    right: Vec<bool>,
    /// Column widths so far, for tables.
    widths: Vec<usize>,
    /// Buffered table cells, row-major.
    cells: Vec<String>,
    header_done: bool,
}

impl Printer {
    fn new(format: Format, schema: &Schema) -> Self {
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        Printer {
            format,
            right: schema
                .fields()
                .iter()
                .map(|f| text::is_numeric(f.data_type()))
                .collect(),
            widths: names
                .iter()
                .map(|n| table_escape(n).chars().count())
                .collect(),
            names,
            cells: Vec::new(),
            header_done: false,
        }
    }

    fn header(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            Format::Table => Ok(()), // printed with the first block, once widths are known
            Format::Csv => {
                let mut line = String::new();
                for (i, n) in self.names.iter().enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    csv_field(n, Kind::Text, &mut line);
                }
                line.push('\n');
                out.write_all(line.as_bytes())
            }
            Format::Jsonl => Ok(()),
        }
    }

    fn rows(&mut self, batch: &RecordBatch, n: usize, out: &mut dyn Write) -> io::Result<()> {
        let upper_hex = self.format == Format::Table;
        let schema = batch.schema();
        let cols: Vec<Cells<'_>> = schema
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, a)| match variant::variant_column(f, a.as_ref()) {
                Some(v) => Cells::Variant(v),
                None => Cells::Plain(Column::new(a.as_ref(), upper_hex)),
            })
            .collect();
        let mut line = String::new();
        let mut cell = String::new();
        for row in 0..n {
            match self.format {
                Format::Table => {
                    for c in &cols {
                        cell.clear();
                        if c.write(row, &mut cell)? == Kind::Null {
                            cell.push_str("null");
                        }
                        self.cells.push(table_escape(&cell));
                    }
                    if self.cells.len() >= TABLE_BLOCK * cols.len().max(1) {
                        self.flush_table(out)?;
                    }
                }
                Format::Csv => {
                    line.clear();
                    for (i, c) in cols.iter().enumerate() {
                        if i > 0 {
                            line.push(',');
                        }
                        cell.clear();
                        let kind = c.write(row, &mut cell)?;
                        csv_field(&cell, kind, &mut line);
                    }
                    line.push('\n');
                    out.write_all(line.as_bytes())?;
                }
                Format::Jsonl => {
                    line.clear();
                    line.push('{');
                    for (i, c) in cols.iter().enumerate() {
                        if i > 0 {
                            line.push_str(", ");
                        }
                        crate::json::escape(&self.names[i], &mut line);
                        line.push_str(": ");
                        cell.clear();
                        match c.write(row, &mut cell)? {
                            Kind::Null => line.push_str("null"),
                            Kind::Bool | Kind::Number | Kind::Nested => line.push_str(&cell),
                            Kind::NonFinite | Kind::Text | Kind::Bytes => {
                                crate::json::escape(&cell, &mut line)
                            }
                        }
                    }
                    line.push_str("}\n");
                    out.write_all(line.as_bytes())?;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.format == Format::Table {
            self.flush_table(out)?;
        }
        Ok(())
    }

    /// Prints the buffered table rows (and the header before the first block).
    fn flush_table(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let ncols = self.names.len();
        if ncols == 0 {
            return Ok(());
        }
        for (i, c) in self.cells.iter().enumerate() {
            let w = &mut self.widths[i % ncols];
            *w = (*w).max(c.chars().count());
        }
        let mut text = String::new();
        if !self.header_done {
            self.header_done = true;
            let names: Vec<String> = self.names.iter().map(|n| table_escape(n)).collect();
            self.table_line(&names, &mut text);
            let rule: Vec<String> = self.widths.iter().map(|w| "-".repeat(*w)).collect();
            self.table_line(&rule, &mut text);
        }
        for row in self.cells.chunks(ncols) {
            self.table_line(row, &mut text);
        }
        self.cells.clear();
        out.write_all(text.as_bytes())
    }

    fn table_line(&self, cells: &[String], out: &mut String) {
        let start = out.len();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = self.widths[i].saturating_sub(c.chars().count());
            if self.right[i] {
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(c);
            } else {
                out.push_str(c);
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let trimmed = out[start..].trim_end().len();
        out.truncate(start + trimmed);
        out.push('\n');
    }
}

/// `s` with control characters escaped, so that a table cell stays on one line.
fn table_escape(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Appends one CSV field: empty for null, quoted when needed (and for the empty string).
fn csv_field(value: &str, kind: Kind, out: &mut String) {
    if kind == Kind::Null {
        return;
    }
    if value.is_empty() || value.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&value.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(value);
    }
}
