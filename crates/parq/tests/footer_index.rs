//! Files parq writes carry the footer index (where each row group and column chunk starts in
//! the footer, right before it), and every other reader ignores it: pyarrow, DuckDB, polars,
//! the `parquet` crate 60.1 and parquet-java (a committed file and what parquet-java read
//! from it) read them equal to the table written. Turning the index off changes nothing but
//! the block. parq's own reads through the index equal its reads without; a reader opened for
//! some columns (`ParquetReader::open_columns`) decodes only their part of the footer and
//! reads what the whole-footer reader reads. The metadata a writer returns, which it makes
//! from the footer's parts as it streams the footer out, encodes to the footer written. A
//! file with more page index than the writer keeps uncompressed is read through its page
//! index by the `parquet` crate 60.1.

mod common;

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::{
    Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use common::{run_python, tmp_dir, write_ipc, Rng};
use parq::format::footer::{
    decode_file_metadata, metadata_slice, DecodeOptions, FooterIndex, LazyFooter,
};
use parq::write::{BloomFilterProperties, WriterProperties};
use parq::{col, ParquetReader, ParquetWriter};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// The committed file parquet-java read, and what it read.
const JAVA_DIR: &str = "tests/data/footer_index";

/// 1,000 rows in 5 row groups: an id, a nullable double and a nullable string.
fn write(batch: &RecordBatch, index: bool) -> Vec<u8> {
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(200))
        .column_bloom_filter("s", Some(BloomFilterProperties::default()))
        .footer_index(index)
        .build()
        .expect("props");
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

/// The footer index of a whole file, if it has a valid one.
fn index_of(file: &[u8]) -> Option<FooterIndex<'_>> {
    let footer = metadata_slice(file).ok()?;
    FooterIndex::find(&file[..file.len() - 8 - footer.len()])
}

#[test]
fn written_files_carry_a_valid_index_that_changes_nothing_else() {
    let batch = common::java_table();
    let with = write(&batch, true);
    let without = write(&batch, false);
    assert!(index_of(&without).is_none());
    let index = index_of(&with).expect("an index");
    // The block is the only difference.
    let footer = metadata_slice(&with).unwrap();
    let at = with.len() - 8 - footer.len() - index.len();
    assert_eq!(&with[..at], &without[..at]);
    assert_eq!(&with[at + index.len()..], &without[at..]);
    let lazy = LazyFooter::open_with_index(
        Bytes::copy_from_slice(footer),
        Some(index),
        &DecodeOptions::default(),
    )
    .unwrap();
    assert!(lazy.is_indexed());
    assert_eq!(lazy.num_row_groups(), 5);
    // A selection through the index equals one without it.
    let opts = DecodeOptions {
        columns: Some(vec![2]),
        row_groups: Some(vec![1, 3]),
        ..Default::default()
    };
    let a = decode_file_metadata(&with, &opts).unwrap();
    let b = decode_file_metadata(&without, &opts).unwrap();
    assert_eq!(a.buf(), b.buf());
    assert_eq!(
        format!("{:?}", a.row_groups()),
        format!("{:?}", b.row_groups())
    );
    // parq reads both equal to the table.
    for bytes in [with, without] {
        let got = ParquetReader::from_bytes(Bytes::from(bytes))
            .unwrap()
            .read_batch()
            .unwrap();
        assert_eq!(got, batch);
    }
}

#[test]
fn the_parquet_crate_reads_indexed_files() {
    let batch = common::java_table();
    let file = Bytes::from(write(&batch, true));
    assert!(index_of(&file).is_some());
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    let got = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    assert_eq!(got.num_rows(), batch.num_rows());
    for (g, w) in got.columns().iter().zip(batch.columns()) {
        assert_eq!(g.to_data(), w.to_data());
    }
}

/// pyarrow, DuckDB and polars read the indexed file equal to the table (from IPC).
const PEERS: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq, duckdb, polars as pl
path, want = sys.argv[1], pa.ipc.open_file(sys.argv[2]).read_all()
fails = []
got = pq.read_table(path)
if not got.equals(want):
    fails.append("pyarrow differs")
if pq.ParquetFile(path).metadata.num_row_groups != 5:
    fails.append("pyarrow: row groups")
d = duckdb.sql(f"select id, x, s from read_parquet('{path}') order by id").arrow()
if hasattr(d, "read_all"):
    d = d.read_all()
if d.to_pylist() != want.sort_by("id").to_pylist():
    fails.append("duckdb differs")
p = pl.read_parquet(path)
if not p.equals(pl.from_arrow(want)):
    fails.append("polars differs")
print("ok" if not fails else "\n".join(fails))
"#;

#[test]
fn pyarrow_duckdb_and_polars_read_indexed_files() {
    let batch = common::java_table();
    let dir = tmp_dir("footer-index");
    let path = dir.join("indexed.parquet");
    std::fs::write(&path, write(&batch, true)).unwrap();
    let ipc = dir.join("want.arrow");
    write_ipc(&ipc, &batch);
    let out = run_python(PEERS, &[path.as_os_str(), ipc.as_os_str()]);
    assert_eq!(out.trim(), "ok", "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parquet_java_read_a_committed_indexed_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(JAVA_DIR);
    let path = dir.join("indexed.parquet");
    let batch = common::java_table();
    if std::env::var_os("PARQ_REGENERATE").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, write(&batch, true)).unwrap();
    }
    let file = std::fs::read(&path).unwrap();
    // The committed file is parq's output with the index, and what parq writes today.
    assert!(index_of(&file).is_some());
    assert_eq!(
        file,
        write(&batch, true),
        "regenerate: see {JAVA_DIR}/README.md"
    );
    let java = std::fs::read_to_string(dir.join("indexed.parquet-java.tsv")).unwrap();
    assert_eq!(java, common::java_dump(&batch));
}

/// `n` flat columns (`c0`...: int64, nullable strings in turn) with a timestamp in UTC (its
/// zone restored from the embedded Arrow schema), a struct and a list among them.
fn wide(n: usize, rows: usize) -> RecordBatch {
    let mut rng = Rng(7);
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for i in 0..n {
        if i == n / 2 {
            let ts: TimestampMicrosecondArray = (0..rows as i64)
                .map(|r| Some(r * 1_000_003))
                .collect::<TimestampMicrosecondArray>()
                .with_timezone("UTC");
            fields.push(Field::new("ts", ts.data_type().clone(), true));
            columns.push(Arc::new(ts));
            let a: Int32Array = (0..rows as i32)
                .map(|r| (r % 3 != 0).then_some(r))
                .collect();
            let b: StringArray = (0..rows).map(|r| Some(format!("b{}", r % 7))).collect();
            let st_fields = Fields::from(vec![
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Utf8, true),
            ]);
            let st = StructArray::new(st_fields, vec![Arc::new(a), Arc::new(b)], None);
            fields.push(Field::new("st", st.data_type().clone(), true));
            columns.push(Arc::new(st));
            let mut lst = ListBuilder::new(Int64Builder::new());
            for r in 0..rows {
                for k in 0..(r % 4) {
                    lst.values().append_value((r * 10 + k) as i64);
                }
                lst.append(r % 5 != 0);
            }
            let lst = lst.finish();
            fields.push(Field::new("lst", lst.data_type().clone(), true));
            columns.push(Arc::new(lst));
        }
        let name = format!("c{i}");
        if i % 2 == 0 {
            let a: Int64Array = (0..rows).map(|_| rng.signed(1000)).collect();
            fields.push(Field::new(name, DataType::Int64, false));
            columns.push(Arc::new(a));
        } else {
            let a: StringArray = (0..rows)
                .map(|_| (!rng.chance(0.2)).then(|| format!("v{}", rng.below(50))))
                .collect();
            fields.push(Field::new(name, DataType::Utf8, true));
            columns.push(Arc::new(a));
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("wide table")
}

#[test]
fn a_reader_opened_for_some_columns_decodes_only_their_footer() {
    let batch = wide(300, 400);
    let dir = tmp_dir("open-columns");
    for index in [true, false] {
        let path = dir.join(format!("wide-{index}.parquet"));
        let props = WriterProperties::builder()
            .max_row_group_rows(Some(100))
            .footer_index(index)
            .build()
            .unwrap();
        let file = std::fs::File::create(&path).unwrap();
        let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let sets: [&[&str]; 6] = [
            &["c7"],
            &["c299", "c3"],
            &["st", "c10"],
            &["lst"],
            &["ts", "c0"],
            &["c4", "c4"],
        ];
        for cols in sets {
            let what = format!("index {index}, {cols:?}");
            let whole = ParquetReader::open(&path)
                .unwrap()
                .with_columns(cols.to_vec());
            let want = whole.read_batch().unwrap();
            let some = ParquetReader::open_columns(&path, cols).unwrap();
            // Only the chosen columns' chunks were decoded: one per leaf (the struct has two).
            let mut names = cols.to_vec();
            names.dedup();
            let leaves: usize = names.iter().map(|c| if *c == "st" { 2 } else { 1 }).sum();
            let meta = some.metadata();
            assert_eq!(meta.row_groups().len(), 4, "{what}");
            assert!(
                meta.row_groups()
                    .iter()
                    .all(|g| g.columns().len() == leaves),
                "{what}"
            );
            assert_eq!(some.read_batch().unwrap(), want, "{what}");
        }
        // A filter on the chosen columns, and a row group choice.
        let cols = ["c8", "c9", "ts"];
        let f = || col("c8").gt(100i64);
        let want = ParquetReader::open(&path)
            .unwrap()
            .with_columns(cols)
            .with_filter(f())
            .with_row_groups(vec![1, 3])
            .read_batch()
            .unwrap();
        let got = ParquetReader::open_columns(&path, &cols)
            .unwrap()
            .with_filter(f())
            .with_row_groups(vec![1, 3])
            .read_batch()
            .unwrap();
        assert!(want.num_rows() > 0);
        assert_eq!(got, want);
        // A name that is not a top-level column: the error the whole-footer reader gives.
        let bad = ParquetReader::open_columns(&path, &["nope"]).unwrap();
        let e = bad.read_batch().unwrap_err().to_string();
        let e2 = ParquetReader::open(&path)
            .unwrap()
            .with_columns(["nope"])
            .read_batch()
            .unwrap_err()
            .to_string();
        assert_eq!(e, e2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The metadata `close` returns is the footer written: it encodes to the footer's bytes, as
/// the footer decoded from the file does (statistics with and without NaNs, Bloom filters
/// and page indexes at their file offsets, several row groups), with the index or without.
#[test]
fn the_metadata_returned_is_the_footer_written() {
    let mut batch = wide(40, 600);
    let floats: arrow_array::Float32Array = (0..600)
        .map(|r| match r % 7 {
            0 => None,
            3 if r > 300 => Some(f32::NAN),
            _ => Some(r as f32 * 0.25),
        })
        .collect();
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("f", DataType::Float32, true));
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(floats));
    batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    for index in [true, false] {
        let props = WriterProperties::builder()
            .max_row_group_rows(Some(250))
            .column_bloom_filter("c1", Some(BloomFilterProperties::default()))
            .key_value("k", Some("v".to_string()))
            .footer_index(index)
            .build()
            .expect("props");
        let mut w = ParquetWriter::try_new(Vec::new(), batch.schema(), props).expect("writer");
        w.write(&batch).expect("write");
        let (meta, file) = w.close_into_inner().expect("close");
        assert_eq!(index_of(&file).is_some(), index);
        let footer = metadata_slice(&file).expect("footer");
        let decoded = decode_file_metadata(&file, &DecodeOptions::default()).expect("decode");
        assert_eq!(meta.row_groups().len(), 3);
        let nan_counts: Vec<Option<i64>> = meta
            .row_groups()
            .iter()
            .map(|g| g.columns.last().and_then(|c| c.nan_count()))
            .collect();
        assert_eq!(nan_counts, [Some(0), Some(28), Some(15)]);
        for m in [&meta, &decoded] {
            let mut bytes = Vec::new();
            m.encode(&mut bytes).expect("encode");
            assert!(
                bytes == footer,
                "index {index}: the metadata encodes to the footer"
            );
        }
    }
}

/// A file of 30,000 column chunks, more than 1 MiB of column indexes and more than 1 MiB of
/// row groups in its footer, which the writer keeps compressed in segments until it writes
/// them out (the page index and Bloom filter places set on the row groups as the footer
/// streams): the `parquet` crate 60.1 loads every chunk's column and offset index (each
/// chunk's first page where its metadata says) and every Bloom filter, each holding its
/// chunk's values, and a read of scattered rows through the page index equals those rows of
/// the table. The metadata `close` returns encodes to the footer, and `close_summary` writes
/// the same bytes.
#[test]
fn the_parquet_crate_uses_a_large_page_index() {
    use parquet::arrow::arrow_reader::ArrowReaderOptions;
    use parquet::file::metadata::PageIndexPolicy;
    use parquet::file::properties::ReaderProperties;
    use parquet::file::reader::FileReader;
    use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};

    let rows = 2_000;
    let batch = wide(1_500, rows);
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(100))
        .data_page_rows(Some(50))
        .column_bloom_filter("c2", Some(BloomFilterProperties::default()))
        .column_bloom_filter("c3", Some(BloomFilterProperties::default()))
        .build()
        .expect("props");
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props.clone()).expect("writer");
    w.write(&batch).expect("write");
    let meta = w.close().expect("close");
    assert_eq!(meta.row_groups.len(), 20);
    let footer = metadata_slice(&out).expect("footer");
    assert!(footer.len() > 2 << 20, "a footer of {} bytes", footer.len());
    let mut encoded = Vec::new();
    meta.encode(&mut encoded).expect("encode");
    assert!(encoded == footer, "the metadata encodes to the footer");
    let mut again = Vec::new();
    let mut w = ParquetWriter::try_new(&mut again, batch.schema(), props).expect("writer");
    w.write(&batch).expect("write");
    let summary = w.close_summary().expect("close");
    assert!(again == out, "close_summary writes what close writes");
    assert_eq!(
        (summary.num_rows, summary.num_row_groups, summary.file_bytes),
        (rows as i64, 20, out.len() as u64)
    );
    let file = Bytes::from(out);
    let bloom_reader = SerializedFileReader::new_with_options(
        file.clone(),
        ReadOptionsBuilder::new()
            .with_reader_properties(
                ReaderProperties::builder()
                    .set_read_bloom_filter(true)
                    .build(),
            )
            .build(),
    )
    .expect("60.1 opens the file");
    let names: Vec<String> = bloom_reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.path().string())
        .collect();
    let (c2, c3) = (
        names.iter().position(|n| n == "c2").expect("c2"),
        names.iter().position(|n| n == "c3").expect("c3"),
    );
    let int_values = batch
        .column_by_name("c2")
        .and_then(|a| a.as_any().downcast_ref::<Int64Array>())
        .expect("c2 is int64");
    let str_values = batch
        .column_by_name("c3")
        .and_then(|a| a.as_any().downcast_ref::<StringArray>())
        .expect("c3 is a string");
    for g in 0..20 {
        let rg = bloom_reader.get_row_group(g).expect("row group");
        let (ints, strs) = (
            rg.get_column_bloom_filter(c2).expect("c2's Bloom filter"),
            rg.get_column_bloom_filter(c3).expect("c3's Bloom filter"),
        );
        assert!(rg.get_column_bloom_filter(0).is_none());
        for r in g * 100..(g + 1) * 100 {
            assert!(ints.check(&int_values.value(r)), "row group {g} row {r}");
            if str_values.is_valid(r) {
                assert!(strs.check(&str_values.value(r)), "row group {g} row {r}");
            }
        }
    }
    let opts = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), opts.clone())
        .expect("60.1 opens the file");
    let peer = builder.metadata();
    let index = peer.page_index().expect("a page index");
    let mut chunks = 0;
    for (g, rg) in peer.row_groups().iter().enumerate() {
        for (c, chunk) in rg.columns().iter().enumerate() {
            let pages = index
                .offset_index(g, c)
                .expect("an offset index")
                .page_locations();
            assert!(
                pages.len() >= 2,
                "row group {g} column {c}: {} pages",
                pages.len()
            );
            // The first data page (a dictionary page is not in the offset index).
            assert_eq!(
                pages[0].offset,
                chunk.data_page_offset(),
                "row group {g} column {c}"
            );
            assert!(
                index.column_index(g, c).is_some(),
                "row group {g} column {c}"
            );
            chunks += 1;
        }
    }
    assert!(chunks > 30_000);
    // More than the 1 MiB of column indexes the writer compresses at a time.
    let column_index_bytes: i64 = peer
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .filter_map(|c| c.column_index_length())
        .map(i64::from)
        .sum();
    assert!(column_index_bytes > 1 << 20, "{column_index_bytes} bytes");
    let (selection, mask) = common::row_selection(5, rows);
    let picked = ParquetRecordBatchReaderBuilder::try_new_with_options(file, opts)
        .unwrap()
        .with_row_selection(selection)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let picked = arrow_select::concat::concat_batches(&picked[0].schema(), &picked).unwrap();
    let want = arrow_select::filter::filter_record_batch(&batch, &mask).unwrap();
    assert_eq!(picked.num_rows(), want.num_rows());
    for (g, w) in picked.columns().iter().zip(want.columns()) {
        // A list's element is named as the file names it (`element`, not `item`).
        let w = match (
            g.data_type(),
            w.as_any().downcast_ref::<arrow_array::ListArray>(),
        ) {
            (DataType::List(element), Some(l)) => Arc::new(arrow_array::ListArray::new(
                element.clone(),
                l.offsets().clone(),
                l.values().clone(),
                l.nulls().cloned(),
            )),
            _ => w.clone(),
        };
        assert_eq!(g.to_data(), w.to_data());
    }
}
