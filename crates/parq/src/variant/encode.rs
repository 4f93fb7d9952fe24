//! Writing the Variant binary encoding: primitives, and objects and arrays from their
//! already encoded fields or elements, with the smallest id and offset widths that fit.

use super::value::Variant;
use super::{invalid, MAX_DEPTH};
use crate::Result;

/// The smallest width (1..=4 bytes) holding `n`.
fn width(n: usize) -> usize {
    match n {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

fn put(out: &mut Vec<u8>, n: usize, w: usize) {
    out.extend_from_slice(&n.to_le_bytes()[..w]);
}

fn len_u32(n: usize) -> Result<usize> {
    u32::try_from(n)
        .map(|_| n)
        .map_err(|_| invalid("value larger than 4 GiB"))
}

fn primitive(out: &mut Vec<u8>, id: u8, payload: &[u8]) {
    out.push(id << 2);
    out.extend_from_slice(payload);
}

/// Appends `v` to `out`; objects and arrays are written again from their fields and
/// elements.
pub fn write(out: &mut Vec<u8>, v: &Variant<'_>) -> Result<()> {
    write_at(out, v, 0)
}

fn write_at(out: &mut Vec<u8>, v: &Variant<'_>, depth: usize) -> Result<()> {
    match *v {
        Variant::Null => primitive(out, 0, &[]),
        Variant::Bool(true) => primitive(out, 1, &[]),
        Variant::Bool(false) => primitive(out, 2, &[]),
        Variant::Int8(x) => primitive(out, 3, &x.to_le_bytes()),
        Variant::Int16(x) => primitive(out, 4, &x.to_le_bytes()),
        Variant::Int32(x) => primitive(out, 5, &x.to_le_bytes()),
        Variant::Int64(x) => primitive(out, 6, &x.to_le_bytes()),
        Variant::Double(x) => primitive(out, 7, &x.to_le_bytes()),
        Variant::Decimal4(x, s) => {
            primitive(out, 8, &[s]);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Variant::Decimal8(x, s) => {
            primitive(out, 9, &[s]);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Variant::Decimal16(x, s) => {
            primitive(out, 10, &[s]);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Variant::Date(x) => primitive(out, 11, &x.to_le_bytes()),
        Variant::TimestampMicros(x) => primitive(out, 12, &x.to_le_bytes()),
        Variant::TimestampNtzMicros(x) => primitive(out, 13, &x.to_le_bytes()),
        Variant::Float(x) => primitive(out, 14, &x.to_le_bytes()),
        Variant::Binary(b) => {
            primitive(out, 15, &(len_u32(b.len())? as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        Variant::String(s) if s.len() < 64 => {
            out.push(((s.len() as u8) << 2) | 1);
            out.extend_from_slice(s.as_bytes());
        }
        Variant::String(s) => {
            primitive(out, 16, &(len_u32(s.len())? as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Variant::TimeMicros(x) => primitive(out, 17, &x.to_le_bytes()),
        Variant::TimestampNanos(x) => primitive(out, 18, &x.to_le_bytes()),
        Variant::TimestampNtzNanos(x) => primitive(out, 19, &x.to_le_bytes()),
        Variant::Uuid(b) => primitive(out, 20, &b),
        Variant::Object(o) => {
            if depth >= MAX_DEPTH {
                return Err(invalid("nested too deeply"));
            }
            let mut fields = Vec::with_capacity(o.len().min(1 << 16));
            for i in 0..o.len() {
                let (id, value) = o.field(i)?;
                let mut b = Vec::new();
                write_at(&mut b, &value, depth + 1)?;
                fields.push((id, b));
            }
            let refs: Vec<(usize, &[u8])> =
                fields.iter().map(|(id, b)| (*id, b.as_slice())).collect();
            object(out, &refs)?;
        }
        Variant::Array(a) => {
            if depth >= MAX_DEPTH {
                return Err(invalid("nested too deeply"));
            }
            let mut elements = Vec::with_capacity(a.len().min(1 << 16));
            for i in 0..a.len() {
                let mut b = Vec::new();
                write_at(&mut b, &a.get(i)?, depth + 1)?;
                elements.push(b);
            }
            let refs: Vec<&[u8]> = elements.iter().map(Vec::as_slice).collect();
            array(out, &refs)?;
        }
    }
    Ok(())
}

/// Appends an object of `fields` (metadata id, encoded value), given in the order of their
/// names, their values laid out in that order.
pub fn object(out: &mut Vec<u8>, fields: &[(usize, &[u8])]) -> Result<()> {
    let total = len_u32(fields.iter().map(|(_, b)| b.len()).sum())?;
    let max_id = fields.iter().map(|(id, _)| *id).max().unwrap_or(0);
    let (id_size, offset_size) = (width(max_id), width(total));
    let large = fields.len() > 0xff;
    let header = ((u8::from(large)) << 4) | ((id_size as u8 - 1) << 2) | (offset_size as u8 - 1);
    out.push((header << 2) | 2);
    put(out, len_u32(fields.len())?, if large { 4 } else { 1 });
    for (id, _) in fields {
        put(out, *id, id_size);
    }
    let mut at = 0;
    for (_, b) in fields {
        put(out, at, offset_size);
        at += b.len();
    }
    put(out, at, offset_size);
    for (_, b) in fields {
        out.extend_from_slice(b);
    }
    Ok(())
}

/// Appends an array of the encoded `elements`.
pub fn array(out: &mut Vec<u8>, elements: &[&[u8]]) -> Result<()> {
    let total = len_u32(elements.iter().map(|b| b.len()).sum())?;
    let offset_size = width(total);
    let large = elements.len() > 0xff;
    let header = ((u8::from(large)) << 2) | (offset_size as u8 - 1);
    out.push((header << 2) | 3);
    put(out, len_u32(elements.len())?, if large { 4 } else { 1 });
    let mut at = 0;
    for b in elements {
        put(out, at, offset_size);
        at += b.len();
    }
    put(out, at, offset_size);
    for b in elements {
        out.extend_from_slice(b);
    }
    Ok(())
}
