//! The `ARROW:schema` key-value that pyarrow and arrow-rs write: the base64 of an Arrow IPC
//! schema message (continuation marker, length, flatbuffer `Message`). Decoding it is
//! [`decode_arrow_schema`]; [`apply`] restores what Parquet cannot express, as pyarrow 26's
//! `ApplyOriginalMetadata` does:
//!
//! - time zones of UTC-adjusted timestamps (the unit stays the Parquet one);
//! - Interval(YearMonth) and Interval(DayTime) over the FixedSizeBinary(12) of an INTERVAL
//!   column (not pyarrow: it writes no intervals and reads INTERVAL as FixedSizeBinary(12);
//!   arrow-rs restores them so);
//! - Duration over Int64; Dictionary (with the written index type and ordering) over
//!   Utf8/Binary; LargeUtf8/LargeBinary/Utf8View/BinaryView over Utf8/Binary; Decimal32/64/256
//!   over a Decimal128 of the same precision and scale;
//! - LargeList/FixedSizeList/ListView/LargeListView over List, sorted map keys, recursively;
//! - extension types (kept as `ARROW:extension:*` field metadata, as arrow-rs represents
//!   them) and all other field metadata, Parquet's `PARQUET:field_id` winning over the
//!   written one.
//!
//! Field names and nullability stay the Parquet ones; Date64, Time32(s) and the like are not
//! restored (pyarrow does not either).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema as ArrowSchema};
use base64::Engine;

use super::tree::{FieldNode, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};

/// The key-value metadata key of the embedded Arrow schema.
pub const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// Decodes the value of an `ARROW:schema` key: base64, then an Arrow IPC schema message.
/// Errors are described in words; a malformed value never panics.
pub fn decode_arrow_schema(value: &str) -> Result<ArrowSchema, String> {
    decode_arrow_schema_fields(value.as_bytes(), None)
}

/// [`decode_arrow_schema`] of the top-level fields at the positions `fields` (in that
/// order; all of them with `None`). Only those fields are verified and converted
/// ([`super::ipc_select`]).
pub fn decode_arrow_schema_fields(
    value: &[u8],
    fields: Option<&[usize]>,
) -> Result<ArrowSchema, String> {
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine
        .decode(value.trim_ascii())
        .map_err(|e| format!("invalid base64: {e}"))?;
    if let Some(fields) = fields {
        return super::ipc_select::schema_fields_from_ipc(&bytes, fields);
    }
    match schema_from_ipc(&bytes) {
        // Some writers (nanoparquet) leave the Schema's `features` vector unaligned, which
        // Arrow C++ accepts and arrow-ipc's verifier refuses: without the field (it only
        // lists optional IPC features), the schema is verified again.
        Err(e) if e.contains("features") => match without_features(&bytes) {
            Some(patched) => schema_from_ipc(&patched).map_err(|_| e),
            None => Err(e),
        },
        other => other,
    }
}

/// Decodes an IPC schema message; arrow-ipc verifies the flatbuffer and reports invalid
/// schemas as errors; the unwind guard keeps a panic of a dependency on hostile bytes from
/// escaping this function.
fn schema_from_ipc(bytes: &[u8]) -> Result<ArrowSchema, String> {
    let decoded =
        std::panic::catch_unwind(|| arrow_ipc::convert::try_schema_from_ipc_buffer(bytes));
    match decoded {
        Ok(Ok(schema)) => Ok(schema),
        Ok(Err(e)) => Err(format!("invalid IPC schema message: {e}")),
        Err(_) => Err("invalid IPC schema message (the decoder panicked)".into()),
    }
}

/// A copy of the IPC schema message `bytes` whose Schema table no longer has its `features`
/// field (its vtable slot set to 0, "absent"); `None` if the message does not have the
/// expected shape. The result is verified again by the caller.
fn without_features(bytes: &[u8]) -> Option<Vec<u8>> {
    use super::ipc_select::u32_at;
    let u16_at = |b: &[u8], at: usize| -> Option<usize> {
        Some(usize::from(u16::from_le_bytes(
            b.get(at..at.checked_add(2)?)?.try_into().ok()?,
        )))
    };
    // The encapsulated message: an optional 0xFFFFFFFF continuation, a 32-bit length, then
    // the flatbuffer.
    let start = if u32_at(bytes, 0)? == u32::MAX { 8 } else { 4 };
    let mut out = bytes.to_vec();
    let fb = out.get_mut(start..)?;
    // The vtable of the table at `table`: its position and length in bytes.
    let vtable = |b: &[u8], table: usize| -> Option<(usize, usize)> {
        let soffset = i64::from(u32_at(b, table)? as i32);
        let at = usize::try_from(i64::try_from(table).ok()? - soffset).ok()?;
        Some((at, u16_at(b, at)?))
    };
    // The position of the table a field (slot `slot`) of the table at `table` points to.
    let field_table = |b: &[u8], table: usize, slot: usize| -> Option<usize> {
        let (vt, len) = vtable(b, table)?;
        let entry = 4 + 2 * slot;
        if entry + 2 > len {
            return None;
        }
        let field = table.checked_add(u16_at(b, vt + entry)?)?;
        field.checked_add(u32_at(b, field)? as usize)
    };
    let message = u32_at(fb, 0)? as usize;
    // Message.header (slot 2) is the Schema table; Schema.features is slot 3.
    let schema = field_table(fb, message, 2)?;
    let (vt, len) = vtable(fb, schema)?;
    let entry = vt.checked_add(4 + 2 * 3)?;
    if 4 + 2 * 3 + 2 > len {
        return None;
    }
    fb.get_mut(entry..entry + 2)?.fill(0);
    Some(out)
}

/// Canonical extension types that Arrow C++ registers: pyarrow rebuilds them only when the
/// Parquet type matches their storage (otherwise the field reads as the plain storage type,
/// without the extension keys). Other extension names are plain field metadata to pyarrow.
fn registered_extension(name: &str) -> bool {
    matches!(
        name,
        "arrow.json"
            | "arrow.uuid"
            | "arrow.bool8"
            | "arrow.opaque"
            | "arrow.fixed_shape_tensor"
            | "arrow.variable_shape_tensor"
    )
}

fn num_fields(t: &DataType) -> usize {
    match t {
        DataType::Struct(f) => f.len(),
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::FixedSizeList(..)
        | DataType::ListView(_)
        | DataType::LargeListView(_)
        | DataType::Map(..) => 1,
        DataType::Union(f, _) => f.len(),
        DataType::RunEndEncoded(..) => 2,
        _ => 0,
    }
}

fn child_fields(t: &DataType) -> Vec<&Field> {
    match t {
        DataType::Struct(f) => f.iter().map(|f| f.as_ref()).collect(),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => vec![f.as_ref()],
        _ => Vec::new(),
    }
}

/// The nested type of `origin`'s kind built over `children`, when pyarrow restores that kind
/// over the `inferred` kind (`GetNestedFactory`).
fn nested_factory(
    origin: &DataType,
    inferred: &DataType,
    children: Vec<Field>,
) -> Option<DataType> {
    let one = |mut c: Vec<Field>| c.pop().map(Arc::new);
    match (inferred, origin) {
        (DataType::Struct(_), DataType::Struct(_)) => {
            Some(DataType::Struct(Fields::from(children)))
        }
        (DataType::List(_), DataType::List(_)) => one(children).map(DataType::List),
        (DataType::List(_), DataType::LargeList(_)) => one(children).map(DataType::LargeList),
        (DataType::List(_), DataType::ListView(_)) => one(children).map(DataType::ListView),
        (DataType::List(_), DataType::LargeListView(_)) => {
            one(children).map(DataType::LargeListView)
        }
        (DataType::List(_), DataType::FixedSizeList(_, n)) => {
            one(children).map(|f| DataType::FixedSizeList(f, *n))
        }
        (DataType::Map(..), DataType::Map(_, sorted)) => {
            one(children).map(|f| DataType::Map(f, *sorted))
        }
        _ => None,
    }
}

fn has_factory(origin: &DataType, inferred: &DataType) -> bool {
    matches!(
        (inferred, origin),
        (DataType::Struct(_), DataType::Struct(_))
            | (
                DataType::List(_),
                DataType::List(_)
                    | DataType::LargeList(_)
                    | DataType::ListView(_)
                    | DataType::LargeListView(_)
                    | DataType::FixedSizeList(..)
            )
            | (DataType::Map(..), DataType::Map(..))
    )
}

/// `ApplyOriginalMetadata`: restores `origin` (a field of the embedded schema) onto the
/// inferred `node`. Returns whether the node changed.
pub fn apply(origin: &Field, node: &mut FieldNode) -> bool {
    let Some(name) = origin.metadata().get(EXTENSION_NAME_KEY).cloned() else {
        return apply_storage(origin, node);
    };
    let inferred_ext = node.field.metadata().get(EXTENSION_NAME_KEY).cloned();
    apply_storage(origin, node);
    if registered_extension(&name) && inferred_ext.as_deref() != Some(name.as_str()) {
        let t = node.field.data_type();
        let supported = match name.as_str() {
            "arrow.json" => matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View),
            "arrow.uuid" => *t == DataType::FixedSizeBinary(16),
            _ => t == origin.data_type(),
        };
        if !supported {
            // Arrow C++ consumed the extension keys when it read the IPC schema; with a
            // storage mismatch the field stays the plain inferred type.
            let mut md = node.field.metadata().clone();
            md.remove(EXTENSION_NAME_KEY);
            md.remove(EXTENSION_METADATA_KEY);
            node.field.set_metadata(md);
        }
    }
    if name == super::geo::WKB_EXTENSION && inferred_ext.as_deref() == Some(name.as_str()) {
        // The embedded GeoArrow metadata is kept as written, as pyarrow and arrow-rs do.
        if let Some(v) = origin.metadata().get(EXTENSION_METADATA_KEY) {
            let mut md = node.field.metadata().clone();
            md.insert(EXTENSION_METADATA_KEY.to_string(), v.clone());
            node.field.set_metadata(md);
        }
    }
    // The extension path always counts as a change, as in Arrow C++.
    true
}

/// `ApplyOriginalStorageMetadata`.
fn apply_storage(origin: &Field, node: &mut FieldNode) -> bool {
    let mut modified = false;
    let ot = origin.data_type().clone();
    let it = node.field.data_type().clone();
    let n = num_fields(&it);
    if n > 0 && num_fields(&ot) == n && node.children.len() == n && has_factory(&ot, &it) {
        modified |= std::mem::discriminant(&ot) != std::mem::discriminant(&it);
        for (child, origin_child) in node.children.iter_mut().zip(child_fields(&ot)) {
            modified |= apply(origin_child, child);
        }
        if modified {
            let children: Vec<Field> = node.children.iter().map(|c| c.field.clone()).collect();
            if let Some(t) = nested_factory(&ot, &it, children) {
                node.field.set_data_type(t);
            }
        }
    }
    let it = node.field.data_type().clone();
    match (&ot, &it) {
        (DataType::Timestamp(_, otz), DataType::Timestamp(unit, itz)) => {
            if itz.as_deref() == Some("UTC") {
                if let Some(tz) = otz.as_ref().filter(|tz| !tz.is_empty()) {
                    node.field
                        .set_data_type(DataType::Timestamp(*unit, Some(tz.clone())));
                }
            }
            modified = true;
        }
        // An Arrow Null column (written as an annotated or plain INT32 of nulls).
        (DataType::Null, _) if node.children.is_empty() => {
            node.field.set_data_type(DataType::Null);
            modified = true;
        }
        (DataType::Duration(_), DataType::Int64) => {
            node.field.set_data_type(ot.clone());
            modified = true;
        }
        // Not in pyarrow 26 (which writes no intervals and reads INTERVAL as
        // FixedSizeBinary(12)): arrow-rs and parq write these two units as INTERVAL.
        (
            DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime),
            DataType::FixedSizeBinary(12),
        ) => {
            node.field.set_data_type(ot.clone());
            modified = true;
        }
        (DataType::Dictionary(key, _), DataType::Utf8 | DataType::Binary) => {
            let ordered = origin.dict_is_ordered().unwrap_or(false);
            node.field
                .set_data_type(DataType::Dictionary(key.clone(), Box::new(it.clone())));
            let f = node.field.clone().with_dict_is_ordered(ordered);
            node.field = f;
            modified = true;
        }
        (DataType::LargeBinary | DataType::BinaryView, DataType::Binary)
        | (DataType::LargeUtf8 | DataType::Utf8View, DataType::Utf8) => {
            node.field.set_data_type(ot.clone());
            modified = true;
        }
        (
            DataType::Decimal32(op, os)
            | DataType::Decimal64(op, os)
            | DataType::Decimal128(op, os)
            | DataType::Decimal256(op, os),
            DataType::Decimal128(ip, is) | DataType::Decimal256(ip, is),
        ) if op == ip && os == is => {
            node.field.set_data_type(ot.clone());
            modified = true;
        }
        _ => {}
    }
    if !origin.metadata().is_empty() {
        let mut md: HashMap<String, String> = origin.metadata().into();
        for (k, v) in node.field.metadata() {
            md.insert(k.clone(), v.clone());
        }
        node.field.set_metadata(md);
        modified = true;
    }
    modified
}
