//! Counts and sizes read from a file never size an allocation ahead of the bytes that back
//! them: a page, a stream or a header that claims far more than its bytes can hold is an
//! error before anything of that size is allocated (or the output grows only as values are
//! actually decoded), never a panic or an abort.

use bytes::Bytes;
use parq::compression::{decompress, max_decompressed_len, Decompressor, Limits};
use parq::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parq::encoding::delta_length_byte_array::{DeltaLengthByteArrayDecoder, LENGTHS_AHEAD};
use parq::encoding::dictionary::DictionaryDecoder;
use parq::encoding::encode::delta::{encode_length_byte_array, DeltaByteArrayEncoder};
use parq::encoding::rle::RleDecoder;
use parq::format::metadata::{
    Compression, DataPageHeaderV2, Encoding, PageHeader, PageType, UnknownFields,
};
use parq::page::{PageReader, PageReaderOptions};
use parq::{Error, ErrorKind};

mod common;
use common::{encode_header, page_header, uleb, zigzag, CODECS};

/// Just under the default 1 GiB page limit, so only the codec's expansion bound refuses it.
const CLAIM: usize = (1 << 30) - 1;

/// A DELTA_BINARY_PACKED header of `count` values (first value `first`) in blocks of
/// `block` values with one miniblock each, then one `(min delta, width 0)` block per entry
/// of `min_deltas`: every value costs no bytes.
fn delta_header(block: u64, count: u64, first: i64, min_deltas: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    uleb(block, &mut out);
    uleb(1, &mut out);
    uleb(count, &mut out);
    zigzag(first, &mut out);
    for &d in min_deltas {
        zigzag(d, &mut out);
        out.push(0);
    }
    out
}

fn decompression_error(e: &Error, codec: Compression) {
    match e.kind() {
        ErrorKind::Decompression { codec: name, .. } => assert_eq!(*name, codec.spec_name()),
        other => panic!("{codec}: expected a decompression error, got {other}"),
    }
}

// ---------------------------------------------------------------- decompression

#[test]
fn declared_sizes_past_the_codec_expansion_fail_before_allocating() {
    // Ten bytes claiming just under the 1 GiB limit, with every codec: refused before the
    // output is reserved (it used to be reserved, and zero-filled for most codecs).
    for codec in CODECS {
        let mut input = Vec::new();
        if codec == Compression::Snappy {
            // Snappy's own length header agrees with the claim.
            uleb(CLAIM as u64, &mut input);
        }
        input.resize(10, 0);
        let mut out = Vec::new();
        let e = decompress(codec, &input, CLAIM, &mut out, &Limits::default()).unwrap_err();
        decompression_error(&e, codec);
        assert!(e.to_string().contains("cannot hold"), "{codec}: {e}");
        assert_eq!(out.capacity(), 0, "{codec}");
    }
}

#[test]
fn framed_sizes_past_the_expansion_fail_before_allocating() {
    let mut d = Decompressor::default();
    // A zstd frame whose header records the claimed content size, with a 1-byte RLE block.
    let mut zstd = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    zstd.extend_from_slice(&(CLAIM as u64).to_le_bytes());
    zstd.extend_from_slice(&[0b0000_1011, 0, 0, 7]);
    // Hadoop-framed LZ4 blocks whose declared sizes add up to the claim.
    let mut lz4 = Vec::new();
    for size in [CLAIM as u32 - 5, 5] {
        lz4.extend_from_slice(&size.to_be_bytes());
        lz4.extend_from_slice(&1u32.to_be_bytes());
        lz4.push(0);
    }
    // Two (truncated) concatenated gzip members.
    let member = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255, 3, 0];
    let gzip = [member, member].concat();
    for (codec, input) in [
        (Compression::Zstd, zstd),
        (Compression::Lz4, lz4),
        (Compression::Gzip, gzip),
    ] {
        let mut out = Vec::new();
        let e = d.decompress(codec, &input, CLAIM, &mut out).unwrap_err();
        decompression_error(&e, codec);
        assert_eq!(out.capacity(), 0, "{codec}");
    }
}

#[test]
fn expansion_bounds_hold_for_real_streams() {
    // Zeros compress about as well as anything: every codec's stream stays within the
    // bound, and a claim of one byte more than the bound is refused.
    let zeros = vec![0u8; 4 << 20];
    let streams = [
        (
            Compression::Snappy,
            snap::raw::Encoder::new().compress_vec(&zeros).unwrap(),
        ),
        (Compression::Lz4Raw, lz4_flex::block::compress(&zeros)),
        (Compression::Zstd, zstd::bulk::compress(&zeros, 19).unwrap()),
    ];
    let mut d = Decompressor::default();
    for (codec, input) in streams {
        let max = max_decompressed_len(codec, input.len());
        assert!(max >= zeros.len() as u64, "{codec}: {max}");
        let mut out = Vec::new();
        d.decompress(codec, &input, zeros.len(), &mut out).unwrap();
        assert!(out == zeros, "{codec}");
        let over = usize::try_from(max + 1).unwrap();
        if over <= Limits::default().max_page_bytes {
            let e = d.decompress(codec, &input, over, &mut out).unwrap_err();
            decompression_error(&e, codec);
        }
    }
    assert_eq!(max_decompressed_len(Compression::Uncompressed, 7), 7);
    assert_eq!(max_decompressed_len(Compression::Lzo, 7), u64::MAX);
}

// ---------------------------------------------------------------- pages

fn v2_header(rep: i32, def: i32, uncompressed: usize, compressed: usize) -> PageHeader {
    PageHeader {
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: 1,
            num_nulls: 0,
            num_rows: 1,
            encoding: Encoding::Plain,
            definition_levels_byte_length: def,
            repetition_levels_byte_length: rep,
            is_compressed: None,
            statistics: None,
            unknown: UnknownFields::default(),
        }),
        ..page_header(PageType::DataPageV2, uncompressed, compressed)
    }
}

#[test]
fn page_reader_refuses_sizes_the_codec_cannot_expand_to() {
    // An 8-byte GZIP v2 values section declaring 512 MiB: refused before the reader's
    // buffer is reserved.
    let mut chunk = encode_header(&v2_header(0, 0, 1 << 29, 8));
    chunk.extend_from_slice(&[0; 8]);
    let mut pages = PageReader::new(
        Bytes::copy_from_slice(&chunk),
        0,
        Compression::Gzip,
        PageReaderOptions::default(),
    );
    let e = pages.next_page().unwrap_err();
    match e.kind() {
        ErrorKind::InvalidPage { message, .. } => {
            assert!(message.contains("GZIP cannot expand 8 bytes"), "{message}")
        }
        other => panic!("{other}"),
    }
    assert_eq!(pages.buffer_capacity(), 0);
}

#[test]
fn negative_v2_level_lengths_are_errors_not_overflows() {
    for (rep, def) in [(-1, -1), (i32::MIN, -1), (-1, 4), (i32::MAX, i32::MAX)] {
        let mut chunk = encode_header(&v2_header(rep, def, 8, 8));
        chunk.extend_from_slice(&[0; 8]);
        let mut pages = PageReader::new(
            Bytes::copy_from_slice(&chunk),
            0,
            Compression::Uncompressed,
            PageReaderOptions::default(),
        );
        // The header decoder refuses negative lengths, and the reader reads them as 0 (and
        // never adds them up unchecked); lengths that do not fit the body are invalid.
        match pages.next_page() {
            Ok(Some(page)) => assert_eq!(page.buffer().len(), 8 - def.max(0) as usize),
            Ok(None) => panic!("{rep} {def}: no page"),
            Err(e) => assert!(
                rep < 0 || def < 0 || i64::from(rep) + i64::from(def) > 8,
                "{rep} {def}: {e}"
            ),
        }
    }
}

// ---------------------------------------------------------------- RLE and dictionary

#[test]
fn rle_bitmap_room_follows_the_data_not_the_count() {
    // An RLE run of 8 ones, asked for 2^31 values: an error, and the bitmap was not sized
    // for 2^31 bits first.
    let data = [8 << 1, 1];
    let mut bitmap = Vec::new();
    let mut d = RleDecoder::new(&data, 1).unwrap();
    assert!(d.decode_bitmap(1 << 31, &mut bitmap, 0).is_err());
    assert!(bitmap.capacity() < 1 << 10, "{}", bitmap.capacity());
    // A run that does hold the values grows the bitmap as it is decoded.
    let mut data = Vec::new();
    uleb(1 << 21, &mut data);
    data.push(1);
    let mut bitmap = vec![0b101];
    let mut d = RleDecoder::new(&data, 1).unwrap();
    assert_eq!(d.decode_bitmap(1 << 20, &mut bitmap, 3).unwrap(), 1 << 20);
    assert_eq!(bitmap.len(), ((1 << 20) + 3usize).div_ceil(8));
    assert_eq!(bitmap[0], 0b1111_1101);
    assert!(bitmap[1..bitmap.len() - 1].iter().all(|&b| b == 0xff));
    assert_eq!(bitmap[bitmap.len() - 1], 0b0000_0111);
}

#[test]
fn dictionary_gather_room_follows_the_data_not_the_count() {
    // Bit width 1, a run of 8 zeros: 2^31 indices requested.
    let data = [1, 8 << 1, 0];
    let mut out: Vec<u8> = Vec::new();
    let e = DictionaryDecoder::new(&data)
        .unwrap()
        .gather(1 << 31, &[7u8], &mut out)
        .unwrap_err();
    assert!(e.to_string().contains("data ends after 8"), "{e}");
    assert!(out.capacity() < 1 << 10, "{}", out.capacity());
    let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
    let r = DictionaryDecoder::new(&data).unwrap().gather_byte_array(
        1 << 28,
        &[0i32, 3],
        b"abc",
        &mut offsets,
        &mut values,
    );
    assert!(r.is_err());
    assert!(offsets.capacity() < 1 << 10, "{}", offsets.capacity());
    // A real run of 2^20 indices decodes in full.
    let mut data = vec![1];
    uleb(1 << 21, &mut data);
    data.push(0);
    let mut out: Vec<u8> = Vec::new();
    DictionaryDecoder::new(&data)
        .unwrap()
        .gather(1 << 20, &[7u8], &mut out)
        .unwrap();
    assert!(out.len() == 1 << 20 && out.iter().all(|&v| v == 7));
}

#[test]
fn dictionary_runs_too_large_to_hold_are_errors_not_aborts() {
    // One RLE run of 2^40 copies of a 1 MiB entry: 2^60 bytes that even 64-bit offsets can
    // address, described in a few bytes. An error, not an allocation failure (an abort).
    let mut data = vec![1];
    uleb(1 << 41, &mut data);
    data.push(0);
    let entry = vec![b'x'; 1 << 20];
    let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
    let e = DictionaryDecoder::new(&data)
        .unwrap()
        .gather_byte_array(1 << 40, &[0i64, 1 << 20], &entry, &mut offsets, &mut values)
        .unwrap_err();
    assert!(e.to_string().contains("cannot allocate"), "{e}");
    // 2^61 fixed-width values of 8 bytes overflow the address space.
    let mut data = vec![1];
    uleb(1 << 62, &mut data);
    data.push(0);
    let mut out: Vec<u64> = Vec::new();
    let e = DictionaryDecoder::new(&data)
        .unwrap()
        .gather(1 << 61, &[7u64], &mut out)
        .unwrap_err();
    assert!(e.to_string().contains("cannot allocate"), "{e}");
}

// ---------------------------------------------------------------- delta lengths

/// DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY lengths claiming `count` values (all 0), in
/// blocks of 2^31 values of 2 bytes each.
fn zero_lengths(count: u64) -> Vec<u8> {
    let blocks = (count - 1).div_ceil(1 << 31) as usize;
    delta_header(1 << 31, count, 0, &vec![0; blocks])
}

#[test]
fn delta_length_counts_allocate_nothing_ahead() {
    for count in [1 << 24, (1 << 31) - 1, 1 << 40] {
        let data = zero_lengths(count);
        assert!(data.len() < 2000);
        let mut d = DeltaLengthByteArrayDecoder::new(&data).unwrap();
        assert_eq!(d.remaining() as u64, count);
        let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
        d.decode(3, &mut offsets, &mut values).unwrap();
        assert_eq!((offsets, values), (vec![0, 0, 0, 0], vec![]));
        d.skip(2000).unwrap();
        assert_eq!(d.remaining() as u64, count - 2003);
        let buffer = d.into_buffer();
        assert!(
            buffer.capacity() <= 4 * LENGTHS_AHEAD,
            "{}",
            buffer.capacity()
        );

        // DELTA_BYTE_ARRAY: as many prefix lengths, then the suffixes.
        let data = [zero_lengths(count), zero_lengths(count)].concat();
        let mut d = DeltaByteArrayDecoder::new(&data).unwrap();
        assert_eq!(d.remaining() as u64, count);
        let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
        d.decode(2, &mut offsets, &mut values).unwrap();
        assert_eq!((offsets, values), (vec![0, 0, 0], vec![]));
        let (prefixes, suffixes) = d.into_buffers();
        assert!(prefixes.capacity() <= 4 * LENGTHS_AHEAD);
        assert!(suffixes.capacity() <= 4 * LENGTHS_AHEAD);
    }
}

#[test]
fn delta_lengths_past_the_lookahead_are_checked_as_decoded() {
    // 2^24 lengths in blocks of 2^20: the first block all 0, then each length one less
    // (negative) in the second, one more in the third.
    let block = 1 << 20;
    for (min_delta, message) in [(-1, "is negative"), (1, "lengths total at least")] {
        let data = delta_header(block, 1 << 24, 0, &[0, min_delta, 0]);
        let mut data = data;
        data.resize(data.len() + 16 * 2, 0);
        let mut d = DeltaLengthByteArrayDecoder::new(&data).unwrap();
        let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
        d.decode(block as usize, &mut offsets, &mut values).unwrap();
        assert_eq!(values.len(), 0);
        let e = d.decode(2, &mut offsets, &mut values).unwrap_err();
        assert!(e.to_string().contains(message), "{e}");
        // The decoder gives nothing more, and the output is as it was.
        assert_eq!(d.remaining(), 0);
        assert_eq!(offsets.len(), block as usize + 1);
    }
}

#[test]
fn delta_byte_array_fixed_count_is_checked_first() {
    // A valid page of two 4-byte values ("abcd", "abce"): asking for an absurd count is an
    // error, not a capacity overflow.
    // Prefix lengths 0, 3; suffix lengths 4, 1; the suffixes.
    let mut data = delta_header(128, 2, 0, &[3]);
    data.extend(delta_header(128, 2, 4, &[-3]));
    data.extend_from_slice(b"abcde");
    let mut out = Vec::new();
    let mut d = DeltaByteArrayDecoder::new(&data).unwrap();
    assert!(d.decode_fixed(usize::MAX / 16, 4, &mut out).is_err());
    assert!(d.decode_fixed(usize::MAX, 1 << 40, &mut out).is_err());
    let mut d = DeltaByteArrayDecoder::new(&data).unwrap();
    d.decode_fixed(2, 4, &mut out).unwrap();
    assert_eq!(out, b"abcdabce");
}

#[test]
fn lengths_decoded_as_asked_for_give_the_same_values() {
    // Pages with more values than bytes (mostly empty strings, or repeats of one value for
    // DELTA_BYTE_ARRAY), whose lengths are decoded as their values are asked for, in
    // batches of every size: the values and encoded lengths are those of the page.
    for n in [LENGTHS_AHEAD + 1, 3 * LENGTHS_AHEAD + 17, 20_000] {
        let values: Vec<&[u8]> = (0..n)
            .map(|i| match i % 997 {
                0 => &b"seventeen bytes.."[..],
                5 => b"x",
                _ => b"",
            })
            .collect();
        let mut offsets = vec![0i32];
        let mut bytes = Vec::new();
        for v in &values {
            bytes.extend_from_slice(v);
            offsets.push(bytes.len() as i32);
        }
        let mut dlba = Vec::new();
        encode_length_byte_array(&offsets, &bytes, &mut Vec::new(), &mut dlba).unwrap();
        let mut dba = Vec::new();
        let mut e = DeltaByteArrayEncoder::new();
        e.put(&offsets, &bytes).unwrap();
        e.flush(&mut dba);
        assert!(
            dlba.len() < n && dba.len() < n,
            "{n}: {} {}",
            dlba.len(),
            dba.len()
        );

        let d = DeltaLengthByteArrayDecoder::new(&dlba).unwrap();
        assert_eq!(d.encoded_len(), dlba.len(), "{n}");
        for step in [1, 7, 1000, LENGTHS_AHEAD + 3, n] {
            let mut dl = DeltaLengthByteArrayDecoder::new(&dlba).unwrap();
            let mut db = DeltaByteArrayDecoder::new(&dba).unwrap();
            let (mut lo, mut lv) = (Vec::<i64>::new(), Vec::new());
            let (mut bo, mut bv) = (Vec::<i64>::new(), Vec::new());
            let mut done = 0;
            while done < n {
                let k = step.min(n - done);
                dl.decode(k, &mut lo, &mut lv).unwrap();
                db.decode(k, &mut bo, &mut bv).unwrap();
                done += k;
            }
            assert_eq!(dl.remaining() + db.remaining(), 0);
            let want: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
            assert!(
                lo == want && lv == bytes,
                "DELTA_LENGTH_BYTE_ARRAY {n} by {step}"
            );
            assert!(bo == want && bv == bytes, "DELTA_BYTE_ARRAY {n} by {step}");
        }
    }
    // Repeats of one value: DELTA_BYTE_ARRAY stores the value once, and a few bits a value.
    let n = 50_000;
    let offsets: Vec<i32> = (0..=n).map(|i| 5 * i).collect();
    let bytes = b"hello".repeat(n as usize);
    let mut dba = Vec::new();
    let mut e = DeltaByteArrayEncoder::new();
    e.put(&offsets, &bytes).unwrap();
    e.flush(&mut dba);
    assert!(dba.len() < n as usize / 10, "{}", dba.len());
    let mut d = DeltaByteArrayDecoder::new(&dba).unwrap();
    let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
    d.decode(n as usize, &mut o, &mut v).unwrap();
    assert!(o == offsets && v == bytes);
}
