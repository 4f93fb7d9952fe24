//! parq reading string / binary columns as Arrow dictionaries of narrow keys (Int8, UInt8,
//! Int16, UInt16, from the file's `ARROW:schema`) when the Parquet dictionaries hold more
//! entries than the key type indexes: dictionaries repeated by many row groups, chunks
//! written without the dictionary, chunks that fall back to PLAIN, with nulls. parq's
//! reader deduplicates the Arrow dictionary by value then (`read::dict`); only more distinct
//! values than the key type indexes is an error, naming the column, the row group and the
//! key type.
//!
//! Files come from the `parquet` crate 60.1 and from pyarrow 26; expected values from the
//! `parquet` crate 60.1 reading them (pyarrow 26 cannot: "Integer value 128 not in range"),
//! and from the values written. The pyarrow test needs the venv (`bash scripts/venv.sh`).

mod common;
use common::{run_python, tmp_dir};

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::read::ParquetReader;
use parq::ErrorKind;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::Encoding as PEncoding;
use parquet::file::properties::WriterProperties;

/// Logical values of a column: `None` for a null slot.
type Values = Vec<Option<Vec<u8>>>;

const KEYS: [DataType; 4] = [
    DataType::Int8,
    DataType::UInt8,
    DataType::Int16,
    DataType::UInt16,
];

const VALUES: [DataType; 4] = [
    DataType::Utf8,
    DataType::Binary,
    DataType::LargeUtf8,
    DataType::LargeBinary,
];

/// How many distinct values keys of type `key` index.
fn capacity(key: &DataType) -> usize {
    match key {
        DataType::Int8 => 128,
        DataType::UInt8 => 256,
        DataType::Int16 => 32768,
        DataType::UInt16 => 65536,
        other => panic!("not a narrow key type: {other}"),
    }
}

fn dict_type(key: &DataType, value: &DataType) -> DataType {
    DataType::Dictionary(Box::new(key.clone()), Box::new(value.clone()))
}

/// The logical values of a string / binary array, or of a dictionary of them.
fn values_of(a: &dyn Array) -> Values {
    let bytes = |it: &mut dyn Iterator<Item = Option<&[u8]>>| -> Values {
        it.map(|v| v.map(<[u8]>::to_vec)).collect()
    };
    match a.data_type() {
        DataType::Utf8 => bytes(&mut a.as_string::<i32>().iter().map(|v| v.map(str::as_bytes))),
        DataType::LargeUtf8 => {
            bytes(&mut a.as_string::<i64>().iter().map(|v| v.map(str::as_bytes)))
        }
        DataType::Binary => bytes(&mut a.as_binary::<i32>().iter()),
        DataType::LargeBinary => bytes(&mut a.as_binary::<i64>().iter()),
        DataType::Dictionary(..) => {
            let d = a.as_any_dictionary();
            let entries = values_of(d.values().as_ref());
            // (`normalized_keys` wants entries: without any, every slot must be null.)
            let keys = if entries.is_empty() {
                vec![usize::MAX; a.len()]
            } else {
                d.normalized_keys()
            };
            (0..a.len())
                .map(|i| {
                    if a.is_null(i) {
                        None
                    } else {
                        entries[keys[i]].clone()
                    }
                })
                .collect()
        }
        other => panic!("no values of {other}"),
    }
}

/// A `Dictionary(key, value)` array of `rows` (its dictionary: their distinct values, in
/// order of first appearance; at most what `key` indexes).
fn dict_array(key: &DataType, value: &DataType, rows: &[Option<String>]) -> ArrayRef {
    let mut pool: Vec<&str> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let idx: Vec<Option<usize>> = rows
        .iter()
        .map(|r| {
            r.as_deref().map(|s| {
                *index.entry(s).or_insert_with(|| {
                    pool.push(s);
                    pool.len() - 1
                })
            })
        })
        .collect();
    let values: ArrayRef = match value {
        DataType::Utf8 => Arc::new(StringArray::from_iter_values(&pool)),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::from_iter_values(&pool)),
        DataType::Binary => Arc::new(BinaryArray::from_iter_values(
            pool.iter().map(|s| s.as_bytes()),
        )),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::from_iter_values(
            pool.iter().map(|s| s.as_bytes()),
        )),
        other => panic!("no values of {other}"),
    };
    macro_rules! build {
        ($t:ty, $n:ty) => {{
            let keys: PrimitiveArray<$t> = idx
                .iter()
                .map(|k| k.map(|k| <$n>::try_from(k).expect("key fits")))
                .collect();
            Arc::new(DictionaryArray::<$t>::try_new(keys, values).expect("dictionary")) as ArrayRef
        }};
    }
    match key {
        DataType::Int8 => build!(Int8Type, i8),
        DataType::UInt8 => build!(UInt8Type, u8),
        DataType::Int16 => build!(Int16Type, i16),
        DataType::UInt16 => build!(UInt16Type, u16),
        other => panic!("not a narrow key type: {other}"),
    }
}

/// Writes `rows` as a `Dictionary(key, value)` column `d` with the `parquet` crate 60.1, in
/// batches of `batch_rows` rows (each its own Arrow dictionary).
fn write_parquet_rs(
    key: &DataType,
    value: &DataType,
    rows: &[Option<String>],
    batch_rows: usize,
    props: WriterProperties,
) -> Bytes {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        dict_type(key, value),
        true,
    )]));
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).expect("writer");
    for part in rows.chunks(batch_rows) {
        let batch = RecordBatch::try_new(schema.clone(), vec![dict_array(key, value, part)])
            .expect("batch");
        w.write(&batch).expect("write");
    }
    w.close().expect("close");
    Bytes::from(out)
}

/// The `parquet` crate 60.1 reads column 0 of `bytes`.
fn peer_values(bytes: &Bytes) -> Values {
    peer_read(bytes, None).expect("parquet 60.1 read")
}

/// The `parquet` crate 60.1 reads column 0 of `bytes`, as `as_type` if given.
fn peer_read(bytes: &Bytes, as_type: Option<&DataType>) -> Result<Values, String> {
    let mut options = ArrowReaderOptions::new();
    if let Some(t) = as_type {
        options = options.with_schema(Arc::new(Schema::new(vec![Field::new(
            "d",
            t.clone(),
            true,
        )])));
    }
    let batches: Vec<RecordBatch> =
        ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
            .expect("parquet 60.1 open")
            .build()
            .expect("parquet 60.1 reader")
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
    Ok(batches
        .iter()
        .flat_map(|b| values_of(b.column(0).as_ref()))
        .collect())
}

/// parq reads column 0 of `bytes` as one array (all row groups) and in batches (one per row
/// group): both as `Dictionary(key, value)` arrays of valid Arrow data (LargeUtf8 /
/// LargeBinary values come back as Utf8 / Binary, as in pyarrow 26), equal to `want`, whose
/// dictionaries the key type indexes.
fn check_parq(what: &str, bytes: &Bytes, key: &DataType, value: &DataType, want: &Values) {
    let value = match value {
        DataType::LargeUtf8 => &DataType::Utf8,
        DataType::LargeBinary => &DataType::Binary,
        v => v,
    };
    let reader = ParquetReader::from_bytes(bytes.clone()).expect("parq open");
    let whole = reader
        .read_batch()
        .unwrap_or_else(|e| panic!("{what}: parq read_batch: {e}"));
    let batches = reader
        .read_all()
        .unwrap_or_else(|e| panic!("{what}: parq batches: {e}"));
    let mut arrays = vec![whole.column(0).clone()];
    arrays.extend(batches.iter().map(|b| b.column(0).clone()));
    for a in &arrays {
        assert_eq!(a.data_type(), &dict_type(key, value), "{what}: type");
        a.to_data()
            .validate_full()
            .unwrap_or_else(|e| panic!("{what}: invalid array: {e}"));
        let d = a.as_any_dictionary();
        assert!(
            d.values().len() <= capacity(key),
            "{what}: {} dictionary entries",
            d.values().len()
        );
    }
    assert_eq!(
        &values_of(whole.column(0).as_ref()),
        want,
        "{what}: read_batch"
    );
    let got: Values = batches
        .iter()
        .flat_map(|b| values_of(b.column(0).as_ref()))
        .collect();
    assert_eq!(&got, want, "{what}: batches");
}

/// `n` rows of `distinct` values (`v0`, `v1`, ... cycling, so that every row group of a few
/// rows repeats values of the others), about one in `null_every` null (the first row too).
fn cycling_rows(n: usize, distinct: usize, null_every: usize) -> Vec<Option<String>> {
    (0..n)
        .map(|i| (i % null_every != 0).then(|| format!("value-{}", (i * 7) % distinct)))
        .collect()
}

/// Dictionary disabled (every value an entry), row groups of 3 rows (a dictionary each,
/// repeating the others') and dictionaries that fall back to PLAIN within a chunk, for every
/// narrow key and value type, with nulls: parq reads the `parquet` crate's files as it does.
#[test]
fn repeated_dictionaries_and_plain_values_with_narrow_keys() {
    let rows = cycling_rows(1000, 60, 9);
    let want: Values = rows
        .iter()
        .map(|r| r.as_ref().map(|s| s.as_bytes().to_vec()))
        .collect();
    let settings = [
        (
            "dictionary off",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .build(),
        ),
        (
            "row groups of 3 rows",
            WriterProperties::builder()
                .set_max_row_group_row_count(Some(3))
                .build(),
        ),
        (
            "dictionary fallback",
            WriterProperties::builder()
                .set_dictionary_page_size_limit(256)
                .set_write_batch_size(16)
                .set_data_page_row_count_limit(32)
                .build(),
        ),
    ];
    for key in &KEYS {
        for value in &VALUES {
            for (name, props) in &settings {
                let what = format!("{name} {key} {value}");
                let bytes = write_parquet_rs(key, value, &rows, 300, props.clone());
                if *name == "dictionary fallback" {
                    // The chunk has dictionary-encoded and PLAIN data pages.
                    let b = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
                    let chunk = b.metadata().row_group(0).column(0);
                    let mask = chunk.page_encoding_stats_mask().expect("encoding stats");
                    assert!(
                        mask.is_set(PEncoding::RLE_DICTIONARY) && mask.is_set(PEncoding::PLAIN),
                        "{what}: no fallback: {mask:?}"
                    );
                }
                assert_eq!(peer_values(&bytes), want, "{what}: parquet 60.1");
                check_parq(&what, &bytes, key, value, &want);
            }
        }
    }
}

/// Exactly as many distinct values as the key type indexes (each twice, so the Arrow
/// dictionary built from the pages has twice that many entries) are read; one more is an
/// error naming the column, the row group and row where it first appears, and the key type.
/// In batches of one row group each, a file whose row groups each fit is read.
#[test]
fn as_many_distinct_values_as_the_key_type_indexes_and_one_more() {
    for key in &KEYS {
        let cap = capacity(key);
        for extra in [0, 1] {
            let n = cap + extra;
            // v0..v(n-1) twice, and a null after every 1000 of them.
            let mut rows: Vec<Option<String>> = Vec::new();
            for i in 0..2 * n {
                rows.push(Some(format!("v{}", i % n)));
                if i % 1000 == 999 {
                    rows.push(None);
                }
            }
            // Where value n - 1 first appears.
            let first = n - 1 + (n - 1) / 1000;
            let want: Values = rows
                .iter()
                .map(|r| r.as_ref().map(|s| s.as_bytes().to_vec()))
                .collect();
            // Row groups of `rg` rows; `None`: one row group.
            for rg in [None, Some(cap / 2 + 3)] {
                let mut props = WriterProperties::builder();
                if let Some(rg) = rg {
                    props = props.set_max_row_group_row_count(Some(rg));
                } else {
                    props = props.set_dictionary_enabled(false);
                }
                let what = format!("{key} {n} distinct values, row groups of {rg:?} rows");
                // Batches of at most `cap` rows: each Arrow dictionary fits the key type.
                let bytes = write_parquet_rs(key, &DataType::Utf8, &rows, cap, props.build());
                if extra == 0 {
                    assert_eq!(peer_values(&bytes), want, "{what}: parquet 60.1");
                    check_parq(&what, &bytes, key, &DataType::Utf8, &want);
                    continue;
                }
                let reader = ParquetReader::from_bytes(bytes.clone()).unwrap();
                let e = reader
                    .read_batch()
                    .expect_err(&format!("{what}: more distinct values than keys"));
                assert_eq!(rows[first].as_deref(), Some(format!("v{}", n - 1).as_str()));
                let (row, group) = match rg {
                    None => (first, 0),
                    Some(rg) => (first % rg, first / rg),
                };
                let message = e.to_string();
                assert!(
                    matches!(e.kind(), ErrorKind::InvalidColumnData { column, .. } if column == "d"),
                    "{what}: {message}"
                );
                for part in [
                    format!("more than {cap} distinct values"),
                    format!("key type {key}"),
                    format!("(row {row} of row group {group})"),
                ] {
                    assert!(message.contains(&part), "{what}: {part:?} not in {message}");
                }
                // Batches of one row group each hold at most `cap` distinct values.
                if let Some(rg) = rg {
                    let got: Values = reader
                        .with_batch_size(rg)
                        .read_all()
                        .unwrap_or_else(|e| panic!("{what}: batches: {e}"))
                        .iter()
                        .flat_map(|b| values_of(b.column(0).as_ref()))
                        .collect();
                    assert_eq!(got, want, "{what}: batches");
                }
            }
        }
    }
}

/// Files pyarrow 26 writes (it cannot read them back: "Integer value 128 not in range"):
/// dictionary off, row groups of 2 rows, a small dictionary page limit (fallback to PLAIN),
/// with nulls; Int8 and UInt8 keys; 2 distinct values, and as many as the key type indexes.
/// The `parquet` crate 60.1 reads the first as dictionaries, not the second ("dictionary key
/// overflow", "dictionary too large for index type"): its values read as Utf8 are expected.
#[test]
fn pyarrow_files_with_narrow_keys() {
    const SCRIPT: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
out, key, distinct = sys.argv[1], sys.argv[2], int(sys.argv[3])
vals = [None if i % 11 == 0 else "s%d" % ((i * 5) % distinct) for i in range(1000)]
arr = pa.array(vals, pa.string()).dictionary_encode().cast(pa.dictionary(getattr(pa, key)(), pa.string()))
t = pa.table({"d": arr})
pq.write_table(t, out + "/off.parquet", use_dictionary=False)
pq.write_table(t, out + "/rg2.parquet", row_group_size=2)
pq.write_table(t, out + "/fallback.parquet", dictionary_pagesize_limit=64, write_batch_size=8, data_page_size=64)
print("ok")
"#;
    let dir = tmp_dir("pyarrow");
    for (key, name) in [(DataType::Int8, "int8"), (DataType::UInt8, "uint8")] {
        for distinct in [2, capacity(&key)] {
            let d = dir.join(format!("{name}-{distinct}"));
            std::fs::create_dir_all(&d).unwrap();
            let out = run_python(
                SCRIPT,
                &[
                    d.display().to_string(),
                    name.to_string(),
                    distinct.to_string(),
                ],
            );
            assert_eq!(out.trim(), "ok");
            let want: Values = (0..1000)
                .map(|i| (i % 11 != 0).then(|| format!("s{}", (i * 5) % distinct).into_bytes()))
                .collect();
            for file in ["off", "rg2", "fallback"] {
                let what = format!("pyarrow {name} {distinct} distinct {file}");
                let bytes = Bytes::from(std::fs::read(d.join(format!("{file}.parquet"))).unwrap());
                let peer = if distinct == 2 {
                    peer_read(&bytes, None)
                } else {
                    peer_read(&bytes, Some(&DataType::Utf8))
                };
                assert_eq!(peer.unwrap(), want, "{what}: parquet 60.1");
                check_parq(&what, &bytes, &key, &DataType::Utf8, &want);
            }
        }
    }
}

/// `DictionaryColumns::Encoded` over a file whose first row group's `s` is dictionary-encoded
/// and whose second's is not (two 60.1 files merged by copying their row groups): the column
/// is not dictionary-encoded in every row group, so it is read as `Utf8`, by one thread and
/// by row groups decoded side by side alike, with 60.1's values.
#[test]
fn encoded_dictionaries_decide_one_type_for_every_row_group() {
    let dir = tmp_dir("encoded_dictionaries");
    let rows = cycling_rows(3_000, 40, 9);
    let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from(rows.clone())) as ArrayRef],
    )
    .expect("batch");
    let mut parts = Vec::new();
    let mut want = Values::new();
    for (i, dictionary) in [true, false].into_iter().enumerate() {
        let props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .build();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).expect("writer");
        w.write(&batch).expect("write");
        w.close().expect("close");
        let bytes = Bytes::from(out);
        want.extend(peer_values(&bytes));
        let path = dir.join(format!("part{i}.parquet"));
        std::fs::write(&path, &bytes).expect("write part");
        parts.push(path);
    }
    let merged = dir.join("merged.parquet");
    parq::edit::merge(&parts, &merged, parq::WriterProperties::default()).expect("merge");
    for threads in [1, 2] {
        let reader = ParquetReader::open(&merged)
            .expect("open")
            .with_dictionary(parq::read::DictionaryColumns::Encoded)
            .with_threads(threads)
            .with_batch_size(1_000);
        let schema = reader.schema().expect("schema");
        assert_eq!(
            schema.field(0).data_type(),
            &DataType::Utf8,
            "{threads} threads"
        );
        let batches = reader.read_all().expect("read");
        let got: Values = batches
            .iter()
            .inspect(|b| assert_eq!(b.schema(), schema, "{threads} threads"))
            .flat_map(|b| values_of(b.column(0).as_ref()))
            .collect();
        assert_eq!(got, want, "{threads} threads");
    }
}
