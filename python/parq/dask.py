"""Distributed reads and writes on Dask: ``read_parquet`` makes a Dask DataFrame whose
partitions parq reads (one per row group, or one per file), ``to_parquet`` writes one file
per partition with parq. Any Dask scheduler runs them, ``dask.distributed`` clusters of
worker processes included: a partition's task carries only its file, row group and options.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Optional, Sequence

import pyarrow as pa

import parq

__all__ = ["read_parquet", "to_parquet"]


def _paths(paths_or_glob) -> list[str]:
    if isinstance(paths_or_glob, (str, os.PathLike)):
        p = os.fspath(paths_or_glob)
        if os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".parquet"))
        elif any(c in p for c in "*?["):
            found = sorted(glob.glob(p))
        else:
            found = [p]
    else:
        found = [os.fspath(p) for p in paths_or_glob]
    if not found:
        raise FileNotFoundError(f"parq.dask: no Parquet files match {paths_or_glob!r}")
    return found


class _ReadPart:
    """Reads one partition: a file, or one row group of it."""

    def __init__(self, columns, filters):
        self.columns = columns
        self.filters = filters

    def __call__(self, part):
        path, row_group = part
        table = parq.read_table(
            path,
            columns=self.columns,
            row_groups=None if row_group is None else [row_group],
            filters=self.filters,
            use_threads=False,
        )
        return table.to_pandas()


def read_parquet(
    paths_or_glob,
    columns: Optional[Sequence[str]] = None,
    filters: Any = None,
    split_row_groups: bool = True,
):
    """A Dask DataFrame of Parquet files read by parq.

    ``paths_or_glob``: a path, a directory (its ``*.parquet`` files), a glob pattern or a
    list of paths. ``columns`` and ``filters`` as in :func:`parq.read_table` (pyarrow's DNF
    filters or SQL): row groups the filters rule out are not read, and their rows are
    filtered exactly. ``split_row_groups``: one partition per row group (default), else one
    per file. Divisions are unknown.
    """
    import dask.dataframe as dd

    paths = _paths(paths_or_glob)
    parts = []
    for path in paths:
        if split_row_groups:
            n = parq.read_metadata(path).num_row_groups
            parts.extend((path, i) for i in range(n))
        else:
            parts.append((path, None))
    schema = parq.read_schema(paths[0])
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    meta = schema.empty_table().to_pandas()
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    columns = None if columns is None else list(columns)
    return dd.from_map(
        _ReadPart(columns, filters),
        parts,
        meta=meta,
        label="parq-read-parquet",
        enforce_metadata=False,
    )


def _write_part(frame, path, options):
    table = pa.Table.from_pandas(frame, preserve_index=False)
    parq.write_table(table, path, **options)
    return path


def to_parquet(df, directory, compute: bool = True, **options):
    """Writes each partition of the Dask DataFrame ``df`` with parq to
    ``directory/part.<i>.parquet`` (the index is not written). ``options`` are those of
    :func:`parq.write_table`. Returns the paths written (or, with ``compute=False``, the
    delayed tasks).
    """
    import dask

    os.makedirs(directory, exist_ok=True)
    tasks = [
        dask.delayed(_write_part)(part, os.path.join(os.fspath(directory), f"part.{i}.parquet"), options)
        for i, part in enumerate(df.to_delayed())
    ]
    if not compute:
        return tasks
    return list(dask.compute(*tasks))
