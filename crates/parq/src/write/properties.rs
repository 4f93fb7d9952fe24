//! Writer properties: file-wide settings and per-column settings (by dotted column path) with
//! file-wide defaults, validated against the physical types of the schema before anything is
//! written; and the parsers of the CLI's names (parquet.thrift's, case-insensitive).
//!
//! Defaults, and why (pyarrow 26 is `pq.write_table`'s Python defaults over parquet-cpp's
//! `WriterProperties`; arrow-rs is the `parquet` crate 60.1.0):
//!
//! | Setting | Default | Source |
//! |---|---|---|
//! | codec | SNAPPY | pyarrow 26 (arrow-rs: UNCOMPRESSED): cheap, and what users expect of a Parquet file |
//! | codec levels | ZSTD 1, GZIP 6, BROTLI 8 when unset | the compressor's defaults (`compression::compress`): ZSTD 1 as both peers; GZIP 6 is zlib's default (arrow-rs); BROTLI 8 as pyarrow |
//! | dictionary | on, fallback when the dictionary page passes 1 MiB or does not pay on the chunk's first page | both peers; the trial is parquet-java's |
//! | value encoding (no dictionary / fallback) | PLAIN | both peers for data page v1 |
//! | statistics | page: chunk statistics + column index | arrow-rs (pyarrow writes chunk statistics and page header statistics, no page index); the offset index is always written |
//! | max statistics length | 64 bytes (binary min/max longer are truncated, `is_*_value_exact` false) | arrow-rs; pyarrow 26 never truncates and drops min/max over 4096 bytes |
//! | row group | 1,048,576 rows or 128 MiB of encoded data | rows as both peers; the byte budget is parquet-java's `parquet.block.size`, so that wide or string-heavy tables stay bounded in memory |
//! | data page | 1 MiB or 20,000 rows | both peers |
//! | data page version | 1 | both peers: every reader reads v1 |
//! | page CRC | off | both peers |
//! | float column order | `TYPE_ORDER`, with `nan_count` | pyarrow 26 (parquet-cpp) reads no min/max of an `IEEE_754_TOTAL_ORDER` column; `nan_count` is what the spec asks of `TYPE_ORDER` float statistics and older readers skip it. arrow-rs 60 writes `IEEE_754_TOTAL_ORDER`, which [`WriterPropertiesBuilder::float_total_order`] turns on |
//! | bloom filters | off; when enabled: NDV 1,048,576, FPP 0.05 | both peers |
//! | decimals | FIXED_LEN_BYTE_ARRAY of the fewest bytes (`decimal_as_integer` off) | pyarrow 26 (`store_decimal_as_integer=False`); arrow-rs 60 writes INT32 / INT64 by precision, which [`WriterPropertiesBuilder::decimal_as_integer`] turns on |
//! | list element name | `element` (`compliant_nested_types` on) | pyarrow 26 (`use_compliant_nested_type=True`) and arrow-rs: the name the spec asks for |
//! | threads | 1 | both peers encode a row group's columns on one thread; more encode them side by side, the output the same bytes |
//! | footer index | on | parq's own: where each row group and column chunk starts in the footer, written before it where other readers never look, so a reader of a few columns of a wide file skips the rest (`parq_format::footer::build_index`) |
//! | created_by | `parq version X.Y.Z` | the `<app> version <semver>` form readers parse to apply their statistics-trust rules |
//!
//! Encoding and dictionary: a column's value encoding (`encoding`) is what its data pages use
//! without a dictionary. Dictionary encoding is on by default; an explicit value encoding turns
//! it off for the columns it applies to, unless dictionary encoding was explicitly enabled
//! (for the column, or file-wide), in which case the encoding is the fallback used once the
//! dictionary passes its size limit. Asking for `RLE_DICTIONARY` enables the dictionary with
//! the PLAIN fallback. BOOLEAN columns never use a dictionary (requesting one explicitly is an
//! error).
//!
//! A dictionary is also given up when it does not pay (parquet-java's rule, checked on each
//! chunk's first page, see [`crate::write::column`]): when the first 1,000 values are all
//! distinct, or when that page closes with dictionary page + indices no smaller than the
//! values PLAIN. The page is then re-encoded with the fallback encoding and the chunk has no
//! dictionary page; pages of fewer than 1,000 values keep their dictionary.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::Arc;

use crate::format::crypto::FileEncryptionProperties;
use crate::format::metadata::{Compression, Encoding, PhysicalType, Schema, SortingColumn};
use crate::{Error, ErrorKind, Result};

mod encoding;
pub use encoding::{
    check_encoding, encoding_physical_types, parse_encoding, parse_encoding_arg, WRITABLE_ENCODINGS,
};

/// Default `created_by`: `parq version <crate version>`.
pub const DEFAULT_CREATED_BY: &str = concat!("parq version ", env!("CARGO_PKG_VERSION"));
/// Default dictionary page size limit, after which a column falls back to its value encoding.
pub const DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT: usize = 1024 * 1024;
/// Default target size of a data page (encoded values and levels, before compression).
pub const DEFAULT_DATA_PAGE_BYTES: usize = 1024 * 1024;
/// Default maximum number of rows of a data page.
pub const DEFAULT_DATA_PAGE_ROWS: usize = 20_000;
/// Default maximum number of rows of a row group.
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;
/// Default byte budget of a row group (encoded, compressed pages held before the flush).
pub const DEFAULT_ROW_GROUP_BYTES: usize = 128 * 1024 * 1024;
/// Default maximum length of binary min/max values in statistics and the column index.
pub const DEFAULT_MAX_STATISTICS_LEN: usize = 64;
/// Default number of distinct values a Bloom filter is sized for.
pub const DEFAULT_BLOOM_FILTER_NDV: u64 = 1024 * 1024;
/// Default false positive probability a Bloom filter is sized for.
pub const DEFAULT_BLOOM_FILTER_FPP: f64 = 0.05;
pub use crate::compression::compress::{
    DEFAULT_BROTLI_LEVEL, DEFAULT_GZIP_LEVEL, DEFAULT_ZSTD_LEVEL,
};

/// An error about writer properties (an impossible or unknown setting).
#[cold]
pub(crate) fn property_error(message: impl fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "writer properties: {message}"
    )))
}

/// An error about the setting of one column.
#[cold]
fn column_error(column: &str, message: impl fmt::Display) -> Error {
    property_error(format_args!("column `{column}`: {message}"))
}

/// A compression codec with its level (for the codecs that have levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codec {
    compression: Compression,
    level: Option<i32>,
}

impl Codec {
    /// No compression.
    pub const UNCOMPRESSED: Codec = Codec {
        compression: Compression::Uncompressed,
        level: None,
    };
    /// SNAPPY (no levels).
    pub const SNAPPY: Codec = Codec {
        compression: Compression::Snappy,
        level: None,
    };
    /// LZ4_RAW (no levels).
    pub const LZ4_RAW: Codec = Codec {
        compression: Compression::Lz4Raw,
        level: None,
    };
    /// ZSTD at its default level.
    pub const ZSTD: Codec = Codec {
        compression: Compression::Zstd,
        level: None,
    };
    /// GZIP at its default level.
    pub const GZIP: Codec = Codec {
        compression: Compression::Gzip,
        level: None,
    };
    /// BROTLI at its default level.
    pub const BROTLI: Codec = Codec {
        compression: Compression::Brotli,
        level: None,
    };

    /// The codec `compression` at `level` (`None`: the codec's default). Errors for codecs
    /// parq does not write (LZO, the deprecated LZ4, unknown values), for a level on a codec
    /// without levels, and for a level outside [`Codec::level_range`].
    pub fn new(compression: Compression, level: Option<i32>) -> Result<Codec> {
        match compression {
            Compression::Lzo => return Err(property_error("LZO compression cannot be written")),
            Compression::Lz4 => return Err(property_error(
                "the deprecated LZ4 codec is not written (its framing is ambiguous); use LZ4_RAW",
            )),
            Compression::Unknown(v) => {
                return Err(property_error(format_args!(
                    "unknown compression codec {v}"
                )))
            }
            _ => {}
        }
        if let Some(l) = level {
            match Self::level_range(compression) {
                None => {
                    return Err(property_error(format_args!(
                        "{} has no compression levels (got level {l})",
                        compression.spec_name()
                    )))
                }
                Some(r) if !r.contains(&l) => {
                    return Err(property_error(format_args!(
                        "{} level {l} is out of range {}..={}",
                        compression.spec_name(),
                        r.start(),
                        r.end()
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(Codec { compression, level })
    }

    /// The levels a codec accepts (the compressor's: ZSTD's own range, GZIP 0..=9, BROTLI
    /// 0..=11); `None` for codecs without levels.
    pub fn level_range(compression: Compression) -> Option<RangeInclusive<i32>> {
        crate::compression::compress::level_range(compression)
    }

    /// The codec.
    pub fn compression(self) -> Compression {
        self.compression
    }

    /// The level as given (`None`: the codec's default, or a codec without levels).
    pub fn level(self) -> Option<i32> {
        self.level
    }

    /// The level to compress with: the given one, else the default of the codec
    /// ([`DEFAULT_ZSTD_LEVEL`], [`DEFAULT_GZIP_LEVEL`], [`DEFAULT_BROTLI_LEVEL`]); `None` for
    /// codecs without levels.
    pub fn effective_level(self) -> Option<i32> {
        self.level.or(crate::compression::compress::default_level(
            self.compression,
        ))
    }

    /// Parses `CODEC` or `CODEC:LEVEL` with parquet.thrift's names, case-insensitive:
    /// `uncompressed snappy gzip lz4_raw zstd brotli`.
    pub fn parse(s: &str) -> Result<Codec> {
        let (name, level) = match s.split_once(':') {
            Some((n, l)) => {
                let level = l.trim().parse::<i32>().map_err(|_| {
                    property_error(format_args!("invalid compression level `{l}` in `{s}`"))
                })?;
                (n.trim(), Some(level))
            }
            None => (s.trim(), None),
        };
        let compression = match Compression::from_spec_name(name) {
            Some(c) => c,
            None if name.eq_ignore_ascii_case("none") => Compression::Uncompressed,
            None => {
                return Err(property_error(format_args!(
                    "unknown compression codec `{name}` (expected one of uncompressed, snappy, \
                     gzip, lz4_raw, zstd, brotli, with `:LEVEL` for gzip, zstd and brotli)"
                )))
            }
        };
        Codec::new(compression, level)
    }
}

impl Default for Codec {
    fn default() -> Self {
        Codec::SNAPPY
    }
}

impl FromStr for Codec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Codec> {
        Codec::parse(s)
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.compression.spec_name())?;
        if let Some(l) = self.level {
            write!(f, ":{l}")?;
        }
        Ok(())
    }
}

/// Which statistics a column gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum StatisticsLevel {
    /// No statistics (the offset index is still written).
    None,
    /// Column chunk statistics (min/max, null count) and size statistics.
    Chunk,
    /// Chunk statistics, and per-page statistics in the column index.
    #[default]
    Page,
}

impl StatisticsLevel {
    /// Parses `none`, `chunk` or `page`, case-insensitive.
    pub fn parse(s: &str) -> Result<StatisticsLevel> {
        let s = s.trim();
        [
            ("none", StatisticsLevel::None),
            ("chunk", StatisticsLevel::Chunk),
            ("page", StatisticsLevel::Page),
        ]
        .into_iter()
        .find(|(n, _)| s.eq_ignore_ascii_case(n))
        .map(|(_, l)| l)
        .ok_or_else(|| {
            property_error(format_args!(
                "unknown statistics level `{s}` (expected none, chunk or page)"
            ))
        })
    }

    /// The name `parse` accepts.
    pub fn name(self) -> &'static str {
        match self {
            StatisticsLevel::None => "none",
            StatisticsLevel::Chunk => "chunk",
            StatisticsLevel::Page => "page",
        }
    }
}

impl FromStr for StatisticsLevel {
    type Err = Error;
    fn from_str(s: &str) -> Result<StatisticsLevel> {
        StatisticsLevel::parse(s)
    }
}

impl fmt::Display for StatisticsLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The data page format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataPageVersion {
    /// `DATA_PAGE`: levels and values compressed together.
    #[default]
    V1,
    /// `DATA_PAGE_V2`: levels uncompressed in front of the (optionally compressed) values.
    V2,
}

impl DataPageVersion {
    /// Parses `1`, `2`, `1.0` or `2.0`.
    pub fn parse(s: &str) -> Result<DataPageVersion> {
        match s.trim() {
            "1" | "1.0" => Ok(DataPageVersion::V1),
            "2" | "2.0" => Ok(DataPageVersion::V2),
            other => Err(property_error(format_args!(
                "unknown data page version `{other}` (expected 1 or 2)"
            ))),
        }
    }
}

impl FromStr for DataPageVersion {
    type Err = Error;
    fn from_str(s: &str) -> Result<DataPageVersion> {
        DataPageVersion::parse(s)
    }
}

/// Bloom filter settings of a column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomFilterProperties {
    /// Number of distinct values the filter is sized for (per column chunk).
    pub ndv: u64,
    /// Target false positive probability, in (0, 1).
    pub fpp: f64,
}

impl Default for BloomFilterProperties {
    fn default() -> Self {
        BloomFilterProperties {
            ndv: DEFAULT_BLOOM_FILTER_NDV,
            fpp: DEFAULT_BLOOM_FILTER_FPP,
        }
    }
}

impl BloomFilterProperties {
    /// The bitset size for a column chunk of at most `rows` rows: sized for
    /// `min(ndv, rows)` distinct values (a chunk cannot hold more), as pyarrow 26 does, so
    /// the same values give the same filter. See `Sbbf::optimal_num_bytes`.
    pub fn num_bytes(&self, rows: u64) -> usize {
        crate::bloom::Sbbf::optimal_num_bytes(self.ndv.min(rows), self.fpp)
    }

    fn validate(&self, column: &str) -> Result<()> {
        if self.ndv == 0 {
            return Err(column_error(column, "Bloom filter NDV must be at least 1"));
        }
        if !(self.fpp > 0.0 && self.fpp < 1.0) {
            return Err(column_error(
                column,
                format_args!("Bloom filter FPP must be in (0, 1), got {}", self.fpp),
            ));
        }
        Ok(())
    }
}

/// Settings of one column as given (unset fields take the file-wide default).
#[derive(Debug, Clone, Default, PartialEq)]
struct ColumnOverrides {
    codec: Option<Codec>,
    encoding: Option<Encoding>,
    dictionary: Option<bool>,
    statistics: Option<StatisticsLevel>,
    max_statistics_len: Option<Option<usize>>,
    bloom_filter: Option<Option<BloomFilterProperties>>,
}

/// The resolved settings of one leaf column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnSettings {
    /// Compression codec and level.
    pub codec: Codec,
    /// Dictionary encoding (RLE_DICTIONARY data pages after a PLAIN dictionary page).
    pub dictionary: bool,
    /// The encoding of data pages without a dictionary: the only one when `dictionary` is
    /// false, the fallback once the dictionary passes its limit otherwise.
    pub encoding: Encoding,
    /// Statistics level.
    pub statistics: StatisticsLevel,
    /// Maximum length of binary min/max values (`None`: never truncate).
    pub max_statistics_len: Option<usize>,
    /// Bloom filter settings, when the column has one.
    pub bloom_filter: Option<BloomFilterProperties>,
}

/// Properties of a Parquet writer. Build with [`WriterProperties::builder`]; the defaults are
/// listed in the [module documentation](self).
///
/// Settings for every column, then for one column by its dotted path, which win over them:
///
/// ```
/// use parq::format::metadata::Encoding;
/// use parq::write::{Codec, DataPageVersion, StatisticsLevel, WriterProperties};
///
/// let props = WriterProperties::builder()
///     .compression(Codec::parse("zstd:3")?)
///     .column_compression("raw", Codec::parse("uncompressed")?)
///     .column_dictionary("ts", false)
///     .column_encoding("ts", Encoding::DeltaBinaryPacked)
///     .statistics(StatisticsLevel::Chunk)
///     .max_row_group_rows(Some(100_000))
///     .data_page_version(DataPageVersion::V2)
///     .page_crc(true)
///     .key_value("origin", Some("sensor-7".into()))
///     .build()?;
/// assert_eq!(props.max_row_group_rows(), Some(100_000));
/// assert!(props.page_crc());
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WriterProperties {
    defaults: ColumnOverrides,
    columns: BTreeMap<String, ColumnOverrides>,
    dictionary_page_size_limit: usize,
    max_row_group_rows: Option<usize>,
    max_row_group_bytes: Option<usize>,
    data_page_bytes: Option<usize>,
    data_page_rows: Option<usize>,
    data_page_version: DataPageVersion,
    page_crc: bool,
    float_total_order: bool,
    decimal_as_integer: bool,
    compliant_nested_types: bool,
    sorting_columns: Vec<SortingColumn>,
    key_value_metadata: Vec<(String, Option<String>)>,
    created_by: String,
    threads: usize,
    footer_index: bool,
    encryption: Option<Arc<FileEncryptionProperties>>,
    variant_shredding: BTreeMap<String, arrow_schema::DataType>,
}

impl Default for WriterProperties {
    fn default() -> Self {
        WriterProperties {
            defaults: ColumnOverrides::default(),
            columns: BTreeMap::new(),
            dictionary_page_size_limit: DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT,
            max_row_group_rows: Some(DEFAULT_ROW_GROUP_ROWS),
            max_row_group_bytes: Some(DEFAULT_ROW_GROUP_BYTES),
            data_page_bytes: Some(DEFAULT_DATA_PAGE_BYTES),
            data_page_rows: Some(DEFAULT_DATA_PAGE_ROWS),
            data_page_version: DataPageVersion::V1,
            page_crc: false,
            float_total_order: false,
            decimal_as_integer: false,
            compliant_nested_types: true,
            sorting_columns: Vec::new(),
            key_value_metadata: Vec::new(),
            created_by: DEFAULT_CREATED_BY.to_string(),
            threads: 1,
            footer_index: true,
            encryption: None,
            variant_shredding: BTreeMap::new(),
        }
    }
}

impl WriterProperties {
    /// A builder starting from the defaults.
    pub fn builder() -> WriterPropertiesBuilder {
        WriterPropertiesBuilder {
            props: WriterProperties::default(),
        }
    }

    /// The dictionary page size limit in bytes (the dictionary's PLAIN size), after which a
    /// column chunk falls back to its value encoding.
    pub fn dictionary_page_size_limit(&self) -> usize {
        self.dictionary_page_size_limit
    }

    /// Threads that encode the columns of a row group.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Maximum rows of a row group (`None`: no row limit).
    pub fn max_row_group_rows(&self) -> Option<usize> {
        self.max_row_group_rows
    }

    /// Byte budget of a row group (`None`: no byte limit).
    pub fn max_row_group_bytes(&self) -> Option<usize> {
        self.max_row_group_bytes
    }

    /// Target size of a data page in bytes (`None`: no byte limit).
    pub fn data_page_bytes(&self) -> Option<usize> {
        self.data_page_bytes
    }

    /// Maximum rows of a data page (`None`: no row limit).
    pub fn data_page_rows(&self) -> Option<usize> {
        self.data_page_rows
    }

    /// The data page format.
    pub fn data_page_version(&self) -> DataPageVersion {
        self.data_page_version
    }

    /// True to write a CRC-32 in every page header.
    pub fn page_crc(&self) -> bool {
        self.page_crc
    }

    /// True to write FLOAT, DOUBLE and FLOAT16 columns under `IEEE_754_TOTAL_ORDER`.
    pub fn float_total_order(&self) -> bool {
        self.float_total_order
    }

    /// True to write decimals of up to 9 digits as INT32 and up to 18 as INT64 (DECIMAL
    /// annotated), false for FIXED_LEN_BYTE_ARRAY.
    pub fn decimal_as_integer(&self) -> bool {
        self.decimal_as_integer
    }

    /// True to name every list's element `element` (the spec's name); false to name it
    /// after the Arrow list's child field (`item` for most writers).
    pub fn compliant_nested_types(&self) -> bool {
        self.compliant_nested_types
    }

    /// These properties with `sorting_columns` written in every row group instead (see
    /// [`WriterPropertiesBuilder::sorting_columns`]).
    pub fn with_sorting_columns(mut self, columns: Vec<SortingColumn>) -> Self {
        self.sorting_columns = columns;
        self
    }

    /// `sorting_columns` of every row group (empty: not written).
    pub fn sorting_columns(&self) -> &[SortingColumn] {
        &self.sorting_columns
    }

    /// Key-value metadata of the file, in insertion order.
    pub fn key_value_metadata(&self) -> &[(String, Option<String>)] {
        &self.key_value_metadata
    }

    /// `created_by` of the file.
    pub fn created_by(&self) -> &str {
        &self.created_by
    }

    /// True to write the footer index before the footer (never in an encrypted file).
    pub fn footer_index(&self) -> bool {
        self.footer_index && self.encryption.is_none()
    }

    /// The shredding schema of each Variant column given one, by dotted column path.
    pub fn variant_shredding(&self) -> &BTreeMap<String, arrow_schema::DataType> {
        &self.variant_shredding
    }

    /// How the file is encrypted, when it is.
    pub fn encryption(&self) -> Option<&FileEncryptionProperties> {
        self.encryption.as_deref()
    }

    /// The column paths that have settings of their own.
    pub fn configured_columns(&self) -> impl Iterator<Item = &str> {
        self.columns.keys().map(String::as_str)
    }

    /// The settings of the leaf at dotted `path` of physical type `physical`: its own
    /// settings, else the file-wide ones, else the defaults. Errors (naming the column) for
    /// an encoding the type cannot take and a dictionary requested on a BOOLEAN column.
    pub fn column_settings(&self, path: &str, physical: PhysicalType) -> Result<ColumnSettings> {
        let col = self.columns.get(path);
        let d = &self.defaults;
        let codec = col.and_then(|c| c.codec).or(d.codec).unwrap_or_default();
        let statistics = col
            .and_then(|c| c.statistics)
            .or(d.statistics)
            .unwrap_or_default();
        let max_statistics_len = col
            .and_then(|c| c.max_statistics_len)
            .or(d.max_statistics_len)
            .unwrap_or(Some(DEFAULT_MAX_STATISTICS_LEN));
        let bloom_filter = col
            .and_then(|c| c.bloom_filter)
            .or(d.bloom_filter)
            .flatten();
        if let Some(b) = &bloom_filter {
            b.validate(path)?;
        }
        // The most specific level that sets a value wins; an explicit value encoding
        // disables the default dictionary (see the module documentation).
        let encoding = col.and_then(|c| c.encoding).or(d.encoding);
        let dictionary_explicit = col.and_then(|c| c.dictionary).or(d.dictionary);
        let (dictionary, encoding) = match encoding {
            Some(Encoding::RleDictionary) => {
                if dictionary_explicit == Some(false) {
                    return Err(column_error(
                        path,
                        "RLE_DICTIONARY requested with dictionary encoding disabled",
                    ));
                }
                (true, Encoding::Plain)
            }
            Some(e) => (dictionary_explicit.unwrap_or(false), e),
            None => (dictionary_explicit.unwrap_or(true), Encoding::Plain),
        };
        check_encoding(path, encoding, physical)?;
        let dictionary = if physical == PhysicalType::Boolean {
            // Only a request made for this very column is an error; file-wide dictionary
            // settings simply do not apply to BOOLEAN columns.
            let asked = col.is_some_and(|c| {
                c.dictionary == Some(true) || c.encoding == Some(Encoding::RleDictionary)
            });
            if asked {
                return Err(column_error(
                    path,
                    "BOOLEAN columns cannot be dictionary encoded",
                ));
            }
            false
        } else {
            dictionary
        };
        if let PhysicalType::Unknown(v) = physical {
            return Err(column_error(
                path,
                format_args!("unknown physical type {v}"),
            ));
        }
        Ok(ColumnSettings {
            codec,
            dictionary,
            encoding,
            statistics,
            max_statistics_len,
            bloom_filter,
        })
    }

    /// Checks the properties against `schema` before anything is written: every column
    /// named in the properties (settings, bloom filters) must be a leaf of the schema, and
    /// every leaf's settings must be possible ([`WriterProperties::column_settings`]).
    /// Returns the settings of every leaf, in leaf order.
    pub fn resolve(&self, schema: &Schema) -> Result<Vec<ColumnSettings>> {
        for path in self.columns.keys() {
            if schema.leaf_index(path).is_none() {
                return Err(column_error(path, "no such column in the schema"));
            }
        }
        let n = schema.num_columns();
        for s in &self.sorting_columns {
            if usize::try_from(s.column_idx).map_or(true, |i| i >= n) {
                return Err(property_error(format_args!(
                    "sorting column index {} is out of range (the schema has {n} leaf columns)",
                    s.column_idx
                )));
            }
        }
        (0..n)
            .map(|leaf| {
                let path = schema.leaf_path_string(leaf);
                let physical = schema
                    .leaf_element(leaf)
                    .and_then(|e| e.physical_type)
                    .ok_or_else(|| column_error(&path, "leaf without a physical type"))?;
                self.column_settings(&path, physical)
            })
            .collect()
    }
}

/// Builder of [`WriterProperties`]. Setters never fail; [`WriterPropertiesBuilder::build`]
/// checks the file-wide settings, and [`WriterProperties::resolve`] the per-column ones
/// against the schema.
#[derive(Debug, Clone)]
pub struct WriterPropertiesBuilder {
    props: WriterProperties,
}

impl WriterPropertiesBuilder {
    fn column(&mut self, path: &str) -> &mut ColumnOverrides {
        self.props.columns.entry(path.to_string()).or_default()
    }

    /// File-wide codec.
    pub fn compression(mut self, codec: Codec) -> Self {
        self.props.defaults.codec = Some(codec);
        self
    }

    /// Codec of column `path` (dotted).
    pub fn column_compression(mut self, path: &str, codec: Codec) -> Self {
        self.column(path).codec = Some(codec);
        self
    }

    /// File-wide value encoding (see the module documentation for its interplay with the
    /// dictionary).
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.props.defaults.encoding = Some(encoding);
        self
    }

    /// Value encoding of column `path`.
    pub fn column_encoding(mut self, path: &str, encoding: Encoding) -> Self {
        self.column(path).encoding = Some(encoding);
        self
    }

    /// File-wide dictionary encoding on or off.
    pub fn dictionary(mut self, enabled: bool) -> Self {
        self.props.defaults.dictionary = Some(enabled);
        self
    }

    /// Dictionary encoding of column `path` on or off.
    pub fn column_dictionary(mut self, path: &str, enabled: bool) -> Self {
        self.column(path).dictionary = Some(enabled);
        self
    }

    /// Dictionary page size limit in bytes (at least 1).
    pub fn dictionary_page_size_limit(mut self, bytes: usize) -> Self {
        self.props.dictionary_page_size_limit = bytes;
        self
    }

    /// File-wide statistics level.
    pub fn statistics(mut self, level: StatisticsLevel) -> Self {
        self.props.defaults.statistics = Some(level);
        self
    }

    /// Statistics level of column `path`.
    pub fn column_statistics(mut self, path: &str, level: StatisticsLevel) -> Self {
        self.column(path).statistics = Some(level);
        self
    }

    /// File-wide maximum length of binary min/max values (`None`: never truncate; else at
    /// least 1).
    pub fn max_statistics_len(mut self, len: Option<usize>) -> Self {
        self.props.defaults.max_statistics_len = Some(len);
        self
    }

    /// Maximum length of binary min/max values of column `path`.
    pub fn column_max_statistics_len(mut self, path: &str, len: Option<usize>) -> Self {
        self.column(path).max_statistics_len = Some(len);
        self
    }

    /// Threads that encode the columns of a row group (at least 1). With more than one, the
    /// columns are encoded side by side into their buffers and written in order when the
    /// row group closes: the same bytes as with one, for more memory (a row group's pages
    /// are held, also when it is written from one batch).
    pub fn threads(mut self, threads: usize) -> Self {
        self.props.threads = threads;
        self
    }

    /// Maximum rows of a row group (`None`: no row limit).
    pub fn max_row_group_rows(mut self, rows: Option<usize>) -> Self {
        self.props.max_row_group_rows = rows;
        self
    }

    /// Byte budget of a row group (`None`: no byte limit).
    pub fn max_row_group_bytes(mut self, bytes: Option<usize>) -> Self {
        self.props.max_row_group_bytes = bytes;
        self
    }

    /// Target size of a data page in bytes (`None`: no byte limit).
    pub fn data_page_bytes(mut self, bytes: Option<usize>) -> Self {
        self.props.data_page_bytes = bytes;
        self
    }

    /// Maximum rows of a data page (`None`: no row limit).
    pub fn data_page_rows(mut self, rows: Option<usize>) -> Self {
        self.props.data_page_rows = rows;
        self
    }

    /// Data page format.
    pub fn data_page_version(mut self, version: DataPageVersion) -> Self {
        self.props.data_page_version = version;
        self
    }

    /// Page CRC-32 on or off.
    pub fn page_crc(mut self, enabled: bool) -> Self {
        self.props.page_crc = enabled;
        self
    }

    /// FLOAT, DOUBLE and FLOAT16 columns under the `IEEE_754_TOTAL_ORDER` column order (off:
    /// `TYPE_ORDER`, the default). Their min/max are then the smallest and largest non-NaN
    /// values by IEEE 754 totalOrder (-0.0 below +0.0, kept as written), or the smallest and
    /// largest NaN when every non-null value is NaN, and a page of NaNs only still gets its
    /// column index entry. Either way `nan_count` is written in the chunk statistics and
    /// `nan_counts` in the column index. Readers that know only `TYPE_ORDER` (pyarrow 26)
    /// ignore the min/max of such columns.
    pub fn float_total_order(mut self, enabled: bool) -> Self {
        self.props.float_total_order = enabled;
        self
    }

    /// Decimals of precision 1..=9 written as INT32 and 10..=18 as INT64, annotated DECIMAL
    /// (true), as pyarrow's `store_decimal_as_integer`; off (the default), every decimal is a
    /// FIXED_LEN_BYTE_ARRAY of the fewest bytes for its precision, as pyarrow writes by
    /// default. Decimals in a shredded Variant's `typed_value` are integers either way.
    pub fn decimal_as_integer(mut self, enabled: bool) -> Self {
        self.props.decimal_as_integer = enabled;
        self
    }

    /// List elements named `element` (true, the default) or after the Arrow list's child
    /// field (false), as pyarrow's `use_compliant_nested_type`.
    pub fn compliant_nested_types(mut self, enabled: bool) -> Self {
        self.props.compliant_nested_types = enabled;
        self
    }

    /// A Bloom filter for every column (`None`: none, unless a column asks for one).
    pub fn bloom_filter(mut self, settings: Option<BloomFilterProperties>) -> Self {
        self.props.defaults.bloom_filter = Some(settings);
        self
    }

    /// A Bloom filter for column `path` (`None`: none for this column).
    pub fn column_bloom_filter(
        mut self,
        path: &str,
        settings: Option<BloomFilterProperties>,
    ) -> Self {
        self.column(path).bloom_filter = Some(settings);
        self
    }

    /// `sorting_columns` written in every row group (the writer does not sort or check).
    pub fn sorting_columns(mut self, columns: Vec<SortingColumn>) -> Self {
        self.props.sorting_columns = columns;
        self
    }

    /// Adds a key-value pair to the file's metadata (a later pair with the same key
    /// replaces the earlier one).
    pub fn key_value(mut self, key: impl Into<String>, value: Option<String>) -> Self {
        let key = key.into();
        let kv = &mut self.props.key_value_metadata;
        match kv.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => kv.push((key, value)),
        }
        self
    }

    /// `created_by` of the file.
    pub fn created_by(mut self, created_by: impl Into<String>) -> Self {
        self.props.created_by = created_by.into();
        self
    }

    /// Encrypts the file (Parquet modular encryption): its footer and columns under the keys
    /// and in the mode of `encryption`.
    pub fn encryption(mut self, encryption: FileEncryptionProperties) -> Self {
        self.props.encryption = Some(Arc::new(encryption));
        self
    }

    /// Shreds Variant column `column` (a field of extension type `arrow.parquet.variant`,
    /// top-level or within structs, named by its dotted path: `outer.inner.v`) by
    /// `typed_value`, given short: a primitive type, `Struct` for an object's fields, `List`
    /// for an array's elements (see [`crate::variant::split`]).
    pub fn variant_shredding(mut self, column: &str, typed_value: arrow_schema::DataType) -> Self {
        self.props
            .variant_shredding
            .insert(column.to_string(), typed_value);
        self
    }

    /// The footer index on (the default) or off: where each row group and column chunk
    /// starts in the footer, written right before it (other readers never look there).
    pub fn footer_index(mut self, enabled: bool) -> Self {
        self.props.footer_index = enabled;
        self
    }

    /// Checks the file-wide settings: limits are at least 1, a row group and a page each
    /// have at least one limit, Bloom filter settings are in range.
    pub fn build(self) -> Result<WriterProperties> {
        let p = &self.props;
        let positive = |name: &str, v: Option<usize>| match v {
            Some(0) => Err(property_error(format_args!("{name} must be at least 1"))),
            _ => Ok(()),
        };
        positive(
            "the dictionary page size limit",
            Some(p.dictionary_page_size_limit),
        )?;
        positive("the row group row limit", p.max_row_group_rows)?;
        positive("the number of threads", Some(p.threads))?;
        positive("the row group byte limit", p.max_row_group_bytes)?;
        positive("the data page byte limit", p.data_page_bytes)?;
        positive("the data page row limit", p.data_page_rows)?;
        if p.max_row_group_rows.is_none() && p.max_row_group_bytes.is_none() {
            return Err(property_error(
                "a row group needs a row limit, a byte limit or both",
            ));
        }
        if p.data_page_bytes.is_none() && p.data_page_rows.is_none() {
            return Err(property_error(
                "a data page needs a byte limit, a row limit or both",
            ));
        }
        let all = std::iter::once(("<every column>", &p.defaults))
            .chain(p.columns.iter().map(|(k, v)| (k.as_str(), v)));
        for (path, c) in all {
            if c.max_statistics_len == Some(Some(0)) {
                return Err(column_error(
                    path,
                    "the maximum statistics length must be at least 1 (or unset to never truncate)",
                ));
            }
            if let Some(Some(b)) = &c.bloom_filter {
                b.validate(path)?;
            }
            if let Some(e) = c.encoding {
                if encoding_physical_types(e).is_empty() {
                    return Err(column_error(
                        path,
                        format_args!("the {e} encoding is not written"),
                    ));
                }
            }
        }
        Ok(self.props)
    }
}
