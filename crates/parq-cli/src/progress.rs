//! Progress bars of long commands (`convert`, `merge`, `append`, `rewrite`, `check`): rows
//! done of all, input bytes and the rate, drawn on standard error when it is a terminal
//! and `--quiet` is not given; nothing otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parq::edit::Progress;

/// `--quiet`, shared by the commands that show progress.
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub struct QuietArg {
    /// Print no progress bar (none is printed when standard error is not a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A progress bar, or nothing.
pub struct Bar(Option<(ProgressBar, Instant)>);

impl Bar {
    /// A bar for the work `what` (e.g. "merging"), unless `quiet` or standard error is not a
    /// terminal.
    pub fn new(quiet: QuietArg, what: &str) -> Bar {
        if quiet.quiet || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{prefix} [{bar:30}] {human_pos}/{human_len} rows {msg} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Bar(Some((bar, Instant::now())))
    }

    /// Shows `p`: rows of all, input bytes of all, rows a second.
    pub fn update(&self, p: Progress) {
        let Some((bar, start)) = &self.0 else {
            return;
        };
        if p.rows_total > 0 {
            bar.set_length(p.rows_total);
        }
        bar.set_position(p.rows);
        let bytes = match p.bytes_total {
            0 if p.bytes == 0 => String::new(),
            0 => format!("{}, ", HumanBytes(p.bytes)),
            t => format!("{} of {}, ", HumanBytes(p.bytes), HumanBytes(t)),
        };
        let secs = start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            (p.rows as f64 / secs) as u64
        } else {
            0
        };
        bar.set_message(format!("{bytes}{} rows/s", HumanCount(rate)));
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some((bar, _)) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}
