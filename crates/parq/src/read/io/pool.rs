//! Byte buffers kept from one read to the next ([`take`], [`give`], [`lease`]): the file
//! ranges a [`super::FileSource`] reads and the pages a leaf decompresses land in memory
//! that is already mapped and written, not in fresh allocations that the kernel faults in
//! page by page and that the codecs zero before writing. A query engine's many small reads
//! (a point lookup touches a few pages of each column) are where this counts.
//!
//! The arrays a read hands out recycle their buffers the same way: the buffers of the
//! common value types ([`Recycled`]) go back to a shelf of their type when the arrays are
//! dropped ([`buffer`]) and make the next batches' arrays ([`take_vec`]), so a reader whose
//! batches are dropped as it goes writes into memory already mapped (the system allocator
//! hands large freed blocks back to the kernel, which faults them in again page by page).
//!
//! Read buffers are kept first by the thread that gives them back, on a shelf of its own
//! whose lock no other thread takes (but [`release_buffers`]): a worker decoding row group
//! after row group takes back the ranges and pages it let go without meeting the others. What
//! a thread's shelf has no room for, and what it does not have, go to and come from the
//! process's shelf. The output shelves are the process's: arrays are dropped by whoever
//! consumes them, and their buffers made into the next batches by the workers.
//!
//! Every shelf is bounded: at most [`POOL_BYTES`] of read buffers on the process's shelf and
//! [`THREAD_BYTES`] on each thread's, and [`OUTPUT_BYTES`] per output type, each shelf at
//! most [`MAX_BUFFERS`] buffers of at most [`MAX_POOLED`] bytes; a buffer given back to a full
//! shelf frees its oldest ones (a thread's moves them to the process's), and
//! [`release_buffers`] frees them all. A read buffer's length is the part of it that is
//! initialized: whoever takes it may use that much without writing it first.

use std::ops::Range;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use arrow_buffer::alloc::Allocation;
use arrow_buffer::{ArrowNativeType, Buffer};
use bytes::Bytes;

use crate::encoding::plain::Int96;

/// Bytes the read buffers kept take at most.
pub(crate) const POOL_BYTES: usize = 64 << 20;
/// Bytes the read buffers kept by one thread take at most (on top of [`POOL_BYTES`]).
pub(crate) const THREAD_BYTES: usize = 32 << 20;
/// Bytes the output buffers of each type kept take at most.
pub(crate) const OUTPUT_BYTES: usize = 64 << 20;
/// The largest buffer kept: a whole column of a few million values read as one array (the
/// decoder's merged reads stop at 8 MiB).
pub(crate) const MAX_POOLED: usize = 64 << 20;
/// Buffers a shelf keeps at most.
const MAX_BUFFERS: usize = 64;
/// A buffer this small serves any smaller read.
const SMALL: usize = 64 << 10;

/// Buffers of `T` kept for reuse, at most `limit` bytes of them; the oldest make room for
/// the newest (the next reads are most likely to need what the last ones did).
pub(crate) struct Shelf<T> {
    /// Oldest first.
    buffers: Vec<Vec<T>>,
    bytes: usize,
    limit: usize,
}

impl<T> Shelf<T> {
    const fn new(limit: usize) -> Self {
        Shelf {
            buffers: Vec::new(),
            bytes: 0,
            limit,
        }
    }

    /// The smallest buffer of a capacity of `caps.start` or more and less than `caps.end`.
    fn take(&mut self, caps: Range<usize>) -> Option<Vec<T>> {
        let fits = self
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| caps.contains(&b.capacity()))
            .min_by_key(|(_, b)| b.capacity());
        let i = fits?.0;
        let buffer = self.buffers.remove(i);
        self.bytes -= bytes_of(&buffer);
        Some(buffer)
    }

    /// Keeps `buffer` (unless it is empty or too large), freeing the oldest buffers kept
    /// as far as it needs room.
    fn give(&mut self, buffer: Vec<T>) {
        self.give_evicting(buffer, drop);
    }

    /// Keeps `buffer` like [`Shelf::give`], handing `evicted` the buffers it makes room by
    /// letting go of (and `buffer` itself when it is too large for this shelf).
    fn give_evicting(&mut self, buffer: Vec<T>, mut evicted: impl FnMut(Vec<T>)) {
        let size = bytes_of(&buffer);
        if size == 0 {
            return;
        }
        if size > MAX_POOLED.min(self.limit) {
            return evicted(buffer);
        }
        let mut evict = 0;
        let mut bytes = self.bytes;
        while bytes + size > self.limit || self.buffers.len() - evict >= MAX_BUFFERS {
            bytes -= self.buffers.get(evict).map_or(0, bytes_of);
            evict += 1;
        }
        self.buffers.drain(..evict).for_each(&mut evicted);
        self.bytes = bytes + size;
        self.buffers.push(buffer);
    }

    /// Frees every buffer kept.
    fn clear(&mut self) {
        self.buffers.clear();
        self.bytes = 0;
    }
}

fn bytes_of<T>(buffer: &Vec<T>) -> usize {
    buffer.capacity().saturating_mul(std::mem::size_of::<T>())
}

fn lock<T>(shelf: &'static Mutex<Shelf<T>>) -> MutexGuard<'static, Shelf<T>> {
    // A shelf stays consistent through a panic elsewhere (nothing panics while it is
    // held), so a poisoned lock is used as it is.
    shelf.lock().unwrap_or_else(|p| p.into_inner())
}

static READS: Mutex<Shelf<u8>> = Mutex::new(Shelf::new(POOL_BYTES));

/// A thread's own shelf of read buffers: locked by its thread, and by [`release_buffers`].
type ThreadShelf = Arc<Mutex<Shelf<u8>>>;

/// The threads' shelves, for [`release_buffers`] (a thread's goes with it).
static THREADS: Mutex<Vec<Weak<Mutex<Shelf<u8>>>>> = Mutex::new(Vec::new());

thread_local! {
    static OWN: ThreadShelf = {
        let shelf = Arc::new(Mutex::new(Shelf::new(THREAD_BYTES)));
        let mut threads = THREADS.lock().unwrap_or_else(|p| p.into_inner());
        threads.retain(|t| t.strong_count() > 0);
        threads.push(Arc::downgrade(&shelf));
        shelf
    };
}

/// `f` on this thread's shelf; `None` while the thread is being torn down.
fn own<R>(f: impl FnOnce(&mut Shelf<u8>) -> R) -> Option<R> {
    OWN.try_with(|shelf| f(&mut shelf.lock().unwrap_or_else(|p| p.into_inner())))
        .ok()
}

/// Frees the read buffers every thread's shelf keeps.
fn clear_threads() {
    let threads = THREADS.lock().unwrap_or_else(|p| p.into_inner());
    for shelf in threads.iter().filter_map(Weak::upgrade) {
        shelf.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// A buffer from the pool of at least `n` bytes and, so that a small read does not hold on
/// to a large buffer, at most 4 times that (or [`SMALL`] bytes): this thread's, else the
/// process's.
pub(crate) fn take(n: usize) -> Option<Vec<u8>> {
    let caps = n..n.saturating_mul(4).max(SMALL) + 1;
    own(|shelf| shelf.take(caps.clone()))
        .flatten()
        .or_else(|| lock(&READS).take(caps))
}

/// A buffer of at least `n` bytes for a page to be decompressed into: from the pool, else
/// from the bytes of arrays dropped (a page whose values arrays viewed in place comes back
/// there). Its length is the part of it that is initialized.
pub(crate) fn take_page(n: usize) -> Option<Vec<u8>> {
    take(n).or_else(|| lock(&OUT_U8).take(n..n.saturating_add(n / 4).saturating_add(2)))
}

/// Gives `buffer` back for a later read (its length: the bytes initialized), or frees it
/// when it is empty or too large.
pub(crate) fn give(buffer: Vec<u8>) {
    // What this thread's shelf lets go of goes to the process's (a thread being torn down
    // frees `buffer`).
    let mut spill = Vec::new();
    own(|shelf| shelf.give_evicting(buffer, |b| spill.push(b)));
    if !spill.is_empty() {
        let mut reads = lock(&READS);
        spill.into_iter().for_each(|b| reads.give(b));
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

/// A value type of the arrays a read hands out whose buffers come back to a shelf of their
/// own when the arrays are dropped ([`buffer`]), for the next batches ([`take_vec`]).
pub(crate) trait Recycled: Copy + Send + Sync + std::panic::RefUnwindSafe + 'static {
    fn shelf() -> &'static Mutex<Shelf<Self>>;
}

/// One shelf per type, and [`release_buffers`] clearing them all.
macro_rules! recycled {
    ($($t:ty => $shelf:ident),*) => {
        $(
            static $shelf: Mutex<Shelf<$t>> = Mutex::new(Shelf::new(OUTPUT_BYTES));
            impl Recycled for $t {
                fn shelf() -> &'static Mutex<Shelf<Self>> {
                    &$shelf
                }
            }
        )*

        /// Frees the buffers parq keeps for its next reads: the file ranges and pages read,
        /// and the buffers of the arrays handed out and dropped since (at most
        /// 64 MiB of reads and pages, 32 MiB more per thread that read, and 64 MiB per
        /// output type), every thread's. Reads after it allocate
        /// afresh, then keep buffers again.
        pub fn release_buffers() {
            lock(&READS).clear();
            clear_threads();
            $(lock(&$shelf).clear();)*
        }
    };
}

// INT96 values are converted before they become arrays, so their shelf stays empty; it lets
// every fixed-width physical type take its buffers the same way.
recycled!(
    u8 => OUT_U8,
    i32 => OUT_I32,
    i64 => OUT_I64,
    Int96 => OUT_I96,
    f32 => OUT_F32,
    f64 => OUT_F64,
    u128 => OUT_VIEWS
);

/// An empty vector with room for `n` values and not much more (a quarter), from the
/// buffers of arrays dropped, if one fits.
pub(crate) fn take_vec<T: Recycled>(n: usize) -> Option<Vec<T>> {
    let mut v = lock(T::shelf()).take(n..n.saturating_add(n / 4).saturating_add(2))?;
    v.clear();
    Some(v)
}

/// Room for `n` more values in `v`: an empty vector short of it takes a recycled one
/// ([`take_vec`]) first, so a read that sizes its buffers up front (a chunk, a whole column)
/// writes into memory already mapped. A vector that holds values grows as vectors do (the
/// system allocator moves a large one by remapping its pages, not by copying them).
pub(crate) fn reserve<T: Recycled>(v: &mut Vec<T>, n: usize) {
    recycle_into(v, n);
    v.reserve(n);
}

/// Swaps an empty `v` short of room for `n` values for a recycled vector with that room,
/// if one fits (the caller then reserves as it must).
pub(crate) fn recycle_into<T: Recycled>(v: &mut Vec<T>, n: usize) {
    if v.is_empty() && v.capacity() < n {
        if let Some(recycled) = take_vec(n) {
            *v = recycled;
        }
    }
}

/// An empty vector with room for `n` values: [`take_vec`]'s, or a new one.
pub(crate) fn vec_for<T: Recycled>(n: usize) -> Vec<T> {
    take_vec(n).unwrap_or_else(|| Vec::with_capacity(n))
}

/// `values` as an Arrow buffer whose memory goes back to `T`'s shelf once the last array
/// holding it is dropped (too small or too large a vector is just moved into the buffer).
pub(crate) fn buffer<T: Recycled + ArrowNativeType>(values: Vec<T>) -> Buffer {
    let size = bytes_of(&values);
    if !(SMALL..=MAX_POOLED).contains(&size) {
        return Buffer::from_vec(values);
    }
    let len = values.len() * std::mem::size_of::<T>();
    let ptr = NonNull::from(values.as_slice()).cast::<u8>();
    let owner: Arc<dyn Allocation> = Arc::new(Returned(values));
    // SAFETY: `ptr` points to the vector's `len` initialized bytes. The vector lives in
    // `owner` until the buffer and its clones are dropped; moving the vector into the `Arc`
    // did not move its heap memory, and nothing changes or frees that memory before
    // `Returned::drop`.
    unsafe { Buffer::from_custom_allocation(ptr, len, owner) }
}

/// A vector lent to Arrow arrays, put on its shelf when they let it go.
struct Returned<T: Recycled>(Vec<T>);

impl<T: Recycled> Drop for Returned<T> {
    fn drop(&mut self) {
        let values = std::mem::take(&mut self.0);
        lock(T::shelf()).give(values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_what_fits_and_gives_the_smallest_that_is_large_enough() {
        let mut pool = Shelf::<u8>::new(POOL_BYTES);
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
        let held: usize = pool.buffers.iter().map(Vec::capacity).sum();
        assert!(held <= POOL_BYTES && pool.buffers.len() <= MAX_BUFFERS);
        assert_eq!(held, pool.bytes);
        // The oldest made room for the newest.
        assert!(pool.take(1..200).is_none());
        assert_eq!(pool.buffers.len(), POOL_BYTES / MAX_POOLED);
        pool.clear();
        assert_eq!((pool.buffers.len(), pool.bytes), (0, 0));
    }

    #[test]
    fn an_arrays_buffer_goes_back_to_its_shelf_when_dropped() {
        // A capacity no other test's read asks for (the shelves are the process's).
        let n = 123_457;
        let mut values: Vec<f32> = Vec::with_capacity(n);
        values.extend((0..1000).map(|i| i as f32));
        let at = values.as_ptr();
        let lent = buffer(values);
        assert_eq!(lent.len(), 4000);
        assert_eq!(lent.typed_data::<f32>()[999], 999.0);
        let clone = lent.slice(4);
        drop(lent);
        assert!(take_vec::<f32>(n).is_none_or(|v| v.as_ptr() != at));
        drop(clone);
        let back = take_vec::<f32>(n).expect("the buffer is back");
        assert_eq!((back.as_ptr(), back.len(), back.capacity()), (at, 0, n));
        // An empty vector short of room takes a recycled one.
        let at = back.as_ptr();
        drop(buffer(back));
        let mut empty: Vec<f32> = Vec::new();
        reserve(&mut empty, n - 1000);
        assert_eq!((empty.as_ptr(), empty.capacity()), (at, n));
        // Too small to keep: moved into the buffer, freed with it.
        let small = buffer(vec![1i64; 10]);
        assert_eq!(small.typed_data::<i64>(), &[1; 10]);
    }

    #[test]
    fn a_thread_takes_back_its_own_read_buffers_and_spills_the_rest_to_the_process() {
        // Capacities no other test's read asks for (the process's shelf is shared).
        let n = 3_333_331;
        let mine = Vec::<u8>::with_capacity(n);
        let at = mine.as_ptr();
        give(mine);
        assert!(lock(&READS).buffers.iter().all(|b| b.as_ptr() != at));
        // Another thread does not see it.
        let addr = at as usize;
        std::thread::spawn(move || assert!(take(n).is_none_or(|b| b.as_ptr() as usize != addr)))
            .join()
            .unwrap();
        let back = take(n).expect("this thread's buffer");
        assert_eq!(back.as_ptr(), at);
        // Too large for a thread's shelf: kept by the process's.
        let large = Vec::<u8>::with_capacity(THREAD_BYTES + 4_321);
        let at = large.as_ptr();
        give(large);
        assert!(lock(&READS).buffers.iter().any(|b| b.as_ptr() == at));
        // `release_buffers` reaches every thread's shelf (the output shelves it clears too
        // are left to the test above).
        give(back);
        clear_threads();
        assert!(own(|s| s.buffers.is_empty()).unwrap());
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
