//! `parq pages FILE [--columns a,b]`: every page header of every chosen column chunk, in
//! file order, dictionary pages included: where it is, its type, encodings, sizes, value,
//! row and null counts, statistics, and its CRC (present or not, and whether it matches the
//! page as stored). Text, or with `--json` one object per page per line with
//! parquet.thrift's field names (statistics as `parq meta --json` writes them, in hex).

use std::fmt::Write;

use parq::format::metadata::Statistics;
use parq::page::{crc, CompressedPage};
use parq::schema::stats::StatsContext;

use super::{value, Input};
use crate::json::Obj;
use crate::keys::KeyArgs;
use crate::meta::statistics_json;
use crate::CliError;

/// What a page's CRC says: absent, or stored and matching (or not) the page's bytes.
#[derive(Clone, Copy)]
pub(crate) enum Crc {
    Absent,
    Checked { stored: u32, matches: bool },
}

/// The CRC of `page` against its bytes as stored in `chunk` (which starts at file offset
/// `chunk_start`).
pub(crate) fn check_crc(page: &CompressedPage, chunk: &[u8], chunk_start: u64) -> Crc {
    let Some(stored) = page.crc() else {
        return Crc::Absent;
    };
    // The page as stored (encrypted pages: the encrypted body module).
    let body = page
        .meta
        .body_offset
        .checked_sub(chunk_start)
        .and_then(|s| usize::try_from(s).ok())
        .and_then(|s| chunk.get(s..s.checked_add(page.meta.compressed_size)?));
    let matches = body.is_some_and(|b| crc::checksum(b) == stored);
    Crc::Checked { stored, matches }
}

fn stats_text(s: &Statistics, buf: &[u8], t: &StatsContext<'_>) -> String {
    let mut out = String::new();
    let (min, max) = match (s.min_value, s.max_value) {
        (Some(a), Some(b)) => (Some(a), Some(b)),
        _ => (s.min, s.max),
    };
    if let Some(m) = min {
        let _ = write!(out, " min={}", value::text(m.slice(buf), t));
    }
    if let Some(m) = max {
        let _ = write!(out, " max={}", value::text(m.slice(buf), t));
    }
    if let Some(n) = s.null_count {
        let _ = write!(out, " nulls={n}");
    }
    if let Some(n) = s.distinct_count {
        let _ = write!(out, " distinct={n}");
    }
    match out.is_empty() {
        true => out,
        false => format!(", stats:{out}"),
    }
}

fn page_line(p: &CompressedPage, t: &StatsContext<'_>, crc: Crc) -> String {
    let h = &p.header;
    let mut s = format!(
        "  page {} at {}: {}",
        p.meta.ordinal, p.meta.header_offset, h.page_type
    );
    let mut stats = None;
    if let Some(d) = &h.data_page_header {
        let _ = write!(
            s,
            " {} (def {}, rep {}), {} values",
            d.encoding, d.definition_level_encoding, d.repetition_level_encoding, d.num_values
        );
        stats = d.statistics.as_ref();
    } else if let Some(d) = &h.data_page_header_v2 {
        let _ = write!(
            s,
            " {}, {} values, {} rows, {} nulls, levels rep {} + def {} bytes{}",
            d.encoding,
            d.num_values,
            d.num_rows,
            d.num_nulls,
            d.repetition_levels_byte_length,
            d.definition_levels_byte_length,
            if d.values_compressed() {
                ""
            } else {
                ", values not compressed"
            }
        );
        stats = d.statistics.as_ref();
    } else if let Some(d) = &h.dictionary_page_header {
        let _ = write!(
            s,
            " {}, {} values{}",
            d.encoding,
            d.num_values,
            if d.is_sorted == Some(true) {
                ", sorted"
            } else {
                ""
            }
        );
    }
    let _ = write!(
        s,
        ", {} -> {} bytes (header {})",
        h.uncompressed_page_size, h.compressed_page_size, p.meta.header_len
    );
    if let Some(st) = stats {
        s.push_str(&stats_text(st, &p.header_bytes, t));
    }
    match crc {
        Crc::Absent => s.push_str(", no crc"),
        Crc::Checked { stored, matches } => {
            let _ = write!(
                s,
                ", crc {stored:08x} {}",
                if matches { "ok" } else { "MISMATCH" }
            );
        }
    }
    s.push('\n');
    s
}

fn page_json(p: &CompressedPage, path: &str, rg: usize, crc: Crc) -> String {
    let h = &p.header;
    let mut o = Obj::new()
        .put("row_group", rg)
        .put("column", path)
        .put("page", p.meta.ordinal as i64)
        .put("offset", p.meta.header_offset as i64)
        .put("header_size", p.meta.header_len)
        .put("type", h.page_type.to_string())
        .put("uncompressed_page_size", h.uncompressed_page_size)
        .put("compressed_page_size", h.compressed_page_size);
    let buf = &p.header_bytes;
    if let Some(d) = &h.data_page_header {
        o = o
            .put("num_values", d.num_values)
            .put("encoding", d.encoding.to_string())
            .put(
                "definition_level_encoding",
                d.definition_level_encoding.to_string(),
            )
            .put(
                "repetition_level_encoding",
                d.repetition_level_encoding.to_string(),
            )
            .opt(
                "statistics",
                d.statistics.as_ref().map(|s| statistics_json(s, buf)),
            );
    } else if let Some(d) = &h.data_page_header_v2 {
        o = o
            .put("num_values", d.num_values)
            .put("num_nulls", d.num_nulls)
            .put("num_rows", d.num_rows)
            .put("encoding", d.encoding.to_string())
            .put(
                "definition_levels_byte_length",
                d.definition_levels_byte_length,
            )
            .put(
                "repetition_levels_byte_length",
                d.repetition_levels_byte_length,
            )
            .opt("is_compressed", d.is_compressed)
            .opt(
                "statistics",
                d.statistics.as_ref().map(|s| statistics_json(s, buf)),
            );
    } else if let Some(d) = &h.dictionary_page_header {
        o = o
            .put("num_values", d.num_values)
            .put("encoding", d.encoding.to_string())
            .opt("is_sorted", d.is_sorted);
    }
    o = match crc {
        Crc::Absent => o,
        Crc::Checked { stored, matches } => o.put("crc", stored as i32).put("crc_matches", matches),
    };
    let mut line = o.build().line();
    line.push('\n');
    line
}

pub fn run(
    file: &std::path::Path,
    columns: &[String],
    json: bool,
    keys: &KeyArgs,
) -> Result<String, CliError> {
    let mut input = Input::open(file, keys)?;
    let leaves = input.leaves(columns)?;
    let mut out = String::new();
    for rg in input.row_groups(None)? {
        if !json {
            let _ = writeln!(
                out,
                "row group {rg}: {} rows",
                input.md.row_groups().get(rg).map_or(0, |g| g.num_rows)
            );
        }
        for &leaf in &leaves {
            let path = input.md.schema().leaf_path_string(leaf);
            let (mut reader, bytes, start) = input.pages(rg, leaf, true)?;
            let t = input.leaf_type(leaf)?;
            if !json {
                let _ = writeln!(out, " column {path} ({})", reader.codec());
            }
            let mut counted = 0u64;
            while let Some(p) = reader.next_compressed().map_err(|e| input.fail(e))? {
                let crc = check_crc(&p, &bytes, start);
                out.push_str(&match json {
                    true => page_json(&p, &path, rg, crc),
                    false => page_line(&p, &t, crc),
                });
                counted += 1;
            }
            if !json && reader.pages_read() > counted {
                let _ = writeln!(
                    out,
                    "  ({} index or unknown pages skipped)",
                    reader.pages_read() - counted
                );
            }
        }
    }
    Ok(out)
}
