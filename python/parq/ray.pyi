from typing import Any, Iterable, Optional, Sequence, Union
import os

import pyarrow as pa

Source = Union[str, os.PathLike[str], Sequence[Union[str, os.PathLike[str]]]]

class ParqDatasource:
    """A ``ray.data.Datasource`` of Parquet files read by parq (a subclass of Ray's, made
    when first asked for)."""

    def __init__(
        self,
        source: Source,
        columns: Optional[Sequence[str]] = None,
        filters: Any = None,
        storage_options: Optional[dict[str, str]] = None,
        partitioning: Union[str, None, pa.Schema] = "hive",
        use_threads: bool = False,
    ) -> None: ...
    def get_read_tasks(
        self, parallelism: int, per_task_row_limit: Optional[int] = None, data_context: Any = None
    ) -> list[Any]: ...
    def estimate_inmemory_data_size(self) -> Optional[int]: ...
    def apply_predicate(self, predicate_expr: Any) -> ParqDatasource: ...

class ParqDatasink:
    """A ``ray.data.Datasink`` writing with parq (a subclass of Ray's, made when first
    asked for)."""

    def __init__(
        self,
        path: Union[str, os.PathLike[str]],
        partition_cols: Optional[Sequence[str]] = None,
        storage_options: Optional[dict[str, str]] = None,
        **write_options: Any,
    ) -> None: ...
    def write(self, blocks: Iterable[Any], ctx: Any) -> list[str]: ...

def expr_to_sql(expr: Any) -> Optional[str]: ...
def read_parquet(
    source: Source,
    columns: Optional[Sequence[str]] = None,
    filters: Any = None,
    storage_options: Optional[dict[str, str]] = None,
    partitioning: Union[str, None, pa.Schema] = "hive",
    use_threads: bool = False,
    **read_args: Any,
) -> Any: ...
def write_parquet(
    ds: Any,
    path: Union[str, os.PathLike[str]],
    partition_cols: Optional[Sequence[str]] = None,
    storage_options: Optional[dict[str, str]] = None,
    **write_options: Any,
) -> None: ...
