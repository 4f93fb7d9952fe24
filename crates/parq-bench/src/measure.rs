//! The measurement harness: warm-up, then interleaved rounds (every case runs one time slice
//! per round, so drift hits all alike) until each case has enough samples and time; medians
//! and minima per case. Every batch's decoded result is checked against the expected shape
//! and kept alive past the clock (`black_box`), so nothing is optimised away and drops are not
//! timed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};

use crate::workload::{Facts, Mode};

/// Warm-up: at least this many calls per case ...
pub const WARMUP_ITERS: usize = 3;
/// ... and at least this long, but no longer than [`WARMUP_MAX`] once the calls are done.
pub const WARMUP_MIN: Duration = Duration::from_millis(20);
pub const WARMUP_MAX: Duration = Duration::from_millis(200);
/// Calls faster than this are timed in batches of at least this length (one sample per batch).
const MIN_SAMPLE: Duration = Duration::from_micros(20);
/// Each case runs for at least this long per round before the next case takes over.
const SLICE: Duration = Duration::from_millis(5);

/// Command-line options that set how long each cell is measured.
#[derive(clap::Args, Clone, Debug)]
pub struct MeasureArgs {
    /// Run exactly N measured calls per cell (one per round) instead of the time rule.
    #[arg(long, value_name = "N")]
    pub iters: Option<usize>,
    /// At least this many samples per cell.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub min_iters: usize,
    /// At least this much measured time per cell, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub min_time_ms: u64,
}

impl MeasureArgs {
    pub fn config(&self) -> MeasureConfig {
        MeasureConfig {
            exact_iters: self.iters.map(|n| n.max(1)),
            min_iters: self.min_iters.max(1),
            min_time: Duration::from_millis(self.min_time_ms),
        }
    }
}

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct MeasureConfig {
    /// Exactly this many calls per case, one per round, no warm-up beyond one call.
    pub exact_iters: Option<usize>,
    /// Otherwise: at least this many samples ...
    pub min_iters: usize,
    /// ... and at least this much measured time per case.
    pub min_time: Duration,
}

impl MeasureConfig {
    /// The number of process rounds a cell is split into: one for an exact iteration count.
    pub fn rounds(&self, rounds: usize) -> usize {
        if self.exact_iters.is_some() {
            1
        } else {
            rounds.max(1)
        }
    }

    /// The share of one of `rounds` rounds: together they meet this configuration's targets.
    pub fn per_round(&self, rounds: usize) -> MeasureConfig {
        let rounds = self.rounds(rounds);
        MeasureConfig {
            exact_iters: self.exact_iters,
            min_iters: self.min_iters.div_ceil(rounds),
            min_time: self.min_time / rounds as u32,
        }
    }
}

/// The result of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    pub median_ns: u64,
    pub min_ns: u64,
    /// Calls measured (warm-up excluded).
    pub iterations: usize,
}

/// The raw measurements of one case: nanoseconds per call of each sample (a sample is one
/// batch of calls), and the number of calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Samples {
    pub samples_ns: Vec<u64>,
    pub iterations: usize,
}

impl Samples {
    /// Adds the samples of another run of the same case.
    pub fn merge(&mut self, other: Samples) {
        self.samples_ns.extend(other.samples_ns);
        self.iterations += other.iterations;
    }

    /// Median and minimum per call.
    pub fn stats(&self) -> Stats {
        let mut sorted = self.samples_ns.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        let median_ns = match n {
            0 => 0,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
        };
        Stats {
            median_ns,
            min_ns: sorted.first().copied().unwrap_or(0),
            iterations: self.iterations,
        }
    }
}

type RunFn<'a> = Box<dyn FnMut(usize) -> Result<(Duration, Facts)> + 'a>;

/// One implementation in one mode on one file: a closure that performs `n` calls and returns
/// the time they took plus the facts of the last result.
pub struct Case<'a> {
    pub imp: &'static str,
    pub mode: Mode,
    /// Heap bytes of one decoded result, as the implementation reports them.
    pub heap_bytes: Option<usize>,
    expected: Facts,
    run: RunFn<'a>,
}

impl<'a> Case<'a> {
    pub fn new(
        imp: &'static str,
        mode: Mode,
        expected: Facts,
        heap_bytes: Option<usize>,
        run: impl FnMut(usize) -> Result<(Duration, Facts)> + 'a,
    ) -> Self {
        Case {
            imp,
            mode,
            heap_bytes,
            expected,
            run: Box::new(run),
        }
    }

    fn run_checked(&mut self, n: usize) -> Result<Duration> {
        let (elapsed, facts) =
            (self.run)(n).with_context(|| format!("{} {}", self.imp, self.mode.as_str()))?;
        ensure!(
            facts == self.expected,
            "{} {}: decoded {facts:?}, expected {:?}",
            self.imp,
            self.mode.as_str(),
            self.expected
        );
        Ok(elapsed)
    }
}

/// Times `n` calls of `f`, each on an input made by `setup` before the clock starts. The
/// results stay alive until the clock stops; `facts` describes the last one.
pub fn timed<S, T>(
    n: usize,
    mut setup: impl FnMut() -> Result<S>,
    mut f: impl FnMut(S) -> Result<T>,
    facts: impl FnOnce(&T) -> Facts,
) -> Result<(Duration, Facts)> {
    let inputs = (0..n).map(|_| setup()).collect::<Result<Vec<S>>>()?;
    let mut outputs = Vec::with_capacity(n);
    let start = Instant::now();
    for input in inputs {
        outputs.push(black_box(f(black_box(input))?));
    }
    let elapsed = start.elapsed();
    let facts = facts(outputs.last().context("a batch needs at least one call")?);
    drop(outputs);
    Ok((elapsed, facts))
}

/// [`timed`] without per-call setup.
pub fn timed_simple<T>(
    n: usize,
    mut f: impl FnMut() -> Result<T>,
    facts: impl FnOnce(&T) -> Facts,
) -> Result<(Duration, Facts)> {
    timed(n, || Ok(()), |()| f(), facts)
}

struct Schedule {
    batch: usize,
    batches_per_round: usize,
    samples: Samples,
    total: Duration,
}

/// Measures all cases, interleaved, and returns their samples in the same order.
///
/// Each round gives every case about the same slice of measured time (at least [`SLICE`], at
/// least the slowest single call), so fast and slow cases reach `min_time` in the same round.
/// A case that has met its target keeps running one batch per round until all are done.
pub fn measure(cases: &mut [Case<'_>], cfg: &MeasureConfig) -> Result<Vec<Samples>> {
    let per_call = cases
        .iter_mut()
        .map(|case| warm_up(case, cfg))
        .collect::<Result<Vec<_>>>()?;
    let slice = per_call.iter().copied().fold(SLICE, Duration::max);
    let mut schedules: Vec<Schedule> = per_call
        .iter()
        .map(|&per_call| {
            let (batch, batches_per_round) = match cfg.exact_iters {
                Some(_) => (1, 1),
                None => {
                    let batch = div_ceil_duration(MIN_SAMPLE, per_call).max(1);
                    (
                        batch,
                        div_ceil_duration(slice, per_call * batch as u32).max(1),
                    )
                }
            };
            Schedule {
                batch,
                batches_per_round,
                samples: Samples::default(),
                total: Duration::ZERO,
            }
        })
        .collect();
    let done = |s: &Schedule| match cfg.exact_iters {
        Some(n) => s.samples.iterations >= n,
        None => s.samples.samples_ns.len() >= cfg.min_iters && s.total >= cfg.min_time,
    };
    while !schedules.iter().all(done) {
        for (case, s) in cases.iter_mut().zip(&mut schedules) {
            let batches = if done(s) { 1 } else { s.batches_per_round };
            for _ in 0..batches {
                let elapsed = case.run_checked(s.batch)?;
                let per_call_ns = (elapsed.as_nanos() / s.batch as u128) as u64;
                s.samples.samples_ns.push(per_call_ns);
                s.samples.iterations += s.batch;
                s.total += elapsed;
            }
        }
    }
    Ok(schedules.into_iter().map(|s| s.samples).collect())
}

/// Runs the warm-up calls; returns the fastest call seen (at least 1 ns).
fn warm_up(case: &mut Case<'_>, cfg: &MeasureConfig) -> Result<Duration> {
    let (min_iters, min_time) = match cfg.exact_iters {
        Some(_) => (1, Duration::ZERO),
        None => (WARMUP_ITERS, WARMUP_MIN),
    };
    let start = Instant::now();
    let mut fastest = Duration::MAX;
    let mut calls = 0;
    loop {
        fastest = fastest.min(case.run_checked(1)?);
        calls += 1;
        let spent = start.elapsed();
        if calls >= min_iters && (spent >= min_time || spent >= WARMUP_MAX) {
            break;
        }
    }
    Ok(fastest.max(Duration::from_nanos(1)))
}

fn div_ceil_duration(a: Duration, b: Duration) -> usize {
    a.as_nanos().div_ceil(b.as_nanos().max(1)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        let stats = |samples_ns: Vec<u64>| {
            Samples {
                iterations: samples_ns.len(),
                samples_ns,
            }
            .stats()
        };
        assert_eq!(stats(vec![5, 1, 3]).median_ns, 3);
        assert_eq!(stats(vec![4, 1, 3, 2]).median_ns, 2);
        assert_eq!(stats(vec![4, 1, 3, 2]).min_ns, 1);
        let mut a = Samples {
            samples_ns: vec![1, 2],
            iterations: 2,
        };
        a.merge(Samples {
            samples_ns: vec![9],
            iterations: 3,
        });
        assert_eq!(a.stats().median_ns, 2);
        assert_eq!(a.iterations, 5);
    }

    #[test]
    fn exact_iterations_and_fact_checks() {
        let facts = Facts {
            num_rows: Some(1),
            row_groups: 1,
            column_chunks: 1,
        };
        let mut cases = vec![Case::new(
            super::super::workload::PARQ,
            Mode::Metadata,
            facts,
            None,
            |n| timed_simple(n, || Ok(7u8), |_| facts),
        )];
        let cfg = MeasureConfig {
            exact_iters: Some(4),
            min_iters: 10,
            min_time: Duration::from_secs(1),
        };
        assert_eq!(measure(&mut cases, &cfg).unwrap()[0].iterations, 4);

        let wrong = Facts {
            row_groups: 2,
            ..facts
        };
        let mut cases = vec![Case::new("x", Mode::Metadata, wrong, None, |n| {
            timed_simple(n, || Ok(()), |_| facts)
        })];
        assert!(measure(&mut cases, &cfg).is_err());
    }
}
