//! `parq index FILE`: the page index of every column chunk. The column index (per page:
//! whether it is all nulls, its min and max decoded by the column's type, its null count,
//! level histograms when present, and the chunk's boundary order) and the offset index (per
//! page: offset, compressed_page_size, first_row_index). With `--json`, one document: the
//! page index as `parq meta --json --page-index` writes it (bounds in hex).

use std::fmt::Write;
use std::path::Path;

use parq::format::footer::{ColumnIndexView, OffsetIndexView};

use super::{list, value, Input};
use crate::keys::KeyArgs;
use crate::meta::page_index_json;
use crate::CliError;

fn column_index_text(
    ci: &ColumnIndexView<'_>,
    t: &parq::schema::stats::StatsContext<'_>,
) -> String {
    let mut out = format!(
        "  column index: {} pages, boundary order {}\n",
        ci.len(),
        ci.boundary_order()
    );
    let nulls = ci.null_counts();
    for i in 0..ci.len() {
        let _ = write!(out, "    page {i}:");
        if ci.null_pages().get(i).copied().unwrap_or(false) {
            out.push_str(" all null");
        } else {
            let _ = write!(
                out,
                " min={} max={}",
                value::text(ci.min_bytes(i), t),
                value::text(ci.max_bytes(i), t)
            );
        }
        if let Some(n) = nulls.and_then(|n| n.get(i)) {
            let _ = write!(out, " nulls={n}");
        }
        out.push('\n');
    }
    if let Some(h) = ci.repetition_level_histograms() {
        let _ = writeln!(out, "    repetition level histograms: {}", list(h));
    }
    if let Some(h) = ci.definition_level_histograms() {
        let _ = writeln!(out, "    definition level histograms: {}", list(h));
    }
    if let Some(h) = ci.nan_counts() {
        let _ = writeln!(out, "    NaN counts: {}", list(h));
    }
    out
}

fn offset_index_text(oi: &OffsetIndexView<'_>) -> String {
    let locations = oi.page_locations();
    let mut out = format!("  offset index: {} pages\n", locations.len());
    for (i, p) in locations.iter().enumerate() {
        let _ = writeln!(
            out,
            "    page {i}: offset {}, {} bytes, first row {}",
            p.offset, p.compressed_page_size, p.first_row_index
        );
    }
    if let Some(b) = oi.unencoded_byte_array_data_bytes() {
        let _ = writeln!(out, "    unencoded byte array data bytes: {}", list(b));
    }
    out
}

pub fn run(file: &Path, json: bool, keys: &KeyArgs) -> Result<String, CliError> {
    let mut input = Input::open(file, keys)?;
    let pi = input.page_index(None)?;
    let Some(pi) = pi else {
        return Ok(match json {
            true => "[]\n".to_string(),
            false => "no page index: no column chunk has a column or offset index\n".to_string(),
        });
    };
    if json {
        let mut out = String::new();
        page_index_json(&pi).write(&mut out, 0);
        out.push('\n');
        return Ok(out);
    }
    let mut out = String::new();
    let schema = input.md.schema();
    for (gi, &rg) in pi.row_groups.iter().enumerate() {
        for (cj, &leaf) in pi.columns.iter().enumerate() {
            let _ = writeln!(
                out,
                "row group {rg}, column {}:",
                schema.leaf_path_string(leaf)
            );
            match pi.column_index(gi, cj) {
                Some(ci) => out.push_str(&column_index_text(&ci, &input.leaf_type(leaf)?)),
                None => out.push_str("  no column index\n"),
            }
            match pi.offset_index(gi, cj) {
                Some(oi) => out.push_str(&offset_index_text(&oi)),
                None => out.push_str("  no offset index\n"),
            }
        }
    }
    Ok(out)
}
