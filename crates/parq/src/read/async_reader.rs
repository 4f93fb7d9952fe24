//! [`AsyncParquetReader`]: the reader over an asynchronous range store.

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use futures_core::Stream;

use crate::format::footer::{DecodeOptions, FooterDecoder};
use crate::read::exec::builder::{reader_settings, ParquetDecoderBuilder};
use crate::read::exec::decoder::{DecodeStep, ParquetDecoder};
use crate::read::io::source::{short_read, AsyncRangeRead, FOOTER_PREFETCH};
use crate::{Error, ErrorKind, Result};

/// Reads a Parquet file from an [`AsyncRangeRead`].
///
/// [`AsyncParquetReader`]: the reader over an asynchronous range store ([`AsyncRangeRead`]:
/// an object store, an HTTP server, ...). The footer is read with the footer decoder's
/// ranges (the file's last 64 KiB first), the batches with a [`ParquetDecoder`]: every range
/// the decoder needs at one time is asked for in one [`AsyncRangeRead::read_ranges`] call,
/// so a store that fetches ranges concurrently does.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// # use parq::{ParquetWriter, WriterProperties};
/// # let path = std::env::temp_dir().join("parq-doc-async.parquet");
/// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
/// # let names = (0..100).map(|i| format!("n{i}"));
/// # let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
/// # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
/// # let props = WriterProperties::builder().max_row_group_rows(Some(40)).build().unwrap();
/// # let file = std::fs::File::create(&path).unwrap();
/// # let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
/// # w.write(&batch).unwrap();
/// # w.close().unwrap();
/// use std::ops::Range;
///
/// use bytes::Bytes;
/// use parq::read::{AsyncParquetReader, AsyncRangeRead};
///
/// /// A file held in memory, read as a remote store would be.
/// struct InMemory(Bytes);
///
/// impl AsyncRangeRead for InMemory {
///     async fn file_len(&self) -> parq::Result<u64> {
///         Ok(self.0.len() as u64)
///     }
///     async fn read_ranges(&self, ranges: Vec<Range<u64>>) -> parq::Result<Vec<Bytes>> {
///         Ok(ranges.into_iter().map(|r| self.0.slice(r.start as usize..r.end as usize)).collect())
///     }
/// }
///
/// // `path`: a file of 100 rows (`id`, `name`).
/// let source = InMemory(Bytes::from(std::fs::read(&path)?));
/// let runtime = tokio::runtime::Builder::new_current_thread().build()?;
/// let rows = runtime.block_on(async {
///     let reader = AsyncParquetReader::open(source).await?.with_columns(["id"]);
///     let mut batches = reader.batches()?;
///     let mut rows = 0;
///     while let Some(batch) = batches.next_batch().await {
///         rows += batch?.num_rows();
///     }
///     Ok::<_, parq::Error>(rows)
/// })?;
/// assert_eq!(rows, 100);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncParquetReader<S> {
    source: Arc<S>,
    builder: ParquetDecoderBuilder,
}

impl<S> Clone for AsyncParquetReader<S> {
    fn clone(&self) -> Self {
        AsyncParquetReader {
            source: Arc::clone(&self.source),
            builder: self.builder.clone(),
        }
    }
}

/// The bytes of `range`, in one call.
async fn read_one<S: AsyncRangeRead>(source: &S, range: Range<u64>) -> Result<Bytes> {
    let want = range.end - range.start;
    let mut got = source.read_ranges(vec![range.clone()]).await?;
    match got.pop() {
        Some(b) if got.is_empty() && b.len() as u64 == want => Ok(b),
        other => Err(short_read(&range, other.map_or(0, |b| b.len()))),
    }
}

impl<S: AsyncRangeRead + 'static> AsyncParquetReader<S> {
    /// Reads and decodes the footer of `source`.
    pub async fn open(source: S) -> Result<Self> {
        Self::open_with(source, DecodeOptions::default()).await
    }

    /// Reads and decodes the footer of `source` with `opts` (the keys of an encrypted file,
    /// limits, ...).
    pub async fn open_with(source: S, opts: DecodeOptions) -> Result<Self> {
        let len = source.file_len().await?;
        let mut dec = FooterDecoder::new(len, opts).with_prefetch(FOOTER_PREFETCH);
        while let Some(range) = dec.next_range() {
            let bytes = read_one(&source, range.clone()).await?;
            dec.push(range.start, &bytes)?;
        }
        let meta = dec.finish()?;
        Ok(AsyncParquetReader {
            source: Arc::new(source),
            builder: ParquetDecoderBuilder::new(Arc::new(meta), len),
        })
    }

    reader_settings!();

    /// The batches of the chosen row groups and columns.
    pub fn batches(&self) -> Result<AsyncRecordBatches<S>> {
        Ok(AsyncRecordBatches {
            decoder: self.builder.build()?,
            source: Arc::clone(&self.source),
            reading: None,
            failed: false,
        })
    }

    /// Every batch, in a vector.
    pub async fn read_all(&self) -> Result<Vec<RecordBatch>> {
        let mut batches = self.batches()?;
        let mut out = Vec::new();
        while let Some(b) = batches.next_batch().await {
            out.push(b?);
        }
        Ok(out)
    }
}

/// The ranges a decoder asked for, being read: the ranges and, once read, their bytes.
type Reading = Pin<Box<dyn Future<Output = Result<(Vec<Range<u64>>, Vec<Bytes>)>> + Send>>;

/// The batches of an [`AsyncParquetReader`] ([`AsyncParquetReader::batches`]): a
/// [`Stream`] of batches, or one batch at a time from [`AsyncRecordBatches::next_batch`].
pub struct AsyncRecordBatches<S> {
    decoder: ParquetDecoder,
    source: Arc<S>,
    /// The read of the ranges the decoder waits for, when one is under way.
    reading: Option<Reading>,
    failed: bool,
}

impl<S> std::fmt::Debug for AsyncRecordBatches<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncRecordBatches")
            .field("decoder", &self.decoder)
            .field("reading", &self.reading.is_some())
            .field("failed", &self.failed)
            .finish()
    }
}

impl<S: AsyncRangeRead + 'static> AsyncRecordBatches<S> {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.decoder.schema()
    }

    /// The bytes read from the source so far.
    pub fn bytes_read(&self) -> u64 {
        self.decoder.bytes_pushed()
    }

    /// The next batch; `None` after the last (and after an error).
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        std::future::poll_fn(|cx| self.poll_batch(cx)).await
    }

    fn poll_batch(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<RecordBatch>>> {
        if self.failed {
            return Poll::Ready(None);
        }
        match self.step(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(Some(b))) => Poll::Ready(Some(Ok(b))),
            Poll::Ready(Ok(None)) => Poll::Ready(None),
            Poll::Ready(Err(e)) => {
                self.failed = true;
                Poll::Ready(Some(Err(e)))
            }
        }
    }

    /// Pushes the bytes of the read under way once it is done, then polls the decoder until it
    /// gives a batch, ends, or needs ranges (a read then starts).
    fn step(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<RecordBatch>>> {
        loop {
            if let Some(reading) = self.reading.as_mut() {
                let (ranges, got) = match reading.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(done) => {
                        self.reading = None;
                        done?
                    }
                };
                if got.len() != ranges.len() {
                    return Poll::Ready(Err(Error::new(ErrorKind::Io(format!(
                        "the source gave {} ranges for {} asked",
                        got.len(),
                        ranges.len()
                    )))));
                }
                for (r, bytes) in ranges.iter().zip(got) {
                    if bytes.len() as u64 != r.end - r.start {
                        return Poll::Ready(Err(short_read(r, bytes.len())));
                    }
                    self.decoder.push(r.start, bytes);
                }
            }
            match self.decoder.poll()? {
                DecodeStep::Batch(b) => return Poll::Ready(Ok(Some(b))),
                DecodeStep::Finished => return Poll::Ready(Ok(None)),
                DecodeStep::NeedData(ranges) => {
                    let source = Arc::clone(&self.source);
                    self.reading = Some(Box::pin(async move {
                        let got = source.read_ranges(ranges.clone()).await?;
                        Ok((ranges, got))
                    }));
                }
            }
        }
    }
}

impl<S: AsyncRangeRead + 'static> Stream for AsyncRecordBatches<S> {
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_batch(cx)
    }
}
