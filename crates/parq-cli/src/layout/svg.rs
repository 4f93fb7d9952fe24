//! The picture of [`Layout`] as one SVG element: a title block, a legend, the mosaic (row
//! groups top to bottom, height by bytes; their column chunks left to right in schema order,
//! width by bytes; hue by codec, shade by encoding; hover text in `<title>`), and a table of
//! the largest columns. Chunks too thin to draw are merged per row group into one "other
//! columns" cell, and the cells drawn are capped, so the picture stays small for files of
//! many thousands of columns.

use std::collections::BTreeMap;
use std::fmt::Write;

use parq::format::metadata::Compression;

use super::{
    bytes_text, escape, escaped, ratio, ratio_text, thousands, Chunk, EncodingKind, Layout,
};

const WIDTH: f64 = 1180.0;
const PAD: f64 = 10.0;
const MOSAIC_X: f64 = 190.0;
const MOSAIC_W: f64 = WIDTH - MOSAIC_X - PAD;
/// The mosaic's height when its row groups need no more than their minimum height.
const MOSAIC_H: f64 = 380.0;
const MIN_ROW_H: f64 = 3.0;
/// A chunk narrower than this joins its row group's "other columns" cell.
const MIN_CELL_W: f64 = 1.0;
/// The most chunk cells drawn in all, shared between row groups.
const CELL_BUDGET: usize = 6000;
/// The fewest chunk cells a row group may draw, however many row groups there are.
const MIN_CELLS_PER_ROW: usize = 24;
/// Rows of the table of largest columns.
const TOP_COLUMNS: usize = 25;
/// The x of the largest columns table's fields.
const T_TYPE: f64 = 380.0;
const T_CODEC: f64 = 585.0;
const T_ENCODING: f64 = 690.0;
const T_COMPRESSED: f64 = 945.0;
const T_UNCOMPRESSED: f64 = 1040.0;
const T_RATIO: f64 = 1090.0;
const T_SHARE: f64 = 1098.0;
/// The largest of a merged cell's columns named in its hover text.
const OTHERS_NAMED: usize = 5;
/// Where the legend's swatches start.
const LEGEND_X: f64 = 140.0;
const FONT: &str = "DejaVu Sans, Verdana, Arial, sans-serif";
/// Approximate width of one character at the cell label's font size.
const CHAR_W: f64 = 6.3;

/// The hue and saturation of a codec.
fn codec_hue(codec: Option<Compression>) -> (u32, u32) {
    match codec {
        Some(Compression::Uncompressed) | None => (0, 0),
        Some(Compression::Snappy) => (212, 62),
        Some(Compression::Gzip) => (28, 78),
        Some(Compression::Zstd) => (145, 52),
        Some(Compression::Lz4) | Some(Compression::Lz4Raw) => (272, 48),
        Some(Compression::Brotli) => (352, 62),
        Some(Compression::Lzo) => (48, 70),
        Some(_) => (318, 55),
    }
}

/// The lightness of an encoding.
fn shade(kind: EncodingKind) -> u32 {
    match kind {
        EncodingKind::Dictionary | EncodingKind::DictionaryFallback => 40,
        EncodingKind::Plain => 68,
        EncodingKind::Delta => 27,
        EncodingKind::ByteStreamSplit => 54,
        EncodingKind::Rle => 82,
        EncodingKind::Unknown => 75,
    }
}

fn fill(codec: Option<Compression>, kind: EncodingKind) -> String {
    let (h, s) = if kind == EncodingKind::Unknown {
        (0, 0)
    } else {
        codec_hue(codec)
    };
    format!("hsl({h},{s}%,{}%)", shade(kind))
}

/// Text drawn on a cell of this encoding: white on dark shades.
fn ink(kind: EncodingKind) -> &'static str {
    if shade(kind) < 55 {
        "#fff"
    } else {
        "#111"
    }
}

/// `s` cut to `chars` characters, with an ellipsis when cut.
fn fit(s: &str, chars: usize) -> String {
    if s.chars().count() <= chars {
        return s.to_string();
    }
    let mut out: String = s.chars().take(chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Appends a `<text>` of `s` (escaped) at `x`, `y` with extra attributes `attrs`.
fn text(out: &mut String, x: f64, y: f64, attrs: &str, s: &str) {
    let _ = write!(out, "<text x=\"{x:.1}\" y=\"{y:.1}\"{attrs}>");
    escape(s, out);
    out.push_str("</text>\n");
}

/// A legend entry: a swatch of `fill` and its label; returns the x after it.
fn swatch(out: &mut String, x: f64, y: f64, fill: &str, label: &str) -> f64 {
    let _ = writeln!(
        out,
        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"{fill}\" stroke=\"#888\" stroke-width=\"0.5\"/>",
        y - 11.0
    );
    text(out, x + 19.0, y, "", label);
    x + 19.0 + label.chars().count() as f64 * 7.8 + 16.0
}

/// The SVG element (without an XML declaration) picturing `layout`.
pub fn render(layout: &Layout) -> String {
    let mut body = String::new();
    let (compressed, uncompressed) = layout.totals();
    let mut y = header(&mut body, layout, compressed, uncompressed);
    y = legend(&mut body, layout, compressed, y + 12.0);
    y = mosaic(&mut body, layout, compressed, y + 30.0);
    y = top_columns(&mut body, layout, compressed, y + 28.0);
    let height = (y + PAD).ceil();
    let mut out = String::with_capacity(body.len() + 2048);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" font-family=\"{FONT}\" font-size=\"12\" fill=\"#222\">"
    );
    out.push_str(concat!(
        "<style>",
        ".c{stroke:#fff;stroke-width:0.5}",
        ".c.t{stroke:none}",
        ".c:hover{stroke:#000;stroke-width:1.5}",
        ".l{pointer-events:none;font-size:10.5px}",
        ".h{font-weight:bold}",
        ".o{paint-order:stroke;stroke:#fff;stroke-width:2.5px;stroke-linejoin:round}",
        ".n{text-anchor:end}",
        "</style>\n",
        "<defs>",
        "<pattern id=\"others\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">",
        "<rect width=\"3\" height=\"6\" fill=\"#fff\" fill-opacity=\"0.6\"/></pattern>",
        "<pattern id=\"fallback\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\">",
        "<rect width=\"2\" height=\"5\" fill=\"#fff\" fill-opacity=\"0.55\"/></pattern>",
        "</defs>\n",
    ));
    let _ = writeln!(
        out,
        "<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#fff\"/>"
    );
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// The title and totals; returns the y of the last line.
fn header(out: &mut String, layout: &Layout, compressed: u64, uncompressed: u64) -> f64 {
    let _ = write!(
        out,
        "<text x=\"{PAD}\" y=\"26\" font-size=\"20\" class=\"h\">"
    );
    escape(&layout.name, out);
    out.push_str("<tspan font-size=\"13\" font-weight=\"normal\" fill=\"#666\">  parq layout</tspan></text>\n");
    let mut line = format!(
        "{} on disk · {} rows · {} row groups · {} columns",
        bytes_text(layout.file_bytes),
        thousands(layout.num_rows),
        thousands(layout.row_groups.len() as i64),
        thousands(layout.columns.len() as i64),
    );
    if let Some(by) = &layout.created_by {
        line.push_str(" · created by ");
        line.push_str(&fit(by, 70));
    }
    text(out, PAD, 48.0, "", &line);
    let rest = layout.file_bytes.saturating_sub(compressed);
    let line = format!(
        "column chunks: {} compressed, {} uncompressed, ratio {} · footer, indexes and filters: {}",
        bytes_text(compressed),
        bytes_text(uncompressed),
        ratio_text(ratio(uncompressed, compressed)),
        bytes_text(rest),
    );
    text(out, PAD, 66.0, "", &line);
    match &layout.note {
        Some(note) => {
            text(out, PAD, 84.0, " fill=\"#a00\"", &fit(note, 160));
            84.0
        }
        None => 66.0,
    }
}

/// The codec and encoding swatches with their shares of the bytes; returns the y of the
/// last row.
fn legend(out: &mut String, layout: &Layout, compressed: u64, y: f64) -> f64 {
    let mut codecs: BTreeMap<String, (Option<Compression>, u64)> = BTreeMap::new();
    let mut kinds: BTreeMap<EncodingKind, u64> = BTreeMap::new();
    for c in layout.row_groups.iter().flat_map(|g| &g.chunks) {
        let name = match (c.kind, c.codec) {
            (EncodingKind::Unknown, _) | (_, None) => "encrypted".to_string(),
            (_, Some(codec)) => codec.to_string(),
        };
        codecs.entry(name).or_insert((c.codec, 0)).1 += c.compressed;
        *kinds.entry(c.kind).or_default() += c.compressed;
    }
    let share = |b: u64| {
        if compressed == 0 {
            String::new()
        } else {
            format!(" {:.0}%", b as f64 * 100.0 / compressed as f64)
        }
    };
    let y = y + 14.0;
    text(out, PAD, y, " class=\"h\"", "codec (hue)");
    let mut x = LEGEND_X;
    let main_codec = codecs
        .values()
        .max_by_key(|(_, b)| *b)
        .and_then(|(c, _)| *c);
    for (name, (codec, bytes)) in &codecs {
        let f = if name == "encrypted" {
            fill(None, EncodingKind::Unknown)
        } else {
            fill(*codec, EncodingKind::Dictionary)
        };
        x = swatch(out, x, y, &f, &format!("{name}{}", share(*bytes)));
    }
    let y = y + 22.0;
    text(out, PAD, y, " class=\"h\"", "encoding (shade)");
    let mut x = LEGEND_X;
    for kind in EncodingKind::ALL {
        let Some(bytes) = kinds.get(&kind) else {
            continue;
        };
        let f = fill(main_codec, kind);
        let before = x;
        x = swatch(out, x, y, &f, &format!("{}{}", kind.label(), share(*bytes)));
        if kind == EncodingKind::DictionaryFallback {
            let _ = writeln!(
                out,
                "<rect x=\"{before:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"url(#fallback)\"/>",
                y - 11.0
            );
        }
    }
    let f = fill(main_codec, EncodingKind::Plain);
    swatch(out, x, y, &f, "columns too thin to draw, merged");
    let _ = writeln!(
        out,
        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"url(#others)\"/>",
        y - 11.0
    );
    y
}

/// The cells of one row group that are drawn one by one (in schema order), given the most
/// it may draw; the rest are merged.
fn drawn(chunks: &[Chunk], row_bytes: u64, cap: usize) -> Vec<bool> {
    let wide: Vec<usize> = chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            row_bytes > 0 && c.compressed as f64 * MOSAIC_W / row_bytes as f64 >= MIN_CELL_W
        })
        .map(|(j, _)| j)
        .collect();
    let mut keep = vec![false; chunks.len()];
    let chosen: Vec<usize> = if wide.len() <= cap {
        wide
    } else {
        let mut by_size = wide;
        by_size.sort_by_key(|&j| std::cmp::Reverse(chunks.get(j).map_or(0, |c| c.compressed)));
        by_size.truncate(cap);
        by_size
    };
    for j in chosen {
        if let Some(k) = keep.get_mut(j) {
            *k = true;
        }
    }
    keep
}

/// The row groups and their chunks; returns the y below them.
fn mosaic(out: &mut String, layout: &Layout, total: u64, y0: f64) -> f64 {
    let n = layout.row_groups.len();
    text(
        out,
        PAD,
        y0,
        " class=\"h\"",
        "row groups ↓ height by bytes · column chunks → width by bytes, in schema order · hover for details",
    );
    let mut y = y0 + 10.0;
    if n == 0 {
        text(out, MOSAIC_X, y + 20.0, "", "no row groups");
        return y + 30.0;
    }
    let cap = (CELL_BUDGET / n).max(MIN_CELLS_PER_ROW);
    for (i, g) in layout.row_groups.iter().enumerate() {
        let h = if total == 0 {
            MOSAIC_H / n as f64
        } else {
            MOSAIC_H * g.compressed as f64 / total as f64
        }
        .max(MIN_ROW_H);
        let _ = writeln!(out, "<g data-row-group=\"{i}\">");
        row_label(out, i, g, y, h);
        let keep = drawn(&g.chunks, g.compressed, cap);
        let mut x = MOSAIC_X;
        let mut others: Vec<&Chunk> = Vec::new();
        for (c, kept) in g.chunks.iter().zip(&keep) {
            if !kept {
                others.push(c);
                continue;
            }
            let w = MOSAIC_W * c.compressed as f64 / g.compressed as f64;
            cell(out, layout, i, c, x, y, w, h);
            x += w;
        }
        if !others.is_empty() {
            others_cells(out, layout, i, &others, x, y, h);
        }
        out.push_str("</g>\n");
        y += h;
    }
    y
}

fn row_label(out: &mut String, i: usize, g: &super::RowGroup, y: f64, h: f64) {
    let x = MOSAIC_X - 8.0;
    let _ = write!(
        out,
        "<g><title>row group {i}: {} rows, {} compressed, {} uncompressed, ratio {}, {} chunks</title>",
        thousands(g.num_rows),
        bytes_text(g.compressed),
        bytes_text(g.uncompressed),
        ratio_text(ratio(g.uncompressed, g.compressed)),
        thousands(g.chunks.len() as i64),
    );
    let _ = writeln!(
        out,
        "<rect x=\"{PAD}\" y=\"{y:.2}\" width=\"{:.1}\" height=\"{h:.2}\" fill=\"#f4f5f7\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
        MOSAIC_X - PAD - 4.0
    );
    if h >= 13.0 {
        text(
            out,
            x,
            y + 12.0,
            " class=\"n h\"",
            &format!("row group {i}"),
        );
    }
    if h >= 27.0 {
        let line = format!(
            "{} rows · {}",
            thousands(g.num_rows),
            bytes_text(g.compressed)
        );
        text(out, x, y + 25.0, " class=\"n\" fill=\"#555\"", &line);
    }
    out.push_str("</g>\n");
}

#[allow(clippy::too_many_arguments)]
fn cell(out: &mut String, layout: &Layout, rg: usize, c: &Chunk, x: f64, y: f64, w: f64, h: f64) {
    let thin = if w < 3.0 || h < 3.0 { " t" } else { "" };
    let _ = write!(
        out,
        "<rect class=\"c{thin}\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"{}\" data-rg=\"{rg}\" data-col=\"{}\" data-bytes=\"{}\"><title>",
        fill(c.codec, c.kind),
        c.column,
        c.compressed,
    );
    escape(&layout.describe(rg, c), out);
    out.push_str("</title></rect>\n");
    if c.kind == EncodingKind::DictionaryFallback {
        let _ = writeln!(
            out,
            "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"url(#fallback)\" pointer-events=\"none\"/>"
        );
    }
    if w >= 34.0 && h >= 14.0 {
        let chars = ((w - 6.0) / CHAR_W).floor() as usize;
        let attrs = format!(" class=\"l\" fill=\"{}\"", ink(c.kind));
        let name = layout.path(c.column);
        text(out, x + 3.0, y + 12.0, &attrs, &fit(name, chars));
        let lines = [
            bytes_text(c.compressed),
            c.kind.label().to_string(),
            format!("ratio {}", ratio_text(c.ratio())),
        ];
        for (k, line) in lines.iter().enumerate() {
            let ly = y + 24.0 + 12.0 * k as f64;
            if ly + 3.0 > y + h {
                break;
            }
            text(out, x + 3.0, ly, &attrs, &fit(line, chars));
        }
    }
}

/// The chunks of row group `rg` too thin to draw, from `x` to the right edge: one cell per
/// codec and encoding, largest first.
fn others_cells(
    out: &mut String,
    layout: &Layout,
    rg: usize,
    others: &[&Chunk],
    x: f64,
    y: f64,
    h: f64,
) {
    let mut groups: BTreeMap<(String, EncodingKind), Vec<&Chunk>> = BTreeMap::new();
    for c in others {
        let codec = c.codec.map(|c| c.to_string()).unwrap_or_default();
        groups.entry((codec, c.kind)).or_default().push(c);
    }
    let mut groups: Vec<Vec<&Chunk>> = groups.into_values().collect();
    groups.sort_by_key(|g| std::cmp::Reverse(g.iter().map(|c| c.compressed).sum::<u64>()));
    let right = MOSAIC_X + MOSAIC_W;
    let mut left: u64 = others.iter().map(|c| c.compressed).sum();
    let mut x = x;
    let n = groups.len();
    for (k, group) in groups.iter().enumerate() {
        let bytes: u64 = group.iter().map(|c| c.compressed).sum();
        // Each takes its share of what is left, the last all of it.
        let w = if k + 1 == n || left == 0 {
            right - x
        } else {
            (right - x) * bytes as f64 / left as f64
        }
        .max(0.0);
        others_cell(out, layout, rg, group, x, y, w, h);
        x += w;
        left = left.saturating_sub(bytes);
    }
}

#[allow(clippy::too_many_arguments)]
fn others_cell(
    out: &mut String,
    layout: &Layout,
    rg: usize,
    others: &[&Chunk],
    x: f64,
    y: f64,
    w: f64,
    h: f64,
) {
    let first = others.first();
    let (codec, kind) = first.map_or((None, EncodingKind::Unknown), |c| (c.codec, c.kind));
    let bytes: u64 = others.iter().map(|c| c.compressed).sum();
    let uncompressed: u64 = others.iter().map(|c| c.uncompressed).sum();
    let mut largest: Vec<&&Chunk> = others.iter().collect();
    largest.sort_by_key(|c| std::cmp::Reverse(c.compressed));
    let mut tip = format!(
        "{} columns of row group {rg} too thin to draw\ncodec {} · {}\ncompressed {} · uncompressed {} · ratio {}\nlargest:",
        thousands(others.len() as i64),
        codec.map(|c| c.to_string()).unwrap_or_default(),
        kind.label(),
        bytes_text(bytes),
        bytes_text(uncompressed),
        ratio_text(ratio(uncompressed, bytes)),
    );
    for c in largest.iter().take(OTHERS_NAMED) {
        let _ = write!(
            tip,
            "\n  {} ({})",
            fit(layout.path(c.column), 60),
            bytes_text(c.compressed)
        );
    }
    let thin = if w < 3.0 || h < 3.0 { " t" } else { "" };
    let _ = write!(
        out,
        "<rect class=\"c{thin}\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"{}\" data-rg=\"{rg}\" data-others=\"{}\" data-bytes=\"{bytes}\"><title>",
        fill(codec, kind),
        others.len(),
    );
    escape(&tip, out);
    out.push_str("</title></rect>\n");
    let _ = writeln!(
        out,
        "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"url(#others)\" pointer-events=\"none\"/>"
    );
    if w >= 60.0 && h >= 14.0 {
        let chars = ((w - 6.0) / CHAR_W).floor() as usize;
        let attrs = " class=\"l h o\" fill=\"#111\"";
        let lines = [
            format!("{} columns", thousands(others.len() as i64)),
            bytes_text(bytes),
            kind.label().to_string(),
        ];
        for (k, line) in lines.iter().enumerate() {
            let ly = y + 12.0 + 12.0 * k as f64;
            if ly + 3.0 > y + h {
                break;
            }
            text(out, x + 3.0, ly, attrs, &fit(line, chars));
        }
    }
}

/// A column's chunks summed over the row groups.
struct ColumnTotal {
    column: usize,
    compressed: u64,
    uncompressed: u64,
    /// The codec and encoding of its largest chunk, and whether the others differ.
    codec: Option<Compression>,
    kind: EncodingKind,
    mixed: bool,
    largest: u64,
    seen: bool,
}

/// The table of the largest columns over all row groups; returns the y below it.
fn top_columns(out: &mut String, layout: &Layout, total: u64, y0: f64) -> f64 {
    let mut totals: Vec<ColumnTotal> = (0..layout.columns.len())
        .map(|column| ColumnTotal {
            column,
            compressed: 0,
            uncompressed: 0,
            codec: None,
            kind: EncodingKind::Unknown,
            mixed: false,
            largest: 0,
            seen: false,
        })
        .collect();
    for c in layout.row_groups.iter().flat_map(|g| &g.chunks) {
        let Some(t) = totals.get_mut(c.column) else {
            continue;
        };
        if t.seen {
            t.mixed |= t.codec != c.codec || t.kind != c.kind;
        }
        t.compressed += c.compressed;
        t.uncompressed += c.uncompressed;
        if !t.seen || c.compressed > t.largest {
            t.seen = true;
            t.largest = c.compressed;
            t.codec = c.codec;
            t.kind = c.kind;
        }
    }
    totals.sort_by_key(|t| std::cmp::Reverse(t.compressed));
    let shown = totals.len().min(TOP_COLUMNS);
    let heading = if shown < totals.len() {
        format!(
            "largest {shown} of {} columns, all row groups",
            thousands(totals.len() as i64)
        )
    } else {
        "columns by size, all row groups".to_string()
    };
    text(out, PAD, y0, " class=\"h\"", &heading);
    let cols: [(f64, &str, &str); 8] = [
        (PAD + 26.0, "column", ""),
        (T_TYPE, "type", ""),
        (T_CODEC, "codec", ""),
        (T_ENCODING, "encoding", ""),
        (T_COMPRESSED, "compressed", " class=\"n\""),
        (T_UNCOMPRESSED, "uncompressed", " class=\"n\""),
        (T_RATIO, "ratio", " class=\"n\""),
        (T_SHARE, "share", ""),
    ];
    let y = y0 + 20.0;
    for (x, name, attrs) in cols {
        text(out, x, y, &format!("{attrs} fill=\"#666\""), name);
    }
    let mut y = y + 4.0;
    for (rank, t) in totals.iter().take(shown).enumerate() {
        let path = layout.path(t.column);
        let type_text = layout
            .columns
            .get(t.column)
            .map_or("", |c| c.type_text.as_str());
        let codec = match t.codec {
            Some(c) => c.to_string(),
            None => "-".into(),
        };
        let share = if total == 0 {
            0.0
        } else {
            t.compressed as f64 / total as f64
        };
        let _ = write!(
            out,
            "<g><title>{}\n{}\ncompressed {} · uncompressed {} · ratio {}{}</title>",
            escaped(path),
            escaped(type_text),
            bytes_text(t.compressed),
            bytes_text(t.uncompressed),
            ratio_text(ratio(t.uncompressed, t.compressed)),
            if t.mixed {
                "\ncodec or encoding differs between row groups"
            } else {
                ""
            },
        );
        if rank.is_multiple_of(2) {
            let _ = writeln!(
                out,
                "<rect x=\"{PAD}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"18\" fill=\"#f6f7f9\"/>",
                WIDTH - 2.0 * PAD
            );
        }
        let ty = y + 13.0;
        let _ = writeln!(
            out,
            "<rect x=\"{PAD}\" y=\"{:.1}\" width=\"16\" height=\"12\" fill=\"{}\"/>",
            y + 3.0,
            fill(t.codec, t.kind)
        );
        text(out, PAD + 26.0, ty, "", &fit(path, 48));
        text(out, T_TYPE, ty, "", &fit(type_text, 27));
        text(out, T_CODEC, ty, "", &codec);
        let enc = if t.mixed {
            format!("{} (mixed)", t.kind.label())
        } else {
            t.kind.label().to_string()
        };
        text(out, T_ENCODING, ty, "", &fit(&enc, 26));
        text(
            out,
            T_COMPRESSED,
            ty,
            " class=\"n\"",
            &bytes_text(t.compressed),
        );
        text(
            out,
            T_UNCOMPRESSED,
            ty,
            " class=\"n\"",
            &bytes_text(t.uncompressed),
        );
        text(
            out,
            T_RATIO,
            ty,
            " class=\"n\"",
            &ratio_text(ratio(t.uncompressed, t.compressed)),
        );
        let bar = (WIDTH - PAD - T_SHARE - 40.0) * share;
        let _ = writeln!(
            out,
            "<rect x=\"{T_SHARE}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"10\" fill=\"{}\"/>",
            y + 4.0,
            fill(t.codec, t.kind)
        );
        text(
            out,
            T_SHARE + bar + 4.0,
            ty,
            " font-size=\"10.5\"",
            &format!("{:.1}%", share * 100.0),
        );
        out.push_str("</g>\n");
        y += 18.0;
    }
    y
}
