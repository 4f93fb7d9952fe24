//! The benchmark's global allocator: the system allocator (what users of every peer get by
//! default, and what the seed benchmark used), or mimalloc with the `mimalloc` feature (its
//! behaviour does not depend on what ran before, while glibc's dynamic mmap threshold makes a
//! large decode page-fault or not depending on the history of the process), wrapped to count the bytes currently allocated and their
//! peak while tracking is switched on, so `footer-study` can report a writer's peak memory.
//!
//! Counting is gated by one relaxed atomic load, so the decode benchmarks (run with tracking
//! off) pay no atomic read-modify-write per allocation and allocation-heavy peers are not
//! penalised.

use std::alloc::{GlobalAlloc, Layout};

#[cfg(feature = "mimalloc")]
use mimalloc::MiMalloc as Inner;
#[cfg(not(feature = "mimalloc"))]
use std::alloc::System as Inner;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

/// The system allocator (or mimalloc, with the `mimalloc` feature) plus optional byte
/// accounting.
pub struct CountingAlloc;

static TRACKING: AtomicBool = AtomicBool::new(false);
static CURRENT_BYTES: AtomicIsize = AtomicIsize::new(0);
static PEAK_BYTES: AtomicIsize = AtomicIsize::new(0);

fn on_alloc(size: usize) {
    if TRACKING.load(Ordering::Relaxed) {
        let now = CURRENT_BYTES.fetch_add(size as isize, Ordering::Relaxed) + size as isize;
        PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
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
            on_dealloc(layout.size());
            on_alloc(new_size);
        }
        p
    }
}

/// Measures the peak number of bytes allocated (above the level at the start) while `f` runs.
///
/// Memory freed during `f` that was allocated before it counts negatively, so the result is
/// the peak growth over the starting point, never below zero.
pub fn peak_bytes_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    CURRENT_BYTES.store(0, Ordering::Relaxed);
    PEAK_BYTES.store(0, Ordering::Relaxed);
    TRACKING.store(true, Ordering::SeqCst);
    let out = f();
    TRACKING.store(false, Ordering::SeqCst);
    let peak = PEAK_BYTES.load(Ordering::Relaxed).max(0) as usize;
    (out, peak)
}
