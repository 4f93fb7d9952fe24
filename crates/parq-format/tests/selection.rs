//! Decoding with a selection (columns, row groups, statistics policy, skipped
//! sub-structures) or lazily yields exactly the values a full decode gives for what it keeps,
//! on every corpus file.

mod common;

use common::{fingerprint, footers};
use parq_format::footer::{
    build_index, decode_metadata, decode_metadata_with_index, DecodeOptions, FooterIndex,
    LazyFooter, StatisticsPolicy,
};
use parq_format::metadata::FileMetaData;
use parq_format::thrift::Limits;

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
    // Through the footer index: the very same result.
    if let Some(block) = build_index(footer, Limits::default()).unwrap() {
        let indexed = decode_metadata_with_index(footer, FooterIndex::find(&block), &opts)
            .unwrap_or_else(|e| panic!("{name}: indexed: {e}"));
        assert_eq!(indexed.buf(), sel.buf(), "{name}: indexed arena");
        assert_eq!(
            format!("{:?}", indexed.row_groups()),
            format!("{:?}", sel.row_groups()),
            "{name}: indexed row groups"
        );
    }
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

        // Lazy view, scanned and through the footer index: every chunk decodes on demand to
        // the same values.
        let block = build_index(footer, Limits::default()).unwrap();
        let index = block.as_deref().and_then(FooterIndex::find);
        assert_eq!(index.is_some(), block.is_some(), "{name}");
        let opened = [None, index].map(|index| {
            match LazyFooter::open_with_index(
                bytes::Bytes::copy_from_slice(footer),
                index,
                &DecodeOptions::default(),
            ) {
                Ok(lazy) => {
                    assert_eq!(lazy.is_indexed(), index.is_some(), "{name}");
                    lazy
                }
                Err(e) => panic!("{name}: lazy open: {e}"),
            }
        });
        for lazy in opened {
            check_lazy(name, &full, &lazy);
        }
    }
}

fn check_lazy(name: &str, full: &FileMetaData, lazy: &LazyFooter) {
    let nrgs = full.row_groups().len();
    assert_eq!(lazy.num_row_groups(), nrgs, "{name}");
    assert_eq!(lazy.file().num_rows(), full.num_rows());
    for (i, g) in full.row_groups().iter().enumerate() {
        assert_eq!(lazy.num_columns_in(i), g.columns().len());
        let lg = lazy.row_group(i).unwrap();
        assert_eq!(lg.num_rows, g.num_rows);
        assert_eq!(lg.columns().len(), g.columns().len());
        for (j, c) in g.columns().iter().enumerate() {
            let want = fingerprint(c, full.buf(), true);
            let lc = lazy.column_chunk(i, j).unwrap();
            assert_eq!(
                fingerprint(&lc, lazy.buf(), true),
                want,
                "{name}: lazy rg {i} col {j}"
            );
            assert_eq!(
                fingerprint(&lg.columns()[j], lazy.buf(), true),
                want,
                "{name}: lazy row group {i} col {j}"
            );
        }
    }
    assert!(lazy.column_chunk(nrgs, 0).is_err());
}
