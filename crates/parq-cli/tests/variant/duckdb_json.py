"""DuckDB's values of the shredded_variant cases, as `parq cat --format jsonl` writes Variant
values: one JSON line per case, {"case": n, "file": name, "rows": [value, ...]}.

Cases DuckDB cannot read (UTC timestamps need pytz, some shredded files it refuses), cases
marked INVALID and nanosecond timestamps (DuckDB keeps microseconds) are left out.
"""

import base64
import datetime
import decimal
import json
import sys
import uuid

import duckdb


def convert(v):
    if isinstance(v, dict):
        return {k: convert(x) for k, x in v.items()}
    if isinstance(v, list):
        return [convert(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec="microseconds")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, datetime.time):
        return v.isoformat(timespec="microseconds")
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, uuid.UUID):
        return str(v)
    return v


def main(directory):
    with open(f"{directory}/cases.json") as f:
        cases = json.load(f)
    for case in cases:
        name = case.get("parquet_file")
        if not name or "error_message" in case or "INVALID" in name:
            continue
        try:
            rows = duckdb.sql(
                f"select var, variant_typeof(var) from '{directory}/{name}' order by id"
            ).fetchall()
        except Exception:
            continue
        if any(t is not None and "NANOS" in t for _, t in rows):
            continue
        values = [convert(v) for v, _ in rows]
        print(json.dumps({"case": case["case_number"], "file": name, "rows": values}))


main(sys.argv[1])
