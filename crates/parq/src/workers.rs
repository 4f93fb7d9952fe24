//! The worker pool of the process: one set of threads, shared by every read and write that
//! asks for more than one thread (leaves of a batch decoded side by side, row groups read
//! ahead, columns encoded side by side), so that no read or write spawns threads of its own.
//!
//! The pool starts on first use with [`set_threads`]'s size, else `PARQ_THREADS` from the
//! environment, else the number of cores. A read's or write's `threads` setting is how many
//! of its jobs may run at once; the pool's size is how many run at once in the process.
//!
//! Jobs on the pool never wait for the caller (a row group read ahead sends its batches to an
//! unbounded queue; [`run_n`]'s jobs only compute), so two reads consumed in turn by one
//! thread cannot hold each other's jobs off the pool.

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

/// True on one of the pool's threads.
pub(crate) fn on_pool() -> bool {
    POOL.get()
        .is_some_and(|p| p.current_thread_index().is_some())
}

/// Runs `job(0)`, ..., `job(n - 1)` side by side on the pool (as many at once as it has
/// threads free) and returns their results in order. A panic of a job is resumed here.
pub(crate) fn run_n<R, F>(n: usize, job: F) -> Vec<R>
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
