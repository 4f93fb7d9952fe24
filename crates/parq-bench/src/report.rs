//! Results: one [`Cell`] per dataset x implementation x mode, printed as console tables
//! (decode times, speedups of parq over each peer, footer size / throughput / heap) and
//! written as JSON or CSV.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

use crate::measure::Stats;
use crate::workload::{Mode, PARQ, PARQUET_56, PARQUET_60, PYARROW};

/// One measured cell.
#[derive(Clone, Debug)]
pub struct Cell {
    /// e.g. "Float 1000 cols 20 row groups".
    pub dataset: String,
    pub ty: &'static str,
    pub columns: usize,
    pub row_groups: usize,
    pub footer_bytes: usize,
    pub imp: &'static str,
    pub mode: Mode,
    pub stats: Stats,
    pub heap_bytes: Option<usize>,
}

impl Cell {
    pub fn column_chunks(&self) -> usize {
        self.columns * self.row_groups
    }
}

/// Peers in display order, with their short column labels.
const IMPLS: [(&str, &str); 4] = [
    (PARQUET_56, "56.2"),
    (PARQUET_60, "60.1"),
    (PYARROW, "pyarrow"),
    (PARQ, "parq"),
];

fn short(imp: &str) -> &str {
    IMPLS
        .iter()
        .find(|(i, _)| *i == imp)
        .map_or(imp, |(_, s)| s)
}

/// Milliseconds with about three significant digits.
pub fn fmt_ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    match ms {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 10.0 => format!("{m:.1}"),
        m if m >= 1.0 => format!("{m:.2}"),
        m if m >= 0.1 => format!("{m:.3}"),
        m => format!("{m:.4}"),
    }
}

/// A ratio as a speedup, e.g. "3.4x".
pub fn fmt_speedup(ratio: f64) -> String {
    if ratio >= 100.0 {
        format!("{ratio:.0}x")
    } else if ratio >= 1.0 {
        format!("{ratio:.1}x")
    } else {
        format!("{ratio:.2}x")
    }
}

/// Renders a plain text table; each header may span several lines (separated by '\n').
pub fn render_table(headers: &[String], rows: &[Vec<String>]) -> String {
    let header_lines: Vec<Vec<&str>> = headers.iter().map(|h| h.lines().collect()).collect();
    let depth = header_lines.iter().map(Vec::len).max().unwrap_or(1);
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            let h = header_lines[i].iter().map(|l| l.len()).max().unwrap_or(0);
            rows.iter()
                .map(|r| r.get(i).map_or(0, String::len))
                .fold(h, usize::max)
        })
        .collect();
    let rule: String = widths
        .iter()
        .map(|w| format!("+{}", "-".repeat(w + 2)))
        .collect::<String>()
        + "+\n";
    let mut out = rule.clone();
    for line in 0..depth {
        for (i, w) in widths.iter().enumerate() {
            let text = header_lines[i].get(line).copied().unwrap_or("");
            let _ = write!(out, "| {text:<w$} ");
        }
        out.push_str("|\n");
    }
    out.push_str(&rule.replace('-', "="));
    for row in rows {
        for (i, w) in widths.iter().enumerate() {
            let text = row.get(i).map_or("", String::as_str);
            // Left-align the first column (names), right-align numbers.
            if i == 0 {
                let _ = write!(out, "| {text:<w$} ");
            } else {
                let _ = write!(out, "| {text:>w$} ");
            }
        }
        out.push_str("|\n");
    }
    out.push_str(&rule);
    out
}

/// All results of a run, with lookups by dataset, implementation and mode.
pub struct Results<'c> {
    cells: &'c [Cell],
    datasets: Vec<&'c str>,
}

impl<'c> Results<'c> {
    pub fn new(cells: &'c [Cell]) -> Self {
        let datasets = first_seen(cells.iter().map(|c| c.dataset.as_str()));
        Results { cells, datasets }
    }

    pub fn datasets(&self) -> &[&'c str] {
        &self.datasets
    }

    pub fn get(&self, dataset: &str, imp: &str, mode: Mode) -> Option<&'c Cell> {
        self.cells
            .iter()
            .find(|c| c.dataset == dataset && c.imp == imp && c.mode == mode)
    }

    /// Any cell of `dataset` (they share the dataset's fields).
    pub fn first(&self, dataset: &str) -> Option<&'c Cell> {
        self.cells.iter().find(|c| c.dataset == dataset)
    }

    /// The (impl, mode) pairs present, peers first, in a stable order.
    pub fn columns(&self) -> Vec<(&'static str, Mode)> {
        let present: BTreeSet<(usize, Mode)> = self
            .cells
            .iter()
            .filter_map(|c| {
                IMPLS
                    .iter()
                    .position(|(i, _)| *i == c.imp)
                    .map(|p| (p, c.mode))
            })
            .collect();
        present.into_iter().map(|(p, m)| (IMPLS[p].0, m)).collect()
    }

    /// The peer cell parq's `mode` is compared against: the same mode if the peer has it,
    /// else the peer's full page index (for page-index-10) or full decode (everything else).
    pub fn baseline(&self, dataset: &str, peer: &str, mode: Mode) -> Option<&'c Cell> {
        self.get(dataset, peer, mode).or_else(|| match mode {
            Mode::PageIndex10 => self.get(dataset, peer, Mode::PageIndex),
            Mode::PageIndex => None,
            _ => self.get(dataset, peer, Mode::Metadata),
        })
    }

    /// Peer median / parq median for `mode`.
    pub fn speedup(&self, dataset: &str, peer: &str, mode: Mode) -> Option<f64> {
        let parq = self.get(dataset, PARQ, mode)?;
        let base = self.baseline(dataset, peer, mode)?;
        Some(base.stats.median_ns as f64 / parq.stats.median_ns.max(1) as f64)
    }
}

/// One line about the machine: CPUs and the 1-minute load average (where /proc has it), so a
/// noisy run can be recognised as one.
pub fn machine_line() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string));
    match load {
        Some(l) => format!("machine: {cpus} CPUs, 1-minute load average {l}"),
        None => format!("machine: {cpus} CPUs"),
    }
}

/// Prints the three footer tables to stdout.
pub fn print_footer_tables(cells: &[Cell]) {
    let r = Results::new(cells);
    let columns = r.columns();

    let mut headers = vec!["Dataset".to_string()];
    headers.extend(
        columns
            .iter()
            .map(|(i, m)| format!("{}\n{}", short(i), m.label())),
    );
    let rows: Vec<Vec<String>> = r
        .datasets()
        .iter()
        .map(|d| {
            let mut row = vec![d.to_string()];
            row.extend(columns.iter().map(|&(i, m)| {
                r.get(d, i, m)
                    .map_or("-".into(), |c| fmt_ms(c.stats.median_ns))
            }));
            row
        })
        .collect();
    println!("\nDecode time, median ms (index: ColumnIndex + OffsetIndex alone, metadata already decoded)");
    print!("{}", render_table(&headers, &rows));

    let parq_modes: Vec<Mode> = columns
        .iter()
        .filter(|(i, _)| *i == PARQ)
        .map(|&(_, m)| m)
        .collect();
    if !parq_modes.is_empty() {
        let mut headers = vec!["Dataset".to_string(), "vs".to_string()];
        headers.extend(parq_modes.iter().map(|m| format!("parq\n{}", m.label())));
        let mut rows = Vec::new();
        for d in r.datasets() {
            for (peer, _) in IMPLS.iter().filter(|(i, _)| *i != PARQ) {
                if !parq_modes.iter().any(|&m| r.baseline(d, peer, m).is_some()) {
                    continue;
                }
                let mut row = vec![d.to_string(), short(peer).to_string()];
                row.extend(
                    parq_modes
                        .iter()
                        .map(|&m| r.speedup(d, peer, m).map_or("-".into(), fmt_speedup)),
                );
                rows.push(row);
            }
        }
        println!("\nSpeedup of parq (peer median / parq median; selective modes vs the peer's full decode)");
        print!("{}", render_table(&headers, &rows));
    }

    let decoders: Vec<&str> = [PARQ, PARQUET_60, PARQUET_56]
        .into_iter()
        .filter(|i| columns.contains(&(*i, Mode::Metadata)))
        .collect();
    let mut headers: Vec<String> = ["Dataset", "footer\nbytes", "bytes per\nchunk"]
        .map(String::from)
        .to_vec();
    for i in &decoders {
        headers.push(format!("{}\nMB/s", short(i)));
    }
    for i in &decoders {
        headers.push(format!("{}\nns/chunk", short(i)));
    }
    for i in decoders.iter().filter(|i| **i != PARQUET_56) {
        headers.push(format!("{} heap\nB/chunk", short(i)));
    }
    let rows: Vec<Vec<String>> = r
        .datasets()
        .iter()
        .filter_map(|d| {
            let any = r.first(d)?;
            let chunks = any.column_chunks() as f64;
            let cell = |i: &str| r.get(d, i, Mode::Metadata);
            let mut row = vec![
                d.to_string(),
                any.footer_bytes.to_string(),
                format!("{:.1}", any.footer_bytes as f64 / chunks),
            ];
            row.extend(decoders.iter().map(|i| {
                cell(i).map_or("-".into(), |c| {
                    format!(
                        "{:.0}",
                        c.footer_bytes as f64 / 1e6 / (c.stats.median_ns as f64 / 1e9)
                    )
                })
            }));
            row.extend(decoders.iter().map(|i| {
                cell(i).map_or("-".into(), |c| {
                    format!("{:.0}", c.stats.median_ns as f64 / chunks)
                })
            }));
            row.extend(decoders.iter().filter(|i| **i != PARQUET_56).map(|i| {
                cell(i)
                    .and_then(|c| c.heap_bytes)
                    .map_or("-".into(), |h| format!("{:.0}", h as f64 / chunks))
            }));
            Some(row)
        })
        .collect();
    println!("\nFooter size, full-decode throughput and decoded heap size (metadata mode)");
    print!("{}", render_table(&headers, &rows));
}

/// Writes every cell as a JSON array.
pub fn write_json(cells: &[Cell], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            json!({
                "dataset": c.dataset,
                "type": c.ty,
                "columns": c.columns,
                "row_groups": c.row_groups,
                "footer_bytes": c.footer_bytes,
                "impl": c.imp,
                "mode": c.mode.as_str(),
                "median_ns": c.stats.median_ns,
                "min_ns": c.stats.min_ns,
                "iterations": c.stats.iterations,
                "heap_bytes": c.heap_bytes,
            })
        })
        .collect();
    write_json_values(&values, path)
}

/// Writes `values` as a pretty-printed JSON array (the `--json` files of every command).
pub fn write_json_values(values: &[serde_json::Value], path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(values)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

/// The distinct names, in the order they first appear.
pub fn first_seen<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// A target over the cases: how many had a value, and those that missed it (case, value).
#[derive(Default)]
pub struct Tally {
    pub n: usize,
    pub misses: Vec<(String, f64)>,
}

impl Tally {
    pub fn add(&mut self, case: &str, value: Option<f64>, missed: impl Fn(f64) -> bool) {
        if let Some(v) = value {
            self.n += 1;
            if missed(v) {
                self.misses.push((case.to_string(), v));
            }
        }
    }
}

/// Appends the summary of a speed target over the cases of `tally`: how many met it, then
/// each case below it (the misses: case and parq's speedup), marked "slower" where parq
/// lost outright.
pub fn target_summary(out: &mut String, peer: &str, target: f64, tally: &Tally) {
    let (n, misses) = (tally.n, &tally.misses);
    if n == 0 {
        return;
    }
    let losses = misses.iter().filter(|(_, s)| *s < 1.0).count();
    let _ = writeln!(
        out,
        "target parq >= {target}x faster than {peer}: met in {} of {n} cases; below it in {} \
         ({losses} of them slower than {peer})",
        n - misses.len(),
        misses.len(),
    );
    for (case, s) in misses {
        let what = if *s < 1.0 { "slower" } else { "below" };
        let _ = writeln!(out, "  {what}: {case} ({})", fmt_speedup(*s));
    }
}

/// Reads cells written by [`write_json`].
pub fn read_json(path: &Path) -> Result<Vec<Cell>> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let values: Vec<serde_json::Value> = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not a JSON array", path.display()))?;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| cell_from_json(v).with_context(|| format!("{}: cell {i}", path.display())))
        .collect()
}

fn cell_from_json(v: &serde_json::Value) -> Result<Cell> {
    let num = |k: &str| v[k].as_u64().with_context(|| format!("missing number {k}"));
    let text = |k: &str| v[k].as_str().with_context(|| format!("missing string {k}"));
    let known = |k: &str, names: &[&'static str]| -> Result<&'static str> {
        let s = text(k)?;
        names
            .iter()
            .copied()
            .find(|n| *n == s)
            .with_context(|| format!("unknown {k} {s:?}"))
    };
    let mode = text("mode")?;
    Ok(Cell {
        dataset: text("dataset")?.to_string(),
        ty: known("type", &["Float", "String"])?,
        columns: num("columns")? as usize,
        row_groups: num("row_groups")? as usize,
        footer_bytes: num("footer_bytes")? as usize,
        imp: known("impl", &IMPLS.map(|(i, _)| i))?,
        mode: Mode::parse(mode).with_context(|| format!("unknown mode {mode:?}"))?,
        stats: Stats {
            median_ns: num("median_ns")?,
            min_ns: num("min_ns")?,
            iterations: num("iterations")? as usize,
        },
        heap_bytes: v["heap_bytes"].as_u64().map(|h| h as usize),
    })
}

/// Writes every cell as CSV with the JSON's fields (an empty `heap_bytes` means null).
pub fn write_csv(cells: &[Cell], path: &Path) -> Result<()> {
    let mut out = String::from(
        "dataset,type,columns,row_groups,footer_bytes,impl,mode,median_ns,min_ns,iterations,heap_bytes\n",
    );
    for c in cells {
        let _ = writeln!(
            out,
            "\"{}\",{},{},{},{},{},{},{},{},{},{}",
            c.dataset.replace('"', "\"\""),
            c.ty,
            c.columns,
            c.row_groups,
            c.footer_bytes,
            c.imp,
            c.mode.as_str(),
            c.stats.median_ns,
            c.stats.min_ns,
            c.stats.iterations,
            c.heap_bytes.map_or(String::new(), |h| h.to_string())
        );
    }
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_ms(28_123_456), "28.1");
        assert_eq!(fmt_ms(1_234_567), "1.23");
        assert_eq!(fmt_ms(123_456), "0.123");
        assert_eq!(fmt_speedup(3.4123), "3.4x");
        assert_eq!(fmt_speedup(0.8512), "0.85x");
        assert_eq!(fmt_speedup(12.34), "12.3x");
    }

    #[test]
    fn table_aligns() {
        let t = render_table(
            &["a\nb".into(), "c".into()],
            &[vec!["xx".into(), "1".into()]],
        );
        assert!(t.contains("| a  | c |"));
        assert!(t.contains("| b  |   |"));
        assert!(t.contains("| xx | 1 |"));
    }
}
