//! [`AsyncParquetReader`]: the reader over an asynchronous range store ([`AsyncRangeRead`]:
//! an object store, an HTTP server, ...). The footer is read with the footer decoder's
//! ranges (the file's last 64 KiB first), the batches with a [`ParquetDecoder`]: every range
//! the decoder needs at one time is asked for in one [`AsyncRangeRead::read_ranges`] call,
//! so a store that fetches ranges concurrently does.
//!
//! ```no_run
//! # async fn run(source: impl parq::read::AsyncRangeRead + 'static) -> parq::Result<()> {
//! use parq::read::AsyncParquetReader;
//!
//! let reader = AsyncParquetReader::open(source).await?.with_columns(["id"]);
//! let mut batches = reader.batches()?;
//! while let Some(batch) = batches.next_batch().await {
//!     println!("{} rows", batch?.num_rows());
//! }
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;

use super::builder::{reader_settings, ParquetDecoderBuilder};
use super::decoder::{DecodeStep, ParquetDecoder};
use super::source::FOOTER_PREFETCH;
use crate::format::footer::{DecodeOptions, FooterDecoder};
use crate::{Error, ErrorKind, Result};

/// A file read by byte ranges, asynchronously.
pub trait AsyncRangeRead: Send + Sync {
    /// The file's length in bytes.
    fn file_len(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The bytes of each of `ranges` (within the file's length), in order.
    fn read_ranges(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> impl Future<Output = Result<Vec<Bytes>>> + Send;
}

/// Reads a Parquet file from an [`AsyncRangeRead`]: see the [module documentation](self).
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

#[cold]
fn short_read(range: &Range<u64>, got: usize) -> Error {
    Error::at(
        ErrorKind::Io(format!(
            "the source gave {got} bytes for the range {}..{}",
            range.start, range.end
        )),
        range.start,
    )
}

impl<S: AsyncRangeRead> AsyncParquetReader<S> {
    /// Reads and decodes the footer of `source`.
    pub async fn open(source: S) -> Result<Self> {
        let len = source.file_len().await?;
        let mut dec =
            FooterDecoder::new(len, DecodeOptions::default()).with_prefetch(FOOTER_PREFETCH);
        while let Some(range) = dec.next_range() {
            let bytes = read_one(&source, range.clone()).await?;
            dec.push(range.start, &bytes)?;
        }
        let meta = dec.take().ok_or_else(|| {
            Error::new(ErrorKind::Inconsistent(
                "footer decoder ended without metadata".into(),
            ))
        })?;
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

/// The batches of an [`AsyncParquetReader`] ([`AsyncParquetReader::batches`]).
#[derive(Debug)]
pub struct AsyncRecordBatches<S> {
    decoder: ParquetDecoder,
    source: Arc<S>,
    failed: bool,
}

impl<S: AsyncRangeRead> AsyncRecordBatches<S> {
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
        if self.failed {
            return None;
        }
        match self.step().await {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    async fn step(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            match self.decoder.poll()? {
                DecodeStep::Batch(b) => return Ok(Some(b)),
                DecodeStep::Finished => return Ok(None),
                DecodeStep::NeedData(ranges) => {
                    let got = self.source.read_ranges(ranges.clone()).await?;
                    if got.len() != ranges.len() {
                        return Err(Error::new(ErrorKind::Io(format!(
                            "the source gave {} ranges for {} asked",
                            got.len(),
                            ranges.len()
                        ))));
                    }
                    for (r, bytes) in ranges.iter().zip(got) {
                        if bytes.len() as u64 != r.end - r.start {
                            return Err(short_read(r, bytes.len()));
                        }
                        self.decoder.push(r.start, bytes);
                    }
                }
            }
        }
    }
}
