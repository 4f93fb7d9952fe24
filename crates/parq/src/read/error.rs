//! Errors of the read path, shared by every stage: [`ConvertError`] (a value that cannot
//! become its Arrow type, with the slot it concerns), the encoding errors of the value
//! decoders, and the helpers that add a page, column and row group to an error.

use crate::format::metadata::Encoding;
use crate::page::{Page, PageMeta};
use crate::{Error, ErrorKind};

/// A conversion error at the end, with the slot it concerns when known.
#[derive(Debug)]
pub(crate) struct ConvertError {
    pub message: String,
    pub slot: Option<usize>,
}

impl ConvertError {
    pub(crate) fn new(message: String) -> Self {
        ConvertError {
            message,
            slot: None,
        }
    }
}

/// What allocation errors of the slots of a page are reported as.
pub(crate) const SLOTS: &str = "page slots";

#[cold]
pub(crate) fn unsupported_encoding(encoding: Encoding, what: &str) -> Error {
    Error::new(ErrorKind::Encoding {
        encoding: encoding.spec_name(),
        message: format!("{encoding} is not supported for {what}"),
    })
}

#[cold]
pub(crate) fn no_dictionary() -> Error {
    Error::new(ErrorKind::Encoding {
        encoding: "RLE_DICTIONARY",
        message: "a dictionary-encoded data page without a dictionary page".to_string(),
    })
}

/// A page claiming `n` more slots than a buffer can count.
#[cold]
pub(crate) fn too_many_slots(n: usize) -> Error {
    Error::new(ErrorKind::InvalidValue {
        what: "slots of a page",
        value: i64::try_from(n).unwrap_or(i64::MAX),
    })
}

#[cold]
pub(crate) fn inconsistent(message: String) -> Error {
    Error::new(ErrorKind::Inconsistent(message))
}

pub(crate) fn page_meta(page: &Page<'_>) -> PageMeta {
    match page {
        Page::Dictionary(p) => p.meta,
        Page::DataV1(p) => p.meta,
        Page::DataV2(p) => p.meta,
    }
}

/// Adds the page's location to a decoding error that has none.
#[cold]
pub(crate) fn in_page(e: Error, meta: &PageMeta) -> Error {
    match e.kind() {
        ErrorKind::InvalidPage { .. } | ErrorKind::PageChecksumMismatch { .. } => e,
        _ if e.page().is_some() => e,
        _ => e
            .with_offset(meta.header_offset)
            .in_page(u32::try_from(meta.ordinal).unwrap_or(u32::MAX)),
    }
}

/// Adds `row group[i] > column[j]` unless the error already names them.
#[cold]
pub(crate) fn locate(e: Error, row_group: usize, column: usize) -> Error {
    if e.row_group().is_some() {
        return e;
    }
    e.in_column(index(column)).in_row_group(index(row_group))
}

/// An index as the `u32` of an error frame.
pub(crate) fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
