//! Footers written by the `parquet` crate 56.2.0 (generated Thrift) and 60.1.0 (its own
//! Thrift writer) decode in parq to the same values those crates decode, and re-encode to the
//! very same bytes.

use std::sync::Arc;

use parq::format::footer::{decode_metadata, metadata_slice, DecodeOptions};

/// The values both sides decode, per column chunk: offsets, sizes, counts and statistics.
type ChunkFacts = (
    i64,
    i64,
    i64,
    i64,
    Option<i64>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
);

fn parq_facts(file: &[u8]) -> (Vec<u8>, Vec<ChunkFacts>) {
    let footer = metadata_slice(file).unwrap();
    let md = decode_metadata(footer, &DecodeOptions::default()).unwrap();
    let mut again = Vec::new();
    md.encode(&mut again).unwrap();
    assert!(
        again == footer,
        "re-encoded footer differs from the writer's"
    );
    let facts = md
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| {
            let s = c.statistics();
            (
                c.num_values(),
                c.total_compressed_size(),
                c.total_uncompressed_size(),
                c.data_page_offset(),
                c.null_count(),
                s.as_ref()
                    .and_then(|s| s.min_value)
                    .map(|r| md.bytes(r).to_vec()),
                s.as_ref()
                    .and_then(|s| s.max_value)
                    .map(|r| md.bytes(r).to_vec()),
            )
        })
        .collect();
    (again, facts)
}

#[test]
fn parquet_56_footers_round_trip_and_match() {
    use arrow_56::{ArrayRef, Float32Array, Int64Array, RecordBatch, StringArray};
    use parquet_56::arrow::ArrowWriter;
    use parquet_56::file::properties::{EnabledStatistics, WriterProperties};
    let batch = RecordBatch::try_from_iter([
        (
            "f",
            Arc::new(Float32Array::from_iter(
                (0..3000).map(|i| (i % 7 == 0).then_some(i as f32)),
            )) as ArrayRef,
        ),
        (
            "i",
            Arc::new(Int64Array::from_iter_values(
                (0..3000).map(|i| i * 31 - 5000),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                (0..3000).map(|i| format!("s{}", i % 13)),
            )),
        ),
    ])
    .unwrap();
    for stats in [
        EnabledStatistics::None,
        EnabledStatistics::Chunk,
        EnabledStatistics::Page,
    ] {
        let props = WriterProperties::builder()
            .set_statistics_enabled(stats)
            .set_max_row_group_size(1000)
            .build();
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let (_, facts) = parq_facts(&buf);
        let theirs = parquet_56::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&bytes::Bytes::from(buf.clone()))
            .unwrap();
        let theirs: Vec<ChunkFacts> = theirs
            .row_groups()
            .iter()
            .flat_map(|g| g.columns())
            .map(|c| {
                let s = c.statistics();
                (
                    c.num_values(),
                    c.compressed_size(),
                    c.uncompressed_size(),
                    c.data_page_offset(),
                    s.and_then(|s| s.null_count_opt()).map(|n| n as i64),
                    s.and_then(|s| s.min_bytes_opt()).map(|b| b.to_vec()),
                    s.and_then(|s| s.max_bytes_opt()).map(|b| b.to_vec()),
                )
            })
            .collect();
        assert_eq!(facts, theirs, "{stats:?}");
    }
}

#[test]
fn parquet_60_footers_round_trip_and_match() {
    use arrow_60::{ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray};
    use parquet_60::arrow::ArrowWriter;
    use parquet_60::file::properties::{EnabledStatistics, WriterProperties};
    let batch = RecordBatch::try_from_iter([
        (
            "d",
            Arc::new(Float64Array::from_iter(
                (0..3000).map(|i| (i % 5 != 0).then_some(i as f64 / 3.0)),
            )) as ArrayRef,
        ),
        ("i", Arc::new(Int32Array::from_iter_values(0..3000))),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                (0..3000).map(|i| format!("value {}", i % 101)),
            )),
        ),
    ])
    .unwrap();
    for stats in [
        EnabledStatistics::None,
        EnabledStatistics::Chunk,
        EnabledStatistics::Page,
    ] {
        let props = WriterProperties::builder()
            .set_statistics_enabled(stats)
            .set_max_row_group_row_count(Some(1000))
            .build();
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let (_, facts) = parq_facts(&buf);
        let theirs = parquet_60::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&bytes::Bytes::from(buf.clone()))
            .unwrap();
        let theirs: Vec<ChunkFacts> = theirs
            .row_groups()
            .iter()
            .flat_map(|g| g.columns())
            .map(|c| {
                let s = c.statistics();
                (
                    c.num_values(),
                    c.compressed_size(),
                    c.uncompressed_size(),
                    c.data_page_offset(),
                    s.and_then(|s| s.null_count_opt()).map(|n| n as i64),
                    s.and_then(|s| s.min_bytes_opt()).map(|b| b.to_vec()),
                    s.and_then(|s| s.max_bytes_opt()).map(|b| b.to_vec()),
                )
            })
            .collect();
        assert_eq!(facts, theirs, "{stats:?}");
    }
}

#[test]
fn page_index_matches_parquet_60() {
    use arrow_60::{ArrayRef, Float32Array, Int64Array, RecordBatch, StringArray};
    use parq::format::footer::decode_page_index;
    use parquet_60::arrow::ArrowWriter;
    use parquet_60::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
    use parquet_60::file::page_index::column_index::ColumnIndexMetaData as Ci;
    use parquet_60::file::properties::{EnabledStatistics, WriterProperties};
    let n = 5000;
    let batch = RecordBatch::try_from_iter([
        (
            "f",
            Arc::new(Float32Array::from_iter(
                (0..n).map(|i| (i % 3 != 0 && i < 4000).then_some(i as f32)),
            )) as ArrayRef,
        ),
        (
            "i",
            Arc::new(Int64Array::from_iter_values(
                (0..n).map(|i| (i * 7919) % 1000),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| (i % 5 != 0).then(|| format!("v{}", i % 37))),
            )),
        ),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_data_page_row_count_limit(300)
        .set_write_batch_size(100)
        .set_max_row_group_row_count(Some(2000))
        .build();
    let mut buf = Vec::new();
    let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let md = decode_metadata(metadata_slice(&buf).unwrap(), &DecodeOptions::default()).unwrap();
    let ours = decode_page_index(&buf, 0, &md, None, None).unwrap();
    let theirs = ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Required)
        .parse_and_finish(&bytes::Bytes::from(buf.clone()))
        .unwrap();
    let provider = theirs.page_index().expect("60.1 read a page index");
    let mut pages = 0;
    for rg in 0..md.row_groups().len() {
        for col in 0..3 {
            let ci = ours.column_index(rg, col).unwrap();
            let oi = ours.offset_index(rg, col).unwrap();
            let tci = provider.column_index(rg, col).unwrap();
            let toi = provider.offset_index(rg, col).unwrap();
            let locs: Vec<(i64, i32, i64)> = oi
                .page_locations()
                .iter()
                .map(|p| (p.offset, p.compressed_page_size, p.first_row_index))
                .collect();
            let tlocs: Vec<(i64, i32, i64)> = toi
                .page_locations()
                .iter()
                .map(|p| (p.offset, p.compressed_page_size, p.first_row_index))
                .collect();
            assert_eq!(locs, tlocs, "rg {rg} col {col}");
            assert!(ci.len() > 1, "several pages expected");
            assert_eq!(
                ci.null_counts().map(<[i64]>::to_vec),
                tci.null_counts().cloned()
            );
            for p in 0..ci.len() {
                assert_eq!(
                    ci.null_pages()[p],
                    tci.is_null_page(p),
                    "rg {rg} col {col} page {p}"
                );
                if ci.null_pages()[p] {
                    continue;
                }
                match tci {
                    Ci::FLOAT(t) => {
                        assert_eq!(ci.min_f32(p), Some(t.min_values()[p]));
                        assert_eq!(ci.max_f32(p), Some(t.max_values()[p]));
                    }
                    Ci::INT64(t) => {
                        assert_eq!(ci.min_i64(p), Some(t.min_values()[p]));
                        assert_eq!(ci.max_i64(p), Some(t.max_values()[p]));
                    }
                    Ci::BYTE_ARRAY(t) => {
                        assert_eq!(Some(ci.min_bytes(p)), t.min_value(p));
                        assert_eq!(Some(ci.max_bytes(p)), t.max_value(p));
                    }
                    other => panic!("unexpected column index {other:?}"),
                }
                pages += 1;
            }
        }
    }
    assert!(pages > 20);
}
