//! `parq bloom FILE --column C VALUE...`: probes the Bloom filter of column C in every row
//! group for each value (read as the column's type, see [`super::value::parse`], and hashed
//! as Parquet does: XXH64 of its PLAIN encoding). Each (row group, value) is "might
//! contain", "definitely not" or "no Bloom filter"; with `--json`, one object per line:
//! `{"row_group", "column", "value", "result"}` (`might_contain`, `definitely_not`,
//! `no_bloom_filter`).

use std::fmt::Write;
use std::path::Path;

use parq::bloom::{hash_bytes, Sbbf, MAX_BLOOM_FILTER_BYTES};
use parq::format::metadata::BloomFilterHeader;
use parq::format::thrift::Reader;
use parq::{Error, ErrorKind};

use super::{value, Input};
use crate::json::Obj;
use crate::keys::KeyArgs;
use crate::CliError;

/// The most bytes read to find the size of a filter whose length the footer does not give:
/// its header takes a few dozen.
const HEADER_PROBE: u64 = 256;

/// The little-endian u32 length that starts an encrypted module at `at`.
fn module_len(input: &mut Input, at: u64) -> Result<u64, CliError> {
    let b = input.read(at..at.saturating_add(4))?;
    let len: [u8; 4] = b.as_ref().try_into().unwrap_or([0; 4]);
    Ok(4 + u64::from(u32::from_le_bytes(len)))
}

/// The Bloom filter of leaf `leaf`'s chunk in row group `rg`, when it has one.
pub(crate) fn read_filter(
    input: &mut Input,
    rg: usize,
    leaf: usize,
) -> Result<Option<Sbbf>, CliError> {
    let chunk = input.chunk(rg, leaf)?;
    let Some(offset) = chunk.bloom_filter_offset() else {
        return Ok(None);
    };
    let declared = chunk.bloom_filter_length();
    let decryptor = input
        .md
        .chunk_decryptor(rg, leaf, chunk)
        .map_err(|e| input.fail(e))?;
    let bad = |what: &'static str, value: i64| Error::new(ErrorKind::InvalidValue { what, value });
    let offset =
        u64::try_from(offset).map_err(|_| input.fail(bad("bloom_filter_offset", offset)))?;
    let len = match declared {
        Some(l) => {
            u64::try_from(l).map_err(|_| input.fail(bad("bloom_filter_length", i64::from(l))))?
        }
        None if decryptor.is_some() => {
            let header = module_len(input, offset)?;
            let bitset = module_len(input, offset.saturating_add(header))?;
            header + bitset
        }
        None => {
            let probe = input.len.saturating_sub(offset).min(HEADER_PROBE);
            let head = input.read(offset..offset.saturating_add(probe))?;
            let mut r = Reader::new(&head).with_base(offset);
            let header = BloomFilterHeader::decode(&mut r, None).map_err(|e| input.fail(e))?;
            let bits = usize::try_from(header.num_bytes)
                .ok()
                .filter(|&n| n <= MAX_BLOOM_FILTER_BYTES)
                .ok_or_else(|| input.fail(bad("numBytes", i64::from(header.num_bytes))))?;
            r.pos() as u64 + bits as u64
        }
    };
    let bytes = input.read(offset..offset.saturating_add(len))?;
    let filter = match &decryptor {
        Some(d) => Sbbf::read_encrypted(&bytes, d),
        None => Sbbf::read(&bytes),
    };
    filter
        .map(|(f, _)| Some(f))
        .map_err(|e| input.fail(e.with_offset(offset)))
}

pub fn run(
    file: &Path,
    column: &str,
    values: &[String],
    json: bool,
    keys: &KeyArgs,
) -> Result<String, CliError> {
    let mut input = Input::open(file, keys)?;
    let leaf = input.leaf(column)?;
    let path = input.md.schema().leaf_path_string(leaf);
    if values.is_empty() {
        return Err(input.bad_argument("give at least one VALUE to probe for".to_string()));
    }
    let hashes = {
        let t = input.leaf_type(leaf)?;
        values
            .iter()
            .map(|v| value::parse(v, &t).map(|plain| hash_bytes(&plain)))
            .collect::<Result<Vec<u64>, String>>()
            .map_err(|m| input.bad_argument(format!("column {path}: {m}")))?
    };
    let mut out = String::new();
    for rg in input.row_groups(None)? {
        let filter = read_filter(&mut input, rg, leaf)?;
        if !json {
            let _ = writeln!(out, "row group {rg}, column {path}:");
        }
        for (v, &h) in values.iter().zip(&hashes) {
            let (word, key) = match filter.as_ref().map(|f| f.check_hash(h)) {
                Some(true) => ("might contain", "might_contain"),
                Some(false) => ("definitely not", "definitely_not"),
                None => ("no Bloom filter", "no_bloom_filter"),
            };
            if json {
                let o = Obj::new()
                    .put("row_group", rg)
                    .put("column", path.as_str())
                    .put("value", v.as_str())
                    .put("result", key)
                    .build();
                out.push_str(&o.line());
                out.push('\n');
            } else {
                let _ = writeln!(out, "  {v}: {word}");
            }
        }
    }
    Ok(out)
}
