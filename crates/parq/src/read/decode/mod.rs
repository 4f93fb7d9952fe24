//! One leaf column's pages into Arrow arrays: bit and level kernels (`spread`, `levels`),
//! physical values to the leaf's Arrow type (`convert`), values per physical family (`bytes`,
//! `dict`, `views`, `values`), the leaf reader over its chunks (`chunk`, `leaf`), and struct,
//! list and map arrays assembled from the leaves' levels (`nested`).

pub(crate) mod bytes;
pub(crate) mod chunk;
pub(crate) mod convert;
pub(crate) mod dict;
pub(crate) mod leaf;
pub(crate) mod levels;
pub(crate) mod nested;
pub(crate) mod spread;
pub(crate) mod values;
pub(crate) mod views;
