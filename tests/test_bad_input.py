"""Bad input for every command: a clear message naming the file and line, exit 2, no file
touched, and the other files in the same run still processed. ``convert`` in place is atomic."""

from __future__ import annotations

import codecs
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from autojit import cli
from autojit.cli import main

GOOD = "import jax.numpy as jnp\n\n\ndef f(x, i, y):\n    x[i] = y\n    return jnp.sin(x)\n"
GOOD_LINE = "    x = x.at[i].set(y)\n"

# every command, each in a mode that writes and modes that do not
COMMANDS = {
    "convert": ["convert"],
    "convert-diff": ["convert", "--diff"],
    "convert-check": ["convert", "--check"],
    "check": ["check"],
}

# name -> (file bytes, line the message must name, code)
BAD: dict[str, tuple[bytes, int, str]] = {
    "syntax": (b"import jax\n\ndef f(x:\n    return x\n", 3, "E999"),
    "syntax-indent": (b"def f(x):\n  return x\n    y = 1\n", 3, "E999"),
    "non-utf8": (b"import jax\n\n# caf\xe9\ndef f(x):\n    return x\n", 3, "E902"),
    "latin1-cookie-body": (b"x = 1\ny = 2\nz = '\xff\xfe'\n", 3, "E902"),
    # byte 0x80 is on line 3: after 0x0a and 0x0d, each a line end to Python
    "binary": (bytes(range(256)) * 8, 3, "E9"),
    "nul-bytes": (b"import jax\nx = 1\x00\n", 2, "E9"),
    "deep-parens": (b"x = 1\ny = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n", 2, "E999"),
    "too-long-sum": (
        b"import jax.numpy as jnp\n\ndef f(x, i, a):\n    x[i] = "
        + b"+".join([b"a"] * 100_000)
        + b"\n    return jnp.sin(x)\n",
        4,
        "E999",
    ),
}

MESSAGE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>E\d+) (?P<msg>.+)$")


def invoke(args: list[str], input: bytes | None = None):
    return CliRunner().invoke(main, args, input=input)


def errors(stderr: str) -> list[re.Match[str]]:
    return [m for ln in stderr.splitlines() if (m := MESSAGE.match(ln))]


def good_was_processed(command: str, out, good: Path) -> None:
    """The good file in the same run was still converted / diffed / reported."""
    if command == "convert":
        assert good.read_text() == GOOD.replace("    x[i] = y\n", GOOD_LINE)
    else:
        assert good.read_text() == GOOD
    if command == "convert-diff":
        assert "+" + GOOD_LINE in out.stdout
    if command == "check":
        assert f"{good}:5:5: AJ30" in out.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(BAD))
def test_bad_file_is_reported_untouched_and_others_processed(
    tmp_path: Path, command: str, case: str
) -> None:
    data, line, code = BAD[case]
    bad = tmp_path / "bad.py"
    bad.write_bytes(data)
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    out = invoke([*COMMANDS[command], str(bad), str(good)])
    assert out.exit_code == 2, out.output
    found = errors(out.stderr)
    assert len(found) == 1, out.stderr
    m = found[0]
    assert m["path"] == str(bad)
    assert int(m["line"]) == line, out.stderr
    assert m["code"].startswith(code)
    assert "internal error" not in m["msg"]
    assert bad.read_bytes() == data  # no file touched
    assert not list(tmp_path.glob(".*autojit-tmp"))
    good_was_processed(command, out, good)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", ["syntax", "non-utf8", "binary", "deep-parens"])
def test_bad_stdin(command: str, case: str) -> None:
    data, line, code = BAD[case]
    out = invoke([*COMMANDS[command], "-", "--stdin-filename", "mod.py"], input=data)
    assert out.exit_code == 2
    (m,) = errors(out.stderr)
    assert m["path"] == "mod.py" and int(m["line"]) == line and m["code"].startswith(code)
    if command == "convert":
        assert out.stdout == ""  # nothing that looks like a converted file


@pytest.mark.parametrize("command", list(COMMANDS))
def test_missing_path(tmp_path: Path, command: str) -> None:
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    missing = tmp_path / "nope" / "missing.py"
    out = invoke([*COMMANDS[command], str(missing), str(good)])
    assert out.exit_code == 2
    (m,) = errors(out.stderr)
    assert m["path"] == str(missing) and m["line"] == "1"
    assert "No such file" in m["msg"]
    good_was_processed(command, out, good)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_directory_with_unreadable_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """root ignores chmod, so the unreadable file is simulated at `open`."""
    (tmp_path / "pkg").mkdir()
    locked = tmp_path / "pkg" / "a_locked.py"
    locked.write_text(GOOD)
    good = tmp_path / "pkg" / "good.py"
    good.write_text(GOOD)
    real_open = open

    def fake_open(path, *args, **kwargs):
        if os.path.realpath(path) == os.path.realpath(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(cli, "open", fake_open, raising=False)
    out = invoke([*COMMANDS[command], str(tmp_path / "pkg")])
    assert out.exit_code == 2
    (m,) = errors(out.stderr)
    assert m["path"] == str(locked) and "Permission denied" in m["msg"]
    assert locked.read_text() == GOOD
    good_was_processed(command, out, good)


# -- valid but unusual input: converted, bytes outside the rewrite kept ---------------------


def test_empty_file_is_fine(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_bytes(b"")
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    for command in COMMANDS:
        out = invoke([*COMMANDS[command], str(empty), str(good)])
        assert out.exit_code in (0, 1), out.output
        assert not errors(out.stderr)
        assert empty.read_bytes() == b""
    out = invoke(["convert", "-"], input=b"")
    assert out.exit_code == 0 and out.stdout == ""


@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda t: codecs.BOM_UTF8 + t.encode(), id="bom"),
        pytest.param(lambda t: t.replace("\n", "\r\n").encode(), id="crlf"),
        pytest.param(lambda t: codecs.BOM_UTF8 + t.replace("\n", "\r\n").encode(), id="bom-crlf"),
        pytest.param(lambda t: t.replace("    ", "\t").encode(), id="tabs"),
        pytest.param(lambda t: ("# é ü 漢字\n" + t).encode(), id="non-ascii"),
    ],
)
def test_bom_crlf_tabs_are_kept(tmp_path: Path, encode: Callable[[str], bytes]) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(encode(GOOD))
    out = invoke(["convert", str(path)])
    assert out.exit_code == 0, out.output
    assert path.read_bytes() == encode(GOOD.replace("    x[i] = y\n", GOOD_LINE))
    out = invoke(["convert", "-"], input=encode(GOOD))
    assert out.exit_code == 0
    assert out.stdout_bytes == encode(GOOD.replace("    x[i] = y\n", GOOD_LINE))


def test_hundred_thousand_lines(tmp_path: Path) -> None:
    """A 100,000-line file: converted, with findings at the right (large) line numbers."""
    lines = ["import jax.numpy as jnp", "", "TABLE = ["]
    lines += [f"    {i}," for i in range(100_000 - 10)]
    lines += ["]", "", ""]
    head = "\n".join(lines) + "\n"
    big = tmp_path / "big.py"
    big.write_text(head + GOOD.split("\n\n\n", 1)[1])
    first = head.count("\n") + 2  # the `x[i] = y` line
    out = invoke(["check", str(big)])
    assert out.exit_code == 1, out.output
    assert f"{big}:{first}:5: AJ30" in out.stdout
    out = invoke(["convert", str(big)])
    assert out.exit_code == 0
    text = big.read_text()
    assert text.startswith(head) and text.endswith(GOOD_LINE + "    return jnp.sin(x)\n")


def test_long_flat_expression_converts(tmp_path: Path) -> None:
    """`a + a + ... ` 10,000 terms deep: past Python's default recursion limit, converted in a
    thread with a larger stack rather than reported as an internal error."""
    path = tmp_path / "m.py"
    src = (
        "import jax.numpy as jnp\n\ndef f(x, i, a):\n    x[i] = "
        + "+".join(["a"] * 10_000)
        + "\n    return jnp.sin(x)\n"
    )
    path.write_text(src)
    out = invoke(["convert", "--diff", str(path)])
    assert out.exit_code == 0, out.stderr
    assert "+    x = x.at[i].set(a+a+a" in out.stdout
    assert sys.getrecursionlimit() < 100_000  # put back


def test_file_changed_between_read_and_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text(GOOD)
    b.write_text(GOOD)
    edited = GOOD + "# edited by someone else meanwhile\n"
    real = cli.convert_bytes

    def convert_then_edit(path, data, settings):
        result = real(path, data, settings)
        if os.path.basename(path) == "a.py":
            a.write_text(edited)
        return result

    monkeypatch.setattr(cli, "convert_bytes", convert_then_edit)
    out = invoke(["convert", str(tmp_path)])
    assert out.exit_code == 2
    (m,) = errors(out.stderr)
    assert m["path"] == str(a) and m["line"] == "1" and "changed" in m["msg"]
    assert a.read_text() == edited  # their edit survives
    assert b.read_text() == GOOD.replace("    x[i] = y\n", GOOD_LINE)
    assert not list(tmp_path.glob(".*autojit-tmp"))


# -- atomic writes ------------------------------------------------------------------------------


def _big_source(lines: int = 400_000) -> tuple[str, str]:
    """A large file (many MB) whose conversion is quick: one function, then comment lines."""
    filler = "".join(f"# filler line {i} {'x' * 40}\n" for i in range(lines))
    src = GOOD + filler
    return src, GOOD.replace("    x[i] = y\n", GOOD_LINE) + filler


def _spawn(path: Path, pre: str = "") -> subprocess.Popen[bytes]:
    code = f"import sys\n{pre}\nfrom autojit.cli import main\nsys.argv = ['autojit', 'convert', '-q', {str(path)!r}]\nmain()\n"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )


def test_convert_in_place_killed_mid_write_leaves_original(tmp_path: Path) -> None:
    """Stop the writer after the temporary file is written (before the rename): SIGKILL there
    leaves the original intact."""
    src, _ = _big_source()
    path = tmp_path / "big.py"
    path.write_text(src)
    pre = (
        "import os, time\n"
        "_fsync = os.fsync\n"
        "def fsync(fd):\n"
        "    sys.stderr.write('WRITTEN\\n'); sys.stderr.flush(); time.sleep(60)\n"
        "os.fsync = fsync\n"
    )
    proc = _spawn(path, pre)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.strip() == b"WRITTEN", line + proc.stderr.read()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert path.read_text() == src


def test_convert_in_place_killed_at_random_moments(tmp_path: Path) -> None:
    """Kill `convert` on a large file at random moments: the file is always either the whole
    original or the whole converted text, never a mix or a truncation."""
    src, converted = _big_source()
    path = tmp_path / "big.py"
    path.write_text(src)
    started = time.perf_counter()
    proc = _spawn(path)
    proc.wait()
    total = time.perf_counter() - started
    assert proc.returncode == 0 and path.read_text() == converted
    rng = random.Random(8)
    seen = set()
    for _ in range(6):
        path.write_text(src)
        proc = _spawn(path)
        time.sleep(rng.uniform(0.3, 1.0) * total)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        text = path.read_text()
        assert text in (src, converted), f"partial file: {len(text)} characters"
        seen.add(text == converted)
        for leftover in tmp_path.glob(".*autojit-tmp"):  # a killed writer leaves its temp file
            leftover.unlink()
