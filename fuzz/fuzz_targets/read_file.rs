//! Fuzzes the whole read path on arbitrary file bytes: footer, page reader, decompression,
//! decoders and Arrow assembly. Nothing may panic, hang or allocate without bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::read::ParquetReader;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = ParquetReader::from_bytes(bytes::Bytes::copy_from_slice(data)) else {
        return;
    };
    let reader = reader.with_batch_size(64);
    if let Ok(batches) = reader.batches() {
        for b in batches.take(16) {
            if b.is_err() {
                break;
            }
        }
    }
});
