//! The errors parq makes itself, beside those of the file's bytes (`parq_format`'s kinds):
//! an Arrow error kept whole as the error's source, and a broken invariant of parq's own.

use std::fmt::Display;

use arrow_schema::ArrowError;

use crate::{Error, ErrorKind};

/// `e` as parq's error: [`ErrorKind::Arrow`] with its message, and `e` as its source.
#[cold]
pub(crate) fn arrow_error(e: ArrowError) -> Error {
    Error::new(ErrorKind::Arrow(e.to_string())).with_source(e)
}

/// An invariant of parq's own does not hold ([`ErrorKind::Internal`]).
#[cold]
pub(crate) fn internal(message: impl Display) -> Error {
    Error::new(ErrorKind::Internal(message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn arrow_and_io_errors_are_kept_as_their_source() {
        let e = arrow_error(ArrowError::ComputeError("no".into()));
        assert!(matches!(e.kind(), ErrorKind::Arrow(m) if m.contains("no")));
        let source = e.source().and_then(|s| s.downcast_ref::<ArrowError>());
        assert!(matches!(source, Some(ArrowError::ComputeError(m)) if m == "no"));
        let io = Error::from(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"));
        let source = io.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(source.map(|s| s.kind()), Some(std::io::ErrorKind::NotFound));
        // Errors are equal by what they say, sources aside.
        assert_eq!(io, Error::new(ErrorKind::Io("gone".into())));
        assert!(internal("x").to_string().contains("a bug in parq"));
    }
}
