//! Page compression codecs (in progress).
