//! The crate root's surface as a Rust user meets it: a file written with [`ParquetWriter`],
//! its batches taken as arrow's `Box<dyn RecordBatchReader>` and, from the async reader, as a
//! `futures::Stream`, with nothing but the root's names and the traits of arrow and futures.

use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchReader, StringArray};
use bytes::Bytes;
use futures_core::Stream;
use parq::read::AsyncRangeRead;
use parq::{
    col, AsyncParquetReader, AsyncRecordBatches, ParquetReader, ParquetWriter, RecordBatches,
    WriterProperties,
};

/// 1,000 rows (`id` 0..1000, `name` "n{id}") and the file parq writes of them, in row groups
/// of 300 rows.
fn file() -> (RecordBatch, Bytes) {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1000));
    let names = (0..1000).map(|i| format!("n{i}"));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
    let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(300))
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut writer = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    (batch, Bytes::from(out))
}

/// The rows of `batches`, as one batch.
fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

/// What an API taking arrow's reader does with one: its schema, then its batches.
fn drain(reader: Box<dyn RecordBatchReader + Send>) -> (arrow_schema::SchemaRef, Vec<RecordBatch>) {
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().unwrap();
    (schema, batches)
}

#[test]
fn record_batches_are_an_arrow_record_batch_reader() {
    let (written, data) = file();
    let batches: RecordBatches = ParquetReader::from_bytes(data.clone())
        .unwrap()
        .with_batch_size(256)
        .batches()
        .unwrap();
    let (schema, got) = drain(batches.into());
    assert_eq!(schema, written.schema());
    assert_eq!(concat(&got), written);

    // Filtered: the rows with `id` below 100, the first 100 rows written.
    let reader = ParquetReader::from_bytes(data)
        .unwrap()
        .with_filter(col("id").lt(100i64));
    let (_, got) = drain(reader.batches().unwrap().into());
    assert_eq!(concat(&got), written.slice(0, 100));
}

/// A file held in memory, read as a remote store would be.
struct InMemory(Bytes);

impl AsyncRangeRead for InMemory {
    async fn file_len(&self) -> parq::Result<u64> {
        Ok(self.0.len() as u64)
    }

    async fn read_ranges(&self, ranges: Vec<Range<u64>>) -> parq::Result<Vec<Bytes>> {
        Ok(ranges
            .into_iter()
            .map(|r| self.0.slice(r.start as usize..r.end as usize))
            .collect())
    }
}

/// Every item of `stream`, polled through `Stream::poll_next` alone.
async fn collect<S: Stream + Unpin>(mut stream: S) -> Vec<S::Item> {
    let mut items = Vec::new();
    while let Some(item) = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
        items.push(item);
    }
    items
}

#[test]
fn async_record_batches_are_a_stream() {
    let (written, data) = file();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let got = runtime.block_on(async {
        let reader = AsyncParquetReader::open(InMemory(data)).await.unwrap();
        let batches: AsyncRecordBatches<InMemory> = reader.batches().unwrap();
        collect(batches).await
    });
    let got = got.into_iter().collect::<parq::Result<Vec<_>>>().unwrap();
    assert_eq!(concat(&got), written);
}
