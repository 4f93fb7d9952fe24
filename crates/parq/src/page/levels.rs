//! Repetition and definition levels of data pages: splitting a page into its sections and
//! decoding its levels.
//!
//! A v1 data page body is `[repetition levels][definition levels][values]`, each level
//! section present only when the column's maximum level is above 0. A level section is
//! either RLE (the hybrid, after a 4-byte little-endian length) or the deprecated BIT_PACKED
//! (`ceil(num_values * bit_width / 8)` bytes, no prefix), as the page header's level
//! encodings say. A v2 data page stores both sections first, RLE without a length prefix,
//! their lengths in the header. [`split_v1`] and `DataPageV2::sections` give both the same
//! shape, [`DataSections`], whose [`Levels`] hold the level bytes without any prefix.

use crate::encoding::bit_packed::{self, BitPackedDecoder};
use crate::encoding::bitpack::Unpacked;
use crate::encoding::error;
use crate::encoding::rle::RleDecoder;
use crate::format::metadata::Encoding;
use crate::Result;

/// The bit width of levels up to `max_level`; an error if `max_level` is negative.
pub fn level_bit_width(max_level: i16) -> Result<u32> {
    if max_level < 0 {
        return Err(error("RLE", format!("negative maximum level {max_level}")));
    }
    Ok(16 - (max_level as u16).leading_zeros())
}

/// One level section of a data page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Levels<'b> {
    /// `RLE` (the hybrid) or `BIT_PACKED`.
    pub encoding: Encoding,
    /// Bits per level; 0 when the maximum level is 0 (every level is 0, `data` is empty).
    pub bit_width: u32,
    /// The encoded levels, without the v1 length prefix.
    pub data: &'b [u8],
}

impl<'b> Levels<'b> {
    /// No levels: the column's maximum level is 0.
    pub fn none() -> Self {
        Levels {
            encoding: Encoding::Rle,
            bit_width: 0,
            data: &[],
        }
    }

    /// True when every level is 0 and nothing is stored.
    pub fn is_absent(&self) -> bool {
        self.bit_width == 0
    }

    /// A decoder of these levels.
    pub fn decoder(&self) -> Result<LevelDecoder<'b>> {
        if self.bit_width == 0 {
            return Ok(LevelDecoder::Zero);
        }
        match self.encoding {
            Encoding::Rle => Ok(LevelDecoder::Rle(RleDecoder::new(
                self.data,
                self.bit_width,
            )?)),
            Encoding::BitPacked => Ok(LevelDecoder::BitPacked(BitPackedDecoder::new(
                self.data,
                self.bit_width,
            )?)),
            other => Err(unsupported(other)),
        }
    }
}

/// A streaming decoder of one level section.
#[derive(Debug, Clone)]
pub enum LevelDecoder<'b> {
    /// Maximum level 0: every level is 0.
    Zero,
    /// The RLE / bit-packing hybrid.
    Rle(RleDecoder<'b>),
    /// The deprecated BIT_PACKED encoding.
    BitPacked(BitPackedDecoder<'b>),
}

impl LevelDecoder<'_> {
    /// Decodes the next `out.len()` levels; an error if the section holds fewer.
    pub fn decode_exact<T: Unpacked>(&mut self, out: &mut [T]) -> Result<()> {
        match self {
            LevelDecoder::Zero => {
                out.fill(T::default());
                Ok(())
            }
            LevelDecoder::Rle(d) => d.decode_exact(out),
            LevelDecoder::BitPacked(d) => d.decode(out),
        }
    }
}

/// A data page split into its level sections and its (decompressed) values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataSections<'b> {
    /// Repetition levels.
    pub repetition: Levels<'b>,
    /// Definition levels.
    pub definition: Levels<'b>,
    /// The encoded values (non-null values only).
    pub values: &'b [u8],
}

/// Splits a decompressed v1 data page body of `num_values` values into its sections, given
/// the column's maximum levels and the header's level encodings. Errors are
/// [`crate::ErrorKind::Encoding`]: a level section larger than the body, a level encoding
/// other than RLE and BIT_PACKED, a negative maximum level.
pub fn split_v1(
    body: &[u8],
    num_values: usize,
    max_rep_level: i16,
    max_def_level: i16,
    repetition_encoding: Encoding,
    definition_encoding: Encoding,
) -> Result<DataSections<'_>> {
    let mut rest = body;
    let repetition = take_v1(
        &mut rest,
        repetition_encoding,
        level_bit_width(max_rep_level)?,
        num_values,
        "repetition",
    )?;
    let definition = take_v1(
        &mut rest,
        definition_encoding,
        level_bit_width(max_def_level)?,
        num_values,
        "definition",
    )?;
    Ok(DataSections {
        repetition,
        definition,
        values: rest,
    })
}

/// The sections of a v2 data page from its already split parts (levels are always RLE).
pub fn split_v2<'b>(
    repetition: &'b [u8],
    definition: &'b [u8],
    values: &'b [u8],
    max_rep_level: i16,
    max_def_level: i16,
) -> Result<DataSections<'b>> {
    let levels = |data: &'b [u8], max: i16| -> Result<Levels<'b>> {
        Ok(Levels {
            encoding: Encoding::Rle,
            bit_width: level_bit_width(max)?,
            data,
        })
    };
    Ok(DataSections {
        repetition: levels(repetition, max_rep_level)?,
        definition: levels(definition, max_def_level)?,
        values,
    })
}

/// Takes one v1 level section off the front of `rest`.
fn take_v1<'b>(
    rest: &mut &'b [u8],
    encoding: Encoding,
    bit_width: u32,
    num_values: usize,
    what: &str,
) -> Result<Levels<'b>> {
    if bit_width == 0 {
        return Ok(Levels::none());
    }
    let (data, used) = match encoding {
        Encoding::Rle => {
            let Some((prefix, after)) = rest.split_first_chunk::<4>() else {
                return Err(error(
                    "RLE",
                    format!(
                        "{what} levels: {} bytes cannot hold the 4-byte length prefix",
                        rest.len()
                    ),
                ));
            };
            let len = u32::from_le_bytes(*prefix) as usize;
            let Some(data) = after.get(..len) else {
                return Err(error(
                    "RLE",
                    format!(
                        "{what} levels: length prefix {len} > {} bytes remaining",
                        after.len()
                    ),
                ));
            };
            (data, 4 + len)
        }
        Encoding::BitPacked => {
            let len = bit_packed::encoded_len(num_values, bit_width);
            let Some(data) = rest.get(..len) else {
                return Err(error(
                    "BIT_PACKED",
                    format!(
                        "{what} levels: {num_values} levels of {bit_width} bits need {len} bytes, \
                         {} remain",
                        rest.len()
                    ),
                ));
            };
            (data, len)
        }
        other => return Err(unsupported(other)),
    };
    *rest = &rest[used..];
    Ok(Levels {
        encoding,
        bit_width,
        data,
    })
}

#[cold]
fn unsupported(encoding: Encoding) -> crate::Error {
    error(
        encoding.spec_name(),
        format!("{encoding} is not a level encoding (RLE or BIT_PACKED)"),
    )
}
