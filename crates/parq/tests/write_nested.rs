//! Tests of `parq::write` on nested Arrow schemas: lists (list, large list, fixed-size list,
//! list view, large list view), structs, maps and their combinations down to six levels,
//! with nulls and empty lists at every level, written over a matrix of writer settings and
//! checked against the input data and against other implementations.
//!
//! Data (`tests/nested/mod.rs`): two schemas (`main_schema`: every shape but the list views;
//! `views_schema`: the list views, apart because polars 2.1 cannot open a file whose
//! `ARROW:schema` holds one), each with nullable levels holding nulls and with every level
//! required, `main_schema` also with nullable levels holding none. Random from a seeded
//! [`Rng`]: short lists, empty lists, some long ones that run over many tiny pages, null lists
//! with values under them, list views that overlap and go backwards, non-nullable struct
//! children with nulls masked by their struct's nulls, dictionaries, string and binary views
//! and an extension type inside lists and structs; every array is a slice of a longer one
//! (its children too, list offsets not starting at 0), and the input batch is itself a slice
//! (`slice(3, n - 7)`), written in random parts.
//!
//! Settings ([`CONFIGS`]): data page v1 / v2, dictionary on / off, uncompressed, SNAPPY and
//! ZSTD, statistics none / chunk / page, Bloom filters on nested leaves, pages of a few rows
//! or bytes, small row groups, compliant (`element`) and legacy (`item`) list naming.
//!
//! Checks of every file:
//! - parq's reader and the `parquet` crate 60.1 read it back equal to the input (whole, parq
//!   also in batches of 7 rows, 60.1 also through a row selection that skips pages by the
//!   offset index). Compared in the canonical form of [`canon`]: list children are named
//!   `item`, map entries `entries` / `key` / `value`, field metadata is dropped, dictionaries
//!   are materialized, string and binary views are compared as plain strings and binaries and
//!   list views as lists of the same offset width (each view's values in turn). Struct field
//!   names, nullability at every level, every value and every null are compared.
//! - The pages as 60.1's page reader gives them, their levels decoded here: the pages of a
//!   chunk begin at records, the offset index's `first_row_index` of each page is the number
//!   of records before it and the chunk holds the row group's rows, a v2 header's `num_rows`
//!   and `num_nulls` are its page's, no page holds more than `data_page_rows` records; the
//!   chunk's num_values and statistics null count, the column index's null counts and null
//!   pages, and the level histograms of the chunk and of the column index match the decoded
//!   levels; Bloom filters are on the leaves asked for and hold every value of the input.
//! - `write_nested.py`: pyarrow 26, DuckDB and polars read the file equal to the input (its
//!   Arrow IPC file); pyarrow writes the same input with the same row groups, and its file has
//!   the same Parquet schema and per leaf the same num_values and statistics (null count,
//!   number of values, min / max); the repetition and definition levels of every leaf chunk
//!   (decoded here from both files) are the same.
//!
//! A small file's levels are checked against those worked out from the spec; a non-nullable
//! level holding nulls is a clean error. The pyarrow venv (`bash scripts/venv.sh`) is required
//! under CI, else the peer checks are skipped.

mod common;
mod nested;
use common::{guarded, python_if_present, run_python_file, tmp_dir, write_ipc, Rng};
use nested::PageLevels;
use nested::{canon, canon_batch, chunk_levels, compare, datasets, file_pages, histogram};

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use parq::format::metadata::Compression;
use parq::read::ParquetReader;
use parq::write::file::ParquetWriter;
use parq::write::properties::{Codec, DataPageVersion, StatisticsLevel, WriterProperties};
use parq::write::BloomFilterProperties;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// Writer settings and writing

struct Config {
    name: &'static str,
    version: DataPageVersion,
    dictionary: bool,
    codec: Codec,
    stats: StatisticsLevel,
    page_rows: Option<usize>,
    page_bytes: Option<usize>,
    row_group_rows: Option<usize>,
    compliant: bool,
    bloom: bool,
}

/// The settings written, each as `name v1|v2 dict|plain none|snappy|zstd nostats|chunk|page`
/// then any of `rows=N` (data page rows), `bytes=N` (data page bytes), `rg=N` (row group
/// rows), `legacy` (non-compliant list naming), `bloom` (Bloom filters on [`bloom_leaves`]).
const CONFIGS: [&str; 7] = [
    "defaults v1 dict snappy page",
    "v1_dict_rows v1 dict snappy page rows=5 rg=150 bloom",
    "v2_plain_zstd_chunk v2 plain zstd chunk rows=3 bytes=256 rg=97",
    "v1_plain_nostats_legacy v1 plain none nostats bytes=120 rg=128 legacy",
    "v2_dict_legacy_bloom v2 dict snappy page rows=2 rg=64 legacy bloom",
    "v1_zstd_one_row v1 dict zstd page rows=1 rg=50",
    "v2_plain_bytes v2 plain snappy page bytes=64 rg=300",
];

fn config(spec: &'static str) -> Config {
    let mut words = spec.split(' ');
    let mut c = Config {
        name: words.next().unwrap(),
        version: DataPageVersion::V1,
        dictionary: true,
        codec: Codec::SNAPPY,
        stats: StatisticsLevel::Page,
        page_rows: None,
        page_bytes: None,
        row_group_rows: None,
        compliant: true,
        bloom: false,
    };
    for w in words {
        let number = || w.split_once('=').map(|(_, n)| n.parse::<usize>().unwrap());
        match w.split_once('=').map_or(w, |(k, _)| k) {
            "v1" => c.version = DataPageVersion::V1,
            "v2" => c.version = DataPageVersion::V2,
            "dict" | "plain" => c.dictionary = w == "dict",
            "none" => c.codec = Codec::UNCOMPRESSED,
            "snappy" => c.codec = Codec::SNAPPY,
            "zstd" => c.codec = Codec::new(Compression::Zstd, Some(3)).unwrap(),
            "nostats" => c.stats = StatisticsLevel::None,
            "chunk" => c.stats = StatisticsLevel::Chunk,
            "page" => c.stats = StatisticsLevel::Page,
            "rows" => c.page_rows = number(),
            "bytes" => c.page_bytes = number(),
            "rg" => c.row_group_rows = number(),
            "legacy" => c.compliant = false,
            "bloom" => c.bloom = true,
            other => panic!("config word {other}"),
        }
    }
    c
}

/// The leaves given Bloom filters: a column and the struct fields under its list (an Int32
/// leaf and two string leaves).
const BLOOM_LEAVES: [(&str, &[&str]); 3] = [("li", &[]), ("ls", &[]), ("lst", &["b"])];

/// The paths of [`BLOOM_LEAVES`] with compliant or legacy list naming.
fn bloom_leaves(compliant: bool) -> Vec<String> {
    let e = if compliant { "element" } else { "item" };
    BLOOM_LEAVES
        .iter()
        .map(|(c, inner)| {
            let mut p = format!("{c}.list.{e}");
            for f in *inner {
                p = format!("{p}.{f}");
            }
            p
        })
        .collect()
}

fn props(cfg: &Config, views: bool) -> WriterProperties {
    props_on(cfg, views, 1)
}

/// [`props`] with `threads` encoding threads.
fn props_on(cfg: &Config, views: bool, threads: usize) -> WriterProperties {
    let mut b = WriterProperties::builder()
        .threads(threads)
        .data_page_version(cfg.version)
        .dictionary(cfg.dictionary)
        .compression(cfg.codec)
        .statistics(cfg.stats)
        .compliant_nested_types(cfg.compliant);
    // Limits not given keep their defaults.
    if cfg.page_rows.is_some() {
        b = b.data_page_rows(cfg.page_rows);
    }
    if cfg.page_bytes.is_some() {
        b = b.data_page_bytes(cfg.page_bytes);
    }
    if cfg.row_group_rows.is_some() {
        b = b.max_row_group_rows(cfg.row_group_rows);
    }
    if cfg.bloom && !views {
        for leaf in bloom_leaves(cfg.compliant) {
            let bloom = BloomFilterProperties {
                ndv: 2000,
                fpp: 0.01,
            };
            b = b.column_bloom_filter(&leaf, Some(bloom));
        }
    }
    b.build().expect("properties")
}

/// Writes `batch` in random parts, an empty batch first and, one time in two, last (the
/// writer holds the last part it was given: closed with it, each column is written straight
/// to the output; after the empty batch, from the buffers).
fn write(batch: &RecordBatch, props: WriterProperties, rng: &mut Rng) -> parq::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props)?;
    w.write(&batch.slice(0, 0))?;
    let (mut off, n) = (0, batch.num_rows());
    while off < n {
        let k = (1 + rng.below(150) as usize).min(n - off);
        w.write(&batch.slice(off, k))?;
        off += k;
    }
    if rng.chance(0.5) {
        w.write(&batch.slice(n, 0))?;
    }
    w.close()?;
    Ok(out)
}

/// Writes `batch` in parts of `parts` rows, each followed, with `release`, by an empty batch
/// (which makes the writer give the rows it holds to the columns' buffers).
fn write_in_parts(
    batch: &RecordBatch,
    props: WriterProperties,
    parts: &[usize],
    release: bool,
) -> parq::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props)?;
    let mut off = 0;
    for &k in parts {
        w.write(&batch.slice(off, k))?;
        off += k;
        if release {
            w.write(&batch.slice(off, 0))?;
        }
    }
    w.close()?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Reading back

/// parq reads the file back equal to the input, whole and in batches of 7 rows.
fn read_with_parq(bytes: &Bytes, input: &RecordBatch) -> Vec<String> {
    let mut out = Vec::new();
    match guarded(|| ParquetReader::from_bytes(bytes.clone())?.read_batch()) {
        Ok(b) => out.extend(compare("parq", &b, input)),
        Err(e) => out.push(format!("parq reads: {e}")),
    }
    let batches = guarded(|| {
        let r = ParquetReader::from_bytes(bytes.clone())?.with_batch_size(7);
        let schema = r.schema()?;
        let batches = r.batches()?.collect::<parq::Result<Vec<_>>>()?;
        Ok::<_, parq::Error>((schema, batches))
    });
    match batches {
        Ok((schema, b)) => match arrow_select::concat::concat_batches(&schema, &b) {
            Ok(all) => out.extend(compare("parq in batches of 7", &all, input)),
            Err(e) => out.push(format!("parq batches do not concatenate: {e}")),
        },
        Err(e) => out.push(format!("parq reads in batches: {e}")),
    }
    out
}

/// The `parquet` crate 60.1 reads the file back equal to the input, whole and through a row
/// selection (which skips pages by the offset index).
fn read_with_peer(bytes: &Bytes, input: &RecordBatch, seed: u64) -> Vec<String> {
    let read = |selection: Option<RowSelection>| -> Result<RecordBatch, String> {
        let options = ArrowReaderOptions::new()
            .with_column_index_policy(PageIndexPolicy::Optional)
            .with_offset_index_policy(PageIndexPolicy::Required);
        let mut builder =
            ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
                .map_err(|e| format!("opens: {e}"))?
                .with_batch_size(50);
        if let Some(s) = selection {
            builder = builder.with_row_selection(s);
        }
        let schema = builder.schema().clone();
        let batches = builder
            .build()
            .and_then(|r| r.collect::<Result<Vec<_>, _>>().map_err(Into::into))
            .map_err(|e| format!("reads: {e}"))?;
        arrow_select::concat::concat_batches(&schema, &batches).map_err(|e| e.to_string())
    };
    let mut out = Vec::new();
    match guarded(|| read(None)) {
        Ok(b) => out.extend(compare("parquet 60.1", &b, input)),
        Err(e) => out.push(format!("parquet 60.1: {e}")),
    }
    let (selection, mask) = common::row_selection(seed, input.num_rows());
    let want = arrow_select::filter::filter_record_batch(&canon_batch(input), &mask).unwrap();
    match guarded(|| read(Some(selection))) {
        Ok(b) => out.extend(compare("parquet 60.1 with a row selection", &b, &want)),
        Err(e) => out.push(format!("parquet 60.1 with a row selection: {e}")),
    }
    out
}

// ---------------------------------------------------------------------------------------
// Pages and levels

/// Counts over the files checked, asserted so that the checks cannot pass vacuously.
#[derive(Default, Debug)]
struct Tally {
    chunks: usize,
    pages: usize,
    pages_v2: usize,
    chunks_of_many_pages: usize,
    column_indexes: usize,
    bloom_values: usize,
    row_groups: usize,
}

/// The pages, statistics, page index and Bloom filters of the file against its levels and
/// input (see the file's documentation).
fn check_layout(
    bytes: &Bytes,
    cfg: &Config,
    input: &RecordBatch,
    views: bool,
    tally: &mut Tally,
) -> Result<(), String> {
    let options = ArrowReaderOptions::new()
        .with_column_index_policy(PageIndexPolicy::Optional)
        .with_offset_index_policy(PageIndexPolicy::Required);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
        .map_err(|e| format!("parquet 60.1 page index: {e}"))?;
    let md: Arc<ParquetMetaData> = builder.metadata().clone();
    let read_bloom = ReaderProperties::builder()
        .set_read_bloom_filter(true)
        .build();
    let read_options = ReadOptionsBuilder::new()
        .with_reader_properties(read_bloom)
        .build();
    let blooms = SerializedFileReader::new_with_options(bytes.clone(), read_options)
        .map_err(|e| e.to_string())?;
    let pages = file_pages(bytes)?;
    let descr = md.file_metadata().schema_descr();
    let rows = input.num_rows();
    let sizes: Vec<usize> = md
        .row_groups()
        .iter()
        .map(|g| g.num_rows() as usize)
        .collect();
    let limit = cfg.row_group_rows.unwrap_or(usize::MAX);
    if sizes.iter().sum::<usize>() != rows || sizes.iter().any(|&s| s == 0 || s > limit) {
        return Err(format!(
            "row groups of {sizes:?} rows for {rows} rows, at most {limit}"
        ));
    }
    tally.row_groups += sizes.len();
    let bloom_paths = if cfg.bloom && !views {
        bloom_leaves(cfg.compliant)
    } else {
        Vec::new()
    };
    let mut first_row = 0;
    for (g, rg) in md.row_groups().iter().enumerate() {
        let pi = md.page_index_for_row_group(g);
        let rg_reader = blooms.get_row_group(g).map_err(|e| e.to_string())?;
        for (j, cm) in rg.columns().iter().enumerate() {
            let col = descr.column(j);
            let path = col.path().string();
            let what = format!("row group {g} `{path}`");
            let (max_rep, max_def) = (col.max_rep_level(), col.max_def_level());
            let chunk = &pages[g][j];
            let levels = |p: &PageLevels| p.def.iter().filter(|&&d| d == max_def as u16).count();
            let nulls = |p: &PageLevels| p.def.len() - levels(p);
            let total: usize = chunk.iter().map(|p| p.def.len()).sum();
            let chunk_nulls: usize = chunk.iter().map(nulls).sum();
            tally.chunks += 1;
            tally.pages += chunk.len();
            tally.chunks_of_many_pages += usize::from(chunk.len() > 1);
            // Pages begin at records; the offset index counts the records before each page.
            let oi = pi
                .offset_index(j)
                .ok_or_else(|| format!("{what}: no offset index"))?;
            let starts: Vec<i64> = oi
                .page_locations()
                .iter()
                .map(|l| l.first_row_index)
                .collect();
            let mut records = Vec::new();
            let mut at = 0;
            for (i, p) in chunk.iter().enumerate() {
                if p.rep.first().is_some_and(|&r| r != 0) || p.num_values != p.def.len() {
                    return Err(format!("{what}: page {i} begins inside a record"));
                }
                if let Some((num_rows, num_nulls)) = p.v2 {
                    tally.pages_v2 += 1;
                    if (num_rows, num_nulls) != (p.records(), nulls(p)) {
                        return Err(format!(
                            "{what}: v2 page {i} of {num_rows} rows and {num_nulls} nulls, \
                             holds {} records and {} nulls",
                            p.records(),
                            nulls(p)
                        ));
                    }
                }
                if p.v2.is_some() != (cfg.version == DataPageVersion::V2) {
                    return Err(format!("{what}: page {i} is not of {:?}", cfg.version));
                }
                if cfg.page_rows.is_some_and(|max| p.records() > max) {
                    return Err(format!("{what}: page {i} of {} records", p.records()));
                }
                records.push(at as i64);
                at += p.records();
            }
            if records != starts || at != sizes[g] {
                return Err(format!(
                    "{what}: offset index first rows {starts:?}, the pages begin at records \
                     {records:?} of {at} (row group of {})",
                    sizes[g]
                ));
            }
            if cm.num_values() != total as i64 {
                return Err(format!(
                    "{what}: num_values {} for {total} levels",
                    cm.num_values()
                ));
            }
            // Statistics and histograms at the levels the settings ask for.
            let stats = cm.statistics();
            let hist_rep = histogram(chunk.iter().flat_map(|p| p.rep.iter().copied()), max_rep);
            let hist_def = histogram(chunk.iter().flat_map(|p| p.def.iter().copied()), max_def);
            if cfg.stats == StatisticsLevel::None {
                if stats.is_some() || cm.column_index_offset().is_some() {
                    return Err(format!("{what}: statistics at level none"));
                }
            } else {
                let n = stats.and_then(|s| s.null_count_opt());
                if n != Some(chunk_nulls as u64) {
                    return Err(format!("{what}: null count {n:?} for {chunk_nulls} nulls"));
                }
                let rep = cm.repetition_level_histogram().map(|h| h.values().to_vec());
                let def = cm.definition_level_histogram().map(|h| h.values().to_vec());
                if (max_rep > 0 && rep != Some(hist_rep.clone()))
                    || (max_def > 1 && def != Some(hist_def.clone()))
                    || def.as_ref().is_some_and(|d| d != &hist_def)
                {
                    return Err(format!(
                        "{what}: level histograms {rep:?} {def:?}, expected {hist_rep:?} {hist_def:?}"
                    ));
                }
            }
            let ci = pi.column_index(j);
            if ci.is_some() != (cfg.stats == StatisticsLevel::Page) {
                return Err(format!("{what}: column index {}", ci.is_some()));
            }
            if let Some(ci) = ci {
                tally.column_indexes += 1;
                if ci.num_pages() as usize != chunk.len() {
                    return Err(format!("{what}: column index of {} pages", ci.num_pages()));
                }
                for (i, p) in chunk.iter().enumerate() {
                    let want_rep = histogram(p.rep.iter().copied(), max_rep);
                    let want_def = histogram(p.def.iter().copied(), max_def);
                    let (rep, def) = (
                        ci.repetition_level_histogram(i),
                        ci.definition_level_histogram(i),
                    );
                    let bad = ci.null_count(i) != Some(nulls(p) as i64)
                        || ci.is_null_page(i) != (levels(p) == 0)
                        || (max_rep > 0 && rep != Some(&want_rep[..]))
                        || (max_def > 1 && def != Some(&want_def[..]))
                        || def.is_some_and(|d| d != &want_def[..]);
                    if bad {
                        return Err(format!(
                            "{what}: column index page {i}: null count {:?}, null page {}, \
                             histograms {rep:?} {def:?}; the page holds {} nulls of {} levels, \
                             histograms {want_rep:?} {want_def:?}",
                            ci.null_count(i),
                            ci.is_null_page(i),
                            nulls(p),
                            p.def.len()
                        ));
                    }
                }
            }
            // Bloom filters: on the leaves asked for only, holding every value of the input.
            let filter = rg_reader.get_column_bloom_filter(j);
            let bloom = bloom_paths.iter().position(|p| p == &path);
            if filter.is_some() != bloom.is_some() {
                return Err(format!("{what}: Bloom filter {}", filter.is_some()));
            }
            if let (Some(f), Some(k)) = (filter, bloom) {
                let (column, inner) = BLOOM_LEAVES[k];
                let array = canon(input.column_by_name(column).unwrap().as_ref());
                let mut values = Vec::new();
                leaf_bytes(
                    array.as_ref(),
                    first_row..first_row + sizes[g],
                    inner,
                    &mut values,
                );
                tally.bloom_values += values.len();
                if let Some(v) = values.iter().find(|v| !f.check(&v[..])) {
                    return Err(format!("{what}: {v:?} not in the Bloom filter"));
                }
            }
        }
        first_row += sizes[g];
    }
    Ok(())
}

/// The plain bytes of the valid leaf values under `rows` of canonical `a` (Int32 or Utf8 under
/// lists and the struct fields `path`).
fn leaf_bytes(a: &dyn Array, rows: Range<usize>, path: &[&str], out: &mut Vec<Vec<u8>>) {
    match a.data_type() {
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            for i in rows.filter(|&i| l.is_valid(i)) {
                let o = l.value_offsets();
                leaf_bytes(
                    l.values().as_ref(),
                    o[i] as usize..o[i + 1] as usize,
                    path,
                    out,
                );
            }
        }
        DataType::Struct(_) => {
            let s = a.as_struct();
            let c = s.column_by_name(path[0]).expect("struct field");
            for i in rows.filter(|&i| s.is_valid(i)) {
                leaf_bytes(c.as_ref(), i..i + 1, &path[1..], out);
            }
        }
        DataType::Int32 => {
            let p = a.as_primitive::<Int32Type>();
            out.extend(
                rows.filter(|&i| p.is_valid(i))
                    .map(|i| p.value(i).to_le_bytes().to_vec()),
            );
        }
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            out.extend(
                rows.filter(|&i| s.is_valid(i))
                    .map(|i| s.value(i).as_bytes().to_vec()),
            );
        }
        other => panic!("no Bloom filter values of {other}"),
    }
}

// ---------------------------------------------------------------------------------------
// Tests

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/write_nested.py")
}

/// One file written: its input and settings, for `write_nested.py`.
struct Written {
    name: String,
    path: PathBuf,
    views: bool,
}

#[test]
fn nested_matrix() {
    let started = std::time::Instant::now();
    let dir = tmp_dir("matrix");
    let mut failures = Vec::new();
    let mut tally = Tally::default();
    let mut written = Vec::new();
    let mut manifest = Vec::new();
    let mut rng = Rng(11);
    for (d, (data, input, views)) in datasets().into_iter().enumerate() {
        let ipc = dir.join(format!("{data}.arrow"));
        write_ipc(&ipc, &input);
        for spec in CONFIGS {
            let cfg = config(spec);
            let name = format!("{data}-{}", cfg.name);
            let bytes = match guarded(|| write(&input, props(&cfg, views), &mut rng)) {
                Ok(b) => Bytes::from(b),
                Err(e) => {
                    failures.push(format!("{name}: parq writes: {e}"));
                    continue;
                }
            };
            let path = dir.join(format!("{name}.parquet"));
            std::fs::write(&path, &bytes).expect("write file");
            let seed = (d * 100) as u64 + written.len() as u64;
            let mut diffs = read_with_parq(&bytes, &input);
            diffs.extend(read_with_peer(&bytes, &input, seed));
            if let Err(e) = check_layout(&bytes, &cfg, &input, views, &mut tally) {
                diffs.push(e);
            }
            failures.extend(diffs.into_iter().map(|d| format!("{name}: {d}")));
            manifest.push(json!({
                "name": name,
                "parquet": path,
                "ipc": ipc,
                "compliant": cfg.compliant,
                "statistics": cfg.stats != StatisticsLevel::None,
                "reference": dir.join(format!("{name}.pyarrow.parquet")),
            }));
            written.push(Written { name, path, views });
        }
    }
    eprintln!(
        "wrote and read back {} files in {:.1?}: {tally:?}",
        written.len(),
        started.elapsed()
    );
    let mut chunks = None;
    if python_if_present().is_some() {
        let (f, n) = interop(&dir, &manifest, &written);
        failures.extend(f);
        chunks = Some(n);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(written.len(), 5 * CONFIGS.len());
    assert_eq!(tally.row_groups, 150, "{tally:?}");
    assert!(tally.pages > 50_000 && tally.pages_v2 > 25_000, "{tally:?}");
    assert!(tally.chunks_of_many_pages > 2000, "{tally:?}");
    assert!(tally.column_indexes > 1500, "{tally:?}");
    assert!(tally.bloom_values > 15_000, "{tally:?}");
    if let Some(n) = chunks {
        assert_eq!(n, tally.chunks, "leaf chunks compared with pyarrow's");
    }
}

/// `write_nested.py check`: pyarrow, DuckDB and polars read each file equal to its input;
/// pyarrow's own writing of the input has the same schema and statistics, and the same levels
/// in every leaf chunk. Returns the failures and the number of leaf chunks compared with
/// pyarrow's.
fn interop(dir: &Path, manifest: &[Value], written: &[Written]) -> (Vec<String>, usize) {
    let started = std::time::Instant::now();
    let list = dir.join("manifest.json");
    std::fs::write(&list, serde_json::to_vec(manifest).unwrap()).expect("manifest");
    let out = run_python_file(&script(), &[Path::new("check"), list.as_path()]);
    let report: Value = serde_json::from_str(&out).expect("json");
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), written.len());
    let mut failures = Vec::new();
    let mut chunks = 0;
    for (f, w) in files.iter().zip(written) {
        assert_eq!(f["name"], w.name.as_str());
        for e in f["failures"].as_array().expect("failures") {
            failures.push(format!("{}: {}", w.name, e.as_str().unwrap_or_default()));
        }
        // polars 2.1 panics on an `ARROW:schema` with a list view ("not yet implemented").
        let polars = f["polars"].as_str().expect("polars");
        if (polars == "ok") == w.views {
            failures.push(format!("{}: polars {polars}", w.name));
        }
        chunks += f["chunks"].as_u64().expect("chunks") as usize;
        // The levels of every leaf chunk, as pyarrow writes them.
        let reference = Bytes::from(std::fs::read(f["reference"].as_str().unwrap()).unwrap());
        let ours = Bytes::from(std::fs::read(&w.path).unwrap());
        match (file_pages(&ours), file_pages(&reference)) {
            (Ok(ours), Ok(theirs)) => {
                if let Some(d) = level_difference(&ours, &theirs) {
                    failures.push(format!("{}: levels differ from pyarrow's: {d}", w.name));
                }
            }
            (a, b) => failures.push(format!("{}: pages {:?} {:?}", w.name, a.err(), b.err())),
        }
    }
    eprintln!(
        "pyarrow, DuckDB and polars compared {} files ({chunks} chunks) in {:.1?}",
        files.len(),
        started.elapsed()
    );
    (failures, chunks)
}

/// Where the levels of two files' chunks first differ (row group, leaf, level index).
fn level_difference(
    ours: &[Vec<Vec<PageLevels>>],
    theirs: &[Vec<Vec<PageLevels>>],
) -> Option<String> {
    if ours.len() != theirs.len() {
        return Some(format!(
            "{} row groups, pyarrow {}",
            ours.len(),
            theirs.len()
        ));
    }
    for (g, (a, b)) in ours.iter().zip(theirs).enumerate() {
        for (j, (a, b)) in a.iter().zip(b).enumerate() {
            let (a, b) = (chunk_levels(a), chunk_levels(b));
            if a != b {
                let first = (0..a.0.len().max(b.0.len()))
                    .find(|&i| a.0.get(i) != b.0.get(i) || a.1.get(i) != b.1.get(i));
                return Some(format!(
                    "row group {g} leaf {j}: {} levels, pyarrow {}, first different at {first:?}",
                    a.0.len(),
                    b.0.len()
                ));
            }
        }
    }
    None
}

/// The levels of a small file, worked out from the spec: a list with a null list, an empty
/// list and a null element; a struct with a null; a map with a null map, an empty map and a
/// null value. Leaf paths with compliant and legacy list naming.
/// A column chunk written straight to the output when its row group closes (the rows held
/// since the last write) has the bytes of one written from the buffers, and of one encoded
/// on 3 threads: in every dataset and configuration, whole and in parts; and parq reads it
/// back.
#[test]
fn held_rows_write_the_bytes_of_buffered_rows() {
    let mut failures = Vec::new();
    for (data, input, views) in datasets() {
        let n = input.num_rows();
        for spec in CONFIGS {
            let cfg = config(spec);
            for parts in [vec![n], vec![n / 3, n - n / 3], vec![1, n - 2, 1]] {
                let what = format!("{data} {} {parts:?}", cfg.name);
                let held = write_in_parts(&input, props(&cfg, views), &parts, false);
                let buffered = write_in_parts(&input, props(&cfg, views), &parts, true);
                let threads = write_in_parts(&input, props_on(&cfg, views, 3), &parts, false);
                if threads.as_ref().ok() != held.as_ref().ok() {
                    failures.push(format!("{what}: not the same bytes on 3 threads"));
                }
                match (held, buffered) {
                    (Ok(h), Ok(b)) if h == b => {
                        let diffs = read_with_parq(&Bytes::from(h), &input);
                        failures.extend(diffs.into_iter().map(|d| format!("{what}: {d}")));
                    }
                    (Ok(h), Ok(b)) => failures.push(format!(
                        "{what}: {} bytes held, {} buffered, not the same",
                        h.len(),
                        b.len()
                    )),
                    (h, b) => failures.push(format!("{what}: {:?} / {:?}", h.err(), b.err())),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same for flat columns past the byte budget's slices (64 Ki rows), with dictionaries
/// that fall back within the chunk, all codecs and both page versions, on 2 threads.
#[test]
fn held_flat_rows_write_the_bytes_of_buffered_rows() {
    let n = 150_000;
    let mut rng = Rng(5);
    let ints = Int64Array::from_iter((0..n).map(|i| (i % 7 != 0).then(|| rng.signed(1 << 40))));
    let words: Vec<String> = (0..3000)
        .map(|i| format!("word-{i}-{}", rng.below(1000)))
        .collect();
    let strings = StringArray::from_iter((0..n).map(|i| {
        (i % 11 != 0).then(|| words[rng.below(if i < n / 2 { 50 } else { 3000 }) as usize].clone())
    }));
    let flags = BooleanArray::from_iter((0..n).map(|i| Some(i % 3 == 0)));
    let input = RecordBatch::try_from_iter([
        ("i", Arc::new(ints) as ArrayRef),
        ("s", Arc::new(strings) as ArrayRef),
        ("b", Arc::new(flags) as ArrayRef),
    ])
    .unwrap();
    let zstd = Codec::new(Compression::Zstd, Some(1)).unwrap();
    for (codec, version, dict_limit, budget, rg) in [
        (Codec::UNCOMPRESSED, DataPageVersion::V1, 4096, true, None),
        (
            Codec::SNAPPY,
            DataPageVersion::V2,
            4096,
            true,
            Some(100_000),
        ),
        (zstd, DataPageVersion::V1, 1 << 20, false, Some(40_000)),
        (
            Codec::UNCOMPRESSED,
            DataPageVersion::V2,
            1 << 20,
            false,
            None,
        ),
    ] {
        let props = |threads| {
            let mut b = WriterProperties::builder()
                .threads(threads)
                .compression(codec)
                .data_page_version(version)
                .dictionary_page_size_limit(dict_limit)
                .max_row_group_rows(rg.or(Some(1 << 20)));
            if !budget {
                b = b.max_row_group_bytes(None);
            }
            b.build().unwrap()
        };
        for parts in [vec![n], vec![70_000, n - 70_000]] {
            let what = format!("{codec:?} {version:?} dict {dict_limit} budget {budget} {parts:?}");
            let held = write_in_parts(&input, props(1), &parts, false).unwrap();
            let buffered = write_in_parts(&input, props(1), &parts, true).unwrap();
            assert!(held == buffered, "{what}: not the same bytes");
            let threads = write_in_parts(&input, props(2), &parts, false).unwrap();
            assert!(held == threads, "{what}: not the same bytes on 2 threads");
            let diffs = read_with_parq(&Bytes::from(held), &input);
            assert!(diffs.is_empty(), "{what}: {}", diffs.join("\n"));
        }
    }
}

#[test]
fn levels_of_a_small_file() {
    use arrow_array::builder::{Int64Builder, MapBuilder, MapFieldNames, StringBuilder};
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), Some(2)]),
        None,
        Some(vec![]),
        Some(vec![None]),
        Some(vec![Some(3)]),
    ]);
    let a = Field::new("a", DataType::Int32, false);
    let strukt = StructArray::new(
        Fields::from(vec![a]),
        vec![Arc::new(Int32Array::from(vec![1, 0, 3, 4, 5]))],
        Some(NullBuffer::from(vec![true, false, true, true, true])),
    );
    let names = MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut m = MapBuilder::new(Some(names), StringBuilder::new(), Int64Builder::new());
    for (row, valid) in [
        (&[("a", Some(1))][..], true),
        (&[], false),
        (&[], true),
        (&[("b", None), ("c", Some(2))], true),
        (&[("d", Some(3))], true),
    ] {
        for (k, v) in row {
            m.keys().append_value(k);
            m.values().append_option(*v);
        }
        m.append(valid).unwrap();
    }
    let map = m.finish();
    let schema = Schema::new(vec![
        Field::new("l", list.data_type().clone(), true),
        Field::new("s", strukt.data_type().clone(), true),
        Field::new("m", map.data_type().clone(), true),
    ]);
    let columns: Vec<ArrayRef> = vec![Arc::new(list), Arc::new(strukt), Arc::new(map)];
    let batch = RecordBatch::try_new(Arc::new(schema), columns).unwrap();
    for (compliant, element) in [(true, "element"), (false, "item")] {
        let props = WriterProperties::builder()
            .compliant_nested_types(compliant)
            .build()
            .unwrap();
        let bytes = Bytes::from(write(&batch, props, &mut Rng(1)).expect("write"));
        let reader = SerializedFileReader::new(bytes.clone()).unwrap();
        let descr = reader.metadata().file_metadata().schema_descr();
        let paths: Vec<String> = descr.columns().iter().map(|c| c.path().string()).collect();
        let list_leaf = format!("l.list.{element}");
        let want = [&list_leaf, "s.a", "m.key_value.key", "m.key_value.value"];
        assert_eq!(paths, want);
        let pages = file_pages(&bytes).unwrap();
        let levels: Vec<_> = pages[0].iter().map(|c| chunk_levels(c)).collect();
        let want: Vec<(Vec<u16>, Vec<u16>)> = vec![
            (vec![0, 1, 0, 0, 0, 0], vec![3, 3, 0, 1, 2, 3]),
            (vec![0; 5], vec![1, 0, 1, 1, 1]),
            (vec![0, 0, 0, 0, 1, 0], vec![2, 0, 1, 2, 2, 2]),
            (vec![0, 0, 0, 0, 1, 0], vec![3, 0, 1, 2, 3, 3]),
        ];
        assert_eq!(levels, want, "compliant {compliant}");
        assert_eq!(read_with_parq(&bytes, &batch), Vec::<String>::new());
    }
}

/// A non-nullable level whose array holds nulls (which Arrow's checked constructors refuse)
/// is an error of `write` or `close` naming the column, never a panic or a file.
#[test]
fn nulls_in_required_levels_are_errors() {
    let item = |nullable| Arc::new(Field::new("item", DataType::Int32, nullable));
    let offsets = OffsetBuffer::<i32>::from_lengths([2, 1, 0, 1]);
    let with_nulls =
        || -> ArrayRef { Arc::new(Int32Array::from(vec![Some(1), None, Some(2), Some(3)])) };
    let some_null = Some(NullBuffer::from(vec![true, false, true, true]));
    // SAFETY (all three): the arrays are valid but for the nulls their fields forbid, which
    // is what the writer is given to refuse.
    let required_list = unsafe {
        ListArray::new_unchecked(item(true), offsets.clone(), with_nulls(), some_null.clone())
    };
    let required_items =
        unsafe { ListArray::new_unchecked(item(false), offsets.clone(), with_nulls(), None) };
    let a = Fields::from(vec![Field::new("a", DataType::Int32, false)]);
    let required_child = unsafe { StructArray::new_unchecked(a, vec![with_nulls()], None) };
    let cases: Vec<(&str, bool, ArrayRef)> = vec![
        ("required_list", false, Arc::new(required_list)),
        ("list_of_required_items", true, Arc::new(required_items)),
        ("struct_of_required_child", true, Arc::new(required_child)),
    ];
    for (name, nullable, array) in cases {
        let field = Field::new(name, array.data_type().clone(), nullable);
        let schema = Arc::new(Schema::new(vec![field]));
        // SAFETY: the schema's field has the column's type and the batch its length.
        let batch = unsafe { RecordBatch::new_unchecked(schema.clone(), vec![array], 4) };
        let mut out = Vec::new();
        let result = guarded(|| {
            let mut w = ParquetWriter::try_new(&mut out, schema, WriterProperties::default())?;
            w.write(&batch)?;
            w.close()
        });
        match result {
            Err(e) => assert!(e != "PANIC" && e.contains(name), "{name}: {e}"),
            Ok(_) => panic!("{name}: written"),
        }
    }
}
