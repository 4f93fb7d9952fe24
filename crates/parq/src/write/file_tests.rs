//! The file writer's unit tests: dictionary trials and fallbacks, page bodies written in
//! place, idle dictionary tables rebuilt.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, FixedSizeBinaryArray, Float32Array, Float64Array, Int32Array, Int64Array,
    RecordBatch, StringArray,
};
use arrow_schema::{Field, Schema};

use super::super::column::DICTIONARY_TRIAL_VALUES;
use super::super::properties::{Codec, DataPageVersion, WriterProperties};
use super::ParquetWriter;
use crate::format::metadata::{ColumnChunk, Encoding, FileMetaData};
use crate::read::ParquetReader;

/// Writes `batch` with `props`, reads it back (checking it is the same) and returns the
/// file's metadata.
fn roundtrip(batch: &RecordBatch, props: WriterProperties) -> FileMetaData {
    let mut buf = Vec::new();
    let mut w = ParquetWriter::try_new(&mut buf, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    let meta = w.close().unwrap();
    let r = ParquetReader::from_bytes(bytes::Bytes::from(buf)).unwrap();
    let got = r.read_batch().unwrap();
    assert_eq!(got.num_rows(), batch.num_rows());
    for (i, col) in batch.columns().iter().enumerate() {
        assert_eq!(
            &got.column(i).to_data(),
            &col.to_data(),
            "column {}",
            batch.schema().field(i).name()
        );
    }
    meta
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

/// A batch of `n` columns `c0`, `c1`, ..., column `c` made by `make(c)`.
fn numbered_columns(n: usize, make: impl Fn(usize) -> ArrayRef) -> RecordBatch {
    let arrays: Vec<(String, ArrayRef)> = (0..n).map(|c| (format!("c{c}"), make(c))).collect();
    batch(
        arrays
            .iter()
            .map(|(n, a)| (n.as_str(), a.clone()))
            .collect(),
    )
}

fn uses_dictionary(c: &ColumnChunk) -> bool {
    c.encodings().contains(Encoding::RleDictionary)
}

/// Distinct floats: the dictionary is given up after the first values, the chunk has
/// no dictionary page and its pages are PLAIN; a low-cardinality column beside it keeps
/// its dictionary.
#[test]
fn distinct_values_give_the_dictionary_up() {
    let n = 50_000;
    let b = batch(vec![
        (
            "f",
            Arc::new(Float64Array::from_iter_values(
                (0..n).map(|i| f64::from(i) * 0.37 + 1e6),
            )),
        ),
        (
            "k",
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 7 != 0).then_some(i64::from(i % 25) * 1_000_003)),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter((0..n).map(|i| {
                (i % 5 != 0).then(|| format!("distinct string number {i}"))
            }))),
        ),
    ]);
    for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::ZSTD] {
        for version in [DataPageVersion::V1, DataPageVersion::V2] {
            let props = WriterProperties::builder()
                .compression(codec)
                .data_page_version(version)
                .page_crc(true)
                .build()
                .unwrap();
            let meta = roundtrip(&b, props);
            let cols = meta.row_groups()[0].columns();
            for c in [&cols[0], &cols[2]] {
                assert!(!uses_dictionary(c), "{:?}", c.encodings());
                assert!(c.encodings().contains(Encoding::Plain));
                assert_eq!(c.dictionary_page_offset(), None);
            }
            assert!(uses_dictionary(&cols[1]));
            assert!(cols[1].dictionary_page_offset().is_some());
        }
    }
}

/// The first page closes with mostly distinct values (not all): the dictionary page and
/// indices would not be smaller than PLAIN, so the page is written PLAIN and so is the
/// rest of the chunk, with the column's fallback encoding.
#[test]
fn first_page_decides() {
    let n = 30_000i64;
    // Nine distinct values in ten.
    let mostly = |i: i64| if i % 10 == 9 { i - 1 } else { i };
    let b = batch(vec![
        (
            "plain",
            Arc::new(Int64Array::from_iter_values((0..n).map(mostly))),
        ),
        (
            "delta",
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 3 != 0).then_some(mostly(i) * 3)),
            )),
        ),
        (
            "half",
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i / 2))),
        ),
    ]);
    let props = WriterProperties::builder()
        .data_page_rows(Some(2_000))
        .column_dictionary("delta", true)
        .column_encoding("delta", Encoding::DeltaBinaryPacked)
        .build()
        .unwrap();
    let meta = roundtrip(&b, props);
    let cols = meta.row_groups()[0].columns();
    assert!(!uses_dictionary(&cols[0]));
    assert!(cols[0].encodings().contains(Encoding::Plain));
    assert!(!uses_dictionary(&cols[1]));
    assert!(cols[1].encodings().contains(Encoding::DeltaBinaryPacked));
    assert_eq!(cols[1].dictionary_page_offset(), None);
    // Two rows per value: the dictionary pays on the first page (then passes no limit).
    assert!(uses_dictionary(&cols[2]));
}

/// Pages smaller than the trial keep the dictionary (as small files always did).
#[test]
fn small_pages_keep_the_dictionary() {
    let b = batch(vec![(
        "x",
        Arc::new(Int32Array::from_iter_values(
            0..(DICTIONARY_TRIAL_VALUES as i32 - 1),
        )),
    )]);
    let meta = roundtrip(&b, WriterProperties::default());
    let c = &meta.row_groups()[0].columns()[0];
    assert!(uses_dictionary(c));
    assert!(c.dictionary_page_offset().is_some());
}

/// Fallback encodings of every kind re-encode the values given up, nulls included.
#[test]
fn given_up_values_in_fallback_encodings() {
    let n = 6_000;
    let fixed: Vec<Option<[u8; 4]>> = (0..n)
        .map(|i: u32| (i % 4 != 1).then_some(i.wrapping_mul(2_654_435_761).to_be_bytes()))
        .collect();
    let b = batch(vec![
        (
            "f32",
            Arc::new(Float32Array::from_iter(
                (0..n).map(|i| (i % 6 != 2).then_some(i as f32 * 1.5)),
            )),
        ),
        (
            "i32",
            Arc::new(Int32Array::from_iter_values((0..n as i32).map(|i| i * 7))),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("s{i:08}")),
            )),
        ),
        (
            "fixed",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    fixed.iter().map(|v| v.as_ref().map(|b| b.as_slice())),
                    4,
                )
                .unwrap(),
            ),
        ),
    ]);
    for (enc_f, enc_i, enc_s, enc_fixed) in [
        (
            Encoding::ByteStreamSplit,
            Encoding::DeltaBinaryPacked,
            Encoding::DeltaLengthByteArray,
            Encoding::ByteStreamSplit,
        ),
        (
            Encoding::Plain,
            Encoding::ByteStreamSplit,
            Encoding::DeltaByteArray,
            Encoding::DeltaByteArray,
        ),
    ] {
        for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY] {
            let props = WriterProperties::builder()
                .compression(codec)
                .dictionary(true)
                .column_encoding("f32", enc_f)
                .column_encoding("i32", enc_i)
                .column_encoding("s", enc_s)
                .column_encoding("fixed", enc_fixed)
                .build()
                .unwrap();
            let meta = roundtrip(&b, props);
            let cols = meta.row_groups()[0].columns();
            for (c, e) in cols.iter().zip([enc_f, enc_i, enc_s, enc_fixed]) {
                assert!(!uses_dictionary(c), "{:?}", c.encodings());
                assert!(c.encodings().contains(e), "{:?} {e:?}", c.encodings());
            }
        }
    }
}

/// Page bodies are assembled in place (levels put before the values): pages whose levels
/// outgrow the room kept for them, null columns, several writes and row groups, every
/// page version and codec, with CRCs.
#[test]
fn page_bodies_in_place() {
    let n = 9_000usize;
    // All valid for the first pages, then nulls scattered more and more.
    let valid = |i: usize| i < 2_500 || (i * 2_654_435_761) % 97 > (i / 1_000) * 9;
    let b = batch(vec![
        (
            "i",
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| valid(i).then_some((i as i64 * 7919) % 1_000_003)),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| valid(i + 1).then(|| format!("{}", i % 300))),
            )),
        ),
        ("nothing", Arc::new(arrow_array::NullArray::new(n))),
        (
            "required",
            Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32))),
        ),
    ]);
    let schema = Arc::new(Schema::new(
        b.schema()
            .fields()
            .iter()
            .map(|f| {
                let nullable = f.name() != "required";
                f.as_ref().clone().with_nullable(nullable)
            })
            .collect::<Vec<_>>(),
    ));
    let b = RecordBatch::try_new(schema.clone(), b.columns().to_vec()).unwrap();
    for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP] {
        for version in [DataPageVersion::V1, DataPageVersion::V2] {
            for dictionary in [true, false] {
                let props = WriterProperties::builder()
                    .compression(codec)
                    .data_page_version(version)
                    .dictionary(dictionary)
                    .data_page_rows(Some(700))
                    .max_row_group_rows(Some(4_000))
                    .page_crc(true)
                    .build()
                    .unwrap();
                let mut out = Vec::new();
                let mut w = ParquetWriter::try_new(&mut out, schema.clone(), props).unwrap();
                for off in (0..n).step_by(1_500) {
                    w.write(&b.slice(off, 1_500.min(n - off))).unwrap();
                }
                let meta = w.close().unwrap();
                assert_eq!(meta.row_groups().len(), 3);
                let r = ParquetReader::from_bytes(bytes::Bytes::from(out)).unwrap();
                let got = r.read_batch().unwrap();
                assert_eq!(got, b, "{codec:?} {version:?} dictionary {dictionary}");
            }
        }
    }
}

/// Columns written in small batches whose idle dictionaries free their tables (as in a
/// wide schema) rebuild them on the next write: the file is the same as without.
#[test]
fn idle_tables_are_rebuilt() {
    let cols = 20;
    let rows = 400;
    let b = numbered_columns(cols, |c| {
        Arc::new(Int64Array::from_iter((0..rows).map(|r| {
            ((r + c) % 11 != 0).then_some(((r * 7 + c) % 150) as i64)
        })))
    });
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(2 * rows))
        .build()
        .unwrap();
    let write = |idle: Option<usize>| {
        let mut out = Vec::new();
        let mut w = ParquetWriter::try_new(&mut out, b.schema(), props.clone()).unwrap();
        w.shared.set_idle_table_bytes(idle);
        for _ in 0..4 {
            // 150 entries, batches of 50 rows and 200 rows.
            for off in (0..rows / 2).step_by(50) {
                w.write(&b.slice(off, 50)).unwrap();
            }
            w.write(&b.slice(rows / 2, rows / 2)).unwrap();
        }
        let meta = w.close().unwrap();
        assert_eq!(meta.row_groups().len(), 2);
        assert!(meta.row_groups()[1].columns().iter().all(uses_dictionary));
        out
    };
    let kept = write(None);
    let freed = write(Some(0));
    assert_eq!(kept, freed);
    let r = ParquetReader::from_bytes(bytes::Bytes::from(freed)).unwrap();
    let got = r.read_batch().unwrap();
    assert_eq!(got.num_rows(), 4 * rows);
    for i in 0..4 {
        assert_eq!(got.slice(i * rows, rows), b);
    }
}

/// Between row groups no column holds a page body buffer: finished chunks hand theirs to
/// the next ones through the writer's shelf, whether a row group is written a column at a
/// time (one batch, rows held) or from many batches (pages kept until it closes), on one
/// thread or three.
#[test]
fn idle_columns_hold_no_page_bodies() {
    let columns = 300;
    let rows = 2_000;
    let b = numbered_columns(columns, |c| {
        Arc::new(Float32Array::from_iter_values(
            (0..rows).map(|r| (r * 31 + c) as f32 * 0.5),
        ))
    });
    for threads in [1, 3] {
        for batches_per_group in [1, 4] {
            let props = WriterProperties::builder()
                .compression(Codec::parse("snappy").unwrap())
                .max_row_group_rows(Some(rows))
                .threads(threads)
                .build()
                .unwrap();
            let mut buf = Vec::new();
            let mut w = ParquetWriter::try_new(&mut buf, b.schema(), props).unwrap();
            let part = rows / batches_per_group;
            for _ in 0..3 {
                for k in 0..batches_per_group {
                    w.write(&b.slice(k * part, part)).unwrap();
                }
                let holding = w
                    .columns
                    .live()
                    .filter(|(_, c)| c.bodies_capacity() > 0)
                    .count();
                assert_eq!(holding, 0, "threads {threads}, {batches_per_group} batches");
            }
            let meta = w.close().unwrap();
            assert_eq!(meta.row_groups.len(), 3);
            let got = ParquetReader::from_bytes(bytes::Bytes::from(buf))
                .unwrap()
                .read_batch()
                .unwrap();
            assert_eq!(got.num_rows(), 3 * rows);
            assert_eq!(
                got.column(7).slice(rows, rows).to_data(),
                b.column(7).to_data()
            );
        }
    }
}

/// Parked columns (dropped between chunks and made again for the next, as in files of more
/// than `PARK_COLUMNS` columns) write the same bytes as columns kept live, whether a row
/// group is written a column at a time or from many batches, on one thread or three; in an
/// encrypted file each chunk made again is sealed for its own row group.
#[test]
fn parked_columns_write_the_same_bytes() {
    use super::columns::PARK_ABOVE;
    use crate::format::crypto::{ColumnKey, FileDecryptionProperties, FileEncryptionProperties};
    use crate::format::footer::DecodeOptions;

    let rows = 1_500;
    let b = numbered_columns(30, |c| match c % 3 {
        0 => {
            Arc::new(Int64Array::from_iter((0..rows).map(|r| {
                ((r + c) % 7 != 0).then_some(((r * 13 + c) % 40) as i64)
            })))
        }
        1 => Arc::new(Float32Array::from_iter_values(
            (0..rows).map(|r| (r * 31 + c) as f32 * 0.25),
        )),
        _ => Arc::new(StringArray::from_iter(
            (0..rows).map(|r| (r % 5 != 0).then(|| format!("v{}", (r * 7 + c) % 90))),
        )),
    });
    let write = |park_above: usize, threads: usize, parts: usize| {
        PARK_ABOVE.with(|p| p.set(park_above));
        let props = WriterProperties::builder()
            .compression(Codec::parse("snappy").unwrap())
            .max_row_group_rows(Some(rows / 3))
            .data_page_rows(Some(200))
            .threads(threads)
            .build()
            .unwrap();
        let mut out = Vec::new();
        let mut w = ParquetWriter::try_new(&mut out, b.schema(), props).unwrap();
        let step = rows / parts;
        for k in 0..parts {
            w.write(&b.slice(k * step, step)).unwrap();
        }
        w.close().unwrap();
        out
    };
    for threads in [1, 3] {
        for parts in [1, 6] {
            let live = write(usize::MAX, threads, parts);
            let parked = write(0, threads, parts);
            assert!(live == parked, "threads {threads}, {parts} batches");
        }
    }
    PARK_ABOVE.with(|p| p.set(0));
    let key = |i: u8| vec![i; 16];
    let enc = FileEncryptionProperties::new(key(1))
        .unwrap()
        .column_key(
            "c4",
            ColumnKey {
                key: key(2),
                key_metadata: None,
            },
        )
        .unwrap();
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(rows / 3))
        .encryption(enc)
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, b.schema(), props).unwrap();
    w.write(&b).unwrap();
    assert_eq!(w.close().unwrap().row_groups.len(), 3);
    PARK_ABOVE.with(|p| p.set(super::columns::PARK_COLUMNS));
    let keys = FileDecryptionProperties::with_footer_key(key(1))
        .unwrap()
        .column_key("c4", key(2))
        .unwrap();
    let r = ParquetReader::from_source_with(
        Arc::new(bytes::Bytes::from(out)),
        DecodeOptions {
            decryption: Some(Arc::new(keys)),
            ..Default::default()
        },
    )
    .unwrap();
    let got = r.read_all().unwrap();
    let got = arrow_select::concat::concat_batches(&b.schema(), &got).unwrap();
    assert_eq!(got, b);
}
