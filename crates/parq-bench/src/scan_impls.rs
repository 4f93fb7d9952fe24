//! The queries of `parq-bench scan` and the in-process readers that answer them: parq
//! (`ParquetReader` over positional file reads, with its SQL filter) and `parquet` 60.1.0
//! (`ParquetRecordBatchReaderBuilder` with the page index, row groups pruned by the key's
//! statistics, a `RowSelection` from its column index and an exact `RowFilter`), both reading
//! through counting wrappers of the file; and [`Answer`], the checksums every result (the
//! Python peers' too) must match.

use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, ensure, Context, Result};
use arrow_60::cast::AsArray;
use arrow_60::types::{Float64Type, Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_60::{Array, BooleanArray, Int64Array, RecordBatch};
use bytes::Bytes;
use parq::read::{FileSource, MappedFile, ParquetReader, RangeRead, StringType};
use parquet_60::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet_60::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter, RowSelection,
    RowSelector,
};
use parquet_60::arrow::ProjectionMask;
use parquet_60::file::metadata::PageIndexPolicy;
use parquet_60::file::reader::{ChunkReader, Length};
use serde_json::{json, Value};

use crate::scan_data::TS_BASE_US;

/// The key every query filters on.
pub const KEY: &str = "id";

/// A query's condition on [`KEY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Every row.
    All,
    /// `id = v`.
    Eq(i64),
    /// `id >= lo AND id < hi`.
    Range(i64, i64),
}

impl Filter {
    /// The key range `[lo, hi)` the rows must fall in (`None`: every row).
    pub fn bounds(self) -> Option<(i64, i64)> {
        match self {
            Filter::All => None,
            Filter::Eq(v) => Some((v, v + 1)),
            Filter::Range(lo, hi) => Some((lo, hi)),
        }
    }

    /// The condition as parq's SQL text.
    pub fn sql(self) -> Option<String> {
        match self {
            Filter::All => None,
            Filter::Eq(v) => Some(format!("{KEY} = {v}")),
            Filter::Range(lo, hi) => Some(format!("{KEY} >= {lo} AND {KEY} < {hi}")),
        }
    }

    /// The condition as a conjunction of `[column, op, value]` for the Python peers (a
    /// pyarrow DNF filter; polars ANDs the comparisons).
    pub fn terms(self) -> Value {
        match self {
            Filter::All => json!([]),
            Filter::Eq(v) => json!([[KEY, "==", v]]),
            Filter::Range(lo, hi) => json!([[KEY, ">=", lo], [KEY, "<", hi]]),
        }
    }

    /// Rows of a table of `rows` rows (keys `0..rows`) that hold.
    pub fn matching_rows(self, rows: usize) -> u64 {
        let n = rows as i64;
        match self.bounds() {
            None => rows as u64,
            Some((lo, hi)) => (hi.min(n) - lo.max(0)).max(0) as u64,
        }
    }
}

/// One query of the benchmark.
#[derive(Clone, Debug)]
pub struct Query {
    /// Short name (`--queries`, JSON).
    pub name: &'static str,
    pub filter: Filter,
    /// Whether every implementation runs with all its threads (else one thread).
    pub threaded: bool,
}

impl Query {
    pub const NAMES: [&'static str; 4] = ["point", "range-1pct", "range-50pct", "full-scan"];

    /// The queries on a table of `rows` rows: a point lookup near 37% of the keys, ranges of
    /// 1% and 50% of the keys from there, and the full scan with threads.
    pub fn all(rows: usize) -> Vec<Query> {
        let n = rows as i64;
        let a = n * 37 / 100;
        let filters = [
            Filter::Eq(a),
            Filter::Range(a, a + (n / 100).max(1)),
            Filter::Range(a, a + (n / 2).max(1)),
            Filter::All,
        ];
        Query::NAMES
            .iter()
            .zip(filters)
            .map(|(&name, filter)| Query {
                name,
                filter,
                threaded: filter == Filter::All,
            })
            .collect()
    }
}

/// Checksums of a query's result: rows, sums of `id`, `ts - TS_BASE_US` (wrapping i64),
/// `qty` (non-null) and `value`, `qty`'s nulls and the bytes of `tag`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Answer {
    pub rows: u64,
    pub sum_id: i64,
    pub sum_ts: i64,
    pub sum_qty: i64,
    pub null_qty: u64,
    pub tag_bytes: u64,
    pub sum_value: f64,
}

impl Answer {
    /// The checksums of `batches` (columns found by name).
    pub fn of(batches: &[RecordBatch]) -> Result<Answer> {
        let mut a = Answer {
            rows: 0,
            sum_id: 0,
            sum_ts: 0,
            sum_qty: 0,
            null_qty: 0,
            tag_bytes: 0,
            sum_value: 0.0,
        };
        for b in batches {
            let col = |name: &str| b.column_by_name(name).with_context(|| format!("no {name}"));
            a.rows += b.num_rows() as u64;
            let id = col(KEY)?
                .as_primitive_opt::<Int64Type>()
                .context("id type")?;
            a.sum_id = id.values().iter().fold(a.sum_id, |s, &v| s.wrapping_add(v));
            let ts = col("ts")?;
            let ts = ts
                .as_primitive_opt::<TimestampMicrosecondType>()
                .context("ts type")?;
            a.sum_ts = ts
                .values()
                .iter()
                .fold(a.sum_ts, |s, &v| s.wrapping_add(v.wrapping_sub(TS_BASE_US)));
            let qty = col("qty")?
                .as_primitive_opt::<Int32Type>()
                .context("qty type")?;
            a.null_qty += qty.null_count() as u64;
            a.sum_qty = qty
                .iter()
                .flatten()
                .fold(a.sum_qty, |s, v| s.wrapping_add(i64::from(v)));
            let value = col("value")?;
            let value = value
                .as_primitive_opt::<Float64Type>()
                .context("value type")?;
            a.sum_value += value.values().iter().sum::<f64>();
            let tag = col("tag")?;
            a.tag_bytes += match (tag.as_string_opt::<i32>(), tag.as_string_view_opt()) {
                (Some(s), _) => {
                    let offsets = s.value_offsets();
                    (offsets[offsets.len() - 1] - offsets[0]) as u64
                }
                (None, Some(v)) => v.lengths().map(u64::from).sum(),
                _ => bail!("tag type {}", tag.data_type()),
            };
        }
        Ok(a)
    }

    /// The checksums a Python peer printed (`rows`, `sum_id`, ...; sums of nothing as 0).
    pub fn from_json(v: &Value) -> Result<Answer> {
        let int = |k: &str| -> Result<i64> {
            match &v[k] {
                Value::Null => Ok(0),
                x => x
                    .as_i64()
                    .or_else(|| x.as_u64().map(|u| u as i64))
                    .with_context(|| format!("answer field {k}: {x}")),
            }
        };
        Ok(Answer {
            rows: int("rows")? as u64,
            sum_id: int("sum_id")?,
            sum_ts: int("sum_ts")?,
            sum_qty: int("sum_qty")?,
            null_qty: int("null_qty")? as u64,
            tag_bytes: int("tag_bytes")? as u64,
            sum_value: v["sum_value"].as_f64().unwrap_or(0.0),
        })
    }

    /// An error unless `self` (what `who` answered) equals `expected` (`value` to a relative
    /// 1e-9: float sums depend on their order).
    pub fn check(&self, expected: &Answer, who: &str) -> Result<()> {
        let close =
            (self.sum_value - expected.sum_value).abs() <= 1e-9 * expected.sum_value.abs().max(1.0);
        let exact = Answer {
            sum_value: expected.sum_value,
            ..*self
        };
        ensure!(
            close && exact == *expected,
            "{who} answered {self:?}, expected {expected:?}"
        );
        Ok(())
    }
}

/// Bytes read from a file, shared by the readers of one read.
#[derive(Debug, Clone, Default)]
pub struct Counter(Arc<AtomicU64>);

impl Counter {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self, n: usize) {
        self.0.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// 60.1's [`ChunkReader`]: a file read by positional reads, the bytes counted.
#[derive(Debug, Clone)]
pub struct CountingFile {
    file: Arc<File>,
    len: u64,
    pub read: Counter,
}

impl CountingFile {
    pub fn open(path: &Path) -> Result<CountingFile> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let len = file.metadata()?.len();
        Ok(CountingFile {
            file: Arc::new(file),
            len,
            read: Counter::default(),
        })
    }
}

/// A [`Read`] from a position of a [`CountingFile`] on (60.1's page headers and footer).
pub struct CountingRead {
    file: CountingFile,
    pos: u64,
}

impl Read for CountingRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        self.file.read.add(n);
        Ok(n)
    }
}

impl Length for CountingFile {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for CountingFile {
    type T = BufReader<CountingRead>;

    fn get_read(&self, start: u64) -> parquet_60::errors::Result<Self::T> {
        Ok(BufReader::new(CountingRead {
            file: self.clone(),
            pos: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet_60::errors::Result<Bytes> {
        let mut buf = vec![0u8; length];
        self.file.read_exact_at(&mut buf, start)?;
        self.read.add(length);
        Ok(Bytes::from(buf))
    }
}

/// parq's own source, counted: positional reads ([`FileSource`], what
/// `ParquetReader::open` uses) or slices of a memory mapping ([`MappedFile`]: the bytes
/// asked for).
#[derive(Debug)]
struct CountingSource {
    inner: Box<dyn RangeRead>,
    read: Counter,
}

impl RangeRead for CountingSource {
    fn file_len(&self) -> u64 {
        self.inner.file_len()
    }

    fn read_range(&self, range: Range<u64>) -> parq::Result<Bytes> {
        let bytes = self.inner.read_range(range)?;
        self.read.add(bytes.len());
        Ok(bytes)
    }
}

/// What one read gives: the batches, and the bytes read from the file (footer included).
pub struct Scanned {
    pub batches: Vec<RecordBatch>,
    pub bytes_read: u64,
}

/// How parq reads the file (`parq-bench scan --mmap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParqSource {
    /// Positional reads ([`FileSource`]).
    Pread,
    /// A memory mapping ([`MappedFile`]).
    Mmap,
}

/// parq: `ParquetReader` over the file's positional reads (or its mapping) with the query's
/// SQL filter, on `threads` threads.
pub fn read_parq(
    path: &Path,
    filter: Filter,
    threads: usize,
    views: bool,
    from: ParqSource,
) -> Result<Scanned> {
    let read = Counter::default();
    let inner: Box<dyn RangeRead> = match from {
        ParqSource::Pread => Box::new(FileSource::open(path)?),
        // SAFETY: the benchmark's table is written once, before any read, and not changed
        // while it is read.
        ParqSource::Mmap => Box::new(unsafe { MappedFile::open(path)? }),
    };
    let source = CountingSource {
        inner,
        read: read.clone(),
    };
    let mut reader = ParquetReader::from_source(Arc::new(source))?.with_threads(threads);
    if views {
        reader = reader.with_strings(StringType::Utf8View);
    }
    if let Some(sql) = filter.sql() {
        reader = reader.with_filter(parq::read::parse_filter(&sql)?);
    }
    let mut batches = reader.batches()?;
    let out = batches.by_ref().collect::<parq::Result<Vec<_>>>()?;
    let stats = batches.stats();
    let bytes_read = read.get();
    ensure!(
        bytes_read >= stats.bytes_read,
        "parq reports {} bytes read, the file gave {bytes_read}",
        stats.bytes_read
    );
    Ok(Scanned {
        batches: out,
        bytes_read,
    })
}

/// `parquet` 60.1.0 as a query engine drives it: metadata with the page index, row groups
/// whose `id` min/max cannot match skipped, pages of the kept row groups whose column index
/// min/max cannot match deselected (`RowSelection`), and the condition applied exactly on the
/// selected rows (`RowFilter` on `id`), in batches of `batch_size` rows.
pub fn read_60(path: &Path, filter: Filter, batch_size: usize, views: bool) -> Result<Scanned> {
    let file = CountingFile::open(path)?;
    let mut options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    if views {
        options = options.with_schema(crate::scan_data::schema_with_views());
    }
    let mut builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options)?
        .with_batch_size(batch_size);
    if let Some((lo, hi)) = filter.bounds() {
        let md = Arc::clone(builder.metadata());
        let descr = md.file_metadata().schema_descr();
        let stats = StatisticsConverter::try_new(KEY, builder.schema(), descr)?;
        // A page or row group can hold a match unless its statistics say otherwise.
        let may_match = |mins: &Int64Array, maxes: &Int64Array, i: usize| {
            mins.is_null(i) || maxes.is_null(i) || (mins.value(i) < hi && maxes.value(i) >= lo)
        };
        let mins = stats.row_group_mins(md.row_groups().iter())?;
        let maxes = stats.row_group_maxes(md.row_groups().iter())?;
        let (mins, maxes) = (mins.as_primitive::<Int64Type>(), maxes.as_primitive());
        let row_groups: Vec<usize> = (0..md.num_row_groups())
            .filter(|&i| may_match(mins, maxes, i))
            .collect();
        let index = md.page_index().context("the file has no page index")?;
        let mins = stats.data_page_mins(index.as_ref(), &row_groups)?;
        let maxes = stats.data_page_maxes(index.as_ref(), &row_groups)?;
        let counts = stats
            .data_page_row_counts(index.as_ref(), md.row_groups(), &row_groups)?
            .context("the file has no offset index")?;
        let (mins, maxes) = (mins.as_primitive::<Int64Type>(), maxes.as_primitive());
        let selectors: Vec<RowSelector> = (0..counts.len())
            .map(|i| {
                let rows = counts.value(i) as usize;
                if may_match(mins, maxes, i) {
                    RowSelector::select(rows)
                } else {
                    RowSelector::skip(rows)
                }
            })
            .collect();
        let key = md
            .file_metadata()
            .schema_descr()
            .columns()
            .iter()
            .position(|c| c.path().string() == KEY)
            .context("no id column")?;
        let predicate = ArrowPredicateFn::new(ProjectionMask::leaves(descr, [key]), move |b| {
            let ids = b.column(0).as_primitive::<Int64Type>();
            Ok(BooleanArray::from_unary(ids, |v| lo <= v && v < hi))
        });
        builder = builder
            .with_row_groups(row_groups)
            .with_row_selection(RowSelection::from(selectors))
            .with_row_filter(RowFilter::new(vec![Box::new(predicate)]));
    }
    let batches = builder.build()?.collect::<Result<Vec<_>, _>>()?;
    Ok(Scanned {
        batches,
        bytes_read: file.read.get(),
    })
}
