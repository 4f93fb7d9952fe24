//! Decoding with a selection (columns, row groups, statistics policy, skipped
//! sub-structures) or lazily yields exactly the values a full decode gives for what it keeps,
//! on every corpus file.

mod common;

use parq_format::footer::{
    decode_metadata, metadata_slice, DecodeOptions, LazyFooter, StatisticsPolicy,
};
use parq_format::metadata::{ColumnChunk, FileMetaData};

/// Everything a chunk holds, with byte ranges resolved against `buf`.
fn fingerprint(c: &ColumnChunk, buf: &[u8], with_stats: bool) -> String {
    let stats = if with_stats {
        c.statistics().map(|s| {
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                s.min.map(|r| r.slice(buf).to_vec()),
                s.max.map(|r| r.slice(buf).to_vec()),
                s.min_value.map(|r| r.slice(buf).to_vec()),
                s.max_value.map(|r| r.slice(buf).to_vec()),
                s.null_count,
                s.distinct_count,
                s.is_min_value_exact,
                s.is_max_value_exact
            )
        })
    } else {
        None
    };
    format!(
        "{} {} {:?} {:?} {} {} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        c.file_offset(),
        c.has_metadata(),
        c.physical_type(),
        c.encodings().iter().collect::<Vec<_>>(),
        c.num_values(),
        c.total_compressed_size(),
        c.total_uncompressed_size(),
        c.data_page_offset(),
        c.dictionary_page_offset(),
        c.index_page_offset(),
        c.offset_index_offset(),
        c.column_index_length(),
        c.bloom_filter_offset(),
        c.file_path().map(|r| r.slice(buf).to_vec()),
        stats,
        c.encoding_stats(buf).map(|r| r.ok()),
        c.size_statistics(buf).map(|r| r.ok()),
        c.key_value_metadata(buf).map(|r| r.map(|v| v.len()).ok()),
    )
}

/// The corpus footers that decode, except fuzzer output: a skipped chunk is skipped by its
/// declared wire types while a decoded one is read by the schema (as parquet-cpp does), so a
/// fuzzed footer whose declared types lie may decode fully yet fail, cleanly, when skipped.
/// (That nothing panics on those is checked in `hostile.rs` and by the fuzz targets.)
fn footers() -> Vec<(String, Vec<u8>)> {
    common::corpus_files()
        .into_iter()
        .filter(|f| !f.to_string_lossy().contains("/fuzzing/"))
        .filter_map(|f| {
            let bytes = std::fs::read(&f).ok()?;
            let footer = metadata_slice(&bytes).ok()?.to_vec();
            decode_metadata(&footer, &DecodeOptions::default()).ok()?;
            Some((f.display().to_string(), footer))
        })
        .collect()
}

fn check_selection(
    name: &str,
    full: &FileMetaData,
    footer: &[u8],
    cols: Vec<usize>,
    rgs: Vec<usize>,
) {
    let opts = DecodeOptions {
        columns: Some(cols.clone()),
        row_groups: Some(rgs.clone()),
        ..Default::default()
    };
    let sel = match decode_metadata(footer, &opts) {
        Ok(sel) => sel,
        Err(e) => panic!("{name}: {e}"),
    };
    let kept_rgs: Vec<usize> = rgs
        .iter()
        .copied()
        .filter(|&i| i < full.row_groups().len())
        .collect();
    assert_eq!(sel.row_groups().len(), kept_rgs.len(), "{name}: row groups");
    assert_eq!(sel.num_rows(), full.num_rows());
    assert_eq!(sel.schema().elements(), full.schema().elements());
    for (g, &i) in sel.row_groups().iter().zip(&kept_rgs) {
        let fg = &full.row_groups()[i];
        assert_eq!(g.num_rows, fg.num_rows, "{name}: rg {i} num_rows");
        let kept_cols: Vec<usize> = cols
            .iter()
            .copied()
            .filter(|&j| j < fg.columns().len())
            .collect();
        assert_eq!(g.columns().len(), kept_cols.len(), "{name}: rg {i} columns");
        for (c, &j) in g.columns().iter().zip(&kept_cols) {
            assert_eq!(
                fingerprint(c, sel.buf(), true),
                fingerprint(&fg.columns()[j], full.buf(), true),
                "{name}: rg {i} col {j}"
            );
        }
    }
}

#[test]
fn selective_and_lazy_decoding_match_full_decoding() {
    let footers = footers();
    assert!(footers.len() > 100);
    for (name, footer) in &footers {
        let full = decode_metadata(footer, &DecodeOptions::default()).unwrap();
        let ncols = full.schema().num_columns();
        let nrgs = full.row_groups().len();
        // Projections: first, last, every other, out of range ones ignored.
        check_selection(name, &full, footer, vec![0], (0..nrgs).collect());
        check_selection(
            name,
            &full,
            footer,
            vec![ncols.saturating_sub(1)],
            vec![nrgs.saturating_sub(1)],
        );
        check_selection(
            name,
            &full,
            footer,
            (0..ncols).step_by(2).collect(),
            (0..nrgs).step_by(2).collect(),
        );
        check_selection(name, &full, footer, vec![ncols + 5], vec![nrgs + 3]);

        // Statistics skipped: everything else is equal, statistics are absent.
        let minimal = decode_metadata(footer, &DecodeOptions::minimal()).unwrap();
        let keep_one = DecodeOptions {
            statistics: StatisticsPolicy::KeepColumns(vec![0]),
            ..Default::default()
        };
        let one = decode_metadata(footer, &keep_one).unwrap();
        for ((g, m), o) in full
            .row_groups()
            .iter()
            .zip(minimal.row_groups())
            .zip(one.row_groups())
        {
            for (j, ((c, mc), oc)) in g
                .columns()
                .iter()
                .zip(m.columns())
                .zip(o.columns())
                .enumerate()
            {
                assert!(
                    mc.statistics().is_none() && !mc.has_encoding_stats(),
                    "{name}"
                );
                assert_eq!(mc.num_values(), c.num_values(), "{name}");
                assert_eq!(mc.data_page_offset(), c.data_page_offset(), "{name}");
                assert_eq!(
                    fingerprint(oc, one.buf(), true),
                    fingerprint(c, full.buf(), j == 0),
                    "{name}: col {j} with statistics of column 0 only"
                );
            }
        }

        // Schema reuse gives the same schema object.
        let reuse = DecodeOptions {
            schema: Some(full.schema().clone()),
            ..Default::default()
        };
        let again = decode_metadata(footer, &reuse).unwrap();
        assert!(
            std::sync::Arc::ptr_eq(again.schema(), full.schema()),
            "{name}: schema not reused"
        );

        // Lazy view: every chunk decodes on demand to the same values.
        let lazy = match LazyFooter::open(
            bytes::Bytes::copy_from_slice(footer),
            &DecodeOptions::default(),
        ) {
            Ok(lazy) => lazy,
            Err(e) => panic!("{name}: lazy open: {e}"),
        };
        assert_eq!(lazy.num_row_groups(), nrgs, "{name}");
        assert_eq!(lazy.file().num_rows(), full.num_rows());
        for (i, g) in full.row_groups().iter().enumerate() {
            assert_eq!(lazy.num_columns_in(i), g.columns().len());
            for (j, c) in g.columns().iter().enumerate() {
                let lc = lazy.column_chunk(i, j).unwrap();
                assert_eq!(
                    fingerprint(&lc, lazy.buf(), true),
                    fingerprint(c, full.buf(), true),
                    "{name}: lazy rg {i} col {j}"
                );
            }
            let lg = lazy.row_group(i).unwrap();
            assert_eq!(lg.num_rows, g.num_rows);
        }
        assert!(lazy.column_chunk(nrgs, 0).is_err());
    }
}
