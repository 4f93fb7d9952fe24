//! `parq meta`: the footer as a readable summary, or in full as JSON with parquet.thrift's
//! field names (binary values as lowercase hex).

use std::fmt::Write;
use std::fs::File;
use std::path::Path;

use parq::format::footer::PageIndex;
use parq::format::metadata::{
    ColumnChunk, ColumnOrder, FileMetaData, KeyValue, LogicalType, RowGroup, SchemaElement,
    Statistics,
};

use crate::dataset::DatasetArgs;
use crate::json::{hex, Json, Obj};
use crate::keys::KeyArgs;
use crate::schema::logical_type_text;
use crate::{read_footer, CliError};

pub fn run(
    file: &Path,
    json: bool,
    page_index: bool,
    dataset: &DatasetArgs,
    keys: &KeyArgs,
) -> Result<String, CliError> {
    if crate::dataset::is_dataset(file) {
        if keys.any() {
            return Err(CliError::message(
                file,
                "keys apply to one file, not a dataset".into(),
            ));
        }
        return run_dataset(file, json, page_index, dataset);
    }
    let md = read_footer(file, keys)?;
    let pi = if page_index {
        let fail = |error| CliError {
            file: file.to_path_buf(),
            error,
        };
        let mut f = File::open(file).map_err(|e| fail(e.into()))?;
        let len = f.metadata().map_err(|e| fail(e.into()))?.len();
        parq::file::read_page_index_from(&mut f, &md, None, None, len).map_err(fail)?
    } else {
        None
    };
    if json {
        let mut out = String::new();
        to_json(&md, pi.as_ref()).write(&mut out, 0);
        out.push('\n');
        Ok(out)
    } else {
        Ok(summary(&md, pi.as_ref()))
    }
}

/// The footers of a dataset's files: each file's summary under its name, or with `json`
/// one JSON array of `{"file": ..., "metadata": ...}` objects.
fn run_dataset(
    source: &Path,
    json: bool,
    page_index: bool,
    args: &DatasetArgs,
) -> Result<String, CliError> {
    if page_index {
        return Err(CliError::new(
            source,
            parq::Error::new(parq::ErrorKind::InvalidArgument(
                "--page-index applies to one file, not to a dataset".into(),
            )),
        ));
    }
    let ds = crate::dataset::open(source, args, Default::default())?;
    let metas = ds.metadata().map_err(|e| CliError::new(source, e))?;
    let mut out = String::new();
    if json {
        let docs = ds.files().into_iter().zip(&metas).map(|(name, md)| {
            Json::Obj(vec![
                ("file", Json::Str(name.to_string())),
                ("metadata", to_json(md, None)),
            ])
        });
        Json::Arr(docs.collect()).write(&mut out, 0);
        out.push('\n');
        return Ok(out);
    }
    for (name, md) in ds.files().into_iter().zip(&metas) {
        out.push_str(&format!("== {name}\n"));
        out.push_str(&summary(md, None));
        out.push('\n');
    }
    Ok(out)
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn key_values(list: &[KeyValue], buf: &[u8]) -> Json {
    Json::Arr(
        list.iter()
            .map(|kv| {
                Obj::new()
                    .put("key", text(kv.key.slice(buf)))
                    .opt("value", kv.value.map(|v| text(v.slice(buf))))
                    .build()
            })
            .collect(),
    )
}

fn logical_type_json(t: &LogicalType, buf: &[u8]) -> Json {
    let o = Obj::new().put("type", t.spec_name());
    match *t {
        LogicalType::Decimal { scale, precision } => {
            o.put("scale", scale).put("precision", precision)
        }
        LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        }
        | LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        } => o
            .put("is_adjusted_to_utc", is_adjusted_to_utc)
            .put("unit", unit.spec_name()),
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => o.put("bit_width", bit_width).put("is_signed", is_signed),
        LogicalType::Variant {
            specification_version,
        } => o.opt("specification_version", specification_version),
        LogicalType::Geometry { crs } => o.opt("crs", crs.map(|c| text(c.slice(buf)))),
        LogicalType::Geography { crs, algorithm } => o
            .opt("crs", crs.map(|c| text(c.slice(buf))))
            .opt("algorithm", algorithm.map(|a| a.spec_name())),
        LogicalType::Unrecognized { field_id, raw, .. } => {
            o.put("field_id", field_id).put("raw", hex(raw.slice(buf)))
        }
        _ => o,
    }
    .build()
}

fn schema_element_json(e: &SchemaElement, buf: &[u8]) -> Json {
    Obj::new()
        .put("name", text(e.name.slice(buf)))
        .opt("type", e.physical_type.map(|t| t.to_string()))
        .opt("type_length", e.type_length)
        .opt("repetition_type", e.repetition.map(|r| r.to_string()))
        .opt("num_children", e.num_children)
        .opt("converted_type", e.converted_type.map(|c| c.to_string()))
        .opt("scale", e.scale)
        .opt("precision", e.precision)
        .opt("field_id", e.field_id)
        .opt(
            "logical_type",
            e.logical_type.as_ref().map(|t| logical_type_json(t, buf)),
        )
        .build()
}

pub(crate) fn statistics_json(s: &Statistics, buf: &[u8]) -> Json {
    let h = |r: Option<parq::format::metadata::ByteRange>| r.map(|r| hex(r.slice(buf)));
    Obj::new()
        .opt("null_count", s.null_count)
        .opt("distinct_count", s.distinct_count)
        .opt("min_value", h(s.min_value))
        .opt("max_value", h(s.max_value))
        .opt("min", h(s.min))
        .opt("max", h(s.max))
        .opt("is_min_value_exact", s.is_min_value_exact)
        .opt("is_max_value_exact", s.is_max_value_exact)
        .opt("nan_count", s.nan_count)
        .build()
}

fn column_json(md: &FileMetaData, leaf: usize, c: &ColumnChunk) -> Json {
    let buf = md.buf();
    let path: Vec<String> = md.schema().leaf_path(leaf).map(text).collect();
    let mut o = Obj::new()
        .put("path", path)
        .opt("file_path", c.file_path().map(|p| text(p.slice(buf))))
        .put("file_offset", c.file_offset());
    if c.has_metadata() {
        let encodings: Vec<String> = c.encodings().iter().map(|e| e.to_string()).collect();
        o = o
            .put("physical_type", c.physical_type().to_string())
            .put("codec", c.codec().to_string())
            .put("encodings", encodings)
            .put("num_values", c.num_values())
            .put("total_compressed_size", c.total_compressed_size())
            .put("total_uncompressed_size", c.total_uncompressed_size())
            .put("data_page_offset", c.data_page_offset())
            .opt("index_page_offset", c.index_page_offset())
            .opt("dictionary_page_offset", c.dictionary_page_offset())
            .opt(
                "statistics",
                c.statistics().map(|s| statistics_json(&s, buf)),
            )
            .opt(
                "encoding_stats",
                c.encoding_stats(buf).map(|r| match r {
                    Ok(list) => Json::Arr(
                        list.iter()
                            .map(|s| {
                                Obj::new()
                                    .put("page_type", s.page_type.to_string())
                                    .put("encoding", s.encoding.to_string())
                                    .put("count", s.count)
                                    .build()
                            })
                            .collect(),
                    ),
                    Err(e) => Json::Str(format!("error: {e}")),
                }),
            )
            .opt("bloom_filter_offset", c.bloom_filter_offset())
            .opt("bloom_filter_length", c.bloom_filter_length())
            .opt(
                "size_statistics",
                c.size_statistics(buf).map(|r| match r {
                    Ok(s) => Obj::new()
                        .opt(
                            "unencoded_byte_array_data_bytes",
                            s.unencoded_byte_array_data_bytes,
                        )
                        .opt("repetition_level_histogram", s.repetition_level_histogram)
                        .opt("definition_level_histogram", s.definition_level_histogram)
                        .build(),
                    Err(e) => Json::Str(format!("error: {e}")),
                }),
            )
            .opt(
                "geospatial_statistics",
                c.geospatial_statistics(buf).map(|r| match r {
                    Ok(g) => Obj::new()
                        .opt(
                            "bbox",
                            g.bbox.map(|b| {
                                Obj::new()
                                    .put("xmin", b.xmin)
                                    .put("xmax", b.xmax)
                                    .put("ymin", b.ymin)
                                    .put("ymax", b.ymax)
                                    .opt("zmin", b.zmin)
                                    .opt("zmax", b.zmax)
                                    .opt("mmin", b.mmin)
                                    .opt("mmax", b.mmax)
                                    .build()
                            }),
                        )
                        .opt("geospatial_types", g.geospatial_types)
                        .build(),
                    Err(e) => Json::Str(format!("error: {e}")),
                }),
            )
            .opt(
                "key_value_metadata",
                c.key_value_metadata(buf).map(|r| match r {
                    Ok(list) => key_values(&list, buf),
                    Err(e) => Json::Str(format!("error: {e}")),
                }),
            );
    }
    o.opt("offset_index_offset", c.offset_index_offset())
        .opt("offset_index_length", c.offset_index_length())
        .opt("column_index_offset", c.column_index_offset())
        .opt("column_index_length", c.column_index_length())
        .opt(
            "crypto_metadata",
            c.extras()
                .and_then(|e| e.crypto_metadata)
                .map(|r| hex(r.slice(buf))),
        )
        .opt(
            "encrypted_column_metadata",
            c.extras()
                .and_then(|e| e.encrypted_column_metadata)
                .map(|r| hex(r.slice(buf))),
        )
        .build()
}

fn row_group_json(md: &FileMetaData, g: &RowGroup) -> Json {
    Obj::new()
        .put("num_rows", g.num_rows)
        .put("total_byte_size", g.total_byte_size)
        .opt("file_offset", g.file_offset)
        .opt("total_compressed_size", g.total_compressed_size)
        .opt("ordinal", g.ordinal)
        .opt(
            "sorting_columns",
            g.sorting_columns.as_ref().map(|s| {
                Json::Arr(
                    s.iter()
                        .map(|c| {
                            Obj::new()
                                .put("column_idx", c.column_idx)
                                .put("descending", c.descending)
                                .put("nulls_first", c.nulls_first)
                                .build()
                        })
                        .collect(),
                )
            }),
        )
        .put(
            "columns",
            Json::Arr(
                g.columns()
                    .iter()
                    .enumerate()
                    .map(|(j, c)| column_json(md, j, c))
                    .collect(),
            ),
        )
        .build()
}

pub(crate) fn page_index_json(pi: &PageIndex) -> Json {
    let mut groups = Vec::new();
    for (gi, &rg) in pi.row_groups.iter().enumerate() {
        let mut cols = Vec::new();
        for (cj, &col) in pi.columns.iter().enumerate() {
            let ci = pi.column_index(gi, cj).map(|ci| {
                let n = ci.len();
                Obj::new()
                    .put("null_pages", ci.null_pages().to_vec())
                    .put(
                        "min_values",
                        (0..n).map(|i| hex(ci.min_bytes(i))).collect::<Vec<_>>(),
                    )
                    .put(
                        "max_values",
                        (0..n).map(|i| hex(ci.max_bytes(i))).collect::<Vec<_>>(),
                    )
                    .put("boundary_order", ci.boundary_order().to_string())
                    .opt("null_counts", ci.null_counts().map(<[i64]>::to_vec))
                    .opt("nan_counts", ci.nan_counts().map(<[i64]>::to_vec))
                    .opt(
                        "repetition_level_histograms",
                        ci.repetition_level_histograms().map(<[i64]>::to_vec),
                    )
                    .opt(
                        "definition_level_histograms",
                        ci.definition_level_histograms().map(<[i64]>::to_vec),
                    )
                    .opt("nan_counts", ci.nan_counts().map(<[i64]>::to_vec))
                    .build()
            });
            let oi = pi.offset_index(gi, cj).map(|oi| {
                let locations = oi
                    .page_locations()
                    .iter()
                    .map(|p| {
                        Obj::new()
                            .put("offset", p.offset)
                            .put("compressed_page_size", p.compressed_page_size)
                            .put("first_row_index", p.first_row_index)
                            .build()
                    })
                    .collect();
                Obj::new()
                    .put("page_locations", Json::Arr(locations))
                    .opt(
                        "unencoded_byte_array_data_bytes",
                        oi.unencoded_byte_array_data_bytes().map(<[i64]>::to_vec),
                    )
                    .build()
            });
            cols.push(
                Obj::new()
                    .put("column", col)
                    .opt("column_index", ci)
                    .opt("offset_index", oi)
                    .build(),
            );
        }
        groups.push(
            Obj::new()
                .put("row_group", rg)
                .put("columns", Json::Arr(cols))
                .build(),
        );
    }
    Json::Arr(groups)
}

fn to_json(md: &FileMetaData, pi: Option<&PageIndex>) -> Json {
    let buf = md.buf();
    let schema = md.schema();
    Obj::new()
        .put("version", md.version)
        .put("num_rows", md.num_rows)
        .opt("created_by", md.created_by.map(|r| text(r.slice(buf))))
        .opt(
            "key_value_metadata",
            md.key_value_metadata.as_ref().map(|kv| key_values(kv, buf)),
        )
        .put(
            "schema",
            Json::Arr(
                schema
                    .elements()
                    .iter()
                    .map(|e| schema_element_json(e, schema.buf()))
                    .collect(),
            ),
        )
        .put(
            "row_groups",
            Json::Arr(
                md.row_groups()
                    .iter()
                    .map(|g| row_group_json(md, g))
                    .collect(),
            ),
        )
        .opt(
            "column_orders",
            md.column_orders.as_ref().map(|o| {
                Json::Arr(
                    o.iter()
                        .map(|o| {
                            Json::Str(match o {
                                ColumnOrder::TypeDefined => "TYPE_ORDER".into(),
                                ColumnOrder::Ieee754TotalOrder => "IEEE_754_TOTAL_ORDER".into(),
                                ColumnOrder::Int96TimestampOrder => "INT96_TIMESTAMP_ORDER".into(),
                                ColumnOrder::Undefined => "UNDEFINED".into(),
                                ColumnOrder::Unrecognized { field_id, .. } => {
                                    format!("UNKNOWN({field_id})")
                                }
                            })
                        })
                        .collect(),
                )
            }),
        )
        .opt(
            "encryption_algorithm",
            md.encryption_algorithm.as_ref().map(|a| format!("{a:?}")),
        )
        .opt(
            "footer_signing_key_metadata",
            md.footer_signing_key_metadata.map(|r| hex(r.slice(buf))),
        )
        .opt("page_index", pi.map(page_index_json))
        .build()
}

fn summary(md: &FileMetaData, pi: Option<&PageIndex>) -> String {
    let mut out = String::new();
    let schema = md.schema();
    let _ = writeln!(out, "created_by: {}", md.created_by().unwrap_or_default());
    let _ = writeln!(out, "version: {}", md.version);
    let _ = writeln!(out, "num_rows: {}", md.num_rows);
    let _ = writeln!(out, "num_row_groups: {}", md.row_groups().len());
    let _ = writeln!(out, "num_columns: {}", schema.num_columns());
    if let Some(kv) = &md.key_value_metadata {
        let _ = writeln!(out, "key_value_metadata:");
        for e in kv {
            let v = e.value.map(|v| text(md.bytes(v))).unwrap_or_default();
            let v = if v.len() > 80 {
                format!("{}... ({} bytes)", &v[..v.floor_char_boundary(77)], v.len())
            } else {
                v
            };
            let _ = writeln!(out, "  {}: {v}", text(md.bytes(e.key)));
        }
    }
    let _ = writeln!(out, "columns:");
    for (j, leaf) in schema.leaves().iter().enumerate() {
        let e = &schema.elements()[leaf.element as usize];
        let ann = e
            .logical_type
            .as_ref()
            .map(|t| format!(" ({})", logical_type_text(t, schema.buf())))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {j}: {} {}{ann} max_def={} max_rep={}",
            schema.leaf_path_string(j),
            e.physical_type.map(|t| t.to_string()).unwrap_or_default(),
            leaf.max_def_level,
            leaf.max_rep_level
        );
    }
    for (i, g) in md.row_groups().iter().enumerate() {
        let _ = writeln!(
            out,
            "row group {i}: {} rows, {} bytes",
            g.num_rows, g.total_byte_size
        );
        for (j, c) in g.columns().iter().enumerate() {
            let encs: Vec<String> = c.encodings().iter().map(|e| e.to_string()).collect();
            let _ = writeln!(
                out,
                "  {}: {} {} values, {} -> {} bytes, [{}], data page at {}{}",
                schema.leaf_path_string(j),
                c.codec(),
                c.num_values(),
                c.total_uncompressed_size(),
                c.total_compressed_size(),
                encs.join(","),
                c.data_page_offset(),
                c.null_count()
                    .map(|n| format!(", {n} nulls"))
                    .unwrap_or_default()
                    + &c.nan_count()
                        .map(|n| format!(", {n} NaNs"))
                        .unwrap_or_default(),
            );
        }
    }
    if let Some(pi) = pi {
        let _ = writeln!(
            out,
            "page index: {} column indexes, {} offset indexes, {} pages",
            pi.num_column_indexes(),
            pi.num_offset_indexes(),
            pi.num_pages()
        );
    }
    out
}
