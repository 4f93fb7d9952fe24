//! `parq layout FILE --html OUT.html --svg OUT.svg`: a picture of where a file's bytes go.
//! This module owns the model: one cell per column chunk, read from the footer (and the page
//! index when the file has one), with what a reader asks about it (sizes, codec, encodings,
//! pages, statistics), and the command that writes the pictures ([`svg`] draws the mosaic,
//! [`html`] wraps it in a page).
//!
//! Pages of a chunk are counted from its offset index when the file has a page index (one
//! read of the index region for the whole file), else from the chunk's `encoding_stats` in
//! the footer; when neither is there the count is left out rather than found by walking every
//! page header of the file, which would read the whole file.

mod html;
mod svg;

use std::fs::File;
use std::io::Write;
use std::path::Path;

use arrow_schema::TimeUnit;
use parq::format::footer::PageIndex;
use parq::format::metadata::{ColumnChunk, Compression, Encoding, FileMetaData, PageType};
use parq::schema::annotation::Unit;
use parq::schema::{Annotation, StatValue, StatsContext};

use crate::keys::KeyArgs;
use crate::schema::logical_type_text;
use crate::{read_footer, CliError};
use parq::edit::TempFile;

/// Writes the picture of `file` as an SVG to `svg_out` and/or as an HTML page to
/// `html_out`; says what it wrote.
pub fn run(
    file: &Path,
    html_out: Option<&Path>,
    svg_out: Option<&Path>,
    keys: &KeyArgs,
) -> Result<String, CliError> {
    if html_out.is_none() && svg_out.is_none() {
        return Err(CliError::new(
            file,
            parq::Error::new(parq::ErrorKind::InvalidArgument(
                "give --html OUT.html, --svg OUT.svg or both".into(),
            )),
        ));
    }
    for out in [html_out, svg_out].into_iter().flatten() {
        if parq::edit::same_file(file, out) {
            return Err(CliError::new(
                out,
                parq::Error::new(parq::ErrorKind::InvalidArgument(
                    "the output would replace the input".into(),
                )),
            ));
        }
    }
    let md = read_footer(file, keys)?;
    let file_bytes = std::fs::metadata(file)
        .map_err(|e| CliError::new(file, e.into()))?
        .len();
    let (index, index_note) = match read_page_index(file, &md, file_bytes) {
        Ok(pi) => (pi, None),
        Err(e) => (None, Some(format!("page index not read: {e}"))),
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string());
    let layout = Layout::new(&md, index.as_ref(), name, file_bytes, index_note);
    let picture = svg::render(&layout);
    let mut said = String::new();
    if let Some(out) = svg_out {
        let mut doc = String::with_capacity(picture.len() + 64);
        doc.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        doc.push_str(&picture);
        write_atomically(out, &doc)?;
        said.push_str(&format!("{}: {} bytes\n", out.display(), doc.len()));
    }
    if let Some(out) = html_out {
        let page = html::page(&layout, &picture);
        write_atomically(out, &page)?;
        said.push_str(&format!("{}: {} bytes\n", out.display(), page.len()));
    }
    Ok(said)
}

fn read_page_index(
    file: &Path,
    md: &FileMetaData,
    file_bytes: u64,
) -> parq::Result<Option<PageIndex>> {
    let mut f = File::open(file)?;
    parq::file::read_page_index_from(&mut f, md, None, None, file_bytes)
}

/// Writes `text` to `out` through a temporary file renamed into place when complete.
fn write_atomically(out: &Path, text: &str) -> Result<(), CliError> {
    let err = |e: parq::Error| CliError::new(out, e);
    let (mut tmp, mut f) = TempFile::create(out).map_err(err)?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| err(e.into()))?;
    drop(f);
    tmp.persist().map_err(err)
}

/// How a chunk's values are encoded, as the picture shades it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EncodingKind {
    /// Dictionary encoded, every data page.
    Dictionary,
    /// Dictionary encoded, then plain once the dictionary grew too large.
    DictionaryFallback,
    /// PLAIN.
    Plain,
    /// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY.
    Delta,
    /// BYTE_STREAM_SPLIT.
    ByteStreamSplit,
    /// RLE values (booleans).
    Rle,
    /// The chunk's metadata cannot be read (an encrypted column without its key).
    Unknown,
}

impl EncodingKind {
    pub const ALL: [EncodingKind; 7] = [
        EncodingKind::Dictionary,
        EncodingKind::DictionaryFallback,
        EncodingKind::Plain,
        EncodingKind::Delta,
        EncodingKind::ByteStreamSplit,
        EncodingKind::Rle,
        EncodingKind::Unknown,
    ];

    pub fn label(self) -> &'static str {
        match self {
            EncodingKind::Dictionary => "dictionary",
            EncodingKind::DictionaryFallback => "dictionary, then plain",
            EncodingKind::Plain => "plain",
            EncodingKind::Delta => "delta",
            EncodingKind::ByteStreamSplit => "byte stream split",
            EncodingKind::Rle => "RLE",
            EncodingKind::Unknown => "unreadable (encrypted)",
        }
    }

    fn of(c: &ColumnChunk, buf: &[u8]) -> EncodingKind {
        if !c.has_metadata() {
            return EncodingKind::Unknown;
        }
        let encs = c.encodings();
        let dict =
            encs.contains(Encoding::RleDictionary) || encs.contains(Encoding::PlainDictionary);
        if dict {
            let plain_data_pages = c
                .encoding_stats(buf)
                .and_then(Result::ok)
                .is_some_and(|list| {
                    list.iter().any(|s| {
                        s.page_type != PageType::DictionaryPage
                            && s.encoding == Encoding::Plain
                            && s.count > 0
                    })
                });
            return if plain_data_pages {
                EncodingKind::DictionaryFallback
            } else {
                EncodingKind::Dictionary
            };
        }
        if encs.contains(Encoding::DeltaBinaryPacked)
            || encs.contains(Encoding::DeltaLengthByteArray)
            || encs.contains(Encoding::DeltaByteArray)
        {
            EncodingKind::Delta
        } else if encs.contains(Encoding::ByteStreamSplit) {
            EncodingKind::ByteStreamSplit
        } else if encs.contains(Encoding::Plain) {
            EncodingKind::Plain
        } else if encs.contains(Encoding::Rle) {
            EncodingKind::Rle
        } else {
            EncodingKind::Plain
        }
    }
}

/// A leaf column of the schema.
pub struct Column {
    /// Dotted path.
    pub path: String,
    /// Physical type, then the logical (or converted) type in parentheses.
    pub type_text: String,
}

/// How many pages a chunk has, and where the count comes from.
#[derive(Debug, Clone, Copy)]
pub enum Pages {
    /// Data pages in the offset index.
    OffsetIndex(usize),
    /// Data pages in the footer's `encoding_stats`.
    EncodingStats(i64),
}

/// One column chunk: a cell of the mosaic.
pub struct Chunk {
    /// Leaf column index.
    pub column: usize,
    pub codec: Option<Compression>,
    pub encodings: Vec<Encoding>,
    pub kind: EncodingKind,
    /// `total_compressed_size`: the bytes in the file.
    pub compressed: u64,
    pub uncompressed: u64,
    pub num_values: i64,
    pub pages: Option<Pages>,
    /// Bytes of the dictionary page (header included), from the page offsets.
    pub dictionary_bytes: Option<u64>,
    pub null_count: Option<i64>,
    pub distinct_count: Option<i64>,
    pub min: Option<String>,
    pub max: Option<String>,
}

impl Chunk {
    /// Compressed over uncompressed bytes' inverse: how many times smaller the chunk is.
    pub fn ratio(&self) -> Option<f64> {
        ratio(self.uncompressed, self.compressed)
    }
}

/// A row group: a band of the mosaic.
pub struct RowGroup {
    pub num_rows: i64,
    /// The sum of its chunks' compressed bytes.
    pub compressed: u64,
    pub uncompressed: u64,
    pub chunks: Vec<Chunk>,
}

/// Everything the picture shows.
pub struct Layout {
    /// The file's name.
    pub name: String,
    pub file_bytes: u64,
    pub num_rows: i64,
    pub created_by: Option<String>,
    pub columns: Vec<Column>,
    pub row_groups: Vec<RowGroup>,
    /// Why the page index could not be read, when it could not.
    pub note: Option<String>,
}

impl Layout {
    pub fn new(
        md: &FileMetaData,
        index: Option<&PageIndex>,
        name: String,
        file_bytes: u64,
        note: Option<String>,
    ) -> Layout {
        let schema = md.schema();
        let columns = (0..schema.num_columns())
            .map(|j| Column {
                path: schema.leaf_path_string(j),
                type_text: schema
                    .leaf_element(j)
                    .map(|e| {
                        let physical = e.physical_type.map(|t| t.to_string()).unwrap_or_default();
                        match (&e.logical_type, e.converted_type) {
                            (Some(t), _) => {
                                format!("{physical} ({})", logical_type_text(t, schema.buf()))
                            }
                            (None, Some(c)) => format!("{physical} ({c})"),
                            (None, None) => physical,
                        }
                    })
                    .unwrap_or_default(),
            })
            .collect();
        let contexts: Vec<Option<StatsContext<'_>>> = (0..schema.num_columns())
            .map(|j| StatsContext::for_leaf(md, j).ok())
            .collect();
        let row_groups = md
            .row_groups()
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let chunks: Vec<Chunk> = g
                    .columns()
                    .iter()
                    .enumerate()
                    .map(|(j, c)| {
                        let ctx = contexts.get(j).and_then(Option::as_ref);
                        chunk(md, index, i, j, c, ctx)
                    })
                    .collect();
                RowGroup {
                    num_rows: g.num_rows,
                    compressed: chunks.iter().map(|c| c.compressed).sum(),
                    uncompressed: chunks.iter().map(|c| c.uncompressed).sum(),
                    chunks,
                }
            })
            .collect();
        Layout {
            name,
            file_bytes,
            num_rows: md.num_rows,
            created_by: md.created_by().map(|s| s.into_owned()),
            columns,
            row_groups,
            note,
        }
    }

    /// The path of leaf column `j`.
    pub fn path(&self, j: usize) -> &str {
        self.columns.get(j).map_or("?", |c| c.path.as_str())
    }

    /// Compressed and uncompressed bytes of all chunks.
    pub fn totals(&self) -> (u64, u64) {
        self.row_groups
            .iter()
            .fold((0, 0), |(c, u), g| (c + g.compressed, u + g.uncompressed))
    }

    /// The hover text of one chunk of row group `rg`.
    pub fn describe(&self, rg: usize, c: &Chunk) -> String {
        let mut s = format!(
            "{}  (column {}, row group {rg})",
            self.path(c.column),
            c.column
        );
        if let Some(col) = self.columns.get(c.column) {
            s.push_str(&format!("\n{}", col.type_text));
        }
        if c.kind == EncodingKind::Unknown {
            s.push_str("\nmetadata encrypted: give the column's key to see it");
            return s;
        }
        let encs: Vec<String> = c.encodings.iter().map(|e| e.to_string()).collect();
        s.push_str(&format!(
            "\ncodec {} · encodings {} ({})",
            c.codec.map(|c| c.to_string()).unwrap_or_default(),
            encs.join(", "),
            c.kind.label()
        ));
        s.push_str(&format!(
            "\ncompressed {} · uncompressed {} · ratio {}",
            bytes_text(c.compressed),
            bytes_text(c.uncompressed),
            ratio_text(c.ratio())
        ));
        s.push_str(&format!("\nvalues {}", thousands(c.num_values)));
        if let Some(n) = c.null_count {
            s.push_str(&format!(" · nulls {}", thousands(n)));
        }
        if let Some(n) = c.distinct_count {
            s.push_str(&format!(" · distinct {}", thousands(n)));
        }
        match c.pages {
            Some(Pages::OffsetIndex(n)) => s.push_str(&format!(
                "\ndata pages {} (offset index)",
                thousands(n as i64)
            )),
            Some(Pages::EncodingStats(n)) => {
                s.push_str(&format!("\ndata pages {} (encoding stats)", thousands(n)))
            }
            None => s.push_str("\ndata pages: not recorded"),
        }
        if let Some(d) = c.dictionary_bytes {
            s.push_str(&format!(" · dictionary page {}", bytes_text(d)));
        }
        match (&c.min, &c.max) {
            (Some(lo), Some(hi)) => s.push_str(&format!("\nmin {lo}\nmax {hi}")),
            _ => s.push_str("\nmin/max: none"),
        }
        s
    }
}

fn chunk(
    md: &FileMetaData,
    index: Option<&PageIndex>,
    rg: usize,
    j: usize,
    c: &ColumnChunk,
    ctx: Option<&StatsContext<'_>>,
) -> Chunk {
    let buf = md.buf();
    let kind = EncodingKind::of(c, buf);
    let known = c.has_metadata();
    let size = |v: i64| {
        if known {
            u64::try_from(v).unwrap_or(0)
        } else {
            0
        }
    };
    let offset_index = index.and_then(|pi| pi.offset_index(rg, j));
    let pages = offset_index
        .map(|oi| Pages::OffsetIndex(oi.page_locations().len()))
        .or_else(|| {
            let list = c.encoding_stats(buf)?.ok()?;
            Some(Pages::EncodingStats(
                list.iter()
                    .filter(|s| s.page_type != PageType::DictionaryPage)
                    .map(|s| i64::from(s.count))
                    .sum(),
            ))
        });
    // The dictionary page lies from the chunk's start to its first data page (which only the
    // offset index tells when a writer left `dictionary_page_offset` out).
    let dictionary_bytes = (kind == EncodingKind::Dictionary
        || kind == EncodingKind::DictionaryFallback)
        .then(|| {
            let start = c
                .dictionary_page_offset()
                .filter(|&d| d > 0)
                .unwrap_or(c.data_page_offset());
            let first = offset_index
                .and_then(|oi| oi.page_locations().first().map(|p| p.offset))
                .unwrap_or(c.data_page_offset());
            let n = first.checked_sub(start)?;
            (n > 0 && n <= c.total_compressed_size()).then(|| size(n))
        })
        .flatten();
    let stats = if known { c.statistics() } else { None };
    let typed =
        stats.and_then(|s| ctx.map(|ctx| (parq::schema::typed_statistics(&s, buf, ctx), ctx)));
    let (min, max) = match &typed {
        Some((t, ctx)) => (
            t.min.map(|v| stat_text(v, ctx.annotation)),
            t.max.map(|v| stat_text(v, ctx.annotation)),
        ),
        None => (None, None),
    };
    Chunk {
        column: j,
        codec: known.then(|| c.codec()),
        encodings: if known {
            c.encodings().iter().collect()
        } else {
            Vec::new()
        },
        kind,
        compressed: size(c.total_compressed_size()),
        uncompressed: size(c.total_uncompressed_size()),
        num_values: if known { c.num_values() } else { 0 },
        pages: if known { pages } else { None },
        dictionary_bytes: if known { dictionary_bytes } else { None },
        null_count: typed.as_ref().and_then(|(t, _)| t.null_count),
        distinct_count: typed.as_ref().and_then(|(t, _)| t.distinct_count),
        min,
        max,
    }
}

/// The longest statistic shown, in characters.
const STAT_CHARS: usize = 60;

/// A min or max as text, in the formats of `parq cat` where the annotation says what it is.
fn stat_text(v: StatValue<'_>, annotation: Annotation) -> String {
    let mut out = String::new();
    let unit = |u: Unit| match u {
        Unit::Millis => TimeUnit::Millisecond,
        Unit::Micros => TimeUnit::Microsecond,
        Unit::Nanos => TimeUnit::Nanosecond,
    };
    let int = |v: i64, out: &mut String| match annotation {
        Annotation::Date => crate::text::date(v, out),
        Annotation::Timestamp { unit: u, utc } => {
            crate::text::timestamp(v, unit(u), utc.then_some("UTC"), out)
        }
        Annotation::Time { unit: u, .. } => crate::text::time_of_day(v, unit(u), out),
        Annotation::Decimal { scale, .. } => {
            let _ = crate::text::decimal(v, i8::try_from(scale).unwrap_or(0), out);
        }
        _ => out.push_str(&v.to_string()),
    };
    match v {
        StatValue::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        StatValue::Int32(v) => int(i64::from(v), &mut out),
        StatValue::Int64(v) => int(v, &mut out),
        StatValue::UInt32(v) => out.push_str(&v.to_string()),
        StatValue::UInt64(v) => out.push_str(&v.to_string()),
        StatValue::Float(f) | StatValue::Float16(f) => {
            let _ = crate::text::float(f, &mut out);
        }
        StatValue::Double(f) => {
            let _ = crate::text::float(f, &mut out);
        }
        StatValue::Bytes(b) => match annotation {
            Annotation::String | Annotation::Enum | Annotation::Json => {
                out.push_str(&String::from_utf8_lossy(b))
            }
            _ => out.push_str(&crate::json::hex(b)),
        },
    }
    if out.chars().count() > STAT_CHARS {
        let cut: String = out.chars().take(STAT_CHARS - 1).collect();
        return format!("{cut}…");
    }
    out
}

/// How many times smaller the compressed bytes are.
pub fn ratio(uncompressed: u64, compressed: u64) -> Option<f64> {
    (compressed > 0).then(|| uncompressed as f64 / compressed as f64)
}

pub fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |r| format!("{r:.2}×"))
}

/// Bytes in binary units: `512 B`, `1.5 KiB`, `12.3 MiB`.
pub fn bytes_text(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// An integer with thousands separators: `1,234,567`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Appends `s` escaped for XML and HTML text and attribute values; characters XML cannot
/// hold become U+FFFD.
pub fn escape(s: &str, out: &mut String) {
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || matches!(c, '\u{fffe}' | '\u{ffff}') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
}

/// `s` escaped with [`escape`].
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(bytes_text(1023), "1023 B");
        assert_eq!(bytes_text(1536), "1.50 KiB");
        assert_eq!(bytes_text(200 * 1024 * 1024), "200 MiB");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escaped("<script>&\"'\u{1}"),
            "&lt;script&gt;&amp;&quot;&#39;\u{fffd}"
        );
    }
}
