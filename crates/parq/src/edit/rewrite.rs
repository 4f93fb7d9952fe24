//! [`rewrite`]: a Parquet file read and written again with other writer properties
//! (codec, encodings, row group and page sizes, statistics, Bloom filters, ...), with
//! columns dropped or renamed and rows sorted by columns on the way. Without sorting the
//! rows stream through batch by batch; sorting holds the whole file's rows in memory.

use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_ord::sort::{lexsort_to_indices, SortColumn};
use arrow_schema::{DataType, Field, Schema, SchemaRef, SortOptions};
use arrow_select::concat::concat_batches;
use arrow_select::take::take;

use super::temp::{same_file, TempFile};
use super::Progress;
use crate::error::arrow_error;
use crate::format::metadata::SortingColumn;
use crate::read::ParquetReader;
use crate::write::{ParquetWriter, WriterProperties};
use crate::{Error, ErrorKind, Result};

/// A column to sort by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// A top-level column (by its old or its new name, when renamed).
    pub column: String,
    /// Largest first.
    pub descending: bool,
    /// Nulls before the values.
    pub nulls_first: bool,
}

impl SortKey {
    /// Parses `NAME`, `NAME:asc` or `NAME:desc` (nulls last either way; `:nulls_first`
    /// may follow, as in `NAME:desc:nulls_first`).
    pub fn parse(text: &str) -> Result<SortKey> {
        let mut parts = text.split(':');
        let column = parts.next().unwrap_or_default().to_string();
        let mut key = SortKey {
            column,
            descending: false,
            nulls_first: false,
        };
        for p in parts {
            match p.to_ascii_lowercase().as_str() {
                "asc" => key.descending = false,
                "desc" => key.descending = true,
                "nulls_first" => key.nulls_first = true,
                "nulls_last" => key.nulls_first = false,
                other => {
                    return Err(Error::new(ErrorKind::InvalidArgument(format!(
                        "sort key `{text}`: `{other}` is not asc, desc, nulls_first or nulls_last"
                    ))))
                }
            }
        }
        if key.column.is_empty() {
            return Err(Error::new(ErrorKind::InvalidArgument(format!(
                "sort key `{text}` names no column"
            ))));
        }
        Ok(key)
    }
}

/// What [`rewrite`] changes besides the writer properties.
#[derive(Debug, Clone, Default)]
pub struct RewriteOptions {
    /// Top-level columns left out.
    pub drop: Vec<String>,
    /// Top-level columns renamed: `(old, new)`.
    pub rename: Vec<(String, String)>,
    /// Sort the rows by these columns (the first key first); the output's row groups then
    /// carry them as `sorting_columns`.
    pub sort_by: Vec<SortKey>,
}

/// The number of Parquet leaf columns an Arrow field of type `ty` becomes.
fn leaf_count(ty: &DataType) -> usize {
    match ty {
        DataType::Struct(fields) => fields.iter().map(|f| leaf_count(f.data_type())).sum(),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => leaf_count(f.data_type()),
        DataType::Dictionary(_, v) => leaf_count(v),
        _ => 1,
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorKind::InvalidArgument(message))
}

/// The output schema: `schema` without the dropped columns, renamed; and the indices of
/// the kept columns in `schema`.
fn output_schema(schema: &Schema, opts: &RewriteOptions) -> Result<(SchemaRef, Vec<usize>)> {
    for name in opts
        .drop
        .iter()
        .chain(opts.rename.iter().map(|(old, _)| old))
    {
        if schema.field_with_name(name).is_err() {
            return Err(Error::new(ErrorKind::ColumnNotFound { path: name.clone() }));
        }
    }
    let mut kept = Vec::new();
    let mut fields: Vec<Field> = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        if opts.drop.contains(f.name()) {
            continue;
        }
        let name = opts
            .rename
            .iter()
            .find(|(old, _)| old == f.name())
            .map_or(f.name().as_str(), |(_, new)| new.as_str());
        if fields.iter().any(|g| g.name() == name) {
            return Err(invalid(format!("two output columns are named `{name}`")));
        }
        fields.push(f.as_ref().clone().with_name(name));
        kept.push(i);
    }
    if fields.is_empty() {
        return Err(invalid("every column is dropped".into()));
    }
    let out = Schema::new_with_metadata(fields, schema.metadata().clone());
    Ok((Arc::new(out), kept))
}

/// The `sorting_columns` of `keys` in `schema` (leaf column indices), each key a
/// top-level column that is not nested.
fn sorting_columns(schema: &Schema, keys: &[SortKey]) -> Result<Vec<SortingColumn>> {
    keys.iter()
        .map(|k| {
            let (i, f) = schema.column_with_name(&k.column).ok_or_else(|| {
                Error::new(ErrorKind::ColumnNotFound {
                    path: k.column.clone(),
                })
            })?;
            if leaf_count(f.data_type()) != 1 || f.data_type().is_nested() {
                return Err(invalid(format!(
                    "sorting by `{}`: a nested column cannot be a sort key",
                    k.column
                )));
            }
            let leaf: usize = schema
                .fields()
                .iter()
                .take(i)
                .map(|f| leaf_count(f.data_type()))
                .sum();
            Ok(SortingColumn {
                column_idx: i32::try_from(leaf).map_err(|_| invalid("too many columns".into()))?,
                descending: k.descending,
                nulls_first: k.nulls_first,
            })
        })
        .collect()
}

/// Reads `input` and writes it to `output` with `properties` and the changes of `options`
/// (see the [module documentation](crate::edit)), under a temporary name renamed into place when
/// complete; `output` may not be `input`. Returns the rows written.
pub fn rewrite(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    properties: WriterProperties,
    options: &RewriteOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<u64> {
    let (input, output) = (input.as_ref(), output.as_ref());
    let name = |p: &Path| p.display().to_string();
    if same_file(input, output) {
        return Err(invalid("the output is the input".into()).in_file(name(output)));
    }
    let in_err = |e: Error| e.in_file(name(input));
    let out_err = |e: Error| e.in_file(name(output));
    let reader = ParquetReader::open(input).map_err(in_err)?;
    let in_schema = reader.schema().map_err(in_err)?;
    let (schema, kept) = output_schema(&in_schema, options).map_err(in_err)?;
    // A sort key may name a renamed column by either name.
    let sort_by: Vec<SortKey> = options
        .sort_by
        .iter()
        .map(
            |k| match options.rename.iter().find(|(old, _)| *old == k.column) {
                Some((_, new)) if schema.field_with_name(&k.column).is_err() => SortKey {
                    column: new.clone(),
                    ..k.clone()
                },
                _ => k.clone(),
            },
        )
        .collect();
    let mut properties = properties;
    if !sort_by.is_empty() {
        properties = properties.with_sorting_columns(sorting_columns(&schema, &sort_by)?);
    }
    // Every request is checked before the output exists.
    ParquetWriter::try_new(std::io::sink(), schema.clone(), properties.clone()).map_err(out_err)?;
    let mut done = Progress {
        rows_total: u64::try_from(reader.metadata().num_rows()).unwrap_or(0),
        bytes_total: std::fs::metadata(input).map_or(0, |m| m.len()),
        ..Progress::default()
    };
    let (mut tmp, file) = TempFile::create(output)?;
    let mut buf = BufWriter::with_capacity(1 << 20, file);
    let mut writer =
        ParquetWriter::try_new(&mut buf, schema.clone(), properties).map_err(out_err)?;
    let shape = |b: &RecordBatch| -> Result<RecordBatch> {
        let columns = kept
            .iter()
            .map(|&i| b.columns().get(i).cloned())
            .collect::<Option<Vec<ArrayRef>>>()
            .ok_or_else(|| crate::error::internal("a batch without the schema's columns"))?;
        RecordBatch::try_new(schema.clone(), columns).map_err(arrow_error)
    };
    let step = |done: &mut Progress, rows: usize| {
        done.rows += rows as u64;
        let t = u128::from(done.rows_total.max(1));
        done.bytes = (u128::from(done.bytes_total) * u128::from(done.rows) / t)
            .min(u128::from(done.bytes_total)) as u64;
    };
    if sort_by.is_empty() {
        for batch in reader.batches().map_err(in_err)? {
            let batch = shape(&batch.map_err(in_err)?)?;
            writer.write(&batch).map_err(out_err)?;
            step(&mut done, batch.num_rows());
            progress(done);
        }
    } else {
        let batches = reader
            .batches()
            .map_err(in_err)?
            .map(|b| b.and_then(|b| shape(&b)))
            .collect::<Result<Vec<_>>>()
            .map_err(in_err)?;
        let all = concat_batches(&schema, &batches).map_err(arrow_error)?;
        drop(batches);
        let keys = sort_by
            .iter()
            .map(|k| {
                let values = all.column_by_name(&k.column).cloned().ok_or_else(|| {
                    Error::new(ErrorKind::ColumnNotFound {
                        path: k.column.clone(),
                    })
                })?;
                Ok(SortColumn {
                    values,
                    options: Some(SortOptions {
                        descending: k.descending,
                        nulls_first: k.nulls_first,
                    }),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let order = lexsort_to_indices(&keys, None).map_err(arrow_error)?;
        drop(keys);
        let columns = all
            .columns()
            .iter()
            .map(|c| take(c.as_ref(), &order, None).map_err(arrow_error))
            .collect::<Result<Vec<_>>>()?;
        let sorted = RecordBatch::try_new(schema.clone(), columns).map_err(arrow_error)?;
        drop(all);
        writer.write(&sorted).map_err(out_err)?;
        step(&mut done, sorted.num_rows());
        progress(done);
    }
    writer.close().map_err(out_err)?;
    tmp.commit(buf)?;
    Ok(done.rows)
}
