//! Split block Bloom filters (the spec's SBBF) and the XXH64 hash they use.
//!
//! A filter is a power-of-two number of bytes between [`MIN_BLOOM_FILTER_BYTES`] (32) and
//! [`MAX_BLOOM_FILTER_BYTES`] (128 MiB), seen as 32-byte blocks of eight little-endian `u32`
//! words. A value is hashed with XXH64 (seed 0) over its PLAIN encoding (BYTE_ARRAY: the
//! bytes without their length prefix); the top 32 bits of the hash pick a block
//! (`(hash >> 32) * blocks >> 32`) and the low 32 bits, multiplied by the spec's eight salts,
//! set one bit in each word (the top 5 bits of each product). Sizing follows the spec: for
//! `ndv` distinct values and false positive probability `fpp`,
//! `bits = -8 * ndv / ln(1 - fpp^(1/8))`, rounded up to a power of two and clamped — the same
//! computation as parquet-cpp, so that parq's and pyarrow's filters over the same values
//! have the same size and bits. pyarrow sizes a chunk's filter for `min(ndv, rows written)`;
//! a streaming writer does not know the chunk's rows in advance, so it sizes for the row
//! group's row limit and [`Sbbf::fold_to`]s the filter to the chunk's actual rows at the end,
//! which gives exactly the filter built at that size. (pyarrow 26 can also fold further by
//! fill ratio, `fold=True`; parq does not do that yet.) Serialized, a filter is a
//! `BloomFilterHeader` (split block,
//! XXHASH, uncompressed; parq-format's encoder) followed by the bitset.

use crate::format::crypto::{ColumnDecryptor, ColumnEncryptor, ModuleType};
use crate::format::metadata::{
    BloomFilterAlgorithm, BloomFilterCompression, BloomFilterHash, BloomFilterHeader, UnknownFields,
};
use crate::format::thrift::{Reader, Writer};
use crate::{Error, ErrorKind, Result};

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

#[inline(always)]
fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

#[inline(always)]
fn merge_round(acc: u64, val: u64) -> u64 {
    (acc ^ round(0, val)).wrapping_mul(P1).wrapping_add(P4)
}

#[inline(always)]
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[inline(always)]
fn read_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

#[inline(always)]
fn read_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_le_bytes(a)
}

/// The 64-bit xxHash (XXH64) of `data` with `seed`.
pub fn xxh64(data: &[u8], seed: u64) -> u64 {
    let len = data.len() as u64;
    let mut rest = data;
    let mut h = if data.len() >= 32 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        let mut stripes = data.chunks_exact(32);
        for s in &mut stripes {
            for (i, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, read_u64(&s[i * 8..]));
            }
        }
        rest = stripes.remainder();
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for acc in v {
            h = merge_round(h, acc);
        }
        h
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(len);
    let mut words = rest.chunks_exact(8);
    for w in &mut words {
        h ^= round(0, read_u64(w));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
    }
    rest = words.remainder();
    if rest.len() >= 4 {
        h ^= u64::from(read_u32(rest)).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for &b in rest {
        h ^= u64::from(b).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    avalanche(h)
}

/// XXH64 (seed 0) of a 4-byte PLAIN value (INT32, FLOAT): `xxh64(&v.to_le_bytes(), 0)`.
#[inline]
pub fn hash_u32(v: u32) -> u64 {
    let h = P5.wrapping_add(4) ^ u64::from(v).wrapping_mul(P1);
    avalanche(h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3))
}

/// XXH64 (seed 0) of an 8-byte PLAIN value (INT64, DOUBLE): `xxh64(&v.to_le_bytes(), 0)`.
#[inline]
pub fn hash_u64(v: u64) -> u64 {
    let h = P5.wrapping_add(8) ^ round(0, v);
    avalanche(h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4))
}

/// The Bloom filter hash of an INT32 value.
#[inline]
pub fn hash_i32(v: i32) -> u64 {
    hash_u32(v as u32)
}

/// The Bloom filter hash of an INT64 value.
#[inline]
pub fn hash_i64(v: i64) -> u64 {
    hash_u64(v as u64)
}

/// The Bloom filter hash of a FLOAT value (its bits, as PLAIN encodes them).
#[inline]
pub fn hash_f32(v: f32) -> u64 {
    hash_u32(v.to_bits())
}

/// The Bloom filter hash of a DOUBLE value.
#[inline]
pub fn hash_f64(v: f64) -> u64 {
    hash_u64(v.to_bits())
}

/// The Bloom filter hash of a BYTE_ARRAY (without length prefix), FIXED_LEN_BYTE_ARRAY or
/// INT96 value.
#[inline]
pub fn hash_bytes(v: &[u8]) -> u64 {
    xxh64(v, 0)
}

/// The spec's salts: one odd constant per word of a block.
pub const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Smallest filter: one block.
pub const MIN_BLOOM_FILTER_BYTES: usize = 32;
/// Largest filter (as parquet-cpp).
pub const MAX_BLOOM_FILTER_BYTES: usize = 128 * 1024 * 1024;
const BLOCK_BYTES: usize = 32;

/// A split block Bloom filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sbbf {
    blocks: Vec<[u32; 8]>,
}

#[inline(always)]
fn mask(key: u32) -> [u32; 8] {
    let mut m = [0u32; 8];
    for (w, s) in m.iter_mut().zip(SALT) {
        *w = 1 << (key.wrapping_mul(s) >> 27);
    }
    m
}

impl Sbbf {
    /// The filter size in bytes for `ndv` distinct values at false positive probability
    /// `fpp` (the spec's formula, rounded up to a power of two, clamped to
    /// [`MIN_BLOOM_FILTER_BYTES`]..=[`MAX_BLOOM_FILTER_BYTES`]). An `fpp` outside (0, 1) is
    /// treated as the nearest bound (largest filter for <= 0, smallest for >= 1).
    pub fn optimal_num_bytes(ndv: u64, fpp: f64) -> usize {
        let max_bits = (MAX_BLOOM_FILTER_BYTES * 8) as u64;
        let min_bits = (MIN_BLOOM_FILTER_BYTES * 8) as u64;
        let m = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
        let bits = if m.is_nan() || m < 0.0 || m > max_bits as f64 {
            // fpp >= 1 gives ln(0) = -inf, so m = +0 or NaN: the smallest filter.
            if fpp >= 1.0 || ndv == 0 {
                min_bits
            } else {
                max_bits
            }
        } else {
            m as u64
        };
        let bits = bits.max(min_bits).next_power_of_two().min(max_bits);
        (bits / 8) as usize
    }

    /// An empty filter of `num_bytes`, rounded up to a power of two and clamped to the
    /// allowed sizes.
    pub fn new(num_bytes: usize) -> Sbbf {
        let bytes = num_bytes
            .clamp(MIN_BLOOM_FILTER_BYTES, MAX_BLOOM_FILTER_BYTES)
            .next_power_of_two();
        Sbbf {
            blocks: vec![[0; 8]; bytes / BLOCK_BYTES],
        }
    }

    /// An empty filter sized for `ndv` distinct values at `fpp`.
    pub fn with_ndv_fpp(ndv: u64, fpp: f64) -> Sbbf {
        Sbbf::new(Sbbf::optimal_num_bytes(ndv, fpp))
    }

    /// A filter over a bitset read from a file (little-endian words); its length must be a
    /// non-zero multiple of 32 bytes.
    pub fn from_bitset(bitset: &[u8]) -> Result<Sbbf> {
        if bitset.is_empty() || !bitset.len().is_multiple_of(BLOCK_BYTES) {
            return Err(Error::new(ErrorKind::InvalidValue {
                what: "Bloom filter bitset bytes (a non-zero multiple of 32)",
                value: i64::try_from(bitset.len()).unwrap_or(i64::MAX),
            }));
        }
        let blocks = bitset
            .chunks_exact(BLOCK_BYTES)
            .map(|b| {
                let mut block = [0u32; 8];
                for (w, c) in block.iter_mut().zip(b.chunks_exact(4)) {
                    *w = read_u32(c);
                }
                block
            })
            .collect();
        Ok(Sbbf { blocks })
    }

    /// Reads a serialized filter (header and bitset) at the start of `buf`; returns it and
    /// the bytes it took. Errors for a malformed header, an algorithm, hash or compression
    /// other than the spec's, or a bitset that `buf` does not hold.
    pub fn read(buf: &[u8]) -> Result<(Sbbf, usize)> {
        let mut r = Reader::new(buf);
        let header = BloomFilterHeader::decode(&mut r, None)?;
        if !header.is_supported() {
            return Err(Error::new(ErrorKind::Unsupported(
                "a Bloom filter that is not split block / XXHASH / uncompressed".into(),
            )));
        }
        let start = r.pos();
        // A negative size (file bytes) is refused, not cast to a huge one.
        let len = usize::try_from(header.num_bytes).map_err(|_| {
            Error::new(ErrorKind::InvalidValue {
                what: "numBytes",
                value: i64::from(header.num_bytes),
            })
            .in_struct("BloomFilterHeader")
        })?;
        let bitset = start
            .checked_add(len)
            .and_then(|end| buf.get(start..end))
            .ok_or_else(|| {
                Error::new(ErrorKind::Truncated {
                    needed: len as u64,
                    remaining: buf.len().saturating_sub(start) as u64,
                })
            })?;
        Ok((Sbbf::from_bitset(bitset)?, start + len))
    }

    /// Reads an encrypted filter at the start of `buf`: its header module, then its bitset
    /// module, each decrypted (and authenticated) with `decryptor`, the chunk's.
    pub fn read_encrypted(buf: &[u8], decryptor: &ColumnDecryptor) -> Result<(Sbbf, usize)> {
        let module = |at: usize| -> Result<&[u8]> {
            let len = buf
                .get(at..)
                .and_then(|b| b.first_chunk::<4>())
                .map(|l| u32::from_le_bytes(*l) as usize);
            len.and_then(|l| buf.get(at..at.checked_add(4)?.checked_add(l)?))
                .ok_or_else(|| {
                    Error::new(ErrorKind::Truncated {
                        needed: len.unwrap_or(4) as u64,
                        remaining: buf.len().saturating_sub(at) as u64,
                    })
                    .in_struct("BloomFilter module")
                })
        };
        let header_module = module(0)?;
        let mut plain = Vec::new();
        decryptor.decrypt(ModuleType::BloomFilterHeader, 0, header_module, &mut plain)?;
        let mut r = Reader::new(&plain);
        let header = BloomFilterHeader::decode(&mut r, None)?;
        if !header.is_supported() {
            return Err(Error::new(ErrorKind::Unsupported(
                "a Bloom filter that is not split block / XXHASH / uncompressed".into(),
            )));
        }
        let bitset_module = module(header_module.len())?;
        let mut bitset = Vec::new();
        decryptor.decrypt(ModuleType::BloomFilterBitset, 0, bitset_module, &mut bitset)?;
        if i64::try_from(bitset.len()).ok() != Some(i64::from(header.num_bytes)) {
            return Err(Error::new(ErrorKind::Inconsistent(format!(
                "a Bloom filter bitset of {} bytes, its header says {}",
                bitset.len(),
                header.num_bytes
            ))));
        }
        Ok((
            Sbbf::from_bitset(&bitset)?,
            header_module.len() + bitset_module.len(),
        ))
    }

    /// Size of the bitset in bytes.
    pub fn num_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
    }

    #[inline(always)]
    fn block_index(&self, hash: u64) -> usize {
        (((hash >> 32) * self.blocks.len() as u64) >> 32) as usize
    }

    /// Inserts a value by its hash.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        let i = self.block_index(hash);
        let m = mask(hash as u32);
        if let Some(block) = self.blocks.get_mut(i) {
            for (w, b) in block.iter_mut().zip(m) {
                *w |= b;
            }
        }
    }

    /// True if a value with this hash may have been inserted (false: certainly not).
    #[inline]
    pub fn check_hash(&self, hash: u64) -> bool {
        let i = self.block_index(hash);
        let m = mask(hash as u32);
        self.blocks
            .get(i)
            .is_some_and(|block| block.iter().zip(m).all(|(w, b)| w & b != 0))
    }

    /// Inserts a BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY / INT96 value.
    pub fn insert_bytes(&mut self, v: &[u8]) {
        self.insert_hash(hash_bytes(v));
    }

    /// True if a byte value may have been inserted.
    pub fn check_bytes(&self, v: &[u8]) -> bool {
        self.check_hash(hash_bytes(v))
    }

    /// The `BloomFilterHeader` of this filter.
    pub fn header(&self) -> BloomFilterHeader {
        BloomFilterHeader {
            // At most 128 MiB.
            num_bytes: self.num_bytes() as i32,
            algorithm: BloomFilterAlgorithm::SplitBlock,
            hash: BloomFilterHash::XxHash,
            compression: BloomFilterCompression::Uncompressed,
            unknown: UnknownFields::default(),
        }
    }

    /// Appends the bitset (little-endian words) to `out`.
    pub fn write_bitset(&self, out: &mut Vec<u8>) {
        out.reserve(self.num_bytes());
        for block in &self.blocks {
            for w in block {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
    }

    /// Appends the serialized filter, header then bitset, to `out`; returns the bytes
    /// written (the column chunk's `bloom_filter_length`).
    pub fn write(&self, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        self.header().encode(&mut Writer::new(out), &[]);
        self.write_bitset(out);
        out.len() - start
    }

    /// Serializes the filter as an encrypted chunk's: its header module, then its bitset
    /// module, both AES-GCM with `encryptor`; returns the bytes written.
    pub fn write_encrypted(&self, out: &mut Vec<u8>, encryptor: &ColumnEncryptor) -> Result<usize> {
        let start = out.len();
        let mut plain = Vec::new();
        self.header().encode(&mut Writer::new(&mut plain), &[]);
        encryptor.encrypt(ModuleType::BloomFilterHeader, 0, &plain, out)?;
        plain.clear();
        self.write_bitset(&mut plain);
        encryptor.encrypt(ModuleType::BloomFilterBitset, 0, &plain, out)?;
        Ok(out.len() - start)
    }

    /// Folds the filter down to `num_bytes` (rounded up to a power of two, at least 32) by
    /// OR-ing pairs of adjacent blocks, as many times as needed; a larger size leaves it
    /// unchanged. The result is bit-identical to a filter of that size built from the same
    /// values, because the block of a hash among `n / 2` blocks is its block among `n`,
    /// halved. The column writer sizes a filter for the row group's row limit and folds it
    /// at the chunk's end to its distinct values (its dictionary's entries) or, without a
    /// dictionary, its values, as pyarrow sizes for the distinct values it saw.
    pub fn fold_to(&mut self, num_bytes: usize) {
        let target = num_bytes
            .clamp(MIN_BLOOM_FILTER_BYTES, MAX_BLOOM_FILTER_BYTES)
            .next_power_of_two()
            / BLOCK_BYTES;
        while self.blocks.len() > target && self.blocks.len().is_multiple_of(2) {
            let half = self.blocks.len() / 2;
            for i in 0..half {
                let (a, b) = (self.blocks[2 * i], self.blocks[2 * i + 1]);
                let mut merged = [0u32; 8];
                for (m, (x, y)) in merged.iter_mut().zip(a.iter().zip(b)) {
                    *m = x | y;
                }
                self.blocks[i] = merged;
            }
            self.blocks.truncate(half);
        }
    }

    /// The fraction of bits set (an estimate of the filter's load).
    pub fn fill_ratio(&self) -> f64 {
        let set: u64 = self
            .blocks
            .iter()
            .flatten()
            .map(|w| u64::from(w.count_ones()))
            .sum();
        set as f64 / (self.num_bytes() * 8) as f64
    }
}
