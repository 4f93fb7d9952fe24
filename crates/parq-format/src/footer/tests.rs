//! Tests of the push-style footer decoder.

use super::*;

/// A corpus file (`$PARQ_TESTDATA`, else `../shared/testdata` beside the repository).
fn sample_file() -> Vec<u8> {
    let root = match std::env::var_os("PARQ_TESTDATA") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata"),
    };
    let p = root.join("parquet-testing/data/alltypes_plain.parquet");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn push_decoder_asks_for_tail_then_footer() {
    let file = sample_file();
    let n = file.len() as u64;
    let mut d = FooterDecoder::new(n, DecodeOptions::default());
    let r1 = d.next_range().unwrap();
    assert_eq!(r1, n - 8..n);
    d.push(r1.start, &file[r1.start as usize..]).unwrap();
    let r2 = d.next_range().unwrap();
    let footer = metadata_slice(&file).unwrap();
    assert_eq!(r2.end - r2.start, footer.len() as u64);
    // Pushing a range that does not cover the request is an error.
    assert!(d
        .push(r2.start + 1, &file[r2.start as usize + 1..])
        .is_err());
    d.push(r2.start, &file[r2.start as usize..r2.end as usize])
        .unwrap();
    assert!(d.next_range().is_none());
    let md = d.take().unwrap();
    assert_eq!(md.num_rows(), 8);
    assert!(d.take().is_none());
}

#[test]
fn push_decoder_with_prefetch_needs_one_fetch() {
    let file = sample_file();
    let n = file.len() as u64;
    let mut d = FooterDecoder::new(n, DecodeOptions::default()).with_prefetch(1 << 20);
    let r = d.next_range().unwrap();
    assert_eq!(r, 0..n);
    d.push(0, &file).unwrap();
    assert!(d.next_range().is_none());
    assert_eq!(d.take().unwrap().num_rows(), 8);
}

#[test]
fn error_offsets_are_file_offsets() {
    let mut file = sample_file();
    let footer_start = file.len() - 8 - metadata_slice(&file).unwrap().len();
    // Corrupt the first byte of the footer into an invalid wire type (field 1, type 15).
    file[footer_start] = 0x1f;
    let e = decode_file_metadata(&file, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidWireType(15)), "{e}");
    assert_eq!(e.offset(), Some(footer_start as u64 + 1), "{e}");
}
