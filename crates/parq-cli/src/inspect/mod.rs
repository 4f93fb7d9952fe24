//! The inspection verbs: `parq pages` ([`pages`]), `parq dictionary` ([`dictionary`]),
//! `parq index` ([`index`]), `parq bloom` ([`bloom`]) and `parq footer` ([`footer`]). This
//! module owns what they share: the opened file ([`Input`]: its footer, read with the keys of
//! an encrypted file, and ranges of its bytes, checked against its length before anything is
//! allocated), columns named by dotted path, row group choice and page readers of chunks.

pub mod bloom;
pub mod dictionary;
pub mod footer;
pub mod index;
pub mod pages;
pub mod value;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use parq::format::metadata::{ColumnChunk, FileMetaData};
use parq::page::{needs_legacy_dictionary_padding, PageReader, PageReaderOptions};
use parq::schema::stats::StatsContext;
use parq::{Error, ErrorKind};

use crate::keys::KeyArgs;
use crate::{read_footer, CliError};

/// A Parquet file opened for inspection: its decoded footer and its bytes on demand.
pub struct Input {
    pub path: PathBuf,
    pub md: FileMetaData,
    file: File,
    pub len: u64,
}

impl Input {
    /// Opens `path` and decodes its footer with `keys`.
    pub fn open(path: &Path, keys: &KeyArgs) -> Result<Input, CliError> {
        let md = read_footer(path, keys)?;
        let file = File::open(path).map_err(|e| CliError::new(path, e.into()))?;
        let len = file
            .metadata()
            .map_err(|e| CliError::new(path, e.into()))?
            .len();
        Ok(Input {
            path: path.to_path_buf(),
            md,
            file,
            len,
        })
    }

    /// An error about this file.
    pub fn fail(&self, error: Error) -> CliError {
        CliError::new(&self.path, error)
    }

    /// An error about the arguments given for this file.
    pub fn bad_argument(&self, message: String) -> CliError {
        self.fail(Error::new(ErrorKind::InvalidArgument(message)))
    }

    /// The bytes of `range`, which must lie inside the file.
    pub fn read(&mut self, range: Range<u64>) -> Result<Bytes, CliError> {
        if range.start > range.end || range.end > self.len {
            return Err(self.fail(Error::at(
                ErrorKind::Inconsistent(format!(
                    "the range {}..{} lies outside the file of {} bytes",
                    range.start, range.end, self.len
                )),
                range.start,
            )));
        }
        // Bounded by the file's length, checked above.
        let n = (range.end - range.start) as usize;
        let mut buf = Vec::new();
        buf.try_reserve_exact(n).map_err(|_| {
            self.fail(Error::new(ErrorKind::Io(format!(
                "cannot allocate {n} bytes"
            ))))
        })?;
        let res = self
            .file
            .seek(SeekFrom::Start(range.start))
            .and_then(|_| (&mut self.file).take(n as u64).read_to_end(&mut buf));
        if let Err(e) = res {
            return Err(self.fail(e.into()));
        }
        if buf.len() < n {
            return Err(self.fail(Error::at(
                ErrorKind::Truncated {
                    needed: n as u64,
                    remaining: buf.len() as u64,
                },
                range.start,
            )));
        }
        Ok(Bytes::from(buf))
    }

    /// The page index of row groups `row_groups` (`None`: all), when the file has one.
    pub fn page_index(
        &mut self,
        row_groups: Option<&[usize]>,
    ) -> Result<Option<parq::format::footer::PageIndex>, CliError> {
        let len = self.len;
        parq::file::read_page_index_from(&mut self.file, &self.md, row_groups, None, len)
            .map_err(|e| self.fail(e))
    }

    /// The leaf column at the dotted path `name`.
    pub fn leaf(&self, name: &str) -> Result<usize, CliError> {
        let schema = self.md.schema();
        schema.leaf_index(name).ok_or_else(|| {
            let names: Vec<String> = (0..schema.num_columns())
                .map(|j| schema.leaf_path_string(j))
                .collect();
            self.bad_argument(format!(
                "no column `{name}` in the file; its leaf columns: {}",
                names.join(", ")
            ))
        })
    }

    /// The leaves that `names` choose (each a leaf's dotted path, or a group's, choosing
    /// the leaves under it), in schema order; all leaves when `names` is empty.
    pub fn leaves(&self, names: &[String]) -> Result<Vec<usize>, CliError> {
        let schema = self.md.schema();
        let n = schema.num_columns();
        if names.is_empty() {
            return Ok((0..n).collect());
        }
        let paths: Vec<String> = (0..n).map(|j| schema.leaf_path_string(j)).collect();
        let mut chosen = vec![false; n];
        for name in names {
            let prefix = format!("{name}.");
            let mut any = false;
            for (j, p) in paths.iter().enumerate() {
                if p == name || p.starts_with(&prefix) {
                    chosen[j] = true;
                    any = true;
                }
            }
            if !any {
                self.leaf(name)?;
            }
        }
        Ok((0..n).filter(|&j| chosen[j]).collect())
    }

    /// The row groups to show: `only`, checked, or all.
    pub fn row_groups(&self, only: Option<usize>) -> Result<Range<usize>, CliError> {
        let n = self.md.row_groups().len();
        match only {
            Some(i) if i < n => Ok(i..i + 1),
            Some(i) => Err(self.bad_argument(format!(
                "row group {i} does not exist: the file has {n} row groups"
            ))),
            None => Ok(0..n),
        }
    }

    /// The chunk of leaf `leaf` in row group `rg`.
    pub fn chunk(&self, rg: usize, leaf: usize) -> Result<&ColumnChunk, CliError> {
        let group = self
            .md
            .row_groups()
            .get(rg)
            .ok_or_else(|| self.bad_argument(format!("row group {rg} does not exist")))?;
        group.columns().get(leaf).ok_or_else(|| {
            self.fail(Error::new(ErrorKind::OutOfBounds {
                what: "column chunk",
                index: leaf as u64,
                len: group.columns().len() as u64,
            }))
        })
    }

    /// How the values of leaf `leaf` are typed.
    pub fn leaf_type(&self, leaf: usize) -> Result<StatsContext<'_>, CliError> {
        StatsContext::for_leaf(&self.md, leaf).map_err(|e| self.fail(e))
    }

    /// A reader of the pages of leaf `leaf`'s chunk in row group `rg` (decrypting them with
    /// the chunk's key), and the bytes it reads: the chunk from file offset `.2` on. With
    /// `headers_only` no page is to be decompressed, so no uncompressed size is refused.
    pub fn pages(
        &mut self,
        rg: usize,
        leaf: usize,
        headers_only: bool,
    ) -> Result<(PageReader, Bytes, u64), CliError> {
        let chunk = self.chunk(rg, leaf)?;
        let decryptor = self
            .md
            .chunk_decryptor(rg, leaf, chunk)
            .map_err(|e| self.fail(e))?;
        if let Some(p) = chunk.file_path() {
            return Err(self.fail(Error::new(ErrorKind::Unsupported(format!(
                "the chunk is in another file ({})",
                String::from_utf8_lossy(p.slice(self.md.buf()))
            )))));
        }
        let range = parq::page::chunk_range(chunk).map_err(|e| self.fail(e))?;
        let has_dictionary = chunk.dictionary_page_offset().is_some();
        let legacy = needs_legacy_dictionary_padding(self.md.created_by().as_deref());
        let end = match legacy {
            true => range
                .end
                .saturating_add(parq::page::LEGACY_DICTIONARY_PADDING)
                .min(self.len)
                .max(range.end),
            false => range.end,
        };
        let chunk = chunk.clone();
        let bytes = self.read(range.start..end)?;
        let mut options = PageReaderOptions {
            row_group: Some(rg),
            column: Some(leaf),
            legacy_dictionary_padding: legacy,
            ..PageReaderOptions::default()
        };
        if headers_only {
            options.limits.max_page_bytes = usize::MAX;
        }
        let reader = PageReader::for_column_chunk(&bytes, range.start, &chunk, options)
            .map_err(|e| self.fail(e))?;
        let reader = match decryptor {
            Some(d) => reader.with_decryptor(d, has_dictionary),
            None => reader,
        };
        Ok((reader, bytes, range.start))
    }
}

/// Text for a list of numbers: `[1, 2, 3]`.
pub fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}
