"""Distributed reads and writes on Dask: ``read_parquet`` makes a Dask DataFrame whose
partitions parq reads, ``to_parquet`` writes one with parq.

``read_parquet`` takes what :func:`parq.dataset` opens (a file, a directory, a glob, a list,
a URL with ``storage_options``, hive partitions) and plans at graph build from the footers:
the files whose partition values a filter rules out and the row groups whose statistics it
rules out get no partition; with ``calculate_divisions=True`` the divisions come from the
statistics of the ``index`` column. Any Dask scheduler runs the graph, ``dask.distributed``
clusters of worker processes included: a partition's task carries only its file, row groups
and options, and opens the file itself.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import pyarrow as pa

import parq
from parq._dataset import read_row_groups
from parq._filters import is_expression, to_sql

__all__ = ["read_parquet", "to_parquet"]


class _ReadPart:
    """Reads one partition: some row groups of one file of a dataset."""

    def __init__(self, dataset, columns, sql, expression, index, use_threads):
        # The dataset's schema, partition columns and storage options.
        self.dataset = dataset
        self.columns = columns
        self.sql = sql
        self.expression = expression
        self.index = index
        self.use_threads = use_threads

    def __call__(self, part):
        path, row_groups = part
        schema, partitions, storage_options = self.dataset
        if self.expression is None:
            table = read_row_groups([path], [(0, row_groups)], schema, partitions, storage_options,
                                    self.columns, self.sql, self.use_threads)
        else:
            table = read_row_groups([path], [(0, row_groups)], schema, partitions, storage_options,
                                    use_threads=self.use_threads)
            table = table.filter(self.expression)
            if self.columns is not None:
                table = table.select(self.columns)
        frame = table.to_pandas()
        return frame if self.index is None else frame.set_index(self.index)


def _column_index(meta, name: str) -> Optional[int]:
    """The index of the top-level column ``name`` among the leaves of a file's footer."""
    if meta.num_row_groups == 0:
        return None
    rg = meta.row_group(0)
    for j in range(rg.num_columns):
        if rg.column(j).path_in_schema == name:
            return j
    return None


def _divisions(metadata, files, parts, index: str) -> Optional[tuple]:
    """The divisions of ``parts`` (file, row groups) from the statistics of ``index``: each
    part's smallest value, then the last part's largest; ``None`` when a row group has no
    statistics or the parts' ranges overlap or go down (as Dask's pyarrow engine decides)."""
    bounds = []
    for f, groups in parts:
        meta = metadata[f]
        j = _column_index(meta, index)
        if j is None:
            return None
        lo = hi = None
        for g in groups:
            stats = meta.row_group(g).column(j).statistics
            if stats is None or not stats.has_min_max or stats.min is None or stats.max is None:
                return None
            lo = stats.min if lo is None else min(lo, stats.min)
            hi = stats.max if hi is None else max(hi, stats.max)
        bounds.append((lo, hi))
    if not bounds:
        return None
    divisions = [bounds[0][0]]
    for (lo, _), (_, prev_hi) in zip(bounds[1:], bounds[:-1]):
        if lo < prev_hi:
            return None
        divisions.append(lo)
    divisions.append(bounds[-1][1])
    return tuple(divisions)


def read_parquet(
    path,
    columns: Optional[Sequence[str]] = None,
    filters: Any = None,
    split_row_groups: bool = True,
    index: Optional[str] = None,
    calculate_divisions: bool = False,
    storage_options: Optional[dict[str, str]] = None,
    partitioning: Any = "hive",
    use_threads: bool = False,
):
    """A Dask DataFrame of the Parquet dataset ``path`` read by parq.

    ``path``: what :func:`parq.dataset` opens (a file, a directory, a glob, a list of paths,
    a URL with ``storage_options``; ``partitioning`` as there). ``columns`` and ``filters``
    as in :func:`parq.read_table` (pyarrow's DNF, SQL, or a ``pyarrow.compute.Expression``
    applied to the rows read): for DNF and SQL, files and row groups the filter rules out
    get no partition, and rows are filtered exactly. ``split_row_groups``: a partition per
    row group (default), else per file. ``index``: a column made the index;
    ``calculate_divisions``: the divisions from its statistics (unknown when the row groups'
    ranges are not sorted). ``use_threads``: each partition decodes on all cores (default
    one, as a Dask worker thread).
    """
    import dask.dataframe as dd

    if isinstance(path, (list, tuple)):
        path = [os.fspath(p) for p in path]
    else:
        path = os.fspath(path)
    d = parq.dataset(path, partitioning=partitioning, storage_options=storage_options)
    inner = d._inner
    expression = filters if is_expression(filters) else None
    sql = None if expression is not None else to_sql(filters)
    columns = None if columns is None else list(columns)
    if columns is not None and index is not None and index not in columns:
        columns.append(index)
    kept = inner.row_groups(columns=columns, filter=sql)
    files = inner.files
    if split_row_groups:
        parts = [(f, [g]) for f, groups in kept for g in groups]
    else:
        parts = [(f, list(groups)) for f, groups in kept if groups]

    schema = inner.schema
    out = schema if columns is None else pa.schema([schema.field(c) for c in columns])
    meta = out.empty_table().to_pandas()
    if index is not None:
        meta = meta.set_index(index)
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    divisions = None
    if calculate_divisions:
        if index is None:
            raise ValueError("parq.dask: calculate_divisions needs the index column (index=...)")
        divisions = _divisions(inner.metadata(), files, parts, index)
    reader = _ReadPart((schema, inner.partition_schema, storage_options), columns, sql, expression, index, use_threads)
    return dd.from_map(
        reader,
        [(files[f], groups) for f, groups in parts],
        meta=meta,
        divisions=divisions,
        label="parq-read-parquet",
        enforce_metadata=False,
    )


def _table(frame, write_index) -> pa.Table:
    """The frame's rows, its index first as a column when ``write_index`` (``None``: when
    the index is named)."""
    if write_index or (write_index is None and frame.index.name is not None):
        frame = frame.reset_index()
    return pa.Table.from_pandas(frame, preserve_index=False)


def _write_part(frame, path, write_index, options):
    parq.write_table(_table(frame, write_index), path, **options)
    return [path]


def _write_partitioned(frame, root, i, partition_on, storage_options, write_index, options):
    table = _table(frame, write_index)
    if table.num_rows == 0:
        return []
    return parq.write_to_dataset(
        table,
        root,
        partition_cols=partition_on,
        basename_template=f"part.{i}.{{i}}.parquet",
        storage_options=storage_options,
        **options,
    )


def to_parquet(
    df,
    path,
    partition_on: Optional[Sequence[str]] = None,
    storage_options: Optional[dict[str, str]] = None,
    write_index: Optional[bool] = None,
    compute: bool = True,
    **options,
):
    """Writes each partition of the Dask DataFrame ``df`` with parq below ``path``: to
    ``path/part.<i>.parquet``, or with ``partition_on`` (or a URL) into ``key=value``
    directories of those columns, a ``part.<i>.<n>.parquet`` per partition and directory, as
    :func:`parq.write_to_dataset` writes them. ``write_index``: the index as a first column
    (default: when it is named). ``options`` are those of :func:`parq.write_table`. Returns
    the paths written (or, with ``compute=False``, the delayed tasks, each giving its paths).
    """
    import dask

    path = os.fspath(path)
    parts = df.to_delayed()
    if partition_on is None and "://" not in path:
        os.makedirs(path, exist_ok=True)
        tasks = [
            dask.delayed(_write_part)(part, os.path.join(path, f"part.{i}.parquet"), write_index, options)
            for i, part in enumerate(parts)
        ]
    else:
        cols = None if partition_on is None else list(partition_on)
        tasks = [
            dask.delayed(_write_partitioned)(part, path, i, cols, storage_options, write_index, options)
            for i, part in enumerate(parts)
        ]
    if not compute:
        return tasks
    return [p for written in dask.compute(*tasks) for p in written]
