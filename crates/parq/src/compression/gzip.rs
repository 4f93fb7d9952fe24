//! GZIP: one or more concatenated gzip members (RFC 1952). Headers and trailers are parsed
//! here, the deflate bodies inflated by flate2 (zlib-rs backend) straight into the output's
//! spare capacity; each member's CRC-32 and length are checked. The inflate state and CRC are
//! reset, not rebuilt, between members and pages.

use super::{corrupt, mismatch, reserve_output};
use crate::format::metadata::Compression;
use crate::{Error, Result};
use flate2::{Crc, Decompress, FlushDecompress, Status};

const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xE0;

/// Reusable gzip state: a raw-deflate inflater and a CRC-32.
pub(super) struct Gzip {
    inflate: Decompress,
    crc: Crc,
}

#[cold]
fn err(message: impl Into<String>) -> Error {
    corrupt(Compression::Gzip, message)
}

impl Gzip {
    pub(super) fn new() -> Self {
        Gzip {
            inflate: Decompress::new(false),
            crc: Crc::new(),
        }
    }

    /// Decompresses the gzip members of `input` into `out` (exactly `n` bytes).
    pub(super) fn decompress(&mut self, input: &[u8], n: usize, out: &mut Vec<u8>) -> Result<()> {
        reserve_output(out, n);
        let mut rest = input;
        while !rest.is_empty() {
            let body = skip_header(rest, &mut self.crc)?;
            let start = out.len();
            let used = self.inflate_member(body, n, out)?;
            let trailer = body
                .get(used..used + 8)
                .ok_or_else(|| err("truncated gzip trailer"))?;
            self.crc.reset();
            self.crc.update(&out[start..]);
            let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
            let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
            if crc != self.crc.sum() {
                return Err(err("CRC-32 mismatch"));
            }
            if size != (out.len() - start) as u32 {
                return Err(err("gzip trailer size does not match the member's data"));
            }
            rest = &body[used + 8..];
        }
        if out.len() != n {
            return Err(mismatch(n, out.len(), false));
        }
        Ok(())
    }

    /// Inflates one raw deflate stream from `body` onto `out`; returns the input bytes used.
    fn inflate_member(&mut self, body: &[u8], n: usize, out: &mut Vec<u8>) -> Result<usize> {
        self.inflate.reset(false);
        loop {
            let used = self.inflate.total_in() as usize;
            let before = out.len();
            let status = self
                .inflate
                .decompress_vec(
                    body.get(used..).unwrap_or_default(),
                    out,
                    FlushDecompress::None,
                )
                .map_err(|e| err(e.message().unwrap_or("invalid deflate stream").to_string()))?;
            if out.len() > n {
                return Err(mismatch(n, out.len(), true));
            }
            match status {
                Status::StreamEnd => return Ok(self.inflate.total_in() as usize),
                Status::Ok | Status::BufError => {
                    let progress = self.inflate.total_in() as usize != used || out.len() != before;
                    if !progress {
                        return Err(err("truncated deflate stream"));
                    }
                }
            }
        }
    }
}

/// Checks the gzip member header at the start of `buf` and returns the bytes after it.
fn skip_header<'a>(buf: &'a [u8], crc: &mut Crc) -> Result<&'a [u8]> {
    let truncated = || err("truncated gzip header");
    let fixed = buf.get(..10).ok_or_else(truncated)?;
    if fixed[..2] != [0x1f, 0x8b] {
        return Err(err("not a gzip member (bad magic)"));
    }
    if fixed[2] != 8 {
        return Err(err(format!("unknown compression method {}", fixed[2])));
    }
    let flags = fixed[3];
    if flags & FRESERVED != 0 {
        return Err(err("reserved gzip header flags are set"));
    }
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let len = buf.get(pos..pos + 2).ok_or_else(truncated)?;
        pos += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let field = buf.get(pos..).ok_or_else(truncated)?;
            pos += 1 + field.iter().position(|&b| b == 0).ok_or_else(truncated)?;
        }
    }
    if flags & FHCRC != 0 {
        let stored = buf.get(pos..pos + 2).ok_or_else(truncated)?;
        crc.reset();
        crc.update(&buf[..pos]);
        if u16::from_le_bytes([stored[0], stored[1]]) != crc.sum() as u16 {
            return Err(err("gzip header CRC mismatch"));
        }
        pos += 2;
    }
    buf.get(pos..).ok_or_else(truncated)
}
