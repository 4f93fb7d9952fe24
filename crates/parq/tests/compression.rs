//! Page decompression (`parq::compression`): round trips through each codec crate's own
//! compressor, real pages of the parquet-testing corpus checked against CRC-32s computed
//! with other tools (Python's zlib and cramjam, whose LZ4 and ZSTD are the C libraries) and
//! values read by pyarrow, and hostile input (truncation, bit flips, size lies, bombs).

use parq::compression::{decompress, is_supported, Decompressor, Limits};
use parq::format::footer::{decode_file_metadata, DecodeOptions};
use parq::format::metadata::{Compression, PageHeader, PageType};
use parq::ErrorKind;
use std::io::Write;

mod common;

use common::CODECS;

/// UNCOMPRESSED, then [`CODECS`].
const ALL: [Compression; 7] = {
    let mut all = [Compression::Uncompressed; 7];
    let mut i = 0;
    while i < CODECS.len() {
        all[i + 1] = CODECS[i];
        i += 1;
    }
    all
};

// ---------------------------------------------------------------- helpers

/// A parquet-testing file of the shared test data; a missing file fails the test.
fn corpus(name: &str) -> Vec<u8> {
    let path = common::testdata().join("parquet-testing/data").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Deterministic test data: runs of repeated bytes mixed with xorshift noise, so every codec
/// both finds matches and has to store literals.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let run = (x % 40) as usize;
        if x & 0x100 != 0 {
            out.extend(std::iter::repeat_n((x >> 24) as u8, run));
        } else {
            out.extend(x.to_le_bytes().iter().cycle().take(run));
        }
    }
    out.truncate(len);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = flate2::Crc::new();
    crc.update(data);
    crc.sum()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
    }
    out
}

/// Hadoop-framed LZ4: blocks of at most `block` input bytes, each behind its big-endian
/// decompressed and compressed sizes.
fn lz4_hadoop(data: &[u8], block: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(block.max(1)) {
        let c = lz4_flex::block::compress(chunk);
        out.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        out.extend_from_slice(&(c.len() as u32).to_be_bytes());
        out.extend_from_slice(&c);
    }
    out
}

/// `data` compressed with `codec` by the codec crate's own compressor.
fn compress(codec: Compression, data: &[u8]) -> Vec<u8> {
    match codec {
        Compression::Uncompressed => data.to_vec(),
        Compression::Snappy => snap::raw::Encoder::new().compress_vec(data).unwrap(),
        Compression::Gzip => gzip(data),
        Compression::Lz4 => lz4_hadoop(data, 1 << 16),
        Compression::Lz4Raw => lz4_flex::block::compress(data),
        Compression::Zstd => zstd::bulk::compress(data, 3).unwrap(),
        Compression::Brotli => brotli(data),
        other => panic!("no compressor for {other}"),
    }
}

fn kind(r: parq::Result<()>) -> ErrorKind {
    r.expect_err("expected an error").kind().clone()
}

fn assert_mismatch(r: parq::Result<()>, expected: u64) {
    match kind(r) {
        ErrorKind::PageSizeMismatch { expected: e, .. } => assert_eq!(e, expected),
        other => panic!("expected a page size mismatch, got {other}"),
    }
}

/// A page of a corpus file, located with parq's footer and page header decoders.
struct Page {
    codec: Compression,
    page_type: PageType,
    /// The body after the header, without the uncompressed levels of a V2 page.
    body: Vec<u8>,
    /// The size `body` decompresses to.
    size: usize,
    /// False for a V2 page whose values are stored uncompressed.
    compressed: bool,
}

/// Every page of every column chunk of `name`, in file order.
fn pages(name: &str) -> Vec<Page> {
    let bytes = corpus(name);
    let meta = decode_file_metadata(&bytes, &DecodeOptions::minimal()).unwrap();
    let mut out = Vec::new();
    for rg in meta.row_groups() {
        for chunk in rg.columns() {
            let start = chunk
                .dictionary_page_offset()
                .filter(|&o| o > 0)
                .unwrap_or(chunk.data_page_offset()) as usize;
            let end = start + chunk.total_compressed_size() as usize;
            let mut pos = start;
            while pos < end {
                let (h, len) = PageHeader::decode_prefix(&bytes[pos..]).unwrap();
                let body = &bytes[pos + len..pos + len + h.compressed_page_size as usize];
                let (levels, compressed) = match &h.data_page_header_v2 {
                    Some(v2) => (
                        (v2.definition_levels_byte_length + v2.repetition_levels_byte_length)
                            as usize,
                        v2.values_compressed(),
                    ),
                    None => (0, true),
                };
                out.push(Page {
                    codec: chunk.codec(),
                    page_type: h.page_type,
                    body: body[levels..].to_vec(),
                    size: h.uncompressed_page_size as usize - levels,
                    compressed,
                });
                pos += len + h.compressed_page_size as usize;
            }
        }
    }
    out
}

fn decompress_page(d: &mut Decompressor, page: &Page, out: &mut Vec<u8>) -> parq::Result<()> {
    let codec = if page.compressed {
        page.codec
    } else {
        Compression::Uncompressed
    };
    d.decompress(codec, &page.body, page.size, out)
}

// ---------------------------------------------------------------- round trips

#[test]
fn round_trips_every_codec_and_size() {
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for codec in ALL {
        for (i, size) in [0, 1, 64 << 10, 1 << 20].into_iter().enumerate() {
            let data = sample(size, i as u64 + 7);
            let compressed = compress(codec, &data);
            // Reused decompressor and buffer, as a page reader does.
            d.decompress(codec, &compressed, size, &mut out)
                .unwrap_or_else(|e| panic!("{codec} {size}: {e}"));
            assert!(out == data, "{codec} {size}: wrong bytes");
            // One-off call into a fresh buffer.
            let mut fresh = Vec::new();
            decompress(codec, &compressed, size, &mut fresh, &Limits::default()).unwrap();
            assert!(fresh == data, "{codec} {size}: wrong bytes (fresh buffer)");
            // Borrowing variant.
            let mut scratch = Vec::new();
            let got = d
                .decompress_or_borrow(codec, &compressed, size, &mut scratch)
                .unwrap();
            assert!(
                got == data.as_slice(),
                "{codec} {size}: wrong bytes (borrow)"
            );
        }
    }
}

#[test]
fn reused_buffer_shrinks_and_grows_between_pages() {
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for codec in ALL {
        for (i, size) in [100_000, 10, 300_000, 0, 5000].into_iter().enumerate() {
            let data = sample(size, 99 + i as u64);
            d.decompress(codec, &compress(codec, &data), size, &mut out)
                .unwrap();
            assert!(out == data, "{codec} {size}");
        }
    }
}

#[test]
fn reused_buffer_grows_to_the_largest_page_exactly() {
    // Pages that grow a little each time: the buffer grows to each page's size (plus the one
    // byte that tells a longer stream), never doubling past the largest page.
    for codec in ALL {
        if codec == Compression::Uncompressed {
            continue;
        }
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        for (i, size) in [100_000, 150_000, 151_000, 120_000].into_iter().enumerate() {
            let data = sample(size, 7 + i as u64);
            d.decompress(codec, &compress(codec, &data), size, &mut out)
                .unwrap();
            assert!(out == data, "{codec} {size}");
            assert!(
                out.capacity() <= 151_001,
                "{codec} {size}: {}",
                out.capacity()
            );
        }
    }
}

#[test]
fn uncompressed_is_borrowed() {
    let mut d = Decompressor::default();
    let input = b"plain page".to_vec();
    let mut out = Vec::new();
    let got = d
        .decompress_or_borrow(Compression::Uncompressed, &input, input.len(), &mut out)
        .unwrap();
    assert_eq!(got.as_ptr(), input.as_ptr());
    assert!(out.capacity() == 0);
}

#[test]
fn empty_input_is_an_empty_page() {
    let mut d = Decompressor::default();
    let mut out = vec![1, 2, 3];
    for codec in ALL {
        d.decompress(codec, &[], 0, &mut out).unwrap();
        assert!(out.is_empty(), "{codec}");
    }
}

#[test]
fn gzip_concatenated_members_and_header_fields() {
    let parts = [sample(1000, 1), sample(0, 2), sample(70_000, 3)];
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i == 1 {
            // A member with every optional header field, FHCRC included (built by hand).
            let raw = {
                let mut e =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(p).unwrap();
                e.finish().unwrap()
            };
            let mut h = vec![0x1f, 0x8b, 8, 0x02 | 0x04 | 0x08 | 0x10, 0, 0, 0, 0, 0, 255];
            h.extend_from_slice(&[3, 0, b'a', b'b', b'c']);
            h.extend_from_slice(b"name\0comment\0");
            let hcrc = crc32(&h) as u16;
            h.extend_from_slice(&hcrc.to_le_bytes());
            h.extend_from_slice(&raw);
            h.extend_from_slice(&crc32(p).to_le_bytes());
            h.extend_from_slice(&(p.len() as u32).to_le_bytes());
            input.extend_from_slice(&h);
        } else {
            let mut e = flate2::GzBuilder::new()
                .filename("page.bin")
                .comment("a comment")
                .extra(vec![1, 2, 3, 4])
                .write(Vec::new(), flate2::Compression::best());
            e.write_all(p).unwrap();
            input.extend_from_slice(&e.finish().unwrap());
        }
        expected.extend_from_slice(p);
    }
    let mut out = Vec::new();
    let mut d = Decompressor::default();
    d.decompress(Compression::Gzip, &input, expected.len(), &mut out)
        .unwrap();
    assert!(out == expected);
    // Trailing garbage after the last member is not another member.
    input.extend_from_slice(b"junk");
    let e = d.decompress(Compression::Gzip, &input, expected.len(), &mut out);
    assert!(matches!(
        kind(e),
        ErrorKind::Decompression { codec: "GZIP", .. }
    ));
    assert!(out.is_empty());
}

#[test]
fn lz4_framings_hadoop_blocks_frame_and_plain_block() {
    let data = sample(300_000, 5);
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    // Hadoop framing with several blocks, and with one.
    for block in [1000, 65_536, 1 << 20] {
        d.decompress(
            Compression::Lz4,
            &lz4_hadoop(&data, block),
            data.len(),
            &mut out,
        )
        .unwrap();
        assert!(out == data, "hadoop blocks of {block}");
    }
    // A plain LZ4 block (older parquet-cpp).
    let block = lz4_flex::block::compress(&data);
    d.decompress(Compression::Lz4, &block, data.len(), &mut out)
        .unwrap();
    assert!(out == data, "plain block");
    // An LZ4 frame (older parquet-rs).
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    enc.write_all(&data).unwrap();
    let frame = enc.finish().unwrap();
    d.decompress(Compression::Lz4, &frame, data.len(), &mut out)
        .unwrap();
    assert!(out == data, "frame");
    assert_mismatch(
        d.decompress(Compression::Lz4, &frame, data.len() - 1, &mut out),
        data.len() as u64 - 1,
    );
    assert_mismatch(
        d.decompress(Compression::Lz4, &frame, data.len() + 1, &mut out),
        data.len() as u64 + 1,
    );
}

#[test]
fn zstd_multiple_frames() {
    let (a, b) = (sample(5000, 1), sample(9000, 2));
    let mut input = zstd::bulk::compress(&a, 1).unwrap();
    input.extend_from_slice(&zstd::bulk::compress(&b, 19).unwrap());
    let mut out = Vec::new();
    Decompressor::default()
        .decompress(Compression::Zstd, &input, a.len() + b.len(), &mut out)
        .unwrap();
    assert!(out[..a.len()] == a[..] && out[a.len()..] == b[..]);
}

#[test]
fn decompressor_is_send() {
    fn send<T: Send>() {}
    send::<Decompressor>();
}

// ---------------------------------------------------------------- corpus pages

/// (file, pages, decompressed bytes of all pages, CRC-32 of all of them in file order), as
/// computed by Python's zlib (GZIP) and cramjam (SNAPPY; LZ4 and LZ4_RAW blocks and ZSTD
/// through the C liblz4 and libzstd) from the page bodies located by the page headers.
const CORPUS: [(&str, usize, u64, u32); 13] = [
    ("alltypes_plain.snappy.parquet", 21, 215, 0xeda4e062),
    ("concatenated_gzip_members.parquet", 1, 4104, 0xe4eef25f),
    (
        "byte_stream_split_extended.gzip.parquet",
        14,
        14098,
        0x38e296f2,
    ),
    ("rle_boolean_encoding.parquet", 1, 13, 0x9449f273),
    ("hadoop_lz4_compressed.parquet", 6, 70, 0xe4c4f9c7),
    (
        "hadoop_lz4_compressed_larger.parquet",
        1,
        400000,
        0x1a4a4a70,
    ),
    ("non_hadoop_lz4_compressed.parquet", 6, 82, 0x9e7a937d),
    ("lz4_raw_compressed.parquet", 3, 98, 0x29c99b90),
    ("lz4_raw_compressed_larger.parquet", 1, 400000, 0x1a4a4a70),
    ("byte_stream_split.zstd.parquet", 2, 3614, 0x351a4d0b),
    ("page_v2_empty_compressed.parquet", 2, 1, 0xd202ef8d),
    ("nested_structs.rust.parquet", 432, 2376, 0x2fd14d88),
    ("delta_length_byte_array.parquet", 1, 23711, 0xf8d1b719),
];

#[test]
fn corpus_pages_match_other_tools() {
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for (name, count, bytes, crc) in CORPUS {
        let pages = pages(name);
        assert_eq!(pages.len(), count, "{name}");
        let (mut total, mut sum) = (0u64, flate2::Crc::new());
        for (i, page) in pages.iter().enumerate() {
            decompress_page(&mut d, page, &mut out)
                .unwrap_or_else(|e| panic!("{name} page {i}: {e}"));
            assert_eq!(out.len(), page.size, "{name} page {i}");
            total += out.len() as u64;
            sum.update(&out);
        }
        assert_eq!((total, sum.sum()), (bytes, crc), "{name}");
    }
}

fn first_page(name: &str) -> (Page, Vec<u8>) {
    let page = pages(name).swap_remove(0);
    let mut out = Vec::new();
    decompress_page(&mut Decompressor::default(), &page, &mut out).unwrap();
    (page, out)
}

fn le_i64(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn corpus_values_match_pyarrow() {
    // GZIP, two members: a V2 page of PLAIN UINT64 values 1..=513.
    let (page, out) = first_page("concatenated_gzip_members.parquet");
    assert_eq!(
        (page.codec, page.page_type),
        (Compression::Gzip, PageType::DataPageV2)
    );
    let expected: Vec<u8> = (1..=513u64).flat_map(|v| v.to_le_bytes()).collect();
    assert!(out == expected);

    // SNAPPY: the dictionary of `id` (INT32) is [6, 7].
    let (page, out) = first_page("alltypes_plain.snappy.parquet");
    assert_eq!(
        (page.codec, page.page_type),
        (Compression::Snappy, PageType::DictionaryPage)
    );
    assert_eq!(out, [6, 0, 0, 0, 7, 0, 0, 0]);

    // LZ4, Hadoop-framed and plain block: the dictionary of the INT64 column.
    for name in [
        "hadoop_lz4_compressed.parquet",
        "non_hadoop_lz4_compressed.parquet",
    ] {
        let (page, out) = first_page(name);
        assert_eq!(page.codec, Compression::Lz4, "{name}");
        assert_eq!(out, le_i64(&[1593604800, 1593604801]), "{name}");
    }

    // LZ4_RAW: a required INT64 column, PLAIN, no levels.
    let (page, out) = first_page("lz4_raw_compressed.parquet");
    assert_eq!(page.codec, Compression::Lz4Raw);
    assert_eq!(
        out,
        le_i64(&[1593604800, 1593604800, 1593604801, 1593604801])
    );

    // LZ4 and LZ4_RAW, larger: 10000 PLAIN strings of 36 bytes.
    for name in [
        "hadoop_lz4_compressed_larger.parquet",
        "lz4_raw_compressed_larger.parquet",
    ] {
        let (_, out) = first_page(name);
        assert_eq!(&out[..4], &36u32.to_le_bytes());
        assert_eq!(&out[4..40], b"c7ce6bef-d5b0-4863-b199-8ea8c7fb117b");
        assert_eq!(
            &out[out.len() - 36..],
            b"85440778-460a-41ac-aa2e-ac3ee41696bf"
        );
    }

    // ZSTD: 300 BYTE_STREAM_SPLIT floats after the definition levels.
    let (page, out) = first_page("byte_stream_split.zstd.parquet");
    assert_eq!(page.codec, Compression::Zstd);
    let streams = &out[out.len() - 1200..];
    let value = |i: usize| {
        f32::from_le_bytes([
            streams[i],
            streams[300 + i],
            streams[600 + i],
            streams[900 + i],
        ])
    };
    let expected = [
        (0, 1.764052391052246f64),
        (1, 0.40015721321105957),
        (2, 0.978738009929657),
        (3, 2.2408931255340576),
        (4, 1.8675580024719238),
        (298, -0.39944902062416077),
        (299, 0.3700558841228485),
    ];
    for (i, v) in expected {
        // pyarrow prints the floats widened to f64, exactly.
        assert_eq!(f64::from(value(i)), v, "value {i}");
    }
}

#[test]
fn corpus_brotli_pages_and_gigabyte_bomb() {
    let pages = pages("large_string_map.brotli.parquet");
    assert!(pages.iter().all(|p| p.codec == Compression::Brotli));
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    // Small pages; the dictionary of `value` is [1] (its statistics say min = max = 1).
    for (i, crc) in [(1, 0xeaf2b06f), (3, 0x99f8b879), (4, 0x63e14f6f)] {
        decompress_page(&mut d, &pages[i], &mut out).unwrap();
        assert_eq!(crc32(&out), crc, "page {i}");
    }
    assert_eq!(out.len(), 15);
    decompress_page(&mut d, &pages[3], &mut out).unwrap();
    assert_eq!(out, [1, 0, 0, 0]);
    // Pages 0 and 2 hold one string of 1 GiB in 1.6 KB: over the default 1 GiB limit.
    for i in [0, 2] {
        let page = &pages[i];
        assert!(page.size > 1 << 30 && page.body.len() < 2000);
        let e = d.decompress(Compression::Brotli, &page.body, page.size, &mut out);
        assert_eq!(
            kind(e),
            ErrorKind::PageTooLarge {
                page_bytes: page.size as u64,
                limit: 1 << 30
            }
        );
        // Declared smaller, it stops one byte past the declared size.
        let mut fresh = Vec::new();
        let e = d.decompress(Compression::Brotli, &page.body, 65536, &mut fresh);
        assert_eq!(
            kind(e),
            ErrorKind::PageSizeMismatch {
                expected: 65536,
                actual: 65537,
                at_least: true
            }
        );
        assert!(fresh.capacity() < 1 << 20);
    }
}

// ---------------------------------------------------------------- hostile input

#[test]
fn unsupported_codecs() {
    let mut out = Vec::new();
    let mut d = Decompressor::default();
    for (codec, message) in [
        (Compression::Lzo, "unsupported codec LZO"),
        (Compression::Unknown(42), "unsupported codec UNKNOWN(42)"),
    ] {
        let e = d.decompress(codec, b"abc", 3, &mut out).unwrap_err();
        assert_eq!(e.to_string(), message);
        assert!(!is_supported(codec));
    }
    assert!(ALL.iter().all(|&c| is_supported(c)));
}

#[test]
fn declared_size_over_the_limit_fails_before_allocating() {
    let data = sample(1000, 3);
    for codec in ALL {
        let input = compress(codec, &data);
        let mut out = Vec::new();
        for n in [usize::MAX, (1 << 30) + 1] {
            let e = decompress(codec, &input, n, &mut out, &Limits::default());
            assert!(matches!(kind(e), ErrorKind::PageTooLarge { .. }), "{codec}");
            assert_eq!(out.capacity(), 0, "{codec}");
        }
        let tight = Limits {
            max_page_bytes: 999,
        };
        let e = decompress(codec, &input, 1000, &mut out, &tight).unwrap_err();
        assert_eq!(
            e.to_string(),
            "uncompressed page of 1000 bytes exceeds the limit of 999 bytes"
        );
        assert_eq!(out.capacity(), 0, "{codec}");
        let exact = Limits {
            max_page_bytes: 1000,
        };
        decompress(codec, &input, 1000, &mut out, &exact).unwrap();
        assert!(out == data);
    }
}

#[test]
fn declared_size_too_large_or_too_small() {
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for codec in ALL {
        let input = compress(codec, &sample(4000, 11));
        let e = d.decompress(codec, &input, 4096, &mut out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "uncompressed page size mismatch (expected 4096, actual 4000)",
            "{codec}"
        );
        assert!(out.is_empty(), "{codec}");
        for n in [0, 1, 3999] {
            assert_mismatch(d.decompress(codec, &input, n, &mut out), n as u64);
            assert!(out.is_empty(), "{codec}");
        }
    }
}

#[test]
fn truncated_input_is_an_error() {
    let data = sample(100_000, 21);
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for codec in ALL {
        let input = compress(codec, &data);
        let len = input.len();
        for cut in [0, 1, 4, 9, 17, len / 3, len / 2, len - 8, len - 4, len - 1] {
            let r = d.decompress(codec, &input[..cut], data.len(), &mut out);
            match r {
                Err(e) => assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::Decompression { .. } | ErrorKind::PageSizeMismatch { .. }
                    ),
                    "{codec} cut at {cut}: {e}"
                ),
                Ok(()) => panic!("{codec} cut at {cut}/{len}: no error"),
            }
            assert!(out.is_empty());
        }
    }
}

#[test]
fn corrupt_streams_error_naming_the_codec() {
    let mut out = Vec::new();
    let mut d = Decompressor::default();
    let garbage = [0xffu8; 64];
    for codec in CODECS {
        let e = d.decompress(codec, &garbage, 1000, &mut out).unwrap_err();
        match e.kind() {
            ErrorKind::Decompression { codec: name, .. } => assert_eq!(*name, codec.spec_name()),
            ErrorKind::PageSizeMismatch { .. } => {}
            other => panic!("{codec}: {other}"),
        }
        assert!(e.to_string().starts_with(codec.spec_name()) || e.to_string().contains("size"));
    }
    // A gzip member whose CRC-32 is wrong.
    let data = sample(5000, 1);
    let mut input = gzip(&data);
    let at = input.len() - 8;
    input[at] ^= 1;
    let e = d
        .decompress(Compression::Gzip, &input, 5000, &mut out)
        .unwrap_err();
    assert_eq!(e.to_string(), "GZIP decompression failed: CRC-32 mismatch");
}

#[test]
fn bit_flips_never_panic() {
    let data = sample(20_000, 31);
    let mut d = Decompressor::default();
    let mut out = Vec::new();
    for codec in ALL {
        let clean = compress(codec, &data);
        let mut errors = 0;
        for pos in (0..clean.len()).step_by(clean.len() / 150 + 1) {
            let mut input = clean.clone();
            input[pos] ^= 1 << (pos % 8);
            match d.decompress(codec, &input, data.len(), &mut out) {
                Ok(()) => assert_eq!(out.len(), data.len(), "{codec} flip at {pos}"),
                Err(_) => {
                    errors += 1;
                    assert!(out.is_empty());
                }
            }
            // GZIP checks a CRC-32: a flip it accepts (in the header's MTIME, XFL or OS, or a
            // redundant bit of the deflate stream) changes nothing.
            if codec == Compression::Gzip && !out.is_empty() {
                assert!(out == data, "{codec} flip at {pos}");
            }
            assert!(
                out.capacity() <= 2 * (data.len() + 1),
                "{codec} flip at {pos}"
            );
        }
        if codec != Compression::Uncompressed {
            assert!(errors > 0, "{codec}: no flip detected");
        }
    }
}

#[test]
fn bombs_stop_past_the_declared_size() {
    let zeros = vec![0u8; 16 << 20];
    let streaming_zstd = {
        let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        e.include_contentsize(false).unwrap();
        e.write_all(&zeros).unwrap();
        e.finish().unwrap()
    };
    let mut bombs = vec![(Compression::Zstd, streaming_zstd)];
    for codec in [
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lz4,
        Compression::Lz4Raw,
        Compression::Zstd,
    ] {
        bombs.push((codec, compress(codec, &zeros)));
    }
    bombs.push((Compression::Brotli, brotli(&zeros[..4 << 20])));
    let mut d = Decompressor::default();
    for (codec, bomb) in bombs {
        assert!(bomb.len() < 1 << 20, "{codec}");
        let mut out = Vec::new();
        let e = d.decompress(codec, &bomb, 4096, &mut out);
        match kind(e) {
            ErrorKind::PageSizeMismatch {
                expected: 4096,
                actual,
                ..
            } => assert!(actual > 4096, "{codec}"),
            other => panic!("{codec}: {other}"),
        }
        assert!(
            out.capacity() <= 8192,
            "{codec}: grew to {}",
            out.capacity()
        );
    }
}

#[test]
fn lz4_hadoop_sizes_that_lie_are_errors() {
    let data = sample(3000, 8);
    let first_block = lz4_flex::block::compress(&data[..1000]).len();
    let mut out = Vec::new();
    let mut d = Decompressor::default();
    // The first block claims 4 GiB, the second more than is left, the second's compressed
    // size runs past the input: the framing does not fit and neither does a plain block.
    for (at, size) in [
        (0, u32::MAX),
        (8 + first_block, 2500),
        (12 + first_block, 1 << 20),
    ] {
        let mut input = lz4_hadoop(&data, 1000);
        input[at..at + 4].copy_from_slice(&size.to_be_bytes());
        let e = d.decompress(Compression::Lz4, &input, data.len(), &mut out);
        assert!(
            matches!(
                kind(e),
                ErrorKind::Decompression { codec: "LZ4", .. } | ErrorKind::PageSizeMismatch { .. }
            ),
            "{at}"
        );
    }
}

// ---------------------------------------------------------------- steady state

/// Counts this thread's heap allocations (zstd's included: parq builds it with
/// `with-rust-allocator`).
struct Counting;

thread_local! {
    static ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards to the system allocator with the caller's arguments, which
// upholds the `GlobalAlloc` contract; counting touches only a const-initialized thread-local
// `Cell` that neither allocates nor has a destructor.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded as is; the caller upholds `alloc_zeroed`'s contract.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded as is; `ptr` came from this allocator, i.e. from `System`.
        unsafe { std::alloc::System.realloc(ptr, layout, size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded as is; `ptr` came from this allocator, i.e. from `System`.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn steady_state_allocates_nothing_per_page() {
    let pages: Vec<Vec<u8>> = (0..4).map(|i| sample(200_000, 40 + i)).collect();
    for codec in [
        Compression::Uncompressed,
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lz4,
        Compression::Lz4Raw,
        Compression::Zstd,
    ] {
        let inputs: Vec<Vec<u8>> = pages.iter().map(|p| compress(codec, p)).collect();
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        // Warm up: codec state is created, the buffer reaches its size.
        for input in &inputs {
            d.decompress(codec, input, 200_000, &mut out).unwrap();
        }
        let before = ALLOCATIONS.with(|c| c.get());
        for _ in 0..3 {
            for (input, page) in inputs.iter().zip(&pages) {
                d.decompress(codec, input, 200_000, &mut out).unwrap();
                assert!(out == *page);
            }
        }
        let allocations = ALLOCATIONS.with(|c| c.get()) - before;
        assert_eq!(allocations, 0, "{codec}: allocations in steady state");
    }
}
