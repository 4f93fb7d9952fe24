//! Tests of the encoders and compressors of the write path (`parq::encoding::encode`,
//! `parq::compression::compress`): round trips through parq's own decoders, the spec's
//! examples byte for byte, a scalar port of parquet-cpp's RLE encoder as an oracle, page
//! bodies written by pyarrow compared byte for byte with parq's, and codecs checked by
//! pyarrow's decompressors.

use parq::compression::compress::{compress, default_level, level_range, Compressor};
use parq::compression::Decompressor;
use parq::encoding::byte_stream_split::{self as bss_dec};
use parq::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use parq::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parq::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use parq::encoding::dictionary::DictionaryDecoder;
use parq::encoding::encode::byte_stream_split::{self as bss, ByteStreamSplitEncoder};
use parq::encoding::encode::delta::{
    encode_binary_packed, encode_binary_packed_with_block_size, encode_length_byte_array,
    DeltaBinaryPackedEncoder, DeltaByteArrayEncoder, DeltaLengthByteArrayEncoder,
    PYARROW_INT64_BLOCK_SIZE,
};
use parq::encoding::encode::dictionary::{ByteArrayDictEncoder, DictEncoder};
use parq::encoding::encode::plain::{self as penc, BooleanEncoder};
use parq::encoding::encode::rle::{self as renc, RleEncoder};
use parq::encoding::encode::Bitmap;
use parq::encoding::plain::{self, BooleanDecoder, Int96};
use parq::encoding::rle::{self, RleDecoder};
use parq::format::footer::{decode_file_metadata, DecodeOptions};
use parq::format::metadata::{Compression, PageHeader};
use parq::ErrorKind;
mod common;
use common::{python_if_present, run_python_at, tmp_dir, uleb, XorShift as Rng};

// ---------------------------------------------------------------------------------------------
// Helpers.

/// Lengths around group, miniblock, block and bit-packed-run boundaries.
const LENGTHS: [usize; 22] = [
    0, 1, 2, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 127, 128, 129, 255, 256, 503, 504, 505, 1000,
];

/// Values of `w` bits in one of several shapes: random, runs, all equal, sparse changes.
fn shaped(rng: &mut Rng, n: usize, w: u32, shape: u64) -> Vec<u32> {
    let mut v = Vec::with_capacity(n);
    match shape {
        0 => v.extend((0..n).map(|_| rng.bits(w) as u32)),
        1 => {
            while v.len() < n {
                let (x, len) = (rng.bits(w) as u32, 1 + rng.below(40) as usize);
                v.extend(std::iter::repeat_n(x, len.min(n - v.len())));
            }
        }
        2 => v.resize(n, rng.bits(w) as u32),
        _ => {
            let mut x = rng.bits(w) as u32;
            for _ in 0..n {
                if rng.below(50) == 0 {
                    x = rng.bits(w) as u32;
                }
                v.push(x);
            }
        }
    }
    v
}

/// A literal, value-by-value port of parquet-cpp's `RleEncoder` (Put / Flush), the oracle for
/// the run choices.
struct CppRle {
    w: u32,
    buffered: Vec<u64>,
    current: u64,
    repeat: usize,
    literal: usize,
    indicator: Option<usize>,
    out: Vec<u8>,
}

impl CppRle {
    fn new(w: u32) -> Self {
        CppRle {
            w,
            buffered: Vec::new(),
            current: 0,
            repeat: 0,
            literal: 0,
            indicator: None,
            out: Vec::new(),
        }
    }
    fn put(&mut self, v: u64) {
        if self.current == v {
            self.repeat += 1;
            if self.repeat > 8 {
                return;
            }
        } else {
            if self.repeat >= 8 {
                self.flush_repeated();
            }
            self.repeat = 1;
            self.current = v;
        }
        self.buffered.push(v);
        if self.buffered.len() == 8 {
            self.flush_buffered(false);
        }
    }
    fn flush_buffered(&mut self, done: bool) {
        if self.repeat >= 8 {
            self.buffered.clear();
            if self.literal != 0 {
                self.flush_literal(true);
            }
            return;
        }
        self.literal += self.buffered.len();
        let groups = self.literal.div_ceil(8);
        if groups + 1 >= 64 {
            self.flush_literal(true);
        } else {
            self.flush_literal(done);
        }
        self.repeat = 0;
    }
    fn flush_literal(&mut self, update: bool) {
        if self.indicator.is_none() {
            self.indicator = Some(self.out.len());
            self.out.push(0);
        }
        let w = self.w as usize;
        let mut bytes = vec![0u8; self.buffered.len() * w / 8];
        for (i, &v) in self.buffered.iter().enumerate() {
            for b in 0..w {
                if v >> b & 1 == 1 {
                    let bit = i * w + b;
                    bytes[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        self.out.extend(bytes);
        self.buffered.clear();
        if update {
            let i = self.indicator.take().unwrap();
            self.out[i] = (self.literal.div_ceil(8) << 1 | 1) as u8;
            self.literal = 0;
        }
    }
    fn flush_repeated(&mut self) {
        uleb((self.repeat as u64) << 1, &mut self.out);
        let bytes = self.w.div_ceil(8) as usize;
        self.out
            .extend_from_slice(&self.current.to_le_bytes()[..bytes]);
        self.buffered.clear();
        self.repeat = 0;
    }
    fn finish(mut self) -> Vec<u8> {
        if self.literal > 0 || self.repeat > 0 || !self.buffered.is_empty() {
            let all_repeat = self.literal == 0
                && (self.repeat == self.buffered.len() || self.buffered.is_empty());
            if self.repeat > 0 && all_repeat {
                self.flush_repeated();
            } else {
                if !self.buffered.is_empty() {
                    self.buffered.resize(8, 0);
                }
                self.literal += self.buffered.len();
                self.flush_literal(true);
                self.repeat = 0;
            }
        }
        self.out
    }
}

fn cpp_rle(values: &[u32], w: u32) -> Vec<u8> {
    let mut e = CppRle::new(w);
    for &v in values {
        e.put(u64::from(v));
    }
    e.finish()
}

fn bitmap_of(bits: &[bool], offset: usize) -> Vec<u8> {
    let mut b = vec![0u8; (offset + bits.len()).div_ceil(8) + 1];
    for i in 0..offset {
        b[i / 8] |= ((i * 7 % 3) as u8 & 1) << (i % 8); // junk before the range
    }
    for (i, &v) in bits.iter().enumerate() {
        let j = offset + i;
        b[j / 8] |= u8::from(v) << (j % 8);
    }
    b
}

fn enc_kind(e: &parq::Error) -> String {
    match e.kind() {
        ErrorKind::Encoding { encoding, .. } => encoding.to_string(),
        other => format!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid.

#[test]
fn rle_matches_parquet_cpp_and_round_trips_every_width() {
    let mut rng = Rng(0x1234_5678);
    for w in 0..=32u32 {
        for &n in &LENGTHS {
            for shape in 0..4 {
                let values = shaped(&mut rng, n, w, shape);
                let mut out = vec![0xEE]; // appends after what is there
                renc::encode(&values, w, &mut out).unwrap();
                assert_eq!(
                    out[1..],
                    cpp_rle(&values, w)[..],
                    "w {w} n {n} shape {shape}"
                );
                let mut back = vec![0u32; n];
                rle::decode(&out[1..], w, &mut back).unwrap();
                assert_eq!(back, values, "w {w} n {n} shape {shape}");
                // u16 levels and u8 give the same bytes.
                if w <= 16 {
                    let levels: Vec<u16> = values.iter().map(|&v| v as u16).collect();
                    let mut o16 = vec![0xEE];
                    renc::encode(&levels, w, &mut o16).unwrap();
                    assert_eq!(o16, out);
                }
                // Streaming in random batches, mixed with put_repeated, gives the same bytes.
                let mut e = RleEncoder::new(w).unwrap();
                let mut s = vec![0xEE];
                let mut i = 0;
                while i < n {
                    let k = (1 + rng.below(70) as usize).min(n - i);
                    let batch = &values[i..i + k];
                    if batch.iter().all(|&v| v == batch[0]) && rng.below(2) == 0 {
                        e.put_repeated(batch[0], k, &mut s).unwrap();
                    } else {
                        e.put(batch, &mut s).unwrap();
                    }
                    i += k;
                }
                e.flush(&mut s);
                assert_eq!(s, out, "streamed w {w} n {n} shape {shape}");
            }
        }
    }
}

#[test]
fn rle_long_runs_and_length_prefix() {
    // A run of a million values is one RLE run (header varint + value), however it is put.
    let mut e = RleEncoder::new(3).unwrap();
    let mut out = Vec::new();
    e.put_repeated(5, 3, &mut out).unwrap();
    e.put_repeated(5, 1_000_000 - 3, &mut out).unwrap();
    e.flush(&mut out);
    let mut want = Vec::new();
    uleb(1_000_000 << 1, &mut want);
    want.push(5);
    assert_eq!(out, want);
    // v1: 4-byte length prefix, then the data; the decoder's view of the prefix agrees.
    let levels: Vec<u16> = (0..100).map(|i| (i % 3 == 0) as u16).collect();
    let mut v1 = vec![9, 9];
    renc::encode_with_length_prefix(&levels, 1, &mut v1).unwrap();
    let (mut d, used) = RleDecoder::with_length_prefix(&v1[2..], 1).unwrap();
    assert_eq!(used, v1.len() - 2);
    let mut back = [0u16; 100];
    d.decode_exact(&mut back).unwrap();
    assert_eq!(back[..], levels[..]);
    // Errors: width > 32, a value too wide (nothing written), a bitmap for width != 1.
    assert!(RleEncoder::new(33).is_err());
    let mut out = vec![1, 2];
    let e = renc::encode(&[1u32, 2, 8], 3, &mut out).unwrap_err();
    assert_eq!(enc_kind(&e), "RLE");
    assert_eq!(out, [1, 2]);
    assert!(renc::encode(&[1u32], 0, &mut out).is_err());
    assert!(RleEncoder::new(4)
        .unwrap()
        .put_repeated(16, 3, &mut out)
        .is_err());
    let bm = [0xffu8];
    assert!(RleEncoder::new(2)
        .unwrap()
        .put_bitmap(Bitmap::new(&bm, 0, 8).unwrap(), &mut out)
        .is_err());
    assert!(Bitmap::new(&bm, 1, 8).is_err());
    assert!(Bitmap::new(&bm, usize::MAX, 2).is_err());
}

#[test]
fn rle_spec_example() {
    // "The numbers 1 through 7 using bit width 3" (with a leading 0, one group of 8).
    let mut out = Vec::new();
    renc::encode(&[0u8, 1, 2, 3, 4, 5, 6, 7], 3, &mut out).unwrap();
    assert_eq!(out, [0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010]);
}

#[test]
fn rle_bitmap_path_equals_level_path() {
    let mut rng = Rng(99);
    for &n in LENGTHS.iter().chain(&[2000, 4096, 10_000]) {
        for shape in 0..6u64 {
            for offset in [0usize, 1, 3, 8, 13] {
                let bits: Vec<bool> = match shape {
                    0 => (0..n).map(|_| rng.below(2) == 0).collect(),
                    1 => vec![true; n],
                    2 => vec![false; n],
                    3 => (0..n).map(|_| rng.below(100) != 0).collect(), // rare nulls
                    4 => (0..n).map(|_| rng.below(100) == 0).collect(), // rare valid
                    _ => {
                        let mut v = Vec::new();
                        while v.len() < n {
                            let (b, len) = (rng.below(2) == 0, 1 + rng.below(150) as usize);
                            v.extend(std::iter::repeat_n(b, len.min(n - v.len())));
                        }
                        v
                    }
                };
                let levels: Vec<u8> = bits.iter().map(|&b| b as u8).collect();
                let bytes = bitmap_of(&bits, offset);
                let bm = Bitmap::new(&bytes, offset, n).unwrap();
                assert_eq!(bm.count_ones(), levels.iter().filter(|&&l| l == 1).count());
                let mut want = Vec::new();
                renc::encode(&levels, 1, &mut want).unwrap();
                let mut got = Vec::new();
                renc::encode_bitmap(bm, &mut got);
                assert_eq!(got, want, "n {n} shape {shape} offset {offset}");
                // Streaming: bitmap slices mixed with level batches.
                let mut e = RleEncoder::new(1).unwrap();
                let mut s = Vec::new();
                let mut i = 0;
                while i < n {
                    let k = (1 + rng.below(300) as usize).min(n - i);
                    if rng.below(3) == 0 {
                        e.put(&levels[i..i + k], &mut s).unwrap();
                    } else {
                        let part = Bitmap::new(&bytes, offset + i, k).unwrap();
                        e.put_bitmap(part, &mut s).unwrap();
                    }
                    i += k;
                }
                e.flush(&mut s);
                assert_eq!(s, want, "streamed n {n} shape {shape} offset {offset}");
                // Decodes back to the bitmap.
                let mut back = Vec::new();
                let ones = RleDecoder::new(&got, 1)
                    .unwrap()
                    .decode_bitmap(n, &mut back, 0)
                    .unwrap();
                assert_eq!(ones, bm.count_ones());
                for (i, &b) in bits.iter().enumerate() {
                    assert_eq!(back[i / 8] >> (i % 8) & 1 == 1, b);
                }
                // v1 with prefix.
                let mut v1 = Vec::new();
                renc::encode_bitmap_with_length_prefix(bm, &mut v1).unwrap();
                assert_eq!(v1[4..], want[..]);
                assert_eq!(
                    u32::from_le_bytes(v1[..4].try_into().unwrap()) as usize,
                    want.len()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PLAIN.

#[test]
fn plain_fixed_width_round_trips_bit_exact() {
    let ints = [0i32, 1, -1, i32::MIN, i32::MAX, 42];
    let mut out = vec![0xAB];
    penc::put_fixed(&ints, &mut out);
    assert_eq!(out.len(), 1 + 24);
    let mut back: Vec<i32> = Vec::new();
    plain::decode_fixed(&out[1..], ints.len(), &mut back).unwrap();
    assert_eq!(back, ints);
    let longs = [0i64, i64::MIN, i64::MAX, -7];
    let mut out = Vec::new();
    penc::put_fixed(&longs, &mut out);
    let mut back: Vec<i64> = Vec::new();
    plain::decode_fixed(&out, 4, &mut back).unwrap();
    assert_eq!(back, longs);
    let floats = [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::from_bits(0x7fc0_1234),
        f32::INFINITY,
        1.5,
    ];
    let mut out = Vec::new();
    penc::put_fixed(&floats, &mut out);
    let mut back: Vec<f32> = Vec::new();
    plain::decode_fixed(&out, floats.len(), &mut back).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&floats));
    let doubles = [
        -0.0f64,
        f64::from_bits(0xfff8_0000_dead_beef),
        f64::MIN_POSITIVE,
    ];
    let mut out = Vec::new();
    penc::put_fixed(&doubles, &mut out);
    let mut back: Vec<f64> = Vec::new();
    plain::decode_fixed(&out, 3, &mut back).unwrap();
    assert!(back
        .iter()
        .zip(&doubles)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    let int96: Vec<Int96> = (0..5u8).map(|i| [i; 12]).collect();
    let mut out = Vec::new();
    penc::put_fixed(&int96, &mut out);
    let mut back: Vec<Int96> = Vec::new();
    plain::decode_fixed(&out, 5, &mut back).unwrap();
    assert_eq!(back, int96);
    // Empty input.
    let mut out = Vec::new();
    penc::put_fixed::<i64>(&[], &mut out);
    assert!(out.is_empty());
}

#[test]
fn plain_null_compaction() {
    let mut rng = Rng(5);
    for &n in LENGTHS.iter().chain(&[3000]) {
        for density in [0u64, 1, 50, 99, 100] {
            let valid: Vec<bool> = (0..n).map(|_| rng.below(100) < density).collect();
            let offset = (rng.below(9)) as usize;
            let bytes = bitmap_of(&valid, offset);
            let bm = Bitmap::new(&bytes, offset, n).unwrap();
            let vals: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
            let want: Vec<i64> = vals
                .iter()
                .zip(&valid)
                .filter(|(_, &v)| v)
                .map(|(&x, _)| x)
                .collect();
            let mut out = Vec::new();
            assert_eq!(
                penc::put_fixed_valid(&vals, bm, &mut out).unwrap(),
                want.len()
            );
            let mut back: Vec<i64> = Vec::new();
            plain::decode_fixed(&out, want.len(), &mut back).unwrap();
            assert_eq!(back, want);
            // FLBA of width 3.
            let flba: Vec<u8> = (0..n * 3).map(|_| rng.next() as u8).collect();
            let mut out = Vec::new();
            penc::put_fixed_len_byte_array_valid(&flba, 3, bm, &mut out).unwrap();
            let want: Vec<u8> = flba
                .chunks(3)
                .zip(&valid)
                .filter(|(_, &v)| v)
                .flat_map(|(c, _)| c.to_vec())
                .collect();
            assert_eq!(out, want);
            // Byte arrays (i32 offsets).
            let shape = rng.below(4);
            let strs = random_strings(&mut rng, n, shape);
            let (offs, data) = arrow32(&strs);
            let mut out = Vec::new();
            let written = penc::put_byte_array_valid(&offs, &data, bm, &mut out).unwrap();
            let want: Vec<Vec<u8>> = strs
                .iter()
                .zip(&valid)
                .filter(|(_, &v)| v)
                .map(|(s, _)| s.clone())
                .collect();
            assert_eq!(written, want.len());
            let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
            plain::decode_byte_array(&out, written, &mut o, &mut v).unwrap();
            assert_eq!(split(&o, &v), want);
            // Booleans.
            let bools: Vec<bool> = (0..n).map(|_| rng.below(2) == 0).collect();
            let bb = bitmap_of(&bools, 5);
            let mut e = BooleanEncoder::new();
            let mut out = vec![0x77];
            let w = e
                .put_valid(Bitmap::new(&bb, 5, n).unwrap(), bm, &mut out)
                .unwrap();
            let want: Vec<bool> = bools
                .iter()
                .zip(&valid)
                .filter(|(_, &v)| v)
                .map(|(&b, _)| b)
                .collect();
            assert_eq!(w, want.len());
            let mut back = vec![false; w];
            BooleanDecoder::new(&out[1..]).decode(&mut back).unwrap();
            assert_eq!(back, want);
            assert_eq!(out.len(), 1 + w.div_ceil(8));
        }
    }
    // A validity bitmap of the wrong length is an error.
    let b = [0xffu8; 2];
    assert!(
        penc::put_fixed_valid(&[1i32, 2], Bitmap::new(&b, 0, 3).unwrap(), &mut Vec::new()).is_err()
    );
}

fn random_strings(rng: &mut Rng, n: usize, shape: u64) -> Vec<Vec<u8>> {
    let words: Vec<Vec<u8>> = (0..20)
        .map(|i| format!("prefix/{i:03}/word").into_bytes())
        .collect();
    (0..n)
        .map(|i| match shape {
            0 => (0..rng.below(20)).map(|_| rng.next() as u8).collect(),
            1 => Vec::new(),
            2 => {
                let mut w = words[rng.below(20) as usize].clone();
                w.extend((0..rng.below(4)).map(|_| b'a' + rng.below(26) as u8));
                w
            }
            _ => match i % 7 {
                0 => vec![b'x'; 300 + rng.below(3000) as usize], // long
                1 => Vec::new(),
                _ => format!("{:08}", i / 3).into_bytes(), // shared prefixes, repeats
            },
        })
        .collect()
}

fn arrow32(values: &[Vec<u8>]) -> (Vec<i32>, Vec<u8>) {
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v);
        offsets.push(data.len() as i32);
    }
    (offsets, data)
}

fn arrow64(values: &[Vec<u8>]) -> (Vec<i64>, Vec<u8>) {
    let (o, d) = arrow32(values);
    (o.iter().map(|&x| i64::from(x)).collect(), d)
}

fn split(offsets: &[i64], data: &[u8]) -> Vec<Vec<u8>> {
    offsets
        .windows(2)
        .map(|w| data[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

#[test]
fn plain_byte_array_and_booleans() {
    let mut rng = Rng(17);
    for &n in &LENGTHS {
        for shape in 0..4 {
            let strs = random_strings(&mut rng, n, shape);
            // i64 offsets that do not start at 0 (a sliced array).
            let (mut offs, mut data) = arrow64(&strs);
            data.splice(0..0, *b"junk");
            offs.iter_mut().for_each(|o| *o += 4);
            let mut out = Vec::new();
            penc::put_byte_array(&offs, &data, &mut out).unwrap();
            assert_eq!(out.len(), 4 * n + strs.iter().map(Vec::len).sum::<usize>());
            let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
            assert_eq!(
                plain::decode_byte_array(&out, n, &mut o, &mut v).unwrap(),
                out.len()
            );
            let o: Vec<i64> = o.iter().map(|&x| i64::from(x)).collect();
            assert_eq!(split(&o, &v), strs);
            // Booleans across batches that do not end on a byte.
            let bools: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
            let bb = bitmap_of(&bools, 3);
            let mut e = BooleanEncoder::new();
            let mut out = Vec::new();
            let mut i = 0;
            while i < n {
                let k = (1 + rng.below(20) as usize).min(n - i);
                e.put(Bitmap::new(&bb, 3 + i, k).unwrap(), &mut out);
                i += k;
            }
            assert_eq!(e.len(), n);
            assert_eq!(out.len(), n.div_ceil(8));
            let mut back = vec![false; n];
            BooleanDecoder::new(&out).decode(&mut back).unwrap();
            assert_eq!(back, bools);
        }
    }
    // Errors: no offsets, offsets past the data, decreasing offsets (nothing written).
    let mut out = vec![1];
    assert!(penc::put_byte_array::<i32>(&[], b"", &mut out).is_err());
    assert!(penc::put_byte_array(&[0i32, 5], b"abc", &mut out).is_err());
    assert!(penc::put_byte_array(&[0i32, 3, 1, 3], b"abc", &mut out).is_err());
    assert!(penc::put_byte_array(&[0i64, -1, 3], b"abc", &mut out).is_err());
    assert_eq!(out, [1]);
    assert!(penc::put_fixed_len_byte_array(b"abcd", 3, &mut out).is_err());
    assert!(penc::put_fixed_len_byte_array(b"abcd", 0, &mut out).is_err());
    penc::put_fixed_len_byte_array(b"abcdef", 3, &mut out).unwrap();
    assert_eq!(out, b"\x01abcdef");
}

// ---------------------------------------------------------------------------------------------
// Dictionary.

#[test]
fn dictionary_fixed_width_round_trips() {
    let mut rng = Rng(23);
    for &n in LENGTHS.iter().chain(&[5000]) {
        for card in [1u64, 2, 100, 3000, u64::MAX] {
            let vals: Vec<i64> = (0..n)
                .map(|_| match rng.below(5) {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    _ => rng.below(card) as i64,
                })
                .collect();
            let mut d = DictEncoder::<i64>::new();
            let mut idx = Vec::new();
            d.put(&vals[..n / 2], &mut idx).unwrap();
            d.put(&vals[n / 2..], &mut idx).unwrap();
            assert_eq!(idx.len(), n);
            // First-occurrence order.
            let mut seen = Vec::new();
            for &v in &vals {
                if !seen.contains(&v) && seen.len() < 10 {
                    seen.push(v);
                }
            }
            assert_eq!(d.entries()[..seen.len()], seen[..]);
            let mut page = Vec::new();
            d.write_dictionary_page(&mut page);
            assert_eq!(page.len(), d.dict_size_bytes());
            let mut dict: Vec<i64> = Vec::new();
            plain::decode_fixed(&page, d.len(), &mut dict).unwrap();
            let mut data = Vec::new();
            d.write_indices(&idx, &mut data).unwrap();
            let mut back = Vec::new();
            DictionaryDecoder::new(&data)
                .unwrap()
                .gather(n, &dict, &mut back)
                .unwrap();
            assert_eq!(back, vals);
        }
    }
    // Floats are bit-exact: NaN payloads and -0.0 are their own entries.
    let fl = [
        0.0f64,
        -0.0,
        f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0001),
        0.0,
        f64::NAN,
    ];
    let mut d = DictEncoder::<f64>::new();
    let mut idx = Vec::new();
    d.put(&fl, &mut idx).unwrap();
    assert_eq!(idx, [0, 1, 2, 3, 0, 2]);
    // Int96 and null compaction.
    let v: Vec<Int96> = (0..50u8).map(|i| [i % 7; 12]).collect();
    let valid: Vec<bool> = (0..50).map(|i| i % 3 != 0).collect();
    let bytes = bitmap_of(&valid, 2);
    let mut d = DictEncoder::<Int96>::new();
    let mut idx = Vec::new();
    let k = d
        .put_valid(&v, Bitmap::new(&bytes, 2, 50).unwrap(), &mut idx)
        .unwrap();
    assert_eq!(k, valid.iter().filter(|&&b| b).count());
    let want: Vec<Int96> = v
        .iter()
        .zip(&valid)
        .filter(|(_, &b)| b)
        .map(|(x, _)| *x)
        .collect();
    let got: Vec<Int96> = idx.iter().map(|&i| d.entries()[i as usize]).collect();
    assert_eq!(got, want);
    // An index out of the dictionary is an error.
    assert!(d.write_indices(&[7], &mut Vec::new()).is_err());
    // One entry: bit width 0.
    let mut d = DictEncoder::<i32>::new();
    let mut idx = Vec::new();
    d.put(&[9; 10], &mut idx).unwrap();
    let mut data = Vec::new();
    d.write_indices(&idx, &mut data).unwrap();
    assert_eq!(data, [0, 20]); // width 0, RLE run of 10 (value of 0 bytes)
    d.clear();
    assert!(d.is_empty());
}

#[test]
fn dictionary_byte_arrays_round_trip() {
    let mut rng = Rng(29);
    for &n in LENGTHS.iter().chain(&[5000]) {
        for shape in 0..4 {
            let strs = random_strings(&mut rng, n, shape);
            let (offs, data) = arrow32(&strs);
            let mut d = ByteArrayDictEncoder::new();
            let mut idx = Vec::new();
            let half = n / 2;
            d.put(&offs[..=half], &data, &mut idx).unwrap();
            d.put(&offs[half..], &data, &mut idx).unwrap();
            let mut page = Vec::new();
            d.write_dictionary_page(&mut page).unwrap();
            assert_eq!(page.len(), d.dict_size_bytes());
            let (mut dof, mut dv) = (Vec::<i32>::new(), Vec::new());
            plain::decode_byte_array(&page, d.len(), &mut dof, &mut dv).unwrap();
            let mut pd = Vec::new();
            d.write_indices(&idx, &mut pd).unwrap();
            let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
            DictionaryDecoder::new(&pd)
                .unwrap()
                .gather_byte_array(n, &dof, &dv, &mut o, &mut v)
                .unwrap();
            let o: Vec<i64> = o.iter().map(|&x| i64::from(x)).collect();
            assert_eq!(split(&o, &v), strs);
            let mut distinct = strs.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(d.len(), distinct.len());
        }
    }
    // FIXED_LEN_BYTE_ARRAY: the dictionary page has no lengths.
    let mut d = ByteArrayDictEncoder::new_fixed(2);
    let mut idx = Vec::new();
    d.put_fixed(b"abcdabef", &mut idx).unwrap();
    assert_eq!(idx, [0, 1, 0, 2]);
    let mut page = Vec::new();
    d.write_dictionary_page(&mut page).unwrap();
    assert_eq!(page, b"abcdef");
    assert_eq!(d.dict_size_bytes(), 6);
    assert!(d.put_fixed(b"abc", &mut idx).is_err());
    assert!(d.put(&[0i32, 3], b"abc", &mut idx).is_err());
    // Validity.
    let strs: Vec<Vec<u8>> = (0..40).map(|i| format!("{}", i % 6).into_bytes()).collect();
    let (offs, data) = arrow64(&strs);
    let valid: Vec<bool> = (0..40).map(|i| i % 4 != 1).collect();
    let bytes = bitmap_of(&valid, 0);
    let mut d = ByteArrayDictEncoder::new();
    let mut idx = Vec::new();
    d.put_valid(&offs, &data, Bitmap::new(&bytes, 0, 40).unwrap(), &mut idx)
        .unwrap();
    let got: Vec<Vec<u8>> = idx.iter().map(|&i| d.entry(i as usize).to_vec()).collect();
    let want: Vec<Vec<u8>> = strs
        .iter()
        .zip(&valid)
        .filter(|(_, &b)| b)
        .map(|(s, _)| s.clone())
        .collect();
    assert_eq!(got, want);
}

// ---------------------------------------------------------------------------------------------
// Delta encodings.

/// Calls `put` with the offsets ranges (`i..=i + k`) of `n` values in random batches of 1 to
/// 100.
fn in_batches(rng: &mut Rng, n: usize, mut put: impl FnMut(std::ops::RangeInclusive<usize>)) {
    let mut i = 0;
    while i < n {
        let k = (1 + rng.below(100) as usize).min(n - i);
        put(i..=i + k);
        i += k;
    }
}

/// The values of `n` DELTA_BYTE_ARRAY values.
fn dba_values(s: &[u8], n: usize) -> Vec<Vec<u8>> {
    let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
    DeltaByteArrayDecoder::new(s)
        .unwrap()
        .decode(n, &mut o, &mut v)
        .unwrap();
    split(&o, &v)
}

/// The values of `n` DELTA_LENGTH_BYTE_ARRAY values.
fn dlba_values(s: &[u8], n: usize) -> Vec<Vec<u8>> {
    let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
    DeltaLengthByteArrayDecoder::new(s)
        .unwrap()
        .decode(n, &mut o, &mut v)
        .unwrap();
    split(&o, &v)
}

fn delta_values_i64(rng: &mut Rng, n: usize, shape: u64) -> Vec<i64> {
    let mut x = rng.next() as i64;
    (0..n)
        .map(|i| match shape {
            0 => rng.next() as i64,
            1 => {
                x = x.wrapping_add(rng.below(1000) as i64 - 300);
                x
            }
            2 => 77,
            3 => [i64::MIN, i64::MAX, 0, -1][i % 4],
            _ => {
                let w = rng.below(64) as u32;
                x = x.wrapping_add(rng.bits(w) as i64);
                x
            }
        })
        .collect()
}

#[test]
fn delta_binary_packed_round_trips() {
    let mut rng = Rng(31);
    for &n in LENGTHS.iter().chain(&[2000, 4097]) {
        for shape in 0..5 {
            let v64 = delta_values_i64(&mut rng, n, shape);
            let mut out = vec![0xCC];
            encode_binary_packed(&v64, &mut out);
            let mut back: Vec<i64> = Vec::new();
            let used = DeltaBinaryPackedDecoder::new(&out[1..])
                .unwrap()
                .decode_all(&mut back)
                .unwrap();
            assert_eq!(used, out.len() - 1, "n {n} shape {shape}");
            assert_eq!(back, v64);
            let mut e = DeltaBinaryPackedEncoder::<i64>::new();
            let mut i = 0;
            while i < n {
                let k = (1 + rng.below(200) as usize).min(n - i);
                e.put(&v64[i..i + k]);
                i += k;
            }
            let mut s = vec![0xCC];
            e.flush(&mut s);
            assert_eq!(s, out, "streamed n {n} shape {shape}");
            assert!(e.is_empty());

            let v32: Vec<i32> = v64
                .iter()
                .map(|&x| (x >> (shape % 2 * 32)) as i32)
                .collect();
            let mut out = Vec::new();
            encode_binary_packed(&v32, &mut out);
            let mut back: Vec<i32> = Vec::new();
            let used = DeltaBinaryPackedDecoder::new(&out)
                .unwrap()
                .decode_all(&mut back)
                .unwrap();
            assert_eq!((used, &back), (out.len(), &v32));
            // INT32 miniblocks are at most 32 bits wide.
            let mut e = DeltaBinaryPackedEncoder::<i32>::new();
            e.put(&v32);
            let mut s = Vec::new();
            e.flush(&mut s);
            assert_eq!(s, out);
        }
    }
    let mut out = Vec::new();
    encode_binary_packed(&[i32::MIN, i32::MAX, i32::MIN], &mut out);
    // Deltas -1 and 1 in 32-bit wrapping arithmetic: min -1, widths 2 (0 and 2).
    assert_eq!(out[..8], [0x80, 0x01, 4, 3, 0xff, 0xff, 0xff, 0xff]);
}

#[test]
fn delta_spec_examples() {
    // Example 1: 1..=5 (block 128, 4 miniblocks): min delta 1, every width 0, no data.
    let mut out = Vec::new();
    encode_binary_packed(&[1i32, 2, 3, 4, 5], &mut out);
    assert_eq!(out, [0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0]);
    // Example 2: 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, relative 0 0 0 3 3 3 3 at width 2,
    // the miniblock padded to 32 values.
    let mut out = Vec::new();
    encode_binary_packed(&[7i64, 5, 3, 1, 2, 3, 4, 5], &mut out);
    let mut want = vec![
        0x80,
        0x01,
        4,
        8,
        14,
        3,
        2,
        0,
        0,
        0,
        0b1100_0000,
        0b0011_1111,
    ];
    want.resize(want.len() + 6, 0);
    assert_eq!(out, want);
    // DELTA_LENGTH_BYTE_ARRAY "Hello", "World", "Foobar", "ABCDEF".
    let strs: Vec<Vec<u8>> = ["Hello", "World", "Foobar", "ABCDEF"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let (offs, data) = arrow32(&strs);
    let mut out = Vec::new();
    encode_length_byte_array(&offs, &data, &mut Vec::new(), &mut out).unwrap();
    assert_eq!(out, common::spec_delta_length_byte_array());
    // DELTA_BYTE_ARRAY "axis", "axle", "babble", "babyhood" (the bytes of
    // tests/encoding.rs's decoder example).
    let strs: Vec<Vec<u8>> = ["axis", "axle", "babble", "babyhood"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let (offs, data) = arrow32(&strs);
    let mut e = DeltaByteArrayEncoder::new();
    e.put(&offs, &data).unwrap();
    let mut out = Vec::new();
    e.flush(&mut out);
    assert_eq!(out, common::spec_delta_byte_array());
    // BYTE_STREAM_SPLIT example.
    let mut out = Vec::new();
    bss::encode(&[0xDDCCBBAAu32, 0x33221100, 0xD6C5B4A3], &mut out);
    assert_eq!(out, common::SPEC_BYTE_STREAM_SPLIT);
}

#[test]
fn delta_byte_arrays_round_trip() {
    let mut rng = Rng(37);
    for &n in LENGTHS.iter().chain(&[3000]) {
        for shape in 0..4 {
            let strs = random_strings(&mut rng, n, shape);
            let (offs, data) = arrow64(&strs);
            // DELTA_LENGTH_BYTE_ARRAY: one-shot and streamed agree and decode back.
            let mut one = Vec::new();
            encode_length_byte_array(&offs, &data, &mut Vec::new(), &mut one).unwrap();
            let mut e = DeltaLengthByteArrayEncoder::new();
            in_batches(&mut rng, n, |b| e.put(&offs[b], &data).unwrap());
            let mut s = Vec::new();
            e.flush(&mut s);
            assert_eq!(s, one);
            let mut d = DeltaLengthByteArrayDecoder::new(&one).unwrap();
            assert_eq!(d.encoded_len(), one.len());
            let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
            d.decode(n, &mut o, &mut v).unwrap();
            assert_eq!(split(&o, &v), strs);
            // DELTA_BYTE_ARRAY, streamed in batches (the previous value carries over).
            let mut e = DeltaByteArrayEncoder::new();
            in_batches(&mut rng, n, |b| e.put(&offs[b], &data).unwrap());
            let mut s = Vec::new();
            e.flush(&mut s);
            let mut d = DeltaByteArrayDecoder::new(&s).unwrap();
            let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
            d.decode(n, &mut o, &mut v).unwrap();
            assert_eq!(split(&o, &v), strs, "n {n} shape {shape}");
            // The encoder starts over after a flush.
            let mut e2 = DeltaByteArrayEncoder::new();
            e2.put(&offs, &data).unwrap();
            let mut s2 = Vec::new();
            e2.flush(&mut s2);
            assert_eq!(s2, s);
            e.put(&offs, &data).unwrap();
            let mut s3 = Vec::new();
            e.flush(&mut s3);
            assert_eq!(s3, s);
        }
    }
    // Null compaction and FLBA.
    let strs: Vec<Vec<u8>> = (0..30)
        .map(|i| format!("key-{:03}", i * 7).into_bytes())
        .collect();
    let (offs, data) = arrow32(&strs);
    let valid: Vec<bool> = (0..30).map(|i| i % 5 != 2).collect();
    let bytes = bitmap_of(&valid, 1);
    let want: Vec<Vec<u8>> = strs
        .iter()
        .zip(&valid)
        .filter(|(_, &b)| b)
        .map(|(s, _)| s.clone())
        .collect();
    let mut e = DeltaByteArrayEncoder::new();
    let k = e
        .put_valid(&offs, &data, Bitmap::new(&bytes, 1, 30).unwrap())
        .unwrap();
    assert_eq!(k, want.len());
    let mut s = Vec::new();
    e.flush(&mut s);
    assert_eq!(dba_values(&s, k), want);
    let mut e = DeltaLengthByteArrayEncoder::new();
    e.put_valid(&offs, &data, Bitmap::new(&bytes, 1, 30).unwrap())
        .unwrap();
    let mut s = Vec::new();
    e.flush(&mut s);
    assert_eq!(dlba_values(&s, k), want);
    let mut e = DeltaByteArrayEncoder::new();
    e.put_fixed(b"abcdabceabzz", 4).unwrap();
    let mut s = Vec::new();
    e.flush(&mut s);
    let mut out = Vec::new();
    DeltaByteArrayDecoder::new(&s)
        .unwrap()
        .decode_fixed(3, 4, &mut out)
        .unwrap();
    assert_eq!(out, b"abcdabceabzz");
    assert!(e.put_fixed(b"abc", 2).is_err());
    assert!(e.put(&[0i32, 2, 1], b"ab").is_err());
}

// ---------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT.

#[test]
fn byte_stream_split_round_trips_every_width() {
    let mut rng = Rng(41);
    for width in [1usize, 2, 3, 4, 5, 7, 8, 12, 16, 17, 33] {
        for &n in LENGTHS.iter().chain(&[1000, 4099]) {
            let src: Vec<u8> = (0..n * width).map(|_| rng.next() as u8).collect();
            let mut out = vec![9];
            bss::encode_bytes(&src, width, &mut out).unwrap();
            for k in 0..width {
                for i in 0..n {
                    assert_eq!(out[1 + k * n + i], src[i * width + k]);
                }
            }
            let mut back = Vec::new();
            bss_dec::decode_bytes(&out[1..], width, &mut back).unwrap();
            assert_eq!(back, src, "width {width} n {n}");
            let mut e = ByteStreamSplitEncoder::new(width).unwrap();
            e.put_bytes(&src[..n / 2 * width]).unwrap();
            e.put_bytes(&src[n / 2 * width..]).unwrap();
            let mut s = vec![9];
            e.flush(&mut s);
            assert_eq!(s, out);
        }
    }
    let f: Vec<f64> = vec![-0.0, f64::NAN, 1.0, f64::MIN];
    let mut out = Vec::new();
    bss::encode(&f, &mut out);
    let mut back: Vec<f64> = Vec::new();
    bss_dec::decode(&out, &mut back).unwrap();
    assert!(back.iter().zip(&f).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(bss::encode_bytes(b"abc", 2, &mut out).is_err());
    assert!(bss::encode_bytes(b"", 0, &mut out).is_err());
    assert!(ByteStreamSplitEncoder::new(4)
        .unwrap()
        .put(&[1i64])
        .is_err());
}

// ---------------------------------------------------------------------------------------------
// Compression.

fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let x = rng.next();
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

const WRITTEN: [Compression; 6] = [
    Compression::Uncompressed,
    Compression::Snappy,
    Compression::Gzip,
    Compression::Lz4Raw,
    Compression::Zstd,
    Compression::Brotli,
];

#[test]
fn compressors_round_trip_through_parq() {
    let mut d = Decompressor::default();
    for codec in WRITTEN {
        let levels: Vec<Option<i32>> = match level_range(codec) {
            Some(r) => vec![None, Some(*r.start().max(&-5)), Some(*r.end())],
            None => vec![None],
        };
        for level in levels {
            let mut c = Compressor::new(codec, level).unwrap();
            assert_eq!(c.level(), level.or(default_level(codec)));
            let mut out = Vec::new();
            for len in [0usize, 1, 100, 65_535, 65_536, 300_000] {
                let input = sample(len, len as u64 + 3);
                out.clear();
                out.extend_from_slice(b"hdr");
                let n = c.compress(&input, &mut out).unwrap();
                assert_eq!(out.len(), 3 + n);
                assert!(n <= c.max_compressed_len(len), "{codec} {len}");
                let mut back = Vec::new();
                d.decompress(codec, &out[3..], len, &mut back).unwrap();
                assert_eq!(back, input, "{codec} {level:?} {len}");
            }
        }
    }
    // Not written: LZ4 (Hadoop), LZO, unknown; bad levels.
    for codec in [Compression::Lz4, Compression::Lzo, Compression::Unknown(42)] {
        let e = Compressor::new(codec, None).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::UnsupportedCodec(_)), "{e:?}");
    }
    for (codec, level) in [
        (Compression::Gzip, 10),
        (Compression::Gzip, -1),
        (Compression::Zstd, 23),
        (Compression::Brotli, 12),
        (Compression::Snappy, 1),
        (Compression::Uncompressed, 0),
    ] {
        let e = Compressor::new(codec, Some(level)).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::InvalidValue { .. }), "{e:?}");
    }
    let mut out = Vec::new();
    compress(Compression::Zstd, Some(3), b"abcabcabc", &mut out).unwrap();
    assert!(!out.is_empty());
}

#[test]
fn compressors_match_pyarrow() {
    let Some(py) = python_if_present() else {
        return;
    };
    let dir = tmp_dir("codec");
    let input = sample(200_000, 77);
    let mut args = Vec::new();
    for codec in &WRITTEN[1..] {
        let levels: Vec<Option<i32>> = match level_range(*codec) {
            Some(_) => vec![None, Some(1), Some(9)],
            None => vec![None],
        };
        for level in levels {
            let mut out = Vec::new();
            compress(*codec, level, &input, &mut out).unwrap();
            let f = dir.join(format!("{}-{level:?}.bin", codec.spec_name()));
            std::fs::write(&f, &out).unwrap();
            args.push(format!(
                "{}={}",
                codec.spec_name().to_lowercase(),
                f.display()
            ));
        }
    }
    let script = "import sys, pyarrow as pa\n\
        n = int(sys.argv[1])\n\
        for a in sys.argv[2:]:\n\
        \x20   codec, path = a.split('=', 1)\n\
        \x20   d = open(path, 'rb').read()\n\
        \x20   o = pa.decompress(d, decompressed_size=n, codec=codec).to_pybytes()\n\
        \x20   open(path + '.out', 'wb').write(o)\n\
        \x20   c = pa.compress(o, codec=codec, asbytes=True)\n\
        \x20   print(codec, len(d), len(c))\n";
    let mut all = vec![input.len().to_string()];
    all.extend(args.iter().cloned());
    let argv: Vec<&str> = all.iter().map(String::as_str).collect();
    let report = run_python_at(&py, script, &argv);
    for a in &args {
        let path = a.split_once('=').unwrap().1;
        assert_eq!(std::fs::read(format!("{path}.out")).unwrap(), input, "{a}");
    }
    eprintln!("codec, parq bytes, pyarrow bytes (default level):\n{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Page bodies written by pyarrow, compared byte for byte.

/// The (uncompressed) pages of column 0 of a file: (page type, levels bytes of v2 pages,
/// body).
fn pages(file: &[u8]) -> Vec<(String, usize, Vec<u8>)> {
    let meta = decode_file_metadata(file, &DecodeOptions::default()).unwrap();
    let mut out = Vec::new();
    for rg in &meta.row_groups {
        let cc = &rg.columns()[0];
        assert_eq!(cc.codec(), Compression::Uncompressed);
        let mut pos = cc.dictionary_page_offset().unwrap_or(cc.data_page_offset()) as usize;
        let end = pos + cc.total_compressed_size() as usize;
        while pos < end {
            let (h, hlen) = PageHeader::decode_prefix(&file[pos..]).unwrap();
            let body = file[pos + hlen..pos + hlen + h.compressed_page_size as usize].to_vec();
            pos += hlen + h.compressed_page_size as usize;
            let lv = h.data_page_header_v2.as_ref().map_or(0, |v2| {
                (v2.definition_levels_byte_length + v2.repetition_levels_byte_length) as usize
            });
            out.push((h.page_type.spec_name().to_string(), lv, body));
        }
    }
    out
}

const WRITE_PY: &str = r#"
import sys, struct, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
def read(name): return open(f"{d}/{name}", "rb").read()
n = int(sys.argv[2])
i64 = pa.array(memoryview(read("i64.bin")).cast("q").tolist(), pa.int64())
i32 = pa.array(memoryview(read("i32.bin")).cast("i").tolist(), pa.int32())
f64 = pa.array(memoryview(read("f64.bin")).cast("d").tolist(), pa.float64())
raw = read("str.bin"); strs = []; p = 0
while p < len(raw):
    (l,) = struct.unpack_from("<i", raw, p); strs.append(raw[p + 4:p + 4 + l]); p += 4 + l
s = pa.array(strs, pa.binary())
valid = [b == 1 for b in read("valid.bin")]
bools = pa.array([b == 1 for b in read("bool.bin")], pa.bool_())
def w(name, arr, nullable=False, version="1.0", **kw):
    t = pa.table([arr], schema=pa.schema([pa.field("x", arr.type, nullable=nullable)]))
    pq.write_table(t, f"{d}/{name}.parquet", compression="none", data_page_version=version,
                   write_statistics=False, **kw)
plain = dict(use_dictionary=False)
w("dbp64", i64, column_encoding={"x": "DELTA_BINARY_PACKED"}, **plain)
w("dbp32", i32, column_encoding={"x": "DELTA_BINARY_PACKED"}, **plain)
w("dlba", s, column_encoding={"x": "DELTA_LENGTH_BYTE_ARRAY"}, **plain)
w("dba", s, column_encoding={"x": "DELTA_BYTE_ARRAY"}, **plain)
w("bss", f64, column_encoding={"x": "BYTE_STREAM_SPLIT"}, **plain)
w("plain_str", s, **plain)
w("plain_bool", bools, **plain)
w("rle_bool", bools, version="2.0", column_encoding={"x": "RLE"}, **plain)
w("dict_str", s, use_dictionary=True)
w("dict_i64", pa.array([v % 1000 for v in i64.to_pylist()], pa.int64()), use_dictionary=True)
masked = pa.array([v if ok else None for v, ok in zip(i64.to_pylist(), valid)], pa.int64())
w("nulls_v1", masked, nullable=True, **plain)
w("nulls_v2", masked, nullable=True, version="2.0", **plain)
"#;

#[test]
fn pages_match_pyarrow_byte_for_byte() {
    let Some(py) = python_if_present() else {
        return;
    };
    let dir = tmp_dir("pages");
    let mut rng = Rng(2024);
    let n = 5000usize;
    // Ints: runs of small deltas, jumps, and the extremes.
    let i64s: Vec<i64> = {
        let mut x = 0i64;
        (0..n)
            .map(|i| {
                x = match i % 997 {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    _ if rng.below(50) == 0 => rng.next() as i64,
                    _ => x.wrapping_add(rng.below(200) as i64 - 50),
                };
                x
            })
            .collect()
    };
    let i32s: Vec<i32> = i64s.iter().map(|&x| (x >> 20) as i32).collect();
    let f64s: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
    let strs = {
        let mut v = random_strings(&mut rng, n, 2);
        v[10] = Vec::new();
        v[11] = vec![b'z'; 5000];
        v
    };
    let valid: Vec<u8> = (0..n)
        .map(|i| {
            u8::from(if i % 1000 < 300 {
                true
            } else {
                rng.below(3) != 0
            })
        })
        .collect();
    let bools: Vec<u8> = (0..n)
        .map(|i| {
            u8::from(if i % 700 < 200 {
                i % 2 == 0
            } else {
                rng.below(4) == 0
            })
        })
        .collect();
    let raw = |v: Vec<u8>, name: &str| std::fs::write(dir.join(name), v).unwrap();
    raw(
        i64s.iter().flat_map(|x| x.to_le_bytes()).collect(),
        "i64.bin",
    );
    raw(
        i32s.iter().flat_map(|x| x.to_le_bytes()).collect(),
        "i32.bin",
    );
    raw(
        f64s.iter().flat_map(|x| x.to_le_bytes()).collect(),
        "f64.bin",
    );
    let (offs, data) = arrow32(&strs);
    let mut plain_strs = Vec::new();
    penc::put_byte_array(&offs, &data, &mut plain_strs).unwrap();
    raw(plain_strs.clone(), "str.bin");
    raw(valid.clone(), "valid.bin");
    raw(bools.clone(), "bool.bin");
    run_python_at(&py, WRITE_PY, &[dir.to_str().unwrap(), &n.to_string()]);
    let file = |name: &str| std::fs::read(dir.join(format!("{name}.parquet"))).unwrap();
    let single = |name: &str| {
        let p = pages(&file(name));
        assert_eq!(p.len(), 1, "{name}: one data page expected");
        p.into_iter().next().unwrap()
    };
    let mut report = Vec::new();
    let mut check = |name: &str, ours: &[u8], theirs: &[u8]| {
        report.push(format!(
            "{name:12} parq {:7} bytes, pyarrow {:7}",
            ours.len(),
            theirs.len()
        ));
        assert!(
            ours == theirs,
            "{name}: parq's {} bytes differ from pyarrow's {}",
            ours.len(),
            theirs.len()
        );
    };

    let mut out = Vec::new();
    encode_binary_packed_with_block_size(&i64s, PYARROW_INT64_BLOCK_SIZE, &mut out).unwrap();
    check("dbp64", &out, &single("dbp64").2);
    let mut e = DeltaBinaryPackedEncoder::<i64>::with_block_size(256).unwrap();
    e.put(&i64s[..1000]);
    e.put(&i64s[1000..]);
    let mut s = Vec::new();
    e.flush(&mut s);
    assert_eq!(s, out);
    // The default blocks of 128 for the same values, and for smooth values.
    let mut b128 = Vec::new();
    encode_binary_packed(&i64s, &mut b128);
    let smooth: Vec<i64> = (0..n as i64).map(|i| i * 1000 + (i * 7919) % 613).collect();
    let (mut s128, mut s256) = (Vec::new(), Vec::new());
    encode_binary_packed(&smooth, &mut s128);
    encode_binary_packed_with_block_size(&smooth, 256, &mut s256).unwrap();
    let sizes = (format!(
        "dbp64 blocks of 128: {} bytes (pyarrow's 256: {}); smooth ints: 128 -> {}, 256 -> {}",
        b128.len(),
        out.len(),
        s128.len(),
        s256.len()
    ),);
    out.clear();
    encode_binary_packed(&i32s, &mut out);
    check("dbp32", &out, &single("dbp32").2);
    out.clear();
    encode_length_byte_array(&offs, &data, &mut Vec::new(), &mut out).unwrap();
    check("dlba", &out, &single("dlba").2);
    out.clear();
    let mut e = DeltaByteArrayEncoder::new();
    e.put(&offs, &data).unwrap();
    e.flush(&mut out);
    check("dba", &out, &single("dba").2);
    out.clear();
    bss::encode(&f64s, &mut out);
    check("bss", &out, &single("bss").2);
    check("plain_str", &plain_strs, &single("plain_str").2);
    let bool_bits: Vec<bool> = bools.iter().map(|&b| b == 1).collect();
    let bb = bitmap_of(&bool_bits, 0);
    out.clear();
    BooleanEncoder::new().put(Bitmap::new(&bb, 0, n).unwrap(), &mut out);
    check("plain_bool", &out, &single("plain_bool").2);
    out.clear();
    renc::encode_bitmap_with_length_prefix(Bitmap::new(&bb, 0, n).unwrap(), &mut out).unwrap();
    check("rle_bool", &out, &single("rle_bool").2);

    // Dictionary: the dictionary page and the indices.
    let p = pages(&file("dict_str"));
    assert_eq!(p.len(), 2);
    let mut d = ByteArrayDictEncoder::new();
    let mut idx = Vec::new();
    d.put(&offs, &data, &mut idx).unwrap();
    out.clear();
    d.write_dictionary_page(&mut out).unwrap();
    check("dict_str/dict", &out, &p[0].2);
    out.clear();
    d.write_indices(&idx, &mut out).unwrap();
    check("dict_str/idx", &out, &p[1].2);
    let p = pages(&file("dict_i64"));
    let small: Vec<i64> = i64s
        .iter()
        .map(|&v| {
            // Python's % is floored.
            v.rem_euclid(1000)
        })
        .collect();
    let mut d = DictEncoder::<i64>::new();
    let mut idx = Vec::new();
    d.put(&small, &mut idx).unwrap();
    out.clear();
    d.write_dictionary_page(&mut out);
    check("dict_i64/dict", &out, &p[0].2);
    out.clear();
    d.write_indices(&idx, &mut out).unwrap();
    check("dict_i64/idx", &out, &p[1].2);

    // Nullable: definition levels from the validity bitmap, then the compacted values.
    let vbits: Vec<bool> = valid.iter().map(|&b| b == 1).collect();
    let vb = bitmap_of(&vbits, 0);
    let bm = Bitmap::new(&vb, 0, n).unwrap();
    out.clear();
    renc::encode_bitmap_with_length_prefix(bm, &mut out).unwrap();
    penc::put_fixed_valid(&i64s, bm, &mut out).unwrap();
    check("nulls_v1", &out, &single("nulls_v1").2);
    out.clear();
    renc::encode_bitmap(bm, &mut out);
    let (_, lv, body) = single("nulls_v2");
    assert_eq!(lv, out.len());
    penc::put_fixed_valid(&i64s, bm, &mut out).unwrap();
    check("nulls_v2", &out, &body);
    eprintln!("{}\n{}", report.join("\n"), sizes.0);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Throughput.

/// `cargo test --release -p parq --test encode -- --ignored --nocapture bench`
#[test]
#[ignore]
fn bench_encoders() {
    use std::time::Instant;
    let mut rng = Rng(11);
    let n = 1 << 20;
    let time = |name: &str, bytes: usize, f: &mut dyn FnMut()| {
        f();
        let t = Instant::now();
        let iters = 20;
        for _ in 0..iters {
            f();
        }
        let s = t.elapsed().as_secs_f64() / iters as f64;
        println!(
            "{name:44} {:7.2} ns/value {:8.0} MB/s (input)",
            s * 1e9 / n as f64,
            bytes as f64 / s / 1e6
        );
    };
    let mut out: Vec<u8> = Vec::with_capacity(n * 16);
    for w in [1u32, 3, 8, 17] {
        let vals: Vec<u32> = (0..n).map(|_| rng.bits(w) as u32).collect();
        time(
            &format!("rle bit-packed u32 w={w} (random)"),
            n * 4,
            &mut || {
                out.clear();
                renc::encode(&vals, w, &mut out).unwrap();
            },
        );
    }
    let levels: Vec<u16> = shaped(&mut rng, n, 1, 1)
        .iter()
        .map(|&v| v as u16)
        .collect();
    time("rle u16 levels w=1 (runs 1..40)", n * 2, &mut || {
        out.clear();
        renc::encode(&levels, 1, &mut out).unwrap();
    });
    let bits: Vec<bool> = (0..n).map(|_| rng.below(2) == 0).collect();
    let bm = bitmap_of(&bits, 0);
    time("rle bitmap -> levels (random 50%)", n / 8, &mut || {
        out.clear();
        renc::encode_bitmap(Bitmap::new(&bm, 0, n).unwrap(), &mut out);
    });
    let bits: Vec<bool> = (0..n).map(|_| rng.below(1000) != 0).collect();
    let bm_rare = bitmap_of(&bits, 3);
    time("rle bitmap -> levels (0.1% nulls)", n / 8, &mut || {
        out.clear();
        renc::encode_bitmap(Bitmap::new(&bm_rare, 3, n).unwrap(), &mut out);
    });
    let ints: Vec<i64> = (0..n as i64).map(|i| i * 3 + rng.bits(10) as i64).collect();
    time("plain i64", n * 8, &mut || {
        out.clear();
        penc::put_fixed(&ints, &mut out);
    });
    let bits: Vec<bool> = (0..n).map(|_| rng.below(10) != 0).collect();
    let vb = bitmap_of(&bits, 0);
    time("plain i64 null-compacted (10% nulls)", n * 8, &mut || {
        out.clear();
        penc::put_fixed_valid(&ints, Bitmap::new(&vb, 0, n).unwrap(), &mut out).unwrap();
    });
    let strs: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("value-{}", i % 50_000).into_bytes())
        .collect();
    let (offs, data) = arrow32(&strs);
    time("plain byte_array (~10 B)", data.len(), &mut || {
        out.clear();
        penc::put_byte_array(&offs, &data, &mut out).unwrap();
    });
    time("delta_binary_packed i64 (~11 bits)", n * 8, &mut || {
        out.clear();
        encode_binary_packed(&ints, &mut out);
    });
    let i32s: Vec<i32> = ints.iter().map(|&x| x as i32).collect();
    time("delta_binary_packed i32 (~11 bits)", n * 4, &mut || {
        out.clear();
        encode_binary_packed(&i32s, &mut out);
    });
    let mut scratch = Vec::new();
    time("delta_length_byte_array (~10 B)", data.len(), &mut || {
        out.clear();
        encode_length_byte_array(&offs, &data, &mut scratch, &mut out).unwrap();
    });
    let mut dba = DeltaByteArrayEncoder::new();
    time("delta_byte_array (~10 B)", data.len(), &mut || {
        out.clear();
        dba.put(&offs, &data).unwrap();
        dba.flush(&mut out);
    });
    let f64s: Vec<f64> = (0..n).map(|i| i as f64 * 0.1).collect();
    time("byte_stream_split f64", n * 8, &mut || {
        out.clear();
        bss::encode(&f64s, &mut out);
    });
    let f32s: Vec<f32> = (0..n).map(|i| i as f32 * 0.1).collect();
    time("byte_stream_split f32", n * 4, &mut || {
        out.clear();
        bss::encode(&f32s, &mut out);
    });
    let keys: Vec<i64> = (0..n).map(|_| rng.below(10_000) as i64).collect();
    let mut idx = Vec::with_capacity(n);
    let mut d = DictEncoder::<i64>::new();
    time(
        "dictionary i64 (10k distinct) + indices",
        n * 8,
        &mut || {
            idx.clear();
            d.clear();
            d.put(&keys, &mut idx).unwrap();
            out.clear();
            d.write_indices(&idx, &mut out).unwrap();
        },
    );
    let mut bd = ByteArrayDictEncoder::new();
    time(
        "dictionary byte_array (50k distinct)",
        data.len(),
        &mut || {
            idx.clear();
            bd.clear();
            bd.put(&offs, &data, &mut idx).unwrap();
        },
    );
    let page = sample(n, 5);
    for codec in WRITTEN[1..].iter() {
        let mut c = Compressor::new(*codec, None).unwrap();
        time(&format!("compress {codec} (1 MiB mixed)"), n, &mut || {
            out.clear();
            c.compress(&page, &mut out).unwrap();
        });
    }
}

/// `Bitmap::compact` keeps exactly the values whose bit is set, in order, for bit offsets
/// 0..8, densities from empty to full (all-set and clear words) and ragged lengths.
#[test]
fn bitmap_compact_keeps_the_set_slots() {
    let mut rng = Rng(77);
    for offset in 0..8 {
        for len in [0usize, 1, 5, 63, 64, 65, 127, 128, 200, 1000] {
            for density in [0u64, 1, 50, 90, 100] {
                let bits: Vec<bool> = (0..offset + len)
                    .map(|_| rng.next() % 100 < density)
                    .collect();
                let mut bytes = vec![0u8; (offset + len).div_ceil(8) + 1];
                for (i, &b) in bits.iter().enumerate() {
                    bytes[i / 8] |= u8::from(b) << (i % 8);
                }
                let values: Vec<u32> = (0..len as u32).map(|v| v * 7 + 1).collect();
                let bm = Bitmap::new(&bytes, offset, len).unwrap();
                let mut out = vec![99u32; 3];
                bm.compact(&values, &mut out);
                let want: Vec<u32> = values
                    .iter()
                    .zip(&bits[offset..])
                    .filter(|(_, &b)| b)
                    .map(|(&v, _)| v)
                    .collect();
                assert_eq!(out, want, "offset {offset} len {len} density {density}");
            }
        }
    }
}
