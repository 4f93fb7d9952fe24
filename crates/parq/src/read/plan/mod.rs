//! What a read decodes: the chosen fields as a tree of nodes over leaf columns with their
//! definition and repetition levels (`fields`), and the rows chosen (`selection`).

pub(crate) mod fields;
pub(crate) mod selection;
