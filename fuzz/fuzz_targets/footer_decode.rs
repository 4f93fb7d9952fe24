//! Fuzzes footer decoding: full, selective and lazy, plus re-encoding, on arbitrary bytes
//! taken as the Thrift `FileMetaData`; and the same bytes taken as a whole file, whose
//! footer index (if any) is used. Nothing may panic, hang or allocate without bound, and a
//! footer index, valid or not, never changes what a selection of a sound footer decodes to
//! (of a footer corrupt in chunks it does not lead to, it may decode what the plain decode
//! fails on or drifts through: it does not read them).
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq_format::footer::{
    build_index, decode_metadata, decode_metadata_with_index, metadata_slice, DecodeOptions,
    FooterIndex, LazyFooter, StatisticsPolicy,
};
use parq_format::thrift::Limits;

/// Decodes `footer` with `opts` through `index` and checks the result equals the plain one
/// whenever the plain decode succeeds and the footer is sound: the index is not a checksum of
/// the chunks it does not lead to (a reader by offsets reads only what it needs), so bytes
/// corrupted there can make the plain decode drift where the indexed one does not.
fn same_through_index(footer: &[u8], index: Option<FooterIndex<'_>>, opts: &DecodeOptions) {
    let sound = decode_metadata(footer, &DecodeOptions::default()).is_ok();
    let plain = decode_metadata(footer, opts).ok().filter(|_| sound);
    let indexed = decode_metadata_with_index(footer, index, opts);
    match (&plain, &indexed) {
        (Some(a), Ok(b)) => {
            assert_eq!(a.buf(), b.buf());
            assert_eq!(format!("{:?}", a.row_groups()), format!("{:?}", b.row_groups()));
        }
        (Some(_), Err(e)) => panic!("the index fails a footer that decodes: {e}"),
        (None, _) => {}
    }
    if let Ok(lazy) = LazyFooter::open_with_index(
        bytes::Bytes::copy_from_slice(footer),
        index,
        &DecodeOptions::default(),
    ) {
        for rg in 0..lazy.num_row_groups().min(4) {
            let _ = lazy.row_group(rg);
            for col in 0..lazy.num_columns_in(rg).min(4) {
                let _ = lazy.column_chunk(rg, col);
            }
        }
    }
}

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
    // A valid index of these bytes, and the bytes as a file with whatever precedes the footer.
    if let Ok(Some(block)) = build_index(data, Limits::default()) {
        same_through_index(data, FooterIndex::find(&block), &opts);
    }
    if let Ok(footer) = metadata_slice(data) {
        let before = &data[..data.len() - 8 - footer.len()];
        same_through_index(footer, FooterIndex::find(before), &opts);
    }
});
