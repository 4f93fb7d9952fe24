//! The footer index: a table of where each row group and column chunk starts inside the
//! serialized `FileMetaData`, written by parq right before the footer, where no reader
//! looks (readers find the footer by its length and every other structure by offsets the
//! footer gives). With it a reader decodes the chunks it wants without walking the rest.
//!
//! ```text
//! ... page index, Bloom filters | payload | u32 payload_len | u32 crc32(payload) | "PQX1" | FileMetaData | u32 len | "PAR1"
//! payload (u32 little-endian each):
//!   footer_len, row_groups R, columns C, list_start, list_end,
//!   crc32(footer[..list_start] ++ footer[list_end..]),
//!   row_group_start[R], columns_end[R], chunk_start[R * C]
//! ```
//!
//! Offsets are from the start of `FileMetaData`; `list_start..list_end` is the value of its
//! `row_groups` field. A reader never trusts the index blindly: [`FooterIndex`] users check the
//! checksums, the lengths, the order and bounds of every offset and that each row group
//! starts with its `columns` list at the offsets given, and every chunk decoded through it
//! must end where the next structure starts; anything else falls back to the scan.

use crate::thrift::{wire, Limits, Reader};
use crate::Result;

use super::layout::Layout;
use crate::metadata::RowGroup;

/// The magic that ends the index block, right before the footer.
pub const INDEX_MAGIC: &[u8; 4] = b"PQX1";
/// Bytes of the block's trailer: payload length, checksum, magic.
pub const INDEX_TRAILER_BYTES: usize = 12;
/// Fixed payload words before the tables.
const HEADER_WORDS: usize = 6;

/// The index block to write right before `footer` (the `FileMetaData` bytes), or `None` when
/// the footer cannot be indexed (row groups of different column counts).
pub fn build_index(footer: &[u8], limits: Limits) -> Result<Option<Vec<u8>>> {
    let layout = scan_layout(footer, limits)?;
    let (ls, le) = (layout.list.start as usize, layout.list.end as usize);
    Ok(index_block(
        footer.len(),
        &layout,
        outside_crc(footer, ls, le),
    ))
}

/// The index block of a footer of `footer_len` bytes with `layout`, whose bytes outside the
/// `row_groups` list have checksum `outside`; `None` when it cannot be indexed (row groups
/// of different column counts, a footer over 4 GiB).
fn index_block(footer_len: usize, layout: &Layout, outside: u32) -> Option<Vec<u8>> {
    let r = layout.num_row_groups();
    let c = layout.chunks(0).len();
    let Ok(footer_len) = u32::try_from(footer_len) else {
        return None;
    };
    if (0..r).any(|i| layout.chunks(i).len() != c) {
        return None;
    }
    let words = HEADER_WORDS + 2 * r + layout.chunk_starts.len();
    let mut out = Vec::with_capacity(words * 4 + INDEX_TRAILER_BYTES);
    for w in [
        footer_len,
        r as u32,
        c as u32,
        layout.list.start,
        layout.list.end,
        outside,
    ] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for table in [
        &layout.row_group_starts,
        &layout.columns_ends,
        &layout.chunk_starts,
    ] {
        for w in table.iter() {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    let len = out.len() as u32;
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(INDEX_MAGIC);
    Some(out)
}

/// The index block of a footer encoded piece by piece, as a writer that streams its footer
/// encodes it: the bytes before the `row_groups` list value ([`IndexBuilder::head`]), the
/// list header ([`IndexBuilder::list_header`]), each `RowGroup` struct
/// ([`IndexBuilder::row_group`]), then the bytes after the list ([`IndexBuilder::tail`]), in
/// footer order. [`IndexBuilder::finish`] gives the block [`build_index`] gives for the same
/// bytes.
#[derive(Debug)]
pub struct IndexBuilder {
    layout: Layout,
    /// Bytes of the footer so far.
    pos: u64,
    outside: crc32fast::Hasher,
    list_ended: bool,
    limits: Limits,
}

impl IndexBuilder {
    /// A builder whose row groups are scanned within `limits`.
    pub fn new(limits: Limits) -> IndexBuilder {
        let mut layout = Layout::default();
        layout.chunk_index.push(0);
        IndexBuilder {
            layout,
            pos: 0,
            outside: crc32fast::Hasher::new(),
            list_ended: false,
            limits,
        }
    }

    /// The offset of the footer's next byte, as a table entry (saturated past 4 GiB, where
    /// [`finish`](Self::finish) gives no block).
    fn at(&self) -> u32 {
        u32::try_from(self.pos).unwrap_or(u32::MAX)
    }

    /// Bytes before the `row_groups` list value.
    pub fn head(&mut self, bytes: &[u8]) {
        self.outside.update(bytes);
        self.pos += bytes.len() as u64;
    }

    /// The header of the `row_groups` list (where its value starts).
    pub fn list_header(&mut self, bytes: &[u8]) {
        self.layout.list.start = self.at();
        self.pos += bytes.len() as u64;
    }

    /// One encoded `RowGroup` struct: where it and its column chunks start.
    pub fn row_group(&mut self, bytes: &[u8]) -> Result<()> {
        let base = self.pos;
        let at = |pos: usize| u32::try_from(base + pos as u64).unwrap_or(u32::MAX);
        self.layout.row_group_starts.push(self.at());
        let chunks = &mut self.layout.chunk_starts;
        let mut end = 0u32;
        let mut r = Reader::with_limits(bytes, self.limits);
        RowGroup::skip(&mut r, |pos| chunks.push(at(pos)), |pos| end = at(pos))?;
        self.layout.columns_ends.push(end);
        let n = self.layout.chunk_starts.len() as u32;
        self.layout.chunk_index.push(n);
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Bytes after the `row_groups` list (its end is where the first of them goes).
    pub fn tail(&mut self, bytes: &[u8]) {
        if !self.list_ended {
            self.layout.list.end = self.at();
            self.list_ended = true;
        }
        self.outside.update(bytes);
        self.pos += bytes.len() as u64;
    }

    /// The index block, or `None` when the footer cannot be indexed (row groups of
    /// different column counts, a footer over 4 GiB).
    pub fn finish(self) -> Option<Vec<u8>> {
        let len = usize::try_from(self.pos).ok()?;
        index_block(len, &self.layout, self.outside.finalize())
    }
}

/// Scans a footer for its layout (the top-level fields are walked, not decoded).
pub(crate) fn scan_layout(footer: &[u8], limits: Limits) -> Result<Layout> {
    let mut r = Reader::with_limits(footer, limits);
    let mut layout = None;
    r.enter()?;
    r.read_struct("FileMetaData", |r, id, ty| {
        if (id, ty) == (4, wire::LIST) && layout.is_none() {
            layout = Some(Layout::scan(r)?);
            Ok(())
        } else {
            r.skip_field(ty)
        }
    })?;
    r.leave();
    layout.ok_or_else(|| crate::metadata::missing(&r, "FileMetaData", "row_groups"))
}

fn outside_crc(footer: &[u8], list_start: usize, list_end: usize) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(footer.get(..list_start).unwrap_or(&[]));
    h.update(footer.get(list_end..).unwrap_or(&[]));
    h.finalize()
}

/// An index block found before a footer: its payload and the payload's checksum.
#[derive(Debug, Clone, Copy)]
pub struct FooterIndex<'a> {
    payload: &'a [u8],
    crc: u32,
}

impl<'a> FooterIndex<'a> {
    /// The index block at the end of `before` (bytes that end where the footer starts), if
    /// its trailer is there and its length fits. Nothing else is checked until it is used.
    pub fn find(before: &'a [u8]) -> Option<FooterIndex<'a>> {
        let at = before.len().checked_sub(INDEX_TRAILER_BYTES)?;
        let len = index_payload_len(before.get(at..)?)?;
        let payload = before.get(at.checked_sub(usize::try_from(len).ok()?)?..at)?;
        let crc = u32::from_le_bytes(before.get(at + 4..at + 8)?.try_into().ok()?);
        Some(FooterIndex { payload, crc })
    }

    /// An index block from its payload and the checksum its trailer gave.
    pub(crate) fn from_parts(payload: &'a [u8], crc: u32) -> FooterIndex<'a> {
        FooterIndex { payload, crc }
    }

    /// Bytes of the block (payload and trailer).
    pub fn len(&self) -> usize {
        self.payload.len() + INDEX_TRAILER_BYTES
    }

    /// Whether the payload is empty (never for a block parq wrote).
    pub fn is_empty(&self) -> bool {
        self.payload.is_empty()
    }

    /// The layout the index gives for `footer`, if every check holds.
    pub(crate) fn layout(&self, footer: &[u8], limits: Limits) -> Option<Layout> {
        parse_index(self.payload, self.crc, footer, limits).ok()
    }

    /// Checks the index against `footer` (the `FileMetaData` bytes that follow it): every
    /// check a reader makes before using it, and that each row group and column chunk
    /// offset it gives is where a scan of the footer finds that structure. The error says
    /// which check failed.
    pub fn verify(&self, footer: &[u8], limits: Limits) -> std::result::Result<(), String> {
        let given = parse_index(self.payload, self.crc, footer, limits)?;
        let scanned = scan_layout(footer, limits)
            .map_err(|e| format!("the footer cannot be scanned: {e}"))?;
        if given.list != scanned.list {
            return Err(format!(
                "the row group list is at {}..{}, not {}..{}",
                scanned.list.start, scanned.list.end, given.list.start, given.list.end
            ));
        }
        let tables = [
            (
                "row group start",
                &given.row_group_starts,
                &scanned.row_group_starts,
            ),
            (
                "column list end",
                &given.columns_ends,
                &scanned.columns_ends,
            ),
            (
                "column chunk start",
                &given.chunk_starts,
                &scanned.chunk_starts,
            ),
        ];
        for (what, g, s) in tables {
            if let Some((i, (a, b))) = g
                .iter()
                .zip(s.iter())
                .enumerate()
                .find(|(_, (a, b))| a != b)
            {
                return Err(format!(
                    "{what} {i} is given as {a}, the footer has it at {b}"
                ));
            }
            if g.len() != s.len() {
                return Err(format!(
                    "{} {what}s given, the footer has {}",
                    g.len(),
                    s.len()
                ));
            }
        }
        Ok(())
    }
}

/// The payload length an index trailer (the 12 bytes right before the footer) announces,
/// if it is one.
pub fn index_payload_len(trailer: &[u8]) -> Option<u64> {
    let t: &[u8; INDEX_TRAILER_BYTES] = trailer.try_into().ok()?;
    if &t[8..12] != INDEX_MAGIC {
        return None;
    }
    Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as u64)
}

/// The layout an index payload with checksum `crc` gives for `footer`, or the check that
/// fails.
fn parse_index(
    payload: &[u8],
    crc: u32,
    footer: &[u8],
    limits: Limits,
) -> std::result::Result<Layout, String> {
    if !payload.len().is_multiple_of(4) {
        return Err(format!(
            "a payload of {} bytes, not whole words",
            payload.len()
        ));
    }
    if crc32fast::hash(payload) != crc {
        return Err("the payload does not match its checksum".to_string());
    }
    let word = |i: usize| -> std::result::Result<u32, String> {
        payload
            .get(i * 4..i * 4 + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| format!("a payload of {} bytes lacks its header", payload.len()))
    };
    let (footer_len, rgs, cols) = (word(0)? as usize, word(1)? as usize, word(2)? as usize);
    let (list_start, list_end, outside) = (word(3)?, word(4)?, word(5)?);
    let words = rgs
        .checked_mul(cols)
        .and_then(|chunks| {
            Some((
                chunks,
                chunks.checked_add(2 * rgs)?.checked_add(HEADER_WORDS)?,
            ))
        })
        .filter(|&(_, w)| w.checked_mul(4) == Some(payload.len()));
    let Some((chunks, _)) = words else {
        return Err(format!(
            "{rgs} row groups of {cols} columns do not fit a payload of {} bytes",
            payload.len()
        ));
    };
    if footer_len != footer.len() {
        return Err(format!(
            "it is for a footer of {footer_len} bytes, the footer has {}",
            footer.len()
        ));
    }
    if list_start >= list_end || list_end as usize > footer.len() {
        return Err(format!(
            "the row group list {list_start}..{list_end} does not lie in the footer"
        ));
    }
    if outside_crc(footer, list_start as usize, list_end as usize) != outside {
        return Err("the footer outside the row group list does not match its checksum".into());
    }
    let table = |from: usize, n: usize| u32_table(&payload[from * 4..(from + n) * 4]);
    let layout = Layout {
        list: list_start..list_end,
        row_group_starts: table(HEADER_WORDS, rgs),
        columns_ends: table(HEADER_WORDS + rgs, rgs),
        chunk_starts: table(HEADER_WORDS + 2 * rgs, chunks),
        chunk_index: (0..=rgs).map(|i| (i * cols) as u32).collect(),
    };
    match check_layout(&layout, footer, rgs, cols, limits) {
        true => Ok(layout),
        false => Err(
            "its row group and column chunk offsets are not where the footer's structures start"
                .to_string(),
        ),
    }
}

/// Order and bounds of every offset; each row group's `columns` list header at its start,
/// with `cols` elements beginning at its first chunk; each row group's other fields ending
/// where the next row group starts.
fn check_layout(l: &Layout, footer: &[u8], rgs: usize, cols: usize, limits: Limits) -> bool {
    let mut r = Reader::with_limits(footer, limits);
    r.set_pos(l.list.start as usize);
    if r.read_list_len().ok() != Some(rgs) {
        return false;
    }
    let mut next = r.pos() as u32;
    for i in 0..rgs {
        let (start, columns_end) = (l.row_group_starts[i], l.columns_ends[i]);
        let chunks = l.chunks(i);
        if start != next || columns_end >= l.list.end {
            return false;
        }
        // Strictly increasing chunk starts, all before the end of the list.
        let ordered = increasing(chunks) && chunks.last().is_none_or(|&s| s < columns_end);
        if !ordered {
            return false;
        }
        r.set_pos(start as usize);
        let mut id = 0i16;
        let header = matches!(r.read_field_header(&mut id), Ok(Some(wire::LIST)))
            && id == 1
            && r.read_list_len().ok() == Some(cols)
            && r.pos() as u32 == chunks.first().copied().unwrap_or(columns_end);
        if !header {
            return false;
        }
        // The row group's fields after `columns`, up to its STOP.
        r.set_pos(columns_end as usize);
        let rest = skip_rest(&mut r, id);
        next = if i + 1 < rgs {
            l.row_group_starts[i + 1]
        } else {
            l.list.end
        };
        if rest.is_err() || r.pos() as u32 != next {
            return false;
        }
    }
    true
}

/// Whether `v` is strictly increasing (a branch-free pass the compiler vectorizes).
fn increasing(v: &[u32]) -> bool {
    let mut bad = false;
    for i in 1..v.len() {
        bad |= v[i - 1] >= v[i];
    }
    !bad
}

/// Little-endian u32 words (`bytes.len()` a multiple of 4) into a table.
fn u32_table(bytes: &[u8]) -> Vec<u32> {
    let n = bytes.len() / 4;
    let mut out: Vec<u32> = Vec::with_capacity(n);
    if cfg!(target_endian = "little") {
        // SAFETY: `out` has room for `n` u32s, `bytes` holds `4 * n` bytes and the two do not
        // overlap; every bit pattern is a valid u32, and on a little-endian target the bytes
        // are the words' memory representation. `set_len` follows the copy of all `n`.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), n * 4);
            out.set_len(n);
        }
    } else {
        out.extend(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
    }
    out
}

/// Skips the remaining fields of a struct whose last field read had id `last`.
fn skip_rest(r: &mut Reader<'_>, mut last: i16) -> Result<()> {
    r.enter()?;
    while let Some(ty) = r.read_field_header(&mut last)? {
        r.skip_field(ty)?;
    }
    r.leave();
    Ok(())
}
