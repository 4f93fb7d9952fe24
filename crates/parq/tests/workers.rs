//! The worker pool of the process (`parq::workers`), in a test process of its own so that its
//! size can be set: a pool of one thread still serves several reads with threads consumed in
//! turn by one thread (a job never waits for its reader), and their rows are those of reads
//! without threads; the size cannot change once the pool runs.

use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterProperties};

/// A file of `groups` row groups of `rows` rows (an id and a string).
fn file(groups: usize, rows: usize) -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, schema.clone(), WriterProperties::default())
        .expect("writer");
    for g in 0..groups {
        let ids: Vec<i64> = (0..rows).map(|i| (g * rows + i) as i64).collect();
        let s: StringArray = ids
            .iter()
            .map(|i| (i % 5 != 0).then(|| format!("value {}", i % 17)))
            .collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(ids)), Arc::new(s)],
        )
        .expect("batch");
        w.write(&batch).expect("write");
        w.flush().expect("flush");
    }
    w.close().expect("close");
    Bytes::from(out)
}

#[test]
fn a_pool_of_one_thread_serves_reads_consumed_in_turn() {
    parq::workers::set_threads(1).expect("before the pool starts");
    let (done, finished) = channel();
    std::thread::spawn(move || {
        let a = file(6, 3000);
        let b = file(5, 2000);
        let serial = |data: &Bytes| {
            ParquetReader::from_bytes(data.clone())
                .and_then(|r| r.with_batch_size(700).read_all())
                .expect("serial read")
        };
        let (want_a, want_b) = (serial(&a), serial(&b));
        let threaded = |data: &Bytes| {
            ParquetReader::from_bytes(data.clone())
                .expect("open")
                .with_batch_size(700)
                .with_threads(4)
                .batches()
                .expect("batches")
        };
        // Both reads under way at once, taken a batch of each in turn.
        let (mut ra, mut rb) = (threaded(&a), threaded(&b));
        let (mut got_a, mut got_b) = (Vec::new(), Vec::new());
        loop {
            let x = ra.next().map(|r| r.expect("read a"));
            let y = rb.next().map(|r| r.expect("read b"));
            if x.is_none() && y.is_none() {
                break;
            }
            got_a.extend(x);
            got_b.extend(y);
        }
        let _ = done.send((got_a == want_a, got_b == want_b));
    });
    let (same_a, same_b) = finished
        .recv_timeout(Duration::from_secs(120))
        .expect("the reads ended (no job waited for a reader the pool could not run)");
    assert!(
        same_a && same_b,
        "the batches of a threaded read differ from one thread's"
    );
    assert_eq!(parq::workers::threads(), 1);
    let e = parq::workers::set_threads(3).expect_err("the pool already runs");
    assert!(e.to_string().contains("already runs 1 threads"), "{e}");
}
