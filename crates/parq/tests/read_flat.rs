//! Tests of `parq::read` on flat files: every flat file of the parquet-testing corpus that
//! pyarrow 26 reads, files written by pyarrow over every flat type x nullability x encoding
//! x page version x codec, batching, projections, row group selection and hostile input.
//!
//! Expected values always come from pyarrow: a Python script reads each file with
//! `pq.read_table` and writes the table to an Arrow IPC file, which the test reads with
//! arrow-ipc and compares column by column (`ArrayData` equality: types and logical values).
//! The venv (`bash scripts/venv.sh`) is required: without it these tests fail.

mod common;
use common::{read_ipc, run_python, tmp_dir, TmpDir};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arrow_array::{Array, RecordBatch};
use bytes::Bytes;
use parq::read::{DictionaryColumns, ParquetReader, ReadOptions, StringType};
use parq::ErrorKind;

/// The parquet-testing data directory of the shared test data (`common::testdata()`).
fn data_dir() -> PathBuf {
    common::testdata().join("parquet-testing/data")
}

/// Compares parq's batch with pyarrow's (one batch, or none for an empty table).
fn assert_same(name: &str, got: &RecordBatch, expected: &[RecordBatch]) {
    let rows: usize = expected.iter().map(|b| b.num_rows()).sum();
    assert_eq!(got.num_rows(), rows, "{name}: row count");
    if rows == 0 {
        return;
    }
    assert_eq!(
        expected.len(),
        1,
        "{name}: the IPC file should hold one batch"
    );
    let want = &expected[0];
    assert_eq!(
        got.num_columns(),
        want.num_columns(),
        "{name}: column count"
    );
    for (i, field) in want.schema().fields().iter().enumerate() {
        let g = got.column(i);
        let w = want.column(i);
        assert_eq!(
            got.schema().field(i).name(),
            field.name(),
            "{name}: column {i} name"
        );
        assert_eq!(
            g.data_type(),
            w.data_type(),
            "{name}: column {} type",
            field.name()
        );
        if g.to_data() != w.to_data() {
            let first = (0..g.len())
                .find(|&r| g.slice(r, 1).to_data() != w.slice(r, 1).to_data())
                .unwrap_or(0);
            panic!(
                "{name}: column {} differs, first at row {first}: parq {:?} pyarrow {:?}",
                field.name(),
                g.slice(first, 1),
                w.slice(first, 1)
            );
        }
    }
}

/// Writes `pq.read_table(path)` of each path as `<out>/<index>.arrow` (one batch); prints a
/// JSON object: index -> "ok" | "flat columns <i> <j> ..." (the table holds only these
/// top-level columns: the others are nested) | "nested" | "error: ...".
const DUMP: &str = r#"
import sys, json, pyarrow as pa, pyarrow.parquet as pq, pyarrow.types as t
out = sys.argv[1]
res = {}
def nested(ty):
    return t.is_nested(ty) or (t.is_dictionary(ty) and nested(ty.value_type))
for i, path in enumerate(sys.argv[2:]):
    try:
        tab = pq.read_table(path)
    except Exception as e:
        res[str(i)] = "error: " + str(e)[:200]
        continue
    flat = [j for j, f in enumerate(tab.schema) if not nested(f.type)]
    if not flat:
        res[str(i)] = "nested"
        continue
    if len(flat) < len(tab.schema):
        tab = tab.select(flat)
        res[str(i)] = "flat columns " + " ".join(str(j) for j in flat)
    else:
        res[str(i)] = "ok"
    tab = tab.combine_chunks()
    with pa.ipc.new_file(out + "/" + str(i) + ".arrow", tab.schema) as w:
        for b in tab.to_batches():
            w.write_batch(b)
print(json.dumps(res))
"#;

/// Dumps pyarrow's reading of `paths` into `dir`; returns each path's status.
fn dump(dir: &Path, paths: &[PathBuf]) -> Vec<String> {
    let mut args = vec![dir.to_str().expect("dir").to_string()];
    args.extend(paths.iter().map(|p| p.to_str().expect("path").to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_python(DUMP, &args);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    (0..paths.len())
        .map(|i| v[i.to_string()].as_str().unwrap_or("missing").to_string())
        .collect()
}

fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    let dir = data_dir();
    assert!(
        dir.is_dir(),
        "{} is missing (set PARQ_TESTDATA to the shared test data directory)",
        dir.display()
    );
    let mut v = Vec::new();
    walk(&dir, &mut v);
    v.sort();
    assert!(!v.is_empty(), "no corpus at {}", dir.display());
    v
}

/// Files whose page CRCs are wrong on purpose: pyarrow does not check CRCs by default.
const CORRUPT_CRC: &[&str] = &[
    "datapage_v1-corrupt-checksum.parquet",
    "rle-dict-uncompressed-corrupt-checksum.parquet",
];

/// Flat corpus files the issue names; each must be read by pyarrow and compared here.
const MUST_COVER: &[&str] = &[
    "alltypes_plain.parquet",
    "alltypes_plain.snappy.parquet",
    "alltypes_dictionary.parquet",
    "alltypes_tiny_pages.parquet",
    "alltypes_tiny_pages_plain.parquet",
    "delta_binary_packed.parquet",
    "delta_byte_array.parquet",
    "delta_encoding_optional_column.parquet",
    "delta_encoding_required_column.parquet",
    "delta_length_byte_array.parquet",
    "byte_stream_split.zstd.parquet",
    "byte_stream_split_extended.gzip.parquet",
    "rle_boolean_encoding.parquet",
    "int32_decimal.parquet",
    "int64_decimal.parquet",
    "fixed_length_decimal.parquet",
    "fixed_length_decimal_legacy.parquet",
    "byte_array_decimal.parquet",
    "float16_nonzeros_and_nans.parquet",
    "float16_zeros_and_nans.parquet",
    "datapage_v2.snappy.parquet",
    "datapage_v2_empty_datapage.snappy.parquet",
    "hadoop_lz4_compressed.parquet",
    "hadoop_lz4_compressed_larger.parquet",
    "lz4_raw_compressed.parquet",
    "lz4_raw_compressed_larger.parquet",
    "non_hadoop_lz4_compressed.parquet",
    "concatenated_gzip_members.parquet",
    "overflow_i16_page_cnt.parquet",
    "int32_with_null_pages.parquet",
    "plain-dict-uncompressed-checksum.parquet",
    "rle-dict-snappy-checksum.parquet",
    "datapage_v1-snappy-compressed-checksum.parquet",
    "datapage_v1-uncompressed-checksum.parquet",
    "data_index_bloom_encoding_stats.parquet",
    "dict-page-offset-zero.parquet",
    "nation.dict-malformed.parquet",
];

#[test]
fn corpus_matches_pyarrow() {
    let files = corpus_files();
    let dir = tmp_dir("corpus");
    let status = dump(&dir, &files);
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let columns: Option<Vec<usize>> = match status[i].strip_prefix("flat columns ") {
            Some(list) => Some(list.split(' ').map(|c| c.parse().expect("index")).collect()),
            None if status[i] == "ok" => None,
            None => {
                eprintln!("not compared: {name}: {}", status[i]);
                continue;
            }
        };
        let expected = read_ipc(&dir.join(format!("{i}.arrow")));
        let corrupt = CORRUPT_CRC.contains(&name.as_str());
        let options = ReadOptions {
            verify_crc: !corrupt,
            ..ReadOptions::default()
        };
        let result = ParquetReader::open(path).and_then(|r| {
            let r = r.with_options(options);
            match &columns {
                Some(c) => r.with_columns(c.clone()).read_batch(),
                None => r.read_batch(),
            }
        });
        match result {
            Ok(batch) => {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    assert_same(&name, &batch, &expected)
                }));
                if r.is_err() {
                    failures.push(format!("{name}: values differ (see above)"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        if corrupt {
            // With CRC checks on (off by default, as in pyarrow), the corrupt page is reported.
            let e = ParquetReader::open(path)
                .and_then(|r| r.with_verify_crc(true).read_batch())
                .expect_err("a corrupt CRC must fail when verified");
            assert!(
                matches!(e.kind(), ErrorKind::PageChecksumMismatch { .. }),
                "{name}: {e}"
            );
        }
        compared.push(name);
    }
    // nulls.snappy.parquet holds only a struct column: it waits for the nested reader.
    for f in &failures {
        eprintln!("FAILED {f}");
    }
    for must in MUST_COVER {
        assert!(
            compared.iter().any(|c| c == must),
            "{must} was not compared (pyarrow status: {:?})",
            files
                .iter()
                .position(|p| p.file_name().and_then(|n| n.to_str()) == Some(must))
                .map(|i| &status[i])
        );
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("compared {} corpus files with pyarrow", compared.len());
    // 66 files compared at the time of writing (the other 9 are nested or refused by
    // pyarrow).
    assert!(
        compared.len() >= 66,
        "only {} corpus files compared",
        compared.len()
    );
}

/// Writes one file per (encoding family, page version, codec, nullability) with every flat
/// type as a column, small pages and several row groups; then pyarrow's reading of it.
/// Args: out dir. Prints the file names, one per line.
const GENERATE: &str = r#"
import sys, datetime, decimal, random
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
N = 2500
rng = random.Random(42)
def maybe(vals, nullable):
    if not nullable:
        return vals
    return [None if rng.random() < 0.1 else v for v in vals]
def columns(nullable):
    words = ["", "a", "parquet", "arrow", "\u00e9t\u00e9", "\u6f22\u5b57", "long string value " * 3]
    cols = {
        "bool": (pa.bool_(), [rng.random() < 0.3 for _ in range(N)]),
        "i8": (pa.int8(), [rng.randint(-128, 127) for _ in range(N)]),
        "i16": (pa.int16(), [rng.randint(-2**15, 2**15 - 1) for _ in range(N)]),
        "i32": (pa.int32(), [rng.randint(-2**31, 2**31 - 1) for _ in range(N)]),
        "i64": (pa.int64(), [rng.randint(-2**63, 2**63 - 1) for _ in range(N)]),
        "i32_small": (pa.int32(), [rng.randint(0, 20) for _ in range(N)]),
        "u8": (pa.uint8(), [rng.randint(0, 255) for _ in range(N)]),
        "u16": (pa.uint16(), [rng.randint(0, 2**16 - 1) for _ in range(N)]),
        "u32": (pa.uint32(), [rng.randint(0, 2**32 - 1) for _ in range(N)]),
        "u64": (pa.uint64(), [rng.randint(0, 2**64 - 1) for _ in range(N)]),
        "f16": (pa.float16(), [np.float16(rng.uniform(-100, 100)) for _ in range(N)]),
        "f32": (pa.float32(), [rng.uniform(-1e6, 1e6) for _ in range(N)]),
        "f64": (pa.float64(), [rng.choice([rng.uniform(-1e9, 1e9), float("nan"), 0.0]) for _ in range(N)]),
        "str": (pa.string(), [rng.choice(words) + str(rng.randint(0, 50)) for _ in range(N)]),
        "str_dictish": (pa.string(), [rng.choice(words) for _ in range(N)]),
        "large_str": (pa.large_string(), [rng.choice(words) for _ in range(N)]),
        "bin": (pa.binary(), [bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 20))) for _ in range(N)]),
        "fsb": (pa.binary(5), [bytes(rng.randint(0, 255) for _ in range(5)) for _ in range(N)]),
        "dec9": (pa.decimal128(9, 2), [decimal.Decimal(rng.randint(-10**9 + 1, 10**9 - 1)).scaleb(-2) for _ in range(N)]),
        "dec18": (pa.decimal128(18, 3), [decimal.Decimal(rng.randint(-10**18 + 1, 10**18 - 1)).scaleb(-3) for _ in range(N)]),
        "dec30": (pa.decimal128(30, 5), [decimal.Decimal(rng.randint(-10**30 + 1, 10**30 - 1)).scaleb(-5) for _ in range(N)]),
        "dec50": (pa.decimal256(50, 3), [decimal.Decimal(rng.randint(-10**50 + 1, 10**50 - 1)).scaleb(-3) for _ in range(N)]),
        "date": (pa.date32(), [datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-10000, 30000)) for _ in range(N)]),
        "t32": (pa.time32("ms"), [rng.randint(0, 86399999) for _ in range(N)]),
        "t64us": (pa.time64("us"), [rng.randint(0, 86399999999) for _ in range(N)]),
        "t64ns": (pa.time64("ns"), [rng.randint(0, 86399999999999) for _ in range(N)]),
        "ts_ms": (pa.timestamp("ms"), [rng.randint(-2**40, 2**40) for _ in range(N)]),
        "ts_us_utc": (pa.timestamp("us", tz="UTC"), [rng.randint(-2**50, 2**50) for _ in range(N)]),
        "ts_ns_ny": (pa.timestamp("ns", tz="America/New_York"), [rng.randint(-2**62, 2**62) for _ in range(N)]),
        "dur": (pa.duration("s"), [rng.randint(-2**40, 2**40) for _ in range(N)]),
        "dict_str": (pa.dictionary(pa.int32(), pa.string()), [rng.choice(words) for _ in range(N)]),
        "nul": (pa.null(), [None] * N),
    }
    arrays, fields = [], []
    for name, (ty, vals) in cols.items():
        if ty == pa.null():
            arrays.append(pa.nulls(N)); fields.append(pa.field(name, ty)); continue
        if pa.types.is_dictionary(ty):
            a = pa.array(maybe(vals, nullable), type=pa.string()).dictionary_encode()
        else:
            a = pa.array(maybe(vals, nullable), type=ty)
        arrays.append(a)
        fields.append(pa.field(name, ty, nullable=nullable))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
def encodings(family, schema):
    enc = {}
    for f in schema:
        ty = f.type
        if family == "delta":
            if pa.types.is_integer(ty) or pa.types.is_date(ty) or pa.types.is_time(ty) or pa.types.is_timestamp(ty) or pa.types.is_duration(ty):
                enc[f.name] = "DELTA_BINARY_PACKED"
            elif f.name in ("str", "bin"):
                enc[f.name] = "DELTA_LENGTH_BYTE_ARRAY"
            elif f.name in ("str_dictish", "large_str", "fsb", "f16", "dec30", "dec50"):
                enc[f.name] = "DELTA_BYTE_ARRAY"
            elif pa.types.is_boolean(ty):
                enc[f.name] = "RLE"
            else:
                enc[f.name] = "PLAIN"
        elif family == "bss":
            if f.name in ("f16", "f32", "f64", "i32", "i64", "fsb", "dec30", "dec50", "u32", "u64", "date"):
                enc[f.name] = "BYTE_STREAM_SPLIT"
            else:
                enc[f.name] = "PLAIN"
        else:
            enc[f.name] = "PLAIN"
    return {k: v for k, v in enc.items() if not pa.types.is_null(schema.field(k).type) and not pa.types.is_dictionary(schema.field(k).type)}
names = []
for nullable in (False, True):
    table = columns(nullable)
    for family in ("plain", "dictionary", "delta", "bss"):
        for version in ("1.0", "2.0"):
            for codec in ("none", "snappy", "zstd"):
                name = f"gen_{family}_v{version[0]}_{codec}_{'null' if nullable else 'req'}.parquet"
                path = out + "/" + name
                kw = dict(data_page_version=version, compression=codec, data_page_size=512,
                          write_batch_size=64, row_group_size=1000, store_decimal_as_integer=(family == "dictionary"))
                if family == "dictionary":
                    kw["use_dictionary"] = True
                    kw["dictionary_pagesize_limit"] = 4096
                else:
                    kw["use_dictionary"] = ["dict_str"]
                    kw["column_encoding"] = encodings(family, table.schema)
                pq.write_table(table, path, **kw)
                names.append(name)
print("\n".join(names))
"#;

struct Generated {
    dir: TmpDir,
    names: Vec<String>,
    /// pyarrow's reading of each file, by name.
    status: BTreeMap<String, (usize, String)>,
}

fn generated() -> &'static Generated {
    static G: OnceLock<Generated> = OnceLock::new();
    G.get_or_init(|| {
        let dir = tmp_dir("gen");
        let names: Vec<String> = run_python(GENERATE, &[dir.to_str().expect("dir")])
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(names.len(), 48);
        let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
        let status = dump(&dir, &paths);
        let status = names
            .iter()
            .cloned()
            .zip(status.into_iter().enumerate())
            .collect();
        Generated { dir, names, status }
    })
}

fn expected_of(g: &Generated, name: &str) -> Vec<RecordBatch> {
    let (i, status) = &g.status[name];
    assert_eq!(status, "ok", "{name}: pyarrow status");
    read_ipc(&g.dir.join(format!("{i}.arrow")))
}

#[test]
fn generated_files_match_pyarrow() {
    let g = generated();
    let mut failures = Vec::new();
    for name in &g.names {
        let expected = expected_of(g, name);
        let reader = ParquetReader::open(g.dir.join(name)).expect("open");
        assert!(
            reader.metadata().row_groups().len() >= 3,
            "{name}: row groups"
        );
        // Small pages: many pages per chunk.
        let chunk = &reader.metadata().row_groups()[0].columns()[3];
        assert!(
            chunk.total_compressed_size() > 1024,
            "{name}: pages are small"
        );
        match reader.read_batch() {
            Ok(batch) => {
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    assert_same(name, &batch, &expected)
                }))
                .is_err()
                {
                    failures.push(format!("{name}: values differ (see above)"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn batching_matches_the_whole_table() {
    let g = generated();
    let name = "gen_dictionary_v2_snappy_null.parquet";
    let expected = expected_of(g, name);
    let want = &expected[0];
    for batch_size in [1usize, 7, 1000, 1 << 30] {
        let reader = ParquetReader::open(g.dir.join(name))
            .expect("open")
            .with_batch_size(batch_size);
        let mut offset = 0;
        let mut count = 0;
        for batch in reader.batches().expect("batches") {
            let batch = batch.expect("batch");
            assert!(batch.num_rows() <= batch_size && batch.num_rows() > 0);
            let slice = want.slice(offset, batch.num_rows());
            assert_same(&format!("{name} @{offset}/{batch_size}"), &batch, &[slice]);
            offset += batch.num_rows();
            count += 1;
        }
        assert_eq!(offset, want.num_rows(), "batch size {batch_size}");
        if batch_size == 1 {
            assert_eq!(count, want.num_rows());
        }
        // read_all gives the same batches.
        let all = reader.read_all().expect("read_all");
        assert_eq!(all.len(), count);
    }
}

#[test]
fn projections_and_row_groups() {
    let g = generated();
    let name = "gen_plain_v1_zstd_null.parquet";
    let want = &expected_of(g, name)[0];
    let path = g.dir.join(name);
    // By path, in the order asked.
    let reader = ParquetReader::open(&path)
        .expect("open")
        .with_columns(["str", "i32", "ts_ns_ny"]);
    let batch = reader.read_batch().expect("read");
    let schema = want.schema();
    let cols = ["str", "i32", "ts_ns_ny"]
        .iter()
        .map(|c| schema.index_of(c).expect("column"))
        .collect::<Vec<_>>();
    let projected = want.project(&cols).expect("project");
    assert_same(
        "projection by path",
        &batch,
        std::slice::from_ref(&projected),
    );
    // By index.
    let batch = ParquetReader::open(&path)
        .expect("open")
        .with_columns(cols.clone())
        .read_batch()
        .expect("read");
    assert_same("projection by index", &batch, &[projected]);
    // Row groups: the second and the first, in that order, against pyarrow's row group sizes.
    let rg_rows: Vec<usize> = run_python(
        "import sys, pyarrow.parquet as pq\nf = pq.ParquetFile(sys.argv[1])\nprint(' '.join(str(f.metadata.row_group(i).num_rows) for i in range(f.num_row_groups)))",
        &[path.to_str().expect("path")],
    )
    .split_whitespace()
    .map(|s| s.parse().expect("rows"))
    .collect();
    let reader = ParquetReader::open(&path)
        .expect("open")
        .with_row_groups([1, 0]);
    let batch = reader.read_batch().expect("read");
    let swapped = arrow_select::concat::concat_batches(
        &want.schema(),
        &[
            want.slice(rg_rows[0], rg_rows[1]),
            want.slice(0, rg_rows[0]),
        ],
    )
    .expect("concat");
    assert_same("row groups 1, 0", &batch, &[swapped]);
    // Errors: unknown column, row group out of range.
    let e = ParquetReader::open(&path)
        .expect("open")
        .with_columns(["nope"])
        .read_batch()
        .expect_err("unknown column");
    assert!(e.to_string().contains("nope"), "{e}");
    let e = ParquetReader::open(&path)
        .expect("open")
        .with_row_groups([99])
        .read_batch()
        .expect_err("row group out of range");
    assert!(matches!(e.kind(), ErrorKind::OutOfBounds { .. }), "{e}");
}

#[test]
fn utf8_view_matches_utf8() {
    let g = generated();
    let name = "gen_delta_v2_none_null.parquet";
    let want = &expected_of(g, name)[0];
    let reader = ParquetReader::open(g.dir.join(name))
        .expect("open")
        .with_columns(["str", "str_dictish"])
        .with_strings(StringType::Utf8View);
    let batch = reader.read_batch().expect("read");
    for (i, c) in ["str", "str_dictish"].iter().enumerate() {
        let got = batch.column(i);
        assert_eq!(got.data_type(), &arrow_schema::DataType::Utf8View);
        let w = want.column(want.schema().index_of(c).expect("col")).clone();
        let w = w
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .expect("utf8");
        let g = got
            .as_any()
            .downcast_ref::<arrow_array::StringViewArray>()
            .expect("view");
        assert_eq!(g.len(), w.len());
        for r in 0..g.len() {
            assert_eq!(g.is_null(r), w.is_null(r), "{c} row {r}");
            if !g.is_null(r) {
                assert_eq!(g.value(r), w.value(r), "{c} row {r}");
            }
        }
    }
}

/// Dictionary-encoded string / binary columns read as Arrow dictionaries (from the Parquet
/// dictionary pages, also across row groups and PLAIN fallback pages) equal pyarrow's
/// `read_dictionary` reading of the same file.
#[test]
fn dictionary_columns_match_pyarrow_read_dictionary() {
    let dir = tmp_dir("dictionary");
    let script = r#"
import sys, random, pyarrow as pa, pyarrow.parquet as pq
rng = random.Random(5)
out = sys.argv[1]
n = 20000
words = ["w%d-%s" % (i, "x" * (i % 13)) for i in range(3000)]
s = pa.array([None if rng.random() < 0.1 else rng.choice(words) for _ in range(n)])
b = pa.array([None if rng.random() < 0.3 else rng.choice(words).encode() for _ in range(n)], pa.binary())
r = pa.array([rng.choice(words[:5]) for _ in range(n)])
t = pa.table({"s": s, "b": b, "r": r})
# A small dictionary page limit: chunks fall back to PLAIN part way; several row groups.
pq.write_table(t, out + "/d.parquet", row_group_size=7000, dictionary_pagesize_limit=8192,
               data_page_size=4096, store_schema=False)
rt = pq.read_table(out + "/d.parquet", read_dictionary=["s", "b", "r"]).combine_chunks()
with pa.ipc.new_file(out + "/d.arrow", rt.schema) as w:
    for batch in rt.to_batches():
        w.write_batch(batch)
"#;
    run_python(script, &[dir.to_str().expect("dir")]);
    let want = read_ipc(&dir.join("d.arrow"));
    for mode in [
        DictionaryColumns::Named(vec!["s".into(), "b".into(), "r".into()]),
        DictionaryColumns::Encoded,
    ] {
        let reader = ParquetReader::open(dir.join("d.parquet"))
            .expect("open")
            .with_dictionary(mode.clone());
        let got = reader.read_batch().expect("read");
        for (i, f) in got.schema().fields().iter().enumerate() {
            assert!(
                matches!(f.data_type(), arrow_schema::DataType::Dictionary(..)),
                "{mode:?}: {} is {}",
                f.name(),
                f.data_type()
            );
            assert_eq!(got.column(i).null_count(), want[0].column(i).null_count());
        }
        assert_same("dictionary columns", &got, &want);
        // Batches of another size hold the same values.
        let batches = reader.with_batch_size(999).read_all().expect("batches");
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 20000);
    }
    // Without the option the columns are plain strings, equal in value.
    let plain = ParquetReader::open(dir.join("d.parquet"))
        .expect("open")
        .read_batch()
        .expect("read");
    assert_eq!(
        plain.schema().field(0).data_type(),
        &arrow_schema::DataType::Utf8
    );
}

/// Reads `bytes`; either works or fails with an error, never panics.
fn read_hostile(bytes: Vec<u8>) -> Result<RecordBatch, parq::Error> {
    ParquetReader::from_bytes(Bytes::from(bytes)).and_then(|r| r.read_batch())
}

fn data_end(file: &[u8]) -> usize {
    let n = file.len();
    let footer = u32::from_le_bytes([file[n - 8], file[n - 7], file[n - 6], file[n - 5]]) as usize;
    n - 8 - footer
}

#[test]
fn hostile_files_fail_cleanly() {
    let g = generated();
    let mut errors = 0;
    let mut located = 0;
    for name in [
        "gen_plain_v1_none_null.parquet",
        "gen_dictionary_v2_snappy_null.parquet",
        "gen_delta_v1_zstd_req.parquet",
        "gen_bss_v2_none_null.parquet",
    ] {
        let file = std::fs::read(g.dir.join(name)).expect("read");
        let end = data_end(&file);
        // Flipped bytes all over the page data.
        let step = (end / 97).max(1);
        for pos in (4..end).step_by(step) {
            for flip in [0xffu8, 0x80, 0x01] {
                let mut f = file.clone();
                f[pos] ^= flip;
                if let Err(e) = read_hostile(f) {
                    errors += 1;
                    let s = e.to_string();
                    if s.contains("row group") && s.contains("column") && e.offset().is_some() {
                        located += 1;
                    } else {
                        eprintln!("flip at {pos}: {s}");
                    }
                }
            }
        }
        // Cut bytes out of the middle of the page data: later pages are misplaced.
        for cut in [1usize, 7, 100] {
            for pos in (4..end.saturating_sub(cut)).step_by(step * 3) {
                let mut f = file.clone();
                f.drain(pos..pos + cut);
                if let Err(e) = read_hostile(f) {
                    errors += 1;
                    let s = e.to_string();
                    if s.contains("row group") && s.contains("column") && e.offset().is_some() {
                        located += 1;
                    }
                }
            }
        }
        // Truncated: the footer intact but the data before it shortened to zeros.
        let mut f = file.clone();
        f[end / 2..end].fill(0);
        let e = read_hostile(f).expect_err("zeroed pages");
        let s = e.to_string();
        assert!(s.contains("row group") && s.contains("column"), "{s}");
    }
    assert!(errors > 100, "only {errors} errors");
    // Almost every error from damaged pages names where it happened.
    assert!(
        located * 10 >= errors * 9,
        "{located} of {errors} errors name row group, column and offset"
    );
}

#[test]
fn corrupt_page_crc_names_the_page() {
    let dir = tmp_dir("crc");
    let path = dir.join("crc.parquet");
    run_python(
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         t = pa.table({'a': pa.array(range(10000), pa.int64()), 'b': pa.array([str(i) for i in range(10000)])})\n\
         pq.write_table(t, sys.argv[1], write_page_checksum=True, data_page_size=1024, use_dictionary=False)",
        &[path.to_str().expect("path")],
    );
    let mut file = std::fs::read(&path).expect("read");
    let end = data_end(&file);
    file[end - 10] ^= 0x55;
    let verified = ParquetReader::from_bytes(Bytes::from(file.clone()))
        .and_then(|r| r.with_verify_crc(true).read_batch());
    let e = verified.expect_err("crc");
    // Not verified by default: the flipped byte is in the last page's values.
    assert!(read_hostile(file).is_ok());
    assert!(
        matches!(e.kind(), ErrorKind::PageChecksumMismatch { .. }),
        "{e}"
    );
    let s = e.to_string();
    assert!(s.contains("row group[0]") && s.contains("column[1]"), "{s}");
    assert!(e.offset().is_some());
}

#[test]
fn invalid_utf8_names_the_column() {
    let dir = tmp_dir("utf8");
    let path = dir.join("bad.parquet");
    // A BYTE_ARRAY column annotated STRING holding invalid UTF-8 (pyarrow writes the bytes of
    // a binary column; the schema is then patched by writing it as string through a cast-free
    // path: write binary data with a string schema via pyarrow's low-level API).
    run_python(
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         b = pa.array([b'ok', b'\\xff\\xfe', b'fine'], pa.binary())\n\
         s = pa.Array.from_buffers(pa.string(), len(b), b.buffers())\n\
         pq.write_table(pa.table({'s': s}), sys.argv[1], use_dictionary=False)",
        &[path.to_str().expect("path")],
    );
    let e = ParquetReader::open(&path)
        .expect("open")
        .read_batch()
        .expect_err("invalid utf-8");
    let s = e.to_string();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidColumnData { .. }),
        "{s}"
    );
    assert!(
        s.contains("`s`") && s.contains("UTF-8") && s.contains("row 1"),
        "{s}"
    );
}

/// A rough timing, not a test: 1M rows of int64 + string (10% nulls), snappy, written by
/// pyarrow with its defaults (dictionary pages); parq's `read_batch` against pyarrow's
/// `pq.read_table` (best of 5, one thread each). Run with
/// `cargo test --release -p parq --test read_flat -- --ignored timing --nocapture`.
#[test]
#[ignore]
fn timing_1m_rows_int64_string() {
    let dir = tmp_dir("timing");
    let script = r#"
import sys, time, random, pyarrow as pa, pyarrow.parquet as pq
rng = random.Random(1)
n = 1_000_000
for name, dictionary in (("dict", True), ("plain", False)):
    path = sys.argv[1] + f"/t_{name}.parquet"
    ints = pa.array([None if rng.random() < 0.1 else rng.randint(-2**40, 2**40) for _ in range(n)], pa.int64())
    strs = pa.array([None if rng.random() < 0.1 else "value-" + str(rng.randint(0, 1 << (10 if dictionary else 30))) for _ in range(n)])
    pq.write_table(pa.table({"i": ints, "s": strs}), path, compression="snappy", use_dictionary=dictionary)
    best = 1e9
    for _ in range(5):
        t = time.perf_counter(); pq.read_table(path, use_threads=False); best = min(best, time.perf_counter() - t)
    print(name, best)
"#;
    let out = run_python(script, &[dir.to_str().expect("dir")]);
    for line in out.lines() {
        let mut it = line.split_whitespace();
        let (Some(name), Some(py)) = (it.next(), it.next()) else {
            continue;
        };
        let py: f64 = py.parse().expect("seconds");
        let path = dir.join(format!("t_{name}.parquet"));
        let data = Bytes::from(std::fs::read(&path).expect("read"));
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let reader = ParquetReader::from_bytes(data.clone()).expect("open");
            let batch = reader.read_batch().expect("read");
            assert_eq!(batch.num_rows(), 1_000_000);
            best = best.min(t.elapsed().as_secs_f64());
        }
        eprintln!(
            "{name}: parq {:.1} ms, pyarrow {:.1} ms ({:.2}x)",
            best * 1e3,
            py * 1e3,
            py / best
        );
    }
}
