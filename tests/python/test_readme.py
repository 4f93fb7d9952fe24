"""The README's examples, extracted and run.

Rule for README.md's fenced code blocks, by their info string:

- ```rust: compiled and run as doctests of the parq crate (crates/parq/src/lib.rs includes the
  README under #[cfg(doctest)]), by `cargo test --doc`;
- ```python: run here, each by the venv's Python in a temporary directory of its own;
- ```sh: run here by bash (-e, -u, pipefail) in a temporary directory of its own, with the
  built `parq` and the venv's `python` first on PATH;
- anything else (```sh manual for commands to run by hand, such as installing or the
  benchmark; ```toml; ```text) is not run.

Every example creates the files it reads, so none depends on the directory it runs in.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

README = REPO_ROOT / "README.md"

# Seconds one example may take.
TIMEOUT_S = 120

_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)


def readme_blocks() -> list[tuple[str, int, str]]:
    """(info string, line of the opening fence, body) of every fenced block of README.md."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        blocks.append((m.group("info").strip(), line, m.group("body")))
    return blocks


def _blocks_of(info: str) -> list[tuple[int, str]]:
    return [(line, body) for i, line, body in readme_blocks() if i == info]


def test_readme_blocks_are_tagged():
    """Every block says what it is: an untagged block would run as a Rust doctest."""
    untagged = [line for info, line, _ in readme_blocks() if not info]
    assert not untagged, f"README.md blocks without a language, at lines {untagged}"
    # The examples the README promises are there.
    infos = [info for info, _, _ in readme_blocks()]
    assert infos.count("rust") >= 2 and infos.count("python") >= 2 and "sh" in infos


def _run(argv: list[str], cwd: Path, env: dict[str, str], what: str) -> None:
    proc = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert proc.returncode == 0, (
        f"{what} exited {proc.returncode}\nstdout:\n{proc.stdout[-4000:]}\n"
        f"stderr:\n{proc.stderr[-4000:]}"
    )


@pytest.mark.parametrize(
    "line,body", _blocks_of("python"), ids=[f"line-{line}" for line, _ in _blocks_of("python")]
)
def test_readme_python(line, body, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(body, encoding="utf-8")
    _run([sys.executable, str(script)], tmp_path, dict(os.environ), f"README.md python block at line {line}")


@pytest.mark.parametrize(
    "line,body", _blocks_of("sh"), ids=[f"line-{line}" for line, _ in _blocks_of("sh")]
)
def test_readme_sh(line, body, tmp_path, parq_bin):
    script = tmp_path / "example.sh"
    script.write_text(body, encoding="utf-8")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(Path(parq_bin).parent), str(Path(sys.executable).parent), env.get("PATH", "")]
    )
    _run(
        ["bash", "-euo", "pipefail", str(script)],
        tmp_path,
        env,
        f"README.md sh block at line {line}",
    )
