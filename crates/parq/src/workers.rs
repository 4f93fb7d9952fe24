//! The worker pool of the process: one set of threads, shared by every read and write that
//! asks for more than one thread (leaves of a batch decoded side by side, row groups read
//! ahead, columns encoded side by side), so that no read or write spawns threads of its own.
//!
//! The pool starts on first use with [`set_threads`]'s size, else `PARQ_THREADS` from the
//! environment, else the number of cores. A read's or write's `threads` setting is how many
//! of its jobs may run at once; the pool's size is how many run at once in the process.
//!
//! `each_item` runs a job per item of a slice (a leaf column to decode or encode) on jobs of
//! the pool that each take the next item as they finish one, so that items of unequal cost
//! balance. Jobs on the pool never wait for the caller (a row group read ahead sends its
//! batches to an unbounded queue; other jobs only compute), so two reads consumed in turn by
//! one thread cannot hold each other's jobs off the pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::{Error, ErrorKind, Result};

/// The pool, once started.
static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
/// The size asked for by [`set_threads`] before the pool started (0: not asked).
static ASKED: AtomicUsize = AtomicUsize::new(0);
/// The environment variable that sets the pool's size when [`set_threads`] did not.
pub const THREADS_ENV: &str = "PARQ_THREADS";

/// Sets the pool's size (at least 1). Only before the pool starts (the first read or write
/// with more than one thread): after, asking for another size is an error.
pub fn set_threads(threads: usize) -> Result<()> {
    let threads = threads.max(1);
    if let Some(pool) = POOL.get() {
        if pool.current_num_threads() != threads {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "the worker pool already runs {} threads (set_threads({threads}) must come \
                 before the first read or write with threads)",
                pool.current_num_threads()
            ))));
        }
        return Ok(());
    }
    ASKED.store(threads, Ordering::Relaxed);
    Ok(())
}

/// The pool's size: the threads it runs, or will run once started.
pub fn threads() -> usize {
    match POOL.get() {
        Some(pool) => pool.current_num_threads(),
        None => size_to_start(),
    }
}

fn size_to_start() -> usize {
    let asked = ASKED.load(Ordering::Relaxed);
    if asked > 0 {
        return asked;
    }
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// The pool, started on first use. When its threads cannot be started, a pool of none is
/// impossible: the work then runs on the caller's thread ([`run_n`] and [`spawn`] fall back).
fn pool() -> Option<&'static rayon::ThreadPool> {
    if let Some(pool) = POOL.get() {
        return Some(pool);
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(size_to_start())
        .thread_name(|i| format!("parq-worker-{i}"))
        .build()
        .ok()?;
    // Another thread may have started it first: theirs is kept, this one dropped.
    Some(POOL.get_or_init(|| built))
}

/// Runs `job` on every item of `items` (with its index), on as many jobs of the pool side by
/// side as there are states (`first` and `others`: each job works with a state of its own,
/// such as scratch space), each job taking the next item as it finishes one; with no
/// `others`, on the caller's thread. Returns the `Some` results by index, or the error of the
/// first item (in order) that failed.
pub(crate) fn each_item<I, S, T, F>(
    items: &mut [I],
    first: &mut S,
    others: &mut [S],
    job: F,
) -> Result<Vec<(usize, T)>>
where
    I: Send,
    S: Send,
    T: Send,
    F: Fn(&mut S, usize, &mut I) -> Result<Option<T>> + Sync,
{
    let jobs = (1 + others.len()).min(items.len());
    if jobs <= 1 {
        let mut out = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            if let Some(t) = job(first, i, item)? {
                out.push((i, t));
            }
        }
        return Ok(out);
    }
    // Each item and each state is taken by one job at a time: the locks are never contended
    // (nor poisoned by another job).
    let cells: Vec<Mutex<&mut I>> = items.iter_mut().map(Mutex::new).collect();
    let states: Vec<Mutex<&mut S>> = std::iter::once(first)
        .chain(others.iter_mut())
        .take(jobs)
        .map(Mutex::new)
        .collect();
    let next = AtomicUsize::new(0);
    let work = |state: &mut S| {
        let mut done: Vec<(usize, Result<Option<T>>)> = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(cell) = cells.get(i) else {
                return done;
            };
            let mut item = cell.lock().unwrap_or_else(|p| p.into_inner());
            done.push((i, job(state, i, &mut item)));
        }
    };
    let mut all: Vec<(usize, Result<Option<T>>)> = run_n(jobs, |k| match states.get(k) {
        Some(state) => work(&mut state.lock().unwrap_or_else(|p| p.into_inner())),
        None => Vec::new(),
    })
    .into_iter()
    .flatten()
    .collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    let mut out = Vec::with_capacity(all.len());
    for (i, r) in all {
        if let Some(t) = r? {
            out.push((i, t));
        }
    }
    Ok(out)
}

/// [`each_item`] without states: on up to `threads` jobs side by side.
pub(crate) fn par_each<I, T, F>(items: &mut [I], threads: usize, job: F) -> Result<Vec<(usize, T)>>
where
    I: Send,
    T: Send,
    F: Fn(usize, &mut I) -> Result<Option<T>> + Sync,
{
    let mut others = vec![(); threads.saturating_sub(1).min(items.len())];
    each_item(items, &mut (), &mut others, |_, i, item| job(i, item))
}

/// Runs `job(0)`, ..., `job(n - 1)` side by side on the pool (as many at once as it has
/// threads free) and returns their results in order. A panic of a job is resumed here.
fn run_n<R, F>(n: usize, job: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize) -> R + Sync,
{
    let pool = match pool() {
        Some(pool) if n > 1 => pool,
        _ => return (0..n).map(&job).collect(),
    };
    let out: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let job = &job;
    let out_ref = &out;
    pool.scope(|s| {
        for k in 1..n {
            s.spawn(move |_| put(out_ref, k, job(k)));
        }
        put(out_ref, 0, job(0));
    });
    out.into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

fn put<R>(out: &[Mutex<Option<R>>], k: usize, r: R) {
    if let Some(cell) = out.get(k) {
        let mut slot = cell.lock().unwrap_or_else(|p| p.into_inner());
        *slot = Some(r);
    }
}

/// Runs `job` on the pool, not waiting for it; on the caller's thread when the pool cannot
/// start.
pub(crate) fn spawn(job: impl FnOnce() + Send + 'static) {
    match pool() {
        Some(pool) => pool.spawn(job),
        None => job(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_once_results_in_order_first_error_wins() {
        for threads in [1, 2, 4, 9] {
            let mut items: Vec<u32> = (0..8).collect();
            let out = par_each(&mut items, threads, |i, v| {
                *v += 100;
                Ok((i % 2 == 0).then_some(i * 10))
            })
            .unwrap();
            assert_eq!(out, vec![(0, 0), (2, 20), (4, 40), (6, 60)]);
            assert!(items.iter().enumerate().all(|(i, v)| *v == i as u32 + 100));
            let err = par_each(&mut items, threads, |i, _| match i {
                3 | 6 => Err(Error::new(ErrorKind::Internal(format!("item {i}")))),
                _ => Ok(Some(())),
            })
            .unwrap_err();
            assert!(err.to_string().contains("item 3"), "{err}");
        }
    }

    #[test]
    fn each_job_works_with_a_state_of_its_own() {
        let mut items: Vec<u32> = (0..50).collect();
        let mut first = Vec::new();
        let mut others = vec![Vec::new(), Vec::new()];
        each_item(
            &mut items,
            &mut first,
            &mut others,
            |seen: &mut Vec<usize>, i, _| {
                seen.push(i);
                Ok(None::<()>)
            },
        )
        .unwrap();
        let mut all: Vec<usize> = first
            .into_iter()
            .chain(others.into_iter().flatten())
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn run_n_gives_every_result_in_order_and_resumes_panics() {
        let out = run_n(7, |k| k * 10);
        assert_eq!(out, vec![0, 10, 20, 30, 40, 50, 60]);
        assert_eq!(run_n(0, |k| k), Vec::<usize>::new());
        let panicked = std::panic::catch_unwind(|| run_n(3, |k| assert_ne!(k, 2)));
        assert!(panicked.is_err());
        assert!(threads() >= 1);
    }

    #[test]
    fn spawned_jobs_run() {
        let (send, receive) = std::sync::mpsc::channel();
        for k in 0..4 {
            let send = send.clone();
            spawn(move || send.send(k).unwrap_or(()));
        }
        let mut got: Vec<i32> = (0..4).filter_map(|_| receive.recv().ok()).collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3]);
    }
}
