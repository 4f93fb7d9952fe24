//! The codec floor of a `scan` query: one thread's time to decompress, with parq's page
//! reader, the pages that hold the query's rows in every column (with their chunks'
//! dictionary pages): the part of any reader's time that only a faster codec removes. Shown
//! beside the table, as the benchmarks show a physical limit beside the cases at it; the
//! `codec-floor` command gives it for any file (all its pages).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bytes::Bytes;
use parq::page::{CompressedPage, PageReader, PageReaderOptions};
use parq::read::ParquetReader;

/// Decompressions timed per query (the median is kept).
const REPEATS: usize = 5;

/// The pages to decompress for rows `lo..hi` of the file (all with `None`), each with the
/// index of its chunk's reader (which knows the codec).
struct Pages {
    readers: Vec<PageReader>,
    pages: Vec<(usize, CompressedPage)>,
}

fn pages_of(bytes: &Bytes, rows: Option<(u64, u64)>) -> Result<Pages> {
    let reader = ParquetReader::from_bytes(bytes.clone())?;
    let (lo, hi) = rows.unwrap_or((0, u64::MAX));
    let mut out = Pages {
        readers: Vec::new(),
        pages: Vec::new(),
    };
    let mut rg_start = 0u64;
    for rg in reader.metadata().row_groups() {
        let n = u64::try_from(rg.num_rows()).context("negative num_rows")?;
        if rg_start < hi && rg_start + n > lo {
            for col in rg.columns() {
                let mut pr =
                    PageReader::for_column_chunk(bytes, 0, col, PageReaderOptions::default())?;
                let (mut dictionary, mut kept, mut at) = (None, false, rg_start);
                let mut chunk_pages = Vec::new();
                while let Some(p) = pr.next_compressed()? {
                    if !p.is_data_page() {
                        dictionary = Some(p);
                        continue;
                    }
                    let k = p.num_values().context("a data page without num_values")?;
                    if at < hi && at + k > lo {
                        chunk_pages.push(p);
                        kept = true;
                    }
                    at += k;
                }
                if kept {
                    let i = out.readers.len();
                    out.pages.extend(dictionary.map(|d| (i, d)));
                    out.pages.extend(chunk_pages.into_iter().map(|p| (i, p)));
                    out.readers.push(pr);
                }
            }
        }
        rg_start += n;
    }
    Ok(out)
}

/// The bytes of the file at `path`, for [`codec_floor`].
pub fn file_bytes(path: &Path) -> Result<Bytes> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Bytes::from(data))
}

/// The median time of decompressing the pages holding rows `lo..hi` (all with `None`) of
/// the file held in `bytes`, on one thread.
pub fn codec_floor(bytes: &Bytes, rows: Option<(u64, u64)>) -> Result<Duration> {
    let Pages { mut readers, pages } = pages_of(bytes, rows)?;
    let mut times = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        let t = Instant::now();
        for (i, page) in &pages {
            let reader = readers.get_mut(*i).context("a page's reader")?;
            std::hint::black_box(reader.decompress(page.clone())?);
        }
        times.push(t.elapsed());
    }
    times.sort();
    times
        .get(REPEATS / 2)
        .copied()
        .context("no decompression timed")
}

#[derive(clap::Args, Debug)]
pub struct FloorArgs {
    /// Parquet files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// `parq-bench codec-floor`: each file's codec floor (all its pages), for the cases of
/// other benchmarks (`python/bench.py`'s files).
pub fn run(args: &FloorArgs) -> Result<()> {
    for f in &args.files {
        let floor = codec_floor(&file_bytes(f)?, None)?;
        println!(
            "{}: {:.2} ms to decompress every page (one thread)",
            f.display(),
            floor.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
