//! Page value and level encodings as batch kernels (in progress).
