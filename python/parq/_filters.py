"""pyarrow's DNF filters (lists of ``(column, op, value)`` tuples) as parq SQL conditions.

pyarrow's semantics: a comparison with a null value keeps no row, ``in`` keeps the rows whose
value is in the set, ``not in`` keeps the rows whose value is not in it, null values
included (``~is_in``, where ``is_in`` of a null is false); SQL's ``NOT IN`` drops nulls, so it
is written ``(c NOT IN (...) OR c IS NULL)``.
"""

import datetime
import decimal

_OPS = {"=": "=", "==": "=", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


def sql_name(column):
    """``column`` as an SQL identifier (double-quoted)."""
    return '"' + str(column).replace('"', '""') + '"'


def sql_literal(value):
    """``value`` as an SQL literal (``TypeError`` for a type filters do not take)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if isinstance(value, datetime.datetime):
        value = value.isoformat(sep=" ")
    elif isinstance(value, datetime.date):
        value = value.isoformat()
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"parq: cannot use a {type(value).__name__} in a filter")


def _term(term):
    if not (isinstance(term, (tuple, list)) and len(term) == 3):
        raise ValueError(f"parq: a filter term is (column, op, value), not {term!r}")
    column, op, value = term
    op = op.lower() if isinstance(op, str) else op
    name = sql_name(column)
    if op in ("in", "not in"):
        values = list(value)
        if not values:
            return "FALSE" if op == "in" else "TRUE"
        body = f"{name} IN ({', '.join(sql_literal(v) for v in values)})"
        return f"({body})" if op == "in" else f"(NOT {body} OR {name} IS NULL)"
    if op not in _OPS:
        raise ValueError(f"parq: unknown filter operator {op!r}")
    return f"({name} {_OPS[op]} {sql_literal(value)})"


def to_sql(filters):
    """The SQL condition of ``filters`` (``None``: no filter; a string is SQL already)."""
    if filters is None or isinstance(filters, str):
        return filters
    if not isinstance(filters, (list, tuple)) or not filters:
        raise ValueError("parq: filters are a non-empty list of (column, op, value) tuples or lists of them")
    if all(isinstance(t, (list, tuple)) and len(t) and isinstance(t[0], (list, tuple)) for t in filters):
        return " OR ".join("(" + " AND ".join(_term(t) for t in conj) + ")" for conj in filters)
    return " AND ".join(_term(t) for t in filters)


def is_expression(filters) -> bool:
    """Whether ``filters`` is a ``pyarrow.compute.Expression`` (applied by pyarrow to the rows
    read)."""
    try:
        import pyarrow.compute as pc
    except ImportError:
        return False
    return isinstance(filters, pc.Expression)
