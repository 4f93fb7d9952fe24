//! Reading the Variant binary encoding: [`Metadata`] (version, sorted flag, the dictionary
//! of field names) and [`Variant`] (one value). Objects and arrays keep their bytes and read
//! a field or element when asked; every offset and length is checked against the bytes.

use super::invalid;
use crate::Result;

/// Little-endian unsigned integer of `width` (1..=4) bytes at `at`.
fn uint(bytes: &[u8], at: usize, width: usize) -> Result<usize> {
    let end = at
        .checked_add(width)
        .ok_or_else(|| invalid("offset overflows"))?;
    let b = bytes
        .get(at..end)
        .ok_or_else(|| invalid("truncated value"))?;
    Ok(b.iter()
        .rev()
        .fold(0usize, |acc, &x| (acc << 8) | usize::from(x)))
}

fn take<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N]> {
    let b = bytes
        .get(at..at.saturating_add(N))
        .ok_or_else(|| invalid("truncated value"))?;
    let mut out = [0u8; N];
    out.copy_from_slice(b);
    Ok(out)
}

/// The metadata of a Variant: its dictionary of field names.
#[derive(Debug, Clone, Copy)]
pub struct Metadata<'a> {
    bytes: &'a [u8],
    offset_size: usize,
    len: usize,
    sorted: bool,
}

impl<'a> Metadata<'a> {
    /// The metadata in `bytes` (version 1), its offsets checked to fit.
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let &header = bytes.first().ok_or_else(|| invalid("empty metadata"))?;
        if header & 0x0f != 1 {
            return Err(invalid(format!("metadata version {}", header & 0x0f)));
        }
        let offset_size = usize::from(header >> 6) + 1;
        let len = uint(bytes, 1, offset_size)?;
        let m = Metadata {
            bytes,
            offset_size,
            len,
            sorted: header & 0x10 != 0,
        };
        m.size()?;
        Ok(m)
    }

    /// The number of bytes of the metadata (bytes after it in [`Metadata::new`]'s input
    /// are not part of it).
    pub fn size(&self) -> Result<usize> {
        let last = self.offset(self.len)?;
        self.strings_start()?
            .checked_add(last)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| invalid("metadata strings past its end"))
    }

    /// The number of names in the dictionary.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of the metadata.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn offset(&self, i: usize) -> Result<usize> {
        let at = i
            .checked_mul(self.offset_size)
            .and_then(|x| x.checked_add(1 + self.offset_size))
            .ok_or_else(|| invalid("metadata offset overflows"))?;
        uint(self.bytes, at, self.offset_size)
    }

    fn strings_start(&self) -> Result<usize> {
        self.len
            .checked_add(2)
            .and_then(|n| n.checked_mul(self.offset_size))
            .and_then(|n| n.checked_add(1))
            .ok_or_else(|| invalid("metadata offset overflows"))
    }

    /// Name `i` of the dictionary.
    pub fn get(&self, i: usize) -> Result<&'a str> {
        if i >= self.len {
            return Err(invalid(format!("field id {i} not in the metadata")));
        }
        let (a, b) = (self.offset(i)?, self.offset(i + 1)?);
        let start = self.strings_start()?;
        let s = (a <= b)
            .then(|| self.bytes.get(start + a..start + b))
            .flatten()
            .ok_or_else(|| invalid("metadata string offsets out of order"))?;
        std::str::from_utf8(s).map_err(|_| invalid("metadata string not UTF-8"))
    }

    /// The id of `name` in the dictionary. A dictionary flagged sorted is searched by
    /// halves, and in full when that misses, since some writers flag unsorted dictionaries.
    pub fn find(&self, name: &str) -> Result<Option<usize>> {
        if self.sorted {
            let (mut lo, mut hi) = (0, self.len);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match self.get(mid)?.cmp(name) {
                    std::cmp::Ordering::Equal => return Ok(Some(mid)),
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                }
            }
        }
        for i in 0..self.len {
            if self.get(i)? == name {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }
}

/// One Variant value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Variant<'a> {
    Null,
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Double(f64),
    /// DECIMAL4: unscaled value and scale.
    Decimal4(i32, u8),
    /// DECIMAL8: unscaled value and scale.
    Decimal8(i64, u8),
    /// DECIMAL16: unscaled value and scale.
    Decimal16(i128, u8),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since the epoch, UTC.
    TimestampMicros(i64),
    /// Microseconds since the epoch, no time zone.
    TimestampNtzMicros(i64),
    Float(f32),
    Binary(&'a [u8]),
    String(&'a str),
    /// Microseconds since midnight, no time zone.
    TimeMicros(i64),
    /// Nanoseconds since the epoch, UTC.
    TimestampNanos(i64),
    /// Nanoseconds since the epoch, no time zone.
    TimestampNtzNanos(i64),
    /// 16 bytes, big-endian.
    Uuid([u8; 16]),
    Object(Object<'a>),
    Array(VArray<'a>),
}

/// An object value: field ids (in the order of their names) and values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Object<'a> {
    bytes: &'a [u8],
    len: usize,
    id_size: usize,
    offset_size: usize,
    ids: usize,
    offsets: usize,
    values: usize,
}

/// An array value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VArray<'a> {
    bytes: &'a [u8],
    len: usize,
    offset_size: usize,
    offsets: usize,
    values: usize,
}

/// The bytes of the value at `offset` of a container whose values start at `values`, with the byte after
/// its last value at `values + last`.
/// Element `i` of a container whose `len` offsets of `offset_size` bytes start at
/// `offsets` and whose values start at `values` (each offset is from there; the offset after
/// the last ends them): its bytes, cut to the size its header gives.
fn element(
    bytes: &[u8],
    offsets: usize,
    offset_size: usize,
    len: usize,
    values: usize,
    i: usize,
) -> Result<&[u8]> {
    let off = uint(bytes, offsets + i * offset_size, offset_size)?;
    let last = uint(bytes, offsets + len * offset_size, offset_size)?;
    let b = match (values.checked_add(off), values.checked_add(last)) {
        (Some(s), Some(e)) if s < e => bytes
            .get(s..e)
            .ok_or_else(|| invalid("value offset past its end"))?,
        _ => return Err(invalid("value offset past its end")),
    };
    let n = Variant::size(b)?;
    b.get(..n).ok_or_else(|| invalid("truncated value"))
}

impl<'a> Object<'a> {
    /// The number of fields.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the object has no fields.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Field `i`: its id in the metadata and its value's bytes.
    pub fn field_bytes(&self, i: usize) -> Result<(usize, &'a [u8])> {
        if i >= self.len {
            return Err(invalid("object field out of range"));
        }
        let id = uint(self.bytes, self.ids + i * self.id_size, self.id_size)?;
        let b = element(
            self.bytes,
            self.offsets,
            self.offset_size,
            self.len,
            self.values,
            i,
        )?;
        Ok((id, b))
    }

    /// Field `i`: its id in the metadata and its value.
    pub fn field(&self, i: usize) -> Result<(usize, Variant<'a>)> {
        let (id, b) = self.field_bytes(i)?;
        Ok((id, Variant::new(b)?))
    }
}

impl<'a> VArray<'a> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of element `i`.
    pub fn element_bytes(&self, i: usize) -> Result<&'a [u8]> {
        if i >= self.len {
            return Err(invalid("array element out of range"));
        }
        element(
            self.bytes,
            self.offsets,
            self.offset_size,
            self.len,
            self.values,
            i,
        )
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Result<Variant<'a>> {
        Variant::new(self.element_bytes(i)?)
    }
}

/// The number of elements, where the sizes (element count, ids, offsets) start.
fn container_header(bytes: &[u8], large: bool) -> Result<(usize, usize)> {
    let width = if large { 4 } else { 1 };
    Ok((uint(bytes, 1, width)?, 1 + width))
}

fn region(start: usize, count: usize, size: usize) -> Result<usize> {
    count
        .checked_mul(size)
        .and_then(|n| n.checked_add(start))
        .ok_or_else(|| invalid("container size overflows"))
}

impl<'a> Variant<'a> {
    /// The value at the start of `bytes` (bytes after it are ignored).
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let &header = bytes.first().ok_or_else(|| invalid("empty value"))?;
        let h = header >> 2;
        match header & 3 {
            0 => Self::primitive(h, bytes),
            1 => {
                let s = bytes
                    .get(1..1 + usize::from(h))
                    .ok_or_else(|| invalid("truncated short string"))?;
                std::str::from_utf8(s)
                    .map(Variant::String)
                    .map_err(|_| invalid("string not UTF-8"))
            }
            2 => {
                let id_size = usize::from((h >> 2) & 3) + 1;
                let offset_size = usize::from(h & 3) + 1;
                let (len, ids) = container_header(bytes, h & 0x10 != 0)?;
                let offsets = region(ids, len, id_size)?;
                let values = region(offsets, len.saturating_add(1), offset_size)?;
                if values > bytes.len() {
                    return Err(invalid("truncated object"));
                }
                Ok(Variant::Object(Object {
                    bytes,
                    len,
                    id_size,
                    offset_size,
                    ids,
                    offsets,
                    values,
                }))
            }
            _ => {
                let offset_size = usize::from(h & 3) + 1;
                let (len, offsets) = container_header(bytes, h & 0x04 != 0)?;
                let values = region(offsets, len.saturating_add(1), offset_size)?;
                if values > bytes.len() {
                    return Err(invalid("truncated array"));
                }
                Ok(Variant::Array(VArray {
                    bytes,
                    len,
                    offset_size,
                    offsets,
                    values,
                }))
            }
        }
    }

    fn primitive(id: u8, b: &'a [u8]) -> Result<Self> {
        let i64_at = |at| take::<8>(b, at).map(i64::from_le_bytes);
        Ok(match id {
            0 => Variant::Null,
            1 => Variant::Bool(true),
            2 => Variant::Bool(false),
            3 => Variant::Int8(i8::from_le_bytes(take::<1>(b, 1)?)),
            4 => Variant::Int16(i16::from_le_bytes(take::<2>(b, 1)?)),
            5 => Variant::Int32(i32::from_le_bytes(take::<4>(b, 1)?)),
            6 => Variant::Int64(i64_at(1)?),
            7 => Variant::Double(f64::from_le_bytes(take::<8>(b, 1)?)),
            8 => Variant::Decimal4(i32::from_le_bytes(take::<4>(b, 2)?), scale(b)?),
            9 => Variant::Decimal8(i64_at(2)?, scale(b)?),
            10 => Variant::Decimal16(i128::from_le_bytes(take::<16>(b, 2)?), scale(b)?),
            11 => Variant::Date(i32::from_le_bytes(take::<4>(b, 1)?)),
            12 => Variant::TimestampMicros(i64_at(1)?),
            13 => Variant::TimestampNtzMicros(i64_at(1)?),
            14 => Variant::Float(f32::from_le_bytes(take::<4>(b, 1)?)),
            15 | 16 => {
                let n = uint(b, 1, 4)?;
                let v = b
                    .get(5..5usize.saturating_add(n))
                    .ok_or_else(|| invalid("truncated binary or string"))?;
                if id == 15 {
                    Variant::Binary(v)
                } else {
                    Variant::String(
                        std::str::from_utf8(v).map_err(|_| invalid("string not UTF-8"))?,
                    )
                }
            }
            17 => Variant::TimeMicros(i64_at(1)?),
            18 => Variant::TimestampNanos(i64_at(1)?),
            19 => Variant::TimestampNtzNanos(i64_at(1)?),
            20 => Variant::Uuid(take::<16>(b, 1)?),
            other => return Err(invalid(format!("primitive type {other}"))),
        })
    }

    /// The number of bytes of the value at the start of `bytes`.
    pub fn size(bytes: &[u8]) -> Result<usize> {
        let v = Variant::new(bytes)?;
        Ok(match v {
            Variant::Null | Variant::Bool(_) => 1,
            Variant::Int8(_) => 2,
            Variant::Int16(_) => 3,
            Variant::Int32(_) | Variant::Date(_) | Variant::Float(_) => 5,
            Variant::Int64(_)
            | Variant::Double(_)
            | Variant::TimestampMicros(_)
            | Variant::TimestampNtzMicros(_)
            | Variant::TimeMicros(_)
            | Variant::TimestampNanos(_)
            | Variant::TimestampNtzNanos(_) => 9,
            Variant::Decimal4(..) => 6,
            Variant::Decimal8(..) => 10,
            Variant::Decimal16(..) => 18,
            Variant::Uuid(_) => 17,
            Variant::Binary(b) => 5 + b.len(),
            Variant::String(s) if bytes.first().is_some_and(|h| h & 3 == 1) => 1 + s.len(),
            Variant::String(s) => 5 + s.len(),
            Variant::Object(o) => {
                let last = uint(o.bytes, o.offsets + o.len * o.offset_size, o.offset_size)?;
                o.values
                    .checked_add(last)
                    .filter(|&n| n <= bytes.len())
                    .ok_or_else(|| invalid("truncated object"))?
            }
            Variant::Array(a) => {
                let last = uint(a.bytes, a.offsets + a.len * a.offset_size, a.offset_size)?;
                a.values
                    .checked_add(last)
                    .filter(|&n| n <= bytes.len())
                    .ok_or_else(|| invalid("truncated array"))?
            }
        })
    }
}

fn scale(b: &[u8]) -> Result<u8> {
    let s = *b.get(1).ok_or_else(|| invalid("truncated decimal"))?;
    if s > 38 {
        return Err(invalid(format!("decimal scale {s}")));
    }
    Ok(s)
}
