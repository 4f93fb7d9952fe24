//! `parq::edit` (merge, append, rewrite) and `ParquetWriter::copy_row_groups`, read back by
//! the `parquet` crate 60.1: values equal to the inputs', and copied chunks' moved offset
//! indexes and Bloom filters used by it (a read that selects rows through the offset index
//! equals the full read's rows; a Bloom filter check answers as in the input).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parq::edit::{RewriteOptions, SortKey};
use parq::write::BloomFilterProperties;
use parq::{ParquetWriter, WriterProperties};
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};
use parquet::file::reader::{FileReader, SerializedFileReader};

fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("edit")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]))
}

fn batch(start: i64, n: i64) -> RecordBatch {
    let ids: Vec<i64> = (start..start + n).collect();
    let names: Vec<Option<String>> = ids
        .iter()
        .map(|i| (i % 7 != 0).then(|| format!("n{}", i % 50)))
        .collect();
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(Int64Array::from(ids)) as ArrayRef,
            Arc::new(StringArray::from(names)),
        ],
    )
    .unwrap()
}

/// A file of rows `start..start + n` in row groups of 400 rows and pages of 50 rows, with
/// the page index and a Bloom filter on `name`.
fn write(path: &Path, start: i64, n: i64) {
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(400))
        .data_page_rows(Some(50))
        .column_bloom_filter("name", Some(BloomFilterProperties::default()))
        .build()
        .unwrap();
    let mut w = ParquetWriter::try_new(File::create(path).unwrap(), schema(), props).unwrap();
    w.write(&batch(start, n)).unwrap();
    w.close().unwrap();
}

/// All rows by the `parquet` crate, and the rows it reads through the offset index when
/// asked for every third run of 37 rows.
fn read_60(path: &Path) -> (RecordBatch, RecordBatch) {
    let all = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let all = arrow_select::concat::concat_batches(&all[0].schema(), &all).unwrap();
    let n = all.num_rows();
    let mut selectors = Vec::new();
    let mut at = 0;
    while at < n {
        let k = 37.min(n - at);
        selectors.push(if (at / 37) % 3 == 1 {
            RowSelector::select(k)
        } else {
            RowSelector::skip(k)
        });
        at += k;
    }
    let opts = ArrowReaderOptions::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required);
    let picked =
        ParquetRecordBatchReaderBuilder::try_new_with_options(File::open(path).unwrap(), opts)
            .unwrap()
            .with_row_selection(RowSelection::from(selectors))
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
    let picked = arrow_select::concat::concat_batches(&all.schema(), &picked).unwrap();
    (all, picked)
}

/// The rows of `all` the selection of [`read_60`] keeps.
fn expected_pick(all: &RecordBatch) -> RecordBatch {
    let keep: Vec<bool> = (0..all.num_rows()).map(|i| (i / 37) % 3 == 1).collect();
    arrow_select::filter::filter_record_batch(all, &keep.into()).unwrap()
}

/// For each row group of `path`, whether its Bloom filter on column 1 may hold `value`.
fn bloom_answers(path: &Path, value: &str) -> Vec<bool> {
    let opts = parquet::file::serialized_reader::ReadOptionsBuilder::new()
        .with_reader_properties(
            parquet::file::properties::ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let r = SerializedFileReader::new_with_options(File::open(path).unwrap(), opts).unwrap();
    (0..r.num_row_groups())
        .map(|g| {
            let rg = r.get_row_group(g).unwrap();
            let sbbf = rg.get_column_bloom_filter(1).expect("a Bloom filter");
            sbbf.check(&value)
        })
        .collect()
}

#[test]
fn merged_row_groups_are_copied_with_their_offset_index_and_bloom_filters() {
    let d = dir("merge");
    let (a, b, out) = (
        d.join("a.parquet"),
        d.join("b.parquet"),
        d.join("out.parquet"),
    );
    write(&a, 0, 1000);
    write(&b, 1000, 700);
    let report = parq::edit::merge(&[&a, &b], &out, WriterProperties::default()).unwrap();
    assert_eq!(report.row_groups_copied, 5);
    assert_eq!(report.files_reencoded, 0);
    assert_eq!(report.rows, 1700);
    let (all, picked) = read_60(&out);
    assert_eq!(all, batch(0, 1700).with_schema(all.schema()).unwrap());
    assert_eq!(picked, expected_pick(&all));
    for value in ["n3", "n49", "absent", "n7"] {
        let mut want = bloom_answers(&a, value);
        want.extend(bloom_answers(&b, value));
        assert_eq!(bloom_answers(&out, value), want, "{value}");
    }
    assert!(bloom_answers(&out, "absent").iter().any(|m| !m));
}

#[test]
fn appended_rows_follow_the_old_ones_and_the_old_bytes_stay() {
    let d = dir("append");
    let (t, b) = (d.join("t.parquet"), d.join("b.parquet"));
    write(&t, 0, 900);
    write(&b, 900, 500);
    let old = std::fs::read(&t).unwrap();
    // Rows written through the API, then a file's row groups copied.
    let mut w = ParquetWriter::append_to(&t, WriterProperties::default()).unwrap();
    w.write(&batch(900, 100)).unwrap();
    let meta = parq::ParquetReader::open(&b).unwrap().metadata().clone();
    w.copy_row_groups(&mut File::open(&b).unwrap(), &meta, &[1, 0])
        .unwrap();
    // Nothing changes under the name until close.
    assert_eq!(std::fs::read(&t).unwrap(), old);
    w.close().unwrap();
    let new = std::fs::read(&t).unwrap();
    assert_eq!(&new[..old.len()], &old[..], "the old bytes are kept");
    let (all, picked) = read_60(&t);
    let want = [batch(0, 1000), batch(1300, 100), batch(900, 400)];
    let want = arrow_select::concat::concat_batches(&schema(), &want).unwrap();
    assert_eq!(all, want.with_schema(all.schema()).unwrap());
    assert_eq!(picked, expected_pick(&all));
    // A writer dropped without close leaves the file as it was.
    let mut w = ParquetWriter::append_to(&t, WriterProperties::default()).unwrap();
    w.write(&batch(0, 10)).unwrap();
    drop(w);
    assert_eq!(std::fs::read(&t).unwrap(), new);
    let stray = std::fs::read_dir(&d)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        })
        .count();
    assert_eq!(stray, 0, "the temporary file is removed");
}

#[test]
fn copies_are_refused_where_the_bytes_would_not_fit() {
    let d = dir("refuse");
    let a = d.join("a.parquet");
    write(&a, 0, 100);
    let meta = parq::ParquetReader::open(&a).unwrap().metadata().clone();
    // Another Parquet schema: an int32 id.
    let other = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("name", DataType::Utf8, true),
    ]));
    let mut w =
        ParquetWriter::try_new(Vec::new(), other.clone(), WriterProperties::default()).unwrap();
    assert!(w.copy_refusal(&meta).is_some());
    let err = w
        .copy_row_groups(&mut File::open(&a).unwrap(), &meta, &[0])
        .unwrap_err();
    assert!(err.to_string().contains("cannot be copied"), "{err}");
    // Appending rows of another type is refused before anything is written.
    let narrow = RecordBatch::try_new(
        other,
        vec![
            Arc::new(Int32Array::from(vec![1])) as ArrayRef,
            Arc::new(StringArray::from(vec!["x"])),
        ],
    )
    .unwrap();
    let mut w = ParquetWriter::append_to(&a, WriterProperties::default()).unwrap();
    assert!(w.write(&narrow).is_err());
    // A row group past the end is an error naming it.
    let mut w = ParquetWriter::try_new(Vec::new(), schema(), WriterProperties::default()).unwrap();
    let err = w
        .copy_row_groups(&mut File::open(&a).unwrap(), &meta, &[3])
        .unwrap_err();
    assert!(err.to_string().contains("row group 3"), "{err}");
}

#[test]
fn rewrite_sorts_drops_and_renames() {
    let d = dir("rewrite");
    let (a, out) = (d.join("a.parquet"), d.join("out.parquet"));
    write(&a, 0, 1000);
    let options = RewriteOptions {
        drop: vec![],
        rename: vec![("name".into(), "label".into())],
        sort_by: vec![
            SortKey::parse("name:desc:nulls_first").unwrap(),
            SortKey::parse("id").unwrap(),
        ],
    };
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(300))
        .build()
        .unwrap();
    let rows = parq::edit::rewrite(&a, &out, props, &options, &mut |_| {}).unwrap();
    assert_eq!(rows, 1000);
    let (all, _) = read_60(&out);
    assert_eq!(all.schema().field(1).name(), "label");
    // The expected order, by arrow's own sort of the input.
    let input = batch(0, 1000);
    let keys = [
        arrow_ord::sort::SortColumn {
            values: input.column(1).clone(),
            options: Some(arrow_schema::SortOptions {
                descending: true,
                nulls_first: true,
            }),
        },
        arrow_ord::sort::SortColumn {
            values: input.column(0).clone(),
            options: None,
        },
    ];
    let order = arrow_ord::sort::lexsort_to_indices(&keys, None).unwrap();
    let want = arrow_select::take::take_record_batch(&input, &order).unwrap();
    assert_eq!(all.columns(), want.columns());
    let r = SerializedFileReader::new(File::open(&out).unwrap()).unwrap();
    assert_eq!(r.num_row_groups(), 4);
    let sorting = r.metadata().row_group(0).sorting_columns().unwrap();
    assert_eq!(sorting.len(), 2);
    assert_eq!((sorting[0].column_idx, sorting[0].descending), (1, true));
    assert!(
        parq::edit::rewrite(&a, &a, WriterProperties::default(), &options, &mut |_| {}).is_err()
    );
}
