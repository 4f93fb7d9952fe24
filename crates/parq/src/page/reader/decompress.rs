//! Decompressing a page a [`PageReader`] read: the CRC checked (of a plaintext page; an
//! encrypted page's as it is read), the body of a dictionary or v1 data page expanded whole,
//! a v2 page's values section alone (its levels are never compressed), every declared size
//! checked against what the codec can produce before anything is allocated.

use super::*;

impl PageReader {
    /// Decompresses `page` (from [`PageReader::next_compressed`]) into the reader's buffer,
    /// or borrows its body when it is not compressed, after checking its CRC when
    /// [`PageReaderOptions::verify_crc`] is on. For a v2 data page the level bytes are split
    /// off and only the values section is decompressed, when `is_compressed` says so and it
    /// is not empty.
    pub fn decompress(&mut self, page: CompressedPage) -> Result<Page<'_>> {
        let meta = page.meta;
        let (row_group, column) = (self.options.row_group, self.options.column);
        let ctx = move |e: Error| -> Error {
            with_location(
                in_page(e.with_offset(meta.header_offset), meta.ordinal),
                row_group,
                column,
            )
        };
        // An encrypted page's CRC covers its stored (encrypted) body: checked as it is read.
        if self.options.verify_crc && self.crypto.is_none() {
            crc::verify(&page).map_err(ctx)?;
        }
        let codec = self.codec;
        let header = page.header;
        self.body = page.body;
        // Dictionary and v1 bodies are expanded into the buffer unless stored uncompressed;
        // a v2 page's values are set below.
        self.decompressed = codec != Compression::Uncompressed;
        self.header_bytes = page.header_bytes;
        match header.page_type {
            PageType::DictionaryPage => {
                let Some(h) = header.dictionary_page_header else {
                    return Err(ctx(missing_header(&meta, "dictionary_page_header")));
                };
                let buffer = expand(
                    codec,
                    &mut self.decompressor,
                    &mut self.body,
                    &mut self.buffer,
                    &meta,
                )
                .map_err(ctx)?;
                Ok(Page::Dictionary(DictionaryPage {
                    meta,
                    header: h,
                    buffer,
                }))
            }
            PageType::DataPage => {
                let Some(h) = header.data_page_header else {
                    return Err(ctx(missing_header(&meta, "data_page_header")));
                };
                let buffer = expand(
                    codec,
                    &mut self.decompressor,
                    &mut self.body,
                    &mut self.buffer,
                    &meta,
                )
                .map_err(ctx)?;
                Ok(Page::DataV1(DataPageV1 {
                    meta,
                    header: h,
                    header_bytes: &self.header_bytes,
                    buffer,
                }))
            }
            PageType::DataPageV2 => {
                let Some(h) = header.data_page_header_v2 else {
                    return Err(ctx(missing_header(&meta, "data_page_header_v2")));
                };
                let (rep, def, stored) = split_v2_body(&self.body, &h, &meta).map_err(ctx)?;
                let levels = rep.len() + def.len();
                let Some(values_size) = meta.uncompressed_size.checked_sub(levels) else {
                    return Err(ctx(invalid(
                        meta.ordinal,
                        meta.header_offset,
                        format!(
                            "{levels} level bytes exceed the uncompressed page size {}",
                            meta.uncompressed_size
                        ),
                    )));
                };
                self.decompressed = false;
                let values: &[u8] = if values_size == 0 {
                    // An empty values section (all nulls): never handed to the codec, whose
                    // stream may be absent (0 bytes) or an empty frame.
                    &[]
                } else if !h.values_compressed() || codec == Compression::Uncompressed {
                    if stored.len() != values_size {
                        return Err(ctx(Error::new(ErrorKind::PageSizeMismatch {
                            expected: values_size as u64,
                            actual: stored.len() as u64,
                            at_least: false,
                        })));
                    }
                    stored
                } else {
                    check_expansion(codec, stored.len(), values_size, &meta).map_err(ctx)?;
                    self.decompressor
                        .decompress(codec, stored, values_size, &mut self.buffer)
                        .map_err(ctx)?;
                    self.decompressed = true;
                    &self.buffer
                };
                Ok(Page::DataV2(DataPageV2 {
                    meta,
                    header: h,
                    header_bytes: &self.header_bytes,
                    repetition_levels: rep,
                    definition_levels: def,
                    values,
                }))
            }
            other => Err(ctx(invalid(
                meta.ordinal,
                meta.header_offset,
                format!("a {other} page has no data to decompress"),
            ))),
        }
    }
}

/// The whole body of a dictionary or v1 data page, uncompressed: borrowed when stored so,
/// else decompressed into `buffer` and the compressed bytes let go (so that the fetched range
/// they share can be freed once its pages are decompressed).
fn expand<'a>(
    codec: Compression,
    decompressor: &mut Decompressor,
    body: &'a mut Bytes,
    buffer: &'a mut Vec<u8>,
    meta: &PageMeta,
) -> Result<&'a [u8]> {
    check_expansion(codec, body.len(), meta.uncompressed_size, meta)?;
    if codec == Compression::Uncompressed {
        return decompressor.decompress_or_borrow(codec, body, meta.uncompressed_size, buffer);
    }
    decompressor.decompress(codec, body, meta.uncompressed_size, buffer)?;
    *body = Bytes::new();
    Ok(buffer)
}

/// Rejects declared sizes a codec cannot produce from `input_len` bytes
/// ([`max_decompressed_len`]: at most about 22 times for SNAPPY, 256 for LZ4, 1032 for GZIP),
/// before the decompressor allocates them. UNCOMPRESSED pages are checked for their exact size
/// by the decompressor.
fn check_expansion(codec: Compression, input_len: usize, n: usize, meta: &PageMeta) -> Result<()> {
    if codec != Compression::Uncompressed && n as u64 > max_decompressed_len(codec, input_len) {
        return Err(invalid(
            meta.ordinal,
            meta.header_offset,
            format!(
                "{} cannot expand {input_len} bytes to the declared {n}",
                codec.spec_name()
            ),
        ));
    }
    Ok(())
}
