//! Running a read: the IO-free decoder (`decoder`, built by `builder`), late materialization
//! of the columns a filter does not need (`late`), and decoding on several threads (`threads`:
//! leaves side by side; `parallel`: row groups side by side).

pub(crate) mod builder;
pub(crate) mod decoder;
pub(crate) mod late;
pub(crate) mod parallel;
pub(crate) mod threads;
