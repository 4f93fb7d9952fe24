//! Parquet Variant: the binary encoding of Variant values (`VariantEncoding.md`), decoded
//! and encoded with bounds checks on every read, and shredded Variant columns
//! (`VariantShredding.md`): the check of a shredded group's types and the reassembly of its
//! `value` / `typed_value` arrays into the binary encoding, one value per row.
//!
//! - [`value`]: [`Metadata`] (the dictionary of field names) and [`Variant`] (one value,
//!   objects and arrays read lazily from their bytes);
//! - [`encode`]: values and objects / arrays written in the binary encoding;
//! - [`mod@shred`]: the allowed `typed_value` types and [`unshred`], a shredded group's Arrow
//!   struct as the unshredded `struct<metadata, value>`;
//! - [`split`]: the writer's side, values shredded by a `typed_value` schema
//!   ([`shredded_field`], [`shred()`]) or checked as they are ([`check_values`]).
//!
//! A Variant column is read as the Arrow extension type [`EXTENSION_NAME`] (field metadata
//! `ARROW:extension:name`, empty `ARROW:extension:metadata`) on a
//! `Struct<metadata: Binary, value: Binary>`, as arrow-rs represents it.

pub mod encode;

pub mod shred;
pub mod split;
pub mod value;

pub use shred::{check_variant_field, is_variant, unshred, unshredded_field};
pub use split::{check_values, shred, shredded_field};
pub use value::{Metadata, Object, VArray, Variant};

/// The Arrow extension type name of Variant columns.
pub const EXTENSION_NAME: &str = "arrow.parquet.variant";

/// Containers nested deeper than this are refused by the walks over values.
pub const MAX_DEPTH: usize = 128;

/// An invalid Variant value or metadata, described in words.
#[cold]
pub(crate) fn invalid(message: impl std::fmt::Display) -> crate::Error {
    crate::Error::new(crate::ErrorKind::Inconsistent(format!(
        "Invalid variant, {message}"
    )))
}
