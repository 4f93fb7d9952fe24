//! Page headers, page indexes, Bloom filter headers and crypto metadata: hand-assembled
//! encodings, exact round trips (including unknown fields and union variants), truncation
//! and hostile lengths, and real structures from the parquet-testing corpus
//! (`$PARQ_TESTDATA/parquet-testing/data`).

use std::fmt::Debug;

use parq_format::metadata::*;
use parq_format::thrift::{wire, Reader, Writer};
use parq_format::{ErrorKind, Result};

// ---------------------------------------------------------------------------------------------
// Helpers

type DecodeFn<T> = fn(&mut Reader<'_>, Option<&mut Arena>) -> Result<T>;
type EncodeFn<T> = fn(&T, &mut Writer<'_>, &[u8]);

/// Checks every property a valid encoding must have, and returns the decoded value:
/// decoding consumes all of `bytes`; encoding gives `bytes` back (with and without an arena);
/// decoding the re-encoding gives the same value; every proper prefix is an error.
fn check<T: PartialEq + Debug>(bytes: &[u8], dec: DecodeFn<T>, enc: EncodeFn<T>) -> T {
    let mut r = Reader::new(bytes);
    let v = dec(&mut r, None).unwrap_or_else(|e| panic!("decode failed: {e}"));
    assert_eq!(r.remaining(), 0, "decode must consume the whole encoding");
    let mut out = Vec::new();
    enc(&v, &mut Writer::new(&mut out), bytes);
    assert_eq!(out, bytes, "re-encoding must give the same bytes");
    let again = dec(&mut Reader::new(&out), None).expect("decode of re-encoding");
    assert_eq!(again, v);

    let mut arena = Arena::default();
    let va = dec(&mut Reader::new(bytes), Some(&mut arena)).expect("decode with arena");
    let mut out = Vec::new();
    enc(&va, &mut Writer::new(&mut out), arena.as_slice());
    assert_eq!(
        out, bytes,
        "re-encoding from the arena must give the same bytes"
    );

    for n in 0..bytes.len() {
        let res = dec(&mut Reader::new(&bytes[..n]), None);
        assert!(
            res.is_err(),
            "prefix of {n}/{} bytes decoded: {res:?}",
            bytes.len()
        );
        let mut arena = Arena::default();
        assert!(dec(&mut Reader::new(&bytes[..n]), Some(&mut arena)).is_err());
    }
    v
}

/// Decoding must never panic on any single-byte corruption of `bytes`.
fn corrupt_every_byte<T>(bytes: &[u8], dec: DecodeFn<T>) {
    for i in 0..bytes.len() {
        for x in [0x00, 0x01, 0x0f, 0x19, 0x7f, 0x80, 0xf9, 0xff] {
            let mut b = bytes.to_vec();
            b[i] = x;
            let _ = dec(&mut Reader::new(&b), None);
            let mut arena = Arena::default();
            let _ = dec(&mut Reader::new(&b), Some(&mut arena));
        }
    }
}

fn decode_err<T: Debug>(bytes: &[u8], dec: DecodeFn<T>) -> ErrorKind {
    match dec(&mut Reader::new(bytes), None) {
        Ok(v) => panic!("expected an error, decoded {v:?}"),
        Err(e) => e.kind().clone(),
    }
}

fn missing_field(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::MissingRequiredField { field } => field,
        other => panic!("expected a missing field error, got {other:?}"),
    }
}

/// A small builder of compact-protocol structures, on top of `Writer`.
#[derive(Default)]
struct B {
    out: Vec<u8>,
    last: Vec<i16>,
}

impl B {
    fn new() -> B {
        B {
            out: Vec::new(),
            last: vec![0],
        }
    }
    fn w(&mut self) -> Writer<'_> {
        Writer::new(&mut self.out)
    }
    fn header(&mut self, ty: u8, id: i16) -> &mut Self {
        let mut last = *self.last.last().unwrap();
        Writer::new(&mut self.out).write_field_header(ty, id, &mut last);
        *self.last.last_mut().unwrap() = last;
        self
    }
    fn i32(&mut self, id: i16, v: i32) -> &mut Self {
        self.header(wire::I32, id).w().write_i32(v);
        self
    }
    fn i64(&mut self, id: i16, v: i64) -> &mut Self {
        self.header(wire::I64, id).w().write_i64(v);
        self
    }
    fn bin(&mut self, id: i16, v: &[u8]) -> &mut Self {
        self.header(wire::BINARY, id).w().write_binary(v);
        self
    }
    fn bool(&mut self, id: i16, v: bool) -> &mut Self {
        let ty = if v { wire::BOOL_TRUE } else { wire::BOOL_FALSE };
        self.header(ty, id)
    }
    /// Starts a struct field.
    fn begin(&mut self, id: i16) -> &mut Self {
        self.header(wire::STRUCT, id);
        self.last.push(0);
        self
    }
    /// Starts a struct list element.
    fn elem(&mut self) -> &mut Self {
        self.last.push(0);
        self
    }
    /// Ends a struct (writes STOP).
    fn end(&mut self) -> &mut Self {
        self.w().write_stop();
        self.last.pop();
        self
    }
    fn list_header(&mut self, id: i16, ety: u8, n: usize) -> &mut Self {
        self.header(wire::LIST, id).w().write_list_header(ety, n);
        self
    }
    fn list_bool(&mut self, id: i16, v: &[bool]) -> &mut Self {
        self.list_header(id, wire::BOOL_TRUE, v.len());
        for &b in v {
            self.w().write_bool_element(b);
        }
        self
    }
    fn list_i64(&mut self, id: i16, v: &[i64]) -> &mut Self {
        self.list_header(id, wire::I64, v.len());
        for &x in v {
            self.w().write_i64(x);
        }
        self
    }
    fn list_bin(&mut self, id: i16, v: &[&[u8]]) -> &mut Self {
        self.list_header(id, wire::BINARY, v.len());
        for x in v {
            self.w().write_binary(x);
        }
        self
    }
    /// Ends the outermost struct and returns the bytes.
    fn done(&mut self) -> Vec<u8> {
        self.w().write_stop();
        std::mem::take(&mut self.out)
    }
}

/// The parquet-testing data directory, under the shared test data directory
/// (`$PARQ_TESTDATA`, else `../shared/testdata` beside the repository, as in
/// `tests/common`).
fn data_dir() -> std::path::PathBuf {
    let testdata = std::env::var_os("PARQ_TESTDATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata")
        });
    testdata.join("parquet-testing/data")
}

fn corpus(name: &str) -> Vec<u8> {
    let path = data_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The offset where the footer (or, for PARE files, the crypto metadata) starts.
fn footer_start(file: &[u8]) -> usize {
    let n = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
    file.len() - 8 - n as usize
}

// ---------------------------------------------------------------------------------------------
// Page headers

/// DATA_PAGE, 1000 bytes uncompressed, 600 compressed, with a v1 header of 100 values,
/// PLAIN values, RLE definition levels, BIT_PACKED repetition levels.
const DATA_PAGE_LITERAL: &[u8] = &[
    0x15, 0x00, // 1: type = DATA_PAGE
    0x15, 0xd0, 0x0f, // 2: uncompressed_page_size = 1000
    0x15, 0xb0, 0x09, // 3: compressed_page_size = 600
    0x2c, // 5: data_page_header
    0x15, 0xc8, 0x01, // 1: num_values = 100
    0x15, 0x00, // 2: encoding = PLAIN
    0x15, 0x06, // 3: definition_level_encoding = RLE
    0x15, 0x08, // 4: repetition_level_encoding = BIT_PACKED
    0x00, 0x00,
];

#[test]
fn page_header_literal() {
    let h = check(DATA_PAGE_LITERAL, PageHeader::decode, PageHeader::encode);
    assert_eq!(h.page_type, PageType::DataPage);
    assert_eq!(h.uncompressed_page_size, 1000);
    assert_eq!(h.compressed_page_size, 600);
    assert_eq!(h.crc, None);
    let d = h.data_page_header.as_ref().unwrap();
    assert_eq!(d.num_values, 100);
    assert_eq!(d.encoding, Encoding::Plain);
    assert_eq!(d.definition_level_encoding, Encoding::Rle);
    assert_eq!(d.repetition_level_encoding, Encoding::BitPacked);
    assert!(d.statistics.is_none() && d.unknown.is_empty() && h.unknown.is_empty());
    assert!(h.dictionary_page_header.is_none() && h.data_page_header_v2.is_none());
    let (h2, len) = PageHeader::decode_prefix(&[DATA_PAGE_LITERAL, b"page data"].concat()).unwrap();
    assert_eq!((h2, len), (h, DATA_PAGE_LITERAL.len()));
}

fn data_page_with_stats() -> Vec<u8> {
    let mut b = B::new();
    b.i32(1, 0).i32(2, 4096).i32(3, 2048).i32(4, -12345);
    b.begin(5).i32(1, 7).i32(2, 8).i32(3, 3).i32(4, 3);
    b.begin(5)
        .i64(3, 2)
        .bin(5, b"zz")
        .bin(6, b"aa")
        .bool(7, true)
        .end();
    b.end();
    b.done()
}

#[test]
fn page_header_data_page_built() {
    let bytes = data_page_with_stats();
    let h = check(&bytes, PageHeader::decode, PageHeader::encode);
    assert_eq!(h.crc, Some(-12345));
    let d = h.data_page_header.unwrap();
    assert_eq!(d.encoding, Encoding::RleDictionary);
    assert_eq!(d.num_values, 7);
    let s = d.statistics.unwrap();
    assert_eq!(s.null_count, Some(2));
    assert_eq!(s.max_value.unwrap().slice(&bytes), b"zz");
    assert_eq!(s.min_value.unwrap().slice(&bytes), b"aa");
    assert_eq!(s.is_max_value_exact, Some(true));
    corrupt_every_byte(&bytes, PageHeader::decode);
}

#[test]
fn page_header_dictionary_v2_index() {
    let mut b = B::new();
    b.i32(1, 2).i32(2, 80).i32(3, 80);
    b.begin(7).i32(1, 20).i32(2, 0).bool(3, true).end();
    let bytes = b.done();
    let h = check(&bytes, PageHeader::decode, PageHeader::encode);
    assert_eq!(h.page_type, PageType::DictionaryPage);
    let d = h.dictionary_page_header.unwrap();
    assert_eq!(
        (d.num_values, d.encoding, d.is_sorted),
        (20, Encoding::Plain, Some(true))
    );

    let mut b = B::new();
    b.i32(1, 3).i32(2, 500).i32(3, 300);
    b.begin(8)
        .i32(1, 10)
        .i32(2, 3)
        .i32(3, 4)
        .i32(4, 9)
        .i32(5, 6)
        .i32(6, 0);
    b.bool(7, false).begin(8).i64(3, 3).end().end();
    let bytes = b.done();
    let h = check(&bytes, PageHeader::decode, PageHeader::encode);
    assert_eq!(h.page_type, PageType::DataPageV2);
    let v2 = h.data_page_header_v2.unwrap();
    assert_eq!(
        (v2.num_values, v2.num_nulls, v2.num_rows, v2.encoding),
        (10, 3, 4, Encoding::ByteStreamSplit)
    );
    assert_eq!(
        (
            v2.definition_levels_byte_length,
            v2.repetition_levels_byte_length
        ),
        (6, 0)
    );
    assert_eq!(v2.is_compressed, Some(false));
    assert!(!v2.values_compressed());
    assert_eq!(v2.statistics.unwrap().null_count, Some(3));
    corrupt_every_byte(&bytes, PageHeader::decode);

    // is_compressed absent: compressed by default.
    let mut b = B::new();
    b.i32(1, 3).i32(2, 5).i32(3, 5);
    b.begin(8)
        .i32(1, 1)
        .i32(2, 0)
        .i32(3, 1)
        .i32(4, 0)
        .i32(5, 0)
        .i32(6, 0)
        .end();
    let h = check(&b.done(), PageHeader::decode, PageHeader::encode);
    assert!(h.data_page_header_v2.unwrap().values_compressed());

    // An index page with an (empty) index page header; unknown page type values are kept.
    let mut b = B::new();
    b.i32(1, 1).i32(2, 0).i32(3, 0).begin(6).end();
    let h = check(&b.done(), PageHeader::decode, PageHeader::encode);
    assert_eq!(h.page_type, PageType::IndexPage);
    assert_eq!(h.index_page_header, Some(IndexPageHeader::default()));
    let mut b = B::new();
    b.i32(1, 77).i32(2, 0).i32(3, 0);
    let h = check(&b.done(), PageHeader::decode, PageHeader::encode);
    assert_eq!(h.page_type, PageType::Unknown(77));
}

#[test]
fn page_header_unknown_fields_round_trip() {
    let mut b = B::new();
    b.i32(1, 0).i32(2, 10).i32(3, 10);
    b.bin(4, b"crc as binary: unexpected wire type"); // kept raw
    b.begin(5).i32(1, 1).i32(2, 0).i32(3, 3).i32(4, 3);
    b.list_i64(9, &[1, 2, 3]); // unknown field inside DataPageHeader
    b.end();
    b.begin(6).i64(1, 5).end(); // index page header with a future field
    b.begin(12).bin(1, b"nested").begin(2).end().end(); // unknown struct field
    b.bool(30, true).i64(1000, -1); // unknown fields with long-form ids
    let bytes = b.done();
    let h = check(&bytes, PageHeader::decode, PageHeader::encode);
    assert_eq!(h.crc, None);
    let ids: Vec<i16> = h.unknown.fields().iter().map(|f| f.id).collect();
    assert_eq!(ids, [4, 12, 30, 1000]);
    assert_eq!(h.unknown.fields()[2].wire_type, wire::BOOL_TRUE);
    assert_eq!(h.data_page_header.unwrap().unknown.fields()[0].id, 9);
    assert_eq!(h.index_page_header.unwrap().unknown.fields()[0].id, 1);
    corrupt_every_byte(&bytes, PageHeader::decode);
}

#[test]
fn page_header_validation() {
    // Negative sizes are errors.
    let mut b = B::new();
    let bytes = b.i32(1, 0).i32(2, 10).i32(3, -1).done();
    assert!(matches!(
        decode_err(&bytes, PageHeader::decode),
        ErrorKind::InvalidValue { value: -1, .. }
    ));
    let mut b = B::new();
    let bytes = b.i32(1, 0).i32(2, i32::MIN).i32(3, 1).done();
    assert!(matches!(
        decode_err(&bytes, PageHeader::decode),
        ErrorKind::InvalidValue { .. }
    ));
    let mut b = B::new();
    b.i32(1, 3).i32(2, 5).i32(3, 5);
    b.begin(8)
        .i32(1, 1)
        .i32(2, 0)
        .i32(3, 1)
        .i32(4, 0)
        .i32(5, -4)
        .i32(6, 0)
        .end();
    let err = PageHeader::decode(&mut Reader::new(&b.done()), None).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::InvalidValue { value: -4, .. }
    ));
    let msg = err.to_string();
    assert!(
        msg.contains("PageHeader") && msg.contains("DataPageHeaderV2"),
        "{msg}"
    );

    // Missing required fields.
    let mut b = B::new();
    let bytes = b.i32(1, 0).i32(2, 10).done();
    assert_eq!(
        missing_field(decode_err(&bytes, PageHeader::decode)),
        "compressed_page_size"
    );
    let mut b = B::new();
    let bytes = b.i32(2, 10).i32(3, 10).done();
    assert_eq!(
        missing_field(decode_err(&bytes, PageHeader::decode)),
        "type"
    );
    let mut b = B::new();
    // A required field with an unexpected wire type is kept raw, so it is missing.
    let bytes = b.i32(1, 0).i64(2, 10).i32(3, 10).done();
    assert_eq!(
        missing_field(decode_err(&bytes, PageHeader::decode)),
        "uncompressed_page_size"
    );
    let mut b = B::new();
    b.i32(1, 0)
        .i32(2, 10)
        .i32(3, 10)
        .begin(5)
        .i32(1, 1)
        .i32(2, 0)
        .i32(4, 0)
        .end();
    assert_eq!(
        missing_field(decode_err(&b.done(), PageHeader::decode)),
        "definition_level_encoding"
    );
    let mut b = B::new();
    b.i32(1, 2).i32(2, 10).i32(3, 10).begin(7).i32(1, 1).end();
    assert_eq!(
        missing_field(decode_err(&b.done(), PageHeader::decode)),
        "encoding"
    );
    let mut b = B::new();
    b.i32(1, 3).i32(2, 5).i32(3, 5);
    b.begin(8)
        .i32(1, 1)
        .i32(2, 0)
        .i32(4, 0)
        .i32(5, 0)
        .i32(6, 0)
        .end();
    assert_eq!(
        missing_field(decode_err(&b.done(), PageHeader::decode)),
        "num_rows"
    );

    // Deeply nested unknown structures hit the nesting limit instead of the stack.
    let mut b = B::new();
    b.i32(1, 0).i32(2, 1).i32(3, 1);
    for _ in 0..200 {
        b.begin(20);
    }
    for _ in 0..200 {
        b.end();
    }
    assert!(matches!(
        decode_err(&b.done(), PageHeader::decode),
        ErrorKind::NestingTooDeep { .. }
    ));
}

/// Decodes every page header of the column chunks in `file[start..end]` (pages are
/// contiguous), checking each re-encodes to its exact bytes. Returns (offset, header,
/// header length) per page.
fn walk_pages(file: &[u8], start: usize, end: usize) -> Vec<(usize, PageHeader, usize)> {
    let mut pages = Vec::new();
    let mut pos = start;
    while pos < end {
        let mut r = Reader::new(&file[pos..end]).with_base(pos as u64);
        let h = PageHeader::decode(&mut r, None)
            .unwrap_or_else(|e| panic!("page header at {pos}: {e}"));
        let len = r.pos();
        let mut out = Vec::new();
        h.encode(&mut Writer::new(&mut out), &file[pos..end]);
        assert_eq!(
            out,
            &file[pos..pos + len],
            "re-encoding the page header at {pos}"
        );
        assert!(h.uncompressed_page_size >= 0 && h.compressed_page_size >= 0);
        match h.page_type {
            PageType::DataPage => assert!(h.data_page_header.is_some()),
            PageType::DataPageV2 => assert!(h.data_page_header_v2.is_some()),
            PageType::DictionaryPage => assert!(h.dictionary_page_header.is_some()),
            other => panic!("unexpected page type {other} at {pos}"),
        }
        let next = pos + len + h.compressed_page_size as usize;
        pages.push((pos, h, len));
        pos = next;
    }
    assert_eq!(
        pos, end,
        "pages must end exactly at the end of the column data"
    );
    pages
}

#[test]
fn corpus_alltypes_plain_first_page_header() {
    let file = corpus("alltypes_plain.parquet");
    assert_eq!(&file[..4], b"PAR1");
    let mut r = Reader::new(&file[4..]);
    let h = PageHeader::decode(&mut r, None).unwrap();
    // Impala writes a dictionary page first for column `id` (dictionary_page_offset 4).
    assert_eq!(h.page_type, PageType::DictionaryPage);
    let d = h.dictionary_page_header.as_ref().unwrap();
    assert_eq!(d.num_values, 8); // 8 rows, 8 distinct ids
    assert_eq!(d.encoding, Encoding::PlainDictionary);
    assert_eq!(h.uncompressed_page_size, 32); // 8 x INT32
    assert_eq!(h.compressed_page_size, 32);
    // The data page of `id` starts right after the dictionary page, at offset 49.
    assert_eq!(4 + r.pos() + h.compressed_page_size as usize, 49);
}

#[test]
fn corpus_page_headers_round_trip() {
    // Files whose column chunks are contiguous from offset 4 up to `end`: the footer, or the
    // page index for files that have one.
    let files: &[(&str, Option<usize>)] = &[
        ("datapage_v2.snappy.parquet", None),
        ("datapage_v1-snappy-compressed-checksum.parquet", Some(3051)),
        ("rle-dict-snappy-checksum.parquet", Some(150)),
        ("alltypes_tiny_pages.parquet", Some(323_583)),
        ("data_index_bloom_encoding_stats.parquet", Some(156)),
    ];
    for &(name, end) in files {
        let file = corpus(name);
        let end = end.unwrap_or_else(|| footer_start(&file));
        let pages = walk_pages(&file, 4, end);
        assert!(!pages.is_empty());
        if name.starts_with("datapage_v2") {
            assert!(pages.iter().any(|p| p.1.data_page_header_v2.is_some()));
        }
        if name.contains("checksum") {
            // parquet-mr 1.13 writes a crc for v1 data pages and dictionary pages only.
            for (pos, h, _) in &pages {
                if h.page_type != PageType::DataPageV2 {
                    assert!(
                        h.crc.is_some(),
                        "{name}: page at {pos} ({}) has no crc",
                        h.page_type
                    );
                }
            }
            assert!(pages.iter().any(|p| p.1.crc.is_some()));
        }
    }
    // Impala writes each chunk's ColumnMetaData after its pages, so walk chunk by chunk
    // (first page offset, total_compressed_size, as pyarrow reports them).
    let file = corpus("alltypes_plain.parquet");
    let chunks = [
        (4, 73),
        (109, 24),
        (168, 47),
        (256, 47),
        (345, 47),
        (429, 55),
        (524, 47),
        (610, 55),
        (705, 88),
        (840, 49),
        (929, 139),
    ];
    for (start, len) in chunks {
        let pages = walk_pages(&file, start, start + len);
        let last = &pages.last().unwrap().1;
        assert_eq!(last.page_type, PageType::DataPage);
        assert_eq!(last.data_page_header.as_ref().unwrap().num_values, 8);
    }
}

// ---------------------------------------------------------------------------------------------
// Page index

fn column_index_bytes(null_pages: &[bool], min: &[&[u8]], max: &[&[u8]]) -> Vec<u8> {
    let mut b = B::new();
    b.list_bool(1, null_pages)
        .list_bin(2, min)
        .list_bin(3, max)
        .i32(4, 1);
    b.list_i64(5, &vec![0; null_pages.len()]);
    b.done()
}

fn typed(bytes: &[u8], ty: PhysicalType, type_length: Option<i32>) -> PageBounds {
    let plain = check(bytes, ColumnIndex::decode, ColumnIndex::encode);
    let bounds = plain.bounds(bytes, ty, type_length);
    let t = plain.into_typed(bytes, ty, type_length);
    // (Compared through Debug: NaN != NaN.)
    assert_eq!(format!("{:?}", t.bounds), format!("{bounds:?}"));
    // The typed form re-encodes to the exact bytes, with and without an arena.
    let mut out = Vec::new();
    t.encode(&mut Writer::new(&mut out), bytes);
    assert_eq!(out, bytes, "typed {ty:?} must re-encode exactly");
    let mut arena = Arena::default();
    let t2 = TypedColumnIndex::decode(&mut Reader::new(bytes), Some(&mut arena), ty, type_length)
        .unwrap();
    let mut out = Vec::new();
    t2.encode(&mut Writer::new(&mut out), arena.as_slice());
    assert_eq!(out, bytes);
    assert_eq!(t2.bounds.is_raw(), t.bounds.is_raw());
    t.bounds
}

#[test]
fn column_index_plain_fields() {
    let mut b = B::new();
    b.list_bool(1, &[false, true])
        .list_bin(2, &[b"a", b""])
        .list_bin(3, &[b"q", b""]);
    b.i32(4, 2)
        .list_i64(5, &[0, 9])
        .list_i64(6, &[1, 2, 3, 4])
        .list_i64(7, &[5, 6]);
    b.list_i64(8, &[0, 0]).bin(9, b"future").list_i64(15, &[7]);
    let bytes = b.done();
    let ci = check(&bytes, ColumnIndex::decode, ColumnIndex::encode);
    assert_eq!(ci.null_pages, [false, true]);
    assert_eq!(ci.min_values[0].slice(&bytes), b"a");
    assert_eq!(ci.max_values[0].slice(&bytes), b"q");
    assert_eq!(ci.boundary_order, BoundaryOrder::Descending);
    assert_eq!(ci.null_counts.as_deref(), Some(&[0, 9][..]));
    assert_eq!(
        ci.repetition_level_histograms.as_deref(),
        Some(&[1, 2, 3, 4][..])
    );
    assert_eq!(ci.definition_level_histograms.as_deref(), Some(&[5, 6][..]));
    assert_eq!(ci.nan_counts.as_deref(), Some(&[0, 0][..]));
    assert_eq!(ci.unknown.fields().len(), 2);
    corrupt_every_byte(&bytes, ColumnIndex::decode);

    // A known list field with an unexpected element type is kept raw.
    let mut b = B::new();
    b.list_bool(1, &[false])
        .list_bin(2, &[b"a"])
        .list_bin(3, &[b"b"])
        .i32(4, 0);
    b.list_bin(5, &[b"not an i64"]);
    let ci = check(&b.done(), ColumnIndex::decode, ColumnIndex::encode);
    assert_eq!((ci.null_counts, ci.unknown.fields()[0].id), (None, 5));

    // Missing required fields.
    let mut b = B::new();
    let bytes = b.list_bool(1, &[]).list_bin(2, &[]).i32(4, 0).done();
    assert_eq!(
        missing_field(decode_err(&bytes, ColumnIndex::decode)),
        "max_values"
    );
    let mut b = B::new();
    let bytes = b.list_bin(2, &[]).list_bin(3, &[]).i32(4, 0).done();
    assert_eq!(
        missing_field(decode_err(&bytes, ColumnIndex::decode)),
        "null_pages"
    );
}

#[test]
fn column_index_typed_fixed_width() {
    let i32s = |v: i32| v.to_le_bytes().to_vec();
    let (a, c) = (i32s(-5), i32s(1 << 20));
    let bytes = column_index_bytes(&[false, true, false], &[&a, b"", &a], &[&c, b"", &c]);
    assert_eq!(
        typed(&bytes, PhysicalType::Int32, None),
        PageBounds::Int32 {
            min: vec![-5, 0, -5],
            max: vec![1 << 20, 0, 1 << 20]
        }
    );

    let (a, c) = (i64::MIN.to_le_bytes(), 42i64.to_le_bytes());
    let bytes = column_index_bytes(&[false], &[&a], &[&c]);
    let PageBounds::Int64 { min, max } = typed(&bytes, PhysicalType::Int64, None) else {
        panic!()
    };
    assert_eq!((min, max), (vec![i64::MIN], vec![42]));

    // NaN payloads and negative zero survive the typed form bit for bit.
    let nan = f32::from_bits(0x7fc0_0001);
    let (a, c) = ((-0.0f32).to_le_bytes(), nan.to_le_bytes());
    let bytes = column_index_bytes(&[false, true], &[&a, b""], &[&c, b""]);
    let PageBounds::Float { min, max } = typed(&bytes, PhysicalType::Float, None) else {
        panic!()
    };
    assert_eq!(
        (min[0].to_bits(), max[0].to_bits()),
        (0x8000_0000, 0x7fc0_0001)
    );
    let (a, c) = (1.5f64.to_le_bytes(), f64::INFINITY.to_le_bytes());
    let bytes = column_index_bytes(&[false], &[&a], &[&c]);
    let PageBounds::Double { min, max } = typed(&bytes, PhysicalType::Double, None) else {
        panic!()
    };
    assert_eq!((min, max), (vec![1.5], vec![f64::INFINITY]));

    let bytes = column_index_bytes(
        &[false, false, true],
        &[&[0], &[1], &[]],
        &[&[1], &[1], &[]],
    );
    assert_eq!(
        typed(&bytes, PhysicalType::Boolean, None),
        PageBounds::Boolean {
            min: vec![false, true, false],
            max: vec![true, true, false]
        }
    );

    let (a, c) = ([7u8; 12], [9u8; 12]);
    let bytes = column_index_bytes(&[true, false], &[b"", &a], &[b"", &c]);
    assert_eq!(
        typed(&bytes, PhysicalType::Int96, None),
        PageBounds::Int96 {
            min: vec![[0; 12], a],
            max: vec![[0; 12], c]
        }
    );
}

#[test]
fn column_index_typed_byte_arrays() {
    let bytes = column_index_bytes(
        &[false, true, false],
        &[b"ab", b"", b""],
        &[b"xyz", b"", b"z"],
    );
    let PageBounds::ByteArray { min, max } = typed(&bytes, PhysicalType::ByteArray, None) else {
        panic!()
    };
    assert_eq!(min[0].slice(&bytes), b"ab");
    assert_eq!(max[2].slice(&bytes), b"z");

    let bytes = column_index_bytes(&[false, true], &[b"abc", b""], &[b"xyz", b""]);
    let PageBounds::FixedLenByteArray {
        type_length,
        min,
        max,
    } = typed(&bytes, PhysicalType::FixedLenByteArray, Some(3))
    else {
        panic!()
    };
    assert_eq!(type_length, 3);
    assert_eq!(
        (min[0].slice(&bytes), max[0].slice(&bytes)),
        (&b"abc"[..], &b"xyz"[..])
    );
    // Wrong or unknown type length: raw.
    assert!(typed(&bytes, PhysicalType::FixedLenByteArray, Some(4)).is_raw());
    assert!(typed(&bytes, PhysicalType::FixedLenByteArray, None).is_raw());
    assert!(typed(&bytes, PhysicalType::FixedLenByteArray, Some(-3)).is_raw());
}

#[test]
fn column_index_typed_falls_back_to_raw() {
    let four = 1i32.to_le_bytes();
    let cases: Vec<(PhysicalType, Vec<u8>)> = vec![
        // A non-null page value of the wrong width.
        (
            PhysicalType::Int32,
            column_index_bytes(&[false], &[&[1, 2, 3]], &[&four]),
        ),
        (
            PhysicalType::Int64,
            column_index_bytes(&[false], &[&four], &[&four]),
        ),
        (
            PhysicalType::Double,
            column_index_bytes(&[false], &[&four], &[&[0; 8]]),
        ),
        (
            PhysicalType::Int96,
            column_index_bytes(&[false], &[&[0; 11]], &[&[0; 12]]),
        ),
        // A boolean that is not 0 or 1.
        (
            PhysicalType::Boolean,
            column_index_bytes(&[false], &[&[2]], &[&[1]]),
        ),
        // A null page with a value.
        (
            PhysicalType::Int32,
            column_index_bytes(&[true], &[&four], &[b""]),
        ),
        (
            PhysicalType::Float,
            column_index_bytes(&[true], &[b""], &[&four]),
        ),
        (
            PhysicalType::ByteArray,
            column_index_bytes(&[true], &[b""], &[b"x"]),
        ),
        // Lists of different lengths.
        (
            PhysicalType::Int32,
            column_index_bytes(&[false, false], &[&four], &[&four]),
        ),
        (
            PhysicalType::ByteArray,
            column_index_bytes(&[false], &[b"a", b"b"], &[b"c"]),
        ),
        // A physical type this version does not know.
        (
            PhysicalType::Unknown(9),
            column_index_bytes(&[false], &[&four], &[&four]),
        ),
    ];
    for (ty, bytes) in cases {
        let b = typed(&bytes, ty, None);
        assert!(b.is_raw(), "{ty:?}: {b:?}");
    }
    // Empty indexes are typed (and empty).
    let b = typed(
        &column_index_bytes(&[], &[], &[]),
        PhysicalType::Int32,
        None,
    );
    assert!(!b.is_raw() && b.is_empty());
}

#[test]
fn offset_index_round_trip() {
    let mut b = B::new();
    b.list_header(1, wire::STRUCT, 3);
    b.elem().i64(1, 4).i32(2, 100).i64(3, 0).end();
    b.elem()
        .i64(1, 104)
        .i32(2, 90)
        .i64(3, 50)
        .bin(7, b"x")
        .end();
    b.elem().i64(1, 1 << 40).i32(2, 80).i64(3, 120).end();
    b.list_i64(2, &[10, 20, 30]).i32(3, 5);
    let bytes = b.done();
    let o = check(&bytes, OffsetIndex::decode, OffsetIndex::encode);
    assert_eq!(o.page_locations.len(), 3);
    let p = &o.page_locations[2];
    assert_eq!(
        (p.offset, p.compressed_page_size, p.first_row_index),
        (1 << 40, 80, 120)
    );
    assert_eq!(o.page_locations[1].unknown.fields()[0].id, 7);
    assert_eq!(
        o.unencoded_byte_array_data_bytes.as_deref(),
        Some(&[10, 20, 30][..])
    );
    assert_eq!(o.unknown.fields()[0].id, 3);
    corrupt_every_byte(&bytes, OffsetIndex::decode);

    // Validation.
    let mut b = B::new();
    b.list_header(1, wire::STRUCT, 1)
        .elem()
        .i64(1, -4)
        .i32(2, 1)
        .i64(3, 0)
        .end();
    assert!(matches!(
        decode_err(&b.done(), OffsetIndex::decode),
        ErrorKind::InvalidValue { .. }
    ));
    let mut b = B::new();
    b.list_header(1, wire::STRUCT, 1)
        .elem()
        .i64(1, 4)
        .i64(3, 0)
        .end();
    assert_eq!(
        missing_field(decode_err(&b.done(), OffsetIndex::decode)),
        "compressed_page_size"
    );
    let mut b = B::new();
    assert_eq!(
        missing_field(decode_err(&b.list_i64(2, &[]).done(), OffsetIndex::decode)),
        "page_locations"
    );
    let e = OffsetIndex::decode(
        &mut Reader::new(&{
            let mut b = B::new();
            b.list_header(1, wire::STRUCT, 2)
                .elem()
                .i64(1, 4)
                .i32(2, 1)
                .i64(3, 0)
                .end();
            b.elem().i64(1, 4).i32(2, -1).i64(3, 0).end();
            b.done()
        }),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("PageLocation[1]"), "{e}");
}

#[test]
fn huge_list_lengths_are_rejected() {
    for field in [1i16, 2, 3, 5] {
        let ety = match field {
            1 => wire::BOOL_TRUE,
            5 => wire::I64,
            _ => wire::BINARY,
        };
        for n in [16usize, 1 << 20, 1 << 40, u32::MAX as usize] {
            let mut b = B::new();
            b.list_header(field, ety, n);
            b.w().write_raw(&[0; 8]);
            let kind = decode_err(&b.done(), ColumnIndex::decode);
            assert!(
                matches!(kind, ErrorKind::LengthTooLarge { .. }),
                "{field} {n}: {kind:?}"
            );
        }
    }
    let mut b = B::new();
    b.list_header(1, wire::STRUCT, 1 << 40);
    let kind = decode_err(&b.done(), OffsetIndex::decode);
    assert!(matches!(kind, ErrorKind::LengthTooLarge { .. }), "{kind:?}");
    let mut b = B::new();
    b.begin(2).list_header(1, wire::BINARY, 1 << 40);
    let kind = decode_err(&b.done(), ColumnCryptoMetaData::decode);
    assert!(matches!(kind, ErrorKind::LengthTooLarge { .. }), "{kind:?}");
    // A binary length past the end.
    let mut b = B::new();
    b.list_header(2, wire::BINARY, 1).w().write_uvarint(1 << 50);
    let kind = decode_err(&b.done(), ColumnIndex::decode);
    assert!(matches!(kind, ErrorKind::LengthTooLarge { .. }), "{kind:?}");
}

#[test]
fn corpus_page_index_alltypes_tiny_pages() {
    let file = corpus("alltypes_tiny_pages.parquet");
    let (data_end, index_end) = (323_583, footer_start(&file));
    let pages = walk_pages(&file, 4, data_end);
    let types = [
        PhysicalType::Int32,
        PhysicalType::Boolean,
        PhysicalType::Int32,
        PhysicalType::Int32,
        PhysicalType::Int32,
        PhysicalType::Int64,
        PhysicalType::Float,
        PhysicalType::Double,
        PhysicalType::ByteArray,
        PhysicalType::ByteArray,
        PhysicalType::Int96,
        PhysicalType::Int32,
        PhysicalType::Int32,
    ];
    // parquet-mr writes the column indexes of all columns, then the offset indexes. INT96
    // (`timestamp_col`) has no defined order, so it has no column index.
    let region = &file[data_end..index_end];
    let mut r = Reader::new(region).with_base(data_end as u64);
    let mut column_indexes = Vec::new();
    for &ty in &types {
        if ty == PhysicalType::Int96 {
            column_indexes.push(None);
            continue;
        }
        let start = r.pos();
        let ci = ColumnIndex::decode(&mut r, None).unwrap();
        let mut out = Vec::new();
        ci.encode(&mut Writer::new(&mut out), region);
        assert_eq!(out, &region[start..r.pos()]);
        column_indexes.push(Some((start..r.pos(), ci)));
    }
    let mut offset_indexes = Vec::new();
    for _ in &types {
        let start = r.pos();
        let oi = OffsetIndex::decode(&mut r, None).unwrap();
        let mut out = Vec::new();
        oi.encode(&mut Writer::new(&mut out), region);
        assert_eq!(out, &region[start..r.pos()]);
        offset_indexes.push(oi);
    }
    assert_eq!(
        r.remaining(),
        0,
        "the page indexes end where the footer starts"
    );

    for ((ci, oi), &ty) in column_indexes.iter().zip(&offset_indexes).zip(&types) {
        let n = oi.page_locations.len();
        assert!(n > 1);
        // Every page location is a data page header found by walking the pages.
        for loc in &oi.page_locations {
            let (_, h, len) = pages
                .iter()
                .find(|p| p.0 as i64 == loc.offset)
                .unwrap_or_else(|| panic!("no page at {}", loc.offset));
            assert_eq!(h.page_type, PageType::DataPage);
            assert_eq!(
                loc.compressed_page_size as usize,
                len + h.compressed_page_size as usize
            );
        }
        assert_eq!(oi.page_locations[0].first_row_index, 0);
        let Some((range, ci)) = ci else { continue };
        assert_eq!((ci.null_pages.len(), ci.min_values.len()), (n, n));
        assert_eq!(ci.null_counts.as_ref().map(Vec::len), Some(n));
        // The typed form, re-encoded exactly.
        let t = ci.clone().into_typed(region, ty, None);
        assert!(!t.bounds.is_raw(), "{ty:?}");
        assert_eq!(t.bounds.len(), n);
        let mut out = Vec::new();
        t.encode(&mut Writer::new(&mut out), region);
        assert_eq!(out, &region[range.clone()]);
    }
    let id_index = &column_indexes[0].as_ref().unwrap().1;
    let PageBounds::Int32 { min, max } = &id_index.bounds(region, types[0], None) else {
        panic!()
    };
    // Column `id` holds 0..7300 in a shuffled order: unordered pages covering 0 to 7299.
    assert_eq!(id_index.boundary_order, BoundaryOrder::Unordered);
    assert_eq!((min[0], max[0]), (122, 142));
    assert!(max.iter().zip(min).all(|(a, b)| a >= b));
    assert_eq!(min.iter().min(), Some(&0));
    assert_eq!(max.iter().max(), Some(&7299));
}

#[test]
fn corpus_page_indexes_parquet_mr() {
    // Two-column files of parquet-mr 1.13: column indexes, then offset indexes, then the
    // footer. (file, end of the column data, physical types)
    let files = [
        (
            "datapage_v1-snappy-compressed-checksum.parquet",
            3051,
            [PhysicalType::Int32, PhysicalType::Int32],
        ),
        (
            "rle-dict-snappy-checksum.parquet",
            150,
            [PhysicalType::Int64, PhysicalType::ByteArray],
        ),
    ];
    for (name, data_end, types) in files {
        let file = corpus(name);
        let region = &file[data_end..footer_start(&file)];
        let mut r = Reader::new(region).with_base(data_end as u64);
        let mut cis = Vec::new();
        for ty in types {
            let start = r.pos();
            let t = TypedColumnIndex::decode(&mut r, None, ty, None).unwrap();
            assert!(!t.bounds.is_raw(), "{name}");
            let mut out = Vec::new();
            t.encode(&mut Writer::new(&mut out), region);
            assert_eq!(out, &region[start..r.pos()], "{name}");
            cis.push(t);
        }
        for ci in &cis {
            let start = r.pos();
            OffsetIndex::decode(&mut r, None).unwrap();
            let oi = check(
                &region[start..r.pos()],
                OffsetIndex::decode,
                OffsetIndex::encode,
            );
            assert_eq!(oi.page_locations.len(), ci.null_pages.len(), "{name}");
            for loc in &oi.page_locations {
                let at = loc.offset as usize;
                let (h, len) = PageHeader::decode_prefix(&file[at..]).unwrap();
                assert_eq!(
                    loc.compressed_page_size as usize,
                    len + h.compressed_page_size as usize
                );
            }
        }
        assert_eq!(
            r.remaining(),
            0,
            "{name}: the page indexes end where the footer starts"
        );
    }
}

#[test]
fn corpus_page_index_and_bloom_filter() {
    // data_index_bloom_encoding_stats.parquet: one BYTE_ARRAY column of one page, then its
    // column index, offset index and Bloom filter before the footer.
    let file = corpus("data_index_bloom_encoding_stats.parquet");
    let mut r = Reader::new(&file[156..]).with_base(156);
    let ci = ColumnIndex::decode(&mut r, None).unwrap();
    let buf = &file[156..];
    assert_eq!(ci.null_pages, [false]);
    assert_eq!(ci.min_values[0].slice(buf), b"Hello");
    assert_eq!(ci.max_values[0].slice(buf), b"today");
    assert_eq!(ci.boundary_order, BoundaryOrder::Ascending);
    assert_eq!(ci.null_counts.as_deref(), Some(&[0][..]));
    let oi = OffsetIndex::decode(&mut r, None).unwrap();
    assert_eq!(oi.page_locations.len(), 1);
    assert_eq!(oi.page_locations[0].offset, 4);
    assert_eq!(oi.page_locations[0].compressed_page_size, 152);
    let start = r.pos();
    let bf = BloomFilterHeader::decode(&mut r, None).unwrap();
    assert!(bf.is_supported());
    assert_eq!(bf.num_bytes, 1024);
    assert_eq!(156 + r.pos() + bf.num_bytes as usize, footer_start(&file));
    let bytes = &buf[start..r.pos()];
    check(bytes, BloomFilterHeader::decode, BloomFilterHeader::encode);

    // bloom_filter.xxhash.bin: a Thrift header followed by the bitset.
    let file = corpus("bloom_filter.xxhash.bin");
    let (bf, len) = {
        let mut r = Reader::new(&file);
        (BloomFilterHeader::decode(&mut r, None).unwrap(), r.pos())
    };
    assert!(bf.is_supported());
    assert_eq!(len + bf.num_bytes as usize, file.len());
}

// ---------------------------------------------------------------------------------------------
// Bloom filter header and unions

#[test]
fn bloom_filter_header_literal_and_unknown_variants() {
    let literal: &[u8] = &[
        0x15, 0x80, 0x10, // 1: numBytes = 1024
        0x1c, 0x1c, 0x00, 0x00, // 2: algorithm = BLOCK {}
        0x1c, 0x1c, 0x00, 0x00, // 3: hash = XXHASH {}
        0x1c, 0x1c, 0x00, 0x00, // 4: compression = UNCOMPRESSED {}
        0x00,
    ];
    let h = check(
        literal,
        BloomFilterHeader::decode,
        BloomFilterHeader::encode,
    );
    assert_eq!(h.num_bytes, 1024);
    assert_eq!(h.algorithm, BloomFilterAlgorithm::SplitBlock);
    assert_eq!(h.hash, BloomFilterHash::XxHash);
    assert_eq!(h.compression, BloomFilterCompression::Uncompressed);

    // Unknown variants: a new variant id; a known id with content; a known id with another
    // wire type; two fields.
    let mut b = B::new();
    b.i32(1, 32);
    b.begin(2).begin(2).i32(1, 7).end().end();
    b.begin(3).begin(1).bin(1, b"seed").end().end();
    b.begin(4).i32(1, 5).end();
    b.bin(9, b"unknown");
    let bytes = b.done();
    let h = check(&bytes, BloomFilterHeader::decode, BloomFilterHeader::encode);
    assert!(!h.is_supported());
    assert!(matches!(
        h.algorithm,
        BloomFilterAlgorithm::Unknown { field_id: 2, .. }
    ));
    assert!(matches!(
        h.hash,
        BloomFilterHash::Unknown { field_id: 1, .. }
    ));
    let BloomFilterCompression::Unknown { field_id: 1, raw } = h.compression else {
        panic!("{:?}", h.compression)
    };
    assert_eq!(raw.slice(&bytes), [0x15, 0x0a, 0x00]);
    assert_eq!(h.unknown.fields()[0].id, 9);
    corrupt_every_byte(&bytes, BloomFilterHeader::decode);

    let mut b = B::new();
    b.begin(1).end().begin(2).end();
    let bytes = b.done();
    let a = check(
        &bytes,
        BloomFilterAlgorithm::decode,
        BloomFilterAlgorithm::encode,
    );
    assert_eq!(
        a,
        BloomFilterAlgorithm::Unknown {
            field_id: 1,
            raw: ByteRange::new(0, 5)
        }
    );

    // An empty union is an error, as are negative sizes and missing fields.
    assert!(matches!(
        decode_err(&[0x00], BloomFilterHash::decode),
        ErrorKind::MissingRequiredField { .. }
    ));
    let mut b = B::new();
    b.i32(1, -1).begin(2).begin(1).end().end();
    assert!(matches!(
        decode_err(&b.done(), BloomFilterHeader::decode),
        ErrorKind::InvalidValue { value: -1, .. }
    ));
    let mut b = B::new();
    b.i32(1, 8)
        .begin(2)
        .begin(1)
        .end()
        .end()
        .begin(4)
        .begin(1)
        .end()
        .end();
    assert_eq!(
        missing_field(decode_err(&b.done(), BloomFilterHeader::decode)),
        "hash"
    );
}

// ---------------------------------------------------------------------------------------------
// Crypto

#[test]
fn encryption_algorithm_variants() {
    let mut b = B::new();
    b.begin(1)
        .bin(1, b"prefix")
        .bin(2, b"unique")
        .bool(3, true)
        .end();
    let bytes = b.done();
    let a = check(
        &bytes,
        EncryptionAlgorithm::decode,
        EncryptionAlgorithm::encode,
    );
    let EncryptionAlgorithm::AesGcmV1(p) = &a else {
        panic!("{a:?}")
    };
    assert_eq!(p.aad_prefix.unwrap().slice(&bytes), b"prefix");
    assert_eq!(p.aad_file_unique.unwrap().slice(&bytes), b"unique");
    assert_eq!(p.supply_aad_prefix, Some(true));

    let mut b = B::new();
    b.begin(2).bin(2, b"u").i64(4, 1).end();
    let bytes = b.done();
    let a = check(
        &bytes,
        EncryptionAlgorithm::decode,
        EncryptionAlgorithm::encode,
    );
    let EncryptionAlgorithm::AesGcmCtrV1(p) = &a else {
        panic!("{a:?}")
    };
    assert_eq!((p.aad_prefix, p.unknown.fields()[0].id), (None, 4));

    // Unknown variant, and two variants at once: kept raw.
    let mut b = B::new();
    b.begin(3).bin(1, b"new algorithm").end();
    let bytes = b.done();
    let a = check(
        &bytes,
        EncryptionAlgorithm::decode,
        EncryptionAlgorithm::encode,
    );
    assert_eq!(
        a,
        EncryptionAlgorithm::Unknown {
            field_id: 3,
            raw: ByteRange::new(0, bytes.len())
        }
    );
    let mut b = B::new();
    b.begin(1).end().begin(2).end();
    let bytes = b.done();
    let a = check(
        &bytes,
        EncryptionAlgorithm::decode,
        EncryptionAlgorithm::encode,
    );
    assert!(matches!(
        a,
        EncryptionAlgorithm::Unknown { field_id: 1, .. }
    ));
    corrupt_every_byte(&bytes, EncryptionAlgorithm::decode);
    assert!(matches!(
        decode_err(&[0x00], EncryptionAlgorithm::decode),
        ErrorKind::MissingRequiredField { .. }
    ));
}

#[test]
fn file_crypto_metadata() {
    let mut b = B::new();
    b.begin(1)
        .begin(1)
        .bin(2, b"0123456789")
        .end()
        .end()
        .bin(2, b"key id")
        .i32(3, 0);
    let bytes = b.done();
    let f = check(
        &bytes,
        FileCryptoMetaData::decode,
        FileCryptoMetaData::encode,
    );
    assert!(matches!(
        f.encryption_algorithm,
        EncryptionAlgorithm::AesGcmV1(_)
    ));
    assert_eq!(f.key_metadata.unwrap().slice(&bytes), b"key id");
    assert_eq!(f.unknown.fields()[0].id, 3);
    corrupt_every_byte(&bytes, FileCryptoMetaData::decode);
    let mut b = B::new();
    let bytes = b.bin(2, b"key").done();
    assert_eq!(
        missing_field(decode_err(&bytes, FileCryptoMetaData::decode)),
        "encryption_algorithm"
    );
}

#[test]
fn corpus_file_crypto_metadata() {
    // Files with an encrypted footer start their footer with a plaintext FileCryptoMetaData.
    for (name, ctr, aad_prefix) in [
        ("uniform_encryption.parquet.encrypted", false, None),
        (
            "encrypt_columns_and_footer_ctr.parquet.encrypted",
            true,
            None,
        ),
        (
            "encrypt_columns_and_footer_aad.parquet.encrypted",
            false,
            Some(&b"tester"[..]),
        ),
    ] {
        let file = corpus(name);
        assert_eq!(&file[file.len() - 4..], b"PARE");
        let start = footer_start(&file);
        let buf = &file[start..file.len() - 8];
        let mut r = Reader::new(buf);
        let f = FileCryptoMetaData::decode(&mut r, None).unwrap();
        let len = r.pos();
        check(
            &buf[..len],
            FileCryptoMetaData::decode,
            FileCryptoMetaData::encode,
        );
        let (unique, prefix, supply) = match &f.encryption_algorithm {
            EncryptionAlgorithm::AesGcmV1(p) if !ctr => {
                (p.aad_file_unique, p.aad_prefix, p.supply_aad_prefix)
            }
            EncryptionAlgorithm::AesGcmCtrV1(p) if ctr => {
                (p.aad_file_unique, p.aad_prefix, p.supply_aad_prefix)
            }
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(unique.unwrap().len, 8, "{name}");
        assert_eq!(prefix.map(|p| p.slice(buf)), aad_prefix, "{name}");
        assert_eq!(supply, Some(false), "{name}");
        assert_eq!(f.key_metadata.unwrap().slice(buf), b"kf", "{name}");
    }
}

#[test]
fn column_crypto_metadata_variants() {
    let mut b = B::new();
    let bytes = b.begin(1).end().done();
    let c = check(
        &bytes,
        ColumnCryptoMetaData::decode,
        ColumnCryptoMetaData::encode,
    );
    assert_eq!(c, ColumnCryptoMetaData::EncryptionWithFooterKey);

    let mut b = B::new();
    b.begin(2)
        .list_bin(1, &[b"a", b"b", b"c"])
        .bin(2, b"kc1")
        .end();
    let bytes = b.done();
    let c = check(
        &bytes,
        ColumnCryptoMetaData::decode,
        ColumnCryptoMetaData::encode,
    );
    let ColumnCryptoMetaData::EncryptionWithColumnKey(k) = &c else {
        panic!("{c:?}")
    };
    let path: Vec<&[u8]> = k.path_in_schema.iter().map(|p| p.slice(&bytes)).collect();
    assert_eq!(path, [b"a", b"b", b"c"]);
    assert_eq!(k.key_metadata.unwrap().slice(&bytes), b"kc1");
    corrupt_every_byte(&bytes, ColumnCryptoMetaData::decode);

    // The footer-key variant with content, and a new variant: kept raw.
    let mut b = B::new();
    let bytes = b.begin(1).i32(1, 1).end().done();
    let c = check(
        &bytes,
        ColumnCryptoMetaData::decode,
        ColumnCryptoMetaData::encode,
    );
    assert!(matches!(
        c,
        ColumnCryptoMetaData::Unknown { field_id: 1, .. }
    ));
    let mut b = B::new();
    let bytes = b.begin(5).end().done();
    let c = check(
        &bytes,
        ColumnCryptoMetaData::decode,
        ColumnCryptoMetaData::encode,
    );
    assert!(matches!(
        c,
        ColumnCryptoMetaData::Unknown { field_id: 5, .. }
    ));

    // The column-key variant requires its path.
    let mut b = B::new();
    let bytes = b.begin(2).bin(2, b"k").end().done();
    assert_eq!(
        missing_field(decode_err(&bytes, ColumnCryptoMetaData::decode)),
        "path_in_schema"
    );
    assert!(matches!(
        decode_err(&[0x00], ColumnCryptoMetaData::decode),
        ErrorKind::MissingRequiredField { .. }
    ));
}

#[test]
fn union_inside_parent_reencodes_in_place() {
    // An unknown union variant in the middle of a parent struct is written back in place,
    // followed by the parent's remaining fields.
    let mut b = B::new();
    b.begin(1)
        .begin(7)
        .list_i64(1, &[1, 2])
        .end()
        .end()
        .bin(2, b"km");
    let bytes = b.done();
    let f = check(
        &bytes,
        FileCryptoMetaData::decode,
        FileCryptoMetaData::encode,
    );
    assert!(matches!(
        f.encryption_algorithm,
        EncryptionAlgorithm::Unknown { field_id: 7, .. }
    ));
    assert_eq!(f.key_metadata.unwrap().slice(&bytes), b"km");
}

#[test]
fn random_bytes_never_panic() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for len in [1usize, 2, 5, 16, 64, 300] {
        for _ in 0..300 {
            let v: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = PageHeader::decode(&mut Reader::new(&v), None);
            let _ = ColumnIndex::decode(&mut Reader::new(&v), None);
            let _ = OffsetIndex::decode(&mut Reader::new(&v), None);
            let _ = BloomFilterHeader::decode(&mut Reader::new(&v), None);
            let _ = FileCryptoMetaData::decode(&mut Reader::new(&v), None);
            let _ = ColumnCryptoMetaData::decode(&mut Reader::new(&v), None);
            if let Ok(ci) = ColumnIndex::decode(&mut Reader::new(&v), None) {
                for ty in [PhysicalType::Int32, PhysicalType::FixedLenByteArray] {
                    let _ = ci.clone().into_typed(&v, ty, Some(2));
                }
            }
        }
    }
}
