//! Fuzzes footer decoding: full, selective and lazy, plus re-encoding, on arbitrary bytes
//! taken as the Thrift `FileMetaData`. Nothing may panic, hang or allocate without bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq_format::footer::{decode_metadata, DecodeOptions, LazyFooter, StatisticsPolicy};

fuzz_target!(|data: &[u8]| {
    let full = decode_metadata(data, &DecodeOptions::default());
    if let Ok(md) = &full {
        let mut out = Vec::new();
        if md.encode(&mut out).is_ok() {
            // What we encode must decode again.
            let again = decode_metadata(&out, &DecodeOptions::default());
            assert!(again.is_ok(), "re-encoded footer does not decode: {again:?}");
        }
        for g in md.row_groups() {
            for c in g.columns() {
                let _ = c.encoding_stats(md.buf());
                let _ = c.size_statistics(md.buf());
                let _ = c.geospatial_statistics(md.buf());
                let _ = c.key_value_metadata(md.buf());
            }
        }
    }
    let opts = DecodeOptions {
        statistics: StatisticsPolicy::KeepColumns(vec![1]),
        columns: Some(vec![0, 2]),
        row_groups: Some(vec![1]),
        ..DecodeOptions::default()
    };
    let _ = decode_metadata(data, &opts);
    if let Ok(lazy) = LazyFooter::open(bytes::Bytes::copy_from_slice(data), &DecodeOptions::default()) {
        for rg in 0..lazy.num_row_groups().min(4) {
            let _ = lazy.row_group(rg);
            for col in 0..lazy.num_columns_in(rg).min(4) {
                let _ = lazy.column_chunk(rg, col);
            }
        }
    }
});
