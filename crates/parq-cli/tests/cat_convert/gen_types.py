import sys, datetime as dt, decimal as d
import pyarrow as pa, pyarrow.parquet as pq
n = 7
def col(vals, t): return pa.array(vals, t)
D = d.Decimal
t = pa.table({
    "i8": col([1, -2, None, 127, -128, 0, 5], pa.int8()),
    "u16": col([0, 65535, None, 1, 2, 3, 4], pa.uint16()),
    "u32": col([0, 4294967295, 7, None, 2, 3, 4], pa.uint32()),
    "u64": col([0, 18446744073709551615, 7, None, 2, 3, 2**53 + 1], pa.uint64()),
    "f32": col([1.5, -0.0, float("nan"), None, 3.4028234663852886e38, 1e-7, 0.1], pa.float32()),
    "f64": col([1e15, 1e-7, float("inf"), float("-inf"), None, 123456789.0, 0.1], pa.float64()),
    "s": col(["plain", "", None, 'a,"quoted"\nline', "ünïcödé", " lead", "tab\there"], pa.string()),
    "ls": col(["x", None, "", "y,z", "w", "v", "u"], pa.large_string()),
    "b": col([b"\x00\xff", b"", None, b"abc", b"\x01", b"z", b"q"], pa.binary()),
    "lb": col([b"\x00", None, b"", b"abc", b"\x02", b"y", b"p"], pa.large_binary()),
    "fsb": col([b"abc", None, b"\x00\x01\x02", b"xyz", b"123", b"456", b"789"], pa.binary(3)),
    "bool": col([True, False, None, True, True, False, False], pa.bool_()),
    "date": col([dt.date(2024, 2, 29), dt.date(1, 1, 1), None, dt.date(1969, 12, 31), dt.date(9999, 12, 31), dt.date(1970, 1, 1), dt.date(2000, 3, 1)], pa.date32()),
    "date64": col([0, 86400000 * 3, None, -86400000, 86400000 * 365, 0, 0], pa.date64()),
    "t32": col([0, 1, 86399999, None, 43200000, 5, 6], pa.time32("ms")),
    "t64us": col([0, 1, 86399999999, None, 43200000000, 5, 6], pa.time64("us")),
    "t64ns": col([0, 1, 86399999999999, None, 43200000000000, 5, 6], pa.time64("ns")),
    "ts_s": col([0, -1, 10**10, None, 1700000000, 1, 2], pa.timestamp("s")),
    "ts_ms_utc": col([0, -1, 1700000000123, None, 1, 2, 3], pa.timestamp("ms", tz="UTC")),
    "ts_us_off": col([0, -1, 1700000000123456, None, 1, 2, 3], pa.timestamp("us", tz="+05:30")),
    "ts_ns_paris": col([0, -1, 1700000000123456789, None, 1, 2, 3], pa.timestamp("ns", tz="Europe/Paris")),
    "dur": col([0, -5, 10**12, None, 1, 2, 3], pa.duration("ms")),
    "dec128": col([D("1.200"), D("-0.005"), None, D("9999999.999"), D("0"), D("1"), D("-1")], pa.decimal128(10, 3)),
    "dec256": col([D("1.5"), D("-12345678901234567890123456789.12345"), None, D("0"), D("1"), D("2"), D("3")], pa.decimal256(40, 5)),
    "dec32": col([D("1.25"), D("-0.01"), None, D("999.99"), D("0"), D("1"), D("2")], pa.decimal32(5, 2)),
    "dec64": col([D("1.25"), D("-0.0001"), None, D("99999999.9999"), D("0"), D("1"), D("2")], pa.decimal64(12, 4)),
    "dict": col(["red", "green", None, "red", "blue", "green", "red"], pa.dictionary(pa.int32(), pa.string())),
    "sv": col(["v1", None, "", "v,4", "v5", "v6", "v7"], pa.string_view()),
    "bv": col([b"\x01", None, b"", b"v4", b"v5", b"v6", b"v7"], pa.binary_view()),
})
pq.write_table(t, sys.argv[1], row_group_size=3)
