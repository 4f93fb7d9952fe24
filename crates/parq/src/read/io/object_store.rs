//! [`ObjectStoreSource`]: an [`AsyncRangeRead`] over an `object_store` store (S3, GCS, Azure,
//! HTTP, the local file system, memory), for [`crate::read::AsyncParquetReader`]. The ranges a read
//! needs at one time go to the store's `get_ranges` together, which fetches them
//! concurrently (and coalesces its own way).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore};

use crate::read::io::source::AsyncRangeRead;
use crate::{Error, ErrorKind, Result};

/// One object of an object store, read by byte ranges.
#[derive(Debug, Clone)]
pub struct ObjectStoreSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    len: Option<u64>,
}

impl ObjectStoreSource {
    /// The object at `path` in `store`; its length is asked for (a HEAD request) when the
    /// reader opens it.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Self {
        ObjectStoreSource {
            store,
            path,
            len: None,
        }
    }

    /// Uses `len` as the object's length (from a listing, say), saving the HEAD request.
    pub fn with_len(mut self, len: u64) -> Self {
        self.len = Some(len);
        self
    }

    fn error(&self, e: object_store::Error) -> Error {
        Error::new(ErrorKind::Io(format!("{}: {e}", self.path)))
    }
}

impl AsyncRangeRead for ObjectStoreSource {
    async fn file_len(&self) -> Result<u64> {
        if let Some(len) = self.len {
            return Ok(len);
        }
        let head = GetOptions::new().with_head(true);
        let got = self.store.get_opts(&self.path, head).await;
        got.map(|r| r.meta.size).map_err(|e| self.error(e))
    }

    async fn read_ranges(&self, ranges: Vec<Range<u64>>) -> Result<Vec<Bytes>> {
        let got = self.store.get_ranges(&self.path, &ranges).await;
        got.map_err(|e| self.error(e))
    }
}
