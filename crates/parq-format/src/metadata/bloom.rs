//! `BloomFilterHeader`, the header in front of a column chunk's Bloom filter bitset, and its
//! three unions (algorithm, hash, compression). Union variants this version does not know are
//! kept raw, never an error, so that a reader can decline the filter and a writer can copy it.
//!
//! Also the union helpers shared with `crypto`: a union decodes to a known variant only if it
//! holds exactly that one field; anything else is kept whole, as the raw bytes of the union
//! structure, so that re-encoding writes it back unchanged.

use super::page_header::{first_missing, read_non_negative_i32};
use super::{keep_raw, missing, Arena, ByteRange, StructWriter, UnknownFields};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// Reads the end of a union after its one known variant: true if the union ends there (its
/// STOP is consumed), false if another field follows (the union must then be kept raw).
pub(super) fn union_ends(r: &mut Reader<'_>, name: &'static str, id: &mut i16) -> Result<bool> {
    match r.read_field_header(id) {
        Ok(v) => Ok(v.is_none()),
        Err(e) => Err(e.in_struct(name)),
    }
}

/// Keeps the whole union structure that starts at `start` raw, from its first field header
/// through its STOP (re-reading it from `start`).
pub(super) fn keep_union(
    r: &mut Reader<'_>,
    arena: &mut Option<&mut Arena>,
    start: usize,
    name: &'static str,
) -> Result<ByteRange> {
    r.set_pos(start);
    keep_raw(r, arena, wire::STRUCT).map_err(|e| e.in_struct(name))
}

/// Reads an empty structure (a variant without content): true if it is empty; false if it
/// has a field (the caller then keeps the union raw).
pub(super) fn read_empty_struct(r: &mut Reader<'_>) -> Result<bool> {
    r.enter()?;
    let mut id = 0i16;
    let empty = r.read_field_header(&mut id)?.is_none();
    r.leave();
    Ok(empty)
}

/// Decodes a union whose one known variant is field 1, an empty structure. Returns `None`
/// for that variant, else the first field id and the raw union.
fn decode_unit_union(
    r: &mut Reader<'_>,
    mut arena: Option<&mut Arena>,
    name: &'static str,
) -> Result<Option<(i16, ByteRange)>> {
    let start = r.pos();
    r.enter()?;
    let mut id = 0i16;
    let ty = match r.read_field_header(&mut id) {
        Ok(Some(ty)) => ty,
        Ok(None) => return Err(missing(r, name, "<union variant>")),
        Err(e) => return Err(e.in_struct(name)),
    };
    let first = id;
    if (id, ty) == (1, wire::STRUCT)
        && read_empty_struct(r).map_err(|e| e.in_field(name, 1))?
        && union_ends(r, name, &mut id)?
    {
        r.leave();
        return Ok(None);
    }
    r.leave();
    let raw = keep_union(r, &mut arena, start, name)?;
    Ok(Some((first, raw)))
}

/// Encodes a union whose one known variant is field 1, an empty structure: that variant for
/// `None`, else the raw union inside `buf`.
fn encode_unit_union(w: &mut Writer<'_>, raw: Option<ByteRange>, buf: &[u8]) {
    match raw {
        None => {
            let mut last = 0i16;
            w.write_field_header(wire::STRUCT, 1, &mut last);
            w.write_stop();
            w.write_stop();
        }
        Some(raw) => w.write_raw(raw.slice(buf)),
    }
}

macro_rules! unit_union {
    ($(#[$doc:meta])* $name:ident, $(#[$vdoc:meta])* $variant:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $(#[$vdoc])*
            $variant,
            /// A variant this version does not know (or a known one with content it does not
            /// know, or more than one field): `field_id` is the union's first field id and
            /// `raw` the whole union structure, from its first field header through its STOP.
            Unknown {
                /// The id of the union's first field.
                field_id: i16,
                /// The raw union structure.
                raw: ByteRange,
            },
        }

        impl $name {
            const NAME: &'static str = stringify!($name);

            /// Decodes the union. Raw bytes of unknown variants are copied into `arena` when
            /// given, else kept as a range of `r`'s buffer.
            pub fn decode(r: &mut Reader<'_>, arena: Option<&mut Arena>) -> Result<Self> {
                Ok(match decode_unit_union(r, arena, Self::NAME)? {
                    None => $name::$variant,
                    Some((field_id, raw)) => $name::Unknown { field_id, raw },
                })
            }

            /// Encodes the union; raw bytes refer to `buf`.
            pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
                match *self {
                    $name::$variant => encode_unit_union(w, None, buf),
                    $name::Unknown { raw, .. } => encode_unit_union(w, Some(raw), buf),
                }
            }
        }
    };
}

unit_union! {
    /// `BloomFilterAlgorithm`: how bits are set.
    ///
    /// ```thrift
    /// struct SplitBlockAlgorithm {}
    /// union BloomFilterAlgorithm {
    ///   1: SplitBlockAlgorithm BLOCK;
    /// }
    /// ```
    BloomFilterAlgorithm,
    /// `BLOCK`: the split block Bloom filter.
    SplitBlock
}

unit_union! {
    /// `BloomFilterHash`: the hash of plain-encoded values.
    ///
    /// ```thrift
    /// struct XxHash {}
    /// union BloomFilterHash {
    ///   1: XxHash XXHASH;
    /// }
    /// ```
    BloomFilterHash,
    /// `XXHASH`: 64-bit xxHash with seed 0.
    XxHash
}

unit_union! {
    /// `BloomFilterCompression`: the compression of the bitset.
    ///
    /// ```thrift
    /// struct Uncompressed {}
    /// union BloomFilterCompression {
    ///   1: Uncompressed UNCOMPRESSED;
    /// }
    /// ```
    BloomFilterCompression,
    /// `UNCOMPRESSED`: the bitset is stored as is.
    Uncompressed
}

/// `BloomFilterHeader`, stored at the start of a column chunk's Bloom filter data and followed
/// by its bitset of `num_bytes` bytes.
///
/// ```thrift
/// struct BloomFilterHeader {
///   1: required i32 numBytes;
///   2: required BloomFilterAlgorithm algorithm;
///   3: required BloomFilterHash hash;
///   4: required BloomFilterCompression compression;
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilterHeader {
    /// Field 1, `numBytes`: the size of the bitset in bytes; never negative.
    pub num_bytes: i32,
    /// Field 2, `algorithm`.
    pub algorithm: BloomFilterAlgorithm,
    /// Field 3, `hash`.
    pub hash: BloomFilterHash,
    /// Field 4, `compression`.
    pub compression: BloomFilterCompression,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl BloomFilterHeader {
    const NAME: &'static str = "BloomFilterHeader";

    /// True if the filter uses the split block algorithm, xxHash and no compression: the only
    /// combination parquet.thrift defines, and the one readers can evaluate.
    pub fn is_supported(&self) -> bool {
        self.algorithm == BloomFilterAlgorithm::SplitBlock
            && self.hash == BloomFilterHash::XxHash
            && self.compression == BloomFilterCompression::Uncompressed
    }

    /// Decodes a `BloomFilterHeader`. Raw bytes (unknown variants and fields) are copied into
    /// `arena` when given, else kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut num_bytes = 0;
        let mut algorithm = None;
        let mut hash = None;
        let mut compression = None;
        let mut unknown = UnknownFields::default();
        let mut seen = 0u32;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I32) => read_non_negative_i32(r, "numBytes").map(|v| {
                num_bytes = v;
                seen |= 1;
            }),
            (2, wire::STRUCT) => {
                BloomFilterAlgorithm::decode(r, arena.as_deref_mut()).map(|v| algorithm = Some(v))
            }
            (3, wire::STRUCT) => {
                BloomFilterHash::decode(r, arena.as_deref_mut()).map(|v| hash = Some(v))
            }
            (4, wire::STRUCT) => BloomFilterCompression::decode(r, arena.as_deref_mut())
                .map(|v| compression = Some(v)),
            _ => unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        seen |= (algorithm.is_some() as u32) << 1
            | (hash.is_some() as u32) << 2
            | (compression.is_some() as u32) << 3;
        let (1, Some(algorithm), Some(hash), Some(compression)) =
            (seen & 1, algorithm, hash, compression)
        else {
            let field = first_missing(seen, &["numBytes", "algorithm", "hash", "compression"]);
            return Err(missing(r, Self::NAME, field));
        };
        Ok(BloomFilterHeader {
            num_bytes,
            algorithm,
            hash,
            compression,
            unknown,
        })
    }

    /// Encodes this struct; raw bytes refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.num_bytes);
        s.field(w, wire::STRUCT, 2);
        self.algorithm.encode(w, buf);
        s.field(w, wire::STRUCT, 3);
        self.hash.encode(w, buf);
        s.field(w, wire::STRUCT, 4);
        self.compression.encode(w, buf);
        s.end(w);
    }
}
