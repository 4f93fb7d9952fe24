//! Tests of `parq::page`: page walking, offset-index reads, decompression, CRCs, level
//! splitting and hostile input, over the parquet-testing corpus and hand-built chunks.
//!
//! Expected values come from the corpus (its README, the chunk metadata and offset indexes
//! written by other writers) and from pyarrow 26 (constants below, with the script that
//! produced them), never from parq itself.

use bytes::Bytes;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use parq::compression::Limits;
use parq::format::footer::{decode_file_metadata, decode_page_index, DecodeOptions, PageIndex};
use parq::format::metadata::{
    Compression, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, FileMetaData,
    PageHeader, PageLocation, PageType, UnknownFields,
};
use parq::page::{
    chunk_range, needs_legacy_dictionary_padding, split_v1, CompressedPage, LevelDecoder, Page,
    PageReader, PageReaderOptions,
};
use parq::{Error, ErrorKind};

mod common;
use common::{encode_header, page_header, CODECS};

/// The parquet-testing data directory of the shared test data (`common::testdata()`).
fn data_dir() -> PathBuf {
    common::testdata().join("parquet-testing/data")
}

/// A corpus file's bytes; a missing file fails the test (it never skips).
fn corpus_file(name: &str) -> Bytes {
    let path = data_dir().join(name);
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (set PARQ_TESTDATA to the shared test data directory)",
            path.display()
        )
    }))
}

fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    let dir = data_dir();
    assert!(
        dir.is_dir(),
        "{} is missing (set PARQ_TESTDATA to the shared test data directory)",
        dir.display()
    );
    let mut v = Vec::new();
    walk(&dir, &mut v);
    v.sort();
    v
}

fn meta_of(file: &[u8]) -> Option<FileMetaData> {
    decode_file_metadata(file, &DecodeOptions::default()).ok()
}

fn page_index_of(file: &[u8], meta: &FileMetaData) -> Option<PageIndex> {
    decode_page_index(file, 0, meta, None, None).ok()
}

fn opts(verify_crc: bool) -> PageReaderOptions {
    PageReaderOptions {
        verify_crc,
        ..PageReaderOptions::default()
    }
}

/// What reading one chunk found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct ChunkPages {
    dictionary_pages: usize,
    data_pages: usize,
    num_values: u64,
    /// The page types, in order.
    types: Vec<PageType>,
}

/// Reads every page of a chunk, checking each decompresses to its declared size.
fn read_chunk(mut r: PageReader) -> Result<ChunkPages, Error> {
    let mut out = ChunkPages::default();
    while let Some(page) = r.next_page()? {
        let meta = *page.meta();
        assert_eq!(
            page.uncompressed_len(),
            meta.uncompressed_size,
            "page {} at {}",
            meta.ordinal,
            meta.header_offset
        );
        out.types.push(page.page_type());
        match page {
            Page::Dictionary(_) => out.dictionary_pages += 1,
            Page::DataV1(_) | Page::DataV2(_) => {
                out.data_pages += 1;
                out.num_values += page.num_values() as u64;
            }
        }
    }
    Ok(out)
}

fn kind(e: &Error) -> &ErrorKind {
    e.kind()
}

// ---------------------------------------------------------------------------------------------
// The whole corpus.

/// Files whose pages carry a CRC that does not match (README: "mismatching CRC").
const CORRUPT_CRC: &[&str] = &[
    "datapage_v1-corrupt-checksum.parquet",
    "rle-dict-uncompressed-corrupt-checksum.parquet",
];

#[test]
fn corpus_every_chunk() {
    let files = corpus_files();
    let mut chunks = 0usize;
    let mut with_index = 0usize;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let file = Bytes::from(std::fs::read(path).unwrap());
        let Some(meta) = meta_of(&file) else {
            eprintln!("{name}: footer does not decode, skipped");
            continue;
        };
        let index = page_index_of(&file, &meta);
        let padding = needs_legacy_dictionary_padding(meta.created_by().as_deref());
        let corrupt = CORRUPT_CRC.contains(&name.as_str());
        for (i, g) in meta.row_groups().iter().enumerate() {
            for (j, c) in g.columns().iter().enumerate() {
                if !c.has_metadata() {
                    continue;
                }
                if !parq::compression::is_supported(c.codec()) {
                    eprintln!("{name}: rg {i} col {j}: codec {} unsupported", c.codec());
                    continue;
                }
                chunks += 1;
                let o = PageReaderOptions {
                    row_group: Some(i),
                    column: Some(j),
                    legacy_dictionary_padding: padding,
                    ..opts(!corrupt)
                };
                let walked =
                    PageReader::for_column_chunk(&file, 0, c, o.clone()).and_then(read_chunk);
                let walked = match walked {
                    Ok(w) => w,
                    // Pages of 2^30 + 4 bytes (README: "string column chunk of more than 2GB"):
                    // over the default 1 GiB limit, refused before anything is allocated.
                    Err(e)
                        if name == "large_string_map.brotli.parquet"
                            && matches!(kind(&e), ErrorKind::PageTooLarge { .. }) =>
                    {
                        continue
                    }
                    Err(e) => {
                        failures.push(format!("{name}: rg {i} col {j}: walk: {e}"));
                        continue;
                    }
                };
                // The reader already checks this; check it again from the outside.
                assert_eq!(walked.num_values, c.num_values() as u64, "{name} {i} {j}");
                assert!(walked.dictionary_pages <= 1);
                if let Some(d) = walked
                    .types
                    .iter()
                    .position(|t| *t == PageType::DictionaryPage)
                {
                    assert_eq!(d, 0, "{name}: the dictionary page comes first");
                }
                let Some(oi) = index.as_ref().and_then(|x| x.offset_index(i, j)) else {
                    continue;
                };
                with_index += 1;
                let locations = oi.page_locations();
                assert_eq!(
                    walked.data_pages,
                    locations.len(),
                    "{name}: rg {i} col {j}: data pages walked vs offset index"
                );
                let indexed = PageReader::for_column_chunk(&file, 0, c, o)
                    .and_then(|r| r.with_offset_index(locations))
                    .and_then(read_chunk);
                match indexed {
                    Ok(x) => assert_eq!(x, walked, "{name}: rg {i} col {j}: index vs walk"),
                    Err(e) => failures.push(format!("{name}: rg {i} col {j}: index: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{chunks} chunks read, {with_index} with an offset index");
    // The corpus as it is: 957 chunks, 410 of them with an offset index.
    assert!(chunks >= 957 && with_index >= 410, "{chunks} {with_index}");
}

// ---------------------------------------------------------------------------------------------
// Cross-checks with pyarrow 26.
//
// for f in FILES: m = pq.ParquetFile(f).metadata;
//   [m.row_group(0).column(j).num_values for j in range(m.num_columns)],
//   pq.read_table(f).column(name).null_count for the flat top-level columns.

/// A file, the num_values of each chunk of row group 0, and (column, null count) of flat
/// columns.
type PyarrowFacts = (&'static str, &'static [u64], &'static [(usize, usize)]);

const PYARROW: &[PyarrowFacts] = &[
    (
        "alltypes_plain.snappy.parquet",
        &[2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        &[(0, 0), (5, 0), (10, 0)],
    ),
    (
        "datapage_v2.snappy.parquet",
        &[5, 5, 5, 5, 10],
        &[(0, 1), (1, 0), (2, 0), (3, 0)],
    ),
    ("nested_lists.snappy.parquet", &[18, 3], &[(1, 0)]),
    ("overflow_i16_page_cnt.parquet", &[40000], &[(0, 0)]),
    (
        "datapage_v1-snappy-compressed-checksum.parquet",
        &[5120, 5120],
        &[(0, 0), (1, 0)],
    ),
    (
        "datapage_v1-uncompressed-checksum.parquet",
        &[5120, 5120],
        &[(0, 0), (1, 0)],
    ),
    (
        "rle-dict-snappy-checksum.parquet",
        &[1000, 1000],
        &[(0, 0), (1, 0)],
    ),
    (
        "plain-dict-uncompressed-checksum.parquet",
        &[1000, 1000],
        &[(0, 0), (1, 0)],
    ),
    ("page_v2_empty_compressed.parquet", &[10], &[(0, 10)]),
    ("datapage_v2_empty_datapage.snappy.parquet", &[1], &[(0, 1)]),
    (
        "alltypes_tiny_pages.parquet",
        &[7300; 13],
        &[(0, 0), (12, 0)],
    ),
    ("int32_with_null_pages.parquet", &[1000], &[(0, 275)]),
    (
        "hadoop_lz4_compressed.parquet",
        &[4, 4, 4],
        &[(0, 0), (2, 0)],
    ),
    ("repeated_no_annotation.parquet", &[6, 8, 8], &[(0, 0)]),
];

/// Counts the definition levels below the maximum (nulls of a flat column) in every data
/// page of a chunk, through the level helpers.
fn count_nulls(mut r: PageReader, max_rep: i16, max_def: i16) -> Result<(usize, u64), Error> {
    let mut nulls = 0usize;
    let mut values = 0u64;
    let mut levels: Vec<u16> = Vec::new();
    while let Some(page) = r.next_page()? {
        let (sections, n) = match &page {
            Page::Dictionary(_) => continue,
            Page::DataV1(p) => (p.sections(max_rep, max_def)?, p.num_values()),
            Page::DataV2(p) => (p.sections(max_rep, max_def)?, p.num_values()),
        };
        values += n as u64;
        levels.clear();
        levels.resize(n, 0);
        sections.definition.decoder()?.decode_exact(&mut levels)?;
        nulls += levels.iter().filter(|&&l| l < max_def as u16).count();
        if let Page::DataV2(p) = &page {
            assert_eq!(
                levels.iter().filter(|&&l| l < max_def as u16).count(),
                p.num_nulls(),
                "v2 num_nulls"
            );
        }
    }
    Ok((nulls, values))
}

#[test]
fn pyarrow_num_values_and_nulls() {
    for &(name, num_values, nulls) in PYARROW {
        let file = corpus_file(name);
        let meta = meta_of(&file).unwrap();
        let g = &meta.row_groups()[0];
        assert_eq!(g.columns().len(), num_values.len(), "{name}");
        for (j, c) in g.columns().iter().enumerate() {
            let pages = read_chunk(PageReader::for_column_chunk(&file, 0, c, opts(true)).unwrap())
                .unwrap_or_else(|e| panic!("{name} col {j}: {e}"));
            assert_eq!(pages.num_values, num_values[j], "{name} col {j}");
        }
        for &(j, expected) in nulls {
            let leaf = &meta.schema().leaves()[j];
            assert_eq!(leaf.max_rep_level, 0, "{name} col {j} is flat");
            let r = PageReader::for_column_chunk(&file, 0, &g.columns()[j], opts(true)).unwrap();
            let (got, values) = count_nulls(r, leaf.max_rep_level, leaf.max_def_level)
                .unwrap_or_else(|e| panic!("{name} col {j}: {e}"));
            assert_eq!(got, expected, "{name} col {j}: nulls");
            assert_eq!(values, num_values[j], "{name} col {j}");
        }
    }
}

#[test]
fn nested_levels_decode() {
    // nested_lists.snappy.parquet column 0: max levels (3, 7) (pyarrow's
    // `m.schema.column(0).max_repetition_level/max_definition_level`), 18 values, 3 rows.
    let file = corpus_file("nested_lists.snappy.parquet");
    let meta = meta_of(&file).unwrap();
    let c = &meta.row_groups()[0].columns()[0];
    let mut r = PageReader::for_column_chunk(&file, 0, c, opts(true)).unwrap();
    let mut reps: Vec<u8> = Vec::new();
    let mut defs: Vec<u8> = Vec::new();
    while let Some(page) = r.next_page().unwrap() {
        let Page::DataV1(p) = page else { continue };
        let s = p.sections(3, 7).unwrap();
        assert_eq!((s.repetition.bit_width, s.definition.bit_width), (2, 3));
        let n = p.num_values();
        let (r0, d0) = (reps.len(), defs.len());
        reps.resize(r0 + n, 0);
        defs.resize(d0 + n, 0);
        s.repetition
            .decoder()
            .unwrap()
            .decode_exact(&mut reps[r0..])
            .unwrap();
        s.definition
            .decoder()
            .unwrap()
            .decode_exact(&mut defs[d0..])
            .unwrap();
        assert!(!s.values.is_empty());
    }
    assert_eq!(reps.len(), 18);
    // A repetition level of 0 starts a row: pyarrow reads 3 rows.
    assert_eq!(reps.iter().filter(|&&l| l == 0).count(), 3);
    assert!(defs.iter().all(|&d| d <= 7) && reps.iter().all(|&l| l <= 3));
}

// ---------------------------------------------------------------------------------------------
// CRCs.

/// Reads a chunk with every page decompressed; returns the number of pages that carry a CRC.
fn crc_pages(file: &Bytes, j: usize, verify: bool) -> Result<usize, Error> {
    let meta = meta_of(file).unwrap();
    let c = &meta.row_groups()[0].columns()[j];
    let o = PageReaderOptions {
        row_group: Some(0),
        column: Some(j),
        ..opts(verify)
    };
    let mut r = PageReader::for_column_chunk(file, 0, c, o)?;
    let mut with_crc = 0;
    while let Some(p) = r.next_compressed()? {
        with_crc += usize::from(p.crc().is_some());
        r.decompress(p)?;
    }
    Ok(with_crc)
}

#[test]
fn crc_good_files_pass() {
    // README: every page of these files has a matching CRC; 2 data pages per column for the
    // v1 files, a dictionary page and a data page for the dictionary files. Quirk: the v2
    // data pages of the rle-dict files carry no `crc` at all (the README says "correct
    // crc"), so only their dictionary pages are checked.
    for (name, pages) in [
        ("datapage_v1-uncompressed-checksum.parquet", 2),
        ("datapage_v1-snappy-compressed-checksum.parquet", 2),
        ("rle-dict-snappy-checksum.parquet", 1),
        ("plain-dict-uncompressed-checksum.parquet", 2),
    ] {
        let file = corpus_file(name);
        for j in 0..2 {
            assert_eq!(crc_pages(&file, j, true).unwrap(), pages, "{name} col {j}");
        }
    }
}

fn expect_crc_error(e: &Error, page: u64, name: &str) {
    match kind(e) {
        ErrorKind::PageChecksumMismatch {
            page: p,
            expected,
            actual,
        } => {
            assert_eq!(*p, page, "{name}: {e}");
            assert_ne!(expected, actual);
        }
        _ => panic!("{name}: expected a CRC mismatch, got {e}"),
    }
    let text = e.to_string();
    assert!(text.contains(&format!("page {page} ")), "{text}");
    assert!(text.contains("CRC"), "{text}");
}

#[test]
fn crc_corrupt_files_fail_naming_the_page() {
    // README: datapage_v1-corrupt-checksum: column "a" page 0 bad, column "b" page 1 bad.
    let file = corpus_file("datapage_v1-corrupt-checksum.parquet");
    let meta = meta_of(&file).unwrap();
    for (j, bad_page) in [(0usize, 0u64), (1, 1)] {
        let e = crc_pages(&file, j, true).unwrap_err();
        expect_crc_error(&e, bad_page, "datapage_v1-corrupt-checksum");
        // The error's offset is the page header's; page 0 starts the chunk.
        let c = &meta.row_groups()[0].columns()[j];
        let start = chunk_range(c).unwrap().start;
        if bad_page == 0 {
            assert_eq!(e.offset(), Some(start));
        } else {
            assert!(e.offset().unwrap() > start);
        }
        assert!(
            e.to_string()
                .contains(&format!("row group[0] > column[{j}]")),
            "{e}"
        );
        // Without verification the pages read.
        assert_eq!(crc_pages(&file, j, false).unwrap(), 2);
    }
    // README: the dictionary page of both columns has a bad CRC.
    let file = corpus_file("rle-dict-uncompressed-corrupt-checksum.parquet");
    for j in 0..2 {
        let e = crc_pages(&file, j, true).unwrap_err();
        expect_crc_error(&e, 0, "rle-dict-uncompressed-corrupt-checksum");
        // Only the dictionary page has a `crc` (see crc_good_files_pass).
        assert_eq!(crc_pages(&file, j, false).unwrap(), 1);
    }
}

#[test]
fn crc_detects_a_flipped_body_byte() {
    let mut file = corpus_file("datapage_v1-snappy-compressed-checksum.parquet").to_vec();
    let meta = meta_of(&file).unwrap();
    let c = meta.row_groups()[0].columns()[0].clone();
    let body = {
        let bytes = Bytes::from(file.clone());
        let mut r = PageReader::for_column_chunk(&bytes, 0, &c, opts(true)).unwrap();
        let p = r.next_compressed().unwrap().unwrap();
        p.meta.body_offset as usize + p.meta.compressed_size - 1
    };
    file[body] ^= 0x10;
    let file = Bytes::from(file);
    let mut r = PageReader::for_column_chunk(&file, 0, &c, opts(true)).unwrap();
    let p = r.next_compressed().unwrap().unwrap();
    expect_crc_error(&p.verify_crc().unwrap_err(), 0, "flipped");
    expect_crc_error(&r.decompress(p).unwrap_err(), 0, "flipped");
}

// ---------------------------------------------------------------------------------------------
// Many pages, v2 empty pages.

#[test]
fn overflow_i16_page_count() {
    let file = corpus_file("overflow_i16_page_cnt.parquet");
    let meta = meta_of(&file).unwrap();
    let c = &meta.row_groups()[0].columns()[0];
    let mut r = PageReader::for_column_chunk(&file, 0, c, opts(true)).unwrap();
    let mut pages = 0u64;
    let mut last_ordinal = 0;
    while let Some(p) = r.next_page().unwrap() {
        assert!(matches!(p, Page::DataV1(_)));
        last_ordinal = p.meta().ordinal;
        pages += 1;
    }
    // README: "row group with more than INT16_MAX pages"; pyarrow: num_values 40000.
    assert!(pages > i16::MAX as u64, "{pages}");
    assert_eq!(last_ordinal, pages - 1);
    assert_eq!(r.values_read(), 40000);
    assert_eq!(r.data_pages_read(), pages);
}

#[test]
fn v2_empty_values_are_not_decompressed() {
    // README: all values null. The snappy file stores 0 value bytes (not a valid Snappy
    // stream: they must not reach the codec). The ZSTD file's values section is a ZSTD
    // stream of RLE_DICTIONARY data holding no index: just the bit-width byte 0.
    let zstd_values: &[u8] = &[0];
    for (name, codec, nulls, values) in [
        (
            "page_v2_empty_compressed.parquet",
            Compression::Zstd,
            10,
            zstd_values,
        ),
        (
            "datapage_v2_empty_datapage.snappy.parquet",
            Compression::Snappy,
            1,
            &[],
        ),
    ] {
        let file = corpus_file(name);
        let meta = meta_of(&file).unwrap();
        let c = &meta.row_groups()[0].columns()[0];
        assert_eq!(c.codec(), codec);
        let mut r = PageReader::for_column_chunk(&file, 0, c, opts(true)).unwrap();
        let mut seen = 0;
        while let Some(p) = r.next_page().unwrap() {
            let p = match p {
                // The ZSTD file has a dictionary page of 0 bytes too.
                Page::Dictionary(d) => {
                    assert_eq!(d.num_values(), 0, "{name}");
                    continue;
                }
                Page::DataV2(p) => p,
                Page::DataV1(_) => panic!("{name}: expected v2 data pages"),
            };
            assert_eq!(p.values, values, "{name}");
            assert_eq!(p.num_nulls(), p.num_values(), "{name}");
            assert!(p.repetition_levels.is_empty());
            seen += p.num_nulls();
            let s = p.sections(0, 1).unwrap();
            let mut defs = vec![1u8; p.num_values()];
            s.definition
                .decoder()
                .unwrap()
                .decode_exact(&mut defs)
                .unwrap();
            assert!(defs.iter().all(|&d| d == 0), "{name}");
        }
        assert_eq!(seen, nulls, "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// Chunk ranges and writer quirks.

#[test]
fn chunk_range_quirks() {
    // pyarrow: dictionary_page_offset 0 (bogus), data_page_offset 4, total_compressed_size 40.
    let file = corpus_file("dict-page-offset-zero.parquet");
    let meta = meta_of(&file).unwrap();
    assert_eq!(
        chunk_range(&meta.row_groups()[0].columns()[0]).unwrap(),
        4..44
    );
    // pyarrow: dictionary_page_offset 4, data_page_offset 0 (bogus), total_compressed_size 14.
    let file = corpus_file("column_chunk_key_value_metadata.parquet");
    let meta = meta_of(&file).unwrap();
    assert_eq!(
        chunk_range(&meta.row_groups()[0].columns()[0]).unwrap(),
        4..18
    );
    // created_by "parquet-mr": total_compressed_size leaves out the dictionary page header.
    let file = corpus_file("nation.dict-malformed.parquet");
    let meta = meta_of(&file).unwrap();
    let created_by = meta.created_by().map(|c| c.to_string());
    assert!(needs_legacy_dictionary_padding(created_by.as_deref()));
    let c = &meta.row_groups()[0].columns()[1];
    let e = read_chunk(PageReader::for_column_chunk(&file, 0, c, opts(true)).unwrap()).unwrap_err();
    assert!(
        matches!(kind(&e), ErrorKind::InvalidPage { page: 1, .. }),
        "{e}"
    );
    let padded = PageReaderOptions {
        legacy_dictionary_padding: true,
        ..opts(true)
    };
    let pages = read_chunk(PageReader::for_column_chunk(&file, 0, c, padded).unwrap()).unwrap();
    assert_eq!(pages.num_values, 25); // pyarrow: 25 rows
    for (created_by, padded) in [
        (Some("parquet-mr"), true),
        (Some("parquet-mr version 1.2.8"), true),
        (Some("parquet-mr version 1.2.9 (build abc)"), false),
        (Some("parquet-mr version 1.12.0-2018 (build cec1)"), false),
        (Some("parquet-cpp-arrow version 17.0.0"), false),
        (None, false),
    ] {
        assert_eq!(
            needs_legacy_dictionary_padding(created_by),
            padded,
            "{created_by:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-built chunks.

fn v1_header(num_values: i32, uncompressed: usize, compressed: usize) -> PageHeader {
    PageHeader {
        data_page_header: Some(DataPageHeader {
            num_values,
            encoding: Encoding::Plain,
            definition_level_encoding: Encoding::Rle,
            repetition_level_encoding: Encoding::Rle,
            statistics: None,
            unknown: UnknownFields::default(),
        }),
        ..page_header(PageType::DataPage, uncompressed, compressed)
    }
}

fn dict_header(num_values: i32, size: usize) -> PageHeader {
    PageHeader {
        dictionary_page_header: Some(DictionaryPageHeader {
            num_values,
            encoding: Encoding::Plain,
            is_sorted: None,
            unknown: UnknownFields::default(),
        }),
        ..page_header(PageType::DictionaryPage, size, size)
    }
}

fn v2_header(
    num_values: i32,
    num_nulls: i32,
    rep: usize,
    def: usize,
    uncompressed: usize,
    compressed: usize,
    is_compressed: Option<bool>,
) -> PageHeader {
    PageHeader {
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values,
            num_nulls,
            num_rows: num_values,
            encoding: Encoding::Plain,
            definition_levels_byte_length: def as i32,
            repetition_levels_byte_length: rep as i32,
            is_compressed,
            statistics: None,
            unknown: UnknownFields::default(),
        }),
        ..page_header(PageType::DataPageV2, uncompressed, compressed)
    }
}

/// Appends a page (header then body) to `chunk`.
fn push_page(chunk: &mut Vec<u8>, h: &PageHeader, body: &[u8]) {
    chunk.extend_from_slice(&encode_header(h));
    chunk.extend_from_slice(body);
}

/// An uncompressed v1 page of `n` required INT32 values.
fn plain_v1(chunk: &mut Vec<u8>, n: i32) {
    let body: Vec<u8> = (0..n).flat_map(|i| i.to_le_bytes()).collect();
    push_page(chunk, &v1_header(n, body.len(), body.len()), &body);
}

/// A page reader over `chunk` (at file offset 1000) that verifies CRCs.
fn reader(chunk: &[u8], codec: Compression) -> PageReader {
    let options = PageReaderOptions {
        verify_crc: true,
        ..PageReaderOptions::default()
    };
    PageReader::new(Bytes::copy_from_slice(chunk), 1000, codec, options)
}

fn invalid_page(e: &Error) -> (u64, String) {
    match kind(e) {
        ErrorKind::InvalidPage { page, message } => (*page, message.clone()),
        _ => panic!("expected an invalid page error, got {e}"),
    }
}

#[test]
fn page_sequence_rules() {
    // A dictionary page after a data page.
    let mut c = Vec::new();
    plain_v1(&mut c, 2);
    push_page(&mut c, &dict_header(1, 4), &[0; 4]);
    let e = read_chunk(reader(&c, Compression::Uncompressed)).unwrap_err();
    let (page, msg) = invalid_page(&e);
    assert_eq!(page, 1);
    assert!(msg.contains("after a data page"), "{msg}");
    assert!(e.offset().unwrap() > 1000);

    // Two dictionary pages.
    let mut c = Vec::new();
    push_page(&mut c, &dict_header(1, 4), &[0; 4]);
    push_page(&mut c, &dict_header(1, 4), &[0; 4]);
    plain_v1(&mut c, 2);
    let (page, msg) = invalid_page(&read_chunk(reader(&c, Compression::Uncompressed)).unwrap_err());
    assert_eq!(page, 1);
    assert!(msg.contains("second dictionary"), "{msg}");

    // Index pages and unknown page types are skipped, keeping their ordinals.
    let mut c = Vec::new();
    push_page(&mut c, &dict_header(1, 4), &[0; 4]);
    push_page(&mut c, &page_header(PageType::IndexPage, 3, 3), &[1, 2, 3]);
    push_page(&mut c, &page_header(PageType::Unknown(17), 2, 2), &[1, 2]);
    plain_v1(&mut c, 3);
    let mut r = reader(&c, Compression::Uncompressed).with_num_values(3);
    let ordinals: Vec<(PageType, u64)> = std::iter::from_fn(|| {
        r.next_page()
            .unwrap()
            .map(|p| (p.page_type(), p.meta().ordinal))
    })
    .collect();
    assert_eq!(
        ordinals,
        [(PageType::DictionaryPage, 0), (PageType::DataPage, 3)]
    );
    assert_eq!(r.pages_read(), 4);

    // A data page without its data_page_header.
    let mut c = Vec::new();
    push_page(&mut c, &page_header(PageType::DataPage, 4, 4), &[0; 4]);
    let (_, msg) = invalid_page(&read_chunk(reader(&c, Compression::Uncompressed)).unwrap_err());
    assert!(msg.contains("data_page_header"), "{msg}");

    // The chunk's num_values must match its pages'.
    let mut c = Vec::new();
    plain_v1(&mut c, 2);
    plain_v1(&mut c, 2);
    let e = read_chunk(reader(&c, Compression::Uncompressed).with_num_values(5)).unwrap_err();
    assert!(invalid_page(&e).1.contains("hold 4 values"), "{e}");
    assert_eq!(e.offset(), Some(1000 + c.len() as u64));
    let e = read_chunk(reader(&c, Compression::Uncompressed).with_num_values(3)).unwrap_err();
    assert!(invalid_page(&e).1.contains("hold 4 values"), "{e}");
    // Walking stops at num_values: bytes after the last page (padding) are not read.
    let mut padded = c.clone();
    padded.extend_from_slice(&[0xff; 7]);
    let pages = read_chunk(reader(&padded, Compression::Uncompressed).with_num_values(4)).unwrap();
    assert_eq!((pages.data_pages, pages.num_values), (2, 4));
    // Without num_values the padding is read as a header and fails cleanly.
    assert!(read_chunk(reader(&padded, Compression::Uncompressed)).is_err());

    // After an error the reader is finished.
    let mut r = reader(&padded, Compression::Uncompressed);
    while r.next_compressed().is_ok_and(|p| p.is_some()) {}
    assert!(r.next_compressed().unwrap().is_none());
}

#[test]
fn sizes_past_the_chunk_are_errors() {
    // A body larger than what is left of the chunk.
    let mut c = Vec::new();
    plain_v1(&mut c, 2);
    let h = v1_header(2, 8, 1 << 30);
    c.extend_from_slice(&encode_header(&h));
    c.extend_from_slice(&[0; 8]);
    let e = read_chunk(reader(&c, Compression::Uncompressed)).unwrap_err();
    let (page, msg) = invalid_page(&e);
    assert_eq!(page, 1);
    assert!(msg.contains("do not fit the column chunk"), "{msg}");
    assert_eq!(
        e.offset(),
        Some(1000 + encode_header(&v1_header(2, 8, 8)).len() as u64 + 8)
    );

    // A declared uncompressed size over the limit is refused before allocating.
    let mut c = Vec::new();
    push_page(&mut c, &v1_header(2, 1 << 20, 8), &[0; 8]);
    let o = PageReaderOptions {
        limits: Limits {
            max_page_bytes: 1 << 16,
        },
        ..PageReaderOptions::default()
    };
    let e = read_chunk(PageReader::new(
        Bytes::copy_from_slice(&c),
        0,
        Compression::Snappy,
        o,
    ))
    .unwrap_err();
    assert!(matches!(kind(&e), ErrorKind::PageTooLarge { .. }), "{e}");
    assert!(e.to_string().contains("page[0]"), "{e}");

    // LZ4 cannot expand 8 bytes to 512 MiB: refused before the codec allocates.
    let mut c = Vec::new();
    push_page(&mut c, &v1_header(2, 1 << 29, 8), &[0; 8]);
    let (_, msg) = invalid_page(&read_chunk(reader(&c, Compression::Lz4Raw)).unwrap_err());
    assert!(msg.contains("cannot expand"), "{msg}");

    // An uncompressed page whose sizes disagree.
    let mut c = Vec::new();
    push_page(&mut c, &v1_header(2, 9, 8), &[0; 8]);
    let e = read_chunk(reader(&c, Compression::Uncompressed)).unwrap_err();
    assert!(
        matches!(kind(&e), ErrorKind::PageSizeMismatch { .. }),
        "{e}"
    );
    assert_eq!(e.offset(), Some(1000));

    // v2 level lengths larger than the body, or than the uncompressed size.
    for (rep, def, unc) in [(6, 6, 12), (1, 2, 2)] {
        let mut c = Vec::new();
        push_page(&mut c, &v2_header(1, 0, rep, def, unc, 8, None), &[0; 8]);
        let (_, msg) = invalid_page(&read_chunk(reader(&c, Compression::Snappy)).unwrap_err());
        assert!(msg.contains("level"), "{msg}");
    }
    // v2 num_nulls above num_values is not an error: the definition levels say which values
    // are null (some writers get the count wrong; pyarrow reads such pages).
    let mut c = Vec::new();
    push_page(&mut c, &v2_header(1, 2, 0, 0, 4, 4, Some(false)), &[0; 4]);
    assert!(read_chunk(reader(&c, Compression::Snappy)).is_ok());
}

#[test]
fn v2_sections_and_is_compressed() {
    let rep = [2u8, 0];
    let def = [4u8, 1];
    let values: Vec<u8> = (0..16u8).collect();
    let compressed = snap::raw::Encoder::new().compress_vec(&values).unwrap();
    let mut c = Vec::new();
    // Compressed values (is_compressed absent: true by default).
    let mut body = [&rep[..], &def[..], &compressed[..]].concat();
    push_page(
        &mut c,
        &v2_header(2, 0, 2, 2, 4 + values.len(), body.len(), None),
        &body,
    );
    // is_compressed false: the values are stored as they are, in a snappy chunk.
    body = [&rep[..], &def[..], &values[..]].concat();
    push_page(
        &mut c,
        &v2_header(2, 0, 2, 2, 4 + values.len(), body.len(), Some(false)),
        &body,
    );
    // An empty values section in a snappy chunk: 0 bytes, never decompressed.
    push_page(&mut c, &v2_header(1, 1, 0, 2, 2, 2, None), &[2, 0]);
    let mut r = reader(&c, Compression::Snappy).with_num_values(5);
    for expect_values in [&values[..], &values[..], &[]] {
        let Some(Page::DataV2(p)) = r.next_page().unwrap() else {
            panic!("expected a v2 page");
        };
        assert_eq!(p.values, expect_values);
        let s = p.sections(1, 1).unwrap();
        assert_eq!(s.values, expect_values);
        if p.num_nulls() == 0 {
            assert_eq!((s.repetition.data, s.definition.data), (&rep[..], &def[..]));
            let mut levels = [9u8; 2];
            s.definition
                .decoder()
                .unwrap()
                .decode_exact(&mut levels)
                .unwrap();
            assert_eq!(levels, [1, 1]); // one RLE run: 2 values of 1
        }
    }
    assert!(r.next_page().unwrap().is_none());
}

#[test]
fn v1_level_split() {
    // RLE repetition levels (prefix 2, run of 3 zeros), BIT_PACKED definition levels
    // (3 values of width 1, least significant bit first as pyarrow reads them: 1, 0, 1 ->
    // 0b0000_0101), then values.
    let body = [2, 0, 0, 0, 6, 0, 0b0000_0101, 42, 43];
    let s = split_v1(&body, 3, 1, 1, Encoding::Rle, Encoding::BitPacked).unwrap();
    assert_eq!(s.repetition.data, &[6, 0]);
    assert_eq!(s.definition.data, &[0b0000_0101]);
    assert_eq!(s.values, &[42, 43]);
    let mut defs = [0u8; 3];
    match s.definition.decoder().unwrap() {
        mut d @ LevelDecoder::BitPacked(_) => d.decode_exact(&mut defs).unwrap(),
        other => panic!("{other:?}"),
    }
    assert_eq!(defs, [1, 0, 1]);
    let mut reps = [9u8; 3];
    s.repetition
        .decoder()
        .unwrap()
        .decode_exact(&mut reps)
        .unwrap();
    assert_eq!(reps, [0, 0, 0]);
    // Maximum levels of 0: no level sections, whatever the encodings say.
    let s = split_v1(&body, 3, 0, 0, Encoding::Plain, Encoding::Plain).unwrap();
    assert_eq!(s.values, &body[..]);
    assert!(s.repetition.is_absent() && s.definition.is_absent());
    // Width 2 for a maximum level of 2 or 3, 3 for 4..=7.
    let s = split_v1(&body, 3, 0, 3, Encoding::Rle, Encoding::Rle).unwrap();
    assert_eq!(s.definition.bit_width, 2);
    // Errors, no panics.
    assert!(split_v1(&body, 3, 1, 1, Encoding::Plain, Encoding::Rle).is_err());
    assert!(split_v1(&[9, 0, 0, 0, 1], 3, 1, 0, Encoding::Rle, Encoding::Rle).is_err());
    assert!(split_v1(&[1, 0], 3, 1, 0, Encoding::Rle, Encoding::Rle).is_err());
    assert!(split_v1(&[1], 100, 0, 3, Encoding::Rle, Encoding::BitPacked).is_err());
    assert!(split_v1(&body, 3, -1, 0, Encoding::Rle, Encoding::Rle).is_err());
}

#[test]
fn crc_definition() {
    // The standard CRC-32 check value.
    assert_eq!(parq::page::crc::checksum(b"123456789"), 0xCBF4_3926);
    // v2: the CRC covers the page bytes after the header as stored (levels and values).
    let body = [2u8, 0, 4, 1, 7, 7, 7, 7];
    let mut h = v2_header(2, 0, 2, 2, 8, 8, Some(false));
    h.crc = Some(parq::page::crc::checksum(&body) as i32);
    let mut c = Vec::new();
    push_page(&mut c, &h, &body);
    assert_eq!(
        read_chunk(reader(&c, Compression::Zstd))
            .unwrap()
            .num_values,
        2
    );
    h.crc = Some(parq::page::crc::checksum(&body[4..]) as i32);
    let mut c = Vec::new();
    push_page(&mut c, &h, &body);
    let e = read_chunk(reader(&c, Compression::Zstd)).unwrap_err();
    expect_crc_error(&e, 0, "v2");
    assert_eq!(e.offset(), Some(1000));
}

#[test]
fn offset_index_checks() {
    let mut c = Vec::new();
    push_page(&mut c, &dict_header(1, 4), &[0; 4]);
    let first = c.len();
    plain_v1(&mut c, 2);
    let second = c.len();
    plain_v1(&mut c, 3);
    let base = 500u64;
    let loc = |start: usize, end: usize| PageLocation {
        offset: base as i64 + start as i64,
        compressed_page_size: (end - start) as i32,
        first_row_index: 0,
        unknown: UnknownFields::default(),
    };
    let good = [loc(first, second), loc(second, c.len())];
    let r = PageReader::new(
        Bytes::copy_from_slice(&c),
        base,
        Compression::Uncompressed,
        PageReaderOptions::default(),
    )
    .with_num_values(5);
    let pages = read_chunk(r.with_offset_index(&good).unwrap()).unwrap();
    assert_eq!(
        pages.types,
        [
            PageType::DictionaryPage,
            PageType::DataPage,
            PageType::DataPage
        ]
    );
    let new = || {
        PageReader::new(
            Bytes::copy_from_slice(&c),
            base,
            Compression::Uncompressed,
            PageReaderOptions::default(),
        )
    };
    // Outside the chunk, overlapping, or out of order.
    for bad in [
        vec![loc(first, c.len() + 1)],
        vec![loc(first, second + 1), loc(second, c.len())],
        vec![loc(second, c.len()), loc(first, second)],
    ] {
        assert!(new().with_offset_index(&bad).is_err());
    }
    // A location whose size does not match its page, or that points at the dictionary page.
    let e = read_chunk(new().with_offset_index(&[loc(first, second - 1)]).unwrap()).unwrap_err();
    assert!(invalid_page(&e).1.contains("offset index location"), "{e}");
    let e = read_chunk(new().with_offset_index(&[loc(0, first)]).unwrap()).unwrap_err();
    assert!(invalid_page(&e).1.contains("not a data page"), "{e}");
    // A data page before the first location is not in the index.
    let e = read_chunk(new().with_offset_index(&[loc(second, c.len())]).unwrap()).unwrap_err();
    assert!(
        invalid_page(&e)
            .1
            .contains("before the first page of the offset index"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Allocation: none per page in steady state.

struct CountingAlloc;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_allocation() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards to the system allocator; the counter is a const-initialized thread-local
// without a destructor.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

#[test]
fn no_allocation_per_page() {
    // 2000 snappy v1 pages and 2000 snappy v2 pages of up to 4 KiB.
    let mut c = Vec::new();
    let mut enc = snap::raw::Encoder::new();
    let mut values = 0i32;
    for i in 0..2000usize {
        let n = 1024 - (i % 7) as i32;
        let body: Vec<u8> = (0..n).flat_map(|v| (v * 3).to_le_bytes()).collect();
        let z = enc.compress_vec(&body).unwrap();
        push_page(&mut c, &v1_header(n, body.len(), z.len()), &z);
        let v2 = [&[0u8, 0][..], &z].concat();
        push_page(
            &mut c,
            &v2_header(n, 0, 0, 2, body.len() + 2, v2.len(), None),
            &v2,
        );
        values += 2 * n;
    }
    let mut r = reader(&c, Compression::Snappy).with_num_values(values as u64);
    // The first page sizes the buffer.
    assert!(r.next_page().unwrap().is_some());
    let before = allocations();
    let mut pages = 1;
    while let Some(p) = r.next_page().unwrap() {
        assert!(p.buffer().len() <= 4096);
        pages += 1;
    }
    assert_eq!(allocations() - before, 0, "allocations over {pages} pages");
    assert_eq!(pages, 4000);

    // Uncompressed pages are borrowed: overflow_i16_page_cnt reads without allocating.
    let file = corpus_file("overflow_i16_page_cnt.parquet");
    let meta = meta_of(&file).unwrap();
    let mut r =
        PageReader::for_column_chunk(&file, 0, &meta.row_groups()[0].columns()[0], opts(true))
            .unwrap();
    let before = allocations();
    while r.next_page().unwrap().is_some() {}
    assert_eq!(allocations() - before, 0);
    assert_eq!(r.buffer_capacity(), 0);
}

// ---------------------------------------------------------------------------------------------
// Hostile input: errors, never panics.

/// Reads everything a chunk holds, splitting levels of data pages; the result is dropped.
fn read_all(
    chunk: &[u8],
    codec: Compression,
    num_values: Option<u64>,
    (max_rep, max_def): (i16, i16),
) -> Result<(), Error> {
    let mut r = PageReader::new(
        Bytes::copy_from_slice(chunk),
        4,
        codec,
        PageReaderOptions::default(),
    );
    if let Some(n) = num_values {
        r = r.with_num_values(n);
    }
    while let Some(page) = r.next_page()? {
        let s = match &page {
            Page::Dictionary(_) => continue,
            Page::DataV1(p) => p.sections(max_rep, max_def)?,
            Page::DataV2(p) => p.sections(max_rep, max_def)?,
        };
        let mut levels = vec![0u16; page.num_values().min(1 << 16)];
        s.repetition.decoder()?.decode_exact(&mut levels)?;
        s.definition.decoder()?.decode_exact(&mut levels)?;
    }
    Ok(())
}

/// (file, column): chunks of several codecs, page versions and CRCs.
const HOSTILE: &[(&str, usize)] = &[
    ("alltypes_plain.snappy.parquet", 1),
    ("datapage_v2.snappy.parquet", 0),
    ("datapage_v2.snappy.parquet", 4),
    ("datapage_v1-snappy-compressed-checksum.parquet", 0),
    ("rle-dict-snappy-checksum.parquet", 1),
    ("page_v2_empty_compressed.parquet", 0),
    ("datapage_v2_empty_datapage.snappy.parquet", 0),
    ("hadoop_lz4_compressed.parquet", 0),
    ("lz4_raw_compressed.parquet", 0),
    ("concatenated_gzip_members.parquet", 0),
    ("nested_lists.snappy.parquet", 0),
    ("large_string_map.brotli.parquet", 1),
];

/// A chunk to mangle: file name, bytes, codec, num_values and the column's maximum levels.
type Hostile = (String, Vec<u8>, Compression, u64, (i16, i16));

fn hostile_chunks() -> Vec<Hostile> {
    let mut out = Vec::new();
    for &(name, j) in HOSTILE {
        let file = corpus_file(name);
        let meta = meta_of(&file).unwrap();
        let c = &meta.row_groups()[0].columns()[j];
        let range = chunk_range(c).unwrap();
        let chunk = file[range.start as usize..range.end as usize].to_vec();
        let leaf = &meta.schema().leaves()[j];
        let levels = (leaf.max_rep_level, leaf.max_def_level);
        out.push((
            name.to_string(),
            chunk,
            c.codec(),
            c.num_values() as u64,
            levels,
        ));
    }
    out
}

#[test]
fn hostile_truncation() {
    for (name, chunk, codec, n, levels) in hostile_chunks() {
        read_all(&chunk, codec, Some(n), levels).unwrap_or_else(|e| panic!("{name}: {e}"));
        let step = (chunk.len() / 3000).max(1);
        for cut in (0..chunk.len()).step_by(step) {
            let e = read_all(&chunk[..cut], codec, Some(n), levels)
                .expect_err(&format!("{name}: cut at {cut} read"));
            assert!(
                e.offset().is_some(),
                "{name}: cut at {cut}: {e} has no offset"
            );
            let _ = read_all(&chunk[..cut], codec, None, levels);
        }
    }
}

#[test]
fn hostile_bit_flips_in_headers() {
    for (name, chunk, codec, n, levels) in hostile_chunks() {
        // The header bytes of the first pages.
        let mut headers = Vec::new();
        let mut r = PageReader::new(
            Bytes::copy_from_slice(&chunk),
            0,
            codec,
            PageReaderOptions::default(),
        );
        while let Some(p) = r.next_compressed().unwrap() {
            headers.push(p.meta.header_offset as usize..p.meta.body_offset as usize);
            if headers.len() == 3 {
                break;
            }
        }
        let mut copy = chunk.clone();
        for range in headers {
            for i in range {
                for bit in 0..8 {
                    copy[i] ^= 1 << bit;
                    let _ = read_all(&copy, codec, Some(n), levels);
                    let _ = read_all(&copy, codec, None, levels);
                    copy[i] ^= 1 << bit;
                }
                // Whole-byte rewrites that hit varint and length fields.
                for v in [0x00, 0x7f, 0x80, 0xff] {
                    let old = copy[i];
                    copy[i] = v;
                    let _ = read_all(&copy, codec, Some(n), levels);
                    copy[i] = old;
                }
            }
        }
        assert_eq!(copy, chunk, "{name}");
    }
}

#[test]
fn hostile_garbage_chunks() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..2000 {
        let len = (next() % 300) as usize;
        let mut chunk: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if round % 2 == 0 {
            // Start with a plausible header so the reader gets further.
            let mut c = Vec::new();
            push_page(&mut c, &v1_header(3, 12, 12), &[0; 12]);
            c.truncate((next() % (c.len() as u64 + 1)) as usize);
            c.extend_from_slice(&chunk);
            chunk = c;
        }
        let codecs = [Compression::Uncompressed].into_iter().chain(CODECS);
        for codec in codecs.chain([Compression::Lzo]) {
            let _ = read_all(&chunk, codec, None, (1, 2));
            let _ = read_all(&chunk, codec, Some(3), (0, 1));
        }
    }
}

#[test]
fn compressed_page_accessors() {
    let mut c = Vec::new();
    push_page(&mut c, &dict_header(1, 4), &[1, 2, 3, 4]);
    plain_v1(&mut c, 2);
    let mut r = reader(&c, Compression::Uncompressed);
    let d: CompressedPage = r.next_compressed().unwrap().unwrap();
    assert!(d.is_dictionary_page() && !d.is_data_page());
    assert_eq!(
        (d.num_values(), d.crc(), &d.body[..]),
        (Some(1), None, &[1u8, 2, 3, 4][..])
    );
    assert_eq!(d.meta.header_offset, 1000);
    assert_eq!(d.meta.body_offset, 1000 + d.header_bytes.len() as u64);
    // Skipping a page without decompressing it, then decompressing the next.
    drop(d);
    let p = r.next_compressed().unwrap().unwrap();
    assert!(p.is_data_page());
    let page = r.decompress(p).unwrap();
    assert_eq!(page.num_values(), 2);
    assert_eq!(page.buffer(), &[0, 0, 0, 0, 1, 0, 0, 0]);
    let (_, buffer) = r.into_parts();
    assert_eq!(buffer.capacity(), 0);
}
