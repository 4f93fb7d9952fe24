//! Tests of the value and level decoders (`parq::encoding`). Expected values come from the
//! spec's examples (Encodings.md), the parquet-testing side files, pyarrow, and scalar
//! reference implementations in this file — never from parq itself.

use parq::encoding::bit_packed::{self, BitPackedDecoder};
use parq::encoding::bitpack;
use parq::encoding::byte_stream_split::{self, ByteStreamSplitDecoder};
use parq::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use parq::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parq::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use parq::encoding::dictionary::{self, DictionaryDecoder};
use parq::encoding::plain::{self, BooleanDecoder};
use parq::encoding::rle::{self, RleDecoder};
use parq::format::footer::{decode_file_metadata, DecodeOptions};
use parq::format::metadata::PageHeader;
use parq::ErrorKind;
mod common;
use common::{python_if_present, run_python_at, tmp_dir, uleb, zigzag, XorShift as Rng};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Scalar reference implementations.

fn pack_lsb(values: &[u64], w: u32) -> Vec<u8> {
    let mut out = vec![0u8; (values.len() * w as usize).div_ceil(8)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..w as usize {
            if v >> b & 1 == 1 {
                let bit = i * w as usize + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

fn unpack_lsb_ref(data: &[u8], w: u32, n: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            (0..w as usize).fold(0u64, |acc, b| {
                let bit = i * w as usize + b;
                acc | (u64::from(data[bit / 8] >> (bit % 8) & 1) << b)
            })
        })
        .collect()
}

/// A random RLE / bit-packed hybrid stream of `w`-bit values: the bytes and every value it
/// holds (including the padding of the last bit-packed run).
fn random_hybrid(rng: &mut Rng, w: u32, runs: usize) -> (Vec<u8>, Vec<u64>) {
    let (mut bytes, mut values) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        if rng.below(2) == 0 {
            let (v, len) = (rng.bits(w), 1 + rng.below(300));
            uleb(len << 1, &mut bytes);
            bytes.extend_from_slice(&v.to_le_bytes()[..(w as usize).div_ceil(8)]);
            values.extend(std::iter::repeat_n(v, len as usize));
        } else {
            let groups = 1 + rng.below(40);
            let vals: Vec<u64> = (0..groups * 8).map(|_| rng.bits(w)).collect();
            uleb(groups << 1 | 1, &mut bytes);
            bytes.extend(pack_lsb(&vals, w));
            values.extend(vals);
        }
    }
    (bytes, values)
}

/// A DELTA_BINARY_PACKED encoder: `bits` is 32 (INT32) or 64 (INT64).
fn delta_encode(values: &[i64], block: usize, miniblocks: usize, bits: u32) -> Vec<u8> {
    let wrap = |v: i64| if bits == 32 { v as i32 as i64 } else { v };
    let mut out = Vec::new();
    uleb(block as u64, &mut out);
    uleb(miniblocks as u64, &mut out);
    uleb(values.len() as u64, &mut out);
    zigzag(values.first().copied().unwrap_or(0), &mut out);
    let deltas: Vec<i64> = values
        .windows(2)
        .map(|p| wrap(p[1].wrapping_sub(p[0])))
        .collect();
    let mb = block / miniblocks;
    for chunk in deltas.chunks(block) {
        let min = *chunk.iter().min().unwrap();
        zigzag(min, &mut out);
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let rel: Vec<u64> = chunk
            .iter()
            .map(|&d| d.wrapping_sub(min) as u64 & mask)
            .collect();
        let used = rel.len().div_ceil(mb);
        let widths: Vec<u32> = (0..miniblocks)
            .map(|m| match rel.get(m * mb..((m + 1) * mb).min(rel.len())) {
                Some(s) if m < used => s.iter().map(|v| 64 - v.leading_zeros()).max().unwrap(),
                _ => 0xAB, // arbitrary: readers must ignore widths of unused miniblocks
            })
            .collect();
        out.extend(widths.iter().map(|&w| w as u8));
        for m in 0..used {
            let mut s = rel[m * mb..((m + 1) * mb).min(rel.len())].to_vec();
            s.resize(mb, 0);
            out.extend(pack_lsb(&s, widths[m]));
        }
    }
    out
}

fn kind(e: &parq::Error) -> (&'static str, String) {
    match e.kind() {
        ErrorKind::Encoding { encoding, message } => (encoding, message.clone()),
        other => panic!("not an encoding error: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Spec examples (Encodings.md).

#[test]
fn spec_rle_bit_packed_example() {
    // "The numbers 1 through 7 using bit width 3": 10001000 11000110 11111010, as one
    // bit-packed run of one group (header 1 << 1 | 1).
    let data = [0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010];
    let mut out = [0u16; 8];
    rle::decode(&data, 3, &mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    // With the 4-byte length prefix of v1 levels, then an RLE run of five 6s.
    let mut v1 = vec![6, 0, 0, 0];
    v1.extend_from_slice(&data);
    v1.extend_from_slice(&[5 << 1, 6]);
    v1.extend_from_slice(&[0xEE; 3]); // the values section that follows
    let (mut d, consumed) = RleDecoder::with_length_prefix(&v1, 3).unwrap();
    assert_eq!(consumed, 10);
    let mut out = [0u32; 13];
    d.decode_exact(&mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 6, 6, 6, 6, 6]);
    assert_eq!(d.decode(&mut [0u32; 4]).unwrap(), 0);
}

#[test]
fn bit_packed_levels_read_as_pyarrow() {
    // The spec draws BIT_PACKED most significant bit first (00000101 00111001 01110111 for
    // 0..=7 at width 3); pyarrow and arrow-rs read the bits least significant first, as in
    // an RLE bit-packed run (tests/read_lenient.rs checks a file against pyarrow).
    let data = [0b1000_1000, 0b1100_0110, 0b1111_1010];
    let mut out = [0u8; 8];
    assert_eq!(bit_packed::decode(&data, 3, &mut out).unwrap(), 3);
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    // "30 values of 2 bits take 8 bytes"
    assert_eq!(bit_packed::encoded_len(30, 2), 8);
}

#[test]
fn spec_delta_binary_packed_examples() {
    // The spec's examples use block size 8 ("invalid in real cases"); here with 128.
    // Example 1: 1, 2, 3, 4, 5: header 128, 1 miniblock, 5 values, first 1; min delta 1,
    // bit width 0, no data.
    let ex1 = [0x80, 0x01, 1, 5, 2, 2, 0];
    let mut out: Vec<i32> = Vec::new();
    let consumed = DeltaBinaryPackedDecoder::new(&ex1)
        .unwrap()
        .decode_all(&mut out)
        .unwrap();
    assert_eq!((out, consumed), (vec![1, 2, 3, 4, 5], 7));
    // Example 2: 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, width 2, relative deltas
    // 0, 0, 0, 3, 3, 3, 3 in a padded 128-value miniblock (32 bytes).
    let mut ex2 = vec![0x80, 0x01, 1, 8, 14, 3, 2, 0b1100_0000, 0b0011_1111];
    ex2.resize(7 + 32, 0);
    let mut out: Vec<i64> = Vec::new();
    let consumed = DeltaBinaryPackedDecoder::new(&ex2)
        .unwrap()
        .decode_all(&mut out)
        .unwrap();
    assert_eq!((out, consumed), (vec![7, 5, 3, 1, 2, 3, 4, 5], 39));
    // Block size 8 itself is rejected.
    let e = DeltaBinaryPackedDecoder::new(&[8, 1, 5, 2, 2, 0]).unwrap_err();
    assert_eq!(kind(&e).0, "DELTA_BINARY_PACKED");
}

#[test]
fn spec_delta_length_and_delta_byte_array_examples() {
    // "Hello", "World", "Foobar", "ABCDEF": lengths 5, 5, 6, 6 (block 128, 4 miniblocks,
    // min delta 0, widths 1 0 0 0, relative deltas 0 1 0), then the bytes.
    let dlba = common::spec_delta_length_byte_array();
    let mut d = DeltaLengthByteArrayDecoder::new(&dlba).unwrap();
    assert_eq!(d.encoded_len(), dlba.len());
    let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
    d.decode(4, &mut offsets, &mut values).unwrap();
    assert_eq!(offsets, [0, 5, 10, 16, 22]);
    assert_eq!(values, b"HelloWorldFoobarABCDEF");

    // "axis", "axle", "babble", "babyhood": prefixes 0 2 0 3 (min delta -2, width 3, relative
    // 4 0 5), suffix lengths 4 2 6 5 (min delta -2, width 3, relative 0 6 1),
    // "axislebabbleyhood".
    let dba = common::spec_delta_byte_array();
    let mut d = DeltaByteArrayDecoder::new(&dba).unwrap();
    let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
    d.decode(1, &mut offsets, &mut values).unwrap();
    // Continue in a fresh buffer: the decoder keeps the previous value itself.
    let (mut offsets2, mut values2) = (Vec::<i64>::new(), Vec::new());
    d.decode(3, &mut offsets2, &mut values2).unwrap();
    assert_eq!(values, b"axis");
    assert_eq!(values2, b"axlebabblebabyhood");
    assert_eq!(offsets2, [0, 4, 10, 18]);
}

#[test]
fn spec_byte_stream_split_example() {
    let data = common::SPEC_BYTE_STREAM_SPLIT;
    let mut out = Vec::new();
    byte_stream_split::decode_bytes(&data, 4, &mut out).unwrap();
    assert_eq!(
        out,
        [0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6]
    );
    let mut ints: Vec<u32> = Vec::new();
    byte_stream_split::decode(&data, &mut ints).unwrap();
    assert_eq!(ints, [0xDDCCBBAA, 0x33221100, 0xD6C5B4A3]);
}

#[test]
fn plain_fixed_and_byte_array() {
    let mut data = Vec::new();
    for v in [1i32, -2, i32::MAX] {
        data.extend(v.to_le_bytes());
    }
    let mut out = vec![7i32];
    assert_eq!(plain::decode_fixed(&data, 3, &mut out).unwrap(), 12);
    assert_eq!(out, [7, 1, -2, i32::MAX]);
    let mut out: Vec<plain::Int96> = Vec::new();
    plain::decode_fixed(&data, 1, &mut out).unwrap();
    assert_eq!(out[0][..], data[..]);
    let data = [
        2, 0, 0, 0, b'h', b'i', 0, 0, 0, 0, 3, 0, 0, 0, b'a', b'b', b'c', 9,
    ];
    let (mut offsets, mut values) = (Vec::<i32>::new(), Vec::new());
    assert_eq!(
        plain::decode_byte_array(&data, 3, &mut offsets, &mut values).unwrap(),
        17
    );
    assert_eq!((offsets, values), (vec![0, 2, 2, 5], b"hiabc".to_vec()));
    // Booleans: 0b1011_0101, 0b0000_0011 -> 1 0 1 0 1 1 0 1 1 1
    let mut d = BooleanDecoder::new(&[0b1011_0101, 0b11]);
    let mut b = [false; 3];
    d.decode(&mut b).unwrap();
    assert_eq!(b, [true, false, true]);
    let mut bitmap = vec![0b1];
    assert_eq!(d.decode_bitmap(7, &mut bitmap, 1).unwrap(), 5);
    assert_eq!(bitmap, [0b1110_1101]);
}

// ---------------------------------------------------------------------------------------------
// Oracle tests: fast kernels against the scalar references, every bit width.

#[test]
fn oracle_bit_unpacking_every_width() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for w in 0..=64u32 {
        for n in [0usize, 1, 7, 8, 9, 64, 200, 1001] {
            let vals: Vec<u64> = (0..n).map(|_| rng.bits(w)).collect();
            let packed = pack_lsb(&vals, w);
            let mut out = vec![0u64; n];
            assert_eq!(bitpack::unpack(&packed, w, &mut out).unwrap(), packed.len());
            assert_eq!(out, unpack_lsb_ref(&packed, w, n), "width {w}, n {n}");
            assert_eq!(out, vals);
            if w <= 32 {
                let mut out32 = vec![0u32; n];
                bitpack::unpack(&packed, w, &mut out32).unwrap();
                assert!(out32.iter().zip(&vals).all(|(&a, &b)| u64::from(a) == b));
            }
            if w <= 16 {
                let mut out16 = vec![0u16; n];
                bitpack::unpack(&packed, w, &mut out16).unwrap();
                assert!(out16.iter().zip(&vals).all(|(&a, &b)| u64::from(a) == b));
                let mut levels = vec![0u16; n];
                bit_packed::decode(&packed, w, &mut levels).unwrap();
                assert!(levels.iter().zip(&vals).all(|(&a, &b)| u64::from(a) == b));
            }
        }
    }
}

#[test]
fn oracle_rle_hybrid_batches_every_width() {
    let mut rng = Rng(42);
    for w in 0..=32u32 {
        let (bytes, values) = random_hybrid(&mut rng, w, 30);
        // One shot.
        let mut out = vec![0u32; values.len()];
        rle::decode(&bytes, w, &mut out).unwrap();
        assert!(
            out.iter().zip(&values).all(|(&a, &b)| u64::from(a) == b),
            "width {w}"
        );
        // Streaming in odd batch sizes, with skips.
        let mut d = RleDecoder::new(&bytes, w).unwrap();
        let mut pos = 0;
        while pos < values.len() {
            let n = (1 + rng.below(77) as usize).min(values.len() - pos);
            if rng.below(4) == 0 {
                assert_eq!(d.skip(n).unwrap(), n);
            } else {
                let mut batch = vec![0u32; n];
                d.decode_exact(&mut batch).unwrap();
                let want = &values[pos..pos + n];
                assert!(batch.iter().zip(want).all(|(&a, &b)| u64::from(a) == b));
            }
            pos += n;
        }
        assert_eq!(d.decode(&mut [0u32; 1]).unwrap(), 0);
        // Dictionary gather, fused, in batches.
        let dict: Vec<u64> = (0..(1u64 << w.min(12))).map(|i| i * 31 + 5).collect();
        if values.iter().all(|&v| v < dict.len() as u64) {
            let mut d = DictionaryDecoder::with_bit_width(&bytes, w).unwrap();
            let mut got = Vec::new();
            let mut left = values.len();
            while left > 0 {
                let n = (1 + rng.below(100) as usize).min(left);
                d.gather(n, &dict, &mut got).unwrap();
                left -= n;
            }
            let want: Vec<u64> = values.iter().map(|&v| dict[v as usize]).collect();
            assert_eq!(got, want, "gather width {w}");
        }
    }
}

#[test]
fn oracle_validity_bitmap_from_levels() {
    let mut rng = Rng(7);
    for round in 0..50 {
        let (bytes, values) = random_hybrid(&mut rng, 1, 20);
        let mut d = RleDecoder::new(&bytes, 1).unwrap();
        let start: usize = round % 11;
        let mut bitmap = vec![0xFFu8; start.div_ceil(8)];
        let (mut pos, mut ones) = (0, 0);
        while pos < values.len() {
            let n = (1 + rng.below(90) as usize).min(values.len() - pos);
            ones += d.decode_bitmap(n, &mut bitmap, start + pos).unwrap();
            pos += n;
        }
        for (i, &v) in values.iter().enumerate() {
            let bit = bitmap[(start + i) / 8] >> ((start + i) % 8) & 1;
            assert_eq!(u64::from(bit), v, "round {round} bit {i}");
        }
        assert!((0..start).all(|i| bitmap[i / 8] >> (i % 8) & 1 == 1));
        assert_eq!(ones as u64, values.iter().sum::<u64>());
    }
}

#[test]
fn oracle_delta_binary_packed_every_width() {
    let mut rng = Rng(99);
    for w in 0..=64u32 {
        for (block, mbs) in [(128, 4), (128, 1), (256, 8), (512, 16)] {
            let n = 1 + rng.below(1500) as usize;
            // Values whose deltas need about `w` bits, with wrap-around for w = 64.
            let mut vals = vec![rng.next() as i64];
            for _ in 1..n {
                let last = *vals.last().unwrap();
                vals.push(last.wrapping_add(rng.bits(w) as i64));
            }
            let enc = delta_encode(&vals, block, mbs, 64);
            let mut tail = enc.clone();
            tail.extend_from_slice(b"next");
            let mut d = DeltaBinaryPackedDecoder::new(&tail).unwrap();
            let mut got: Vec<i64> = Vec::new();
            while d.remaining() > 0 {
                let k = (1 + rng.below(100) as usize).min(d.remaining());
                d.decode(k, &mut got).unwrap();
            }
            assert_eq!(got, vals, "width {w} block {block}/{mbs}");
            assert_eq!(d.consumed(), enc.len());
            if w <= 32 {
                let v32: Vec<i64> = vals.iter().map(|&v| v as i32 as i64).collect();
                let enc = delta_encode(&v32, block, mbs, 32);
                let mut got: Vec<i32> = Vec::new();
                DeltaBinaryPackedDecoder::new(&enc)
                    .unwrap()
                    .decode_all(&mut got)
                    .unwrap();
                assert!(got.iter().zip(&v32).all(|(&a, &b)| i64::from(a) == b));
            }
        }
    }
    // INT32 wrapping: MIN -> MAX -> MIN needs 32-bit wrapping deltas.
    let vals = [i32::MIN as i64, i32::MAX as i64, i32::MIN as i64, 0, -1];
    let mut got: Vec<i32> = Vec::new();
    let enc = delta_encode(&vals, 128, 4, 32);
    DeltaBinaryPackedDecoder::new(&enc)
        .unwrap()
        .decode_all(&mut got)
        .unwrap();
    assert_eq!(got, [i32::MIN, i32::MAX, i32::MIN, 0, -1]);
}

#[test]
fn oracle_byte_stream_split_every_width() {
    let mut rng = Rng(5);
    for width in 1..=20usize {
        let n = rng.below(300) as usize;
        let plain: Vec<u8> = (0..n * width).map(|_| rng.next() as u8).collect();
        let mut enc = vec![0u8; plain.len()];
        for i in 0..n {
            for k in 0..width {
                enc[k * n + i] = plain[i * width + k];
            }
        }
        let mut d = ByteStreamSplitDecoder::new(&enc, width).unwrap();
        let mut out = Vec::new();
        while d.remaining() > 0 {
            let k = (1 + rng.below(50) as usize).min(d.remaining());
            d.decode_bytes(k, &mut out).unwrap();
        }
        assert_eq!(out, plain, "width {width}");
        if width == 8 {
            let mut f: Vec<f64> = Vec::new();
            byte_stream_split::decode(&enc, &mut f).unwrap();
            let bits: Vec<u8> = f.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(bits, plain);
        }
    }
}

/// The edge cases of the in-place / padded bit-unpacking paths: every group of a slice either
/// has enough bytes after it to be read in place or is copied into a padded buffer first, and
/// bytes after the packed data must never leak into the values.
#[test]
fn oracle_bit_unpacking_in_place_and_padded_groups() {
    let mut rng = Rng(0xB175);
    for w in 0..=64u32 {
        for groups in [1usize, 2, 3, 5, 17, 40] {
            let n = groups * 8;
            let vals: Vec<u64> = (0..n).map(|_| rng.bits(w)).collect();
            let packed = pack_lsb(&vals, w);
            for extra in [0usize, 1, 7, 8, 15, 16, 40, 100] {
                let mut src = packed.clone();
                src.extend((0..extra).map(|_| rng.next() as u8 | 0x81));
                let mut out = vec![0u64; n];
                assert_eq!(bitpack::unpack(&src, w, &mut out).unwrap(), packed.len());
                assert_eq!(out, vals, "width {w}, {groups} groups, {extra} extra bytes");
                // A partial last group followed by garbage.
                for cut in [1usize, 5, 7] {
                    let m = n - 8 + cut;
                    let mut out = vec![0u64; m];
                    bitpack::unpack(&src, w, &mut out).unwrap();
                    assert_eq!(out, vals[..m], "width {w}, {m} values, {extra} extra");
                }
            }
        }
    }
}

#[test]
fn oracle_delta_binary_packed_edge_cases() {
    let mut rng = Rng(0xDE17A);
    let decode_i64 = |enc: &[u8], batches: &mut dyn FnMut(usize) -> usize| {
        let mut d = DeltaBinaryPackedDecoder::new(enc).unwrap();
        let mut got: Vec<i64> = Vec::new();
        while d.remaining() > 0 {
            let k = batches(d.remaining()).min(d.remaining());
            d.decode(k, &mut got).unwrap();
        }
        got
    };
    // Every width, with mixed miniblock widths (some 0) in the same block, values past one
    // output window (4096) in one call and counts that end mid-group and mid-miniblock.
    for w in 0..=64u32 {
        for n in [1usize, 2, 9, 33, 129, 1000, 9001] {
            let mut vals = vec![rng.next() as i64];
            for i in 1..n {
                let last = *vals.last().unwrap();
                // Runs of equal deltas make width-0 miniblocks.
                let d = if (i / 32) % 3 == 0 {
                    5
                } else {
                    rng.bits(w) as i64
                };
                vals.push(last.wrapping_add(d));
            }
            for (block, mbs) in [(128, 4), (256, 32), (1024, 2)] {
                let enc = delta_encode(&vals, block, mbs, 64);
                assert_eq!(decode_i64(&enc, &mut |r| r), vals, "w {w} n {n} one call");
                let mut r2 = Rng(n as u64 + 1);
                let got = decode_i64(&enc, &mut |_| 1 + r2.below(20) as usize);
                assert_eq!(got, vals, "w {w} n {n} batches");
            }
            if w <= 32 {
                // INT32: 32-bit wrapping deltas of full-range values.
                let v32: Vec<i64> = vals
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        if w == 32 && i % 2 == 1 {
                            i32::MIN as i64
                        } else {
                            v as i32 as i64
                        }
                    })
                    .collect();
                let enc = delta_encode(&v32, 128, 4, 32);
                let mut got: Vec<i32> = vec![7];
                let mut d = DeltaBinaryPackedDecoder::new(&enc).unwrap();
                while d.remaining() > 0 {
                    let k = (1 + rng.below(3000) as usize).min(d.remaining());
                    d.decode(k, &mut got).unwrap();
                }
                assert_eq!(got[0], 7);
                assert!(got[1..].iter().zip(&v32).all(|(&a, &b)| i64::from(a) == b));
            }
        }
    }
    // Empty: no values, no blocks.
    let enc = delta_encode(&[], 128, 4, 64);
    let mut got: Vec<i64> = Vec::new();
    DeltaBinaryPackedDecoder::new(&enc)
        .unwrap()
        .decode_all(&mut got)
        .unwrap();
    assert!(got.is_empty());
    // Truncated at every byte: an error (output untouched, decoder exhausted), never a panic.
    let vals: Vec<i64> = (0..700).map(|i| i * i * 37 % 1001).collect();
    let enc = delta_encode(&vals, 128, 4, 64);
    for cut in 0..enc.len() {
        let Ok(mut d) = DeltaBinaryPackedDecoder::new(&enc[..cut]) else {
            continue;
        };
        let mut out: Vec<i64> = vec![1, 2];
        let mut failed = false;
        while d.remaining() > 0 {
            if d.decode(d.remaining().min(100), &mut out).is_err() {
                failed = true;
                break;
            }
        }
        if failed {
            assert!(d.decode(1, &mut out).is_err());
        }
        // The last miniblock's padding is optional; anything decoded must be right.
        assert_eq!(out[..2], [1, 2]);
        assert_eq!(out[2..], vals[..out.len() - 2], "cut {cut}");
    }
}

#[test]
fn oracle_byte_stream_split_typed_kernels() {
    fn split(plain: &[u8], width: usize) -> Vec<u8> {
        let n = plain.len() / width;
        let mut enc = vec![0u8; plain.len()];
        for i in 0..n {
            for k in 0..width {
                enc[k * n + i] = plain[i * width + k];
            }
        }
        enc
    }
    fn check<T: parq::encoding::plain::FixedWidth + PartialEq + std::fmt::Debug>(
        rng: &mut Rng,
        n: usize,
    ) {
        let w = T::WIDTH;
        // Top bytes below 0x40: no NaN floats, whose inequality would fail the comparison.
        let plain: Vec<u8> = (0..n * w)
            .map(|i| rng.next() as u8 & if i % w == w - 1 { 0x3F } else { 0xFF })
            .collect();
        let want: Vec<T> = plain.chunks_exact(w).map(T::from_le_slice).collect();
        let enc = split(&plain, w);
        let mut got: Vec<T> = Vec::new();
        byte_stream_split::decode(&enc, &mut got).unwrap();
        assert_eq!(got, want, "width {w}, n {n}");
        // In batches that start and stop inside the 64-value blocks.
        let mut d = ByteStreamSplitDecoder::new(&enc, w).unwrap();
        let mut got: Vec<T> = Vec::new();
        while d.remaining() > 0 {
            let k = (1 + rng.below(150) as usize).min(d.remaining());
            d.decode(k, &mut got).unwrap();
        }
        assert_eq!(got, want, "width {w}, n {n}, batches");
        let mut bytes = vec![9u8];
        byte_stream_split::decode_bytes(&enc, w, &mut bytes).unwrap();
        assert_eq!(bytes[0], 9);
        assert_eq!(bytes[1..], plain);
    }
    let mut rng = Rng(0x855);
    for n in [0usize, 1, 7, 63, 64, 65, 127, 128, 129, 1000, 4097] {
        check::<u16>(&mut rng, n);
        check::<f32>(&mut rng, n);
        check::<i32>(&mut rng, n);
        check::<f64>(&mut rng, n);
        check::<i64>(&mut rng, n);
        for width in [12usize, 16] {
            let plain: Vec<u8> = (0..n * width).map(|_| rng.next() as u8).collect();
            let mut out = Vec::new();
            byte_stream_split::decode_bytes(&split(&plain, width), width, &mut out).unwrap();
            assert_eq!(out, plain, "width {width}, n {n}");
        }
    }
}

/// The byte-array gather: values shorter and longer than the fixed-size copy, entries at the
/// very end of the dictionary's bytes (no slack to over-read), empty values, RLE runs and
/// bit-packed runs, in odd batches, for both offset types.
#[test]
fn oracle_dictionary_byte_array_gather() {
    fn run<O: parq::encoding::OffsetSize + PartialEq + std::fmt::Debug>(rng: &mut Rng) {
        // Dictionaries of short entries only (the output sized by the longest), of entries
        // up to 132 bytes (sized by the exact total), and up to 400 (copied by `memcpy`).
        for (w, longest) in [
            (1u32, 132),
            (3, 132),
            (7, 132),
            (10, 132),
            (5, 30),
            (9, 30),
            (6, 400),
        ] {
            let entries = 1usize << w;
            let dict: Vec<Vec<u8>> = (0..entries)
                .map(|i| {
                    let len = match i % 5 {
                        0 => 0,
                        1 => 31.min(longest) + rng.below(4) as usize,
                        2 => (33 + rng.below(longest.saturating_sub(32) as u64) as usize)
                            .min(longest),
                        _ => rng.below(24) as usize,
                    };
                    (0..len).map(|_| rng.next() as u8).collect()
                })
                .collect();
            let mut dict_offsets = vec![O::from_usize(0)];
            let mut dict_values = Vec::new();
            for v in &dict {
                dict_values.extend_from_slice(v);
                dict_offsets.push(O::from_usize(dict_values.len()));
            }
            let (bytes, idx) = random_hybrid(rng, w, 40);
            let mut d = DictionaryDecoder::with_bit_width(&bytes, w).unwrap();
            let (mut offsets, mut values) = (Vec::<O>::new(), Vec::new());
            let mut left = idx.len();
            while left > 0 {
                let n = (1 + rng.below(700) as usize).min(left);
                d.gather_byte_array(n, &dict_offsets, &dict_values, &mut offsets, &mut values)
                    .unwrap();
                left -= n;
            }
            let mut want_values = Vec::new();
            let mut want_offsets = vec![O::from_usize(0)];
            for &i in &idx {
                want_values.extend_from_slice(&dict[i as usize]);
                want_offsets.push(O::from_usize(want_values.len()));
            }
            assert_eq!(values, want_values, "width {w}");
            assert_eq!(offsets, want_offsets, "width {w}");
        }
    }
    let mut rng = Rng(0x61);
    run::<i32>(&mut rng);
    run::<i64>(&mut rng);
    // Invalid dictionary offsets (decreasing, negative, past the bytes) and an index past an
    // empty dictionary: errors in bit-packed and RLE runs, no panics.
    let packed = [3u8, 0b1000_1000, 0b1100_0110, 0b1111_1010]; // 0..=7, 3 bits, packed
    for (bad, entry) in [
        (vec![0i32, 5, 2, 6, 6, 6, 6, 6, 6], 1u8),
        (vec![0, 1, -4, 6, 6, 6, 6, 6, 6], 2),
        (vec![0, 1, 2, 3, 4, 5, 6, 7, 99], 7),
    ] {
        let mut d = DictionaryDecoder::with_bit_width(&packed, 3).unwrap();
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        let e = d.gather_byte_array(8, &bad, b"abcdefg", &mut o, &mut v);
        assert!(kind(&e.unwrap_err()).1.contains("invalid offsets"));
        let run = [8 << 1, entry];
        let mut d = DictionaryDecoder::with_bit_width(&run, 3).unwrap();
        let e = d.gather_byte_array(8, &bad, b"abcdefg", &mut o, &mut v);
        assert!(kind(&e.unwrap_err()).1.contains("invalid offsets"));
    }
    for dict_offsets in [vec![], vec![0i32]] {
        let mut d = DictionaryDecoder::with_bit_width(&packed, 3).unwrap();
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        let e = d.gather_byte_array(8, &dict_offsets, b"", &mut o, &mut v);
        assert!(kind(&e.unwrap_err())
            .1
            .contains("out of the dictionary of 0"));
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile input: clean errors, no panics.

#[test]
fn hostile_inputs_are_errors() {
    let enc = |r: parq::Result<()>| kind(&r.unwrap_err());
    // RLE: truncated value, truncated prefix, prefix beyond data, too few values, width.
    let mut out = [0u32; 4];
    assert_eq!(enc(rle::decode(&[4 << 1], 9, &mut out)).0, "RLE");
    assert!(RleDecoder::with_length_prefix(&[1, 0], 1).is_err());
    assert!(RleDecoder::with_length_prefix(&[9, 0, 0, 0, 2, 1], 1).is_err());
    assert!(enc(rle::decode(&[2 << 1, 1], 1, &mut out))
        .1
        .contains("2 of 4"));
    assert!(RleDecoder::new(&[], 33).is_err());
    assert!(RleDecoder::new(&[2, 3], 17)
        .unwrap()
        .decode(&mut [0u16; 2])
        .is_err());
    assert!(RleDecoder::for_dictionary_indices(&[40, 0]).is_err());
    // A huge bit-packed run header over a few bytes: only what is there decodes.
    let mut huge = Vec::new();
    uleb(u64::MAX >> 2 | 1, &mut huge);
    huge.extend([0xFF; 3]);
    let mut out = [0u16; 100];
    assert_eq!(
        RleDecoder::new(&huge, 3).unwrap().decode(&mut out).unwrap(),
        8
    );
    assert!(RleDecoder::new(&[0xFF; 12], 1)
        .unwrap()
        .decode(&mut out)
        .is_err());
    // Dictionary: index out of range in an RLE run and in a bit-packed run.
    let e = dictionary::gather(&[4 << 1, 7], 3, 4, &[1u8, 2, 3], &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "RLE_DICTIONARY: index 7 out of the dictionary of 3 entries"
    );
    let e = dictionary::gather(&[3, 0x88, 0xC6, 0xFA], 3, 8, &[0u8; 7], &mut Vec::new());
    assert!(kind(&e.unwrap_err()).1.contains("index 7"));
    let mut d = DictionaryDecoder::new(&[2, 4 << 1, 3]).unwrap();
    let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
    assert!(d
        .gather_byte_array(4, &[0, 1, 2], b"ab", &mut o, &mut v)
        .is_err());
    // PLAIN: truncated fixed width, byte array length beyond the data, absurd counts.
    assert!(plain::decode_fixed::<i64>(&[0; 15], 2, &mut Vec::new()).is_err());
    assert!(plain::decode_fixed::<i32>(&[0; 4], usize::MAX, &mut Vec::new()).is_err());
    let e = plain::decode_byte_array::<i32>(&[9, 0, 0, 0, 1], 1, &mut o, &mut v).unwrap_err();
    assert!(kind(&e).1.contains("length 9 > 1 bytes"));
    assert!(plain::decode_byte_array::<i32>(&[0; 8], 1 << 40, &mut o, &mut v).is_err());
    assert!(BooleanDecoder::new(&[1]).decode(&mut [false; 9]).is_err());
    assert!(bit_packed::decode(&[0xFF], 3, &mut [0u8; 3]).is_err());
    assert!(BitPackedDecoder::new(&[], 40).is_err());
    // DELTA_BINARY_PACKED: bad block / miniblock counts, absurd value count, width > 64.
    let e = DeltaBinaryPackedDecoder::new(&[0x80, 0x01, 3, 5, 0]).unwrap_err();
    assert!(kind(&e).1.contains("miniblocks"));
    assert!(DeltaBinaryPackedDecoder::new(&[0x80, 0x01, 0, 5, 0]).is_err());
    assert!(DeltaBinaryPackedDecoder::new(&[0x80, 0x01, 4, 0xFF, 0xFF, 0xFF, 0x0F, 0]).is_err());
    assert!(DeltaBinaryPackedDecoder::new(&[0x80]).is_err());
    assert!(DeltaBinaryPackedDecoder::new(&[0xFF; 20]).is_err());
    let bad = [0x80, 0x01, 1, 3, 0, 0, 70, 0, 0];
    let e = DeltaBinaryPackedDecoder::new(&bad)
        .unwrap()
        .decode(3, &mut Vec::<i64>::new());
    assert_eq!(
        e.unwrap_err().to_string(),
        "DELTA_BINARY_PACKED: miniblock bit width 70 > 64 (INT64)"
    );
    let bad = [0x80, 0x01, 1, 3, 0, 0, 65, 0, 0];
    let e = DeltaBinaryPackedDecoder::new(&bad)
        .unwrap()
        .decode(3, &mut Vec::<i32>::new());
    assert!(kind(&e.unwrap_err()).1.contains("65 > 64 (INT32)"));
    // INT32 deltas wider than 32 bits (DuckDB computes them in 64 bits): their low 32 bits
    // count, arithmetic wraps. Deltas 2^32 + 5 and 7 from 0 give 5 and 12.
    let mut wide = vec![0x80, 0x01, 1, 3, 0, 0, 33];
    wide.extend(pack_lsb(&[(1 << 32) + 5, 7, 0, 0, 0, 0, 0, 0], 33));
    let mut out = Vec::<i32>::new();
    DeltaBinaryPackedDecoder::new(&wide)
        .unwrap()
        .decode(3, &mut out)
        .unwrap();
    assert_eq!(out, [0, 5, 12]);
    // Cut short: an error, not a panic.
    let e = DeltaBinaryPackedDecoder::new(&wide[..20])
        .unwrap()
        .decode(3, &mut Vec::<i32>::new());
    assert!(e.is_err());
    let trunc = [0x80, 0x01, 1, 3, 0, 0, 8, 1];
    let e = DeltaBinaryPackedDecoder::new(&trunc)
        .unwrap()
        .decode(3, &mut Vec::<i64>::new());
    assert!(kind(&e.unwrap_err()).1.contains("needs 8 bytes, 1 remain"));
    // DELTA_LENGTH_BYTE_ARRAY: lengths beyond the data, negative lengths.
    let mut dl = vec![0x80, 0x01, 4, 2, 20, 0, 0, 0, 0, 0];
    dl.extend_from_slice(b"short");
    assert!(kind(&DeltaLengthByteArrayDecoder::new(&dl).unwrap_err())
        .1
        .contains("total"));
    let neg = [0x80, 0x01, 4, 1, 1];
    assert!(DeltaLengthByteArrayDecoder::new(&neg).is_err());
    // DELTA_BYTE_ARRAY: a prefix longer than the previous value.
    let mut db = vec![0x80, 0x01, 4, 1, 6];
    db.extend([0x80, 0x01, 4, 1, 2, b'x']);
    let mut d = DeltaByteArrayDecoder::new(&db).unwrap();
    let e = d
        .decode(1, &mut Vec::<i32>::new(), &mut Vec::new())
        .unwrap_err();
    assert!(kind(&e)
        .1
        .contains("prefix length 3 > previous value's 0 bytes"));
    // BYTE_STREAM_SPLIT: not a whole number of values, too many requested.
    assert!(ByteStreamSplitDecoder::new(&[0; 7], 4).is_err());
    assert!(ByteStreamSplitDecoder::new(&[0; 8], 0).is_err());
    let mut d = ByteStreamSplitDecoder::new(&[0; 8], 4).unwrap();
    assert!(d.decode_bytes(3, &mut Vec::new()).is_err());
    assert!(d.decode::<f64>(1, &mut Vec::new()).is_err());
    // Random garbage through every decoder: errors or values, never a panic.
    let mut rng = Rng(1234);
    for _ in 0..3000 {
        let len = rng.below(64) as usize;
        let g: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let w = rng.below(34) as u32;
        if let Ok(mut d) = RleDecoder::new(&g, w) {
            let _ = d.decode(&mut [0u32; 300]);
        }
        let _ = dictionary::gather(&g, w, 50, &[0u8; 5], &mut Vec::new());
        if let Ok(mut d) = DeltaBinaryPackedDecoder::new(&g) {
            let n = d.remaining().min(5000);
            let _ = d.decode(n, &mut Vec::<i64>::new());
        }
        if let Ok(mut d) = DeltaByteArrayDecoder::new(&g) {
            let n = d.remaining();
            let _ = d.decode(n, &mut Vec::<i32>::new(), &mut Vec::new());
        }
        let _ = plain::decode_byte_array::<i64>(&g, 3, &mut Vec::new(), &mut Vec::new());
    }
}

// ---------------------------------------------------------------------------------------------
// Byte-array kernels (PLAIN, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) against a naive
// encoder and reference.

fn plain_byte_array_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        out.extend((v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
    }
    out
}

fn dlba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let lengths: Vec<i64> = values.iter().map(|v| v.len() as i64).collect();
    let mut out = delta_encode(&lengths, 128, 4, 32);
    for v in values {
        out.extend_from_slice(v);
    }
    out
}

fn dba_encode(values: &[Vec<u8>]) -> Vec<u8> {
    let mut prev: &[u8] = &[];
    let (mut prefixes, mut suffixes) = (Vec::new(), Vec::new());
    for v in values {
        let p = prev.iter().zip(v).take_while(|(a, b)| a == b).count();
        prefixes.push(p as i64);
        suffixes.push(v[p..].to_vec());
        prev = v;
    }
    let mut out = delta_encode(&prefixes, 128, 4, 32);
    out.extend(dlba_encode(&suffixes));
    out
}

/// Arrow-style offsets and bytes of `values`, the expected output.
fn arrow_bytes(values: &[Vec<u8>]) -> (Vec<i64>, Vec<u8>) {
    let mut offsets = vec![0i64];
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend_from_slice(v);
        offsets.push(bytes.len() as i64);
    }
    (offsets, bytes)
}

/// Random values of one of several shapes: short words, keys with long shared prefixes,
/// long values (past the kernels' chunked copies), empty strings, and a mix.
fn random_byte_arrays(rng: &mut Rng, shape: u64, n: usize) -> Vec<Vec<u8>> {
    let mut key = 0u64;
    (0..n)
        .map(|_| match shape {
            0 => (0..rng.below(33))
                .map(|_| b'a' + rng.below(26) as u8)
                .collect(),
            1 => {
                key += 1 + rng.below(3);
                format!(
                    "https://example.com/customers/{:06}/orders/{key:010}",
                    key / 64
                )
                .into_bytes()
            }
            2 => (0..100 + rng.below(300))
                .map(|_| rng.next() as u8)
                .collect(),
            3 => Vec::new(),
            _ => {
                let len =
                    [0, 1, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 200][rng.below(13) as usize];
                let base = b"0123456789abcdefghijklmnopqrstuvwxyz".repeat(8);
                let mut v = base[..len].to_vec();
                if len > 0 && rng.below(2) == 0 {
                    let i = rng.below(len as u64) as usize;
                    v[i] = b'#';
                }
                v
            }
        })
        .collect()
}

#[test]
fn oracle_byte_array_decoders() {
    let mut rng = Rng(0x5eed_0001);
    for shape in 0..5 {
        for &n in &[0usize, 1, 2, 3, 17, 100, 1000] {
            let values = random_byte_arrays(&mut rng, shape, n);
            let (want_offsets, want_bytes) = arrow_bytes(&values);
            let encoded = [
                ("PLAIN", plain_byte_array_encode(&values)),
                ("DELTA_LENGTH_BYTE_ARRAY", dlba_encode(&values)),
                ("DELTA_BYTE_ARRAY", dba_encode(&values)),
            ];
            for (name, data) in &encoded {
                // Random batches, each into fresh buffers reserved exactly (so the kernels
                // copy the last values of a batch exactly), and all batches appended to one
                // output.
                let mut plain_pos = 0;
                let mut dl = (*name == "DELTA_LENGTH_BYTE_ARRAY")
                    .then(|| DeltaLengthByteArrayDecoder::new(data).unwrap());
                let mut db = (*name == "DELTA_BYTE_ARRAY")
                    .then(|| DeltaByteArrayDecoder::new(data).unwrap());
                let (mut all_offsets, mut all_bytes) = (Vec::<i64>::new(), Vec::new());
                let mut done = 0;
                loop {
                    let k = (1 + rng.below(40) as usize).min(n - done);
                    let want = &values[done..done + k];
                    let (o, b) = arrow_bytes(want);
                    let mut offsets = Vec::<i32>::new();
                    let mut bytes = Vec::with_capacity(b.len());
                    match *name {
                        "PLAIN" => {
                            let used = plain::decode_byte_array(
                                &data[plain_pos..],
                                k,
                                &mut offsets,
                                &mut bytes,
                            )
                            .unwrap();
                            let again = plain::decode_byte_array(
                                &data[plain_pos..],
                                k,
                                &mut all_offsets,
                                &mut all_bytes,
                            )
                            .unwrap();
                            assert_eq!(used, again);
                            plain_pos += used;
                        }
                        "DELTA_LENGTH_BYTE_ARRAY" => {
                            let d = dl.as_mut().unwrap();
                            let mut twin = d.clone();
                            d.decode(k, &mut offsets, &mut bytes).unwrap();
                            twin.decode(k, &mut all_offsets, &mut all_bytes).unwrap();
                        }
                        _ => {
                            let d = db.as_mut().unwrap();
                            let mut twin = d.clone();
                            d.decode(k, &mut offsets, &mut bytes).unwrap();
                            twin.decode(k, &mut all_offsets, &mut all_bytes).unwrap();
                        }
                    }
                    let o32: Vec<i32> = o.iter().map(|&x| x as i32).collect();
                    if k > 0 {
                        assert_eq!(offsets, o32, "{name} shape {shape} n {n} at {done}");
                    }
                    assert_eq!(bytes, b, "{name} shape {shape} n {n} at {done}");
                    done += k;
                    if done >= n {
                        break;
                    }
                }
                if n > 0 {
                    assert_eq!(all_offsets, want_offsets, "{name} shape {shape} n {n}");
                }
                assert_eq!(all_bytes, want_bytes, "{name} shape {shape} n {n}");
                if let Some(d) = &dl {
                    assert_eq!(d.remaining(), 0);
                }
                if let Some(d) = &db {
                    assert_eq!(d.remaining(), 0);
                }
            }
            // Whole pages, one after the other, with the length buffers reused.
            let dba = dba_encode(&values);
            let (mut prefixes, mut lengths) = (Vec::new(), Vec::new());
            for _ in 0..2 {
                let mut d = DeltaByteArrayDecoder::with_buffers(&dba, prefixes, lengths).unwrap();
                let (mut offsets, mut bytes) = (Vec::<i64>::new(), Vec::new());
                d.decode(n, &mut offsets, &mut bytes).unwrap();
                assert_eq!(bytes, want_bytes);
                (prefixes, lengths) = d.into_buffers();
            }
        }
    }
}

#[test]
fn byte_array_decoders_reject_malformed_pages() {
    let values: Vec<Vec<u8>> = ["abc", "abd", "", "x", "xyz"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    // Every truncation of every encoding: an error (or fewer values), never a panic.
    for data in [
        plain_byte_array_encode(&values),
        dlba_encode(&values),
        dba_encode(&values),
    ] {
        for cut in 0..data.len() {
            let d = &data[..cut];
            let _ = plain::decode_byte_array::<i32>(d, 5, &mut Vec::new(), &mut Vec::new());
            if let Ok(mut x) = DeltaLengthByteArrayDecoder::new(d) {
                let _ = x.decode(5, &mut Vec::<i32>::new(), &mut Vec::new());
            }
            if let Ok(mut x) = DeltaByteArrayDecoder::new(d) {
                let _ = x.decode(5, &mut Vec::<i32>::new(), &mut Vec::new());
            }
        }
    }
    // PLAIN: a length past the page.
    let mut bad = plain_byte_array_encode(&values);
    bad[0] = 200;
    assert!(kind(
        &plain::decode_byte_array::<i32>(&bad, 5, &mut Vec::new(), &mut Vec::new()).unwrap_err()
    )
    .1
    .contains("length 200"));
    // DELTA_LENGTH_BYTE_ARRAY: lengths summing past the page; more values than it holds.
    let mut dl = delta_encode(&[3, 4, 5], 128, 4, 32);
    dl.extend_from_slice(b"abcdefghijk");
    assert!(DeltaLengthByteArrayDecoder::new(&dl).is_err());
    let dl = dlba_encode(&values);
    let mut d = DeltaLengthByteArrayDecoder::new(&dl).unwrap();
    assert!(d
        .decode(6, &mut Vec::<i32>::new(), &mut Vec::new())
        .is_err());
    d.decode(0, &mut Vec::<i32>::new(), &mut Vec::new())
        .unwrap();
    // DELTA_BYTE_ARRAY: negative prefix and suffix lengths.
    let mut neg = delta_encode(&[0, -1, 0], 128, 4, 32);
    neg.extend(dlba_encode(&values[..3]));
    assert!(kind(&DeltaByteArrayDecoder::new(&neg).unwrap_err())
        .1
        .contains("negative"));
    let mut neg = delta_encode(&[0, 0], 128, 4, 32);
    neg.extend(delta_encode(&[1, -1], 128, 4, 32));
    neg.extend_from_slice(b"ab");
    assert!(DeltaByteArrayDecoder::new(&neg).is_err());
    // Suffix lengths summing past the page.
    let mut past = delta_encode(&[0, 0], 128, 4, 32);
    past.extend(delta_encode(&[4, 4], 128, 4, 32));
    past.extend_from_slice(b"abcdefg");
    assert!(DeltaByteArrayDecoder::new(&past).is_err());
    // A prefix longer than the previous value in the middle of a page (value 3: 4 > 0),
    // whatever the batch; nothing is appended.
    let mut long = delta_encode(&[0, 2, 0, 4, 0], 128, 4, 32);
    long.extend(dlba_encode(&values));
    let mut d = DeltaByteArrayDecoder::new(&long).unwrap();
    let (mut offsets, mut bytes) = (Vec::<i32>::new(), Vec::new());
    let e = d.decode(5, &mut offsets, &mut bytes).unwrap_err();
    assert!(kind(&e)
        .1
        .contains("value 3: prefix length 4 > previous value's 0 bytes"));
    assert!(bytes.is_empty() && offsets.is_empty());
    let mut d = DeltaByteArrayDecoder::new(&long).unwrap();
    d.decode(3, &mut offsets, &mut bytes).unwrap();
    assert!(d.decode(2, &mut offsets, &mut bytes).is_err());
    // An empty page: no values, nothing appended for n = 0.
    let empty = [delta_encode(&[], 128, 4, 32), delta_encode(&[], 128, 4, 32)].concat();
    let mut d = DeltaByteArrayDecoder::new(&empty).unwrap();
    assert_eq!(d.remaining(), 0);
    d.decode(0, &mut offsets, &mut bytes).unwrap();
    assert!(d.decode(1, &mut offsets, &mut bytes).is_err());
}

// ---------------------------------------------------------------------------------------------
// Files: parquet-testing's corpus and files written by pyarrow, compared with the side files
// and with pyarrow's values.

/// A parquet-testing file of the shared test data; a missing file fails the test.
fn corpus(name: &str) -> PathBuf {
    let p = common::testdata().join("parquet-testing/data").join(name);
    assert!(
        p.is_file(),
        "{} is missing (set PARQ_TESTDATA to the shared test data directory)",
        p.display()
    );
    p
}

/// Decompresses with pyarrow (parq's codecs are tested elsewhere).
fn decompress(py: &Path, codec: &str, data: &[u8], size: usize) -> Vec<u8> {
    if codec == "UNCOMPRESSED" {
        return data.to_vec();
    }
    let dir = tmp_dir("codec");
    let f = dir.join(format!("{}.bin", data.len()));
    std::fs::write(&f, data).unwrap();
    let script = "import sys, pyarrow as pa\n\
        d = open(sys.argv[1], 'rb').read()\n\
        o = pa.decompress(d, decompressed_size=int(sys.argv[3]), codec=sys.argv[2].lower())\n\
        open(sys.argv[1], 'wb').write(o.to_pybytes())";
    run_python_at(py, script, &[f.to_str().unwrap(), codec, &size.to_string()]);
    let out = std::fs::read(&f).unwrap();
    let _ = std::fs::remove_file(&f);
    out
}

/// One column's values as text: decimal integers, or hex of the PLAIN-layout bytes; `None`
/// for nulls.
type Column = Vec<Option<String>>;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Decodes every page of leaf `col` (max definition level 1, no repetition) with parq's
/// decoders, rendering values as pyarrow's dump does.
fn decode_column(py: &Path, file: &[u8], col: usize, render: &dyn Fn(&[u8]) -> String) -> Column {
    let meta = decode_file_metadata(file, &DecodeOptions::default()).unwrap();
    let leaf = meta.schema.leaves()[col].element as usize;
    let required = meta.schema.leaves()[col].max_def_level == 0;
    let elem = &meta.schema.elements()[leaf];
    let physical = elem.physical_type.unwrap().spec_name();
    let width = match physical {
        "INT32" | "FLOAT" => 4,
        "INT64" | "DOUBLE" => 8,
        "INT96" => 12,
        _ => elem.type_length.unwrap_or(0) as usize,
    };
    let mut out = Vec::new();
    let mut dict: (Vec<i64>, Vec<u8>) = (Vec::new(), Vec::new());
    for rg in &meta.row_groups {
        let cc = &rg.columns()[col];
        let codec = cc.codec().spec_name();
        let mut pos = cc.dictionary_page_offset().unwrap_or(cc.data_page_offset()) as usize;
        let end = pos + cc.total_compressed_size() as usize;
        while pos < end {
            let (h, hlen) = PageHeader::decode_prefix(&file[pos..]).unwrap();
            let body = &file[pos + hlen..pos + hlen + h.compressed_page_size as usize];
            pos += hlen + h.compressed_page_size as usize;
            let size = h.uncompressed_page_size as usize;
            let (n, encoding, bitmap, ones, values) = match h.page_type.spec_name() {
                "DICTIONARY_PAGE" => {
                    let n = h.dictionary_page_header.unwrap().num_values as usize;
                    let page = decompress(py, codec, body, size);
                    dict = (Vec::new(), Vec::new());
                    if physical == "BYTE_ARRAY" {
                        plain::decode_byte_array(&page, n, &mut dict.0, &mut dict.1).unwrap();
                    } else {
                        plain::decode_fixed_len_byte_array(&page, width, n, &mut dict.1).unwrap();
                    }
                    continue;
                }
                "DATA_PAGE" => {
                    let dh = h.data_page_header.unwrap();
                    let page = decompress(py, codec, body, size);
                    let n = dh.num_values as usize;
                    let (mut bitmap, mut used) = (vec![0xFF; n.div_ceil(8)], 0);
                    let mut ones = n;
                    if !required {
                        let (mut levels, u) = RleDecoder::with_length_prefix(&page, 1).unwrap();
                        bitmap.clear();
                        ones = levels.decode_bitmap(n, &mut bitmap, 0).unwrap();
                        used = u;
                    }
                    (n, dh.encoding, bitmap, ones, page[used..].to_vec())
                }
                "DATA_PAGE_V2" => {
                    let dh = h.data_page_header_v2.unwrap();
                    let lv = (dh.definition_levels_byte_length + dh.repetition_levels_byte_length)
                        as usize;
                    let n = dh.num_values as usize;
                    let (mut bitmap, mut ones) = (vec![0xFF; n.div_ceil(8)], n);
                    if !required {
                        let mut levels = RleDecoder::new(&body[..lv], 1).unwrap();
                        bitmap.clear();
                        ones = levels.decode_bitmap(n, &mut bitmap, 0).unwrap();
                    }
                    let values = if dh.is_compressed.unwrap_or(true) {
                        decompress(py, codec, &body[lv..], size - lv)
                    } else {
                        body[lv..].to_vec()
                    };
                    (n, dh.encoding, bitmap, ones, values)
                }
                other => panic!("page type {other}"),
            };
            let vals = decode_values(encoding.spec_name(), physical, width, &values, ones, &dict);
            let mut it = vals.iter();
            for i in 0..n {
                let valid = bitmap[i / 8] >> (i % 8) & 1 == 1;
                out.push(valid.then(|| render(it.next().unwrap())));
            }
            assert!(it.next().is_none());
        }
    }
    out
}

/// Decodes `n` values of one page into PLAIN-layout bytes per value.
fn decode_values(
    encoding: &str,
    physical: &str,
    width: usize,
    data: &[u8],
    n: usize,
    dict: &(Vec<i64>, Vec<u8>),
) -> Vec<Vec<u8>> {
    let split = |offsets: &[i64], values: &[u8]| -> Vec<Vec<u8>> {
        offsets
            .windows(2)
            .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    };
    let fixed = |bytes: Vec<u8>| bytes.chunks(width).map(<[u8]>::to_vec).collect();
    let (mut offsets, mut values) = (Vec::<i64>::new(), Vec::new());
    match (encoding, physical) {
        ("PLAIN", "BYTE_ARRAY") => {
            plain::decode_byte_array(data, n, &mut offsets, &mut values).unwrap();
            split(&offsets, &values)
        }
        ("PLAIN", "BOOLEAN") => {
            let mut b = vec![false; n];
            BooleanDecoder::new(data).decode(&mut b).unwrap();
            b.iter().map(|&v| vec![v as u8]).collect()
        }
        ("PLAIN", _) => {
            let mut out = Vec::new();
            plain::decode_fixed_len_byte_array(data, width, n, &mut out).unwrap();
            fixed(out)
        }
        ("RLE", "BOOLEAN") => {
            let (mut d, _) = RleDecoder::with_length_prefix(data, 1).unwrap();
            let mut bitmap = Vec::new();
            d.decode_bitmap(n, &mut bitmap, 0).unwrap();
            (0..n).map(|i| vec![bitmap[i / 8] >> (i % 8) & 1]).collect()
        }
        ("RLE_DICTIONARY" | "PLAIN_DICTIONARY", "BYTE_ARRAY") => {
            let mut d = DictionaryDecoder::new(data).unwrap();
            d.gather_byte_array(n, &dict.0, &dict.1, &mut offsets, &mut values)
                .unwrap();
            split(&offsets, &values)
        }
        ("RLE_DICTIONARY" | "PLAIN_DICTIONARY", _) => {
            let entries: Vec<&[u8]> = dict.1.chunks(width).collect();
            let mut out = Vec::new();
            DictionaryDecoder::new(data)
                .unwrap()
                .gather(n, &entries, &mut out)
                .unwrap();
            out.iter().map(|e| e.to_vec()).collect()
        }
        ("DELTA_BINARY_PACKED", "INT32") => {
            let mut out: Vec<i32> = Vec::new();
            DeltaBinaryPackedDecoder::new(data)
                .unwrap()
                .decode(n, &mut out)
                .unwrap();
            out.iter().map(|v| v.to_le_bytes().to_vec()).collect()
        }
        ("DELTA_BINARY_PACKED", _) => {
            let mut out: Vec<i64> = Vec::new();
            DeltaBinaryPackedDecoder::new(data)
                .unwrap()
                .decode(n, &mut out)
                .unwrap();
            out.iter().map(|v| v.to_le_bytes().to_vec()).collect()
        }
        ("DELTA_LENGTH_BYTE_ARRAY", _) => {
            let mut d = DeltaLengthByteArrayDecoder::new(data).unwrap();
            d.decode(n, &mut offsets, &mut values).unwrap();
            split(&offsets, &values)
        }
        ("DELTA_BYTE_ARRAY", _) => {
            let mut d = DeltaByteArrayDecoder::new(data).unwrap();
            // Two batches, to exercise resuming.
            d.decode(n / 3, &mut offsets, &mut values).unwrap();
            d.decode(n - n / 3, &mut offsets, &mut values).unwrap();
            split(&offsets, &values)
        }
        ("BYTE_STREAM_SPLIT", _) => {
            let mut out = Vec::new();
            let mut d = ByteStreamSplitDecoder::new(data, width).unwrap();
            d.decode_bytes(n / 2, &mut out).unwrap();
            d.decode_bytes(n - n / 2, &mut out).unwrap();
            fixed(out)
        }
        other => panic!("unexpected encoding {other:?}"),
    }
}

const DUMP: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
for name in t.column_names:
    col = t.column(name).combine_chunks()
    ty = col.type
    if pa.types.is_decimal(ty):
        vals = [None if v is None else str(int(v.scaleb(ty.scale))) for v in col.to_pylist()]
    elif pa.types.is_boolean(ty):
        vals = [None if v is None else str(int(v)) for v in col.to_pylist()]
    elif pa.types.is_binary(ty) or pa.types.is_string(ty) or pa.types.is_fixed_size_binary(ty):
        vals = [None if v is None else (v.encode() if isinstance(v, str) else v).hex()
                for v in col.to_pylist()]
    else:
        w = ty.bit_width // 8
        raw = col.buffers()[1].to_pybytes()
        vals = [raw[(col.offset + i) * w:(col.offset + i + 1) * w].hex()
                if col[i].is_valid else None for i in range(len(col))]
    print(name + "\t" + ",".join("~" if v is None else v for v in vals))
"#;

fn pyarrow_columns(py: &Path, path: &Path) -> Vec<(String, Column)> {
    run_python_at(py, DUMP, &[path.to_str().unwrap()])
        .lines()
        .map(|l| {
            let (name, vals) = l.split_once('\t').unwrap();
            let vals = vals
                .split(',')
                .map(|v| (v != "~").then(|| v.to_string()))
                .collect();
            (name.to_string(), vals)
        })
        .collect()
}

/// Compares every column of `path` decoded by parq with pyarrow's values.
fn compare_with_pyarrow(py: &Path, path: &Path) {
    let file = std::fs::read(path).unwrap();
    for (col, (name, want)) in pyarrow_columns(py, path).into_iter().enumerate() {
        let got = if name.starts_with("decimal") {
            decode_column(py, &file, col, &|b| {
                let sign = if b[0] & 0x80 != 0 { 0xFF } else { 0 };
                let mut be = [sign; 16];
                be[16 - b.len()..].copy_from_slice(b);
                i128::from_be_bytes(be).to_string()
            })
        } else if name.starts_with("bool") {
            decode_column(py, &file, col, &|b| b[0].to_string())
        } else {
            decode_column(py, &file, col, &|b| hex(b))
        };
        assert_eq!(got.len(), want.len(), "{}: column {name}", path.display());
        assert!(got == want, "{}: column {name} differs", path.display());
    }
}

#[test]
fn corpus_byte_stream_split_and_delta_length_byte_array_match_pyarrow() {
    let Some(py) = python_if_present() else {
        return;
    };
    for f in [
        "byte_stream_split.zstd.parquet",
        "byte_stream_split_extended.gzip.parquet",
        "delta_length_byte_array.parquet",
    ] {
        compare_with_pyarrow(&py, &corpus(f));
    }
}

fn csv_rows(path: &Path) -> Vec<Vec<Option<String>>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let (mut fields, mut cur, mut quoted, mut inq) =
                (Vec::new(), String::new(), false, false);
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' if inq && chars.peek() == Some(&'"') => {
                        cur.push('"');
                        chars.next();
                    }
                    '"' => (inq, quoted) = (!inq, true),
                    ',' if !inq => {
                        fields.push((quoted || !cur.is_empty()).then(|| std::mem::take(&mut cur)));
                        quoted = false;
                    }
                    c => cur.push(c),
                }
            }
            fields.push((quoted || !cur.is_empty()).then_some(cur));
            fields
        })
        .collect()
}

#[test]
fn corpus_delta_files_match_expect_csv() {
    let Some(py) = python_if_present() else {
        return;
    };
    let int = |b: &[u8]| match b.len() {
        4 => i32::from_le_bytes(b.try_into().unwrap()).to_string(),
        _ => i64::from_le_bytes(b.try_into().unwrap()).to_string(),
    };
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    for (f, csv, render) in [
        (
            "delta_binary_packed.parquet",
            "delta_binary_packed_expect.csv",
            &int as &dyn Fn(&[u8]) -> String,
        ),
        (
            "delta_byte_array.parquet",
            "delta_byte_array_expect.csv",
            &text,
        ),
        (
            "delta_encoding_required_column.parquet",
            "delta_encoding_required_column_expect.csv",
            &|b: &[u8]| {
                if b.len() == 4 && b.iter().any(|&x| !x.is_ascii_graphic()) {
                    int(b)
                } else {
                    text(b)
                }
            },
        ),
    ] {
        let rows = csv_rows(&corpus(csv));
        let file = std::fs::read(corpus(f)).unwrap();
        for col in 0..rows[0].len() {
            let got = decode_column(&py, &file, col, render);
            let want: Column = rows.iter().map(|r| r[col].clone()).collect();
            assert!(got == want, "{f}: column {col} differs");
        }
    }
}

#[test]
fn pyarrow_written_files_match_pyarrow() {
    let Some(py) = python_if_present() else {
        return;
    };
    let dir = tmp_dir("written");
    let script = r#"
import sys, random, pyarrow as pa, pyarrow.parquet as pq
random.seed(3)
n = 5000
def nulls(vals):
    return [None if random.random() < 0.1 else v for v in vals]
i32 = nulls([random.choice([-2**31, 2**31 - 1, 0, -1]) if random.random() < 0.2
             else random.randint(-2**(k := random.randint(0, 31)), 2**k) for _ in range(n)])
i64 = nulls([random.randint(-2**63, 2**63 - 1) if random.random() < 0.3
             else random.randint(0, 1000) for _ in range(n)])
words = ["", "a", "apple", "applesauce", "apply", "banana", "band", "bandana", "ü€"]
s = nulls([random.choice(words) + str(random.randint(0, 50)) * random.randint(0, 3) for _ in range(n)])
t = pa.table({
    "i32": pa.array(i32, pa.int32()), "i64": pa.array(i64, pa.int64()),
    "dlba": pa.array(s, pa.string()), "dba": pa.array(sorted(x or "" for x in s), pa.string()),
    "f32": pa.array(nulls([random.random() for _ in range(n)]), pa.float32()),
    "f16": pa.array(nulls([random.random() for _ in range(n)]), pa.float16()),
    "fsb": pa.array(nulls([bytes([random.randrange(256) for _ in range(3)]) for _ in range(n)]), pa.binary(3)),
    "bool": pa.array(nulls([random.random() < 0.7 for _ in range(n)]), pa.bool_()),
    "dict_s": pa.array(nulls([random.choice(words) for _ in range(n)]), pa.string()),
    "dict_i": pa.array(nulls([random.randint(0, 300) for _ in range(n)]), pa.int64()),
    "plain_s": pa.array(s, pa.string()),
})
enc = {"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "dlba": "DELTA_LENGTH_BYTE_ARRAY",
       "dba": "DELTA_BYTE_ARRAY", "f32": "BYTE_STREAM_SPLIT", "f16": "BYTE_STREAM_SPLIT",
       "fsb": "BYTE_STREAM_SPLIT", "bool": "RLE", "plain_s": "PLAIN"}
for v in ["1.0", "2.0"]:
    pq.write_table(t, f"{sys.argv[1]}/w{v}.parquet", compression="NONE", data_page_version=v,
                   use_dictionary=["dict_s", "dict_i"], column_encoding=enc, data_page_size=4096)
"#;
    run_python_at(&py, script, &[dir.to_str().unwrap()]);
    for v in ["1.0", "2.0"] {
        compare_with_pyarrow(&py, &dir.join(format!("w{v}.parquet")));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Throughput of the main kernels: `cargo test --release -p parq --test encoding -- --ignored
/// --nocapture bench`.
#[test]
#[ignore]
fn bench_kernels() {
    use std::time::Instant;
    let mut rng = Rng(11);
    let n = 1 << 20;
    let time = |name: &str, bytes: usize, f: &mut dyn FnMut()| {
        f();
        let t = Instant::now();
        for _ in 0..20 {
            f();
        }
        let s = t.elapsed().as_secs_f64() / 20.0;
        println!(
            "{name:40} {:8.2} ns/value {:8.0} MB/s",
            s * 1e9 / n as f64,
            bytes as f64 / s / 1e6
        );
    };
    for w in [1u32, 3, 8, 17] {
        let vals: Vec<u64> = (0..n).map(|_| rng.bits(w)).collect();
        let mut data = Vec::new();
        uleb((n as u64 / 8) << 1 | 1, &mut data);
        data.extend(pack_lsb(&vals, w));
        let mut out = vec![0u32; n];
        time(
            &format!("rle bit-packed u32 w={w}"),
            data.len(),
            &mut || rle::decode(&data, w, &mut out).unwrap(),
        );
        if w == 1 {
            let mut bm = Vec::new();
            time("rle 1-bit -> bitmap", data.len(), &mut || {
                bm.clear();
                RleDecoder::new(&data, 1)
                    .unwrap()
                    .decode_bitmap(n, &mut bm, 3)
                    .unwrap();
            });
        }
        let dict: Vec<i64> = (0..1i64 << w).collect();
        let mut g = Vec::with_capacity(n);
        time(
            &format!("dictionary gather i64 w={w}"),
            data.len(),
            &mut || {
                g.clear();
                dictionary::gather(&data, w, n, &dict, &mut g).unwrap();
            },
        );
    }
    let vals: Vec<i64> = (0..n as i64)
        .map(|i| i * 3 + (rng.bits(10) as i64))
        .collect();
    let enc = delta_encode(&vals, 128, 4, 64);
    let mut out: Vec<i64> = Vec::with_capacity(n);
    time("delta_binary_packed i64 (~11 bits)", enc.len(), &mut || {
        out.clear();
        DeltaBinaryPackedDecoder::new(&enc)
            .unwrap()
            .decode_all(&mut out)
            .unwrap();
    });
    let bss: Vec<u8> = (0..n * 8).map(|_| rng.next() as u8).collect();
    let mut f: Vec<f64> = Vec::with_capacity(n);
    time("byte_stream_split f64", bss.len(), &mut || {
        f.clear();
        byte_stream_split::decode(&bss, &mut f).unwrap();
    });
    let mut f: Vec<f32> = Vec::with_capacity(n);
    time("byte_stream_split f32", n * 4, &mut || {
        f.clear();
        byte_stream_split::decode(&bss[..n * 4], &mut f).unwrap();
    });
}
