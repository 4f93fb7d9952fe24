//! The write path: Arrow record batches to a Parquet file.
//!
//! The architecture, one stage per module:
//!
//! 1. **Properties** ([`properties`]): file-wide and per-column settings (codec and level,
//!    value encoding, dictionary and its size limit, statistics level and truncation, row
//!    group and page limits, data page version, CRC, Bloom filters, sorting columns,
//!    key-value metadata, `created_by`), resolved per leaf and validated against the schema
//!    before any byte is written.
//! 2. **Column writer** (per leaf, [`column`](mod@column)): Arrow array -> definition/repetition levels +
//!    non-null values -> encoded values (dictionary with fallback, or the column's value
//!    encoding; `encoding::encode`) -> data pages (v1 or v2, compressed by
//!    `compression::compress`, optional CRC). While values pass, it feeds a page
//!    [`StatsAccumulator`] and [`SizeStatsAccumulator`] (merged into the chunk's at each page
//!    end), a [`ColumnIndexBuilder`] and an [`OffsetIndexBuilder`], and the chunk's [`Sbbf`]
//!    (sized by [`BloomFilterProperties::num_bytes`] for the row group limit, folded with
//!    [`Sbbf::fold_to`] when the chunk ends to its distinct values: its dictionary's entries,
//!    or its values when not dictionary-encoded throughout).
//!    Nested leaves get their definition and repetition levels from [`levels`] (record
//!    shredding of the field's array).
//! 3. **Chunk**: the dictionary page and data pages of one leaf in one row group, with its
//!    `ColumnChunk` metadata (statistics via [`StatsAccumulator::to_statistics`], size
//!    statistics, encodings, encoding stats). Its buffers are released once written.
//! 4. **Row group**: the chunks of all leaves, flushed when a row or byte limit is reached;
//!    only the open row group's pages are held. A finished row group is kept as the bytes of
//!    its footer entry, compressed (`packed`), until the footer.
//! 5. **Footer**: after the last row group, the Bloom filters ([`Sbbf::write`]), the page
//!    indexes ([`PageIndexWriter::write`], whose locations are set on each `ColumnChunk` as
//!    its row group is streamed into the footer), then
//!    `FileMetaData` (schema, row groups, key-value metadata with `ARROW:schema`,
//!    `column_orders` from [`StatsOrder::column_order`], `created_by`) and `PAR1`.
//!
//! The modules: [`properties`], [`statistics`] (min/max with the spec's orders, NaN and
//! signed-zero rules, truncation with exactness flags), [`size_stats`] (unencoded bytes and
//! level histograms), [`page_index`]
//! (column and offset index builders, file-level collection and serialization), [`crate::bloom`]
//! (XXH64 and split block Bloom filters), [`arrow_schema`] (Arrow -> Parquet schema as
//! pyarrow 26 writes it, and the `ARROW:schema` key-value; `geo`: GEOMETRY / GEOGRAPHY from
//! `geoarrow.wkb` fields; `variant`: VARIANT groups, shredded as
//! [`WriterProperties::variant_shredding`] asks), [`column`](mod@column) (stages 2 and 3: the
//! column writer, per leaf; Arrow values as physical values in `values`, the value encoders
//! and the dictionary in `encoder`) and [`file`](mod@file) (stages 4 and 5: [`ParquetWriter`] over
//! `std::io::Write`), [`levels`] (record shredding: the levels of nested leaves). Lists of the
//! five Arrow kinds, maps and structs are written at any depth.

pub mod arrow_schema;
pub mod column;
mod encoder;
pub mod file;
mod geo;
mod held;
pub mod levels;
mod packed;
pub mod page_index;
pub mod properties;
pub mod size_stats;
pub mod statistics;
mod values;
mod variant;

pub use crate::bloom::Sbbf;
pub(crate) use file::{copy_refusal, Inherited};
pub use file::{ParquetWriter, WrittenFile};
pub use page_index::{
    BuiltColumnIndex, ColumnIndexBuilder, OffsetIndexBuilder, PageIndexLocation, PageIndexWriter,
};
pub use properties::{
    BloomFilterProperties, Codec, ColumnSettings, DataPageVersion, StatisticsLevel,
    WriterProperties, WriterPropertiesBuilder,
};
pub use size_stats::SizeStatsAccumulator;
pub use statistics::{Bounds, StatsAccumulator, StatsOrder};
