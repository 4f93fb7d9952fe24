//! [`par_each`]: one job per item of a slice (a leaf column), on up to `threads` threads of
//! the process's worker pool ([`crate::workers`]), each taking the next item as it finishes
//! one, so that leaves of unequal cost balance.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::workers;
use crate::Result;

/// Runs `job` on every item of `items` (with its index), on up to `threads` threads of the
/// pool; returns the `Some` results by index, or the error of the first
/// item (in order) that failed.
pub(crate) fn par_each<I, T, F>(items: &mut [I], threads: usize, job: F) -> Result<Vec<(usize, T)>>
where
    I: Send,
    T: Send,
    F: Fn(usize, &mut I) -> Result<Option<T>> + Sync,
{
    let threads = threads.min(items.len());
    if threads <= 1 {
        let mut out = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            if let Some(t) = job(i, item)? {
                out.push((i, t));
            }
        }
        return Ok(out);
    }
    let cells: Vec<Mutex<&mut I>> = items.iter_mut().map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done: Vec<(usize, Result<Option<T>>)> = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(cell) = cells.get(i) else {
                return done;
            };
            // Each index is taken once, so the lock is never contended (nor poisoned by
            // another job).
            let result = match cell.lock() {
                Ok(mut item) => job(i, &mut item),
                Err(mut poisoned) => job(i, poisoned.get_mut()),
            };
            done.push((i, result));
        }
    };
    let mut all: Vec<(usize, Result<Option<T>>)> = workers::run_n(threads, |_| work())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, ErrorKind};

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
                3 | 6 => Err(Error::new(ErrorKind::Inconsistent(format!("item {i}")))),
                _ => Ok(Some(())),
            })
            .unwrap_err();
            assert!(err.to_string().contains("item 3"), "{err}");
        }
    }
}
