"""Fixtures for the cross-implementation tests: repo root, test corpus, the parq binary.

Environment:
  PARQ_TESTDATA  corpus root (default: <repo>/../shared/testdata)
  PARQ_BIN       run this executable instead of building <repo>/target/debug/parq
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# Seconds one parq invocation may take. Metadata of the largest corpus file takes milliseconds.
PARQ_TIMEOUT_S = 30

# Sidecar files in the corpus directories that are not meant as Parquet input.
_NOT_PARQUET_SUFFIXES = {".md", ".json", ".proto"}


def corpus_root() -> Path:
    env = os.environ.get("PARQ_TESTDATA")
    return Path(env).resolve() if env else (REPO_ROOT.parent / "shared" / "testdata").resolve()


def corpus_files() -> list[Path]:
    """Every corpus file the metadata tests run on, sorted.

    - parquet-testing: every ``*.parquet`` (data/, bad_data/, shredded_variant/, variant/,
      geospatial/ ...) plus the ``*.parquet.encrypted`` files (pyarrow cannot open the ones with
      an encrypted footer without keys, so for those only the no-panic rule applies).
    - arrow-testing/parquet: every file, because the fuzzing/ and encoding-fuzzing/ reproducers
      have no extension; only documentation and sidecar files are left out.
    """
    root = corpus_root()
    files: set[Path] = set()
    pt = root / "parquet-testing"
    if pt.is_dir():
        files.update(p for p in pt.rglob("*.parquet") if p.is_file())
        files.update(p for p in pt.rglob("*.parquet.encrypted") if p.is_file())
    at = root / "arrow-testing" / "parquet"
    if at.is_dir():
        files.update(
            p
            for p in at.rglob("*")
            if p.is_file() and p.suffix not in _NOT_PARQUET_SUFFIXES and p.name != "README"
        )
    return sorted(files)


def corpus_id(path: Path) -> str:
    try:
        return str(path.relative_to(corpus_root()))
    except ValueError:
        return str(path)


def pytest_generate_tests(metafunc):
    # One test per corpus file for every test that takes a `corpus_file` argument.
    if "corpus_file" in metafunc.fixturenames:
        files = corpus_files()
        metafunc.parametrize("corpus_file", files, ids=[corpus_id(p) for p in files])


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session", name="testdata_root")
def testdata_root_fixture() -> Path:
    return corpus_root()


@pytest.fixture(scope="session")
def parq_bin() -> Path:
    """The parq CLI: $PARQ_BIN, else `cargo build -p parq-cli` once per session (a no-op when
    target/debug/parq is up to date) and <repo>/target/debug/parq."""
    env = os.environ.get("PARQ_BIN")
    if env:
        return Path(env)
    proc = subprocess.run(
        ["cargo", "build", "-p", "parq-cli"],
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"`cargo build -p parq-cli` failed (exit {proc.returncode}):\n{proc.stderr}")
    exe = REPO_ROOT / "target" / "debug" / "parq"
    if not exe.is_file():
        pytest.fail(f"`cargo build -p parq-cli` succeeded but {exe} does not exist")
    return exe


@dataclasses.dataclass
class ParqResult:
    args: list[str]
    returncode: int | None  # None: killed after the timeout
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def describe(self) -> str:
        cmd = " ".join(self.args)
        if self.returncode is None:
            return f"`{cmd}` timed out after {PARQ_TIMEOUT_S} s"
        if self.returncode < 0:
            sig = signal.Signals(-self.returncode).name
            return f"`{cmd}` was killed by {sig}; stderr: {self.stderr.strip()[:2000]!r}"
        return f"`{cmd}` exited {self.returncode}; stderr: {self.stderr.strip()[:2000]!r}"

    def error_line(self) -> str:
        return self.stderr.strip().splitlines()[0] if self.stderr.strip() else ""


class Parq:
    """Runs the parq CLI and enforces the robustness contract on every run: exit 0, or a
    non-zero exit with exactly one line of error on stderr; never a panic, a signal or a
    timeout."""

    def __init__(self, exe: Path):
        self.exe = exe

    def run(self, *args: str | Path) -> ParqResult:
        argv = [str(self.exe), *map(str, args)]
        try:
            proc = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PARQ_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as e:
            return ParqResult(argv, None, _text(e.stdout), _text(e.stderr))
        return ParqResult(argv, proc.returncode, _text(proc.stdout), _text(proc.stderr))

    def run_checked(self, *args: str | Path) -> ParqResult:
        res = self.run(*args)
        assert_clean_exit(res)
        return res


def _text(b: bytes | None) -> str:
    return b.decode("utf-8", "replace") if b else ""


def assert_clean_exit(res: ParqResult) -> None:
    assert res.returncode is not None, res.describe()
    assert res.returncode >= 0, res.describe()
    assert "panicked" not in res.stderr, f"parq panicked: {res.describe()}"
    # 101 is Rust's exit code for a panic (even with a custom hook that hides the message).
    assert res.returncode != 101, f"parq exited 101 (panic): {res.describe()}"
    if res.returncode != 0:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, (
            f"a failing parq run must print exactly one error line on stderr, "
            f"got {len(lines)}: {res.describe()}"
        )


@pytest.fixture(scope="session")
def parq(parq_bin) -> Parq:
    return Parq(parq_bin)


# ---------------------------------------------------------------------------------------------
# Session summary: what happened on the files pyarrow itself cannot read (no assertion there).


@dataclasses.dataclass
class CorpusReport:
    # (corpus id, pyarrow's error, parq's outcome)
    pyarrow_unreadable: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    # (corpus id, what pyarrow could not report, so was not compared)
    pyarrow_partial: list[tuple[str, str]] = dataclasses.field(default_factory=list)


_REPORT = CorpusReport()


@pytest.fixture(scope="session")
def corpus_report() -> CorpusReport:
    return _REPORT


def pytest_terminal_summary(terminalreporter):
    rep = _REPORT
    if not rep.pyarrow_unreadable and not rep.pyarrow_partial:
        return
    tr = terminalreporter
    tr.section("parq on files pyarrow cannot read (recorded, not asserted)")
    ok = [r for r in rep.pyarrow_unreadable if r[2] == "ok"]
    tr.write_line(
        f"{len(rep.pyarrow_unreadable)} files pyarrow cannot open: parq succeeded on {len(ok)}, "
        f"failed with a clean error on {len(rep.pyarrow_unreadable) - len(ok)}"
    )
    for cid, pa_err, outcome in sorted(rep.pyarrow_unreadable):
        tr.write_line(f"  {cid}")
        tr.write_line(f"      pyarrow: {pa_err[:160]}")
        tr.write_line(f"      parq:    {outcome[:160]}")
    if rep.pyarrow_partial:
        tr.write_line(f"{len(rep.pyarrow_partial)} values pyarrow opened but could not report:")
        for cid, what in sorted(rep.pyarrow_partial):
            tr.write_line(f"  {cid}: {what[:200]}")


# ---------------------------------------------------------------------------------------------
# moto's S3-compatible server on 127.0.0.1, one per session, stopped at its end.


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def moto_s3(tmp_path_factory):
    """``(fs, options)``: a ``pyarrow.fs.S3FileSystem`` on moto's server, with the bucket
    ``bucket`` made, and the ``storage_options`` parq reaches it with."""
    import socket
    import sys
    import time

    import pyarrow.fs as pafs

    port = _free_port()
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("moto server did not start")
                time.sleep(0.2)
        fs = pafs.S3FileSystem(
            access_key="testing",
            secret_key="testing",
            endpoint_override=endpoint,
            scheme="http",
            region="us-east-1",
            allow_bucket_creation=True,
        )
        fs.create_dir("bucket")
        options = {
            "aws_endpoint_url": endpoint,
            "aws_access_key_id": "testing",
            "aws_secret_access_key": "testing",
            "aws_region": "us-east-1",
            "aws_allow_http": "true",
        }
        yield fs, options
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def upload(fs, root: Path, prefix: str) -> None:
    """Copies the files below ``root`` to ``prefix`` (``bucket/...``) of ``fs``."""
    for p in root.rglob("*"):
        if p.is_file():
            with fs.open_output_stream(f"{prefix}/{p.relative_to(root).as_posix()}") as out:
                out.write(p.read_bytes())


def write_hive(root: Path, n: int = 6000) -> Path:
    """A pyarrow-written dataset below ``root``: ``id`` (0..n), ``v`` a double, in ``year=``
    directories (2020 + id % 3), row groups of 500 rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "year": pa.array([2020 + i % 3 for i in range(n)], pa.int32()),
            "v": pa.array([i / 7 for i in range(n)], pa.float64()),
        }
    )
    pq.write_to_dataset(t, root, partition_cols=["year"], row_group_size=500)
    return root
