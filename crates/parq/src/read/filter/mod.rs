//! Which rows a read keeps: [`predicate::Predicate`] (built in Rust or parsed from SQL text by
//! `sql`), bound to a read's columns and evaluated on batches, on statistics (`stats`: bounds)
//! and the column index (`bind`) and Bloom filters (`blooms`); columns named by dotted paths
//! inside structs and Variant object fields (`path`), Variant fields compared on each row's
//! value (`variant`); bounding boxes of GEOMETRY / GEOGRAPHY columns (`geo`).

pub(crate) mod bind;
pub(crate) mod blooms;
pub(crate) mod geo;
pub(crate) mod path;
pub(crate) mod predicate;
pub(crate) mod sql;
pub(crate) mod stats;
pub(crate) mod variant;
