//! Inputs the fuzzers found problems with, kept as regression tests: each must decode or fail
//! cleanly, and whatever decodes must re-encode to bytes that decode to the same model; taken
//! as a whole file, a selection decoded through the footer index before its footer (if any)
//! must equal the plain selective decode whenever the footer decodes whole.

use parq_format::footer::{
    decode_file_metadata, decode_metadata, metadata_slice, DecodeOptions, LazyFooter,
};
use parq_format::metadata::PageHeader;
use parq_format::thrift::{Reader, Writer};

#[test]
fn fuzz_regressions_decode_and_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        n += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("page-") {
            if let Ok(h) = PageHeader::decode(&mut Reader::new(&data), None) {
                let mut out = Vec::new();
                h.encode(&mut Writer::new(&mut out), &data);
                let again = PageHeader::decode(&mut Reader::new(&out), None).unwrap_or_else(|e| {
                    panic!("{name}: re-encoded page header does not decode: {e}")
                });
                let mut out2 = Vec::new();
                again.encode(&mut Writer::new(&mut out2), &out);
                assert_eq!(out, out2, "{name}");
            }
            continue;
        }
        if let Ok(md) = decode_metadata(&data, &DecodeOptions::default()) {
            let mut out = Vec::new();
            md.encode(&mut out).unwrap();
            let again = decode_metadata(&out, &DecodeOptions::default()).unwrap_or_else(|e| {
                panic!("{}: re-encoded footer does not decode: {e}", path.display())
            });
            let mut out2 = Vec::new();
            again.encode(&mut out2).unwrap();
            assert_eq!(out, out2, "{}", path.display());
        }
        if let Ok(footer) = metadata_slice(&data) {
            let opts = DecodeOptions {
                columns: Some(vec![0, 2]),
                row_groups: Some(vec![1]),
                ..Default::default()
            };
            let indexed = decode_file_metadata(&data, &opts);
            // Equal whenever the footer is sound (the index does not vouch for the chunks it
            // does not lead to).
            let sound = decode_metadata(footer, &DecodeOptions::default()).is_ok();
            if let Some(plain) = decode_metadata(footer, &opts).ok().filter(|_| sound) {
                let indexed = indexed.unwrap_or_else(|e| panic!("{name}: indexed: {e}"));
                assert_eq!(indexed.buf(), plain.buf(), "{name}");
                assert_eq!(
                    format!("{:?}", indexed.row_groups()),
                    format!("{:?}", plain.row_groups()),
                    "{name}"
                );
            }
        }
        let _ = LazyFooter::open(bytes::Bytes::from(data), &DecodeOptions::default());
    }
    assert!(n > 0);
}
