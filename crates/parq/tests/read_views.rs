//! parq reading string and binary columns as Arrow `Utf8View` / `BinaryView`
//! (`StringType::Utf8View`): views into each chunk's dictionary page, kept across batches and
//! row groups, into the bytes of PLAIN pages (chunks that fall back to PLAIN) and into the
//! decoded values of other pages (DELTA_BYTE_ARRAY chunks), with nulls, values of at most and more than 12 bytes
//! (inline and in a buffer), in every batch size, with and without a filter that skips rows.
//! The long values of PLAIN pages are viewed in the pages' own bytes, which the arrays keep
//! after the reader, its file and the buffers of later reads are gone.
//!
//! Files are written by the `parquet` crate 60.1; expected values are its reading of them.

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::read::{ParquetReader, StringType};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression as PCompression, Encoding as PEncoding};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

/// Logical values of a column: `None` for a null slot.
type Values = Vec<Option<Vec<u8>>>;

const ROWS: usize = 5_000;

/// Row `i`'s string: one of 300 distinct values, short (inline in a view) or long, null for
/// one row in 11.
fn value(i: usize) -> Option<String> {
    let k = (i * 37) % 300;
    (i % 11 != 3).then(|| {
        if k.is_multiple_of(2) {
            format!("s{k}")
        } else {
            format!("a longer value, number {k:05}, past twelve bytes")
        }
    })
}

/// A file of `s` (Utf8, dictionary that falls back to PLAIN), `b` (BinaryView in the file's
/// `ARROW:schema`, dictionary), `d`
/// (Utf8, DELTA_BYTE_ARRAY) and `id` (Int64, the row number), in row groups of 1,700 rows
/// and pages of 300.
fn file() -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
        Field::new("b", DataType::BinaryView, true),
        Field::new("d", DataType::Utf8, true),
    ]));
    let strings: Vec<Option<String>> = (0..ROWS).map(value).collect();
    let binary: Vec<Option<Vec<u8>>> = (0..ROWS)
        .map(|i| value(i + 5).map(String::into_bytes))
        .collect();
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(0..ROWS as i64)),
            Arc::new(StringArray::from(strings.clone())),
            Arc::new(BinaryViewArray::from_iter(binary)),
            Arc::new(StringArray::from(strings)),
        ],
    )
    .expect("batch");
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1_700))
        .set_data_page_row_count_limit(300)
        .set_write_batch_size(100)
        // `s` outgrows a dictionary page this small and goes on in PLAIN.
        .set_column_dictionary_page_size_limit(ColumnPath::from("s"), 2_000)
        .set_column_dictionary_enabled(ColumnPath::from("d"), false)
        .set_column_encoding(ColumnPath::from("d"), PEncoding::DELTA_BYTE_ARRAY)
        .build();
    write(&batch, props)
}

/// A batch of `id` (Int64, the row number) and `s` (Utf8, `strings`).
fn ids_and_strings(strings: &[Option<String>]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let ids = Int64Array::from_iter_values(0..strings.len() as i64);
    let strings = StringArray::from(strings.to_vec());
    RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(strings)]).expect("batch")
}

/// `batch` written by the `parquet` crate 60.1 with `props`.
fn write(batch: &RecordBatch, props: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

fn values_of(a: &dyn Array) -> Values {
    match a.data_type() {
        DataType::Utf8 => a
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| s.as_bytes().to_vec()))
            .collect(),
        DataType::Binary => a
            .as_binary::<i32>()
            .iter()
            .map(|v| v.map(<[u8]>::to_vec))
            .collect(),
        DataType::Utf8View => a
            .as_string_view()
            .iter()
            .map(|v| v.map(|s| s.as_bytes().to_vec()))
            .collect(),
        DataType::BinaryView => a
            .as_binary_view()
            .iter()
            .map(|v| v.map(<[u8]>::to_vec))
            .collect(),
        other => panic!("unexpected type {other}"),
    }
}

/// The `parquet` crate 60.1's values of each column but `id`, and the ids.
fn peer(bytes: &Bytes) -> (Vec<Values>, Vec<i64>) {
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .expect("parquet 60.1 open")
        .build()
        .expect("parquet 60.1 reader")
        .collect::<Result<_, _>>()
        .expect("parquet 60.1 read");
    let columns = (1..4)
        .map(|c| {
            batches
                .iter()
                .flat_map(|b| values_of(b.column(c).as_ref()))
                .collect()
        })
        .collect();
    let ids = batches
        .iter()
        .flat_map(|b| {
            b.column(0)
                .as_primitive::<arrow_array::types::Int64Type>()
                .values()
                .to_vec()
        })
        .collect();
    (columns, ids)
}

/// `reader` reading strings as views, in batches of `batch_size`, filtered by `filter`.
fn as_views(reader: ParquetReader, batch_size: usize, filter: Option<&str>) -> ParquetReader {
    let reader = reader
        .with_strings(StringType::Utf8View)
        .with_batch_size(batch_size);
    match filter {
        Some(sql) => reader.with_filter(parq::read::parse_filter(sql).expect("filter")),
        None => reader,
    }
}

/// Every batch valid Arrow data, the strings as views; the values of each column but `id`.
fn parq_read(bytes: &Bytes, batch_size: usize, filter: Option<&str>) -> (Vec<Values>, usize) {
    let reader = ParquetReader::from_bytes(bytes.clone()).expect("parq open");
    let batches = as_views(reader, batch_size, filter)
        .read_all()
        .expect("parq read");
    let mut columns = vec![Values::new(); 3];
    let mut rows = 0;
    for b in &batches {
        rows += b.num_rows();
        for (c, want) in [DataType::Utf8View, DataType::BinaryView, DataType::Utf8View]
            .iter()
            .enumerate()
        {
            let a = b.column(c + 1);
            assert_eq!(a.data_type(), want, "column {}", c + 1);
            a.to_data()
                .validate_full()
                .unwrap_or_else(|e| panic!("batch size {batch_size}: invalid array: {e}"));
            columns[c].extend(values_of(a.as_ref()));
        }
    }
    (columns, rows)
}

#[test]
fn views_equal_the_parquet_crates_strings_in_every_batch_size() {
    let bytes = file();
    let (want, _) = peer(&bytes);
    assert!(want[0].iter().any(Option::is_none), "nulls written");
    for batch_size in [1, 7, 299, 300, 1_000, 1_700, ROWS] {
        let (got, rows) = parq_read(&bytes, batch_size, None);
        assert_eq!(rows, ROWS);
        for (c, name) in ["s", "b", "d"].iter().enumerate() {
            assert_eq!(got[c], want[c], "column {name}, batch size {batch_size}");
        }
    }
}

#[test]
fn views_with_a_filter_keep_the_rows_it_keeps() {
    let bytes = file();
    let (want, ids) = peer(&bytes);
    // Rows from three row groups, a page's tail and head, single rows far apart.
    let sql = "(id >= 1500 AND id < 3500) OR id IN (7, 4999)";
    let keep = |id: i64| (1500..3500).contains(&id) || id == 7 || id == 4999;
    for batch_size in [3, 250, 4_096] {
        let (got, rows) = parq_read(&bytes, batch_size, Some(sql));
        let kept: Vec<usize> = (0..ids.len()).filter(|&r| keep(ids[r])).collect();
        assert_eq!(rows, kept.len());
        for (c, name) in ["s", "b", "d"].iter().enumerate() {
            let w: Values = kept.iter().map(|&r| want[c][r].clone()).collect();
            assert_eq!(got[c], w, "column {name}, batch size {batch_size}");
        }
    }
}

#[test]
fn a_filter_on_a_view_column_compares_its_strings() {
    let bytes = file();
    let (want, _) = peer(&bytes);
    let sql = "s >= 's2' AND s < 's4' OR s = 'a longer value, number 00291, past twelve bytes'";
    let keep = |v: &Option<Vec<u8>>| {
        v.as_deref().is_some_and(|v| {
            (b"s2".as_slice() <= v && v < b"s4".as_slice())
                || v == b"a longer value, number 00291, past twelve bytes"
        })
    };
    let kept: Vec<usize> = (0..want[0].len()).filter(|&r| keep(&want[0][r])).collect();
    assert!(kept.len() > 100, "{} rows kept", kept.len());
    for batch_size in [5, 1_024] {
        let (got, rows) = parq_read(&bytes, batch_size, Some(sql));
        assert_eq!(rows, kept.len());
        for (c, name) in ["s", "b", "d"].iter().enumerate() {
            let w: Values = kept.iter().map(|&r| want[c][r].clone()).collect();
            assert_eq!(got[c], w, "column {name}, batch size {batch_size}");
        }
    }
}

/// A few rows of a large dictionary (a point lookup's): their views are made one by one from
/// the dictionary's offsets, equal to the values.
#[test]
fn a_lookup_in_a_large_dictionary_views_its_values() {
    let rows = 20_000;
    let strings: Vec<Option<String>> = (0..rows)
        .map(|i| (i % 97 != 0).then(|| format!("entry {:05} of a large dictionary", i % 4_000)))
        .collect();
    let batch = ids_and_strings(&strings);
    let props = WriterProperties::builder()
        .set_data_page_row_count_limit(5_000)
        .set_write_batch_size(1_000)
        .build();
    let bytes = write(&batch, props);
    for ids in [vec![2_345], vec![0, 97, 4_001, 19_999]] {
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        let sql = format!("id IN ({})", list.join(", "));
        let batches = ParquetReader::from_bytes(bytes.clone())
            .expect("parq open")
            .with_strings(StringType::Utf8View)
            .with_filter(parq::read::parse_filter(&sql).expect("filter"))
            .read_all()
            .expect("parq read");
        let got: Values = batches
            .iter()
            .flat_map(|b| values_of(b.column(1).as_ref()))
            .collect();
        let want: Values = ids
            .iter()
            .map(|&i| strings[i as usize].clone().map(String::into_bytes))
            .collect();
        assert_eq!(got, want, "{sql}");
    }
}

/// The views of `a` longer than a view holds, each checked to sit in a page's own bytes:
/// right after the value's 4-byte PLAIN length prefix. A value copied out of its page has
/// no prefix before it.
fn viewed_in_page(a: &StringViewArray, case: &str) -> usize {
    let mut long = 0;
    for (i, view) in a.views().iter().enumerate() {
        let len = *view as u32;
        if a.is_null(i) || len <= 12 {
            continue;
        }
        let (buffer, offset) = ((*view >> 64) as u32 as usize, (*view >> 96) as u32 as usize);
        let data = a.data_buffers()[buffer].as_slice();
        assert!(offset >= 4, "{case}: view {i} at offset {offset}");
        let prefix = &data[offset - 4..offset];
        assert_eq!(
            prefix,
            len.to_le_bytes(),
            "{case}: view {i}, no length prefix"
        );
        long += 1;
    }
    long
}

/// PLAIN strings (no dictionary) of every codec and page version, written by 60.1 to a file:
/// read as views with the file's reader dropped and the file deleted, then read again (so
/// that the buffers a read lets go of are reused) before the first read's views are checked
/// against 60.1's values and their place in the pages' bytes.
#[test]
fn plain_views_point_into_pages_that_outlive_the_reader() {
    let rows = 6_000;
    let strings: Vec<Option<String>> = (0..rows).map(|i| value(i * 7 + 1)).collect();
    let batch = ids_and_strings(&strings);
    let dir = common::tmp_dir("plain_views");
    for codec in [
        PCompression::UNCOMPRESSED,
        PCompression::SNAPPY,
        PCompression::LZ4_RAW,
    ] {
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_encoding(PEncoding::PLAIN)
                .set_compression(codec)
                .set_writer_version(version)
                .set_max_row_group_row_count(Some(2_500))
                .set_data_page_row_count_limit(700)
                .set_write_batch_size(100)
                .build();
            let bytes = write(&batch, props);
            let want: Values = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                .expect("parquet 60.1 open")
                .build()
                .expect("parquet 60.1 reader")
                .map(|b| values_of(b.expect("parquet 60.1 read").column(1).as_ref()))
                .collect::<Vec<_>>()
                .concat();
            let path = dir.join("plain.parquet");
            std::fs::write(&path, &bytes).expect("write file");
            for (batch_size, filter) in [(1_000, None), (333, Some("id >= 1234 AND id < 4321"))] {
                let case = format!("{codec:?} {version:?}, batch size {batch_size}, {filter:?}");
                let reader = ParquetReader::open(&path).expect("parq open");
                let reader = as_views(reader, batch_size, filter);
                let batches = reader.read_all().expect("parq read");
                drop(reader);
                std::fs::remove_file(&path).expect("remove file");
                std::fs::write(&path, &bytes).expect("write file again");
                let again = ParquetReader::open(&path)
                    .expect("parq open")
                    .with_strings(StringType::Utf8View)
                    .read_all()
                    .expect("parq read");
                drop(again);
                let (mut got, mut long) = (Values::new(), 0);
                for b in &batches {
                    let a = b.column(1).as_string_view();
                    a.to_data().validate_full().expect("valid views");
                    long += viewed_in_page(a, &case);
                    got.extend(values_of(a));
                }
                let want: Values = match filter {
                    None => want.clone(),
                    Some(_) => want[1_234..4_321].to_vec(),
                };
                assert_eq!(got, want, "{case}");
                assert!(
                    long > got.len() / 3,
                    "{case}: {long} long values of {}",
                    got.len()
                );
            }
        }
    }
}
