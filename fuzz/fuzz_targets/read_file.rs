//! Fuzzes the whole read path on arbitrary file bytes: footer, page reader, decompression,
//! decoders and Arrow assembly, with the read options that change the path (CRC
//! verification, strings as binary, string views) chosen from the input's length, and a
//! read of the first and last top-level columns through the projected footer (their chunks
//! alone, through the footer index; their fields alone of the `ARROW:schema`). Nothing may
//! panic, hang or allocate without bound.
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
    let names: Vec<String> = match reader.schema() {
        Ok(s) => [s.fields().first(), s.fields().last()]
            .into_iter()
            .flatten()
            .map(|f| f.name().clone())
            .collect(),
        Err(_) => Vec::new(),
    };
    drain(&reader);
    if !names.is_empty() {
        let source = std::sync::Arc::new(bytes::Bytes::copy_from_slice(data));
        if let Ok(some) = ParquetReader::from_source_columns(source, &names) {
            drain(&some.with_batch_size(64));
        }
    }
});

/// Reads up to 16 batches, stopping at the first error.
fn drain(reader: &ParquetReader) {
    if let Ok(batches) = reader.batches() {
        for b in batches.take(16) {
            if b.is_err() {
                break;
            }
        }
    }
}
