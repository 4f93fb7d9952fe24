//! Fuzzes page header decoding (and the page index structures, which share the code paths)
//! on arbitrary bytes, with re-encoding of what decodes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq_format::metadata::{ColumnIndex, OffsetIndex, PageHeader, PhysicalType, TypedColumnIndex};
use parq_format::thrift::{Reader, Writer};

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    if let Ok(h) = PageHeader::decode(&mut r, None) {
        let mut out = Vec::new();
        h.encode(&mut Writer::new(&mut out), data);
        let again = PageHeader::decode(&mut Reader::new(&out), None);
        assert!(again.is_ok(), "re-encoded page header does not decode: {again:?}");
    }
    let _ = ColumnIndex::decode(&mut Reader::new(data), None);
    let _ = OffsetIndex::decode(&mut Reader::new(data), None);
    for t in [PhysicalType::Int32, PhysicalType::ByteArray, PhysicalType::FixedLenByteArray] {
        let _ = TypedColumnIndex::decode(&mut Reader::new(data), None, t, Some(16));
    }
});
