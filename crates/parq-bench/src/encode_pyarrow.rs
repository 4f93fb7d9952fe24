//! pyarrow's side of `parq-bench encode`: its settings (the keyword arguments of
//! `pq.write_table`), the hand-over of the input and the timing script.
//!
//! Hand-over: the bench writes the batch's Arrow buffers raw to a file in `--data-dir`, with
//! a JSON header describing each column as a tree of arrays (its type; per array its length,
//! null count, validity and data buffers, then its children: a list's or map's values, a
//! struct's fields). The Python process wraps the buffers with `pa.Array.from_buffers`,
//! children first (zero copy, outside pyarrow's memory pool), so pyarrow writes the very
//! same arrays as the Rust writers, flat or nested.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use arrow_60::{Array, RecordBatch};
use arrow_data_60::ArrayData;
use arrow_schema_60::{DataType, Field};
use bytes::Bytes;
use serde_json::{json, Value};

use crate::decode_cases::{CaseSpec, Codec, Enc, Kind};
use crate::encode::{verify, DICTIONARY_PAGE_BYTES, PAGE_BYTES, PAGE_ROWS};
use crate::measure::{MeasureConfig, Stats};
use crate::peers::{json_samples, json_u64, run_harness_script, Python};
use crate::workload::PYARROW;

/// pyarrow's settings for a case: the keyword arguments of `pq.write_table`.
///
/// `use_dictionary` names the flat columns that want the dictionary; with a nested column
/// (all of whose cases want it) it is `True`: pyarrow matches the names against leaf paths
/// (`v.list.element`), so a nested column's name would turn its leaves' dictionary off.
pub fn pyarrow_kwargs(spec: &CaseSpec) -> Value {
    let dictionary: Vec<&str> = spec
        .columns
        .iter()
        .filter(|c| matches!(c.enc, Enc::Dictionary | Enc::Default))
        .map(|c| c.name)
        .collect();
    let nested = spec
        .columns
        .iter()
        .any(|c| matches!(c.kind, Kind::Nested(_)));
    let use_dictionary = if nested && dictionary.len() == spec.columns.len() {
        json!(true)
    } else {
        json!(dictionary)
    };
    let encodings: serde_json::Map<String, Value> = spec
        .columns
        .iter()
        .filter_map(|c| Some((c.name.to_string(), c.enc.explicit_name()?.into())))
        .collect();
    let compression = match spec.codec {
        Codec::Uncompressed => "none",
        other => other.name(),
    };
    json!({
        "use_dictionary": use_dictionary,
        "column_encoding": (!encodings.is_empty()).then_some(encodings),
        "compression": compression,
        "compression_level": spec.codec.level(),
        "write_statistics": true,
        "write_page_index": true,
        "data_page_size": PAGE_BYTES,
        "max_rows_per_page": PAGE_ROWS,
        "dictionary_pagesize_limit": DICTIONARY_PAGE_BYTES,
        "data_page_version": "1.0",
        "row_group_size": spec.rows_per_row_group(),
    })
}

/// The type of a column as the pyarrow script rebuilds it: a name for the flat types, else
/// `{"kind": "list" | "struct" | "map", "fields": [{"name", "type", "nullable"}, ...]}`
/// (a map: its entries field, and whether its keys are sorted).
fn raw_type(dt: &DataType) -> Result<Value> {
    let field = |f: &Field| -> Result<Value> {
        Ok(json!({
            "name": f.name(),
            "type": raw_type(f.data_type())?,
            "nullable": f.is_nullable(),
        }))
    };
    Ok(match dt {
        DataType::Int32 => json!("int32"),
        DataType::Int64 => json!("int64"),
        DataType::Float32 => json!("float32"),
        DataType::Float64 => json!("float64"),
        DataType::Boolean => json!("bool"),
        DataType::FixedSizeBinary(16) => json!("binary16"),
        DataType::Utf8 => json!("string"),
        DataType::Binary => json!("binary"),
        DataType::List(item) => json!({"kind": "list", "fields": [field(item)?]}),
        DataType::Struct(fields) => {
            let fields = fields
                .iter()
                .map(|f| field(f))
                .collect::<Result<Vec<_>>>()?;
            json!({"kind": "struct", "fields": fields})
        }
        DataType::Map(entries, sorted) => {
            // pyarrow names a map's entries "entries" and never lets them be null.
            ensure!(
                entries.name() == "entries" && !entries.is_nullable(),
                "no raw-buffer form for map entries {entries}"
            );
            json!({"kind": "map", "fields": [field(entries)?], "sorted": sorted})
        }
        other => bail!("no raw-buffer form for {other}"),
    })
}

/// Alignment of every buffer in the raw file.
const ALIGN: usize = 64;

/// The buffers of the raw file, in order, with their places (each at a 64-byte aligned
/// offset after the previous one).
#[derive(Default)]
struct Layout<'a> {
    end: usize,
    blobs: Vec<&'a [u8]>,
}

impl<'a> Layout<'a> {
    fn place(&mut self, blob: &'a [u8]) -> [usize; 2] {
        let at = self.end.next_multiple_of(ALIGN);
        self.end = at + blob.len();
        self.blobs.push(blob);
        [at, blob.len()]
    }

    /// Places an array's validity, its buffers, then its children's; returns its JSON node.
    fn array(&mut self, data: &'a ArrayData, column: &str) -> Result<Value> {
        let sliced = data.offset() != 0 || data.nulls().is_some_and(|n| n.offset() != 0);
        ensure!(!sliced, "column {column} holds a slice");
        let validity = data.nulls().map(|n| self.place(n.buffer().as_slice()));
        let buffers: Vec<[usize; 2]> = data
            .buffers()
            .iter()
            .map(|b| self.place(b.as_slice()))
            .collect();
        let children = data
            .child_data()
            .iter()
            .map(|c| self.array(c, column))
            .collect::<Result<Vec<_>>>()?;
        Ok(json!({
            "length": data.len(),
            "null_count": data.null_count(),
            "validity": validity,
            "buffers": buffers,
            "children": children,
        }))
    }
}

/// Writes the batch's Arrow buffers for pyarrow: an 8-byte little-endian header length, a
/// JSON header (per column: name, type ([`raw_type`]), nullability and its array's node:
/// length, null count, the `[offset, length]` of its validity and data buffers, offsets
/// counted from the first 64-byte boundary after the header, and its children's nodes), then
/// the buffers, each at a 64-byte aligned offset.
fn write_raw_batch(batch: &RecordBatch, path: &Path) -> Result<()> {
    let schema = batch.schema();
    let datas: Vec<ArrayData> = batch.columns().iter().map(|c| c.to_data()).collect();
    let mut layout = Layout::default();
    let mut header = Vec::new();
    for (field, data) in schema.fields().iter().zip(&datas) {
        let mut node = layout.array(data, field.name())?;
        node["name"] = json!(field.name());
        node["type"] = raw_type(field.data_type())?;
        node["nullable"] = json!(field.is_nullable());
        header.push(node);
    }
    let header = serde_json::to_vec(&header)?;
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    out.write_all(&(header.len() as u64).to_le_bytes())?;
    out.write_all(&header)?;
    let head = 8 + header.len();
    out.write_all(&vec![0u8; head.next_multiple_of(ALIGN) - head])?;
    let mut pos = 0usize;
    for blob in layout.blobs {
        let at = pos.next_multiple_of(ALIGN);
        out.write_all(&vec![0u8; at - pos])?;
        out.write_all(blob)?;
        pos = at + blob.len();
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Wraps the raw buffers at `argv[1]` as a table (zero copy), writes it once to `argv[2]` (the
/// output the bench checks) while taking the memory pool's peak, then times
/// `pq.write_table(table, pa.BufferOutputStream(), **settings)` (settings: `argv[3]`, JSON)
/// with the harness's rules (`argv[4:10]`); prints the samples, the output size and the peak.
const PYARROW_SCRIPT: &str = r#"
import json, sys, time
import pyarrow as pa, pyarrow.parquet as pq
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
raw_path, out_path, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = map(int, sys.argv[4:10])
TYPES = {"int32": pa.int32(), "int64": pa.int64(), "float32": pa.float32(),
    "float64": pa.float64(), "bool": pa.bool_(), "binary16": pa.binary(16),
    "string": pa.string(), "binary": pa.binary()}
with open(raw_path, "rb") as f:
    raw = f.read()
n = int.from_bytes(raw[:8], "little")
columns = json.loads(raw[8:8 + n])
data = pa.py_buffer(raw).slice(-(-(8 + n) // 64) * 64)
def buf(r):
    return None if r is None else data.slice(r[0], r[1])
def dtype(t):
    if isinstance(t, str):
        return TYPES[t]
    fields = [pa.field(f["name"], dtype(f["type"]), nullable=f["nullable"]) for f in t["fields"]]
    if t["kind"] == "list":
        return pa.list_(fields[0])
    if t["kind"] == "struct":
        return pa.struct(fields)
    if t["kind"] == "map":
        entries = fields[0].type
        return pa.map_(entries.field(0), entries.field(1), keys_sorted=t["sorted"])
    raise ValueError(f"unknown type {t}")
def array(node, t):
    children = [array(c, t.field(i).type) for i, c in enumerate(node["children"])]
    return pa.Array.from_buffers(t, node["length"],
        [buf(node["validity"])] + [buf(b) for b in node["buffers"]],
        null_count=node["null_count"], children=children or None)
arrays, fields = [], []
for c in columns:
    t = dtype(c["type"])
    arrays.append(array(c, t))
    fields.append(pa.field(c["name"], t, nullable=c["nullable"]))
table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
table.validate(full=True)
pool = pa.default_memory_pool()
def once():
    sink = pa.BufferOutputStream()
    t = time.perf_counter_ns()
    pq.write_table(table, sink, **kwargs)
    ns = time.perf_counter_ns() - t
    return ns, sink.getvalue()
base = pool.bytes_allocated()
_, out = once()
peak = pool.max_memory() - base
with open(out_path, "wb") as f:
    f.write(out)
size = out.size
del out
samples, _ = measure(once, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
print(json.dumps({"samples_ns": samples, "iterations": len(samples), "peak_bytes": peak,
    "output_bytes": size, "pool": pool.backend_name}))
"#;

/// What pyarrow's cell brings back.
pub struct PyarrowRun {
    pub stats: Stats,
    pub peak_bytes: Option<usize>,
    pub output_bytes: usize,
}

/// Runs the pyarrow cell of one case and checks its output ([`verify`]: read back by parq).
pub fn pyarrow_case(
    py: &Python,
    dir: &Path,
    spec: &CaseSpec,
    batch: &RecordBatch,
    cfg: &MeasureConfig,
) -> Result<PyarrowRun> {
    let pid = std::process::id();
    let (raw, out) = (
        dir.join(format!("encode-{pid}.arrow-buffers")),
        dir.join(format!("encode-{pid}-pyarrow.parquet")),
    );
    let run = || -> Result<(Value, Bytes)> {
        write_raw_batch(batch, &raw)?;
        let args: Vec<OsString> = vec![
            raw.clone().into(),
            out.clone().into(),
            pyarrow_kwargs(spec).to_string().into(),
        ];
        let v = run_harness_script(py, PYARROW_SCRIPT, args, cfg)?;
        let file = std::fs::read(&out).with_context(|| format!("reading {}", out.display()))?;
        Ok((v, Bytes::from(file)))
    };
    let result = run();
    let _ = std::fs::remove_file(&raw);
    let _ = std::fs::remove_file(&out);
    let (v, file) = result?;
    let output_bytes = verify(spec, batch, file, PYARROW, false)?;
    ensure!(
        json_u64(&v, "output_bytes")? as usize == output_bytes,
        "pyarrow reported another output size"
    );
    Ok(PyarrowRun {
        stats: json_samples(&v)?.stats(),
        peak_bytes: v["peak_bytes"].as_u64().map(|b| b as usize),
        output_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode_cases::{all_cases, case_batch, nested_cases};

    #[test]
    fn pyarrow_settings_name_the_encodings() {
        let spec = &all_cases(10, 10, &[Codec::Zstd], &[false], false)[0];
        let kw = pyarrow_kwargs(spec);
        assert_eq!(kw["column_encoding"]["v"], "PLAIN");
        assert_eq!(kw["use_dictionary"], json!([]));
        assert_eq!(kw["compression"], "zstd");
        assert_eq!(kw["compression_level"], 1);
        assert_eq!(kw["write_page_index"], true);
    }

    #[test]
    fn nested_cases_keep_the_dictionary_on_every_leaf() {
        for spec in nested_cases(10, &[Codec::Snappy], &[false, true]) {
            let kw = pyarrow_kwargs(&spec);
            assert_eq!(kw["use_dictionary"], json!(true), "{}", spec.name);
            assert!(kw["column_encoding"].is_null(), "{}", spec.name);
        }
    }

    #[test]
    fn nested_columns_are_described_as_trees() {
        for spec in nested_cases(50, &[Codec::Uncompressed], &[false, true]) {
            let batch = case_batch(&spec).unwrap();
            let field = batch.schema().field(0).clone();
            let t = raw_type(field.data_type()).unwrap();
            assert!(t["kind"].is_string(), "{}: {t}", spec.name);
            let data = batch.column(0).to_data();
            let mut layout = Layout::default();
            let node = layout.array(&data, "v").unwrap();
            assert_eq!(node["length"], 50, "{}", spec.name);
            // Every buffer of the tree is placed once, in order, aligned.
            let mut count = 0;
            let mut stack = vec![&node];
            while let Some(n) = stack.pop() {
                count += n["buffers"].as_array().unwrap().len();
                count += usize::from(!n["validity"].is_null());
                stack.extend(n["children"].as_array().unwrap());
            }
            assert_eq!(count, layout.blobs.len(), "{}", spec.name);
        }
        let map = nested_cases(5, &[Codec::Uncompressed], &[true])
            .into_iter()
            .find(|s| s.name.contains("map<"))
            .unwrap();
        let batch = case_batch(&map).unwrap();
        let t = raw_type(batch.schema().field(0).data_type()).unwrap();
        assert_eq!(t["kind"], "map");
        assert_eq!(t["fields"][0]["name"], "entries");
        assert_eq!(t["fields"][0]["type"]["fields"][0]["name"], "key");
        assert_eq!(t["fields"][0]["type"]["fields"][0]["nullable"], false);
    }
}
