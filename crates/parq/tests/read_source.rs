//! Reading by byte ranges: the sync reader over a file (positional reads, and a memory
//! mapping) and over a source
//! that records what it is asked for, and the push decoder driven by hand, all against the
//! reading of the whole file held in memory, on every Parquet file of the shared corpus.
//!
//! - With tiny fetches (a page header split over several reads, every page asked for
//!   separately) and with the defaults, every file reads to the same batches, or fails with
//!   the same error, as from bytes in memory.
//! - Only the chosen columns' chunks are read: a source that records its ranges sees nothing
//!   outside them (and the footer).
//! - A source that gives short reads or fails is an error, not a hang or a panic.

mod common;
use common::testdata;

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use bytes::Bytes;
use parq::format::footer::{decode_file_metadata, DecodeOptions};
use parq::page::chunk_range;
use parq::read::{
    DecodeStep, FileSource, MappedFile, ParquetDecoderBuilder, ParquetReader, RangeRead,
    ReadOptions,
};

/// Every `.parquet` file under the corpus directories (sorted).
fn corpus() -> Vec<PathBuf> {
    let root = testdata();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(
        out.len() > 700,
        "corpus at {} has {} files",
        root.display(),
        out.len()
    );
    out
}

/// The batches of `reader` (or the error's text), a panic turned into an error.
fn read(reader: impl FnOnce() -> parq::Result<ParquetReader>) -> Result<Vec<RecordBatch>, String> {
    let run = || reader()?.with_batch_size(1000).read_all();
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err("PANIC".to_string()),
    }
}

/// A source that records the ranges it is asked for.
#[derive(Debug)]
struct Recording {
    data: Bytes,
    asked: Mutex<Vec<Range<u64>>>,
}

impl RangeRead for Recording {
    fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_range(&self, range: Range<u64>) -> parq::Result<Bytes> {
        self.asked.lock().unwrap().push(range.clone());
        self.data.read_range(range)
    }
}

fn options(fetch: u64, coalesce: u64) -> ReadOptions {
    ReadOptions {
        fetch_bytes: fetch,
        coalesce_bytes: coalesce,
        ..ReadOptions::default()
    }
}

#[test]
fn every_corpus_file_reads_the_same_by_ranges_as_from_memory() {
    let mut compared = 0;
    let mut errors = 0;
    for path in corpus() {
        let data = Bytes::from(std::fs::read(&path).unwrap());
        let whole = read(|| ParquetReader::from_bytes(data.clone()));
        let name = path.display();
        // Positional reads of the file, the default fetch.
        let file = read(|| ParquetReader::open(&path));
        assert_eq!(file, whole, "{name}: file source");
        // The file's memory mapping, on two threads: slices of the mapping decoded in place.
        let mapped = read(|| {
            // SAFETY: the corpus files are not changed while the tests run.
            let src = Arc::new(unsafe { MappedFile::open(&path)? });
            Ok(ParquetReader::from_source(src)?.with_threads(2))
        });
        assert_eq!(mapped, whole, "{name}: memory mapping");
        // Columns decoded on three threads: the same batches, the same first error.
        let threads = read(|| Ok(ParquetReader::open(&path)?.with_threads(3)));
        assert_eq!(threads, whole, "{name}: 3 threads");
        // Tiny fetches: headers split over reads, one page per read at most.
        for (fetch, coalesce) in [(7, 0), (300, 64)] {
            let tiny = read(|| {
                let src = Arc::new(FileSource::open(&path)?);
                Ok(ParquetReader::from_source(src)?.with_options(options(fetch, coalesce)))
            });
            assert_eq!(tiny, whole, "{name}: fetch {fetch}");
        }
        match whole {
            Ok(_) => compared += 1,
            Err(e) => {
                assert_ne!(e, "PANIC", "{name}");
                errors += 1;
            }
        }
    }
    assert!(
        compared > 600 && errors > 20,
        "{compared} read, {errors} refused"
    );
}

/// The corpus files with several columns, for the column choice test.
fn some_multi_column_files() -> Vec<PathBuf> {
    let data = testdata().join("parquet-testing/data");
    [
        "alltypes_plain.parquet",
        "alltypes_tiny_pages.parquet",
        "nested_structs.rust.parquet",
        "nested_lists.snappy.parquet",
        "data_index_bloom_encoding_stats.parquet",
        "datapage_v2.snappy.parquet",
    ]
    .iter()
    .map(|f| data.join(f))
    .filter(|p| p.exists())
    .collect()
}

#[test]
fn only_the_chosen_columns_chunks_are_read() {
    let files = some_multi_column_files();
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let data = Bytes::from(std::fs::read(&path).unwrap());
        let meta = decode_file_metadata(&data, &DecodeOptions::default()).unwrap();
        let leaves = meta.schema().leaves().len();
        let fields = parq::schema::arrow_schema(&meta, &Default::default())
            .unwrap()
            .fields
            .len();
        for top in 0..fields {
            let src = Arc::new(Recording {
                data: data.clone(),
                asked: Mutex::new(Vec::new()),
            });
            // Fetches of a few pages, so that pages cross the ends of fetched ranges.
            let reader = ParquetReader::from_source(src.clone())
                .unwrap()
                .with_options(options(1000, 0))
                .with_columns([top]);
            let footer_asks = src.asked.lock().unwrap().len();
            let batches = reader.read_all().unwrap();
            let expected = ParquetReader::from_bytes(data.clone())
                .unwrap()
                .with_columns([top])
                .read_all()
                .unwrap();
            assert_eq!(batches, expected, "{}", path.display());
            // The leaves of this field and their chunks.
            let chosen: Vec<usize> = (0..leaves)
                .filter(|&l| {
                    let p = meta.schema().leaf_path_string(l);
                    let name = reader.schema().unwrap().field(0).name().clone();
                    p == name || p.starts_with(&format!("{name}."))
                })
                .collect();
            let allowed: Vec<Range<u64>> = meta
                .row_groups()
                .iter()
                .flat_map(|g| {
                    chosen
                        .iter()
                        .map(move |&l| chunk_range(&g.columns()[l]).unwrap())
                })
                .collect();
            let mut asked = src.asked.lock().unwrap()[footer_asks..].to_vec();
            for r in &asked {
                assert!(
                    allowed.iter().any(|a| a.start <= r.start && r.end <= a.end),
                    "{}: field {top} read {r:?} outside its chunks {allowed:?}",
                    path.display()
                );
            }
            // No byte is read twice (a page across two fetches is joined, not read again).
            asked.sort_by_key(|r| r.start);
            for w in asked.windows(2) {
                assert!(
                    w[0].end <= w[1].start,
                    "{}: field {top} read {:?} and {:?}",
                    path.display(),
                    w[0],
                    w[1]
                );
            }
        }
    }
}

#[test]
fn the_push_decoder_driven_by_hand_gives_the_readers_batches() {
    let path = testdata().join("parquet-testing/data/alltypes_tiny_pages.parquet");
    let data = Bytes::from(std::fs::read(&path).unwrap());
    let meta = Arc::new(decode_file_metadata(&data, &DecodeOptions::default()).unwrap());
    let mut decoder = ParquetDecoderBuilder::new(meta, data.len() as u64)
        .with_options(options(100, 0))
        .with_batch_size(777)
        .with_columns(["id", "string_col", "timestamp_col"])
        .build()
        .unwrap();
    let mut batches = Vec::new();
    let mut rounds = 0;
    loop {
        match decoder.poll().unwrap() {
            DecodeStep::NeedData(ranges) => {
                rounds += 1;
                // Give each range in two parts, the second covering the first: only the
                // covering one satisfies the leaf.
                for r in ranges {
                    let mid = r.start + (r.end - r.start) / 2;
                    decoder.push(r.start, data.slice(r.start as usize..mid as usize));
                    decoder.push(0, data.slice(0..r.end as usize));
                }
            }
            DecodeStep::Batch(b) => batches.push(b),
            DecodeStep::Finished => break,
        }
    }
    let expected = ParquetReader::from_bytes(data)
        .unwrap()
        .with_batch_size(777)
        .with_columns(["id", "string_col", "timestamp_col"])
        .read_all()
        .unwrap();
    assert_eq!(batches, expected);
    assert!(rounds > 20, "{rounds}");
}

/// A source whose reads come back short, or fail.
#[derive(Debug)]
struct Faulty {
    data: Bytes,
    short: bool,
}

impl RangeRead for Faulty {
    fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_range(&self, range: Range<u64>) -> parq::Result<Bytes> {
        // The footer reads (the file's end) work; the data reads do not.
        if range.end < self.data.len() as u64 - 8 {
            if self.short {
                return Ok(self
                    .data
                    .slice(range.start as usize..range.end as usize - 1));
            }
            return Err(parq::Error::new(parq::ErrorKind::Io("disk on fire".into())));
        }
        self.data.read_range(range)
    }
}

#[test]
fn short_or_failing_reads_are_errors() {
    let path = testdata().join("parquet-testing/data/alltypes_plain.parquet");
    let data = Bytes::from(std::fs::read(path).unwrap());
    for short in [true, false] {
        let src = Arc::new(Faulty {
            data: data.clone(),
            short,
        });
        let mut batches = ParquetReader::from_source(src).unwrap().batches().unwrap();
        let e = batches.next().unwrap().unwrap_err().to_string();
        let want = if short {
            "the source gave"
        } else {
            "disk on fire"
        };
        assert!(e.contains(want), "{e}");
        assert!(batches.next().is_none());
    }
}

#[test]
fn a_chunk_outside_the_file_is_an_error_before_any_read() {
    // The footer of a file, its data cut away: the chunks point past the file's start.
    let path = testdata().join("parquet-testing/data/alltypes_plain.parquet");
    let data = std::fs::read(path).unwrap();
    let meta = decode_file_metadata(&data, &DecodeOptions::default()).unwrap();
    let mut decoder = ParquetDecoderBuilder::new(Arc::new(meta), 100)
        .build()
        .unwrap();
    let e = decoder.poll().unwrap_err().to_string();
    assert!(e.contains("lies outside the file of 100 bytes"), "{e}");
    assert!(matches!(decoder.poll().unwrap(), DecodeStep::Finished));
}

/// Row groups of uneven sizes (`sizes`) of an int64 `id` (the row number) and a nullable
/// string, written by parq with a row group ended after each size.
fn uneven_row_groups(sizes: &[usize]) -> Bytes {
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parq::write::{ParquetWriter, WriterProperties};
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let mut out = Vec::new();
    let mut w =
        ParquetWriter::try_new(&mut out, schema.clone(), WriterProperties::default()).unwrap();
    let mut start = 0i64;
    for &n in sizes {
        let ids: Vec<i64> = (start..start + n as i64).collect();
        let s: StringArray = ids
            .iter()
            .map(|i| (i % 7 != 0).then(|| format!("v{}", i % 13)))
            .collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(ids)), Arc::new(s)],
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.flush().unwrap();
        start += n as i64;
    }
    w.close().unwrap();
    Bytes::from(out)
}

#[test]
fn row_groups_read_side_by_side_give_the_batches_of_one_thread() {
    let data = uneven_row_groups(&[1000, 1000, 250, 3001, 7, 1000, 999, 1]);
    for batch_size in [1, 7, 300, 1000, 1024, 2500, 10_000] {
        let read = |threads: usize| {
            ParquetReader::from_bytes(data.clone())
                .unwrap()
                .with_batch_size(batch_size)
                .with_threads(threads)
                .read_all()
                .unwrap()
        };
        let one = read(1);
        let sizes: Vec<usize> = one.iter().map(RecordBatch::num_rows).collect();
        let total: usize = sizes.iter().sum();
        assert_eq!(total, 7258);
        // Every batch but the last is full, across row group ends.
        assert!(
            sizes[..sizes.len() - 1].iter().all(|&n| n == batch_size),
            "{batch_size}: {sizes:?}"
        );
        for threads in [2, 3, 8] {
            assert_eq!(
                read(threads),
                one,
                "batch size {batch_size}, {threads} threads"
            );
        }
    }
}

#[test]
fn the_batches_as_an_arrow_record_batch_reader() {
    use arrow_array::RecordBatchReader;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    // A file of three row groups, read by the `parquet` crate as the expected values.
    let data = uneven_row_groups(&[700, 1, 1300]);
    let expected: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(data.clone())
        .unwrap()
        .with_batch_size(500)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let reader = ParquetReader::from_bytes(data)
        .unwrap()
        .with_batch_size(500)
        .batches()
        .unwrap()
        .into_reader();
    assert_eq!(reader.schema().fields(), expected[0].schema().fields());
    let got: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let concat =
        |b: &[RecordBatch]| arrow_select::concat::concat_batches(&b[0].schema(), b).unwrap();
    assert_eq!(concat(&got), concat(&expected));
    // An error of the read comes out as arrow's external error holding parq's.
    let path = testdata().join("parquet-testing/data/alltypes_plain.parquet");
    let src = Arc::new(Faulty {
        data: Bytes::from(std::fs::read(path).unwrap()),
        short: false,
    });
    let mut reader = ParquetReader::from_source(src)
        .unwrap()
        .batches()
        .unwrap()
        .into_reader();
    match reader.next() {
        Some(Err(arrow_schema::ArrowError::ExternalError(e))) => {
            let parq = e
                .downcast_ref::<parq::Error>()
                .expect("a parq::Error inside");
            assert!(parq.to_string().contains("disk on fire"), "{parq}");
        }
        other => panic!("expected an external error, got {other:?}"),
    }
    assert!(reader.next().is_none());
}

/// A mapped file cut short after it was opened: a range past its new end is an error naming
/// the range, not a `SIGBUS` (Linux: the range's pages are mapped in before they are read).
#[cfg(target_os = "linux")]
#[test]
fn a_mapped_file_truncated_under_the_reader_is_an_error() {
    let dir = std::env::temp_dir().join(format!("parq-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cut.parquet");
    let data =
        std::fs::read(testdata().join("parquet-testing/data/alltypes_plain.parquet")).unwrap();
    std::fs::write(&path, &data).unwrap();
    // SAFETY: the file is cut short below on purpose; only ranges asked for after the cut
    // are read, and those are refused before any byte of them is touched.
    let src = unsafe { MappedFile::open(&path) }.unwrap();
    let len = src.file_len();
    assert_eq!(src.read_range(0..len).unwrap(), Bytes::from(data.clone()));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let e = src.read_range(0..len).unwrap_err().to_string();
    assert!(
        e.contains("cannot be read") && e.contains("0..") && e.contains("cut.parquet"),
        "{e}"
    );
    // The reader over it: its footer read fails the same way.
    let e = ParquetReader::from_source(Arc::new(src))
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated while mapped"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
