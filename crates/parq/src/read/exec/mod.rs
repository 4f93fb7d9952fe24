//! Running a read: what it has done (`stats`), its setup and the pruning before its leaves
//! exist (`prune`: Bloom filters, dictionaries, page index), the IO-free decoder
//! (`decoder`, built by `builder`), late materialization of the columns a filter does not
//! need (`late`), and row groups decoded side by side on the worker pool (`parallel`; the
//! leaves of a batch side by side are `crate::workers::par_each`).

pub(crate) mod builder;
pub(crate) mod decoder;
pub(crate) mod late;
pub(crate) mod parallel;
pub(crate) mod prune;
pub(crate) mod stats;
