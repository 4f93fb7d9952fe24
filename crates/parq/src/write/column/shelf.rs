//! The page body buffers a file's columns hand on to each other between column chunks.
//!
//! A column that keeps its chunk's pages until the row group closes needs a buffer as large
//! as the chunk. Freed at the chunk's end and taken again for the next row group's chunk,
//! such a buffer costs the allocator's fresh pages (page faults) every row group; kept by
//! every column, 100,000 columns hold 100,000 idle buffers. The shelf sits between the two:
//! a finished chunk's buffer goes on it, and the next chunk to need one takes the best fit,
//! within a bound on what the shelf holds.

/// The largest buffer the shelf keeps.
const MAX_BUFFER: usize = 64 << 20;
/// The most bytes of capacity the shelf holds.
const MAX_BYTES: usize = 256 << 20;
/// The most buffers the shelf holds (a take looks at each).
const MAX_BUFFERS: usize = 256;

/// Emptied page body buffers, kept for the next chunks.
#[derive(Debug, Default)]
pub(super) struct BodyShelf {
    buffers: Vec<Vec<u8>>,
    /// The sum of the buffers' capacities.
    bytes: usize,
}

impl BodyShelf {
    /// Keeps `buf`, emptied, when it is not too large and the shelf has room; else frees it.
    pub(super) fn put(&mut self, mut buf: Vec<u8>) {
        let cap = buf.capacity();
        if cap == 0
            || cap > MAX_BUFFER
            || self.buffers.len() >= MAX_BUFFERS
            || self.bytes.saturating_add(cap) > MAX_BYTES
        {
            return;
        }
        buf.clear();
        self.bytes += cap;
        self.buffers.push(buf);
    }

    /// An empty buffer with room for at least `want` bytes: the smallest kept one that has
    /// it, else the largest kept one grown to it, else a new one.
    pub(super) fn take(&mut self, want: usize) -> Vec<u8> {
        let fits = self
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= want)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        let pick = fits.or_else(|| {
            self.buffers
                .iter()
                .enumerate()
                .max_by_key(|(_, b)| b.capacity())
                .map(|(i, _)| i)
        });
        let mut buf = match pick {
            Some(i) => {
                let b = self.buffers.swap_remove(i);
                self.bytes -= b.capacity();
                b
            }
            None => Vec::new(),
        };
        buf.reserve(want);
        buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_smallest_buffer_that_fits_and_bounds_what_it_keeps() {
        let mut shelf = BodyShelf::default();
        for cap in [100, 1_000, 10_000] {
            shelf.put(Vec::with_capacity(cap));
        }
        assert_eq!(shelf.bytes, 11_100);
        let b = shelf.take(500);
        assert!(b.is_empty() && (1_000..10_000).contains(&b.capacity()));
        assert_eq!(shelf.bytes, 10_100);
        // None fits: the largest, grown.
        let b = shelf.take(50_000);
        assert!(b.capacity() >= 50_000);
        assert_eq!((shelf.buffers.len(), shelf.bytes), (1, 100));
        // Too large to keep, and nothing kept past the count.
        shelf.put(Vec::with_capacity(MAX_BUFFER + 1));
        for _ in 0..MAX_BUFFERS + 10 {
            shelf.put(Vec::with_capacity(8));
        }
        assert_eq!(shelf.buffers.len(), MAX_BUFFERS);
        assert!(shelf.bytes < MAX_BUFFER);
        // Empty: a new buffer.
        let mut empty = BodyShelf::default();
        assert!(empty.take(10).capacity() >= 10);
    }
}
