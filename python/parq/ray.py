"""Ray Data on parq: ``read_parquet`` makes a ``ray.data.Dataset`` whose read tasks parq runs,
``write_parquet`` writes one with parq.

The read plans at the driver from the footers: the files and row groups a filter leaves
(partition values and statistics), shared out to read tasks of about equal bytes, each with
its rows and size as ``BlockMetadata``. Ray's optimizer pushes column selections
(``select_columns``) and filters (``filter(expr=...)``) into the read: parq reads only those
columns and skips the row groups and pages the filter rules out. A read task carries only its
files, row groups and options; worker processes open them themselves (local paths or URLs
with ``storage_options``).

Ray is imported when these functions are called: ``import parq.ray`` works without it.
"""

from __future__ import annotations

import functools
import os
import uuid
from typing import Any, Optional, Sequence

import pyarrow as pa

import parq
from parq._dataset import read_row_groups
from parq._filters import is_expression, sql_literal, sql_name, to_sql

__all__ = ["ParqDatasource", "ParqDatasink", "read_parquet", "write_parquet"]


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        raise ImportError("parq.ray needs Ray Data: pip install 'ray[data]'") from e
    return ray


def _shares(units: list[tuple[int, int, int, int]], n: int) -> list[list[tuple[int, int, int, int]]]:
    """``units`` (file, row group, rows, bytes) cut into at most ``n`` runs in order, of
    about equal bytes."""
    n = max(1, min(n, len(units)))
    total = sum(u[3] for u in units) or 1
    out: list[list] = [[]]
    done = 0
    for u in units:
        # A new run starts where the bytes before reach the next n-th of the total.
        if out[-1] and len(out) < n and done * n >= total * len(out):
            out.append([])
        out[-1].append(u)
        done += u[3]
    return [run for run in out if run]


_RAY_OPS = {"eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def expr_to_sql(expr) -> Optional[str]:
    """The parq SQL condition of a Ray Data expression, or ``None`` where it holds something
    parq's filters do not (arithmetic, functions, comparisons of two columns)."""
    from ray.data.expressions import BinaryExpr, ColumnExpr, LiteralExpr, UnaryExpr

    if isinstance(expr, UnaryExpr):
        inner = expr_to_sql(expr.operand)
        op = expr.op.value
        if inner is None or not isinstance(expr.operand, (BinaryExpr, UnaryExpr, ColumnExpr)):
            return None
        if op == "not":
            return f"(NOT {inner})"
        if op == "is_null" and isinstance(expr.operand, ColumnExpr):
            return f"({inner} IS NULL)"
        if op == "is_not_null" and isinstance(expr.operand, ColumnExpr):
            return f"({inner} IS NOT NULL)"
        return None
    if isinstance(expr, ColumnExpr):
        return sql_name(expr.name)
    if not isinstance(expr, BinaryExpr):
        return None
    op = expr.op.value
    if op in ("and", "or"):
        left, right = expr_to_sql(expr.left), expr_to_sql(expr.right)
        if left is None or right is None:
            return None
        return f"({left} {op.upper()} {right})"
    left, right = expr.left, expr.right
    if op in _RAY_OPS and isinstance(left, LiteralExpr) and isinstance(right, ColumnExpr):
        flipped = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}.get(op, op)
        return expr_to_sql(BinaryExpr(type(expr.op)(flipped), right, left))
    if not (isinstance(left, ColumnExpr) and isinstance(right, LiteralExpr)):
        return None
    value = right.value
    try:
        if op in _RAY_OPS and value is not None:
            return f"({sql_name(left.name)} {_RAY_OPS[op]} {sql_literal(value)})"
        if op in ("in", "not_in") and isinstance(value, (list, tuple, set, frozenset)):
            return to_sql([(left.name, "in" if op == "in" else "not in", list(value))])
    except TypeError:
        return None
    return None


def _read_task(files, selection, schema, partitions, storage_options, columns, filter_sql, use_threads):
    """What a read task runs on a worker: its row groups, one block."""
    return [read_row_groups(files, selection, schema, partitions, storage_options, columns, filter_sql, use_threads)]


def _datasource_base():
    return _ray().data.Datasource


class _Plan:
    """What the driver knows of a dataset: its files, footers and schemas (opened again
    where it is unpickled)."""

    def __init__(self, source, partitioning, storage_options):
        self.args = (source, partitioning, storage_options)
        self.dataset = parq.dataset(source, partitioning=partitioning, storage_options=storage_options)
        inner = self.dataset._inner
        self.files = inner.files
        self.schema = inner.schema
        self.partitions = inner.partition_schema
        self.metadata = inner.metadata()

    def __reduce__(self):
        return (_Plan, self.args)


def _datasource_class():
    base = _datasource_base()

    class ParqDatasource(base):
        """A ``ray.data.Datasource`` of Parquet files read by parq (see the module
        documentation)."""

        def __init__(self, source, columns=None, filters=None, storage_options=None,
                     partitioning="hive", use_threads=False):
            super().__init__()
            if is_expression(filters):
                raise TypeError("parq.ray: filters are DNF or SQL; pass Ray expressions to Dataset.filter(expr=...)")
            self._source = source
            self._storage_options = storage_options
            self._use_threads = use_threads
            self._plan = _Plan(source, partitioning, storage_options)
            self._filter_sql = to_sql(filters)
            self._projection_map = None if columns is None else {c: c for c in columns}

        def get_name(self) -> str:
            return "ParqParquet"

        def supports_projection_pushdown(self) -> bool:
            return True

        def supports_predicate_pushdown(self) -> bool:
            return True

        def apply_predicate(self, predicate_expr):
            sql = expr_to_sql(predicate_expr)
            if sql is None:
                return self
            import copy

            clone = copy.copy(self)
            clone._filter_sql = sql if self._filter_sql is None else f"({self._filter_sql}) AND {sql}"
            return clone

        def _columns(self) -> Optional[list[str]]:
            return self._get_data_columns()

        def _out_schema(self) -> pa.Schema:
            schema = self._plan.schema
            cols = self._columns()
            return schema if cols is None else pa.schema([schema.field(c) for c in cols])

        def _units(self) -> list[tuple[int, int, int, int]]:
            """(file, row group, rows, bytes in memory) of every row group the read keeps."""
            plan = self._plan
            cols = self._columns()
            kept = plan.dataset._inner.row_groups(columns=cols, filter=self._filter_sql)
            n_file_cols = max(1, len(plan.schema) - len(plan.partitions))
            share = 1.0 if cols is None else min(1.0, len(cols) / n_file_cols)
            units = []
            for f, groups in kept:
                meta = plan.metadata[f]
                for g in groups:
                    rg = meta.row_group(g)
                    units.append((f, g, rg.num_rows, int(rg.total_byte_size * share)))
            return units

        def estimate_inmemory_data_size(self) -> Optional[int]:
            return sum(u[3] for u in self._units())

        def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
            from ray.data.block import BlockMetadata
            from ray.data.datasource import ReadTask

            plan = self._plan
            schema = self._out_schema()
            tasks = []
            for run in _shares(self._units(), parallelism):
                files = []
                selection: dict[int, list[int]] = {}
                for f, g, _, _ in run:
                    if f not in selection:
                        selection[f] = []
                        files.append(f)
                    selection[f].append(g)
                local = {f: i for i, f in enumerate(files)}
                read = functools.partial(
                    _read_task,
                    [plan.files[f] for f in files],
                    [(local[f], gs) for f, gs in selection.items()],
                    plan.schema,
                    plan.partitions,
                    self._storage_options,
                    self._columns(),
                    self._filter_sql,
                    self._use_threads,
                )
                meta = BlockMetadata(
                    # A filter leaves an unknown number of the rows.
                    num_rows=None if self._filter_sql else sum(u[2] for u in run),
                    size_bytes=sum(u[3] for u in run),
                    exec_stats=None,
                    input_files=[plan.files[f] for f in files],
                )
                tasks.append(ReadTask(read, meta, schema=schema, per_task_row_limit=per_task_row_limit))
            return tasks

    return ParqDatasource


_CLASSES: dict[str, type] = {}


def __getattr__(name):
    if name == "ParqDatasource":
        if name not in _CLASSES:
            _CLASSES[name] = _datasource_class()
        return _CLASSES[name]
    if name == "ParqDatasink":
        if name not in _CLASSES:
            _CLASSES[name] = _datasink_class()
        return _CLASSES[name]
    raise AttributeError(f"module 'parq.ray' has no attribute {name!r}")


def read_parquet(
    source,
    columns: Optional[Sequence[str]] = None,
    filters: Any = None,
    storage_options: Optional[dict[str, str]] = None,
    partitioning: Any = "hive",
    use_threads: bool = False,
    **read_args,
):
    """A ``ray.data.Dataset`` of the Parquet dataset ``source`` read by parq.

    ``source``: what :func:`parq.dataset` opens (a file, a directory, a glob, a list, a URL
    with ``storage_options``; hive partitions by default). ``columns``: the columns read;
    ``filters``: pyarrow's DNF or an SQL condition, applied in the read (files and row groups
    it rules out are not read). ``use_threads``: each read task decodes on all cores
    (default one, as Ray counts a task's CPU). ``read_args`` go to
    ``ray.data.read_datasource`` (``override_num_blocks``, ``concurrency``, ...).
    """
    ray = _ray()
    cls = __getattr__("ParqDatasource")
    source = [os.fspath(s) for s in source] if isinstance(source, (list, tuple)) else os.fspath(source)
    datasource = cls(source, columns=columns, filters=filters, storage_options=storage_options,
                     partitioning=partitioning, use_threads=use_threads)
    return ray.data.read_datasource(datasource, **read_args)


def _datasink_class():
    base = _ray().data.Datasink

    class ParqDatasink(base):
        """A ``ray.data.Datasink`` writing each write task's blocks with parq below a
        directory or URL (see :func:`write_parquet`)."""

        def __init__(self, path, partition_cols=None, storage_options=None, **write_options):
            self.path = os.fspath(path)
            self.partition_cols = None if partition_cols is None else list(partition_cols)
            self.storage_options = storage_options
            self.write_options = write_options
            self.prefix = uuid.uuid4().hex[:12]

        def get_name(self) -> str:
            return "ParqParquet"

        def write(self, blocks, ctx):
            tables = [t for t in (_to_arrow(b) for b in blocks) if t.num_rows]
            if not tables:
                return []
            table = pa.concat_tables(tables, promote_options="default")
            return parq.write_to_dataset(
                table,
                self.path,
                partition_cols=self.partition_cols,
                basename_template=f"{self.prefix}-{ctx.task_idx}-{{i}}.parquet",
                storage_options=self.storage_options,
                **self.write_options,
            )

    return ParqDatasink


def _to_arrow(block) -> pa.Table:
    if isinstance(block, pa.Table):
        return block
    from ray.data.block import BlockAccessor

    return BlockAccessor.for_block(block).to_arrow()


def write_parquet(ds, path, partition_cols: Optional[Sequence[str]] = None,
                  storage_options: Optional[dict[str, str]] = None, **write_options) -> None:
    """Writes the ``ray.data.Dataset`` ``ds`` with parq below ``path`` (a directory or a
    URL): each write task writes its blocks to files of its own, in ``key=value``
    directories of ``partition_cols`` (as :func:`parq.write_to_dataset` does).
    ``write_options``: those of :func:`parq.write_table` (``compression``, ...)."""
    _ray()
    sink = __getattr__("ParqDatasink")(path, partition_cols=partition_cols,
                                       storage_options=storage_options, **write_options)
    ds.write_datasink(sink)
