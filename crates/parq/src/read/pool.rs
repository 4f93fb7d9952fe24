//! Byte buffers kept from one read to the next ([`take`], [`give`], [`lease`]): the file
//! ranges a [`super::FileSource`] reads and the pages a leaf decompresses land in memory
//! that is already mapped and written, not in fresh allocations that the kernel faults in
//! page by page and that the codecs zero before writing. A query engine's many small reads
//! (a point lookup touches a few pages of each column) are where this counts.
//!
//! The pool is shared by every thread of the process and bounded: at most [`POOL_BYTES`] in
//! at most [`MAX_BUFFERS`] buffers of at most [`MAX_POOLED`] bytes each; a buffer given back
//! beyond that is freed. A buffer's length is the part of it that is initialized: whoever
//! takes it may use that much without writing it first.

use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use bytes::Bytes;

/// Bytes the pool holds at most.
pub(crate) const POOL_BYTES: usize = 64 << 20;
/// The largest buffer kept (the decoder's merged reads stop at 8 MiB).
pub(crate) const MAX_POOLED: usize = 16 << 20;
/// Buffers kept at most.
const MAX_BUFFERS: usize = 64;
/// A buffer this small serves any smaller read.
const SMALL: usize = 64 << 10;

struct Pool {
    buffers: Vec<Vec<u8>>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    buffers: Vec::new(),
    bytes: 0,
});

fn lock() -> MutexGuard<'static, Pool> {
    // The pool's state stays consistent through a panic elsewhere (nothing panics while it
    // is held), so a poisoned lock is used as it is.
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

impl Pool {
    /// The smallest buffer holding `sizes.start` bytes or more and less than `sizes.end`.
    fn take(&mut self, sizes: Range<usize>) -> Option<Vec<u8>> {
        let fits = self
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| sizes.contains(&b.capacity()))
            .min_by_key(|(_, b)| b.capacity());
        let i = fits?.0;
        let buffer = self.buffers.swap_remove(i);
        self.bytes -= buffer.capacity();
        Some(buffer)
    }

    /// Keeps `buffer` unless it is too large or the pool is full.
    fn give(&mut self, buffer: Vec<u8>) {
        let cap = buffer.capacity();
        let room = self.buffers.len() < MAX_BUFFERS && self.bytes + cap <= POOL_BYTES;
        if cap > 0 && cap <= MAX_POOLED && room {
            self.bytes += cap;
            self.buffers.push(buffer);
        }
    }
}

/// A buffer from the pool of at least `n` bytes and, so that a small read does not hold on
/// to a large buffer, at most 4 times that (or [`SMALL`] bytes).
pub(crate) fn take(n: usize) -> Option<Vec<u8>> {
    lock().take(n..n.saturating_mul(4).max(SMALL) + 1)
}

/// Gives `buffer` back for a later read (its length: the bytes initialized), or frees it
/// when it is too large or the pool is full.
pub(crate) fn give(buffer: Vec<u8>) {
    if buffer.capacity() > 0 && buffer.capacity() <= MAX_POOLED {
        lock().give(buffer);
    }
}

/// The first `len` bytes of `buffer` as [`Bytes`], the buffer given back to the pool when the
/// last slice of them is dropped.
pub(crate) fn lease(buffer: Vec<u8>, len: usize) -> Bytes {
    Bytes::from_owner(Lease { buffer, len })
}

struct Lease {
    buffer: Vec<u8>,
    len: usize,
}

impl AsRef<[u8]> for Lease {
    fn as_ref(&self) -> &[u8] {
        self.buffer.get(..self.len).unwrap_or_default()
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        give(std::mem::take(&mut self.buffer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_what_fits_and_gives_the_smallest_that_is_large_enough() {
        let mut pool = Pool {
            buffers: Vec::new(),
            bytes: 0,
        };
        assert!(pool.take(1..10).is_none());
        for cap in [100, 5000, 1000] {
            pool.give(Vec::with_capacity(cap));
        }
        pool.give(Vec::with_capacity(MAX_POOLED + 1));
        pool.give(Vec::new());
        assert_eq!(pool.buffers.len(), 3);
        let fit = pool.take(900..10_000).map(|b| b.capacity());
        assert!(fit.is_some_and(|c| (1000..5000).contains(&c)), "{fit:?}");
        assert!(pool.take(6000..10_000).is_none());
        assert!(pool.take(4000..4500).is_none());
        assert!(pool
            .take(4000..10_000)
            .is_some_and(|b| b.capacity() >= 5000));
        for _ in 0..MAX_BUFFERS + 5 {
            pool.give(Vec::with_capacity(MAX_POOLED));
        }
        assert!(pool.bytes <= POOL_BYTES && pool.buffers.len() <= MAX_BUFFERS);
        let held: usize = pool.buffers.iter().map(Vec::capacity).sum();
        assert_eq!(held, pool.bytes);
    }

    #[test]
    fn a_lease_reads_its_part_and_leaves_the_buffer_whole() {
        let mut b = vec![0u8; 1000];
        b[..4].copy_from_slice(b"abcd");
        let bytes = lease(b, 3);
        assert_eq!(&bytes[..], b"abc");
        let part = bytes.slice(1..3);
        drop(bytes);
        assert_eq!(&part[..], b"bc");
    }
}
