//! [`ParquetDecoderBuilder`]: what a read decodes (a file's metadata, columns, row groups,
//! options, a filter, a row selection) and the [`ParquetDecoder`] it makes: the plan of the
//! chosen columns plus those the filter reads, the filter bound to them, the row groups the
//! filter's statistics leave, the Bloom filters to read for its `=` and `IN`, whether
//! dictionaries are read and whether the page index is (when pages may be skipped).

use std::cell::OnceCell;
use std::sync::{Arc, OnceLock};

use arrow_schema::SchemaRef;

use crate::error::arrow_error;
use crate::format::metadata::FileMetaData;
use crate::page::needs_legacy_dictionary_padding;
use crate::read::decode::chunk::chunk_of;
use crate::read::decode::leaf::{ChunkSource, ColumnOptions};
use crate::read::exec::decoder::ParquetDecoder;
use crate::read::exec::prune::{BloomWant, Setup, Stage};
use crate::read::exec::stats::{data_pages, row_group_rows, ReadStats};
use crate::read::filter::bind::BoundFilter;
use crate::read::filter::path::{
    file_field, file_leaves, find, plan_leaves, resolve, top_level, Resolved, Target,
};
use crate::read::filter::predicate::Predicate;
use crate::read::options::ReadOptions;
use crate::read::plan::fields::{plan, ColumnSelection, Node, Plan, Shape};
use crate::read::plan::selection::RowSelection;
use crate::schema::FileKeyValues;
use crate::{Error, ErrorKind, Result};

/// The methods that choose what a read decodes (options, columns, row groups), for
/// [`ParquetDecoderBuilder`] and the readers that hold one (`$inner`: the path to it).
macro_rules! read_settings {
    ($($inner:ident).*) => {
        /// Sets all options.
        pub fn with_options(mut self, options: $crate::read::options::ReadOptions) -> Self {
            self$(.$inner)*.options = options;
            self
        }

        /// Sets the batch size in rows (at least 1).
        pub fn with_batch_size(mut self, rows: usize) -> Self {
            self$(.$inner)*.options.batch_size = rows.max(1);
            self
        }

        /// Sets how string columns are read.
        pub fn with_strings(mut self, strings: $crate::read::options::StringType) -> Self {
            self$(.$inner)*.options.strings = strings;
            self
        }

        /// Sets which string / binary columns are read as Arrow dictionaries.
        pub fn with_dictionary(mut self, dictionary: $crate::read::options::DictionaryColumns) -> Self {
            self$(.$inner)*.options.dictionary = dictionary;
            self
        }

        /// Sets how many threads decode the columns side by side (at least 1).
        pub fn with_threads(mut self, threads: usize) -> Self {
            self$(.$inner)*.options.threads = threads.max(1);
            self
        }

        /// Sets whether page CRCs are verified.
        pub fn with_verify_crc(mut self, verify: bool) -> Self {
            self$(.$inner)*.options.verify_crc = verify;
            self
        }

        /// Sets what to do with strings that are not valid UTF-8.
        pub fn with_invalid_utf8(mut self, invalid_utf8: $crate::read::options::InvalidUtf8) -> Self {
            self$(.$inner)*.options.invalid_utf8 = invalid_utf8;
            self
        }

        /// Reads only these columns, in this order (default: all): top-level fields by index
        /// or name, or dotted paths inside them.
        pub fn with_columns<C: Into<$crate::read::plan::fields::ColumnSelection>>(
            mut self,
            columns: impl IntoIterator<Item = C>,
        ) -> Self {
            self$(.$inner)*.columns = Some(columns.into_iter().map(Into::into).collect());
            self
        }

        /// Reads only these row groups, in this order (default: all).
        pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
            self$(.$inner)*.row_groups = Some(row_groups.into_iter().collect());
            self
        }

        /// Keeps only the rows `predicate` holds for (SQL semantics: not where it is false
        /// or null). Row groups whose statistics show no row can hold are not read; its
        /// columns are decoded even when not chosen, and left out of the batches.
        pub fn with_filter(mut self, predicate: $crate::read::filter::predicate::Predicate) -> Self {
            self$(.$inner)*.filter = Some(predicate);
            self
        }

        /// Reads only these rows (counted over the chosen row groups, in the order they are
        /// read); pages the offset index shows hold none of them are not read.
        pub fn with_row_selection(mut self, rows: $crate::read::plan::selection::RowSelection) -> Self {
            self$(.$inner)*.selection = Some(rows);
            self
        }
    };
}
pub(crate) use read_settings;

/// What a reader holding a [`ParquetDecoderBuilder`] (the field `builder`) tells of the
/// read: its footer, options and batch schema, besides [`read_settings`].
macro_rules! reader_settings {
    () => {
        $crate::read::exec::builder::read_settings!(builder);

        /// The decoded footer.
        pub fn metadata(&self) -> &$crate::format::metadata::FileMetaData {
            self.builder.metadata()
        }

        /// The options in force.
        pub fn options(&self) -> &$crate::read::options::ReadOptions {
            self.builder.options()
        }

        /// The Arrow schema of the batches (the chosen columns).
        pub fn schema(&self) -> $crate::Result<arrow_schema::SchemaRef> {
            self.builder.schema()
        }
    };
}
pub(crate) use reader_settings;

/// The decompression buffers all the leaves of a read keep between pages, at most (each
/// its share): a few columns keep theirs whole, thousands let them go after each page.
const BUFFERS_BUDGET: usize = 64 << 20;

/// The choice of what a read decodes: a file's metadata, columns, row groups and options.
/// [`ParquetDecoderBuilder::build`] makes the [`ParquetDecoder`].
#[derive(Debug, Clone)]
pub struct ParquetDecoderBuilder {
    meta: Arc<FileMetaData>,
    file_len: u64,
    pub(crate) options: ReadOptions,
    pub(crate) columns: Option<Vec<ColumnSelection>>,
    pub(crate) row_groups: Option<Vec<usize>>,
    pub(crate) filter: Option<Predicate>,
    pub(crate) selection: Option<RowSelection>,
    /// The footer's key-value metadata decoded (its `ARROW:schema` above all), once for
    /// every plan of this read and its clones.
    key_values: Arc<OnceLock<FileKeyValues>>,
    /// The plan of this read made for all its row groups, for the decoders of its row groups
    /// ([`ParquetDecoderBuilder::with_planned`]).
    planned: Option<Arc<Planned>>,
}

/// A read's plan, its filter bound to the plan and the schema of its batches: made once
/// for all the row groups of a read, and shared by the decoders of each.
#[derive(Debug)]
pub(crate) struct Planned {
    /// The chosen columns, then those only the filter reads.
    pub plan: Arc<Plan>,
    /// The filter, and how many of the plan's columns are handed out (the first ones).
    pub filter: Option<(Arc<BoundFilter>, usize)>,
    /// The schema of the batches handed out.
    pub output: SchemaRef,
}

impl ParquetDecoderBuilder {
    /// A read of the file of `file_len` bytes whose footer is `meta`: every column and row
    /// group, default options.
    pub fn new(meta: Arc<FileMetaData>, file_len: u64) -> Self {
        ParquetDecoderBuilder {
            meta,
            file_len,
            options: ReadOptions::default(),
            columns: None,
            row_groups: None,
            filter: None,
            selection: None,
            key_values: Arc::new(OnceLock::new()),
            planned: None,
        }
    }

    read_settings!();

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.meta
    }

    /// The decoded footer, shared.
    pub fn metadata_arc(&self) -> &Arc<FileMetaData> {
        &self.meta
    }

    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The options in force.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The Arrow schema of the batches (the chosen columns).
    pub fn schema(&self) -> Result<SchemaRef> {
        match &self.planned {
            Some(planned) => Ok(planned.output.clone()),
            None => Ok(self.plan(&[])?.schema),
        }
    }

    /// The chosen row groups, checked.
    pub(crate) fn chosen_row_groups(&self) -> Result<Vec<usize>> {
        let n = self.meta.row_groups().len();
        match &self.row_groups {
            None => Ok((0..n).collect()),
            Some(list) => {
                if let Some(&rg) = list.iter().find(|&&rg| rg >= n) {
                    return Err(Error::new(ErrorKind::OutOfBounds {
                        what: "row group",
                        index: rg as u64,
                        len: n as u64,
                    }));
                }
                Ok(list.clone())
            }
        }
    }

    /// The read plan of the chosen columns, and of the fields `extra` as top-level nodes of
    /// their own after them.
    fn plan(&self, extra: &[ColumnSelection]) -> Result<Plan> {
        let row_groups = self.chosen_row_groups()?;
        let key_values = self
            .key_values
            .get_or_init(|| FileKeyValues::of(&self.meta));
        plan(
            &self.meta,
            key_values,
            &self.options,
            self.columns.as_deref(),
            extra,
            &row_groups,
        )
    }

    /// The plan of the read, its filter bound to it and the schema of its batches: the one
    /// given by [`ParquetDecoderBuilder::with_planned`], else made now.
    pub(crate) fn planned(&self) -> Result<Arc<Planned>> {
        if let Some(planned) = &self.planned {
            return Ok(Arc::clone(planned));
        }
        let chosen = self.plan(&[])?;
        let (plan, filter) = match &self.filter {
            None => (chosen, None),
            Some(predicate) => {
                let outputs = chosen.nodes.len();
                let mut missing: Vec<ColumnSelection> = Vec::new();
                for c in predicate.columns() {
                    if let Some(extra) = filter_extra(&chosen, c)? {
                        if !missing.contains(&extra) {
                            missing.push(extra);
                        }
                    }
                }
                let plan = match missing.is_empty() {
                    true => chosen,
                    false => self.plan(&missing)?,
                };
                let bound = BoundFilter::bind_with(predicate, &mut |c| filter_column(&plan, c))?;
                (plan, Some((Arc::new(bound), outputs)))
            }
        };
        let output = match &filter {
            Some((_, n)) => Arc::new(
                plan.schema
                    .project(&(0..*n).collect::<Vec<_>>())
                    .map_err(arrow_error)?,
            ),
            None => plan.schema.clone(),
        };
        Ok(Arc::new(Planned {
            plan: Arc::new(plan),
            filter,
            output,
        }))
    }

    /// Reads with `planned`, the plan of this builder's read made for all its row groups
    /// ([`ParquetDecoderBuilder::planned`]), rather than planning again: the decoders of a
    /// read's row groups share it (and so decode each column as the same Arrow type). Only
    /// the row groups and threads may be changed after it.
    pub(crate) fn with_planned(mut self, planned: Arc<Planned>) -> Self {
        self.planned = Some(planned);
        self
    }

    /// What the read decodes: see [`Setup`].
    pub(crate) fn setup(&self) -> Result<Setup> {
        let chosen_groups = self.chosen_row_groups()?;
        let planned = self.planned()?;
        let (plan, filter) = (&planned.plan, &planned.filter);
        // The user's selection, per row group, in its rows.
        let mut row_groups = Vec::with_capacity(chosen_groups.len());
        let mut start = 0u64;
        let mut stats = ReadStats::default();
        for &rg in &chosen_groups {
            let rows = row_group_rows(&self.meta, rg)? as u64;
            let selection = self
                .selection
                .as_ref()
                .map(|s| s.window(start, start + rows));
            start += rows;
            let pruned = filter
                .as_ref()
                .is_some_and(|(f, _)| !f.may_match(&self.meta, rg));
            if pruned || selection.as_ref().is_some_and(|s| s.row_count() == 0) {
                stats.row_groups_skipped += 1;
                stats.pages_skipped += data_pages(&self.meta, rg, plan);
                continue;
            }
            row_groups.push((rg, selection));
        }
        let mut leaves: Vec<usize> = plan.leaves.iter().map(|l| l.leaf).collect();
        leaves.sort_unstable();
        leaves.dedup();
        // The Bloom filters of the row groups left, for the filter's `=` and `IN`.
        let mut blooms = Vec::new();
        if let (Some((f, _)), true) = (&filter, self.options.bloom_filters) {
            let starts = OnceCell::new();
            for (group, (rg, _)) in row_groups.iter().enumerate() {
                for (col, leaf, range) in f.bloom_ranges(&self.meta, *rg, self.file_len, &starts) {
                    // An encrypted column's filter is decrypted with its key; without the key
                    // it is not used (reading the column reports the key missing).
                    let decryptor = chunk_of(&self.meta, *rg, leaf)
                        .and_then(|c| self.meta.chunk_decryptor(*rg, leaf, c));
                    let Ok(decryptor) = decryptor else { continue };
                    if range.end <= self.file_len {
                        blooms.push(BloomWant {
                            group,
                            col,
                            range,
                            decryptor,
                            loaded: None,
                        });
                    }
                }
            }
        }
        // The page index, when pages may be skipped: by the filter's column index, or rows
        // the selection leaves out.
        let read_index = filter.is_some() || self.selection.is_some();
        Ok(Setup {
            meta: Arc::clone(&self.meta),
            columns: ColumnOptions {
                verify_crc: self.options.verify_crc,
                legacy_dictionary_padding: needs_legacy_dictionary_padding(
                    self.meta.created_by().as_deref(),
                ),
                buffer_budget: BUFFERS_BUDGET / leaves.len().max(1),
            },
            source: ChunkSource {
                meta: Arc::clone(&self.meta),
                file_len: self.file_len,
                fetch: self.options.fetch_bytes.max(1),
            },
            batch_size: self.options.batch_size.max(1),
            coalesce: self.options.coalesce_bytes,
            threads: self.options.threads.max(1),
            selected: self.selection.is_some(),
            plan: Arc::clone(plan),
            output: planned.output.clone(),
            filter: filter.clone(),
            row_groups,
            leaves,
            dictionary_filters: self.options.dictionary_filters,
            read_index,
            stage: Stage::Blooms(blooms),
            stats,
        })
    }

    /// The decoder of the chosen columns and row groups.
    pub fn build(&self) -> Result<ParquetDecoder> {
        ParquetDecoder::new(self.setup()?)
    }
}

/// What a read of plan `chosen` must decode besides for filter column `name`: `None` when
/// `chosen` holds it (a top-level field, a primitive field inside chosen structs, a whole
/// Variant column), else the selection to plan after the chosen fields.
fn filter_extra(chosen: &Plan, name: &str) -> Result<Option<ColumnSelection>> {
    if chosen.schema.column_with_name(name).is_some() {
        return Ok(None);
    }
    let select = |names: &[String]| ColumnSelection::Path(names.join("."));
    Ok(match resolve(&chosen.file_fields, name)? {
        Target::TopLevel => Some(ColumnSelection::Path(name.to_string())),
        Target::Field { names, .. } => match find(&chosen.nodes, &names, &is_leaf) {
            Some(_) => None,
            None => Some(select(&names)),
        },
        Target::Variant { names, .. } => {
            let whole = whole_variant(chosen, &names);
            match find(&chosen.nodes, &names, &whole) {
                Some(_) => None,
                None => Some(select(&names)),
            }
        }
    })
}

fn is_leaf(node: &Node) -> bool {
    matches!(node.shape, Shape::Leaf(_))
}

/// Whether a plan node is the whole Variant column at `names` (all its leaves decoded).
fn whole_variant<'a>(plan: &'a Plan, names: &'a [String]) -> impl Fn(&Node) -> bool + 'a {
    let leaves = file_field(&plan.file_fields, names).map(file_leaves);
    move |node: &Node| Some(plan_leaves(node)) == leaves
}

/// Where filter column `name` is in the read of `plan`: see [`BoundFilter::bind_with`].
fn filter_column(plan: &Plan, name: &str) -> Result<Resolved> {
    let leaves: Vec<Option<usize>> = plan
        .nodes
        .iter()
        .map(|n| match n.shape {
            Shape::Leaf(j) => plan.leaves.get(j).map(|l| l.leaf),
            _ => None,
        })
        .collect();
    if plan.schema.column_with_name(name).is_some() {
        return top_level(&plan.schema, &leaves, name);
    }
    let lost = || crate::error::internal(format!("filter column `{name}` not in the read plan"));
    match resolve(&plan.file_fields, name)? {
        Target::TopLevel => top_level(&plan.schema, &leaves, name),
        Target::Field { names, leaf } => {
            let (index, path, node) = find(&plan.nodes, &names, &is_leaf).ok_or_else(lost)?;
            Ok(Resolved {
                index,
                path,
                leaf: Some(leaf),
                data_type: node.field.data_type().clone(),
                variant: None,
            })
        }
        Target::Variant {
            names,
            fields,
            shredded,
        } => {
            let whole = whole_variant(plan, &names);
            let (index, path, _) = find(&plan.nodes, &names, &whole).ok_or_else(lost)?;
            let (leaf, data_type) = match shredded.typed {
                Some((leaf, t)) => (Some(leaf), t),
                None => (None, arrow_schema::DataType::Null),
            };
            Ok(Resolved {
                index,
                path,
                leaf,
                data_type,
                variant: Some((fields, shredded.value)),
            })
        }
    }
}
