//! Fuzzes the whole read path on arbitrary file bytes: footer, page reader, decompression,
//! decoders and Arrow assembly, with the read options that change the path (CRC
//! verification, strings as binary, string views) chosen from the input's length. Nothing
//! may panic, hang or allocate without bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::read::{InvalidUtf8, ParquetReader, StringType};

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = ParquetReader::from_bytes(bytes::Bytes::copy_from_slice(data)) else {
        return;
    };
    let choice = data.len() % 4;
    let reader = reader
        .with_batch_size(64)
        .with_verify_crc(choice == 1)
        .with_invalid_utf8(if choice == 2 {
            InvalidUtf8::Binary
        } else {
            InvalidUtf8::Error
        })
        .with_strings(if choice == 3 {
            StringType::Utf8View
        } else {
            StringType::Utf8
        });
    if let Ok(batches) = reader.batches() {
        for b in batches.take(16) {
            if b.is_err() {
                break;
            }
        }
    }
});
