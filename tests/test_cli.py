"""The ``autojit`` command line: every mode, every exit code, and what it does to files."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import autojit
from autojit import cli
from autojit.cli import main

SOURCE = textwrap.dedent(
    """\
    import jax.numpy as jnp


    def f(x, i, y, n):
        x = jnp.zeros(n, dtype=jnp.float32) + x  # keep me
        x[i] = y
        return x


    def g(a):
        return a
    """
)
CONVERTED_LINE = "    x = x.at[i].set(y)\n"
CLEAN = "import jax.numpy as jnp\n\n\ndef g(a):\n    return jnp.sin(a)\n"
MESSAGE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) \S")


def run(*args: str, input: str | bytes | None = None):
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def message_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if not ln.startswith("autojit:")]


# -- convert in place ---------------------------------------------------------------------


def test_convert_rewrites_in_place_and_reports(tree: Path) -> None:
    r = run("convert", str(tree / "a.py"), str(tree / "clean.py"))
    assert r.exit_code == 0, r.output
    new = (tree / "a.py").read_text()
    assert CONVERTED_LINE in new
    # everything else is byte-identical
    assert new == SOURCE.replace("    x[i] = y\n", CONVERTED_LINE)
    assert (tree / "clean.py").read_text() == CLEAN
    assert r.stdout == ""
    lines = message_lines(r.stderr)
    assert len(lines) == 1
    m = MESSAGE.match(lines[0])
    assert m, lines
    assert m["path"] == str(tree / "a.py")
    assert (m["line"], m["col"], m["code"][:3]) == ("6", "5", "AJ3")
    assert "1 file converted, 1 file unchanged" in r.stderr


def test_unchanged_file_is_not_rewritten(tree: Path) -> None:
    before = os.stat(tree / "clean.py")
    r = run("convert", str(tree / "clean.py"))
    assert r.exit_code == 0
    after = os.stat(tree / "clean.py")
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_idempotent(tree: Path) -> None:
    assert run("convert", str(tree)).exit_code == 0
    once = (tree / "a.py").read_bytes()
    r = run("convert", "--check", str(tree))
    assert r.exit_code == 0, r.output
    assert run("convert", str(tree)).exit_code == 0
    assert (tree / "a.py").read_bytes() == once


def test_directories_are_searched_recursively(tmp_path: Path) -> None:
    files = {
        "pkg/mod.py": True,
        "pkg/sub/deep.py": True,
        "pkg/notes.txt": False,
        "pkg/.hidden/h.py": False,
        "pkg/__pycache__/c.py": False,
        "pkg/node_modules/n.py": False,
        "pkg/myenv/lib/v.py": False,  # a virtual environment (pyvenv.cfg)
        "pkg/.git/g.py": False,
    }
    for rel in files:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(SOURCE)
    (tmp_path / "pkg/myenv/pyvenv.cfg").write_text("home = /usr\n")
    r = run("convert", str(tmp_path / "pkg"))
    assert r.exit_code == 0, r.output
    for rel, converted in files.items():
        text = (tmp_path / rel).read_text()
        assert (CONVERTED_LINE in text) == converted, rel
    assert "2 files converted" in r.stderr


def test_file_mode_is_kept(tree: Path) -> None:
    path = tree / "a.py"
    os.chmod(path, 0o751)
    assert run("convert", str(path)).exit_code == 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert CONVERTED_LINE in path.read_text()


def test_symlink_target_is_rewritten_and_link_kept(tree: Path) -> None:
    link = tree / "link.py"
    link.symlink_to(tree / "a.py")
    assert run("convert", str(link)).exit_code == 0
    assert link.is_symlink()
    assert CONVERTED_LINE in (tree / "a.py").read_text()


def test_symlinked_file_in_a_folder_is_not_followed(tmp_path: Path) -> None:
    # converting a folder never writes outside it through a symlinked file
    outside = tmp_path / "outside.py"
    outside.write_text(SOURCE)
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "link.py").symlink_to(outside)
    assert run("convert", str(folder)).exit_code == 0
    assert outside.read_text() == SOURCE


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and links")
def test_read_only_and_hard_linked_files_are_refused_untouched(tree: Path) -> None:
    path = tree / "a.py"
    os.chmod(path, 0o444)
    try:
        r = run("convert", str(path))
        assert r.exit_code == 2 and "E902" in r.stderr and "read-only" in r.stderr
        assert path.read_text() == SOURCE
    finally:
        os.chmod(path, 0o644)
    other = tree / "other_name.py"
    os.link(path, other)
    r = run("convert", str(path))
    assert r.exit_code == 2 and "hard links" in r.stderr
    assert path.read_text() == SOURCE == other.read_text()


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    body = SOURCE.replace("\n", "\r\n").encode()
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(body)
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + SOURCE.encode())
    assert run("convert", str(crlf), str(bom)).exit_code == 0
    assert crlf.read_bytes() == body.replace(b"    x[i] = y\r\n", b"    x = x.at[i].set(y)\r\n")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + SOURCE.replace(
        "    x[i] = y\n", CONVERTED_LINE
    ).encode("utf-8")


def test_non_ascii_text_is_kept(tmp_path: Path) -> None:
    src = "# é𝄞 ünïcode\n" + SOURCE.replace("# keep me", "# gardé 𝄞")
    p = tmp_path / "u.py"
    p.write_text(src, encoding="utf-8")
    r = run("convert", str(p))
    assert r.exit_code == 0
    assert p.read_text(encoding="utf-8") == src.replace("    x[i] = y\n", CONVERTED_LINE)
    assert f"{p}:7:5: AJ3" in r.stderr


# -- atomicity and errors -----------------------------------------------------------------


def test_failed_write_leaves_the_original_intact(tree: Path, monkeypatch) -> None:
    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    r = run("convert", str(tree / "a.py"))
    assert r.exit_code == 2
    assert (tree / "a.py").read_text() == SOURCE
    assert sorted(p.name for p in tree.iterdir()) == ["a.py", "clean.py"]  # no temp file left
    assert f"{tree / 'a.py'}:1:1: E902 could not write: No space left on device" in r.stderr


def test_failed_write_of_data_leaves_the_original_intact(tree: Path, monkeypatch) -> None:
    real_fsync = os.fsync

    def boom(fd):
        real_fsync(fd)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", boom)
    r = run("convert", str(tree / "a.py"))
    assert r.exit_code == 2
    assert (tree / "a.py").read_text() == SOURCE
    assert sorted(p.name for p in tree.iterdir()) == ["a.py", "clean.py"]


def test_syntax_error_names_file_and_line_and_other_files_still_run(tree: Path) -> None:
    bad = tree / "bad.py"
    bad_src = "import jax.numpy as jnp\n\ndef broken(x:\n    x[0] = 1\n"
    bad.write_text(bad_src)
    r = run("convert", str(bad), str(tree / "a.py"))
    assert r.exit_code == 2
    assert bad.read_text() == bad_src
    assert CONVERTED_LINE in (tree / "a.py").read_text()
    err = [ln for ln in r.stderr.splitlines() if "E999" in ln]
    assert len(err) == 1
    assert re.match(rf"^{re.escape(str(bad))}:3:\d+: E999 SyntaxError: ", err[0]), err


def test_check_with_syntax_error_exits_2(tree: Path) -> None:
    (tree / "bad.py").write_text("def f(:\n")
    r = run("convert", "--check", str(tree))
    assert r.exit_code == 2


def test_missing_file(tree: Path) -> None:
    r = run("convert", str(tree / "nope.py"), str(tree / "a.py"))
    assert r.exit_code == 2
    assert f"{tree / 'nope.py'}:1:1: E902 No such file or directory" in r.stderr
    assert CONVERTED_LINE in (tree / "a.py").read_text()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tree: Path) -> None:
    p = tree / "a.py"
    os.chmod(p, 0)
    try:
        r = run("convert", str(p))
    finally:
        os.chmod(p, 0o644)
    assert r.exit_code == 2
    assert f"{p}:1:1: E902 Permission denied" in r.stderr
    assert p.read_text() == SOURCE


def test_read_error_is_reported_and_other_files_run(tree: Path, monkeypatch) -> None:
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("a.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(cli, "open", fake_open, raising=False)
    (tree / "b.py").write_text(SOURCE)
    r = run("convert", str(tree / "a.py"), str(tree / "b.py"))
    assert r.exit_code == 2
    assert f"{tree / 'a.py'}:1:1: E902 Permission denied" in r.stderr
    assert (tree / "a.py").read_text() == SOURCE
    assert CONVERTED_LINE in (tree / "b.py").read_text()


def test_non_utf8_bytes(tmp_path: Path) -> None:
    p = tmp_path / "latin.py"
    data = SOURCE.encode().replace(b"# keep me", b"# caf\xe9")
    p.write_bytes(data)
    r = run("convert", str(p))
    assert r.exit_code == 2
    assert re.search(rf"{re.escape(str(p))}:5:\d+: E902 UnicodeDecodeError", r.stderr), r.stderr
    assert p.read_bytes() == data
    p.write_bytes(b"\xef\xbb\xbfx = 1\ny = '\xe9'\n")
    r = run("convert", str(p))
    assert r.exit_code == 2 and f"{p}:2:6: E902 UnicodeDecodeError" in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--no-such-flag", "x.py"],
        ["convert", "--select", "bogus", "x.py"],
        ["convert", "--output-format", "xml", "x.py"],
        ["convert"],
        ["convert", "--all-functions", "--function", "f", "x.py"],
        ["convert", "-", "x.py"],
    ],
)
def test_bad_options_exit_2_and_touch_nothing(tree: Path, args: list[str]) -> None:
    args = [str(tree / "a.py") if a == "x.py" else a for a in args]
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert (tree / "a.py").read_text() == SOURCE


# -- --diff, --check, stdin, json ---------------------------------------------------------


def test_diff_prints_and_writes_nothing(tree: Path) -> None:
    path = str(tree / "a.py")
    r = run("convert", "--diff", path)
    assert r.exit_code == 0
    assert (tree / "a.py").read_text() == SOURCE
    assert r.stdout.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert "-    x[i] = y\n" in r.stdout
    assert "+    x = x.at[i].set(y)\n" in r.stdout
    assert "AJ3" in r.stderr and "AJ3" not in r.stdout


def test_diff_of_file_without_final_newline(tmp_path: Path) -> None:
    p = tmp_path / "n.py"
    p.write_text(
        SOURCE.replace("    x[i] = y\n    return x\n", "    return x\n")
        + "def h(x, i):\n    x = jnp.asarray(x)\n    x[i] = 1\n    return x"
    )
    r = run("convert", "--diff", str(p))
    assert r.exit_code == 0
    assert "\\ No newline at end of file" in r.stdout


def test_check_exit_codes(tree: Path) -> None:
    r = run("convert", "--check", str(tree / "a.py"))
    assert r.exit_code == 1
    assert (tree / "a.py").read_text() == SOURCE
    assert "would be converted" in r.stderr
    assert run("convert", "--check", str(tree / "clean.py")).exit_code == 0
    r = run("convert", "--check", "--diff", str(tree / "a.py"))
    assert r.exit_code == 1 and "+    x = x.at[i].set(y)" in r.stdout


def test_stdin_to_stdout(tree: Path) -> None:
    r = run("convert", "-", "--stdin-filename", "src/mod.py", input=SOURCE)
    assert r.exit_code == 0
    assert r.stdout == SOURCE.replace("    x[i] = y\n", CONVERTED_LINE)
    assert re.search(r"^src/mod\.py:6:5: AJ3\d\d ", r.stderr, re.M)


def test_stdin_keeps_bytes(tree: Path) -> None:
    data = b"\xef\xbb\xbf" + SOURCE.replace("\n", "\r\n").encode()
    r = run("convert", "-", input=data)
    assert r.exit_code == 0
    assert r.stdout_bytes == data.replace(b"x[i] = y", b"x = x.at[i].set(y)")


def test_stdin_check_diff_and_errors() -> None:
    r = run("convert", "--check", "-", input=SOURCE)
    assert (r.exit_code, r.stdout) == (1, "")
    r = run("convert", "--check", "-", input=CLEAN)
    assert (r.exit_code, r.stdout) == (0, "")
    r = run("convert", "--diff", "-", "--stdin-filename", "m.py", input=SOURCE)
    assert r.exit_code == 0 and r.stdout.startswith("--- m.py\n+++ m.py\n")
    r = run("convert", "-", "--stdin-filename", "m.py", input="def f(:\n")
    assert r.exit_code == 2 and r.stdout == ""
    assert re.search(r"^m\.py:1:\d+: E999 SyntaxError", r.stderr, re.M)


def test_json_output(tree: Path) -> None:
    (tree / "bad.py").write_text("def f(:\n")
    r = run("convert", "--output-format", "json", "--check", str(tree))
    assert r.exit_code == 2
    data = json.loads(r.stdout)
    by_name = {Path(d["path"]).name: d for d in data}
    assert set(by_name) == {"a.py", "bad.py", "clean.py"}
    a = by_name["a.py"]
    assert a["changed"] is True and a["error"] is None
    (change,) = a["changes"]
    assert set(change) == {"code", "message", "line", "col", "end_line", "end_col"}
    assert (change["line"], change["col"], change["end_line"]) == (6, 5, 6)
    assert change["code"].startswith("AJ3")
    assert a["refusals"] == []
    (static,) = a["static_arguments"]
    assert (static["function"], static["name"], static["index"]) == ("f", "n", 3)
    assert by_name["clean.py"]["changed"] is False
    assert by_name["bad.py"]["error"]["code"] == "E999"
    assert (tree / "a.py").read_text() == SOURCE
    assert "diff" not in a and "text" not in a
    r = run("convert", "--output-format", "json", "--diff", str(tree / "a.py"))
    (entry,) = json.loads(r.stdout)
    assert "+    x = x.at[i].set(y)\n" in entry["diff"]


def test_json_refusals() -> None:
    src = textwrap.dedent(
        """\
        import jax.numpy as jnp

        def f(x):
            x = jnp.asarray(x)
            y = x
            x[0] = 1.0
            return x + y
        """
    )
    r = run("convert", "--output-format", "json", "-", input=src)
    assert r.exit_code == 0
    (entry,) = json.loads(r.stdout)
    assert entry["text"] is not None
    for refusal in entry["refusals"]:
        assert set(refusal) == {"code", "message", "line", "col", "end_line", "end_col"}
        assert refusal["code"].startswith("AJ")


# -- rule selection and function selection --------------------------------------------------


def test_select_and_ignore(tree: Path) -> None:
    path = str(tree / "a.py")
    assert run("convert", "--check", "--ignore", "AJ3", path).exit_code == 0
    assert run("convert", "--check", "--ignore", "aj1,AJ3", path).exit_code == 0
    assert run("convert", "--check", "--select", "AJ1", path).exit_code == 0
    assert run("convert", "--check", "--select", "AJ1", "--select", "AJ3", path).exit_code == 1
    assert run("convert", "--check", "--select", "AJ", path).exit_code == 1


def test_all_functions_and_function(tmp_path: Path) -> None:
    src = "def h(x, i, y):\n    x[i] = y\n    return x\n\n\ndef k(x, i, y):\n    x[i] = y\n    return x\n"
    p = tmp_path / "plain.py"
    p.write_text(src)
    assert run("convert", "--check", str(p)).exit_code == 0  # no jax: left alone
    r = run("convert", "--diff", "--function", "k", str(p))
    assert "def k" in r.stdout or "x = x.at[i].set(y)" in r.stdout
    assert r.stdout.count("+    x = x.at[i].set(y)") == 1
    r = run("convert", "--check", "--function", "nope", str(p))
    assert r.exit_code == 0 and "no function named 'nope'" in r.stderr
    r = run("convert", "--all-functions", str(p))
    assert r.exit_code == 0
    assert p.read_text().count("x = x.at[i].set(y)") == 2
    assert "import autojit" not in p.read_text()


# -- --add-jit -----------------------------------------------------------------------------


def _load(text: str) -> dict:
    ns: dict = {}
    exec(compile(text, "<converted>", "exec"), ns)
    return ns


def test_add_jit_runs_under_jit_with_static_argument(tree: Path) -> None:
    path = tree / "a.py"
    r = run("convert", "--add-jit", str(path))
    assert r.exit_code == 0, r.output
    text = path.read_text()
    assert "@partial(jax.jit, static_argnames=('n',))\ndef f(" in text
    assert "from functools import partial\n" in text and "import jax\n" in text
    assert "autojit" not in text
    assert "def g" in text and "@jax.jit\ndef g" not in text  # unchanged functions stay bare

    import jax

    converted = _load(text)["f"]
    eager = _eager_numpy(SOURCE)["f"]
    for x, i, y, n in [(np.arange(5, dtype=np.float32), 2, 7.0, 5), (np.float32(1.5), 0, -1.0, 3)]:
        want = np.asarray(eager(np.array(x, dtype=np.float32), i, np.float32(y), n))
        got = converted(jax.numpy.asarray(x), i, y, n)
        assert hasattr(converted, "lower")
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want)

    # converting again changes nothing, with --add-jit too
    r = run("convert", "--add-jit", "--check", str(path))
    assert r.exit_code == 0, r.output


def _eager_numpy(src: str):
    """The original with jnp bound to numpy: the in-place meaning the author intended."""
    ns: dict = {}
    exec(
        compile(src.replace("import jax.numpy as jnp", "import numpy as jnp"), "<eager>", "exec"),
        ns,
    )
    return ns


@pytest.mark.parametrize(
    ("decorator", "header", "expected"),
    [
        ("@jax.jit", "import jax\n", "@partial(jax.jit, static_argnames=('n',))"),
        ("@jit", "from jax import jit\n", "@partial(jit, static_argnames=('n',))"),
        ("@jax.jit()", "import jax\n", "@jax.jit(static_argnames=('n',))"),
        (
            "@functools.partial(jax.jit, static_argnums=(1,))",
            "import functools\nimport jax\n",
            "@functools.partial(jax.jit, static_argnums=(1, 3))",
        ),
        (
            "@partial(jax.jit, static_argnums=(1,), static_argnames=('i',))",
            "from functools import partial\nimport jax\n",
            "@partial(jax.jit, static_argnums=(1, 3), static_argnames=('i', 'n'))",
        ),
        (
            "@partial(jax.jit, static_argnames='i')",
            "from functools import partial\nimport jax\n",
            "@partial(jax.jit, static_argnames=('i', 'n'))",
        ),
        (
            "@partial(jax.jit, static_argnames=['n'])",
            "from functools import partial\nimport jax\n",
            "@partial(jax.jit, static_argnames=['n'])",
        ),
    ],
)
def test_add_jit_merges_into_existing_jit(decorator: str, header: str, expected: str) -> None:
    src = header + SOURCE.replace("def f(", f"{decorator}\ndef f(")
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert f"{expected}\ndef f(" in out
    assert out.count("@") == 1
    assert out.count("import jax\n") <= 1
    f = _load(out)["f"]
    got = f(np.arange(4, dtype=np.float32), 1, 9.0, 4)
    np.testing.assert_allclose(np.asarray(got), [0, 9, 2, 3])
    assert got.dtype == np.float32
    again = run("convert", "--add-jit", "--check", "-", input=out)
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    ("signature", "call", "expected"),
    [
        ("x, n, /, i, y", "f(x, 4, 1, 9.0)", "static_argnums=(1,)"),
        ("x, i, y, *, n", "f(x, 1, 9.0, n=4)", "static_argnames=('n',)"),
        ("x, i, y, n", "f(x, 1, 9.0, n=4)", "static_argnames=('n',)"),
    ],
)
def test_add_jit_new_decorator_by_parameter_kind(signature: str, call: str, expected: str) -> None:
    src = SOURCE.replace("def f(x, i, y, n):", f"def f({signature}):")
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    assert f"@partial(jax.jit, {expected})\ndef f(" in r.stdout
    ns = _load(r.stdout)
    ns["x"] = np.arange(4, dtype=np.float32)
    got = eval(call, ns)
    np.testing.assert_allclose(np.asarray(got), [0, 9, 2, 3])
    assert got.dtype == np.float32


@pytest.mark.parametrize(("star", "item"), [("*ns", "ns[0]"), ("**kw", "kw['n']")])
def test_add_jit_leaves_a_function_taking_star_arguments_with_a_note(star: str, item: str) -> None:
    """`def g(x, *ns): y = jnp.zeros(ns[0])`: jax.jit cannot make an item of `*ns` static, so a
    plain `@jax.jit` broke a program that ran (probe 25): no decorator, a note instead."""
    src = (
        "import jax\nimport jax.numpy as jnp\n\n\n"
        f"def g(x, {star}):\n    y = jnp.zeros({item})\n    if x[0] > 0:\n        y = y + 1\n"
        "    return y\n"
    )
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    assert "jnp.where(" in r.stdout, r.stdout  # (converted, not jitted)
    assert "@" not in r.stdout, r.stdout
    assert f"takes `{star}`" in r.stderr, r.stderr


def test_add_jit_plan_mixed_kinds() -> None:
    from autojit.add_jit import _plan

    # a positional-only and a keyword-only static: both lists, each complete
    assert _plan(["a", "k"], ["a"], ["a", "b"], None, None) == ([0], ["k"])
    # both given by the user: every static in every form it can take
    assert _plan(["b", "c"], [], ["a", "b", "c"], ["b"], [1]) == ([1, 2], ["b", "c"])
    assert _plan(["b"], [], ["a", "b"], ["b"], None) is None
    assert _plan(["b"], [], ["a", "b"], None, [-1]) is None


@pytest.mark.parametrize(
    "other",
    [
        "def make(f):\n    return jax.jit(f)",
        "def make(g):\n    f = g\n    return jax.jit(f)",
        "make = lambda f: jax.jit(f)",
        "def make(fs):\n    return [jax.jit(f) for f in fs]",
    ],
)
def test_add_jit_leaves_a_jit_call_of_another_f_alone(other: str) -> None:
    """`def make(f): return jax.jit(f)` beside a module function `f`: --add-jit took that call
    for one of the module's `f` and gave it `static_argnames=('n',)`, which broke `make` for
    any function whose `n` is an array, and left the module's `f` without jit (probe D). A
    name a function (or a comprehension) binds there is its own."""
    src = "import jax\nfrom functools import partial\n" + SOURCE + "\n\n" + other + "\n"
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    assert "@partial(jax.jit, static_argnames=('n',))\ndef f(" in r.stdout, r.stdout
    assert other.replace("jax.jit(f)", "") in r.stdout.replace("jax.jit(f)", ""), r.stdout
    assert "jax.jit(f)" in r.stdout  # (untouched)
    ns = _load(r.stdout)
    got = ns["f"](np.arange(4, dtype=np.float32), 1, 9.0, 4)
    np.testing.assert_allclose(np.asarray(got), [0, 9, 2, 3])


def test_add_jit_merges_into_jit_calls_instead_of_decorating() -> None:
    src = (
        "import jax\nfrom functools import partial\n"
        + SOURCE
        + "\n\nf_jit = jax.jit(f)\nf_donate = partial(jax.jit, donate_argnums=0)(f)\n"
    )
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    assert "@" not in r.stdout
    assert "f_jit = jax.jit(f, static_argnames=('n',))\n" in r.stdout
    assert "partial(jax.jit, donate_argnums=0, static_argnames=('n',))(f)" in r.stdout
    ns = _load(r.stdout)
    for name in ("f_jit", "f_donate"):
        got = ns[name](np.arange(4, dtype=np.float32), 1, 9.0, 4)
        np.testing.assert_allclose(np.asarray(got), [0, 9, 2, 3])
    assert run("convert", "--add-jit", "--check", "-", input=r.stdout).exit_code == 0


def test_add_jit_goes_on_top_of_vmap() -> None:
    src = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp


        @jax.vmap
        def f(x, i):
            x = jnp.asarray(x)
            x[i] = 1.0
            return x
        """
    )
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0, r.output
    assert "@jax.jit\n@jax.vmap\ndef f(x, i):" in r.stdout
    f = _load(r.stdout)["f"]
    got = f(np.zeros((2, 3), np.float32), np.array([0, 2], np.int32))
    np.testing.assert_allclose(np.asarray(got), [[1, 0, 0], [0, 0, 1]])
    assert got.dtype == np.float32


def test_add_jit_without_static_arguments_reuses_aliases() -> None:
    src = textwrap.dedent(
        """\
        import jax as jx
        import jax.numpy as jnp


        def f(x, i):
            x = jnp.asarray(x)
            x[i] = 0.0
            return x
        """
    )
    r = run("convert", "--add-jit", "-", input=src)
    assert r.exit_code == 0
    assert "@jx.jit\ndef f(x, i):" in r.stdout
    assert "import jax\n" not in r.stdout and "partial" not in r.stdout
    got = _load(r.stdout)["f"](np.ones(3, np.float32), 2)
    np.testing.assert_allclose(np.asarray(got), [1, 1, 0])


def test_add_jit_leaves_unknown_decorators_and_methods_with_a_note() -> None:
    src = textwrap.dedent(
        """\
        import functools
        import jax.numpy as jnp


        @functools.lru_cache
        def f(x, i):
            x = jnp.asarray(x)
            x[i] = 0.0
            return x


        class C:
            def m(self, x, i):
                x = jnp.asarray(x)
                x[i] = 0.0
                return x
        """
    )
    r = run("convert", "--add-jit", "-", "--stdin-filename", "m.py", input=src)
    assert r.exit_code == 0
    assert "jit" not in r.stdout
    assert "m.py:6:1: note: --add-jit" in r.stderr
    assert "`C.m` is a method" in r.stderr


# -- check, rules, explain ----------------------------------------------------------------


def test_check_command(tree: Path) -> None:
    r = run("check", str(tree / "a.py"))
    assert r.exit_code == 1
    assert re.match(rf"^{re.escape(str(tree / 'a.py'))}:6:5: AJ3\d\d ", r.stdout)
    assert (tree / "a.py").read_text() == SOURCE
    assert run("check", str(tree / "clean.py")).exit_code == 0
    (tree / "bad.py").write_text("def f(:\n")
    assert run("check", str(tree / "bad.py")).exit_code == 2


def test_check_does_not_count_notes_of_kept_code(tmp_path: Path) -> None:
    """A static loop kept as Python (AJ930) needs nothing: `check` exits 0 and prints it only
    with --show-notes; JSON carries it as kind 'note'."""
    src = tmp_path / "kept.py"
    src.write_text(
        "import jax.numpy as jnp\n\n\ndef f(x):\n    for i in range(3):\n"
        "        x = x + i\n    return jnp.sin(x)\n"
    )
    r = run("check", str(src))
    assert r.exit_code == 0 and r.stdout == "" and "no findings" in r.stderr
    r = run("check", "--show-notes", str(src))
    assert r.exit_code == 0 and f"{src}:5:5: AJ930 " in r.stdout
    r = run("check", "--output-format", "json", str(src))
    assert r.exit_code == 0
    (entry,) = json.loads(r.stdout)
    assert [(it["kind"], it["code"]) for it in entry["findings"]] == [("note", "AJ930")]


def test_check_json_fix_edits_reproduce_convert(tree: Path) -> None:
    r = run("check", "--output-format", "json", str(tree / "a.py"))
    assert r.exit_code == 1
    (entry,) = json.loads(r.stdout)
    (finding,) = entry["findings"]
    assert finding["kind"] == "change" and finding["doc"] == f"rules/{finding['code']}.md"
    lines = SOURCE.splitlines(keepends=True)
    for edit in sorted(finding["fix"], key=lambda e: e["start_line"], reverse=True):
        lines[edit["start_line"] - 1 : edit["end_line"] - 1] = [edit["text"]]
    assert "".join(lines) == SOURCE.replace("    x[i] = y\n", CONVERTED_LINE)


TWO_FUNCTIONS = """\
import jax
import jax.numpy as jnp


def f(x, n):
    x[0] = 1.0
    if x[1] > 0:
        x = x * 2
    for i in range(n):
        x = x + jnp.sin(x)
    return x


def g(x):
    x[1] = 2.0
    return jnp.sin(x)
"""


def _apply_fix(text: str, fix: list) -> str:
    lines = text.splitlines(keepends=True)
    for edit in sorted(fix, key=lambda e: e["start_line"], reverse=True):
        lines[edit["start_line"] - 1 : edit["end_line"] - 1] = [edit["text"]]
    return "".join(lines)


def test_check_json_fix_converts_the_whole_function_of_a_finding(tmp_path: Path) -> None:
    """A loop's rewrite ends after its statement (the `fori_loop` call): a finding's fix holds
    every edit of its function, the same for each finding there, and no other function's."""
    path = tmp_path / "two.py"
    path.write_text(TWO_FUNCTIONS)
    (entry,) = json.loads(run("check", "--output-format", "json", str(path)).stdout)
    by_line = {it["line"]: it for it in entry["findings"] if it["kind"] == "change"}
    converted = autojit.convert_source(TWO_FUNCTIONS, str(path))
    f_new = converted.function("f").new_text
    g_new = converted.function("g").new_text
    fixed = _apply_fix(TWO_FUNCTIONS, by_line[9]["fix"])  # the `for` of f
    assert f_new in fixed and "def g(x):\n    x[1] = 2.0\n" in fixed
    assert fixed.startswith("import jax\nimport jax.numpy as jnp\n")
    assert by_line[6]["fix"] == by_line[7]["fix"] == by_line[9]["fix"]
    only_g = _apply_fix(TWO_FUNCTIONS, by_line[15]["fix"])
    assert g_new in only_g and "    x[0] = 1.0\n" in only_g


def test_check_github_format(tree: Path) -> None:
    r = run("check", "--output-format", "github", str(tree / "a.py"))
    assert r.exit_code == 1
    assert r.stdout.startswith(f"::warning file={tree / 'a.py'},line=6,col=5,")


@pytest.fixture
def catalog(tmp_path: Path, monkeypatch) -> Path:
    d = tmp_path / "rules"
    d.mkdir()
    (d / "AJ301.md").write_text(
        "# AJ301: array-item-assignment\n\nRewrites `x[i] = y` to `x = x.at[i].set(y)`. More"
        "\ntext here.\n\n## Why\n...\n"
    )
    (d / "AJ901.md").write_text("# AJ901: aliased-array\n\nAn alias is read after the update.\n")
    monkeypatch.setattr(cli, "rules_dir", lambda: d)
    return d


def test_rules_and_explain(catalog: Path) -> None:
    r = run("rules")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == [
        "AJ301  array-item-assignment: Rewrites `x[i] = y` to `x = x.at[i].set(y)`.",
        "AJ901  aliased-array: An alias is read after the update.",
    ]
    r = run("rules", "--output-format", "json")
    assert json.loads(r.stdout)[0]["code"] == "AJ301"
    r = run("explain", "aj301")
    assert r.exit_code == 0 and r.stdout == (catalog / "AJ301.md").read_text()
    r = run("explain", "AJ999")
    assert r.exit_code == 2 and "unknown rule code" in r.stderr


def test_real_rule_catalog_entries_parse() -> None:
    for entry in cli.load_rules():
        assert re.fullmatch(r"AJ\d{3}", entry.code), entry
        assert entry.name and entry.summary, entry


# -- processes: no jax import, the installed console script ---------------------------------


def test_cli_never_imports_jax(tmp_path: Path) -> None:
    p = tmp_path / "a.py"
    p.write_text(SOURCE)
    code = textwrap.dedent(
        f"""\
        import sys
        import autojit.cli
        from click.testing import CliRunner
        r = CliRunner().invoke(autojit.cli.main, ["convert", "--add-jit", {str(p)!r}])
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(autojit.cli.main, ["check", "--output-format", "json", {str(p)!r}])
        r = CliRunner().invoke(autojit.cli.main, ["convert", "--diff", "-"], input=open({str(p)!r}).read())
        print("jax" in sys.modules, any(m.startswith("jax.") or m == "jaxlib" for m in sys.modules))
        # (nor the decorator and the benchmark, which `import autojit` loads on first use)
        print(sorted(m for m in sys.modules if m in ("autojit.decorator", "autojit.bench")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split("\n")[:2] == ["False False", "[]"], out.stdout + out.stderr
    assert "@partial(jax.jit" in p.read_text()


def test_installed_console_script(tmp_path: Path) -> None:
    exe = shutil.which("autojit") or str(Path(sys.executable).parent / "autojit")
    assert os.path.exists(exe), "the autojit console script is not installed"
    p = tmp_path / "a.py"
    p.write_text(SOURCE)
    out = subprocess.run(
        [exe, "convert", "--check", str(p)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1, out.stderr
    out = subprocess.run([exe, "convert", str(p)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert re.search(rf"^{re.escape(str(p))}:6:5: AJ3\d\d ", out.stderr, re.M)
    assert CONVERTED_LINE in p.read_text()
    out = subprocess.run(
        [sys.executable, "-m", "autojit", "convert", "--check", str(p)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr


# -- several files at once: worker processes ------------------------------------------------

TRACED_IF = textwrap.dedent(
    """\
    import jax.numpy as jnp


    def h(x, n):
        x = jnp.asarray(x)
        if x.sum() > 0:
            x = x * 2
        for i in range(n):
            x = x + i
        return x
    """
)


def _many_files(root: Path) -> None:
    """A folder whose files take every way through a conversion: rewritten, clean, a syntax
    error, bytes that are not UTF-8, in a nested folder."""
    (root / "pkg" / "sub").mkdir(parents=True)
    for k in range(6):
        (root / "pkg" / f"a{k}.py").write_text(SOURCE.replace("def f(", f"def f{k}("))
        (root / "pkg" / "sub" / f"h{k}.py").write_text(TRACED_IF.replace("def h(", f"def h{k}("))
    (root / "pkg" / "clean.py").write_text(CLEAN)
    (root / "pkg" / "bad.py").write_text("import jax.numpy as jnp\ndef f(x:\n    return x\n")
    (root / "pkg" / "latin1.py").write_bytes(b"x = '\xe9'\n")


@pytest.mark.parametrize(
    "args",
    [
        ["convert"],
        ["convert", "--diff"],
        ["check", "--output-format", "json"],
        ["check", "--show-notes"],
    ],
)
def test_files_converted_in_worker_processes_give_the_results_of_one_process(
    tmp_path: Path, args: list[str]
) -> None:
    outcomes = []
    for jobs in ("1", "3"):
        root = tmp_path / f"jobs{jobs}"
        _many_files(root)
        # (a missing path keeps its place among the results)
        paths = [str(root / "pkg" / "sub"), str(root / "missing.py"), str(root / "pkg")]
        r = CliRunner().invoke(main, [*args, "--jobs", jobs, *paths])
        files = {
            str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))
        }
        outcomes.append((r.exit_code, r.stdout.replace(str(root), "ROOT"),
                         r.stderr.replace(str(root), "ROOT"), files))  # fmt: skip
    assert outcomes[0] == outcomes[1]
    exit_code, _, stderr, files = outcomes[1]
    assert exit_code == 2  # (the syntax error, the bad bytes, the missing file)
    assert "ROOT/pkg/bad.py:2:6: E999 SyntaxError" in stderr
    assert "ROOT/missing.py:1:1: E902" in stderr
    if args == ["convert"]:
        assert CONVERTED_LINE.encode() in files["pkg/a5.py"]
        assert b"jnp.where(" in files["pkg/sub/h0.py"], files["pkg/sub/h0.py"].decode()


def test_workers_are_used_only_where_there_is_enough_source(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cli, "available_cores", lambda: 4)
    small = [tmp_path / f"s{k}.py" for k in range(3)]
    for p in small:
        p.write_text(SOURCE)
    names = [str(p) for p in small]
    assert cli._workers(0, names, "fork") == 1  # (a few KB: one process)
    assert cli._workers(2, names, "fork") == 2  # (asked for)
    assert cli._workers(8, names, "fork") == 3  # (at most one per file)
    assert cli._workers(0, names[:1], "fork") == 1
    big = tmp_path / "big.py"
    big.write_text(SOURCE * (cli.PARALLEL_MIN_BYTES["fork"] // len(SOURCE) + 1))
    assert cli._workers(0, [*names, str(big)], "fork") == 4
    assert cli._workers(0, [*names, str(big)], "spawn") == 1  # (a fresh interpreter costs more)
    assert cli._workers(1, [*names, str(big)], "fork") == 1
    assert run("convert", "--jobs", "-1", str(small[0])).exit_code == 2


def test_a_conversion_sent_from_a_worker_comes_without_its_tree() -> None:
    import pickle

    conversion = autojit.convert_source(SOURCE)
    assert conversion.tree is not None  # (the module as parsed, read by `check`'s fixes)
    sent = pickle.loads(pickle.dumps(conversion))
    assert sent.tree is None and conversion.tree is not None
    assert sent == conversion and sent.text == conversion.text


def test_a_worker_that_dies_loses_no_file(tmp_path: Path) -> None:
    # (run in a fresh interpreter, which forks its workers: they see the patched function)
    for k in range(4):
        (tmp_path / f"a{k}.py").write_text(SOURCE)
    code = textwrap.dedent(
        f"""\
        import os, sys
        import autojit.cli as cli
        from click.testing import CliRunner
        main_pid = os.getpid()
        real = cli.convert_path
        def dies_on_a2(path, *args):
            if path.endswith("a2.py") and os.getpid() != main_pid:
                os._exit(3)  # (as a worker killed by the system would)
            return real(path, *args)
        cli.convert_path = dies_on_a2
        assert cli._start_method() == "fork"
        r = CliRunner().invoke(cli.main, ["convert", "--jobs", "2", {str(tmp_path)!r}])
        print(r.exit_code)
        print(r.stderr, r.exception)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split("\n")[0] == "0", out.stdout + out.stderr
    for k in range(4):
        assert CONVERTED_LINE in (tmp_path / f"a{k}.py").read_text(), k
    assert "4 files converted" in out.stdout


# -- [tool.autojit] in pyproject.toml --------------------------------------------------------


def test_pyproject_config_and_flags_win(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.autojit]\nignore = ["AJ3"]\nadd-jit = true\n')
    sub = tree / "pkg"
    sub.mkdir()
    (sub / "m.py").write_text(SOURCE)
    path = str(sub / "m.py")
    assert run("convert", "--check", path).exit_code == 0  # AJ3 ignored by the config
    assert run("check", path).exit_code == 0
    assert run("convert", "--check", "--select", "AJ3", "--ignore", "AJ9", path).exit_code == 1
    r = run("convert", "--diff", "--ignore", "AJ9", path)
    assert "+@partial(jax.jit, static_argnames=('n',))" in r.stdout  # add-jit from the config
    r = run("convert", "--diff", "--ignore", "AJ9", "--no-add-jit", path)
    assert "jax.jit" not in r.stdout and "+    x = x.at[i].set(y)" in r.stdout


def test_pyproject_config_errors_exit_2(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[tool.autojit]\nselekt = ['AJ3']\n")
    r = run("convert", str(tree / "a.py"))
    assert r.exit_code == 2 and "unknown key 'selekt'" in r.output
    assert (tree / "a.py").read_text() == SOURCE
    (tree / "pyproject.toml").write_text("[tool.autojit]\nselect = ['bogus']\n")
    assert run("convert", str(tree / "a.py")).exit_code == 2
    (tree / "pyproject.toml").write_text("[tool.autojit\n")
    assert run("check", str(tree / "a.py")).exit_code == 2
    assert (tree / "a.py").read_text() == SOURCE


def test_explicit_config_file(tree: Path, tmp_path_factory) -> None:
    cfg = tmp_path_factory.mktemp("cfg") / "pyproject.toml"
    cfg.write_text("[tool.autojit]\nselect = 'AJ1'\n")
    assert run("convert", "--check", "--config", str(cfg), str(tree / "a.py")).exit_code == 0
    assert run("convert", "--check", str(tree / "a.py")).exit_code == 1


def test_pre_commit_hooks_run_the_cli() -> None:
    text = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    ids = re.findall(r"^- id: (\S+)$", text, re.M)
    entries = re.findall(r"^  entry: (.+)$", text, re.M)
    assert ids == ["autojit-check", "autojit-convert"]
    assert entries == ["autojit check", "autojit convert"]
    for entry in entries:
        assert run(*entry.split()[1:], "--help").exit_code == 0


def test_check_sarif(tree: Path) -> None:
    r = run("check", "--output-format", "sarif", str(tree / "a.py"), str(tree / "nope.py"))
    assert r.exit_code == 2
    log = json.loads(r.stdout)
    assert log["version"] == "2.1.0"
    (run_,) = log["runs"]
    assert run_["tool"]["driver"]["name"] == "autojit"
    (result,) = run_["results"]
    assert result["ruleId"].startswith("AJ3") and result["level"] == "warning"
    assert result["ruleId"] in {r["id"] for r in run_["tool"]["driver"]["rules"]}
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 5)
    (invocation,) = run_["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "E902" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_internal_errors_are_contained(tree: Path, monkeypatch) -> None:
    import autojit.pipeline

    real = autojit.pipeline.convert_source

    def flaky(text, filename="<string>", **kwargs):
        if filename.endswith("a.py"):
            raise RuntimeError("boom")
        return real(text, filename, **kwargs)

    monkeypatch.setattr(autojit.pipeline, "convert_source", flaky)
    (tree / "b.py").write_text(SOURCE)
    r = run("convert", str(tree / "a.py"), str(tree / "b.py"))
    assert r.exit_code == 2
    assert f"{tree / 'a.py'}:1:1: E000 internal error: RuntimeError: boom" in r.stderr
    assert (tree / "a.py").read_text() == SOURCE
    assert CONVERTED_LINE in (tree / "b.py").read_text()


def test_output_that_does_not_parse_is_never_written(tree: Path, monkeypatch) -> None:
    import autojit.pipeline

    real = autojit.pipeline.convert_source

    def broken(text, filename="<string>", **kwargs):
        c = real(text, filename, **kwargs)
        c.text = c.text.replace("x.at[i].set(y)", "x.at[i].set(y")
        return c

    monkeypatch.setattr(autojit.pipeline, "convert_source", broken)
    r = run("convert", str(tree / "a.py"))
    assert r.exit_code == 2 and "does not parse" in r.stderr
    assert (tree / "a.py").read_text() == SOURCE


def test_imports_are_added_after_a_try_import_block(tmp_path: Path) -> None:
    p = tmp_path / "t.py"
    p.write_text(
        "try:\n    import numpy as np\nexcept ImportError:\n    np = None\n\n\n"
        "def h(x, i, y):\n    x[i] = y\n    return x\n"
    )
    r = run("convert", "--all-functions", "--add-jit", str(p))
    assert r.exit_code == 0, r.output
    text = p.read_text()
    assert text.startswith("try:\n    import numpy as np\nexcept ImportError:\n    np = None\n")
    assert "@jax.jit\ndef h(x, i, y):\n    x = x.at[i].set(y)\n" in text
    got = _load(text)["h"](np.zeros(3, np.float32), 1, 2.0)
    np.testing.assert_allclose(np.asarray(got), [0, 2, 0])


# -- probe 20: line ends, where imports go, codes, positions ------------------------------

LOOP = "def f(x, n):\n    for i in range(n):\n        x = x + jnp.sin(x)\n    return x\n"


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


def test_a_string_with_a_form_feed_or_u2028_keeps_its_text(tmp_path):
    """A statement rewritten around one that does not start its line (`k = 1; s = "..."`) was
    re-split with `str.splitlines`, which breaks at U+2028 and form feeds inside strings: the
    triple-quoted string got a newline instead (silent), the plain one no longer parsed."""
    import ast

    for text in ('"""a\u2028b"""', '"a\x0cb"', "'a\x85b'"):
        p = tmp_path / "m.py"
        src = (
            "import jax.numpy as jnp\n\n\ndef f(x, n):\n    for i in range(n):\n"
            f"        k = 1; s = {text}\n        x = x + jnp.sin(x) * len(s) * k\n    return x\n"
        )
        _write(p, src)
        r = run("convert", "-q", str(p))
        assert r.exit_code == 0, r.output
        new = p.read_bytes().decode("utf-8")
        assert "fori_loop" in new
        strings = [
            c.value
            for c in ast.walk(ast.parse(new))
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
        assert ast.literal_eval(text) in strings, new


def test_a_diff_around_a_form_feed_applies(tmp_path):
    p = tmp_path / "ff.py"
    _write(p, "import jax.numpy as jnp\n\x0c\n" + LOOP)
    r = run("convert", "--diff", str(p))
    assert r.exit_code == 0 and "\\ No newline" not in r.stdout, r.stdout
    if shutil.which("patch"):
        patched = subprocess.run(
            ["patch", "--dry-run", str(p)], input=r.stdout, capture_output=True, text=True
        )
        assert patched.returncode == 0, patched.stdout + patched.stderr


def test_import_goes_after_the_first_jax_import_not_after_a_main_block(tmp_path):
    """`import jax` after the last import of the file ended up below an `if __name__ ==
    "__main__":` block that calls the function (NameError when run as a script); it goes at
    the end of the block of imports that imports jax.numpy, where jax is imported already (so
    an environment variable set before that import is still read by jax)."""
    p = tmp_path / "script.py"
    src = (
        "import os\nos.environ['JAX_ENABLE_X64'] = '0'\nimport jax.numpy as jnp\n"
        "import numpy as np\n\n\n" + LOOP + "\n\nif __name__ == '__main__':\n    import sys\n"
        "    print(np.asarray(f(jnp.ones(3), int(sys.argv[1]))).tolist())\n"
    )
    _write(p, src)
    assert run("convert", "-q", str(p)).exit_code == 0
    new = p.read_text()
    head = "import os\nos.environ['JAX_ENABLE_X64'] = '0'\nimport jax.numpy as jnp\nimport numpy as np\n"
    assert new.startswith(head + "import jax\n"), new
    out = subprocess.run([sys.executable, str(p), "2"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_import_without_any_in_the_file_goes_below_the_shebang_and_coding_line(tmp_path):
    p = tmp_path / "tool.py"
    _write(p, "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + LOOP)
    r = run("convert", "-q", "--all-functions", str(p))
    assert r.exit_code == 0, r.output
    new = p.read_text()
    assert new.startswith("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport jax\n"), new
    compile(new, str(p), "exec")


@pytest.mark.parametrize("code", ["AJ209", "AJ999", "AJ0"])
def test_a_select_code_that_names_no_rule_is_an_error(tmp_path, code):
    p = tmp_path / "m.py"
    _write(p, "import jax.numpy as jnp\n\n\n" + LOOP)
    for option in ("--select", "--ignore"):
        r = run("convert", option, code, str(p))
        assert r.exit_code == 2 and "names no rule" in r.output, r.output
    assert p.read_text() == "import jax.numpy as jnp\n\n\n" + LOOP
    assert run("convert", "--diff", "--select", "AJ2", str(p)).exit_code == 0


def test_a_bad_byte_in_a_file_of_cr_line_ends_is_reported_on_its_line(tmp_path):
    p = tmp_path / "cr.py"
    p.write_bytes(b"import jax.numpy as jnp\r\rdef f(x):\r    s = '\xe9'\r    return x\r")
    r = run("convert", str(p))
    assert r.exit_code == 2
    assert f"{p}:4:10: E902" in r.output, r.output


@pytest.mark.parametrize(
    "src,name",
    [
        ("import jax.numpy as jnp\nfrom jax import lax\n\n\ndef f(x, n, lax):\n" + LOOP[13:], "lax"),
        ("import jax.numpy as jnp\njax = 'config'\n\n\n" + LOOP, "jax"),
        (
            "import jax.numpy as jnp\n\n\ndef f(x, n):\n    jax = 3\n    for i in range(n):\n"
            "        x = x + jnp.sin(x)\n    return x, jax\n",
            "jax",
        ),
    ],
    ids=["parameter", "module-assignment", "local-assignment"],
)
def test_a_function_that_binds_the_name_of_jaxs_module_is_left_as_it_is(src, name):
    """The generated `lax.fori_loop(...)` read the function's own `lax` (a parameter, a local,
    a module assignment that is not jax's import): AttributeError at run time. Refused now
    (AJ922), the text left as it is."""
    c = autojit.convert_source(src, "m.py", all_functions=True)
    (r,) = [r for r in c.refusals if r.code == "AJ922"]
    assert f"`{name}`" in r.reason and r.location.line == src[: src.index("def f")].count("\n") + 1
    assert c.text == src and not c.changes


def test_jaxs_module_imported_inside_the_function_is_not_a_taken_name():
    src = (
        "def f(x, n):\n    import jax.numpy as jnp\n    for i in range(n):\n"
        "        if x[0] > 0:\n            x = jnp.sin(x)\n    return x\n"
    )
    c = autojit.convert_source(src, "m.py", all_functions=True)
    assert "AJ922" not in {r.code for r in c.refusals} and c.changes, c.refusals


def test_trailing_blanks_of_a_replaced_statement_do_not_trail_the_new_line(tmp_path):
    p = tmp_path / "t.py"
    p.write_bytes(
        b"import jax.numpy as jnp\n\n\ndef f(x, n):\n    for i in range(n):\n"
        b"        x = x + jnp.sin(x)  \t\n    return x\n"
    )
    assert run("convert", "-q", str(p)).exit_code == 0
    lines = p.read_bytes().decode().split("\n")
    call = next(ln for ln in lines if "fori_loop" in ln)
    assert call == call.rstrip(), repr(call)
    assert "        x = x + jnp.sin(x)  \t" in lines  # (the user's own line, copied as it is)


def test_names_bound_only_in_an_inner_scope_are_not_taken(tmp_path):
    """AJ922 looks at the scope the generated code runs in and those around it: a nested
    function's parameter `lax`, a comprehension's `jnp`, a lambda's are not the function's."""
    for inner in (
        "    def g(lax):\n        return lax\n",
        "    k = [jnp for jnp in range(3)]\n",
        "    g = lambda jnp: jnp + 1\n",
    ):
        src = "import jax.numpy as jnp\nfrom jax import lax\n\n\n" + LOOP.replace(
            "def f(x, n):\n", "def f(x, n):\n" + inner
        )
        c = autojit.convert_source(src, "m.py", all_functions=True)
        assert "AJ922" not in {r.code for r in c.refusals} and "fori_loop" in c.text, inner


def test_add_jit_import_goes_above_the_first_definition(tmp_path):
    """`@jax.jit` runs when the function is defined: an import of jax at the file's end cannot
    serve it (NameError at import); the new import goes at the top."""
    p = tmp_path / "m.py"
    _write(p, LOOP.replace("jnp.sin", "jax.numpy.sin") + "\n\nimport jax.numpy as jnp\n")
    assert run("convert", "-q", "--add-jit", "--all-functions", str(p)).exit_code == 0
    new = p.read_text()
    assert new.index("import jax\n") < new.index("def f"), new
    subprocess.run([sys.executable, str(p)], check=True, capture_output=True)
