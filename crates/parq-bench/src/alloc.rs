//! The benchmark's global allocator: the system allocator (what users of every peer get by
//! default, and what the seed benchmark used), or mimalloc with the `mimalloc` feature (its
//! behaviour does not depend on what ran before, while glibc's dynamic mmap threshold makes a
//! large decode page-fault or not depending on the history of the process), wrapped to count the bytes currently allocated, their
//! peak and the total allocated while tracking is switched on, so `footer-study` can report a
//! writer's peak memory and `decode` each implementation's peak and total allocation.
//!
//! Counting is gated by one relaxed atomic load, so the decode benchmarks (run with tracking
//! off) pay no atomic read-modify-write per allocation and allocation-heavy peers are not
//! penalised.

use std::alloc::{GlobalAlloc, Layout};

#[cfg(feature = "mimalloc")]
use mimalloc::MiMalloc as Inner;
#[cfg(not(feature = "mimalloc"))]
use std::alloc::System as Inner;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};

/// The system allocator (or mimalloc, with the `mimalloc` feature) plus optional byte
/// accounting.
pub struct CountingAlloc;

static TRACKING: AtomicBool = AtomicBool::new(false);
static CURRENT_BYTES: AtomicIsize = AtomicIsize::new(0);
static PEAK_BYTES: AtomicIsize = AtomicIsize::new(0);
/// Every allocation's size, plus the growth of every realloc that grows.
static TOTAL_BYTES: AtomicUsize = AtomicUsize::new(0);

fn on_alloc(size: usize) {
    if TRACKING.load(Ordering::Relaxed) {
        let now = CURRENT_BYTES.fetch_add(size as isize, Ordering::Relaxed) + size as isize;
        PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
        TOTAL_BYTES.fetch_add(size, Ordering::Relaxed);
    }
}

fn on_realloc(old: usize, new: usize) {
    if TRACKING.load(Ordering::Relaxed) {
        let delta = new as isize - old as isize;
        let now = CURRENT_BYTES.fetch_add(delta, Ordering::Relaxed) + delta;
        PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
        TOTAL_BYTES.fetch_add(new.saturating_sub(old), Ordering::Relaxed);
    }
}

fn on_dealloc(size: usize) {
    if TRACKING.load(Ordering::Relaxed) {
        CURRENT_BYTES.fetch_sub(size as isize, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the inner allocator; the bookkeeping only touches atomics
// and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { Inner.alloc(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { Inner.alloc_zeroed(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { Inner.dealloc(ptr, layout) };
        on_dealloc(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { Inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            on_realloc(layout.size(), new_size);
        }
        p
    }
}

/// What [`alloc_stats_during`] measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// The peak growth of the bytes allocated over the starting point (never below zero).
    pub peak_bytes: usize,
    /// The sum of every allocation's size, a realloc counting its growth (a shrink counts 0).
    pub total_bytes: usize,
}

/// Measures the allocations made while `f` runs: see [`AllocStats`].
///
/// Memory freed during `f` that was allocated before it counts negatively in the peak, so the
/// peak is the growth over the starting point.
pub fn alloc_stats_during<T>(f: impl FnOnce() -> T) -> (T, AllocStats) {
    CURRENT_BYTES.store(0, Ordering::Relaxed);
    PEAK_BYTES.store(0, Ordering::Relaxed);
    TOTAL_BYTES.store(0, Ordering::Relaxed);
    TRACKING.store(true, Ordering::SeqCst);
    let out = f();
    TRACKING.store(false, Ordering::SeqCst);
    let stats = AllocStats {
        peak_bytes: PEAK_BYTES.load(Ordering::Relaxed).max(0) as usize,
        total_bytes: TOTAL_BYTES.load(Ordering::Relaxed),
    };
    (out, stats)
}

/// The peak number of bytes allocated (above the level at the start) while `f` runs: see
/// [`alloc_stats_during`].
pub fn peak_bytes_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, stats) = alloc_stats_during(f);
    (out, stats.peak_bytes)
}
