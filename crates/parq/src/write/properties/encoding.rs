//! The value encodings parq writes: their names as the CLI takes them (parquet.thrift's,
//! case-insensitive), and the physical types each can encode.

use super::{column_error, property_error};
use crate::format::metadata::{Encoding, PhysicalType};
use crate::Result;

/// The value encodings parq writes, as parquet.thrift names them.
pub const WRITABLE_ENCODINGS: [Encoding; 8] = [
    Encoding::Plain,
    Encoding::RleDictionary,
    Encoding::DeltaBinaryPacked,
    Encoding::DeltaLengthByteArray,
    Encoding::DeltaByteArray,
    Encoding::ByteStreamSplit,
    Encoding::Rle,
    Encoding::Alp,
];

/// Parses a value encoding name (case-insensitive): one of [`WRITABLE_ENCODINGS`].
pub fn parse_encoding(s: &str) -> Result<Encoding> {
    let s = s.trim();
    match Encoding::from_spec_name(s) {
        Some(e) if WRITABLE_ENCODINGS.contains(&e) => Ok(e),
        Some(e) => Err(property_error(format_args!(
            "the {e} encoding is not written (deprecated{})",
            if e == Encoding::PlainDictionary {
                "; use RLE_DICTIONARY"
            } else {
                ""
            }
        ))),
        None => Err(property_error(format_args!(
            "unknown encoding `{s}` (expected one of PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED, \
             DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE, ALP)"
        ))),
    }
}

/// Parses the CLI's `--encoding` argument: `ENCODING` (every column) or `COLUMN=ENCODING`
/// (split at the last `=`). Returns the column path, if any, and the encoding.
pub fn parse_encoding_arg(s: &str) -> Result<(Option<String>, Encoding)> {
    match s.rsplit_once('=') {
        Some((col, enc)) => {
            let col = col.trim();
            if col.is_empty() {
                return Err(property_error(format_args!(
                    "missing column name in `{s}` (expected COLUMN=ENCODING)"
                )));
            }
            Ok((Some(col.to_string()), parse_encoding(enc)?))
        }
        None => Ok((None, parse_encoding(s)?)),
    }
}

/// The physical types a value encoding can encode, in parquet.thrift's words; empty for
/// encodings parq does not write.
pub fn encoding_physical_types(encoding: Encoding) -> &'static [PhysicalType] {
    use PhysicalType as P;
    const ALL: &[PhysicalType] = &[
        P::Boolean,
        P::Int32,
        P::Int64,
        P::Int96,
        P::Float,
        P::Double,
        P::ByteArray,
        P::FixedLenByteArray,
    ];
    match encoding {
        Encoding::Plain => ALL,
        Encoding::RleDictionary => &ALL[1..],
        Encoding::Rle => &[P::Boolean],
        Encoding::DeltaBinaryPacked => &[P::Int32, P::Int64],
        Encoding::DeltaLengthByteArray => &[P::ByteArray],
        Encoding::DeltaByteArray => &[P::ByteArray, P::FixedLenByteArray],
        Encoding::ByteStreamSplit => &[
            P::Int32,
            P::Int64,
            P::Float,
            P::Double,
            P::FixedLenByteArray,
        ],
        Encoding::Alp => &[P::Float, P::Double],
        _ => &[],
    }
}

/// Checks that `encoding` can encode values of `physical`; the error names `column`.
pub fn check_encoding(column: &str, encoding: Encoding, physical: PhysicalType) -> Result<()> {
    let types = encoding_physical_types(encoding);
    if types.is_empty() {
        return Err(column_error(
            column,
            format_args!("the {encoding} encoding is not written"),
        ));
    }
    if types.contains(&physical) {
        return Ok(());
    }
    let names: Vec<&str> = types.iter().map(|t| t.spec_name()).collect();
    Err(column_error(
        column,
        format_args!(
            "{encoding} cannot encode {physical} values (it encodes {})",
            names.join(", ")
        ),
    ))
}
