//! The column writers of a [`ParquetWriter`](super::ParquetWriter): one per leaf column.
//!
//! A column writer holds about 1.5 KB of state (its open page and chunk: statistics, page
//! index, levels, encoders). In a file of more than [`PARK_COLUMNS`] leaf columns, a column
//! drops that state once its chunk is finished: the column is *parked*, keeping only its
//! [`ColumnHints`], and a writer is made for it again (with the row group's encryptor) when
//! its next chunk starts. A wide file's row group is mostly written column after column
//! (rows held until the row group closes), so only one column is live at a time, and
//! 100,000 idle columns hold a few MB rather than 150. The bytes written are the same
//! either way.

use crate::format::crypto::FileEncryptor;
use crate::format::metadata::Schema;
use crate::write::arrow_schema::{LeafColumn, LeafType};
use crate::write::column::{ColumnHints, ColumnSpec, ColumnWriter, Shared};
use crate::write::levels::slot_level;
use crate::write::properties::{ColumnSettings, WriterProperties};
use crate::write::values::column_error;
use crate::Result;
use arrow_schema::DataType;

/// Files with more leaf columns than this park each column between its chunks.
pub(super) const PARK_COLUMNS: usize = 4096;

#[cfg(test)]
thread_local! {
    /// The tests' stand-in for [`PARK_COLUMNS`] (on this thread).
    pub(super) static PARK_ABOVE: std::cell::Cell<usize> = const { std::cell::Cell::new(PARK_COLUMNS) };
}

/// Whether a file of `leaves` leaf columns parks them.
fn parks(leaves: usize) -> bool {
    #[cfg(test)]
    return leaves > PARK_ABOVE.with(std::cell::Cell::get);
    #[cfg(not(test))]
    return leaves > PARK_COLUMNS;
}

/// One leaf's writer, or what remains of it between chunks.
#[derive(Debug)]
enum Slot {
    Live(Box<ColumnWriter>),
    Parked(ColumnHints),
}

/// What a column's writer is made from, besides the file's schema and properties.
#[derive(Debug)]
struct Made {
    ty: LeafType,
    data_type: DataType,
    settings: ColumnSettings,
}

/// The column writers of a file, by leaf.
#[derive(Debug, Default)]
pub(super) struct Columns {
    slots: Vec<Slot>,
    /// Kept only when columns are parked.
    made: Vec<Made>,
}

/// What making a column's writer needs from the file writer.
pub(super) struct Maker<'a> {
    pub schema: &'a Schema,
    pub props: &'a WriterProperties,
    pub encryptor: Option<&'a FileEncryptor>,
    /// The row group the writer writes first.
    pub row_group: usize,
}

impl Maker<'_> {
    /// The writer of leaf `j` (of type `ty` and Arrow type `data_type`) with `settings`.
    fn make(
        &self,
        j: usize,
        ty: &LeafType,
        data_type: &DataType,
        settings: ColumnSettings,
        shared: &mut Shared,
    ) -> Result<ColumnWriter> {
        let schema = self.schema;
        let name = schema.leaf_path_string(j);
        let (Some(element), Some(levels)) = (schema.leaf_element(j), schema.leaves().get(j)) else {
            return Err(column_error(
                &name,
                "internal error: a leaf not in the schema",
            ));
        };
        let spec = ColumnSpec {
            name: &name,
            data_type,
            leaf: ty,
            element,
            max_def: levels.max_def_level,
            max_rep: levels.max_rep_level,
            slot_level: slot_level(schema, schema.leaf_path_elements(j)),
        };
        let mut w = ColumnWriter::new(spec, settings, self.props, shared)?;
        if let Some(e) = self.encryptor {
            w.set_encryptor(e.column(self.row_group, j)?);
        }
        Ok(w)
    }
}

impl Columns {
    /// A writer for each leaf of `leaves` with its `settings` (every impossible request an
    /// error here); parked at once in a file of more than [`PARK_COLUMNS`] leaves.
    pub(super) fn new(
        maker: &Maker<'_>,
        leaves: &[LeafColumn],
        settings: Vec<ColumnSettings>,
        shared: &mut Shared,
    ) -> Result<Columns> {
        let park = parks(leaves.len());
        let mut slots = Vec::with_capacity(leaves.len());
        let mut made = Vec::with_capacity(if park { leaves.len() } else { 0 });
        for (j, (leaf, s)) in leaves.iter().zip(settings).enumerate() {
            let w = maker.make(j, &leaf.ty, &leaf.data_type, s, shared)?;
            if park {
                slots.push(Slot::Parked(w.hints()));
                made.push(Made {
                    ty: leaf.ty,
                    data_type: leaf.data_type.clone(),
                    settings: s,
                });
            } else {
                slots.push(Slot::Live(Box::new(w)));
            }
        }
        Ok(Columns { slots, made })
    }

    /// The number of leaf columns.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The writer of leaf `j`, made again if it was parked.
    pub(super) fn writer(
        &mut self,
        j: usize,
        maker: &Maker<'_>,
        shared: &mut Shared,
    ) -> Result<&mut ColumnWriter> {
        let slot = self
            .slots
            .get_mut(j)
            .ok_or_else(|| super::writer_error("internal error: no writer for a leaf"))?;
        if let Slot::Parked(hints) = *slot {
            let m = self
                .made
                .get(j)
                .ok_or_else(|| super::writer_error("internal error: a parked leaf's type"))?;
            let mut w = maker.make(j, &m.ty, &m.data_type, m.settings, shared)?;
            w.restore_hints(hints);
            *slot = Slot::Live(Box::new(w));
        }
        match slot {
            Slot::Live(w) => Ok(w),
            Slot::Parked(_) => Err(super::writer_error("internal error: a parked writer")),
        }
    }

    /// Every writer, the parked ones made again: for writes that give rows to every column.
    pub(super) fn all(
        &mut self,
        maker: &Maker<'_>,
        shared: &mut Shared,
    ) -> Result<Vec<&mut ColumnWriter>> {
        if !self.made.is_empty() {
            for j in 0..self.slots.len() {
                self.writer(j, maker, shared)?;
            }
        }
        Ok(self.live().map(|(_, w)| w).collect())
    }

    /// Parks leaf `j`'s writer, whose chunk is finished, in a file whose columns park.
    pub(super) fn park(&mut self, j: usize) {
        if self.made.is_empty() {
            return;
        }
        if let Some(slot) = self.slots.get_mut(j) {
            if let Slot::Live(w) = slot {
                *slot = Slot::Parked(w.hints());
            }
        }
    }

    /// The writers that are not parked.
    pub(super) fn live(&mut self) -> impl Iterator<Item = (usize, &mut ColumnWriter)> {
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(|(j, s)| match s {
                Slot::Live(w) => Some((j, &mut **w)),
                Slot::Parked(_) => None,
            })
    }

    /// Bytes of pages buffered by the writers.
    pub(super) fn buffered_bytes(&self) -> usize {
        self.slots
            .iter()
            .map(|s| match s {
                Slot::Live(w) => w.buffered_bytes(),
                Slot::Parked(_) => 0,
            })
            .sum()
    }
}
