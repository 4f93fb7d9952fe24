//! Some top-level fields of an Arrow IPC schema message, decoded without verifying or
//! converting the others: what a read of 100 columns of a 10,000-column file needs of its
//! `ARROW:schema`.
//!
//! The flatbuffer is verified along the path to the fields asked for (the `Message` table,
//! its `Schema` header, the schema's field vector as a vector of offsets, its metadata) and
//! each chosen `Field` table is verified whole, with the flatbuffers verifier. A small
//! `Schema` table whose field vector points at the chosen fields is then laid in front of a
//! copy of the message, and arrow-ipc converts that table as it converts a whole schema.

use arrow_ipc::{Endianness, Field as IpcField, KeyValue, Message, MessageHeader, Schema};
use arrow_schema::Schema as ArrowSchema;
use flatbuffers::{ForwardsUOffset, InvalidFlatbuffer, Vector, Verifiable, Verifier};

/// The fields at positions `fields` (in that order) of the IPC schema message `bytes` (an
/// optional continuation marker, a length, the flatbuffer `Message`), with the schema's
/// metadata. Errors are described in words.
pub fn schema_fields_from_ipc(bytes: &[u8], fields: &[usize]) -> Result<ArrowSchema, String> {
    let fb = message_bytes(bytes)?;
    let found = locate(fb, fields).map_err(|e| format!("invalid IPC schema message: {e}"))?;
    let (buf, table) = found.schema_table(fb)?;
    // SAFETY: `buf` holds at `table` a Schema table laid out by `schema_table`: its vtable,
    // endianness and field vector are written there, in bounds; its field offsets point at
    // the Field tables and its metadata offset at the metadata vector that `locate` verified
    // in `fb`, copied whole into `buf` after the prefix (flatbuffer offsets are relative, so
    // a verified table stays valid when the buffer is shifted). arrow-ipc reads nothing of
    // the table but those three fields.
    let schema = unsafe { Schema::init_from_table(flatbuffers::Table::new(&buf, table)) };
    match std::panic::catch_unwind(|| arrow_ipc::convert::try_fb_to_schema(schema)) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(format!("invalid IPC schema message: {e}")),
        Err(_) => Err("invalid IPC schema message (the decoder panicked)".into()),
    }
}

/// The flatbuffer of an encapsulated IPC message.
fn message_bytes(bytes: &[u8]) -> Result<&[u8], String> {
    let rest = match bytes.get(..4) {
        Some([0xff, 0xff, 0xff, 0xff]) => bytes.get(4..).unwrap_or(&[]),
        Some(_) => bytes,
        None => return Err("the IPC schema message is shorter than 4 bytes".into()),
    };
    let len = u32_at(rest, 0).ok_or("the IPC schema message has no length")?;
    let fb = rest.get(4..).unwrap_or(&[]);
    if i32::try_from(len).is_err() || len as usize > fb.len() {
        return Err(format!(
            "the IPC schema message says {len} bytes, {} follow",
            fb.len()
        ));
    }
    Ok(fb)
}

/// The little-endian u32 at `at` in `b`, if it is there.
pub(super) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// Where the verified parts lie in the flatbuffer.
struct Located {
    /// The schema's endianness value.
    endianness: i16,
    /// The position of each chosen Field table.
    fields: Vec<usize>,
    /// The position of the schema's metadata vector, if it has one.
    metadata: Option<usize>,
}

/// The position the offset at `at` points to (checked in bounds by the verifier).
fn follow(v: &mut Verifier<'_, '_>, at: usize) -> Result<usize, InvalidFlatbuffer> {
    let off = v.get_uoffset(at)? as usize;
    Ok(at.saturating_add(off))
}

/// Verifies the path to the chosen fields of the schema message `fb` and the fields
/// themselves.
fn locate(fb: &[u8], chosen: &[usize]) -> Result<Located, String> {
    let opts = flatbuffers::VerifierOptions::default();
    let mut v = Verifier::new(&opts, fb);
    let bad = |e: InvalidFlatbuffer| e.to_string();
    let message = follow(&mut v, 0).map_err(bad)?;
    let mut t = v.visit_table(message).map_err(bad)?;
    let kind = t.deref(Message::VT_HEADER_TYPE).map_err(bad)?;
    let header = t.deref(Message::VT_HEADER).map_err(bad)?;
    t.visit_field::<MessageHeader>("header_type", Message::VT_HEADER_TYPE, false)
        .map_err(bad)?
        .finish();
    let kind = match kind {
        Some(at) => v.get_u8(at).map_err(bad)?,
        None => 0,
    };
    let (MessageHeader::Schema, Some(header)) = (MessageHeader(kind), header) else {
        return Err("the IPC message is not a schema".into());
    };
    let schema = follow(&mut v, header).map_err(bad)?;
    let mut t = v.visit_table(schema).map_err(bad)?;
    let endian_at = t.deref(Schema::VT_ENDIANNESS).map_err(bad)?;
    let fields_at = t.deref(Schema::VT_FIELDS).map_err(bad)?;
    let metadata_at = t.deref(Schema::VT_CUSTOM_METADATA).map_err(bad)?;
    t.visit_field::<Endianness>("endianness", Schema::VT_ENDIANNESS, false)
        .map_err(bad)?
        .visit_field::<ForwardsUOffset<Vector<'_, u32>>>("fields", Schema::VT_FIELDS, false)
        .map_err(bad)?
        .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<KeyValue>>>>(
            "custom_metadata",
            Schema::VT_CUSTOM_METADATA,
            false,
        )
        .map_err(bad)?
        .finish();
    let endianness = match endian_at {
        Some(at) => fb
            .get(at..at.saturating_add(2))
            .and_then(|b| b.try_into().ok())
            .map(i16::from_le_bytes)
            .ok_or("the schema's endianness is out of bounds")?,
        None => 0,
    };
    let (start, len) = match fields_at {
        Some(at) => {
            let vector = follow(&mut v, at).map_err(bad)?;
            let len = v.get_uoffset(vector).map_err(bad)? as usize;
            (vector + 4, len)
        }
        None => (0, 0),
    };
    let mut fields = Vec::with_capacity(chosen.len());
    for &i in chosen {
        if i >= len {
            return Err(format!(
                "it has {len} top-level fields, the projection names field {i}"
            ));
        }
        let element = start + 4 * i;
        <ForwardsUOffset<IpcField>>::run_verifier(&mut v, element).map_err(bad)?;
        fields.push(follow(&mut v, element).map_err(bad)?);
    }
    let metadata = match metadata_at {
        Some(at) => Some(follow(&mut v, at).map_err(bad)?),
        None => None,
    };
    Ok(Located {
        endianness,
        fields,
        metadata,
    })
}

/// Sizes of the Schema table laid in front of the message.
const VTABLE: usize = 12;
const TABLE: usize = 16;

impl Located {
    /// A buffer holding a Schema table of the chosen fields followed by a copy of `fb`, and
    /// the table's position.
    fn schema_table(&self, fb: &[u8]) -> Result<(Vec<u8>, usize), String> {
        let vector = VTABLE + TABLE;
        let prefix = (vector + 4 + 4 * self.fields.len()).next_multiple_of(8);
        let too_large = || "the IPC schema message is too large".to_string();
        let shifted = |pos: usize, from: usize| -> Result<u32, String> {
            u32::try_from(prefix + pos - from).map_err(|_| too_large())
        };
        let mut buf = Vec::with_capacity(prefix + fb.len());
        // The vtable: its length, the table's, and the fields' offsets in the table
        // (endianness, fields, metadata; 0 for an absent one).
        let metadata_slot: u16 = if self.metadata.is_some() { 12 } else { 0 };
        for x in [10u16, TABLE as u16, 4, 8, metadata_slot, 0] {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        // The table: the offset back to its vtable, then the fields.
        let table = buf.len();
        buf.extend_from_slice(&(table as i32).to_le_bytes());
        buf.extend_from_slice(&self.endianness.to_le_bytes());
        buf.extend_from_slice(&[0, 0]);
        buf.extend_from_slice(&((vector - (table + 8)) as u32).to_le_bytes());
        let metadata = match self.metadata {
            Some(m) => shifted(m, table + 12)?,
            None => 0,
        };
        buf.extend_from_slice(&metadata.to_le_bytes());
        // The field vector: the count, then an offset to each chosen Field.
        buf.extend_from_slice(
            &u32::try_from(self.fields.len())
                .map_err(|_| too_large())?
                .to_le_bytes(),
        );
        for (k, &f) in self.fields.iter().enumerate() {
            buf.extend_from_slice(&shifted(f, vector + 4 + 4 * k)?.to_le_bytes());
        }
        buf.resize(prefix, 0);
        buf.extend_from_slice(fb);
        Ok((buf, table))
    }
}
