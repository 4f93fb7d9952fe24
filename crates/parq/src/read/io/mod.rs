//! Where a read's bytes come from: positional sources ([`source::RangeRead`]: files, bytes in
//! memory, memory-mapped files in `mapped`) and async range stores ([`source::AsyncRangeRead`], object stores behind the
//! `object_store` feature), the buffers kept from one read to the next (`pool`), and a
//! footer read for some columns only (`projected`).

pub(crate) mod mapped;
#[cfg(feature = "object_store")]
pub(crate) mod object_store;
pub(crate) mod pool;
pub(crate) mod projected;
pub(crate) mod source;
