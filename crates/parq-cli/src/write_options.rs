//! The writer options of `parq convert ... OUT.parquet` ([`WriteArgs`]) and their
//! translation into [`WriterProperties`]. Names are parquet.thrift's, case-insensitive; the
//! parsing and every check (an encoding a type cannot take, an unknown column) is the
//! library's (`parq::write::properties`), so the CLI and the API refuse the same requests.

use parq::format::crypto::FileEncryptionProperties;
use parq::write::properties::{
    parse_encoding_arg, BloomFilterProperties, Codec, DataPageVersion, StatisticsLevel,
    WriterProperties,
};

use crate::keys::EncryptArgs;

/// Options of the Parquet writer (only with a `.parquet` output).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct WriteArgs {
    /// Page codec: uncompressed, snappy, gzip, lz4_raw, zstd or brotli, with `:LEVEL` where
    /// the codec has levels (e.g. zstd:3). Default: snappy.
    #[arg(long, value_name = "CODEC[:LEVEL]")]
    pub compression: Option<String>,
    /// Value encoding for every column (ENCODING) or one column (COLUMN=ENCODING); repeatable.
    /// PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
    /// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT or RLE (booleans).
    #[arg(long, value_name = "[COLUMN=]ENCODING")]
    pub encoding: Vec<String>,
    /// Dictionary encoding (with PLAIN fallback past the dictionary page limit). Default: true.
    #[arg(long, value_name = "true|false")]
    pub dictionary: Option<bool>,
    /// Statistics: none, chunk, or page (chunk statistics plus the column index). Default: page.
    #[arg(long, value_name = "none|chunk|page")]
    pub statistics: Option<String>,
    /// Rows per row group at most.
    #[arg(long, value_name = "N")]
    pub row_group_rows: Option<usize>,
    /// Bytes per data page at most (before compression).
    #[arg(long, value_name = "N")]
    pub page_bytes: Option<usize>,
    /// Rows per data page at most.
    #[arg(long, value_name = "N")]
    pub page_rows: Option<usize>,
    /// Data page version: 1 or 2. Default: 1.
    #[arg(long, value_name = "1|2")]
    pub data_page_version: Option<String>,
    /// Write a split-block Bloom filter for this column; repeatable.
    #[arg(long, value_name = "COLUMN")]
    pub bloom_filter: Vec<String>,
    /// Write page CRCs.
    #[arg(long)]
    pub crc: bool,
    /// Write FLOAT, DOUBLE and FLOAT16 columns under the IEEE_754_TOTAL_ORDER column order
    /// (min/max by IEEE 754 totalOrder; pyarrow 26 ignores them) instead of TYPE_ORDER.
    #[arg(long)]
    pub float_total_order: bool,
    /// Name list elements `element`, as the spec asks (true), or after the input's list
    /// child field, e.g. `item` (false), as pyarrow's `use_compliant_nested_type`.
    /// Default: true.
    #[arg(long, value_name = "true|false")]
    pub compliant_nested_types: Option<bool>,
    /// Threads that encode a row group's columns (the same bytes as with one). Default: 1.
    #[arg(long, value_name = "N")]
    pub write_threads: Option<usize>,
    /// Write parq's footer index (where each row group and column chunk starts in the
    /// footer, before it, where other readers never look), so a reader of a few columns
    /// skips the rest. Default: true.
    #[arg(long, value_name = "true|false")]
    pub footer_index: Option<bool>,
    #[command(flatten)]
    pub encrypt: EncryptArgs,
}

impl WriteArgs {
    /// Whether any option was given (they apply to Parquet outputs only).
    pub fn any(&self) -> bool {
        self.compression.is_some()
            || !self.encoding.is_empty()
            || self.dictionary.is_some()
            || self.statistics.is_some()
            || self.row_group_rows.is_some()
            || self.page_bytes.is_some()
            || self.page_rows.is_some()
            || self.data_page_version.is_some()
            || !self.bloom_filter.is_empty()
            || self.crc
            || self.float_total_order
            || self.compliant_nested_types.is_some()
            || self.write_threads.is_some()
            || self.footer_index.is_some()
            || self.encrypt.any()
    }

    /// The writer properties these options ask for (defaults for the rest), encrypting with
    /// `encryption` when given.
    pub fn properties(
        &self,
        encryption: Option<FileEncryptionProperties>,
    ) -> parq::Result<WriterProperties> {
        let mut b = WriterProperties::builder();
        if let Some(c) = &self.compression {
            b = b.compression(Codec::parse(c)?);
        }
        if let Some(d) = self.dictionary {
            b = b.dictionary(d);
        }
        for arg in &self.encoding {
            b = match parse_encoding_arg(arg)? {
                (Some(column), e) => b.column_encoding(&column, e),
                (None, e) => b.encoding(e),
            };
        }
        if let Some(s) = &self.statistics {
            b = b.statistics(StatisticsLevel::parse(s)?);
        }
        if let Some(n) = self.row_group_rows {
            b = b.max_row_group_rows(Some(n));
        }
        if let Some(n) = self.page_bytes {
            b = b.data_page_bytes(Some(n));
        }
        if let Some(n) = self.page_rows {
            b = b.data_page_rows(Some(n));
        }
        if let Some(v) = &self.data_page_version {
            b = b.data_page_version(DataPageVersion::parse(v)?);
        }
        for column in &self.bloom_filter {
            b = b.column_bloom_filter(column, Some(BloomFilterProperties::default()));
        }
        if self.crc {
            b = b.page_crc(true);
        }
        if self.float_total_order {
            b = b.float_total_order(true);
        }
        if let Some(c) = self.compliant_nested_types {
            b = b.compliant_nested_types(c);
        }
        if let Some(n) = self.write_threads {
            b = b.threads(n);
        }
        if let Some(i) = self.footer_index {
            b = b.footer_index(i);
        }
        if let Some(e) = encryption {
            b = b.encryption(e);
        }
        b.build()
    }
}
