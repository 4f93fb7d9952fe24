//! `parq footer FILE`: what the footer and the structures it locates take, in bytes. The
//! serialized FileMetaData is walked field by field (values skipped, not decoded) for the
//! size of each part: schema, row groups and their column chunks, column metadata and the
//! statistics, encoding stats and size statistics in it, key-value metadata (each key's
//! entry), created_by, column orders, encryption fields. Beside it: the signature of a
//! signed plaintext footer, the FileCryptoMetaData and encrypted module of an encrypted
//! footer, parq's footer index before the footer, and from the footer's offsets the page
//! index, the Bloom filters and the column chunks' data. With `--json`, one document.

use std::fmt::Write;
use std::ops::Range;
use std::path::Path;

use parq::format::footer::{index_payload_len, INDEX_TRAILER_BYTES, MAGIC, MAGIC_ENCRYPTED};
use parq::format::thrift::Reader;
use parq::Result;

use super::Input;
use crate::json::{Json, Obj};
use crate::keys::KeyArgs;
use crate::meta::text;
use crate::CliError;

/// One field of a serialized structure: its id, and where its header and value start and
/// its value ends.
struct Field {
    id: i16,
    start: usize,
    value: usize,
    end: usize,
}

impl Field {
    fn len(&self) -> u64 {
        (self.end - self.start) as u64
    }
}

/// The fields of the structure at `start` of `buf`, and where it ends (after its STOP).
fn fields(buf: &[u8], start: usize) -> Result<(Vec<Field>, usize)> {
    let mut r = Reader::new(buf);
    r.set_pos(start);
    let mut out = Vec::new();
    let mut id = 0i16;
    loop {
        let at = r.pos();
        let Some(ty) = r.read_field_header(&mut id)? else {
            return Ok((out, r.pos()));
        };
        let value = r.pos();
        r.skip_field(ty)?;
        out.push(Field {
            id,
            start: at,
            value,
            end: r.pos(),
        });
    }
}

/// The spans of the structures in the list whose value starts at `at`.
fn list_items(buf: &[u8], at: usize) -> Result<Vec<Range<usize>>> {
    let mut r = Reader::new(buf);
    r.set_pos(at);
    let n = r.read_list_len()?;
    let mut out = Vec::new();
    let mut pos = r.pos();
    for _ in 0..n {
        let (_, end) = fields(buf, pos)?;
        out.push(pos..end);
        pos = end;
    }
    Ok(out)
}

fn field(list: &[Field], id: i16) -> Option<&Field> {
    list.iter().find(|f| f.id == id)
}

fn size(list: &[Field], id: i16) -> u64 {
    list.iter().filter(|f| f.id == id).map(Field::len).sum()
}

/// Sizes inside the `row_groups` list.
#[derive(Default)]
struct RowGroupSizes {
    groups: Vec<(u64, Vec<u64>)>,
    chunks: u64,
    column_metadata: u64,
    statistics: u64,
    encoding_stats: u64,
    size_statistics: u64,
    geospatial_statistics: u64,
    column_key_value_metadata: u64,
    crypto_metadata: u64,
    encrypted_column_metadata: u64,
}

fn row_groups(buf: &[u8], at: usize) -> Result<RowGroupSizes> {
    let mut s = RowGroupSizes::default();
    for g in list_items(buf, at)? {
        let (gf, _) = fields(buf, g.start)?;
        let mut chunks = Vec::new();
        if let Some(cols) = field(&gf, 1) {
            for c in list_items(buf, cols.value)? {
                chunks.push((c.end - c.start) as u64);
                let (cf, _) = fields(buf, c.start)?;
                s.crypto_metadata += size(&cf, 8);
                s.encrypted_column_metadata += size(&cf, 9);
                if let Some(m) = field(&cf, 3) {
                    s.column_metadata += m.len();
                    let (mf, _) = fields(buf, m.value)?;
                    s.statistics += size(&mf, 12);
                    s.encoding_stats += size(&mf, 13);
                    s.size_statistics += size(&mf, 16);
                    s.geospatial_statistics += size(&mf, 17);
                    s.column_key_value_metadata += size(&mf, 8);
                }
            }
        }
        s.chunks += chunks.iter().sum::<u64>();
        s.groups.push(((g.end - g.start) as u64, chunks));
    }
    Ok(s)
}

/// Each key-value entry: its key and bytes.
fn key_values(buf: &[u8], at: usize) -> Result<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for kv in list_items(buf, at)? {
        let (f, _) = fields(buf, kv.start)?;
        let key = match field(&f, 1) {
            Some(k) => {
                let mut r = Reader::new(buf);
                r.set_pos(k.value);
                text(r.read_binary()?)
            }
            None => String::new(),
        };
        out.push((key, (kv.end - kv.start) as u64));
    }
    Ok(out)
}

fn pct(part: u64, whole: u64) -> String {
    match whole {
        0 => String::new(),
        w => format!(" ({:.1}%)", part as f64 * 100.0 / w as f64),
    }
}

pub fn run(file: &Path, json: bool, keys: &KeyArgs) -> Result<String, CliError> {
    let mut input = Input::open(file, keys)?;
    let file_len = input.len;
    let tail = input.read(file_len.saturating_sub(8)..file_len)?;
    let footer_len = tail
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, |b: [u8; 4]| u64::from(u32::from_le_bytes(b)));
    let magic = tail.get(4..).unwrap_or(&[]);
    let encrypted_footer = magic == MAGIC_ENCRYPTED;
    if magic != MAGIC && !encrypted_footer {
        return Err(CliError::message(file, "not a Parquet file".to_string()));
    }
    let footer_start = file_len.saturating_sub(8).saturating_sub(footer_len);
    let footer = input.read(footer_start..file_len.saturating_sub(8))?;
    let walk = |buf: &[u8]| fields(buf, 0).map_err(|e| input.fail(e));
    // The FileMetaData walked: the footer's own bytes, or an encrypted footer's plaintext.
    let (crypto_len, plain) = match encrypted_footer {
        true => (Some(walk(&footer)?.1 as u64), input.md.buf().to_vec()),
        false => (None, footer.to_vec()),
    };
    let (top, md_len) = walk(&plain)?;
    let md_len = md_len as u64;
    let signature = match (encrypted_footer, field(&top, 8)) {
        (false, Some(_)) => Some(footer_len.saturating_sub(md_len)),
        _ => None,
    };
    let fail = |e| input.fail(e);
    let groups = match field(&top, 4) {
        Some(f) => row_groups(&plain, f.value).map_err(fail)?,
        None => RowGroupSizes::default(),
    };
    let kvs = match field(&top, 5) {
        Some(f) => key_values(&plain, f.value).map_err(fail)?,
        None => Vec::new(),
    };
    let schema_elements = input.md.schema().elements().len();
    let named: u64 = [2, 4, 5, 6, 7, 8, 9].iter().map(|&id| size(&top, id)).sum();

    let index_len = footer_start
        .checked_sub(INDEX_TRAILER_BYTES as u64)
        .map(|at| input.read(at..footer_start))
        .transpose()?
        .and_then(|t| index_payload_len(&t))
        .map(|p| p + INDEX_TRAILER_BYTES as u64)
        .filter(|&n| n <= footer_start)
        .unwrap_or(0);

    let (mut column_index, mut offset_index, mut bloom, mut blooms, mut unsized_blooms) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut data = 0u64;
    let positive = |v: Option<i32>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
    for g in input.md.row_groups() {
        for c in g.columns() {
            column_index += positive(c.column_index_length());
            offset_index += positive(c.offset_index_length());
            if c.bloom_filter_offset().is_some() {
                blooms += 1;
                match c.bloom_filter_length() {
                    Some(l) => bloom += positive(Some(l)),
                    None => unsized_blooms += 1,
                }
            }
            if c.has_metadata() {
                data += u64::try_from(c.total_compressed_size()).unwrap_or(0);
            }
        }
    }

    let row_group_list = size(&top, 4);
    if json {
        let per_group = groups
            .groups
            .iter()
            .map(|(bytes, chunks)| {
                Obj::new()
                    .put("bytes", *bytes as i64)
                    .put(
                        "columns",
                        chunks.iter().map(|&c| c as i64).collect::<Vec<i64>>(),
                    )
                    .build()
            })
            .collect();
        let kv = kvs
            .iter()
            .map(|(k, n)| {
                Obj::new()
                    .put("key", k.as_str())
                    .put("bytes", *n as i64)
                    .build()
            })
            .collect();
        let n = |v: u64| v as i64;
        let doc = Obj::new()
            .put("file_size", n(file_len))
            .put("magic", if encrypted_footer { "PARE" } else { "PAR1" })
            .put("footer_length", n(footer_len))
            .opt("file_crypto_metadata", crypto_len.map(n))
            .opt(
                "encrypted_footer",
                crypto_len.map(|c| n(footer_len.saturating_sub(c))),
            )
            .put("file_metadata", n(md_len))
            .put(
                "schema",
                Obj::new()
                    .put("bytes", n(size(&top, 2)))
                    .put("elements", schema_elements)
                    .build(),
            )
            .put(
                "row_groups",
                Obj::new()
                    .put("bytes", n(row_group_list))
                    .put("count", groups.groups.len())
                    .put("column_chunks", n(groups.chunks))
                    .put("meta_data", n(groups.column_metadata))
                    .put("statistics", n(groups.statistics))
                    .put("encoding_stats", n(groups.encoding_stats))
                    .put("size_statistics", n(groups.size_statistics))
                    .put("geospatial_statistics", n(groups.geospatial_statistics))
                    .put("key_value_metadata", n(groups.column_key_value_metadata))
                    .put("crypto_metadata", n(groups.crypto_metadata))
                    .put(
                        "encrypted_column_metadata",
                        n(groups.encrypted_column_metadata),
                    )
                    .put("row_groups", Json::Arr(per_group))
                    .build(),
            )
            .put(
                "key_value_metadata",
                Obj::new()
                    .put("bytes", n(size(&top, 5)))
                    .put("entries", Json::Arr(kv))
                    .build(),
            )
            .put("created_by", n(size(&top, 6)))
            .put("column_orders", n(size(&top, 7)))
            .put("encryption_algorithm", n(size(&top, 8)))
            .put("footer_signing_key_metadata", n(size(&top, 9)))
            .put("other_fields", n(md_len.saturating_sub(named)))
            .opt("footer_signature", signature.map(n))
            .put("footer_index", n(index_len))
            .put(
                "page_index",
                Obj::new()
                    .put("bytes", n(column_index + offset_index))
                    .put("column_index", n(column_index))
                    .put("offset_index", n(offset_index))
                    .build(),
            )
            .put(
                "bloom_filters",
                Obj::new()
                    .put("bytes", n(bloom))
                    .put("count", n(blooms))
                    .put("without_length", n(unsized_blooms))
                    .build(),
            )
            .put("column_chunk_data", n(data))
            .build();
        let mut out = String::new();
        doc.write(&mut out, 0);
        out.push('\n');
        return Ok(out);
    }

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "file: {file_len} bytes");
    let _ = writeln!(
        w,
        "footer: {footer_len} bytes{} ({})",
        pct(footer_len, file_len),
        if encrypted_footer {
            "encrypted, PARE"
        } else {
            "PAR1"
        }
    );
    if let Some(c) = crypto_len {
        let _ = writeln!(w, "  file crypto metadata: {c} bytes");
        let _ = writeln!(
            w,
            "  encrypted FileMetaData: {} bytes",
            footer_len.saturating_sub(c)
        );
    }
    let _ = writeln!(w, "FileMetaData: {md_len} bytes");
    let line = |w: &mut String, name: &str, v: u64| {
        let _ = writeln!(w, "  {name}: {v} bytes{}", pct(v, md_len));
    };
    line(
        w,
        &format!("schema ({schema_elements} elements)"),
        size(&top, 2),
    );
    line(
        w,
        &format!("row groups ({})", groups.groups.len()),
        row_group_list,
    );
    for (name, v) in [
        ("column chunks", groups.chunks),
        ("column metadata", groups.column_metadata),
        ("statistics", groups.statistics),
        ("encoding stats", groups.encoding_stats),
        ("size statistics", groups.size_statistics),
        ("geospatial statistics", groups.geospatial_statistics),
        (
            "column key-value metadata",
            groups.column_key_value_metadata,
        ),
        ("column crypto metadata", groups.crypto_metadata),
        (
            "encrypted column metadata",
            groups.encrypted_column_metadata,
        ),
    ] {
        if v > 0 || name == "column chunks" {
            let _ = writeln!(w, "    {name}: {v} bytes{}", pct(v, md_len));
        }
    }
    let mut largest: Vec<(usize, u64)> = groups.groups.iter().map(|g| g.0).enumerate().collect();
    largest.sort_by_key(|&(i, b)| (std::cmp::Reverse(b), i));
    for (i, b) in largest.iter().take(5) {
        let chunks = groups.groups.get(*i).map_or(0, |g| g.1.len());
        let _ = writeln!(w, "    row group {i}: {b} bytes, {chunks} column chunks");
    }
    if largest.len() > 5 {
        let _ = writeln!(w, "    ({} more row groups)", largest.len() - 5);
    }
    line(
        w,
        &format!("key-value metadata ({} keys)", kvs.len()),
        size(&top, 5),
    );
    for (k, b) in &kvs {
        let _ = writeln!(w, "    {k}: {b} bytes");
    }
    line(w, "created_by", size(&top, 6));
    line(w, "column orders", size(&top, 7));
    for (name, id) in [
        ("encryption algorithm", 8),
        ("footer signing key metadata", 9),
    ] {
        if size(&top, id) > 0 {
            line(w, name, size(&top, id));
        }
    }
    line(w, "other fields", md_len.saturating_sub(named));
    if let Some(s) = signature {
        let _ = writeln!(w, "footer signature: {s} bytes");
    }
    let _ = writeln!(w, "footer index: {index_len} bytes");
    let _ = writeln!(
        w,
        "page index: {} bytes (column index {column_index}, offset index {offset_index})",
        column_index + offset_index
    );
    let _ = writeln!(
        w,
        "Bloom filters: {bloom} bytes in {blooms} filters{}",
        match unsized_blooms {
            0 => String::new(),
            k => format!(" ({k} without a length in the footer, not counted)"),
        }
    );
    let _ = writeln!(w, "column chunk data: {data} bytes{}", pct(data, file_len));
    Ok(out)
}
