//! The one error type of parq-format: what went wrong, where in the file, and inside which
//! Thrift structures and fields.
//!
//! Errors are boxed so that `Result<T, Error>` stays two words on the hot decode paths; all
//! constructors are `#[cold]`.

use std::fmt;
use std::sync::Arc;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended while `needed` more bytes were expected.
    Truncated { needed: u64, remaining: u64 },
    /// A varint ran over 10 bytes, or over the width of its type.
    VarintTooLong,
    /// A Thrift wire type that the compact protocol does not define.
    InvalidWireType(u8),
    /// Structures nested deeper than the configured limit.
    NestingTooDeep { limit: u32 },
    /// A list, string or binary length larger than the bytes that remain.
    LengthTooLarge { length: u64, remaining: u64 },
    /// A required field was absent.
    MissingRequiredField { field: &'static str },
    /// A value that is out of the range the format allows.
    InvalidValue { what: &'static str, value: i64 },
    /// Inconsistent metadata or data (columns that disagree on a row group's rows, a page
    /// index that does not fit its chunk, ...), described in words.
    Inconsistent(String),
    /// An Arrow kernel or array constructor refused what it was given; the `ArrowError` is
    /// the error's [`source`](std::error::Error::source), its message here.
    Arrow(String),
    /// What the caller gave cannot be used: a write property, batches that do not match the
    /// writer's schema, a filter that does not fit its columns, ... .
    InvalidArgument(String),
    /// An invariant of parq's own does not hold: a bug, never the file's or the caller's
    /// doing.
    Internal(String),
    /// A column a read or a filter names that the file does not have; `path` is the name or
    /// dotted path as given.
    ColumnNotFound { path: String },
    /// The file does not end (or start) with the `PAR1` magic.
    BadMagic { found: [u8; 4] },
    /// The file is shorter than the smallest Parquet file.
    FileTooShort { file_bytes: u64 },
    /// The footer length in the file's tail points outside the file.
    FooterLengthOutOfRange { footer_bytes: u64, file_bytes: u64 },
    /// The footer is larger than the configured limit.
    FooterTooLarge { footer_bytes: u64, limit: u64 },
    /// The footer is encrypted (`PARE` magic); decryption keys are needed.
    EncryptedFooter,
    /// An encrypted module could not be decrypted: `module` says which (`"data page header 3
    /// of row group 0, column 2"`), `message` why (authentication failed, a bad length, ...).
    Decryption { module: String, message: String },
    /// A key needed to decrypt the footer or a column is not available: what it is for and
    /// why (not given, the key retriever or KMS failed).
    MissingKey(String),
    /// The caller pushed bytes that do not cover the range the decoder asked for.
    WrongRange {
        expected_start: u64,
        expected_len: u64,
        got_start: u64,
        got_len: u64,
    },
    /// A column, row group or page index that does not exist.
    OutOfBounds {
        what: &'static str,
        index: u64,
        len: u64,
    },
    /// An I/O error, with its message.
    Io(String),
    /// A file, directory, object or bucket that does not exist, or a dataset source that
    /// matches no Parquet file: what was looked for.
    NotFound(String),
    /// Page data that does not follow its encoding: the encoding's spec name (e.g.
    /// `DELTA_BINARY_PACKED`) and what was wrong.
    Encoding {
        encoding: &'static str,
        message: String,
    },
    /// A compressed page could not be decompressed: the stream is corrupt or truncated.
    /// `codec` is parquet.thrift's name of the codec (e.g. `"SNAPPY"`).
    Decompression {
        codec: &'static str,
        message: String,
    },
    /// A compression codec that parq cannot decompress (`LZO`, or a value it does not know).
    UnsupportedCodec(String),
    /// A page decompressed to a size other than the `uncompressed_page_size` its header
    /// declares. When `at_least` is set, decompression stopped once the output exceeded
    /// `expected` and `actual` is a lower bound.
    PageSizeMismatch {
        expected: u64,
        actual: u64,
        at_least: bool,
    },
    /// A page whose declared uncompressed size exceeds the configured limit.
    PageTooLarge { page_bytes: u64, limit: u64 },
    /// A page whose CRC-32 (of the page bytes after its header) differs from the `crc` in its
    /// header. `page` is the page's ordinal in its column chunk (0 = the first page); the
    /// error's offset is the page header's file offset.
    PageChecksumMismatch {
        page: u64,
        expected: u32,
        actual: u32,
    },
    /// A malformed page or page sequence in a column chunk (sizes past the chunk, a
    /// dictionary page after a data page, inconsistent level lengths, ...). `page` is the
    /// page's ordinal in its column chunk; the error's offset is the page header's file
    /// offset when known.
    InvalidPage { page: u64, message: String },
    /// A Parquet schema that cannot be mapped to Arrow (an annotation its physical type or
    /// group shape does not allow, a LIST or MAP group of an unsupported shape, ...).
    SchemaConversion(String),
    /// A feature that parq does not read yet (e.g. nested columns), described in words.
    Unsupported(String),
    /// Column data that cannot become the Arrow array its schema asks for (a string that is
    /// not UTF-8, a decimal wider than its type, a physical type that cannot be read as the
    /// Arrow type, ...). `column` is the column's dotted path.
    InvalidColumnData { column: String, message: String },
}

/// A frame of context: a Thrift structure (or an element of a list of them) that was being
/// decoded, or where in the file's layout (row group, column, page) the error is.
///
/// `Display` writes the frame as [`Error`]'s message shows it: `ColumnMetaData field 3`,
/// `RowGroup[2]`, `row group[0]`, `column[4]`, `page[7]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Frame {
    /// A structure being decoded: parquet.thrift's name (e.g. `ColumnMetaData`, or what the
    /// bytes were read as: `BloomFilter module`), and the field id inside it when known.
    Struct {
        name: &'static str,
        field: Option<i16>,
    },
    /// Element `index` of a list: the list's structure or field name (`RowGroup`,
    /// `ColumnChunk`, `row_groups`, ...).
    Element { name: &'static str, index: u32 },
    /// The row group of this index in the file.
    RowGroup(u32),
    /// The leaf column of this index in its row group.
    Column(u32),
    /// The page of this ordinal in its column chunk (0 = the first page).
    Page(u32),
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Frame::Struct { name, field: None } => f.write_str(name),
            Frame::Struct {
                name,
                field: Some(id),
            } => write!(f, "{name} field {id}"),
            Frame::Element { name, index } => write!(f, "{name}[{index}]"),
            Frame::RowGroup(i) => write!(f, "row group[{i}]"),
            Frame::Column(i) => write!(f, "column[{i}]"),
            Frame::Page(i) => write!(f, "page[{i}]"),
        }
    }
}

#[derive(Debug, Clone)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    frames: Vec<Frame>,
    /// The file (a path or URL) the error is in, when a read spans several.
    file: Option<String>,
    /// The error this one was made from (an I/O or Arrow error), kept whole.
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Errors are equal by what they say; their sources are not compared.
impl PartialEq for Inner {
    fn eq(&self, other: &Inner) -> bool {
        self.kind == other.kind
            && self.offset == other.offset
            && self.frames == other.frames
            && self.file == other.file
    }
}

impl Eq for Inner {}

/// The error of parq-format: a kind, the absolute byte offset where it was found (when known)
/// and the structures being decoded, innermost first.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Results of parq-format.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` without a location.
    #[cold]
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(Inner {
            kind,
            offset: None,
            frames: Vec::new(),
            file: None,
            source: None,
        }))
    }

    /// An error of `kind` at absolute byte `offset`.
    #[cold]
    pub fn at(kind: ErrorKind, offset: u64) -> Error {
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
            frames: Vec::new(),
            file: None,
            source: None,
        }))
    }

    /// Keeps `source`, the error this one was made from, as its
    /// [`source`](std::error::Error::source).
    #[cold]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.0.source = Some(Arc::new(source));
        self
    }

    /// Names the file (a path or URL) the error is in, if no file is named yet.
    #[cold]
    pub fn in_file(mut self, file: impl Into<String>) -> Error {
        if self.0.file.is_none() {
            self.0.file = Some(file.into());
        }
        self
    }

    /// The file (a path or URL) the error is in, when named.
    pub fn file(&self) -> Option<&str> {
        self.0.file.as_deref()
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The absolute byte offset in the file where decoding failed, when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The structures being decoded when the error happened, innermost first.
    pub fn frames(&self) -> &[Frame] {
        &self.0.frames
    }

    /// Adds `frame`, outside the frames the error has.
    #[cold]
    pub fn in_frame(mut self, frame: Frame) -> Error {
        self.0.frames.push(frame);
        self
    }

    /// Adds the structure and field that were being decoded.
    #[cold]
    pub fn in_field(self, structure: &'static str, field: i16) -> Error {
        self.in_frame(Frame::Struct {
            name: structure,
            field: Some(field),
        })
    }

    /// Adds the structure that was being decoded.
    #[cold]
    pub fn in_struct(self, structure: &'static str) -> Error {
        self.in_frame(Frame::Struct {
            name: structure,
            field: None,
        })
    }

    /// Adds the index of the list element that was being decoded.
    #[cold]
    pub fn in_element(self, structure: &'static str, index: u32) -> Error {
        self.in_frame(Frame::Element {
            name: structure,
            index,
        })
    }

    /// Adds the row group (its index in the file) the error is in.
    #[cold]
    pub fn in_row_group(self, index: u32) -> Error {
        self.in_frame(Frame::RowGroup(index))
    }

    /// Adds the leaf column (its index in the row group) the error is in.
    #[cold]
    pub fn in_column(self, index: u32) -> Error {
        self.in_frame(Frame::Column(index))
    }

    /// Adds the page (its ordinal in the column chunk) the error is in.
    #[cold]
    pub fn in_page(self, ordinal: u32) -> Error {
        self.in_frame(Frame::Page(ordinal))
    }

    /// The row group the error is in, when a frame names it.
    pub fn row_group(&self) -> Option<u32> {
        self.0.frames.iter().find_map(|f| match f {
            Frame::RowGroup(i) => Some(*i),
            _ => None,
        })
    }

    /// The leaf column (its index in the row group) the error is in, when a frame names it.
    pub fn column(&self) -> Option<u32> {
        self.0.frames.iter().find_map(|f| match f {
            Frame::Column(i) => Some(*i),
            _ => None,
        })
    }

    /// The page (its ordinal in the column chunk) the error is in, when a frame names it.
    pub fn page(&self) -> Option<u32> {
        self.0.frames.iter().find_map(|f| match f {
            Frame::Page(i) => Some(*i),
            _ => None,
        })
    }

    /// Moves the error's offset by `base` (the offset of the decoded buffer in the file).
    #[cold]
    pub fn rebase(mut self, base: u64) -> Error {
        if let Some(o) = self.0.offset.as_mut() {
            *o += base;
        }
        self
    }

    /// Sets the offset if the error has none yet.
    #[cold]
    pub fn with_offset(mut self, offset: u64) -> Error {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    #[cold]
    pub(crate) fn missing(structure: &'static str, field: &'static str) -> Error {
        Error::new(ErrorKind::MissingRequiredField { field }).in_struct(structure)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Truncated { needed, remaining } => {
                write!(f, "unexpected end of input (needed {needed} bytes, {remaining} remain)")
            }
            VarintTooLong => write!(f, "varint longer than its type allows"),
            InvalidWireType(t) => write!(f, "invalid Thrift compact wire type {t}"),
            NestingTooDeep { limit } => write!(f, "structures nested deeper than {limit}"),
            LengthTooLarge { length, remaining } => write!(
                f,
                "length {length} is larger than the {remaining} bytes that remain"
            ),
            MissingRequiredField { field } => write!(f, "required field `{field}` is missing"),
            InvalidValue { what, value } => write!(f, "invalid {what}: {value}"),
            Inconsistent(s) | Arrow(s) | InvalidArgument(s) => write!(f, "{s}"),
            Internal(s) => write!(f, "internal error (a bug in parq): {s}"),
            ColumnNotFound { path } => write!(f, "no column `{path}` in the file"),
            BadMagic { found } => write!(
                f,
                "not a Parquet file: expected magic \"PAR1\", found {:?}",
                String::from_utf8_lossy(found)
            ),
            FileTooShort { file_bytes } => write!(
                f,
                "file of {file_bytes} bytes is too short to be Parquet (at least 12 bytes)"
            ),
            FooterLengthOutOfRange { footer_bytes, file_bytes } => write!(
                f,
                "footer length {footer_bytes} points outside the file of {file_bytes} bytes"
            ),
            FooterTooLarge { footer_bytes, limit } => {
                write!(f, "footer of {footer_bytes} bytes exceeds the limit of {limit} bytes")
            }
            EncryptedFooter => write!(
                f,
                "the footer is encrypted (magic \"PARE\"); decryption keys are needed to read it"
            ),
            Decryption { module, message } => write!(f, "cannot decrypt the {module}: {message}"),
            MissingKey(s) => write!(f, "missing decryption key: {s}"),
            WrongRange { expected_start, expected_len, got_start, got_len } => write!(
                f,
                "pushed bytes {got_start}..{} do not cover the requested range {expected_start}..{}",
                got_start + got_len,
                expected_start + expected_len
            ),
            OutOfBounds { what, index, len } => {
                write!(f, "{what} {index} out of bounds (there are {len})")
            }
            Io(s) => write!(f, "I/O error: {s}"),
            NotFound(s) => write!(f, "not found: {s}"),
            Decompression { codec, message } => {
                write!(f, "{codec} decompression failed: {message}")
            }
            UnsupportedCodec(codec) => write!(f, "unsupported codec {codec}"),
            PageSizeMismatch { expected, actual, at_least } => write!(
                f,
                "uncompressed page size mismatch (expected {expected}, actual {}{actual})",
                if *at_least { "at least " } else { "" }
            ),
            PageTooLarge { page_bytes, limit } => write!(
                f,
                "uncompressed page of {page_bytes} bytes exceeds the limit of {limit} bytes"
            ),
            Encoding { encoding, message } => write!(f, "{encoding}: {message}"),
            PageChecksumMismatch { page, expected, actual } => write!(
                f,
                "page {page} of the column chunk fails its CRC check (header {expected:#010x}, \
                 page bytes {actual:#010x})"
            ),
            InvalidPage { page, message } => write!(f, "page {page} of the column chunk: {message}"),
            SchemaConversion(s) => write!(f, "cannot map the schema to Arrow: {s}"),
            Unsupported(s) => write!(f, "not supported yet: {s}"),
            InvalidColumnData { column, message } => write!(f, "column `{column}`: {message}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.0.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}", self.0.kind)?;
        if let Some(o) = self.0.offset {
            write!(f, " at byte offset {o}")?;
        }
        // Outermost first reads naturally: "in FileMetaData.row_groups[3] > RowGroup.columns...".
        let mut first = true;
        for frame in self.0.frames.iter().rev() {
            f.write_str(if first { " (in " } else { " > " })?;
            first = false;
            write!(f, "{frame}")?;
        }
        if !first {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source = self.0.source.as_ref()?;
        Some(source.as_ref())
    }
}

impl From<std::io::Error> for Error {
    #[cold]
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io(e.to_string())).with_source(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_outermost_first_and_name_the_location() {
        let e = Error::at(ErrorKind::VarintTooLong, 17)
            .in_field("Statistics", 5)
            .in_struct("ColumnMetaData")
            .in_element("ColumnChunk", 2)
            .in_page(7)
            .in_column(4)
            .in_row_group(3);
        assert_eq!(
            e.to_string(),
            "varint longer than its type allows at byte offset 17 (in row group[3] > column[4] \
             > page[7] > ColumnChunk[2] > ColumnMetaData > Statistics field 5)"
        );
        assert_eq!(
            (e.row_group(), e.column(), e.page()),
            (Some(3), Some(4), Some(7))
        );
        assert_eq!(
            e.frames().first(),
            Some(&Frame::Struct {
                name: "Statistics",
                field: Some(5)
            })
        );
        let bare = Error::new(ErrorKind::VarintTooLong).in_element("RowGroup", 1);
        assert_eq!(
            bare.to_string(),
            "varint longer than its type allows (in RowGroup[1])"
        );
        assert_eq!(
            (bare.row_group(), bare.column(), bare.page()),
            (None, None, None)
        );
    }
}
