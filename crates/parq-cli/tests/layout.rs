//! `parq layout` end to end. The bytes of every cell of the picture (its `data-bytes`) are
//! checked against pyarrow's `total_compressed_size` of the same column chunks
//! (`layout/peer.py sizes`), on corpus files and on a file of 10,000 columns that pyarrow
//! writes (`layout/peer.py wide`); the pages are rendered by headless Chromium and the
//! screenshots decoded to check the mosaic is drawn. The Python is `.venv/bin/python` at the
//! workspace root (or `$PARQ_PYTHON`), Chromium `/usr/bin/chromium` (or `$PARQ_CHROMIUM`):
//! without them these tests are skipped, except under `CI=true`, where they fail.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use common::{parq, python, testdata, tool};

fn chromium() -> Option<PathBuf> {
    let p = std::env::var("PARQ_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/usr/bin/chromium"));
    tool(p, "these tests render pages with it (set PARQ_CHROMIUM)")
}

fn peer() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/layout/peer.py")
        .to_str()
        .unwrap()
        .to_string()
}

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("layout")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn corpus(rel: &str) -> PathBuf {
    let p = testdata().join(rel);
    assert!(p.exists(), "missing test file {}", p.display());
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `parq layout` with `args`, which must succeed.
fn layout(args: &[&str]) {
    let mut all = vec!["layout"];
    all.extend_from_slice(args);
    let (code, out, err) = parq(&all);
    assert_eq!(code, 0, "parq {all:?}: {err}");
    assert!(out.contains("bytes"), "{out}");
}

/// pyarrow's `total_compressed_size` of each chunk, by row group.
fn pyarrow_sizes(py: &Path, file: &Path) -> Vec<Vec<u64>> {
    let out = Command::new(py)
        .args([&peer(), "sizes", s(file)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .collect()
        })
        .collect()
}

/// A cell of the mosaic as the picture writes it.
#[derive(Debug)]
struct Cell {
    rg: usize,
    /// The column of a single chunk's cell.
    col: Option<usize>,
    /// The number of columns of a merged cell.
    others: Option<usize>,
    bytes: u64,
}

/// The value of attribute `name` in the tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// The cells of a picture: every tag with `data-bytes`.
fn cells(doc: &str) -> Vec<Cell> {
    doc.split('<')
        .filter(|t| t.starts_with("rect ") && t.contains(" data-bytes=\""))
        .map(|t| {
            let tag = &t[..t.find('>').unwrap()];
            Cell {
                rg: attr(tag, "data-rg").unwrap().parse().unwrap(),
                col: attr(tag, "data-col").map(|v| v.parse().unwrap()),
                others: attr(tag, "data-others").map(|v| v.parse().unwrap()),
                bytes: attr(tag, "data-bytes").unwrap().parse().unwrap(),
            }
        })
        .collect()
}

/// Checks the cells of `doc` against pyarrow's sizes: each drawn chunk's bytes, and per row
/// group that every column is covered once (drawn or merged) and the bytes add up.
fn check_cells(doc: &str, sizes: &[Vec<u64>]) -> Vec<Cell> {
    let cells = cells(doc);
    let mut rows: BTreeMap<usize, (usize, u64)> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in &cells {
        let row = sizes
            .get(c.rg)
            .unwrap_or_else(|| panic!("{c:?}: no such row group"));
        let e = rows.entry(c.rg).or_default();
        e.1 += c.bytes;
        match (c.col, c.others) {
            (Some(j), None) => {
                assert_eq!(c.bytes, row[j], "row group {} column {j}", c.rg);
                assert!(seen.insert((c.rg, j)), "{c:?} drawn twice");
                e.0 += 1;
            }
            (None, Some(n)) => {
                assert!(n > 0, "{c:?}");
                e.0 += n;
            }
            _ => panic!("{c:?}: neither a column nor merged columns"),
        }
    }
    assert_eq!(rows.len(), sizes.len(), "row groups drawn");
    for (i, row) in sizes.iter().enumerate() {
        let (columns, bytes) = rows[&i];
        assert_eq!(columns, row.len(), "columns covered in row group {i}");
        assert_eq!(bytes, row.iter().sum::<u64>(), "bytes of row group {i}");
    }
    cells
}

/// Renders `page` in headless Chromium to a PNG of 1200x800 and returns it.
fn screenshot(chromium: &Path, page: &Path, dir: &Path) -> PathBuf {
    let png = page.with_extension(format!(
        "{}.png",
        page.extension().unwrap().to_str().unwrap()
    ));
    let profile = dir.join(format!(
        "profile-{}",
        page.file_name().unwrap().to_str().unwrap()
    ));
    let url = format!("file://{}", s(&page.canonicalize().unwrap()));
    let start = Instant::now();
    let out = Command::new("timeout")
        .arg("120")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", s(&profile)),
            &format!("--screenshot={}", s(&png)),
            "--window-size=1200,800",
            &url,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success() && png.exists(),
        "chromium failed on {}: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&profile);
    eprintln!("rendered {} in {:?}", page.display(), start.elapsed());
    png
}

/// Of the screenshot's region x0..x1, y0..y1: the share of pixels that are not white, and
/// the number of distinct colours.
fn pixels(png: &Path, (x0, y0, x1, y1): (usize, usize, usize, usize)) -> (f64, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected colour type {other:?}"),
    };
    assert!(info.width as usize >= x1 && info.height as usize >= y1);
    let mut colours = std::collections::HashSet::new();
    let mut inked = 0usize;
    for y in y0..y1 {
        for x in x0..x1 {
            let at = y * info.line_size + x * channels;
            let rgb = (buf[at], buf[at + 1], buf[at + 2]);
            colours.insert(rgb);
            if rgb != (255, 255, 255) {
                inked += 1;
            }
        }
    }
    (inked as f64 / ((x1 - x0) * (y1 - y0)) as f64, colours.len())
}

/// Where the mosaic lies in a 1200x800 screenshot (with room for the page's margins).
const MOSAIC: (usize, usize, usize, usize) = (220, 180, 1120, 500);

fn assert_drawn(png: &Path, min_colours: usize) {
    let (inked, colours) = pixels(png, MOSAIC);
    assert!(
        inked > 0.9,
        "{}: only {inked:.2} of the mosaic is drawn",
        png.display()
    );
    assert!(
        colours >= min_colours,
        "{}: {colours} colours in the mosaic",
        png.display()
    );
}

#[test]
fn cells_match_pyarrow_on_corpus_files() {
    let Some(py) = python() else { return };
    let dir = tmp("corpus");
    for rel in [
        "parquet-testing/data/alltypes_tiny_pages.parquet",
        "parquet-testing/data/nested_structs.rust.parquet",
        "real-world/duckdb__duckdb/data__parquet-testing__lineitem-top10000.gzip.parquet",
        "real-world/duckdb__duckdb/data__parquet-testing__aws1.snappy.parquet",
        "real-world/rapidsai__cudf/java__src__test__resources__splittable-multi-rgs.parquet",
    ] {
        let file = corpus(rel);
        let svg = dir.join("out.svg");
        let html = dir.join("out.html");
        layout(&[s(&file), "--svg", s(&svg), "--html", s(&html)]);
        let sizes = pyarrow_sizes(&py, &file);
        let svg_doc = std::fs::read_to_string(&svg).unwrap();
        let html_doc = std::fs::read_to_string(&html).unwrap();
        assert!(svg_doc.starts_with("<?xml"), "{rel}");
        assert!(html_doc.starts_with("<!DOCTYPE html>"), "{rel}");
        let a = check_cells(&svg_doc, &sizes);
        let b = check_cells(&html_doc, &sizes);
        assert_eq!(a.len(), b.len(), "{rel}: the page draws the SVG's cells");
        // Every column of the narrower files is drawn, none merged.
        if sizes[0].len() <= 16 {
            assert!(a.iter().all(|c| c.others.is_none()), "{rel}");
        }
        // No fetches: the page is self-contained.
        assert!(
            !html_doc.contains(" src=") && !html_doc.contains("href="),
            "{rel}"
        );
    }
}

#[test]
fn hover_text_tells_codec_encoding_pages_and_statistics() {
    let dir = tmp("hover");
    let file = corpus("parquet-testing/data/alltypes_tiny_pages.parquet");
    let svg = dir.join("out.svg");
    layout(&[s(&file), "--svg", s(&svg)]);
    let doc = std::fs::read_to_string(&svg).unwrap();
    // pyarrow: row_group(0).column(0) is `id`, INT32, UNCOMPRESSED, min 0, max 7299; the file
    // has a page index.
    let id = doc
        .split("<rect ")
        .find(|t| t.contains("data-rg=\"0\" data-col=\"0\""))
        .unwrap();
    for want in [
        "id  (column 0, row group 0)",
        "INT32",
        "codec UNCOMPRESSED",
        "ratio 1.00×",
        "values 7,300",
        "(offset index)",
        "min 0\nmax 7299",
    ] {
        assert!(id.contains(want), "{want:?} not in {id}");
    }
    let ts = doc
        .split("<rect ")
        .find(|t| t.contains("data-rg=\"0\" data-col=\"10\""))
        .unwrap();
    assert!(ts.contains("dictionary page"), "{ts}");
}

/// The file of 10,000 columns of `peer.py wide`, written once per test run.
fn wide(py: &Path) -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let out = tmp("wide-file").join("wide.parquet");
        let st = Command::new(py)
            .args([&peer(), "wide", s(&out), "10000"])
            .status()
            .unwrap();
        assert!(st.success());
        out
    })
    .clone()
}

#[test]
fn ten_thousand_columns_stay_small_and_render() {
    let Some(py) = python() else { return };
    let chromium = chromium();
    let dir = tmp("wide");
    let file = wide(&py);
    let (svg, html) = (dir.join("wide.svg"), dir.join("wide.html"));
    let start = Instant::now();
    layout(&[s(&file), "--svg", s(&svg), "--html", s(&html)]);
    eprintln!("parq layout of 10,000 columns: {:?}", start.elapsed());
    let sizes = pyarrow_sizes(&py, &file);
    assert_eq!(sizes.len(), 3);
    assert_eq!(sizes[0].len(), 10_000);
    for out in [&svg, &html] {
        let doc = std::fs::read_to_string(out).unwrap();
        assert!(
            doc.len() < 4 << 20,
            "{}: {} bytes",
            out.display(),
            doc.len()
        );
        let cells = check_cells(&doc, &sizes);
        // The thin columns are merged, by codec and encoding.
        let merged: Vec<&Cell> = cells.iter().filter(|c| c.others.is_some()).collect();
        assert!(merged.len() >= 3, "{merged:?}");
        assert!(cells.len() < 6000, "{} cells", cells.len());
        // The column named like markup is text, never markup.
        assert!(doc.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"));
        assert!(!doc.contains("<script>alert"));
    }
    let html_doc = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        html_doc.matches("<script").count(),
        1,
        "only the page's own script"
    );
    let Some(chromium) = chromium else { return };
    for page in [&html, &svg] {
        let png = screenshot(&chromium, page, &dir);
        assert_drawn(&png, 8);
    }
}

#[test]
fn corpus_pages_render() {
    let Some(chromium) = chromium() else { return };
    let dir = tmp("render");
    for (rel, name) in [
        ("parquet-testing/data/alltypes_tiny_pages.parquet", "tiny"),
        (
            "real-world/duckdb__duckdb/data__parquet-testing__aws1.snappy.parquet",
            "aws1",
        ),
    ] {
        let file = corpus(rel);
        let html = dir.join(format!("{name}.html"));
        let svg = dir.join(format!("{name}.svg"));
        layout(&[s(&file), "--html", s(&html), "--svg", s(&svg)]);
        for page in [&html, &svg] {
            let png = screenshot(&chromium, page, &dir);
            assert_drawn(&png, 3);
        }
    }
}

#[test]
fn needs_an_output_and_never_leaves_a_partial_file() {
    let file = corpus("parquet-testing/data/alltypes_tiny_pages.parquet");
    let (code, _, err) = parq(&["layout", s(&file)]);
    assert_ne!(code, 0);
    assert!(err.contains("--html") && err.contains("--svg"), "{err}");

    let dir = tmp("errors");
    let missing = dir.join("no/such/dir/out.html");
    let (code, _, err) = parq(&["layout", s(&file), "--html", s(&missing)]);
    assert_ne!(code, 0);
    assert!(err.contains("temporary file"), "{err}");

    // An unreadable input writes nothing.
    let bad = dir.join("bad.parquet");
    std::fs::write(&bad, b"PAR1 not a parquet file").unwrap();
    let out = dir.join("out.svg");
    let (code, _, _) = parq(&["layout", s(&bad), "--svg", s(&out)]);
    assert_ne!(code, 0);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "only bad.parquet"
    );

    // The output never replaces the input.
    let (code, _, err) = parq(&["layout", s(&bad), "--svg", s(&bad)]);
    assert_ne!(code, 0);
    assert!(err.contains("replace the input"), "{err}");
}
