//! parq's cells: every call into parq's footer API (`parq::format::footer`) lives here, so
//! only this module changes when that API moves.

use anyhow::{bail, ensure, Context, Result};
use parq::format::footer::{
    decode_metadata, decode_metadata_with_index, decode_page_index, metadata_slice, DecodeOptions,
    FooterIndex, LazyFooter, PageIndex,
};
use parq::format::metadata::FileMetaData;

use crate::datasets::LoadedFile;
use crate::measure::{timed, timed_simple, Case};
use crate::workload::{Facts, Mode, PARQ, SELECTED};

fn facts(md: &FileMetaData) -> Facts {
    Facts {
        num_rows: Some(md.num_rows()),
        row_groups: md.row_groups().len(),
        column_chunks: md.row_groups().iter().map(|rg| rg.columns().len()).sum(),
    }
}

fn page_index_facts(index: &PageIndex) -> Facts {
    let columns = index.columns.len();
    Facts::from_offset_index_counts((0..index.row_groups.len()).map(|i| {
        (0..columns)
            .filter(|&j| index.offset_index(i, j).is_some())
            .count()
    }))
}

/// A metadata-decoding case with `opts`; heap bytes from one decode outside the clock.
fn metadata_case<'a>(
    file: &'a LoadedFile,
    mode: Mode,
    opts: DecodeOptions,
    expected: Facts,
) -> Result<Case<'a>> {
    let meta = file.metadata();
    let heap = decode_metadata(meta, &opts)?.heap_bytes();
    Ok(Case::new(PARQ, mode, expected, Some(heap), move |n| {
        timed_simple(n, || Ok(decode_metadata(meta, &opts)?), facts)
    }))
}

/// parq cases for the requested modes.
pub fn cases<'a>(file: &'a LoadedFile, modes: &[Mode]) -> Result<Vec<Case<'a>>> {
    let shape = file.shape;
    ensure!(
        metadata_slice(&file.tail)? == file.metadata(),
        "parq locates a different footer in {}",
        file.path.display()
    );
    let columns = shape.spread_columns();
    let middle = shape.middle_row_group();
    let full =
        || decode_metadata(file.metadata(), &DecodeOptions::default()).context("parq decode");
    let mut cases = Vec::new();
    for &mode in modes {
        let case = match mode {
            Mode::Metadata => metadata_case(file, mode, DecodeOptions::default(), shape.full())?,
            Mode::MetadataNoStats => {
                metadata_case(file, mode, DecodeOptions::minimal(), shape.full())?
            }
            Mode::Projection10 => {
                let opts = DecodeOptions {
                    columns: Some(columns.clone()),
                    ..Default::default()
                };
                let expected = shape.facts(shape.row_groups, columns.len());
                metadata_case(file, mode, opts, expected)?
            }
            Mode::Projection10Rg1 => {
                let opts = DecodeOptions {
                    columns: Some(columns.clone()),
                    row_groups: Some(vec![middle]),
                    ..Default::default()
                };
                metadata_case(file, mode, opts, shape.facts(1, columns.len()))?
            }
            Mode::LazyOpen => {
                let opts = DecodeOptions::default();
                let heap = LazyFooter::open(file.metadata_bytes(), &opts)?.heap_bytes();
                Case::new(PARQ, mode, shape.full(), Some(heap), move |n| {
                    timed(
                        n,
                        || Ok(file.metadata_bytes()),
                        |buf| Ok(LazyFooter::open(buf, &opts)?),
                        |lazy| Facts {
                            num_rows: Some(lazy.file().num_rows()),
                            row_groups: lazy.num_row_groups(),
                            column_chunks: (0..lazy.num_row_groups())
                                .map(|rg| lazy.num_columns_in(rg))
                                .sum(),
                        },
                    )
                })
            }
            Mode::Lazy10Chunks => {
                let opts = DecodeOptions::default();
                let chunks = shape.random_chunks();
                let expected = Facts {
                    column_chunks: chunks.len(),
                    ..shape.full()
                };
                let open_and_decode = move |buf| -> Result<_> {
                    let lazy = LazyFooter::open(buf, &opts)?;
                    let decoded = chunks
                        .iter()
                        .map(|&(rg, col)| lazy.column_chunk(rg, col))
                        .collect::<parq::Result<Vec<_>>>()?;
                    Ok((lazy, decoded))
                };
                let (lazy, decoded) = open_and_decode(file.metadata_bytes())?;
                let heap =
                    lazy.heap_bytes() + decoded.iter().map(|c| c.heap_bytes()).sum::<usize>();
                Case::new(PARQ, mode, expected, Some(heap), move |n| {
                    timed(
                        n,
                        || Ok(file.metadata_bytes()),
                        &open_and_decode,
                        |(lazy, decoded)| Facts {
                            num_rows: Some(lazy.file().num_rows()),
                            row_groups: lazy.num_row_groups(),
                            column_chunks: decoded.len(),
                        },
                    )
                })
            }
            Mode::Decode => bail!("`decode` is not a footer mode (see `parq-bench decode`)"),
            Mode::CopyMetadata => {
                metadata_case(file, mode, DecodeOptions::default(), shape.full())?
            }
            Mode::IndexedLazyOpen | Mode::IndexedProjection10 | Mode::IndexedOneChunk => {
                indexed_case(file, mode)?
            }
            Mode::PageIndex | Mode::PageIndex10 => {
                let md = full()?;
                let selected = (mode == Mode::PageIndex10).then(|| columns.clone());
                let expected = shape.page_index(
                    shape.row_groups,
                    selected.as_ref().map_or(shape.columns, Vec::len),
                );
                let heap = decode_page_index(
                    &file.tail,
                    file.tail_offset,
                    &md,
                    None,
                    selected.as_deref(),
                )?
                .heap_bytes();
                Case::new(PARQ, mode, expected, Some(heap), move |n| {
                    let decode = || {
                        Ok(decode_page_index(
                            &file.tail,
                            file.tail_offset,
                            &md,
                            None,
                            selected.as_deref(),
                        )?)
                    };
                    timed_simple(n, decode, page_index_facts)
                })
            }
        };
        cases.push(case);
    }
    Ok(cases)
}

/// The footer index of `file`, which must have a valid one.
fn footer_index(file: &LoadedFile) -> Result<FooterIndex<'_>> {
    let index = FooterIndex::find(file.before_metadata())
        .with_context(|| format!("{} has no footer index", file.path.display()))?;
    let lazy = LazyFooter::open_with_index(
        file.metadata_bytes(),
        Some(index),
        &DecodeOptions::default(),
    )?;
    ensure!(
        lazy.is_indexed(),
        "the footer index of {} does not match its footer",
        file.path.display()
    );
    Ok(index)
}

/// A case that reads `file`'s footer through its footer index.
fn indexed_case(file: &LoadedFile, mode: Mode) -> Result<Case<'_>> {
    let shape = file.shape;
    let opts = DecodeOptions::default();
    let lazy_facts = |lazy: &LazyFooter, chunks: usize| Facts {
        num_rows: Some(lazy.file().num_rows()),
        row_groups: lazy.num_row_groups(),
        column_chunks: chunks,
    };
    Ok(match mode {
        Mode::IndexedLazyOpen => {
            let heap = LazyFooter::open_with_index(
                file.metadata_bytes(),
                Some(footer_index(file)?),
                &opts,
            )?
            .heap_bytes();
            Case::new(PARQ, mode, shape.full(), Some(heap), move |n| {
                timed(
                    n,
                    || Ok(file.metadata_bytes()),
                    |buf| {
                        let index = FooterIndex::find(file.before_metadata());
                        Ok(LazyFooter::open_with_index(buf, index, &opts)?)
                    },
                    |lazy| {
                        let chunks = (0..lazy.num_row_groups())
                            .map(|rg| lazy.num_columns_in(rg))
                            .sum();
                        lazy_facts(lazy, chunks)
                    },
                )
            })
        }
        Mode::IndexedOneChunk => {
            footer_index(file)?;
            let (rg, col) = (
                shape.middle_row_group(),
                shape.spread_columns()[SELECTED / 2],
            );
            let expected = Facts {
                column_chunks: 1,
                ..shape.full()
            };
            Case::new(PARQ, mode, expected, None, move |n| {
                timed(
                    n,
                    || Ok(file.metadata_bytes()),
                    |buf| {
                        let index = FooterIndex::find(file.before_metadata());
                        let lazy = LazyFooter::open_with_index(buf, index, &opts)?;
                        let chunk = lazy.column_chunk(rg, col)?;
                        Ok((lazy, chunk))
                    },
                    |(lazy, _)| lazy_facts(lazy, 1),
                )
            })
        }
        _ => {
            footer_index(file)?;
            let opts = DecodeOptions {
                columns: Some(shape.spread_columns()),
                ..Default::default()
            };
            let meta = file.metadata();
            let decode = move || {
                let index = FooterIndex::find(file.before_metadata());
                Ok(decode_metadata_with_index(meta, index, &opts)?)
            };
            let heap = decode()?.heap_bytes();
            let expected = shape.facts(shape.row_groups, SELECTED);
            Case::new(PARQ, mode, expected, Some(heap), move |n| {
                timed_simple(n, &decode, facts)
            })
        }
    })
}
