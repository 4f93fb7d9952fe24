//! `parq check FILE...`: verifies files against themselves. Every page of every column chunk
//! is decoded (levels and values) and checked against what the file says about it: page
//! CRCs, page header counts, chunk and page statistics ([`stats`]), the page index
//! ([`page_index`]), Bloom filters (every value must be "might contain"), row counts, and
//! parq's footer index when there is one. Each finding is an error (the file is wrong:
//! readers fail or answer wrongly) or a warning (the file is readable and its claims hold,
//! but something is off or could not be checked), with its location. This module owns the
//! driver, the findings and their output (text, or one JSON object per line); [`chunk`]
//! walks one column chunk, [`values`] decodes pages.
//!
//! What is not checked: `distinct_count` (Parquet has no flag saying a writer's count is
//! exact, and writers estimate it), and chunks stored in other files (`file_path`).

mod chunk;
mod page_index;
mod stats;
mod values;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use parq::edit::Progress;
use parq::format::footer::{
    index_payload_len, FooterIndex, INDEX_TRAILER_BYTES, MAGIC, MAGIC_ENCRYPTED,
};
use parq::ErrorKind;

use crate::inspect::Input;
use crate::json::Obj;
use crate::keys::KeyArgs;
use crate::progress::{Bar, QuietArg};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The file is wrong: a reader fails, or a reader trusting it answers wrongly.
    Error,
    /// Readable and consistent, but worth knowing (or not checked).
    Warning,
}

impl Severity {
    fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Where in a file a finding is.
#[derive(Debug, Clone, Default)]
pub struct Site {
    pub row_group: Option<usize>,
    pub column: Option<String>,
    pub page: Option<u64>,
    pub offset: Option<u64>,
}

impl Site {
    /// Leaf `column` of row group `rg`.
    pub fn chunk(rg: usize, column: &str) -> Site {
        Site {
            row_group: Some(rg),
            column: Some(column.to_string()),
            ..Site::default()
        }
    }

    /// Page `page` (its ordinal in the chunk) whose header is at file offset `offset`.
    pub fn page(&self, page: u64, offset: u64) -> Site {
        Site {
            page: Some(page),
            offset: Some(offset),
            ..self.clone()
        }
    }

    /// This site at file offset `offset`, when known.
    pub fn at(&self, offset: Option<u64>) -> Site {
        Site {
            offset: offset.or(self.offset),
            ..self.clone()
        }
    }
}

/// One finding.
#[derive(Debug, Clone)]
pub struct Finding {
    pub severity: Severity,
    pub site: Site,
    /// What was checked: `file`, `footer_index`, `page`, `crc`, `statistics`,
    /// `page_statistics`, `column_index`, `offset_index`, `bloom_filter`, `rows`,
    /// `encryption`.
    pub check: &'static str,
    pub message: String,
}

/// The findings of one file.
#[derive(Default)]
pub struct Findings(Vec<Finding>);

impl Findings {
    pub fn error(&mut self, site: &Site, check: &'static str, message: String) {
        self.push(Severity::Error, site, check, message);
    }

    pub fn warning(&mut self, site: &Site, check: &'static str, message: String) {
        self.push(Severity::Warning, site, check, message);
    }

    fn push(&mut self, severity: Severity, site: &Site, check: &'static str, message: String) {
        self.0.push(Finding {
            severity,
            site: site.clone(),
            check,
            message,
        });
    }

    /// A library error at `site`: its kind, at its offset. A missing key is a warning (the
    /// chunk could not be checked), anything else an error.
    pub fn failure(&mut self, site: &Site, check: &'static str, e: &parq::Error) {
        let site = site.at(e.offset());
        match e.kind() {
            ErrorKind::MissingKey(_) | ErrorKind::EncryptedFooter => self.warning(
                &site,
                "encryption",
                format!("not checked: {} (give its keys)", e.kind()),
            ),
            ErrorKind::PageTooLarge { .. } | ErrorKind::FooterTooLarge { .. } => {
                self.warning(&site, check, format!("not checked: {}", e.kind()))
            }
            kind => self.error(&site, check, kind.to_string()),
        }
    }

    fn count(&self, severity: Severity) -> usize {
        self.0.iter().filter(|f| f.severity == severity).count()
    }
}

/// What was checked in one file.
#[derive(Default)]
pub struct Totals {
    pub row_groups: usize,
    pub columns: usize,
    pub pages: u64,
    pub values: u64,
}

/// `parq check` arguments besides the files.
#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// One JSON object per finding per line (`file`, `severity`, `row_group`, `column`,
    /// `page`, `offset`, `check`, `message`; location fields left out where they do not
    /// apply), then one summary object per file (`file`, `summary`).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub quiet: QuietArg,
    #[command(flatten)]
    pub keys: KeyArgs,
}

/// Checks `files`, printing the findings of each as it is done; exit status 1 when any
/// finding is an error.
pub fn run(files: &[PathBuf], args: &CheckArgs) -> ExitCode {
    let mut failed = false;
    for file in files {
        let mut findings = Findings::default();
        let totals = check_file(file, args, &mut findings);
        failed |= findings.count(Severity::Error) > 0;
        let out = report(file, &findings, &totals, args.json);
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (e.g. `| head`) ends the output, not the exit status.
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
    }
    match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    }
}

/// Checks one file into `findings`.
fn check_file(file: &Path, args: &CheckArgs, findings: &mut Findings) -> Totals {
    let mut totals = Totals::default();
    let whole = Site::default();
    let mut input = match Input::open(file, &args.keys) {
        Ok(i) => i,
        Err(e) => {
            findings.failure(&whole, "file", &e.error);
            return totals;
        }
    };
    footer_index(&mut input, findings);
    let md = &input.md;
    let num_rows = u64::try_from(md.num_rows).unwrap_or(0);
    let bytes_total: u64 = md
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| u64::try_from(c.total_compressed_size()).unwrap_or(0))
        .sum();
    let leaves = md.schema().num_columns();
    let groups = md.row_groups().len();
    let rows: u64 = md
        .row_groups()
        .iter()
        .map(|g| u64::try_from(g.num_rows).unwrap_or(0))
        .sum();
    if rows != num_rows {
        findings.warning(
            &whole,
            "rows",
            format!("the footer says {num_rows} rows, its row groups hold {rows}"),
        );
    }
    let bar = Bar::new(args.quiet, "checking");
    let mut progress = Progress {
        rows: 0,
        rows_total: rows,
        bytes: 0,
        bytes_total,
    };
    totals.columns = leaves;
    for rg in 0..groups {
        chunk::row_group(&mut input, rg, findings, &mut totals, &mut |bytes| {
            progress.bytes += bytes;
            bar.update(progress);
        });
        progress.rows += input
            .md
            .row_groups()
            .get(rg)
            .map_or(0, |g| u64::try_from(g.num_rows).unwrap_or(0));
        bar.update(progress);
        totals.row_groups += 1;
    }
    bar.finish();
    totals
}

/// Verifies parq's footer index when the file has one.
fn footer_index(input: &mut Input, findings: &mut Findings) {
    let site = Site::default();
    let len = input.len;
    let Ok(tail) = input.read(len.saturating_sub(8)..len) else {
        return;
    };
    let Some((len_bytes, magic)) = tail.split_first_chunk::<4>() else {
        return;
    };
    if magic == MAGIC_ENCRYPTED || magic != MAGIC {
        return;
    }
    let footer_len = u64::from(u32::from_le_bytes(*len_bytes));
    let Some(footer_start) = len.checked_sub(8 + footer_len) else {
        return;
    };
    let trailer_start = footer_start.saturating_sub(INDEX_TRAILER_BYTES as u64);
    let Ok(trailer) = input.read(trailer_start..footer_start) else {
        return;
    };
    let Some(payload) = index_payload_len(&trailer) else {
        return;
    };
    let site = site.at(Some(trailer_start));
    let block_start = match trailer_start.checked_sub(payload) {
        Some(s) => s,
        None => {
            findings.error(
                &site,
                "footer_index",
                format!("the footer index claims {payload} bytes, more than precede it"),
            );
            return;
        }
    };
    let (block, footer) = match (
        input.read(block_start..footer_start),
        input.read(footer_start..len - 8),
    ) {
        (Ok(b), Ok(f)) => (b, f),
        (Err(e), _) | (_, Err(e)) => {
            findings.failure(&site, "footer_index", &e.error);
            return;
        }
    };
    let Some(index) = FooterIndex::find(&block) else {
        return;
    };
    let limits = parq::format::footer::DecodeOptions::default().limits;
    if let Err(m) = index.verify(&footer, limits) {
        findings.error(
            &site.at(Some(block_start)),
            "footer_index",
            format!("the footer index (PQX1) is wrong, readers ignore it: {m}"),
        );
    }
}

/// The text or JSON lines of one file's findings and its summary.
fn report(file: &Path, findings: &Findings, totals: &Totals, json: bool) -> String {
    let name = file.display().to_string();
    let mut out = String::new();
    for f in &findings.0 {
        let s = &f.site;
        if json {
            let o = Obj::new()
                .put("file", name.as_str())
                .put("severity", f.severity.word())
                .opt("row_group", s.row_group)
                .opt("column", s.column.clone())
                .opt("page", s.page.map(|p| p as i64))
                .opt("offset", s.offset.map(|o| o as i64))
                .put("check", f.check)
                .put("message", f.message.as_str())
                .build();
            out.push_str(&o.line());
            out.push('\n');
            continue;
        }
        let mut at = Vec::new();
        if let Some(rg) = s.row_group {
            at.push(format!("row group {rg}"));
        }
        if let Some(c) = &s.column {
            at.push(format!("column {c}"));
        }
        if let Some(p) = s.page {
            at.push(format!("page {p}"));
        }
        let _ = write!(out, "{name}: ");
        if !at.is_empty() {
            let _ = write!(out, "{}: ", at.join(", "));
        }
        let _ = write!(out, "{}: {}", f.severity.word(), f.message);
        if let Some(o) = s.offset {
            let _ = write!(out, " (at offset {o})");
        }
        let _ = writeln!(out, " [{}]", f.check);
    }
    let (errors, warnings) = (
        findings.count(Severity::Error),
        findings.count(Severity::Warning),
    );
    if json {
        let summary = Obj::new()
            .put("errors", errors)
            .put("warnings", warnings)
            .put("row_groups", totals.row_groups)
            .put("columns", totals.columns)
            .put("pages", totals.pages as i64)
            .put("values", totals.values as i64)
            .build();
        let o = Obj::new()
            .put("file", name.as_str())
            .put("summary", summary)
            .build();
        out.push_str(&o.line());
        out.push('\n');
        return out;
    }
    let checked = format!(
        "{} row groups, {} columns, {} pages checked",
        totals.row_groups, totals.columns, totals.pages
    );
    let _ = match (errors, warnings) {
        (0, 0) => writeln!(out, "{name}: ok ({checked})"),
        (e, w) => {
            let plural = |n: usize, word: &str| match n {
                1 => format!("1 {word}"),
                n => format!("{n} {word}s"),
            };
            let (e, w) = (plural(e, "error"), plural(w, "warning"));
            writeln!(out, "{name}: {e}, {w} ({checked})")
        }
    };
    out
}
