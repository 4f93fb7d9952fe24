//! The way in of a nested leaf's values: its levels shredded from the field's array (see
//! `write::levels`), written in slices that end at record boundaries, with the values of
//! the entries' leaf slots.

use super::*;

impl ColumnWriter {
    /// Writes the leaf's levels and values of all the rows of `array`, the column of the
    /// top-level `field` that holds the leaf at `path` (see
    /// [`LeafColumn::path`](crate::write::arrow_schema::LeafColumn::path)). Pages end at record
    /// boundaries. With `sink`, closed pages go straight to it as [`write`](Self::write)
    /// says.
    pub fn write_nested(
        &mut self,
        field: &Field,
        array: &ArrayRef,
        path: &[usize],
        shared: &mut Shared,
        sink: Option<&mut dyn Write>,
    ) -> Result<()> {
        let shredded = shred(&self.name, field, array, path, self.max_rep > 0)?;
        self.write_shredded(&shredded, shared, sink)
    }

    /// Writes the level entries of a nested leaf for some rows, and the values of their
    /// slots, to the open chunk.
    fn write_shredded(
        &mut self,
        shredded: &Shredded,
        shared: &mut Shared,
        mut sink: Option<&mut dyn Write>,
    ) -> Result<()> {
        // Entries that reach no value slot (null or empty lists only) have no leaf array.
        let values = match &shredded.values {
            Some(v) => v.clone(),
            None => arrow_array::new_empty_array(&self.data_type),
        };
        let (def, rep) = (&shredded.def[..], &shredded.rep[..]);
        if self.max_rep > 0 && rep.len() != def.len() {
            return Err(self.internal("repetition level per entry"));
        }
        if self.page.values == 0 {
            self.make_due_room();
        }
        let (mut at, mut slot) = (0, 0);
        while at < def.len() {
            let room = self.page_rows.saturating_sub(self.page.records).max(1);
            let (end, records) = next_slice(rep, at, def.len(), room);
            let levels = Levels {
                def: &def[at..end],
                rep: rep.get(at..end).unwrap_or_default(),
                records,
            };
            let slots = self.write_leveled(values.as_ref(), slot, levels, shared)?;
            at = end;
            slot += slots;
            self.end_slice(shared, sink.as_mut().map(|s| &mut **s as &mut dyn Write))?;
        }
        self.end_write(values.len(), shared);
        Ok(())
    }

    /// Writes level entries `levels` and the values of their slots, from slot `slot` of
    /// `values` on; returns the number of slots. A slot's value is valid when its entry's
    /// definition level is the maximum.
    fn write_leveled(
        &mut self,
        values: &dyn Array,
        slot: usize,
        levels: Levels<'_>,
        shared: &mut Shared,
    ) -> Result<usize> {
        let max = self.max_def as u16;
        let floor = self.slot_level;
        let mut bits = std::mem::take(&mut shared.slot_bits);
        bits.clear();
        let (slots, valid) = if max > floor {
            // The validity of the slots, 64 at a time: an entry below the slot level adds
            // no bit (its level is not the maximum, so it sets none either).
            let (mut word, mut n, mut slots, mut valid) = (0u64, 0u32, 0, 0);
            for &d in levels.def {
                word |= u64::from(d == max) << n;
                n += u32::from(d >= floor);
                if n == 64 {
                    bits.extend_from_slice(&word.to_le_bytes());
                    valid += word.count_ones() as usize;
                    slots += 64;
                    (word, n) = (0, 0);
                }
            }
            bits.extend_from_slice(&word.to_le_bytes()[..(n as usize).div_ceil(8)]);
            (slots + n as usize, valid + word.count_ones() as usize)
        } else {
            let slots = if floor == 0 {
                levels.def.len()
            } else {
                levels.def.iter().filter(|&&d| d >= floor).count()
            };
            (slots, slots)
        };
        let Shared { scratch, dense, .. } = shared;
        let (batch, _) = to_batch(
            &self.name,
            &self.data_type,
            self.width,
            values,
            slot,
            slots,
            scratch,
        )?;
        let validity = if valid < slots {
            Some(Bitmap::new(&bits, 0, slots)?)
        } else {
            None
        };
        let r = self.put(batch, validity, slots, dense, Some(levels));
        shared.slot_bits = bits;
        r.map(|()| slots)
    }
}

/// The end of the slice of entries starting at `at` (of `n`; `rep`: their repetition
/// levels, empty when the column has none) that holds at most [`MINI_BATCH`] entries (or
/// one record, when a record has more) and at most `room` records, ending at a record
/// boundary; and its number of records.
fn next_slice(rep: &[u16], at: usize, n: usize, room: usize) -> (usize, usize) {
    if rep.is_empty() {
        let end = at + (n - at).min(MINI_BATCH).min(room);
        return (end, end - at);
    }
    let mut records = 0;
    let mut i = at;
    for &r in rep.get(at..n).unwrap_or_default() {
        if r == 0 {
            if records == room || (records > 0 && i - at >= MINI_BATCH) {
                break;
            }
            records += 1;
        }
        i += 1;
    }
    (i, records)
}
