//! `parq dictionary FILE --column C [--row-group N]`: the entries of a column chunk's
//! dictionary page, in order with their indexes, decoded by the column's type (see
//! [`super::value`]). Text, or with `--json` one object per chunk per line:
//! `{"row_group", "column", "num_values", "encoding", "values": [...]}`.

use std::fmt::Write;
use std::path::Path;

use parq::encoding::plain::for_each_byte_array;
use parq::format::metadata::{Encoding, PhysicalType};
use parq::page::Page;
use parq::schema::stats::StatsContext;
use parq::{Error, ErrorKind};

use super::{value, Input};
use crate::json::{Json, Obj};
use crate::keys::KeyArgs;
use crate::CliError;

/// Splits `n` PLAIN values of `buf` into each value's bytes, and renders them.
fn entries(
    buf: &[u8],
    n: usize,
    t: &StatsContext<'_>,
    f: &mut dyn FnMut(&[u8]),
) -> Result<(), Error> {
    let short = |needed: u64| {
        Error::new(ErrorKind::Truncated {
            needed,
            remaining: buf.len() as u64,
        })
    };
    let width = match t.physical {
        PhysicalType::Boolean => {
            if n.div_ceil(8) > buf.len() {
                return Err(short(n.div_ceil(8) as u64));
            }
            for i in 0..n {
                let bit = buf.get(i / 8).map_or(0, |b| (b >> (i % 8)) & 1);
                f(&[bit]);
            }
            return Ok(());
        }
        PhysicalType::ByteArray => {
            for_each_byte_array(buf, n, |b| f(b))?;
            return Ok(());
        }
        PhysicalType::Int32 | PhysicalType::Float => 4,
        PhysicalType::Int64 | PhysicalType::Double => 8,
        PhysicalType::Int96 => 12,
        PhysicalType::FixedLenByteArray => usize::try_from(t.type_length)
            .ok()
            .filter(|&w| w > 0)
            .ok_or_else(|| {
            Error::new(ErrorKind::InvalidValue {
                what: "type_length",
                value: i64::from(t.type_length),
            })
        })?,
        PhysicalType::Unknown(_) => {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "values of type {}",
                t.physical
            ))))
        }
    };
    let total = n.checked_mul(width).filter(|&b| b <= buf.len());
    let Some(total) = total else {
        return Err(short((n as u64).saturating_mul(width as u64)));
    };
    for v in buf.get(..total).unwrap_or(&[]).chunks_exact(width) {
        f(v);
    }
    Ok(())
}

pub fn run(
    file: &Path,
    column: &str,
    row_group: Option<usize>,
    json: bool,
    keys: &KeyArgs,
) -> Result<String, CliError> {
    let mut input = Input::open(file, keys)?;
    let leaf = input.leaf(column)?;
    let path = input.md.schema().leaf_path_string(leaf);
    let groups = input.row_groups(row_group)?;
    let mut out = String::new();
    let mut found = 0;
    for rg in groups {
        let (mut reader, _, _) = input.pages(rg, leaf, false)?;
        let t = input.leaf_type(leaf)?;
        let first = reader.next_page().map_err(|e| input.fail(e))?;
        let Some(Page::Dictionary(page)) = first else {
            if !json {
                let _ = writeln!(out, "row group {rg}, column {path}: no dictionary page");
            }
            continue;
        };
        found += 1;
        let encoding = page.header.encoding;
        if !matches!(encoding, Encoding::Plain | Encoding::PlainDictionary) {
            return Err(input.fail(Error::new(ErrorKind::Unsupported(format!(
                "row group {rg}, column {path}: a dictionary page of {encoding} values"
            )))));
        }
        let n = page.num_values();
        let mut values: Vec<(String, Json)> = Vec::new();
        let rendered = entries(page.buffer, n, &t, &mut |b| {
            let text = value::text(b, &t);
            let j = if json {
                value::to_json(b, &t)
            } else {
                Json::Bool(false)
            };
            values.push((text, j));
        });
        rendered.map_err(|e| {
            input.fail(
                e.in_column(u32::try_from(leaf).unwrap_or(u32::MAX))
                    .in_row_group(u32::try_from(rg).unwrap_or(u32::MAX)),
            )
        })?;
        if json {
            let doc = Obj::new()
                .put("row_group", rg)
                .put("column", path.as_str())
                .put("num_values", n)
                .put("encoding", encoding.to_string())
                .put(
                    "values",
                    Json::Arr(values.into_iter().map(|v| v.1).collect()),
                )
                .build();
            out.push_str(&doc.line());
            out.push('\n');
        } else {
            let _ = writeln!(
                out,
                "row group {rg}, column {path}: {n} entries ({encoding}, page at {})",
                page.meta.header_offset
            );
            for (i, (text, _)) in values.iter().enumerate() {
                let _ = writeln!(out, "  {i}: {text}");
            }
        }
    }
    if found == 0 {
        let message = match row_group {
            Some(rg) => {
                format!("column {path}: the chunk of row group {rg} has no dictionary page")
            }
            None => format!("column {path}: no column chunk has a dictionary page"),
        };
        return Err(input.bad_argument(message));
    }
    Ok(out)
}
