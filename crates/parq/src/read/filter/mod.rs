//! Which rows a read keeps: [`predicate::Predicate`] (built in Rust or parsed from SQL text by
//! `sql`), bound to a read's columns and evaluated on batches, on statistics (`stats`: bounds),
//! the column index and Bloom filters (`bind`); bounding boxes of GEOMETRY / GEOGRAPHY columns
//! (`geo`).

pub(crate) mod bind;
pub(crate) mod geo;
pub(crate) mod predicate;
pub(crate) mod sql;
pub(crate) mod stats;
