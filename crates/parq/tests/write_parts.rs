//! The writer's parts that do not depend on encoders: properties (validation, CLI names),
//! statistics (orders, NaN and signed-zero rules, truncation), page index builders, split
//! block Bloom filters and XXH64; cross-checked with pyarrow 26 where it writes the same
//! structures (chunk statistics, column indexes, Bloom filters).

mod common;
use common::{run_python, tmp_dir, XorShift};

use std::path::Path;

use arrow_array::{cast::AsArray, types::*, Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parq::bloom::{self, hash_bytes, xxh64, Sbbf};
use parq::format::footer::DecodeOptions;
use parq::format::metadata::{
    Arena, BoundaryOrder, ByteRange, ColumnIndex, Compression, Encoding, FileMetaData, OffsetIndex,
    PhysicalType, Repetition, Schema, SchemaElement, SortingColumn, Statistics, UnknownFields,
};
use parq::format::thrift::Reader;
use parq::read::ParquetReader;
use parq::write::properties::{
    check_encoding, parse_encoding, parse_encoding_arg, BloomFilterProperties, Codec,
    DataPageVersion, StatisticsLevel, WriterProperties, DEFAULT_CREATED_BY,
};
use parq::write::size_stats::SizeStatsAccumulator;
use parq::write::statistics::{
    cmp_signed_be, truncate_max, truncate_min, Bounds, StatsAccumulator, StatsOrder,
};
use parq::write::{ColumnIndexBuilder, OffsetIndexBuilder, PageIndexWriter};

// ---------------------------------------------------------------------------------------
// Helpers

fn bounds(
    order: StatsOrder,
    max_len: Option<usize>,
    f: impl FnOnce(&mut StatsAccumulator),
) -> Option<Bounds> {
    let mut acc = StatsAccumulator::new(order);
    f(&mut acc);
    acc.bounds(max_len)
}

fn exact(min: &[u8], max: &[u8]) -> Option<Bounds> {
    Some(Bounds {
        min: min.to_vec(),
        max: max.to_vec(),
        min_exact: true,
        max_exact: true,
    })
}

fn leaf(name: &str, physical: PhysicalType, buf: &mut Vec<u8>) -> SchemaElement {
    let start = buf.len();
    buf.extend_from_slice(name.as_bytes());
    SchemaElement {
        physical_type: Some(physical),
        type_length: (physical == PhysicalType::FixedLenByteArray).then_some(4),
        repetition: Some(Repetition::Optional),
        name: ByteRange::new(start, name.len()),
        num_children: None,
        converted_type: None,
        scale: None,
        precision: None,
        field_id: None,
        logical_type: None,
        unknown: UnknownFields::default(),
    }
}

/// A flat schema of the given leaves.
fn schema(leaves: &[(&str, PhysicalType)]) -> Schema {
    let mut buf = b"schema".to_vec();
    let mut elements = vec![SchemaElement {
        physical_type: None,
        type_length: None,
        repetition: None,
        name: ByteRange::new(0, 6),
        num_children: Some(leaves.len() as i32),
        converted_type: None,
        scale: None,
        precision: None,
        field_id: None,
        logical_type: None,
        unknown: UnknownFields::default(),
    }];
    for (n, t) in leaves {
        elements.push(leaf(n, *t, &mut buf));
    }
    let len = buf.len();
    Schema::from_elements(elements, bytes::Bytes::from(buf), ByteRange::new(0, len))
        .expect("schema")
}

fn err_text<T: std::fmt::Debug>(r: parq::Result<T>) -> String {
    r.expect_err("expected an error").to_string()
}

// ---------------------------------------------------------------------------------------
// XXH64 and Bloom filters

#[test]
fn xxh64_reference_vectors() {
    let strings: [(&str, u64); 7] = [
        ("", 0xef46db3751d8e999),
        ("a", 0xd24ec4f1a98c6e5b),
        ("abc", 0x44bc2cf5ad770999),
        ("as", 0x1c330fb2d66be179),
        ("asd", 0x631c37ce72a97393),
        ("asdf", 0x415872f599cea71e),
        (
            "Call me Ishmael. Some years ago--never mind how long precisely-",
            0x02a2e85470d6fd96,
        ),
    ];
    for (s, h) in strings {
        assert_eq!(xxh64(s.as_bytes(), 0), h, "{s:?}");
    }
    // xxhsum's sanity buffer and vectors (lengths across the 32-byte stripe path, seeds).
    let mut buf = vec![0u8; 300];
    let mut g: u64 = 2654435761;
    for b in buf.iter_mut() {
        *b = (g >> 56) as u8;
        g = g.wrapping_mul(11400714785074694797);
    }
    let sanity: [(usize, u64, u64); 7] = [
        (0, 0, 0xef46db3751d8e999),
        (1, 0, 0xe934a84adb052768),
        (1, 2654435761, 0x5014607643a9b4c3),
        (14, 0, 0x8282dcc4994e35c8),
        (14, 2654435761, 0xc3bd6bf63deb6df0),
        (222, 0, 0xb641ae8cb691c174),
        (222, 2654435761, 0x20cb8ab7ae10c14a),
    ];
    for (len, seed, h) in sanity {
        assert_eq!(xxh64(&buf[..len], seed), h, "len {len} seed {seed}");
    }
    // The 4- and 8-byte fast paths equal the general function.
    assert_eq!(bloom::hash_i32(42), 0xd756d7b62fc50bf1);
    assert_eq!(bloom::hash_i64(-1), 0x85d136adb773c6c9);
    for v in [0u64, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
        assert_eq!(bloom::hash_u64(v), xxh64(&v.to_le_bytes(), 0));
        let w = v as u32;
        assert_eq!(bloom::hash_u32(w), xxh64(&w.to_le_bytes(), 0));
    }
    assert_eq!(bloom::hash_f64(1.5), xxh64(&1.5f64.to_le_bytes(), 0));
    assert_eq!(bloom::hash_f32(-0.0), xxh64(&(-0.0f32).to_le_bytes(), 0));
}

#[test]
fn sbbf_sizing() {
    // parquet-cpp's documented table (ndv, fpp) -> KiB.
    for (ndv, fpp, kib) in [
        (100_000u64, 0.10, 128usize),
        (100_000, 0.01, 128),
        (1_000_000, 0.10, 1024),
        (1_000_000, 0.01, 2048),
        (10_000_000, 0.05, 16384),
    ] {
        assert_eq!(Sbbf::optimal_num_bytes(ndv, fpp), kib * 1024, "{ndv} {fpp}");
    }
    assert_eq!(Sbbf::optimal_num_bytes(1, 0.5), 32);
    assert_eq!(Sbbf::optimal_num_bytes(0, 0.05), 32);
    assert_eq!(
        Sbbf::optimal_num_bytes(u64::MAX, 0.05),
        bloom::MAX_BLOOM_FILTER_BYTES
    );
    assert_eq!(
        Sbbf::optimal_num_bytes(1000, 0.0),
        bloom::MAX_BLOOM_FILTER_BYTES
    );
    assert_eq!(Sbbf::optimal_num_bytes(1000, 1.0), 32);
    assert_eq!(
        Sbbf::optimal_num_bytes(1000, f64::NAN),
        bloom::MAX_BLOOM_FILTER_BYTES
    );
    for n in [0, 1, 33, 100, 4096, usize::MAX] {
        let b = Sbbf::new(n).num_bytes();
        assert!(b.is_power_of_two() && (32..=bloom::MAX_BLOOM_FILTER_BYTES).contains(&b));
    }
}

#[test]
fn sbbf_finds_inserted_values_and_meets_fpp() {
    for (ndv, fpp) in [(10_000u64, 0.01), (10_000, 0.1), (1_000, 0.05)] {
        let mut f = Sbbf::with_ndv_fpp(ndv, fpp);
        for i in 0..ndv as i64 {
            f.insert_hash(bloom::hash_i64(i));
        }
        for i in 0..ndv as i64 {
            assert!(f.check_hash(bloom::hash_i64(i)), "inserted {i} not found");
        }
        let probes = 200_000i64;
        let fp = (0..probes)
            .filter(|i| f.check_hash(bloom::hash_i64(1_000_000_000 + i)))
            .count();
        let rate = fp as f64 / probes as f64;
        // Sizes round up to a power of two, so the measured rate is at most the target
        // (with slack for sampling) and not absurdly below it.
        assert!(rate < fpp * 1.2, "ndv {ndv} fpp {fpp}: measured {rate}");
        assert!(rate > fpp / 50.0, "ndv {ndv} fpp {fpp}: measured {rate}");
    }
    // Byte values.
    let mut f = Sbbf::new(1024);
    let words: Vec<String> = (0..200).map(|i| format!("word{i}")).collect();
    for w in &words {
        f.insert_bytes(w.as_bytes());
    }
    assert!(words.iter().all(|w| f.check_bytes(w.as_bytes())));
    assert!(!Sbbf::new(64).check_bytes(b"anything"));
}

#[test]
fn sbbf_serialization_round_trip() {
    let mut f = Sbbf::with_ndv_fpp(500, 0.05);
    for i in 0..500 {
        f.insert_hash(bloom::hash_i32(i));
    }
    let mut out = b"xx".to_vec();
    let n = f.write(&mut out);
    assert_eq!(n, out.len() - 2);
    let (g, used) = Sbbf::read(&out[2..]).expect("read");
    assert_eq!(used, n);
    assert_eq!(g, f);
    let mut bits = Vec::new();
    f.write_bitset(&mut bits);
    assert_eq!(bits.len(), f.num_bytes());
    assert_eq!(Sbbf::from_bitset(&bits).expect("bitset"), f);
    // Malformed input is an error, never a panic.
    assert!(Sbbf::read(&out[2..out.len() - 1]).is_err());
    assert!(Sbbf::read(&[]).is_err());
    // A negative bitset size in the header (field 1, i32 zigzag -1) is an error.
    let header = &out[2..];
    assert_eq!(header[0], 0x15, "the header starts with num_bytes");
    let varint_len = header[1..].iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    let mut negative = vec![0x15, 0x01];
    negative.extend_from_slice(&header[1 + varint_len..]);
    assert!(Sbbf::read(&negative).is_err());
    assert!(Sbbf::from_bitset(&[0; 31]).is_err());
    assert!(Sbbf::from_bitset(&[]).is_err());
    assert!(f.fill_ratio() > 0.0 && f.fill_ratio() < 1.0);
}

const BLOOM_SCRIPT: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 3000
t = pa.table({
    'i32': pa.array([i * 7 - 5000 if i % 10 else None for i in range(n)], pa.int32()),
    'i64': pa.array([i * 1_000_000_007 for i in range(n)], pa.int64()),
    'f64': pa.array([i / 3.0 for i in range(n)], pa.float64()),
    'f32': pa.array([i * 0.25 for i in range(n)], pa.float32()),
    's': pa.array([f'value-{i}' * (i % 4) for i in range(n)]),
    'fsb': pa.array([i.to_bytes(4, 'little') for i in range(n)], pa.binary(4)),
})
opts = {
    'i32': {'ndv': 3000, 'fpp': 0.05, 'fold': False},
    'i64': {'ndv': 3000, 'fpp': 0.01, 'fold': False},
    'f64': {'ndv': 100, 'fpp': 0.1, 'fold': False},
    'f32': {'ndv': 3000, 'fpp': 0.05, 'fold': False},
    's': {'ndv': 10000, 'fpp': 0.01, 'fold': False},
    'fsb': {'ndv': 3000, 'fpp': 0.05, 'fold': False},
}
pq.write_table(t, sys.argv[1], bloom_filter_options=opts, use_dictionary=False)
"#;

/// The non-null values of a flat column as the hashes a Bloom filter takes.
fn value_hashes(a: &ArrayRef) -> Vec<u64> {
    let valid = |i: usize| a.is_valid(i);
    let idx = (0..a.len()).filter(|&i| valid(i));
    match a.data_type() {
        DataType::Int32 => {
            let v = a.as_primitive::<Int32Type>();
            idx.map(|i| bloom::hash_i32(v.value(i))).collect()
        }
        DataType::Int64 => {
            let v = a.as_primitive::<Int64Type>();
            idx.map(|i| bloom::hash_i64(v.value(i))).collect()
        }
        DataType::Float32 => {
            let v = a.as_primitive::<Float32Type>();
            idx.map(|i| bloom::hash_f32(v.value(i))).collect()
        }
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>();
            idx.map(|i| bloom::hash_f64(v.value(i))).collect()
        }
        DataType::Utf8 => {
            let v = a.as_string::<i32>();
            idx.map(|i| hash_bytes(v.value(i).as_bytes())).collect()
        }
        DataType::FixedSizeBinary(_) => {
            let v = a.as_fixed_size_binary();
            idx.map(|i| hash_bytes(v.value(i))).collect()
        }
        t => panic!("unexpected type {t}"),
    }
}

fn read_meta(path: &Path) -> FileMetaData {
    parq::file::read_metadata(path, DecodeOptions::default()).expect("metadata")
}

fn read_batch(path: &Path) -> RecordBatch {
    ParquetReader::open(path)
        .expect("open")
        .read_batch()
        .expect("read")
}

#[test]
fn sbbf_matches_pyarrow_bit_for_bit() {
    let dir = tmp_dir("bloom");
    let path = dir.join("bloom.parquet");
    run_python(BLOOM_SCRIPT, &[path.to_str().expect("path")]);
    let file = std::fs::read(&path).expect("file");
    let meta = read_meta(&path);
    let batch = read_batch(&path);
    let settings = [
        (3000u64, 0.05),
        (3000, 0.01),
        (100, 0.1),
        (3000, 0.05),
        (10000, 0.01),
        (3000, 0.05),
    ];
    let rg = &meta.row_groups()[0];
    for (c, chunk) in rg.columns().iter().enumerate() {
        let name = meta.schema().leaf_path_string(c);
        let off = chunk.bloom_filter_offset().expect("bloom offset") as usize;
        let theirs = match chunk.bloom_filter_length() {
            Some(len) => Sbbf::read(&file[off..off + len as usize]).expect("bloom").0,
            None => Sbbf::read(&file[off..]).expect("bloom").0,
        };
        let hashes = value_hashes(batch.column(c));
        assert!(!hashes.is_empty());
        for h in &hashes {
            assert!(
                theirs.check_hash(*h),
                "{name}: a value pyarrow inserted is not found"
            );
        }
        // As the column writer will: sized for the row group row limit, then folded to the
        // chunk's row count (pyarrow sizes for min(ndv, rows written)).
        let (ndv, fpp) = settings[c];
        let props = BloomFilterProperties { ndv, fpp };
        let rows = rg.num_rows() as u64;
        let mut ours = Sbbf::new(props.num_bytes(1 << 20));
        for h in &hashes {
            ours.insert_hash(*h);
        }
        ours.fold_to(props.num_bytes(rows));
        assert_eq!(ours.num_bytes(), theirs.num_bytes(), "{name}: size");
        // Built directly at the final size: the same filter.
        let mut direct = Sbbf::new(props.num_bytes(rows));
        for h in hashes {
            direct.insert_hash(h);
        }
        assert!(
            direct == ours,
            "{name}: folding differs from building small"
        );
        assert!(
            ours == theirs,
            "{name}: parq's filter differs from pyarrow's"
        );
        // The serialized header re-encodes the same way pyarrow wrote it.
        let mut ser = Vec::new();
        let n = ours.write(&mut ser);
        assert_eq!(&ser[..], &file[off..off + n], "{name}: serialized bytes");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// ---------------------------------------------------------------------------------------
// Statistics

#[test]
fn integer_orders() {
    let o = StatsOrder::Int32;
    assert_eq!(
        bounds(o, None, |a| a.update_i32(&[3, -5, 7])),
        exact(&(-5i32).to_le_bytes(), &7i32.to_le_bytes())
    );
    assert_eq!(
        bounds(StatsOrder::UInt32, None, |a| a.update_i32(&[3, -5, 7])),
        exact(&3i32.to_le_bytes(), &(-5i32).to_le_bytes())
    );
    assert_eq!(
        bounds(StatsOrder::Int64, None, |a| a.update_i64(&[
            i64::MIN,
            -1,
            i64::MAX
        ])),
        exact(&i64::MIN.to_le_bytes(), &i64::MAX.to_le_bytes())
    );
    assert_eq!(
        bounds(StatsOrder::UInt64, None, |a| {
            a.update_i64(&[1, -1]);
            a.update_i64(&[i64::MIN, 0]);
        }),
        exact(&0i64.to_le_bytes(), &(-1i64).to_le_bytes())
    );
    assert_eq!(
        bounds(StatsOrder::Boolean, None, |a| a.update_bool(&[true, true])),
        exact(&[1], &[1])
    );
    assert_eq!(
        bounds(StatsOrder::Boolean, None, |a| a.update_bool(&[true, false])),
        exact(&[0], &[1])
    );
}

/// The exact bounds of integers: their least and greatest, as `le` writes them.
fn int_bounds<T: Ord + Copy>(v: &[T], le: impl Fn(T) -> Vec<u8>) -> Option<Bounds> {
    let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
    exact(&le(lo), &le(hi))
}

fn f32s(lo: f32, hi: f32) -> Option<Bounds> {
    exact(&lo.to_le_bytes(), &hi.to_le_bytes())
}

fn f64s(lo: f64, hi: f64) -> Option<Bounds> {
    exact(&lo.to_le_bytes(), &hi.to_le_bytes())
}

#[test]
fn float_nan_and_zero_rules() {
    let f = |v: &[f32]| bounds(StatsOrder::Float, None, |a| a.update_f32(v));
    let nan = f32::NAN;
    assert_eq!(f(&[1.5, nan, -3.25, 0.5]), f32s(-3.25, 1.5));
    assert_eq!(f(&[nan, nan]), None);
    assert_eq!(f(&[-nan]), None);
    assert_eq!(f(&[]), None);
    // Zero min written as -0.0, zero max as +0.0, whatever the sign seen.
    let min_bits = |b: Option<Bounds>| b.map(|b| (b.min, b.max));
    assert_eq!(min_bits(f(&[0.0])), min_bits(f32s(-0.0, 0.0)));
    assert_eq!(min_bits(f(&[-0.0])), min_bits(f32s(-0.0, 0.0)));
    assert_eq!(min_bits(f(&[0.0, -0.0])), min_bits(f32s(-0.0, 0.0)));
    assert_eq!(min_bits(f(&[0.0, 2.0])), min_bits(f32s(-0.0, 2.0)));
    assert_eq!(min_bits(f(&[-2.0, -0.0, nan])), min_bits(f32s(-2.0, 0.0)));
    assert_eq!(f(&[f32::INFINITY, nan]), f32s(f32::INFINITY, f32::INFINITY));
    assert_eq!(f(&[f32::NEG_INFINITY, 1.0]), f32s(f32::NEG_INFINITY, 1.0));

    let d = |v: &[f64]| bounds(StatsOrder::Double, None, |a| a.update_f64(v));
    assert_eq!(d(&[2.5, f64::NAN, -1e300]), f64s(-1e300, 2.5));
    assert_eq!(d(&[f64::NAN]), None);
    assert_eq!(
        d(&[0.0, -0.0]).map(|b| (b.min, b.max)),
        Some((
            (-0.0f64).to_le_bytes().to_vec(),
            0.0f64.to_le_bytes().to_vec()
        ))
    );
    // NaN-only pages merged into a chunk with values keep the values' bounds.
    let mut chunk = StatsAccumulator::new(StatsOrder::Double);
    let mut page = StatsAccumulator::new(StatsOrder::Double);
    page.update_f64(&[f64::NAN]);
    chunk.merge(&page);
    assert!(!chunk.has_min_max());
    page.clear();
    page.update_f64(&[0.0, 7.0]);
    chunk.merge(&page);
    assert_eq!(chunk.bounds(None), f64s(-0.0, 7.0));
    assert_eq!(chunk.value_count(), 3);
}

fn half(bits: &[u16]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()).collect()
}

#[test]
fn float16_order() {
    let f = |bits: &[u16]| {
        bounds(StatsOrder::Float16, None, |a| {
            a.update_fixed(&half(bits), 2)
        })
    };
    // 1.5 = 0x3e00, -2.0 = 0xc000, NaN = 0x7e00 / 0xfe00, inf = 0x7c00, -0.0 = 0x8000.
    assert_eq!(
        f(&[0x3e00, 0xc000, 0x7e00]),
        exact(&half(&[0xc000]), &half(&[0x3e00]))
    );
    assert_eq!(f(&[0x7e00, 0xfe00]), None);
    assert_eq!(f(&[0x0000]), exact(&half(&[0x8000]), &half(&[0x0000])));
    assert_eq!(
        f(&[0x8000, 0x4200]),
        exact(&half(&[0x8000]), &half(&[0x4200]))
    );
    assert_eq!(
        f(&[0xbc00, 0x8000]),
        exact(&half(&[0xbc00]), &half(&[0x0000]))
    );
    assert_eq!(
        f(&[0x7c00, 0xfc00, 0x0001]),
        exact(&half(&[0xfc00]), &half(&[0x7c00]))
    );
    // Page merge.
    let mut chunk = StatsAccumulator::new(StatsOrder::Float16);
    for page in [[0x3c00u16, 0x4000], [0xc400, 0x3800]] {
        let mut p = StatsAccumulator::new(StatsOrder::Float16);
        p.update_fixed(&half(&page), 2);
        chunk.merge(&p);
    }
    assert_eq!(
        chunk.bounds(None),
        exact(&half(&[0xc400]), &half(&[0x4000]))
    );
}

#[test]
fn byte_orders() {
    let b =
        |o: StatsOrder, v: &[&[u8]]| bounds(o, None, |a| a.update_byte_array(v.iter().copied()));
    assert_eq!(b(StatsOrder::Bytes, &[b"b", b"a", b"c"]), exact(b"a", b"c"));
    assert_eq!(
        b(StatsOrder::Bytes, &[b"\xff", b"\x00\x01", b"\x7f"]),
        exact(b"\x00\x01", b"\xff")
    );
    assert_eq!(b(StatsOrder::Utf8, &[b"", b"z"]), exact(b"", b"z"));
    // Values sharing 8-byte prefixes, prefixes of each other, zero bytes and 0xff bytes, in
    // every rotation: the result is the lexicographic min/max (std's slice order).
    let tricky: [&[u8]; 12] = [
        b"abcdefgh",
        b"abcdefgh\x00",
        b"abcdefghi",
        b"abcdefgg\xff\xff",
        b"abc",
        b"abc\x00",
        b"ab",
        b"",
        b"\x00",
        b"\xff\xff\xff\xff\xff\xff\xff\xff",
        b"\xff\xff\xff\xff\xff\xff\xff\xff\x00",
        b"\xff\xff\xff\xff\xff\xff\xff",
    ];
    for k in 0..tricky.len() {
        for len in 1..=tricky.len() {
            let v: Vec<&[u8]> = tricky.iter().cycle().skip(k).take(len).copied().collect();
            let (lo, hi) = (v.iter().min().unwrap(), v.iter().max().unwrap());
            assert_eq!(b(StatsOrder::Bytes, &v), exact(lo, hi), "{v:?}");
            // The same values as Arrow offsets into one buffer (short values near its end
            // take the byte-by-byte prefix).
            let mut offsets = vec![0i32];
            let mut data = Vec::new();
            for x in &v {
                data.extend_from_slice(x);
                offsets.push(data.len() as i32);
            }
            let got = bounds(StatsOrder::Utf8, None, |a| {
                a.update_byte_array_offsets(&offsets, &data)
            });
            assert_eq!(got, exact(lo, hi), "{v:?}");
        }
    }
    // Decimals: signed big-endian, any width.
    let dec: [&[u8]; 4] = [&[0xff, 0xe7], &[0x03, 0xe8], &[0x80], &[0x00, 0x00, 0x01]];
    assert_eq!(
        b(StatsOrder::SignedBytes, &dec),
        exact(&[0x80], &[0x03, 0xe8])
    );
    use std::cmp::Ordering::*;
    assert_eq!(cmp_signed_be(&[0xff], &[0xff, 0xff]), Equal);
    assert_eq!(cmp_signed_be(&[], &[0x00]), Equal);
    assert_eq!(cmp_signed_be(&[0x7f], &[0x00, 0x80]), Less);
    assert_eq!(cmp_signed_be(&[0xff, 0x00], &[0x80]), Less);
    // FIXED_LEN_BYTE_ARRAY values: nulls are excluded by the caller; a ragged tail is ignored.
    assert_eq!(
        bounds(StatsOrder::FixedBytes, None, |a| a
            .update_fixed(b"\x80\x00\x00\x00\x00\x01\xff\xff\xff\x00", 3)),
        exact(b"\x00\x00\x01", b"\xff\xff\xff")
    );
    // Orders without min/max.
    let mut a = StatsAccumulator::new(StatsOrder::Undefined);
    a.update_int96(3);
    a.update_byte_array([&b"x"[..]]);
    a.add_nulls(2);
    assert_eq!(a.bounds(None), None);
    let s = a.to_statistics(&mut Arena::default(), None);
    assert_eq!((s.null_count, s.min_value, s.min), (Some(2), None, None));
}

#[test]
fn orders_from_annotations() {
    use parq::schema::Annotation as A;
    use PhysicalType as P;
    let cases = [
        (P::Int32, A::None, None, StatsOrder::Int32),
        (
            P::Int32,
            A::Integer {
                bit_width: 8,
                signed: false,
            },
            None,
            StatsOrder::UInt32,
        ),
        (
            P::Int64,
            A::Integer {
                bit_width: 64,
                signed: false,
            },
            None,
            StatsOrder::UInt64,
        ),
        (
            P::Int64,
            A::Timestamp {
                unit: parq::schema::annotation::Unit::Micros,
                utc: true,
            },
            None,
            StatsOrder::Int64,
        ),
        (
            P::Int32,
            A::Decimal {
                precision: 5,
                scale: 2,
            },
            None,
            StatsOrder::Int32,
        ),
        (
            P::FixedLenByteArray,
            A::Decimal {
                precision: 20,
                scale: 2,
            },
            Some(9),
            StatsOrder::SignedBytes,
        ),
        (
            P::ByteArray,
            A::Decimal {
                precision: 20,
                scale: 2,
            },
            None,
            StatsOrder::SignedBytes,
        ),
        (
            P::FixedLenByteArray,
            A::Float16,
            Some(2),
            StatsOrder::Float16,
        ),
        (
            P::FixedLenByteArray,
            A::Interval,
            Some(12),
            StatsOrder::Undefined,
        ),
        (
            P::FixedLenByteArray,
            A::Uuid,
            Some(16),
            StatsOrder::FixedBytes,
        ),
        (P::ByteArray, A::String, None, StatsOrder::Utf8),
        (P::ByteArray, A::Json, None, StatsOrder::Utf8),
        (P::ByteArray, A::None, None, StatsOrder::Bytes),
        (P::ByteArray, A::Geospatial, None, StatsOrder::Undefined),
        (P::Int96, A::None, None, StatsOrder::Undefined),
        (P::Boolean, A::None, None, StatsOrder::Boolean),
        (P::Float, A::None, None, StatsOrder::Float),
    ];
    for (p, a, len, want) in cases {
        assert_eq!(StatsOrder::new(p, a, len), want, "{p} {a:?}");
    }
    assert!(StatsOrder::Int32.writes_legacy_min_max());
    assert!(StatsOrder::SignedBytes.writes_legacy_min_max());
    assert!(!StatsOrder::UInt32.writes_legacy_min_max());
    assert!(!StatsOrder::Utf8.writes_legacy_min_max());
    assert!(StatsOrder::Utf8.truncates() && !StatsOrder::FixedBytes.truncates());
}

#[test]
fn truncation() {
    // Bytes: min cut, max cut and incremented, with carry over 0xFF bytes.
    assert_eq!(truncate_min(b"abcdef", 4, false), (b"abcd".to_vec(), false));
    assert_eq!(truncate_max(b"abcdef", 4, false), (b"abce".to_vec(), false));
    assert_eq!(
        truncate_max(b"ab\xff\xff\xff", 4, false),
        (b"ac".to_vec(), false)
    );
    assert_eq!(
        truncate_max(b"\x00\xff\xff\xff\xff", 3, false),
        (b"\x01".to_vec(), false)
    );
    // Nothing to increment: kept whole and exact.
    assert_eq!(
        truncate_max(b"\xff\xff\xff\xff\xff", 4, false),
        (b"\xff\xff\xff\xff\xff".to_vec(), true)
    );
    // Short enough: untouched.
    assert_eq!(truncate_min(b"abcd", 4, false), (b"abcd".to_vec(), true));
    assert_eq!(truncate_max(b"abcd", 4, false), (b"abcd".to_vec(), true));
    // UTF-8: cut at character boundaries, increment by character.
    let s = "aaaé tail".as_bytes();
    assert_eq!(truncate_min(s, 4, true), (b"aaa".to_vec(), false));
    assert_eq!(truncate_max(s, 4, true), (b"aab".to_vec(), false));
    assert_eq!(
        truncate_max("aaé tail".as_bytes(), 4, true),
        ("aaê".as_bytes().to_vec(), false)
    );
    // U+007F has no one-byte successor: the previous character is incremented.
    assert_eq!(
        truncate_max("a\u{7f}\u{7f}zzz".as_bytes(), 3, true),
        (b"b".to_vec(), false)
    );
    // Surrogates are skipped.
    assert_eq!(
        truncate_max("\u{d7ff}\u{d7ff}".as_bytes(), 3, true),
        ("\u{e000}".as_bytes().to_vec(), false)
    );
    // Only maximal characters: kept whole.
    let top = "\u{10ffff}\u{10ffff}".as_bytes();
    assert_eq!(truncate_max(top, 5, true), (top.to_vec(), true));
    // Not UTF-8 in a string column: byte-wise.
    assert_eq!(
        truncate_max(b"a\xff\xfe\xfd\xfc", 3, true),
        (b"a\xff\xff".to_vec(), false)
    );
    // The first character longer than the limit: an empty min (a valid lower bound).
    assert_eq!(truncate_min("éé".as_bytes(), 1, true), (Vec::new(), false));

    // Through the accumulator: only BYTE_ARRAY orders truncate.
    let long = vec![b'x'; 100];
    let b = bounds(StatsOrder::Utf8, Some(64), |a| {
        a.update_byte_array([&long[..], b"a"])
    })
    .unwrap();
    assert_eq!((b.min.as_slice(), b.min_exact), (&b"a"[..], true));
    assert_eq!((b.max.len(), b.max_exact), (64, false));
    assert_eq!(b.max[63], b'y');
    let fixed = bounds(StatsOrder::FixedBytes, Some(4), |a| {
        a.update_fixed(&long, 50)
    })
    .unwrap();
    assert!(fixed.min_exact && fixed.max_exact && fixed.max.len() == 50);
    let dec = bounds(StatsOrder::SignedBytes, Some(4), |a| {
        a.update_byte_array([&long[..]])
    })
    .unwrap();
    assert!(dec.min_exact && dec.max.len() == 100);
}

#[test]
fn statistics_output_and_merge() {
    let mut arena = Arena::default();
    let mut a = StatsAccumulator::new(StatsOrder::Int32);
    a.update_i32(&[5, -1]);
    a.add_nulls(3);
    let s = a.to_statistics(&mut arena, Some(64));
    assert_eq!(s.null_count, Some(3));
    assert_eq!(
        s.min_value.map(|r| r.slice(arena.as_slice()).to_vec()),
        Some((-1i32).to_le_bytes().to_vec())
    );
    assert_eq!(s.min, s.min_value, "legacy min shares the range");
    assert_eq!(s.max, s.max_value);
    assert_eq!(
        (s.is_min_value_exact, s.is_max_value_exact),
        (Some(true), Some(true))
    );
    assert_eq!(s.distinct_count, None);

    let mut u = StatsAccumulator::new(StatsOrder::Utf8);
    u.update_byte_array([&[b'q'; 70][..]]);
    let s = u.to_statistics(&mut arena, Some(64));
    assert_eq!(
        (s.min, s.max),
        (None, None),
        "no legacy min/max for unsigned orders"
    );
    assert_eq!(
        (s.is_min_value_exact, s.is_max_value_exact),
        (Some(false), Some(false))
    );

    // Pages merged equal one accumulator over everything.
    let pages: [&[i64]; 3] = [&[4, 9], &[], &[-7, 3, 100]];
    let mut chunk = StatsAccumulator::new(StatsOrder::Int64);
    let mut whole = StatsAccumulator::new(StatsOrder::Int64);
    for p in pages {
        let mut page = StatsAccumulator::new(StatsOrder::Int64);
        page.update_i64(p);
        page.add_nulls(1);
        chunk.merge(&page);
        whole.update_i64(p);
        whole.add_nulls(1);
    }
    assert_eq!(chunk, whole);
    let mut bytes_chunk = StatsAccumulator::new(StatsOrder::Bytes);
    for p in [[&b"m"[..], b"n"], [b"a", b"z"], [b"k", b"l"]] {
        let mut page = StatsAccumulator::new(StatsOrder::Bytes);
        page.update_byte_array(p);
        bytes_chunk.merge(&page);
    }
    assert_eq!(bytes_chunk.bounds(None), exact(b"a", b"z"));

    // Type mismatches (a writer bug) drop min/max instead of panicking or lying.
    let mut m = StatsAccumulator::new(StatsOrder::Int32);
    m.update_i32(&[1]);
    m.update_f64(&[2.0]);
    assert!(!m.has_min_max());
    assert_eq!(m.value_count(), 2);
    let mut z = StatsAccumulator::new(StatsOrder::Bytes);
    z.update_fixed(b"abc", 0);
    let mut other = StatsAccumulator::new(StatsOrder::Int32);
    other.update_i32(&[1]);
    let mut x = StatsAccumulator::new(StatsOrder::Int64);
    x.merge(&other);
    assert!(!x.has_min_max());
}

#[test]
fn size_statistics() {
    let mut s = SizeStatsAccumulator::new(1, 0, true);
    s.add_def_levels(&[1, 0, 1, 1]);
    s.add_def_level_run(1, 10);
    s.add_def_levels(&[7, -1]);
    s.add_unencoded_bytes(42);
    let out = s.to_size_statistics().expect("size statistics");
    assert_eq!(out.unencoded_byte_array_data_bytes, Some(42));
    assert_eq!(out.definition_level_histogram, Some(vec![1, 13]));
    assert_eq!(out.repetition_level_histogram, None);

    let mut n = SizeStatsAccumulator::new(3, 2, false);
    n.add_def_levels(&[0, 1, 2, 3, 3]);
    n.add_rep_levels(&[0, 1, 2, 2, 0]);
    n.add_rep_level_run(0, 2);
    let mut m = n.clone();
    m.merge(&n);
    assert_eq!(m.def_histogram(), &[2, 2, 2, 4]);
    assert_eq!(m.rep_histogram(), &[8, 2, 4]);
    assert_eq!(m.unencoded_byte_array_data_bytes(), None);
    m.clear();
    assert_eq!(m.def_histogram(), &[0, 0, 0, 0]);

    // A required flat non-byte-array column has nothing to write.
    assert_eq!(
        SizeStatsAccumulator::new(0, 0, false).to_size_statistics(),
        None
    );
}

// ---------------------------------------------------------------------------------------
// Statistics and column index against pyarrow

const STATS_SCRIPT: &str = r#"
import sys, decimal, numpy as np, pyarrow as pa, pyarrow.parquet as pq
D = decimal.Decimal
nan = float('nan')
def rep(v, n=30):
    return (v * (n // len(v) + 1))[:n]
cols = {
    'i8': pa.array(rep([-5, 3, None, 100, -128, 127]), pa.int8()),
    'u8': pa.array(rep([3, 250, 7, None, 0, 255]), pa.uint8()),
    'i16': pa.array(rep([-300, 3, 32767]), pa.int16()),
    'u16': pa.array(rep([65535, 3, 1000]), pa.uint16()),
    'i32': pa.array(rep([-2**31, 2**31 - 1, 0, None]), pa.int32()),
    'u32': pa.array(rep([0, 2**32 - 1, 5, 2**31]), pa.uint32()),
    'i64': pa.array(rep([-2**63, 2**63 - 1, -1]), pa.int64()),
    'u64': pa.array(rep([0, 2**64 - 1, 2**63, 1]), pa.uint64()),
    'f32': pa.array(rep([1.5, nan, -0.0, -3.25, float('inf'), None]), pa.float32()),
    'f32z': pa.array(rep([0.0, -0.0, nan]), pa.float32()),
    'f64': pa.array(rep([2.5, nan, 0.0, -1e300, float('-inf')]), pa.float64()),
    'f64neg': pa.array(rep([-2.5, -0.0]), pa.float64()),
    'f64nan': pa.array(rep([nan, None]), pa.float64()),
    'f16': pa.array(np.array(rep([1.5, -2.0, np.nan, 0.0, 65504.0]), np.float16)),
    'b': pa.array(rep([True, False, None])),
    'bt': pa.array(rep([True])),
    's': pa.array(rep(['', 'b', 'é', 'zz\u00ff', None, 'Zebra', 'a' * 90])),
    'bin': pa.array(rep([b'\xff\x00', b'\x7f', b'\x80', b'']), pa.binary()),
    'fsb': pa.array(rep([b'\xff\x00\x01', b'\x00\x00\x00', b'\x80\x00\x00', None]), pa.binary(3)),
    'dec': pa.array(rep([D('1.50'), D('-2.50'), D('100.00'), D('-0.01'), None]), pa.decimal128(10, 2)),
    'dec38': pa.array(rep([D(10**37), D(-10**37), D(5), D(-1)]), pa.decimal128(38, 0)),
    'dec256': pa.array(rep([D(10**49), D(-10**49), D(0)]), pa.decimal256(50, 0)),
    'date': pa.array(rep([-1000, 0, 19000]), pa.date32()),
    'ts': pa.array(rep([1, -2, 3]), pa.timestamp('us', tz='UTC')),
    'nulls': pa.array([None] * 30, pa.int32()),
}
t = pa.table(cols)
pq.write_table(t, sys.argv[1], write_page_index=True, max_rows_per_page=7,
               write_batch_size=7, store_schema=True)
pq.write_table(pa.table({'t96': pa.array(rep([1, 5, -3]), pa.timestamp('ns'))}), sys.argv[2],
               use_deprecated_int96_timestamps=True, write_page_index=True)
"#;

/// Feeds rows `rows` of a flat column into `acc` (values as the physical type holds them).
fn accumulate(
    a: &ArrayRef,
    rows: std::ops::Range<usize>,
    type_length: usize,
    acc: &mut StatsAccumulator,
) {
    let a = a.slice(rows.start, rows.len());
    acc.add_nulls(a.null_count() as u64);
    let idx: Vec<usize> = (0..a.len()).filter(|&i| a.is_valid(i)).collect();
    macro_rules! prim {
        ($t:ty, $conv:expr, $update:ident) => {{
            let v = a.as_primitive::<$t>();
            let vals: Vec<_> = idx.iter().map(|&i| $conv(v.value(i))).collect();
            acc.$update(&vals);
        }};
    }
    match a.data_type() {
        DataType::Int8 => prim!(Int8Type, |x: i8| x as i32, update_i32),
        DataType::Int16 => prim!(Int16Type, |x: i16| x as i32, update_i32),
        DataType::Int32 => prim!(Int32Type, |x: i32| x, update_i32),
        DataType::UInt8 => prim!(UInt8Type, |x: u8| x as i32, update_i32),
        DataType::UInt16 => prim!(UInt16Type, |x: u16| x as i32, update_i32),
        DataType::UInt32 => prim!(UInt32Type, |x: u32| x as i32, update_i32),
        DataType::Int64 => prim!(Int64Type, |x: i64| x, update_i64),
        DataType::UInt64 => prim!(UInt64Type, |x: u64| x as i64, update_i64),
        DataType::Date32 => prim!(Date32Type, |x: i32| x, update_i32),
        DataType::Timestamp(..) => prim!(TimestampMicrosecondType, |x: i64| x, update_i64),
        DataType::Float32 => prim!(Float32Type, |x: f32| x, update_f32),
        DataType::Float64 => prim!(Float64Type, |x: f64| x, update_f64),
        DataType::Boolean => {
            let v = a.as_boolean();
            let vals: Vec<bool> = idx.iter().map(|&i| v.value(i)).collect();
            acc.update_bool(&vals);
        }
        DataType::Float16 => {
            let v = a.as_primitive::<Float16Type>();
            let bytes: Vec<u8> = idx
                .iter()
                .flat_map(|&i| v.value(i).to_bits().to_le_bytes())
                .collect();
            acc.update_fixed(&bytes, 2);
        }
        DataType::Utf8 => {
            let v = a.as_string::<i32>();
            acc.update_byte_array(idx.iter().map(|&i| v.value(i).as_bytes()));
        }
        DataType::Binary => {
            let v = a.as_binary::<i32>();
            acc.update_byte_array(idx.iter().map(|&i| v.value(i)));
        }
        DataType::FixedSizeBinary(_) => {
            let v = a.as_fixed_size_binary();
            let bytes: Vec<u8> = idx.iter().flat_map(|&i| v.value(i).to_vec()).collect();
            acc.update_fixed(&bytes, type_length);
        }
        DataType::Decimal128(..) => {
            let v = a.as_primitive::<Decimal128Type>();
            let bytes: Vec<u8> = idx
                .iter()
                .flat_map(|&i| v.value(i).to_be_bytes()[16 - type_length..].to_vec())
                .collect();
            acc.update_fixed(&bytes, type_length);
        }
        DataType::Decimal256(..) => {
            let v = a.as_primitive::<Decimal256Type>();
            let bytes: Vec<u8> = idx
                .iter()
                .flat_map(|&i| v.value(i).to_be_bytes()[32 - type_length..].to_vec())
                .collect();
            acc.update_fixed(&bytes, type_length);
        }
        DataType::Null => {}
        t => panic!("unexpected type {t}"),
    }
}

/// Compares parq's chunk statistics and column index, computed from the values pyarrow
/// wrote, with pyarrow's. Returns the number of columns whose statistics have min/max and
/// the number of column indexes compared.
fn check_against_pyarrow(path: &Path) -> (usize, usize) {
    let file = std::fs::read(path).expect("file");
    let meta = read_meta(path);
    let batch = read_batch(path);
    let buf = meta.buf();
    let mut with_min_max = 0;
    let mut indexes = 0;
    for (g, rg) in meta.row_groups().iter().enumerate() {
        let rg_start: usize = meta.row_groups()[..g]
            .iter()
            .map(|r| r.num_rows() as usize)
            .sum();
        for (c, chunk) in rg.columns().iter().enumerate() {
            let name = meta.schema().leaf_path_string(c);
            let e = meta.schema().leaf_element(c).expect("leaf");
            let order = StatsOrder::for_element(e).expect("order");
            let width = e.type_length.unwrap_or(0) as usize;
            let rows = rg_start..rg_start + rg.num_rows() as usize;
            let col = batch.column(c);
            let mut acc = StatsAccumulator::new(order);
            let mut t96 = false;
            if let DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, _) = col.data_type() {
                // INT96: counted only.
                t96 = true;
                let a = col.slice(rows.start, rows.len());
                acc.add_nulls(a.null_count() as u64);
                acc.update_int96(a.len() - a.null_count());
            } else {
                accumulate(col, rows.clone(), width, &mut acc);
            }
            let mut arena = Arena::default();
            let ours = acc.to_statistics(&mut arena, None);
            let theirs = match chunk.statistics() {
                Some(s) => s,
                None => {
                    // pyarrow writes no statistics for INT96; parq writes the null count.
                    assert!(t96 && order == StatsOrder::Undefined && ours.min_value.is_none());
                    Statistics {
                        null_count: ours.null_count,
                        ..Statistics::default()
                    }
                }
            };
            let bytes = |r: Option<ByteRange>, b: &[u8]| r.map(|r| r.slice(b).to_vec());
            let tag = format!("{name} ({order:?})");
            assert_eq!(ours.null_count, theirs.null_count, "{tag}: null_count");
            for (what, o, t) in [
                ("min_value", ours.min_value, theirs.min_value),
                ("max_value", ours.max_value, theirs.max_value),
                ("legacy min", ours.min, theirs.min),
                ("legacy max", ours.max, theirs.max),
            ] {
                assert_eq!(bytes(o, arena.as_slice()), bytes(t, buf), "{tag}: {what}");
            }
            assert_eq!(
                ours.is_min_value_exact, theirs.is_min_value_exact,
                "{tag}: min exact"
            );
            assert_eq!(
                ours.is_max_value_exact, theirs.is_max_value_exact,
                "{tag}: max exact"
            );
            with_min_max += ours.min_value.is_some() as usize;

            // The column index, page by page along pyarrow's offset index.
            let oi_off = chunk.offset_index_offset().expect("offset index") as usize;
            let oi_len = chunk.offset_index_length().expect("offset index") as usize;
            let oi = OffsetIndex::decode(&mut Reader::new(&file[oi_off..oi_off + oi_len]), None)
                .expect("offset index");
            let firsts: Vec<usize> = oi
                .page_locations
                .iter()
                .map(|p| p.first_row_index as usize)
                .collect();
            let leaf = meta.schema().leaves()[c];
            let mut builder = ColumnIndexBuilder::new(order, None);
            let mut chunk_sizes = SizeStatsAccumulator::new(
                leaf.max_def_level,
                leaf.max_rep_level,
                e.physical_type == Some(PhysicalType::ByteArray),
            );
            for (i, &first) in firsts.iter().enumerate() {
                let end = firsts.get(i + 1).copied().unwrap_or(rows.len());
                let mut page = StatsAccumulator::new(order);
                let page_rows = rows.start + first..rows.start + end;
                let mut sizes =
                    SizeStatsAccumulator::new(leaf.max_def_level, leaf.max_rep_level, false);
                if t96 {
                    let a = col.slice(page_rows.start, page_rows.len());
                    page.add_nulls(a.null_count() as u64);
                    page.update_int96(a.len() - a.null_count());
                } else {
                    accumulate(col, page_rows.clone(), width, &mut page);
                }
                sizes.add_def_level_run(0, page.null_count());
                sizes.add_def_level_run(1, page.value_count());
                builder.add_page(&page, Some(&sizes));
                chunk_sizes.merge(&sizes);
            }
            let built = builder.finish();
            match (chunk.column_index_offset(), chunk.column_index_length()) {
                (Some(off), Some(len)) => {
                    let (off, len) = (off as usize, len as usize);
                    let slice = &file[off..off + len];
                    let ci =
                        ColumnIndex::decode(&mut Reader::new(slice), None).expect("column index");
                    let built = built.unwrap_or_else(|| {
                        panic!("{tag}: pyarrow wrote a column index, parq none")
                    });
                    let b = &built.index;
                    assert_eq!(b.null_pages, ci.null_pages, "{tag}: null_pages");
                    let vals = |v: &[ByteRange], s: &[u8]| {
                        v.iter().map(|r| r.slice(s).to_vec()).collect::<Vec<_>>()
                    };
                    assert_eq!(
                        vals(&b.min_values, &built.buf),
                        vals(&ci.min_values, slice),
                        "{tag}: min_values"
                    );
                    assert_eq!(
                        vals(&b.max_values, &built.buf),
                        vals(&ci.max_values, slice),
                        "{tag}: max_values"
                    );
                    assert_eq!(b.boundary_order, ci.boundary_order, "{tag}: boundary_order");
                    assert_eq!(b.null_counts, ci.null_counts, "{tag}: null_counts");
                    assert_eq!(
                        b.definition_level_histograms, ci.definition_level_histograms,
                        "{tag}: def histograms"
                    );
                    // Re-encoding gives pyarrow's bytes, but for the nan_counts of float
                    // columns, which pyarrow 26 does not write.
                    assert_eq!(
                        b.nan_counts.is_some(),
                        order.is_float(),
                        "{tag}: nan_counts"
                    );
                    assert_eq!(ci.nan_counts, None, "{tag}: pyarrow's nan_counts");
                    let mut built = built.clone();
                    built.index.nan_counts = None;
                    let mut enc = Vec::new();
                    built.encode(&mut enc);
                    assert_eq!(enc, slice, "{tag}: encoded column index");
                    indexes += 1;
                }
                _ => assert!(
                    built.is_none(),
                    "{tag}: parq builds a column index, pyarrow wrote none"
                ),
            }
            // Chunk size statistics: the definition level histogram.
            if let Some(Ok(sz)) = chunk.size_statistics(buf) {
                if leaf.max_def_level > 0 {
                    assert_eq!(
                        sz.definition_level_histogram.as_deref(),
                        Some(chunk_sizes.def_histogram()),
                        "{tag}: chunk def histogram"
                    );
                }
            }
        }
    }
    (with_min_max, indexes)
}

#[test]
fn statistics_and_column_index_match_pyarrow() {
    let dir = tmp_dir("stats");
    let main = dir.join("stats.parquet");
    let int96 = dir.join("int96.parquet");
    run_python(
        STATS_SCRIPT,
        &[main.to_str().expect("path"), int96.to_str().expect("path")],
    );
    // Every column but the all-NaN and all-null ones has min/max; every column but the
    // all-NaN one has a column index (INT96 has none).
    assert_eq!(check_against_pyarrow(&main), (23, 24));
    assert_eq!(check_against_pyarrow(&int96), (0, 0));
    std::fs::remove_dir_all(&dir).ok();
}

// ---------------------------------------------------------------------------------------
// Page index

fn int_page(values: &[i32], nulls: u64) -> StatsAccumulator {
    let mut a = StatsAccumulator::new(StatsOrder::Int32);
    a.update_i32(values);
    a.add_nulls(nulls);
    a
}

fn order_of(pages: &[StatsAccumulator]) -> BoundaryOrder {
    let mut b = ColumnIndexBuilder::new(StatsOrder::Int32, None);
    for p in pages {
        b.add_page(p, None);
    }
    b.finish().expect("index").index.boundary_order
}

#[test]
fn boundary_order() {
    let asc = [
        int_page(&[1, 5], 0),
        int_page(&[5, 9], 0),
        int_page(&[6, 20], 1),
    ];
    assert_eq!(order_of(&asc), BoundaryOrder::Ascending);
    let desc = [
        int_page(&[10, 20], 0),
        int_page(&[5, 9], 0),
        int_page(&[-3, 9], 0),
    ];
    assert_eq!(order_of(&desc), BoundaryOrder::Descending);
    let mixed = [int_page(&[1, 5], 0), int_page(&[0, 9], 0)];
    assert_eq!(order_of(&mixed), BoundaryOrder::Unordered);
    // Null pages do not take part; one page or all equal is ascending.
    let with_null = [int_page(&[9], 0), int_page(&[], 4), int_page(&[3], 0)];
    assert_eq!(order_of(&with_null), BoundaryOrder::Descending);
    assert_eq!(order_of(&[int_page(&[7], 0)]), BoundaryOrder::Ascending);
    assert_eq!(
        order_of(&[int_page(&[7], 0), int_page(&[7], 0)]),
        BoundaryOrder::Ascending
    );
    assert_eq!(
        order_of(&[int_page(&[], 3), int_page(&[], 1)]),
        BoundaryOrder::Unordered
    );
    // Unsigned order compares as unsigned.
    let mut b = ColumnIndexBuilder::new(StatsOrder::UInt32, None);
    for v in [1, -1] {
        let mut p = StatsAccumulator::new(StatsOrder::UInt32);
        p.update_i32(&[v]);
        b.add_page(&p, None);
    }
    assert_eq!(b.boundary_order(), BoundaryOrder::Ascending);
    // Truncated strings are compared as written.
    let mut b = ColumnIndexBuilder::new(StatsOrder::Utf8, Some(2));
    for v in [&b"aaaa"[..], b"aab", b"abz"] {
        let mut p = StatsAccumulator::new(StatsOrder::Utf8);
        p.update_byte_array([v]);
        b.add_page(&p, None);
    }
    let built = b.finish().expect("index");
    let mins: Vec<&[u8]> = built
        .index
        .min_values
        .iter()
        .map(|r| r.slice(&built.buf))
        .collect();
    assert_eq!(mins, [&b"aa"[..], b"aa", b"ab"]);
    assert_eq!(built.index.boundary_order, BoundaryOrder::Ascending);
}

#[test]
fn column_index_invalid_cases() {
    // A page of only NaNs has no bounds: no column index for the chunk.
    let mut b = ColumnIndexBuilder::new(StatsOrder::Double, None);
    let mut p = StatsAccumulator::new(StatsOrder::Double);
    p.update_f64(&[1.0]);
    b.add_page(&p, None);
    p.clear();
    p.update_f64(&[f64::NAN]);
    b.add_page(&p, None);
    assert!(!b.is_valid());
    assert!(b.finish().is_none());
    // INT96: none.
    let mut b = ColumnIndexBuilder::new(StatsOrder::Undefined, None);
    let mut p = StatsAccumulator::new(StatsOrder::Undefined);
    p.update_int96(2);
    b.add_page(&p, None);
    assert!(b.finish().is_none());
    // A page of another order: none. No pages: none.
    let mut b = ColumnIndexBuilder::new(StatsOrder::Int64, None);
    b.add_page(&int_page(&[1], 0), None);
    assert!(b.finish().is_none());
    assert!(ColumnIndexBuilder::new(StatsOrder::Int64, None)
        .finish()
        .is_none());
    // But a NaN page that also holds only nulls is a null page.
    let mut b = ColumnIndexBuilder::new(StatsOrder::Float, None);
    let mut p = StatsAccumulator::new(StatsOrder::Float);
    p.add_nulls(5);
    b.add_page(&p, None);
    assert_eq!(b.finish().expect("index").index.null_pages, [true]);
}

#[test]
fn page_index_round_trip() {
    let mut b = ColumnIndexBuilder::new(StatsOrder::Utf8, Some(64));
    let mut sizes = SizeStatsAccumulator::new(1, 0, true);
    let mut oi = OffsetIndexBuilder::new(true);
    let pages: [(&[&[u8]], u64); 3] = [(&[b"apple", b"banana"], 1), (&[], 3), (&[b"cherry"], 0)];
    let mut offset = 0u64;
    let mut first_row = 0u64;
    for (values, nulls) in pages {
        let mut p = StatsAccumulator::new(StatsOrder::Utf8);
        p.update_byte_array(values.iter().copied());
        p.add_nulls(nulls);
        sizes.clear();
        sizes.add_def_level_run(0, nulls);
        sizes.add_def_level_run(1, values.len() as u64);
        let bytes: u64 = values.iter().map(|v| v.len() as u64).sum();
        sizes.add_unencoded_bytes(bytes);
        b.add_page(&p, Some(&sizes));
        oi.add_page(offset, 100, first_row, Some(bytes))
            .expect("page");
        offset += 100;
        first_row += values.len() as u64 + nulls;
    }
    let built = b.finish().expect("column index");
    assert_eq!(built.index.null_pages, [false, true, false]);
    assert_eq!(built.index.null_counts, Some(vec![1, 3, 0]));
    assert_eq!(
        built.index.definition_level_histograms,
        Some(vec![1, 2, 3, 0, 0, 1])
    );
    assert_eq!(built.index.repetition_level_histograms, None);
    assert_eq!(built.index.boundary_order, BoundaryOrder::Ascending);
    let mut enc = Vec::new();
    built.encode(&mut enc);
    let dec = ColumnIndex::decode(&mut Reader::new(&enc), None).expect("decode");
    assert_eq!(dec.null_pages, built.index.null_pages);
    assert_eq!(dec.boundary_order, built.index.boundary_order);
    assert_eq!(dec.null_counts, built.index.null_counts);
    assert_eq!(
        dec.definition_level_histograms,
        built.index.definition_level_histograms
    );
    let vals =
        |v: &[ByteRange], s: &[u8]| v.iter().map(|r| r.slice(s).to_vec()).collect::<Vec<_>>();
    assert_eq!(
        vals(&dec.min_values, &enc),
        vals(&built.index.min_values, &built.buf)
    );
    assert_eq!(
        vals(&dec.max_values, &enc),
        [b"banana".to_vec(), vec![], b"cherry".to_vec()]
    );

    let offsets = oi.finish(4).expect("offset index");
    assert_eq!(
        offsets
            .page_locations
            .iter()
            .map(|p| p.offset)
            .collect::<Vec<_>>(),
        [4, 104, 204]
    );
    assert_eq!(
        offsets
            .page_locations
            .iter()
            .map(|p| p.first_row_index)
            .collect::<Vec<_>>(),
        [0, 3, 6]
    );
    assert_eq!(
        offsets.unencoded_byte_array_data_bytes,
        Some(vec![11, 0, 6])
    );

    // File level: all column indexes, then all offset indexes; locations decode.
    let mut w = PageIndexWriter::new();
    w.add_chunk(0, 0, Some(&built), Some(&offsets), None)
        .unwrap();
    let plain = {
        let mut o = OffsetIndexBuilder::new(false);
        o.add_page(0, 10, 0, None).expect("page");
        o.finish(1000).expect("offset index")
    };
    assert_eq!(plain.unencoded_byte_array_data_bytes, None);
    w.add_chunk(0, 1, None, Some(&plain), None).unwrap();
    w.add_chunk(1, 0, None, None, None).unwrap();
    let mut file = vec![0u8; 50];
    let locs = w.write(&mut file, 50).expect("write");
    assert_eq!(file.len(), 50 + w.byte_len());
    assert_eq!(locs.len(), 2);
    assert_eq!(
        (locs[0].row_group, locs[0].column, locs[1].column),
        (0, 0, 1)
    );
    let (ci_off, ci_len) = locs[0].column_index.expect("column index");
    assert_eq!(ci_off, 50);
    let ci = &file[ci_off as usize..ci_off as usize + ci_len as usize];
    assert_eq!(ci, &enc[..]);
    assert_eq!(locs[1].column_index, None);
    for (loc, want) in [(locs[0], &offsets), (locs[1], &plain)] {
        let (off, len) = loc.offset_index.expect("offset index");
        let slice = &file[off as usize..(off + len as i64) as usize];
        let got = OffsetIndex::decode(&mut Reader::new(slice), None).expect("decode");
        assert_eq!(&got, want);
    }
    let (last_off, last_len) = locs[1].offset_index.expect("offset index");
    assert_eq!(last_off as usize + last_len as usize, file.len());

    // Sizes that do not fit the index are errors.
    let mut o = OffsetIndexBuilder::new(false);
    assert!(o.add_page(0, usize::MAX, 0, None).is_err());
    assert!(o.add_page(u64::MAX, 1, 0, None).is_err());
    o.add_page(i64::MAX as u64, 1, 0, None).expect("page");
    assert!(o.finish(1).is_err());
}

// ---------------------------------------------------------------------------------------
// Properties

#[test]
fn default_properties() {
    let p = WriterProperties::default();
    assert_eq!(p.created_by(), DEFAULT_CREATED_BY);
    assert!(p.created_by().starts_with("parq version "));
    assert_eq!(p.dictionary_page_size_limit(), 1 << 20);
    assert_eq!(p.max_row_group_rows(), Some(1 << 20));
    assert_eq!(p.max_row_group_bytes(), Some(128 << 20));
    assert_eq!(
        (p.data_page_bytes(), p.data_page_rows()),
        (Some(1 << 20), Some(20_000))
    );
    assert_eq!(p.data_page_version(), DataPageVersion::V1);
    assert!(!p.page_crc());
    let s = p
        .column_settings("x", PhysicalType::Int32)
        .expect("settings");
    assert_eq!(s.codec, Codec::SNAPPY);
    assert!(s.dictionary);
    assert_eq!(s.encoding, Encoding::Plain);
    assert_eq!(s.statistics, StatisticsLevel::Page);
    assert_eq!(s.max_statistics_len, Some(64));
    assert_eq!(s.bloom_filter, None);
    // Booleans never use a dictionary by default.
    assert!(
        !p.column_settings("flag", PhysicalType::Boolean)
            .expect("settings")
            .dictionary
    );
    assert_eq!(WriterProperties::builder().build().expect("build"), p);
}

#[test]
fn encoding_validation() {
    let p = WriterProperties::builder()
        .column_encoding("price", Encoding::DeltaBinaryPacked)
        .build()
        .expect("build");
    let e = err_text(p.column_settings("price", PhysicalType::Float));
    assert!(
        e.contains("`price`") && e.contains("DELTA_BINARY_PACKED") && e.contains("FLOAT"),
        "{e}"
    );
    let s = p
        .column_settings("price", PhysicalType::Int64)
        .expect("settings");
    assert_eq!(
        (s.encoding, s.dictionary),
        (Encoding::DeltaBinaryPacked, false)
    );

    for (enc, ok, bad) in [
        (Encoding::Rle, PhysicalType::Boolean, PhysicalType::Int32),
        (
            Encoding::DeltaLengthByteArray,
            PhysicalType::ByteArray,
            PhysicalType::FixedLenByteArray,
        ),
        (
            Encoding::DeltaByteArray,
            PhysicalType::FixedLenByteArray,
            PhysicalType::Int32,
        ),
        (
            Encoding::ByteStreamSplit,
            PhysicalType::Int32,
            PhysicalType::ByteArray,
        ),
        (
            Encoding::ByteStreamSplit,
            PhysicalType::FixedLenByteArray,
            PhysicalType::Boolean,
        ),
        (
            Encoding::Plain,
            PhysicalType::Int96,
            PhysicalType::Unknown(9),
        ),
        (
            Encoding::RleDictionary,
            PhysicalType::Double,
            PhysicalType::Boolean,
        ),
    ] {
        assert!(check_encoding("c", enc, ok).is_ok(), "{enc} {ok}");
        assert!(check_encoding("c", enc, bad).is_err(), "{enc} {bad}");
    }
    assert!(check_encoding("c", Encoding::BitPacked, PhysicalType::Int32).is_err());
    assert!(check_encoding("c", Encoding::PlainDictionary, PhysicalType::Int32).is_err());

    // Dictionary on a BOOLEAN column, asked for that column: an error.
    let p = WriterProperties::builder()
        .column_dictionary("flag", true)
        .build()
        .expect("build");
    let e = err_text(p.column_settings("flag", PhysicalType::Boolean));
    assert!(e.contains("`flag`") && e.contains("BOOLEAN"), "{e}");
    let p = WriterProperties::builder()
        .column_encoding("flag", Encoding::RleDictionary)
        .build()
        .expect("build");
    assert!(p.column_settings("flag", PhysicalType::Boolean).is_err());
    // File-wide dictionary simply does not apply to booleans.
    let p = WriterProperties::builder()
        .dictionary(true)
        .build()
        .expect("build");
    assert!(
        !p.column_settings("flag", PhysicalType::Boolean)
            .expect("settings")
            .dictionary
    );

    // An explicit encoding is the fallback when the dictionary is explicitly on.
    let p = WriterProperties::builder()
        .column_encoding("s", Encoding::DeltaByteArray)
        .column_dictionary("s", true)
        .encoding(Encoding::ByteStreamSplit)
        .build()
        .expect("build");
    let s = p
        .column_settings("s", PhysicalType::ByteArray)
        .expect("settings");
    assert_eq!((s.dictionary, s.encoding), (true, Encoding::DeltaByteArray));
    let s = p
        .column_settings("f", PhysicalType::Float)
        .expect("settings");
    assert_eq!(
        (s.dictionary, s.encoding),
        (false, Encoding::ByteStreamSplit)
    );
    assert!(p.column_settings("t", PhysicalType::ByteArray).is_err());
    // RLE_DICTIONARY: dictionary with the PLAIN fallback; contradicting settings: an error.
    let p = WriterProperties::builder()
        .encoding(Encoding::RleDictionary)
        .dictionary(false)
        .build()
        .expect("build");
    assert!(p.column_settings("x", PhysicalType::Int32).is_err());
    let p = WriterProperties::builder()
        .dictionary(false)
        .column_encoding("x", Encoding::RleDictionary)
        .column_dictionary("x", true)
        .build()
        .expect("build");
    let s = p
        .column_settings("x", PhysicalType::Int32)
        .expect("settings");
    assert_eq!((s.dictionary, s.encoding), (true, Encoding::Plain));
    assert!(
        !p.column_settings("y", PhysicalType::Int32)
            .expect("settings")
            .dictionary
    );
}

#[test]
fn per_column_settings_and_schema_validation() {
    let p = WriterProperties::builder()
        .compression(Codec::parse("zstd:3").expect("codec"))
        .column_compression("a", Codec::UNCOMPRESSED)
        .statistics(StatisticsLevel::Chunk)
        .column_statistics("c", StatisticsLevel::None)
        .column_max_statistics_len("c", None)
        .bloom_filter(Some(BloomFilterProperties::default()))
        .column_bloom_filter("a", None)
        .column_bloom_filter("c", Some(BloomFilterProperties { ndv: 10, fpp: 0.2 }))
        .sorting_columns(vec![SortingColumn {
            column_idx: 1,
            descending: true,
            nulls_first: false,
        }])
        .key_value("k", Some("v1".into()))
        .key_value("other", None)
        .key_value("k", Some("v2".into()))
        .created_by("me")
        .build()
        .expect("build");
    let sch = schema(&[("a", PhysicalType::Int64), ("c", PhysicalType::ByteArray)]);
    let all = p.resolve(&sch).expect("resolve");
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].codec, Codec::UNCOMPRESSED);
    assert_eq!(all[0].statistics, StatisticsLevel::Chunk);
    assert_eq!(all[0].bloom_filter, None);
    assert_eq!(all[1].codec.compression(), Compression::Zstd);
    assert_eq!(all[1].codec.level(), Some(3));
    assert_eq!(all[1].statistics, StatisticsLevel::None);
    assert_eq!(all[1].max_statistics_len, None);
    assert_eq!(
        all[1].bloom_filter,
        Some(BloomFilterProperties { ndv: 10, fpp: 0.2 })
    );
    assert_eq!(
        p.key_value_metadata(),
        [
            ("k".to_string(), Some("v2".to_string())),
            ("other".to_string(), None)
        ]
    );
    assert_eq!(p.created_by(), "me");
    assert_eq!(p.sorting_columns().len(), 1);
    assert_eq!(p.configured_columns().collect::<Vec<_>>(), ["a", "c"]);

    // Unknown columns, impossible encodings and bad sorting columns fail before writing.
    let p = WriterProperties::builder()
        .column_encoding("nope", Encoding::Plain)
        .build()
        .expect("build");
    let e = err_text(p.resolve(&sch));
    assert!(e.contains("`nope`") && e.contains("no such column"), "{e}");
    let p = WriterProperties::builder()
        .column_encoding("c", Encoding::DeltaBinaryPacked)
        .build()
        .expect("build");
    let e = err_text(p.resolve(&sch));
    assert!(e.contains("`c`") && e.contains("BYTE_ARRAY"), "{e}");
    let p = WriterProperties::builder()
        .sorting_columns(vec![SortingColumn {
            column_idx: 2,
            descending: false,
            nulls_first: false,
        }])
        .build()
        .expect("build");
    assert!(err_text(p.resolve(&sch)).contains("sorting column"));
}

#[test]
fn build_errors() {
    let b = WriterProperties::builder;
    let cases = [
        (
            b().data_page_bytes(None).data_page_rows(None).build(),
            "data page",
        ),
        (
            b().max_row_group_rows(None)
                .max_row_group_bytes(None)
                .build(),
            "row group",
        ),
        (b().max_row_group_rows(Some(0)).build(), "at least 1"),
        (b().data_page_bytes(Some(0)).build(), "at least 1"),
        (b().dictionary_page_size_limit(0).build(), "at least 1"),
        (
            b().threads(0).build(),
            "the number of threads must be at least 1",
        ),
        (b().max_statistics_len(Some(0)).build(), "statistics length"),
        (
            b().column_bloom_filter("x", Some(BloomFilterProperties { ndv: 1, fpp: 1.5 }))
                .build(),
            "`x`",
        ),
        (
            b().bloom_filter(Some(BloomFilterProperties { ndv: 0, fpp: 0.1 }))
                .build(),
            "NDV",
        ),
        (
            b().column_bloom_filter(
                "y",
                Some(BloomFilterProperties {
                    ndv: 5,
                    fpp: f64::NAN,
                }),
            )
            .build(),
            "FPP",
        ),
        (
            b().column_encoding("z", Encoding::BitPacked).build(),
            "BIT_PACKED",
        ),
    ];
    for (r, needle) in cases {
        let e = err_text(r);
        assert!(e.contains(needle), "{e:?} should mention {needle:?}");
    }
    // Only one limit of each is fine.
    b().data_page_bytes(None)
        .max_row_group_bytes(None)
        .build()
        .expect("build");
}

#[test]
fn cli_names() {
    for (s, c, l) in [
        ("snappy", Compression::Snappy, None),
        ("SNAPPY", Compression::Snappy, None),
        ("Uncompressed", Compression::Uncompressed, None),
        ("none", Compression::Uncompressed, None),
        ("gzip", Compression::Gzip, None),
        ("gzip:9", Compression::Gzip, Some(9)),
        ("GZIP:0", Compression::Gzip, Some(0)),
        ("lz4_raw", Compression::Lz4Raw, None),
        ("zstd", Compression::Zstd, None),
        ("zstd:22", Compression::Zstd, Some(22)),
        ("Brotli:11", Compression::Brotli, Some(11)),
    ] {
        let codec: Codec = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!((codec.compression(), codec.level()), (c, l), "{s}");
        assert_eq!(Codec::parse(&codec.to_string()).expect("round trip"), codec);
    }
    assert_eq!(Codec::ZSTD.effective_level(), Some(1));
    assert_eq!(Codec::GZIP.effective_level(), Some(6));
    assert_eq!(Codec::BROTLI.effective_level(), Some(8));
    assert_eq!(Codec::SNAPPY.effective_level(), None);
    for s in [
        "snappy:1",
        "lz4_raw:3",
        "zstd:23",
        "gzip:10",
        "brotli:12",
        "zstd:x",
        "lzo",
        "lz4",
        "foo",
        "",
    ] {
        assert!(Codec::parse(s).is_err(), "{s} should be rejected");
    }
    assert!(err_text(Codec::parse("lz4")).contains("LZ4_RAW"));
    assert!(Codec::new(Compression::Unknown(42), None).is_err());

    for (s, e) in [
        ("plain", Encoding::Plain),
        ("RLE_DICTIONARY", Encoding::RleDictionary),
        ("delta_binary_packed", Encoding::DeltaBinaryPacked),
        ("Delta_Length_Byte_Array", Encoding::DeltaLengthByteArray),
        ("DELTA_BYTE_ARRAY", Encoding::DeltaByteArray),
        ("byte_stream_split", Encoding::ByteStreamSplit),
        ("rle", Encoding::Rle),
    ] {
        assert_eq!(parse_encoding(s).expect(s), e);
    }
    for s in ["plain_dictionary", "bit_packed", "nope", ""] {
        assert!(parse_encoding(s).is_err(), "{s}");
    }
    assert_eq!(
        parse_encoding_arg("a.b=delta_binary_packed").expect("arg"),
        (Some("a.b".to_string()), Encoding::DeltaBinaryPacked)
    );
    assert_eq!(
        parse_encoding_arg("PLAIN").expect("arg"),
        (None, Encoding::Plain)
    );
    assert!(parse_encoding_arg("=PLAIN").is_err());
    assert!(parse_encoding_arg("x=").is_err());

    for (s, l) in [
        ("none", StatisticsLevel::None),
        ("CHUNK", StatisticsLevel::Chunk),
        ("Page", StatisticsLevel::Page),
    ] {
        assert_eq!(s.parse::<StatisticsLevel>().expect(s), l);
        assert_eq!(StatisticsLevel::parse(l.name()).expect("name"), l);
    }
    assert!(StatisticsLevel::parse("rows").is_err());
    for (s, v) in [
        ("1", DataPageVersion::V1),
        ("2.0", DataPageVersion::V2),
        ("2", DataPageVersion::V2),
    ] {
        assert_eq!(s.parse::<DataPageVersion>().expect(s), v);
    }
    assert!(DataPageVersion::parse("3").is_err());
}

/// The lane kernels of the integer and float statistics agree with a plain fold over every
/// length around the lane width, with the extremes anywhere (incl. NaNs and infinities).
#[test]
fn min_max_kernels_match_reference() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for len in 1..40 {
        for _ in 0..20 {
            let v: Vec<u64> = (0..len).map(|_| rng.next()).collect();
            let i32s: Vec<i32> = v.iter().map(|&r| r as i32).collect();
            let i64s: Vec<i64> = v.iter().map(|&r| r as i64).collect();
            let mut doubles: Vec<f64> = v.iter().map(|&r| (r as i64 as f64) / 7.0).collect();
            doubles[(v[0] % len as u64) as usize] = f64::NAN;
            if len > 3 {
                doubles[(v[1] % len as u64) as usize] = f64::NEG_INFINITY;
            }
            let floats: Vec<f32> = doubles.iter().map(|&d| d as f32).collect();
            let u32s: Vec<u32> = i32s.iter().map(|&x| x as u32).collect();
            let u64s: Vec<u64> = i64s.iter().map(|&x| x as u64).collect();
            assert_eq!(
                bounds(StatsOrder::Int32, None, |a| a.update_i32(&i32s)),
                int_bounds(&i32s, |x| x.to_le_bytes().to_vec())
            );
            assert_eq!(
                bounds(StatsOrder::UInt32, None, |a| a.update_i32(&i32s)),
                int_bounds(&u32s, |x| x.to_le_bytes().to_vec())
            );
            assert_eq!(
                bounds(StatsOrder::Int64, None, |a| a.update_i64(&i64s)),
                int_bounds(&i64s, |x| x.to_le_bytes().to_vec())
            );
            assert_eq!(
                bounds(StatsOrder::UInt64, None, |a| a.update_i64(&i64s)),
                int_bounds(&u64s, |x| x.to_le_bytes().to_vec())
            );
            let finite = || doubles.iter().copied().filter(|d| !d.is_nan());
            if finite().count() > 0 {
                let lo = finite().fold(f64::INFINITY, f64::min);
                let hi = finite().fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(
                    bounds(StatsOrder::Double, None, |a| a.update_f64(&doubles)),
                    f64s(lo, hi),
                    "{doubles:?}"
                );
                let (lo, hi) = (lo as f32, hi as f32);
                assert_eq!(
                    bounds(StatsOrder::Float, None, |a| a.update_f32(&floats)),
                    f32s(lo, hi)
                );
            }
        }
    }
}
