"""Editor positions and edits: LSP conversions, `autojit fix`, and the JSON of `check`.

LSP positions are 0-based lines and UTF-16 code units; autojit's are 1-based lines and 1-based
character columns. Every output is checked against a JSON schema of the LSP shapes, and every
quick-fix is applied to the buffer and compared with what `autojit convert` writes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from autojit import convert_source
from autojit.cli import main
from autojit.editor import (
    LineIndex,
    apply_text_edits,
    code_action,
    diagnostic,
    line_edits,
    path_to_uri,
    split_lines,
    uri_to_path,
    utf16_len,
)
from autojit.model import Location

# -- a JSON schema of the LSP shapes autojit produces (LSP 3.17) ------------------------------

UINT = {"type": "integer", "minimum": 0}
POSITION = {
    "type": "object",
    "properties": {"line": UINT, "character": UINT},
    "required": ["line", "character"],
    "additionalProperties": False,
}
RANGE = {
    "type": "object",
    "properties": {"start": POSITION, "end": POSITION},
    "required": ["start", "end"],
    "additionalProperties": False,
}
TEXT_EDIT = {
    "type": "object",
    "properties": {"range": RANGE, "newText": {"type": "string"}},
    "required": ["range", "newText"],
    "additionalProperties": False,
}
DIAGNOSTIC = {
    "type": "object",
    "properties": {
        "range": RANGE,
        "severity": {"type": "integer", "enum": [1, 2, 3, 4]},
        "code": {"type": "string", "pattern": r"^AJ\d{3}$"},
        "codeDescription": {
            "type": "object",
            "properties": {"href": {"type": "string", "pattern": r"^file://.*/rules/AJ\d{3}\.md$"}},
            "required": ["href"],
            "additionalProperties": False,
        },
        "source": {"type": "string", "enum": ["autojit"]},
        "message": {"type": "string", "minLength": 1},
        "data": {"type": "object"},
    },
    "required": ["range", "severity", "code", "codeDescription", "source", "message"],
    "additionalProperties": False,
}
WORKSPACE_EDIT = {
    "type": "object",
    "properties": {
        "changes": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": TEXT_EDIT, "minItems": 1},
        }
    },
    "required": ["changes"],
    "additionalProperties": False,
}
CODE_ACTION = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "pattern": r"^Make `[\w.]+` jittable \(autojit\)$"},
        "kind": {"type": "string", "enum": ["quickfix"]},
        "diagnostics": {"type": "array", "items": DIAGNOSTIC},
        "isPreferred": {"type": "boolean"},
        "edit": WORKSPACE_EDIT,
    },
    "required": ["title", "kind", "diagnostics", "edit"],
    "additionalProperties": False,
}
LINE_EDIT = {  # check --output-format json: a fix edit in both forms
    "type": "object",
    "properties": {
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "text": {"type": "string"},
        "range": RANGE,
        "newText": {"type": "string"},
    },
    "required": ["start_line", "end_line", "text", "range", "newText"],
    "additionalProperties": False,
}
CHECK_FINDING = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["change", "refusal"]},
        "code": {"type": "string", "pattern": r"^AJ\d{3}$"},
        "message": {"type": "string"},
        "doc": {"type": "string", "pattern": r"^rules/AJ\d{3}\.md$"},
        "line": {"type": "integer", "minimum": 1},
        "col": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "end_col": {"type": "integer", "minimum": 1},
        "range": RANGE,
        "fix": {"type": "array", "items": LINE_EDIT},
    },
    "required": [
        *("kind", "code", "message", "doc", "line", "col", "end_line", "end_col", "range"),
        "fix",
    ],
    "additionalProperties": False,
}
CHECK_REPORT = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "error": {"type": ["object", "null"]},
            "findings": {"type": "array", "items": CHECK_FINDING},
        },
        "required": ["path", "error", "findings"],
        "additionalProperties": False,
    },
}

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "boolean": bool,
    "null": type(None),
}


def schema_errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """The ways ``value`` breaks ``schema`` (the subset of JSON Schema used above)."""
    import re

    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        ok = any(
            isinstance(value, _TYPES[t]) and not (t == "integer" and isinstance(value, bool))
            for t in types
        )
        if not ok:
            return [f"{where}: {value!r} is not {types}"]
    out = []
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        out.append(f"{where}: {value} < {schema['minimum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        out.append(f"{where}: too short")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        out.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{where}: missing {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += schema_errors(item, props[key], f"{where}.{key}")
            elif extra is False:
                out.append(f"{where}: unexpected key {key!r}")
            elif isinstance(extra, dict):
                out += schema_errors(item, extra, f"{where}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: fewer than {schema['minItems']} items")
        for i, item in enumerate(value):
            out += schema_errors(item, schema.get("items", {}), f"{where}[{i}]")
    return out


def assert_schema(value: Any, schema: dict[str, Any]) -> None:
    errors = schema_errors(value, schema)
    assert not errors, "\n".join(errors)


def test_the_schema_checker_rejects_bad_shapes() -> None:
    good = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}
    assert_schema({**good, "newText": "x"}, TEXT_EDIT)
    assert schema_errors(good, TEXT_EDIT)  # no newText
    assert schema_errors({**good, "newText": "x", "text": "x"}, TEXT_EDIT)
    bad = {"range": {"start": {"line": -1, "character": 0}, "end": good["range"]["end"]}}
    assert schema_errors({**bad, "newText": ""}, TEXT_EDIT)
    assert schema_errors({"line": True, "character": 0}, POSITION)


# -- position conversions ------------------------------------------------------------------


def pos(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def test_utf16_length() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("é") == 1
    assert utf16_len("𝄞") == 2
    assert utf16_len("s = 'é𝄞'") == 9


def test_positions_with_astral_characters_and_tabs() -> None:
    text = "s = 'é𝄞'\n\tx = 1  # 𝄞\n"
    index = LineIndex(text)
    # offsets are characters; LSP counts UTF-16 units
    assert index.position(text.index("'", 5)) == pos(0, 8)  # after é (1) and 𝄞 (2)
    assert index.position(text.index("x")) == pos(1, 1)  # a tab is one character
    assert index.position(text.index("#") + 2) == pos(1, 10)
    assert index.position(text.index("#") + 3) == pos(1, 12)  # the end of line 1
    for offset in range(len(text) + 1):
        assert index.offset(index.position(offset)) == offset
    # a position inside a surrogate pair moves past the character, never into it
    assert index.offset(pos(0, 7)) == text.index("𝄞") + 1
    # autojit's 1-based character columns
    assert index.lsp_position(1, 8) == pos(0, 8)  # the closing quote: character 8, unit 8
    assert index.lsp_position(1, 9) == pos(0, 9)
    assert index.autojit_position(pos(0, 9)) == (1, 9)
    assert index.autojit_position(pos(1, 1)) == (2, 2)


def test_positions_with_crlf_and_lone_cr() -> None:
    text = "a = 1\r\nb = 'é𝄞'\rc = 3\r\n"
    index = LineIndex(text)
    assert index.line_count == 4
    assert [index.line_text(i) for i in range(4)] == ["a = 1", "b = 'é𝄞'", "c = 3", ""]
    assert index.position(text.index("b")) == pos(1, 0)
    assert index.position(text.index("c")) == pos(2, 0)
    assert index.position(len(text)) == pos(3, 0)
    # a character past the end of its line clamps to the line's end (before the \r\n)
    assert index.offset(pos(0, 99)) == text.index("\r\n")
    assert index.offset(pos(99, 0)) == len(text)
    assert split_lines(text) == ["a = 1\r\n", "b = 'é𝄞'\r", "c = 3\r\n"]


def test_form_feed_and_line_separator_are_not_line_breaks() -> None:
    text = "\x0cx = 'a\u2028b'\ny = 2\n"
    index = LineIndex(text)
    assert index.line_count == 3
    assert index.position(text.index("y")) == pos(1, 0)
    assert split_lines(text) == ["\x0cx = 'a\u2028b'\n", "y = 2\n"]
    assert len(line_edits(text, text.replace("y = 2", "y = 3"))) == 1


def test_location_range() -> None:
    text = "\ts = 'é𝄞'; x[i] = y  # 𝄞\r\n"
    index = LineIndex(text)
    col = text.index("x[") + 1  # autojit: 1-based characters
    loc = Location("m.py", 1, col, 1, col + len("x[i] = y"))
    assert index.location_range(loc) == {"start": pos(0, 12), "end": pos(0, 20)}
    assert index.location_range(Location("m.py", 1, 2)) == {"start": pos(0, 1), "end": pos(0, 1)}


lines_st = st.lists(
    st.text(alphabet=st.sampled_from(["a", " ", "\t", "é", "𝄞", "\x0c"]), max_size=6), max_size=6
)
endings_st = st.sampled_from(["\n", "\r\n", "\r"])


@given(lines_st, lines_st, endings_st)
def test_line_edits_round_trip(old_lines: list[str], new_lines: list[str], nl: str) -> None:
    old = nl.join(old_lines)
    new = nl.join(new_lines)
    edits = line_edits(old, new)
    assert apply_text_edits(old, edits) == new
    lines = split_lines(old)  # the 1-based whole-line form says the same
    for e in sorted(edits, key=lambda e: e["start_line"], reverse=True):
        lines[e["start_line"] - 1 : e["end_line"] - 1] = [e["text"]]
    assert "".join(lines) == new


def test_uris() -> None:
    p = Path("/tmp/some dir/é.py")
    assert path_to_uri(str(p)) == "file:///tmp/some%20dir/%C3%A9.py"
    assert uri_to_path(path_to_uri(str(p))) == str(p)
    assert uri_to_path("untitled:Untitled-1") == "untitled:Untitled-1"


# -- autojit fix --------------------------------------------------------------------------

BUFFER = (
    "import jax.numpy as jnp\n"
    "s = 'é𝄞'\n"
    "\n"
    "\n"
    "def put(x, i, y):\n"
    "\tx = jnp.asarray(x)  # é𝄞\n"
    "\tt = 'é𝄞'; x[i] = y  # keep\n"
    "\treturn x\n"
    "\n"
    "\n"
    "def branch(x):\n"
    "    if jnp.sum(x) > 0:\n"
    "        y = x + 1\n"
    "    else:\n"
    "        y = x - 1\n"
    "    return y\n"
    "\n"
    "\n"
    "class C:\n"
    "    def m(self, x):\n"
    "        x = jnp.asarray(x)\n"
    "        x[0] = 1.0\n"
    "        return x\n"
    "\n"
    "\n"
    "def plain(a):\n"
    "    return a\n"
)


def fix(*args: str, input: str | bytes | None = None, expect: int = 0) -> dict[str, Any] | None:
    r = CliRunner().invoke(main, ["fix", *args], input=input)
    assert r.exit_code == expect, (r.output, r.stderr, r.exception)
    return json.loads(r.stdout) if expect == 0 else None


def converted(text: str, name: str) -> str:
    """What `autojit convert --function NAME -` writes for this buffer."""
    r = CliRunner().invoke(
        main, ["convert", "--function", name, "-", "--stdin-filename", "m.py"], input=text.encode()
    )
    assert r.exit_code == 0, r.stderr
    return r.stdout_bytes.decode("utf-8")


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing ``needle``."""
    return next(i for i, ln in enumerate(split_lines(text), 1) if needle in ln)


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "needle, name",
    [("x[i] = y", "put"), ("if jnp.sum(x)", "branch"), ("x[0] = 1.0", "C.m"), ("def put", "put")],
)
def test_fix_round_trip(tmp_path: Path, nl: str, needle: str, name: str) -> None:
    text = BUFFER.replace("\n", nl)
    path = tmp_path / "m.py"
    path.write_bytes(text.encode())
    line = line_of(text, needle)
    action = fix(str(path), "--line", str(line), "--column", "2")
    assert action is not None
    assert_schema(action, CODE_ACTION)
    assert action["title"] == f"Make `{name}` jittable (autojit)"
    ((uri, edits),) = action["edit"]["changes"].items()
    assert uri == path.resolve().as_uri()
    assert apply_text_edits(text, edits) == converted(text, name)
    # minimal: the edits cover only changed lines of this function (and imports)
    covered = sum(e["range"]["end"]["line"] - e["range"]["start"]["line"] for e in edits)
    assert covered < 6
    codes = {d["code"] for d in action["diagnostics"]}
    assert codes and all(d["source"] == "autojit" for d in action["diagnostics"])
    index = LineIndex(text)
    for d in action["diagnostics"]:
        start = index.offset(d["range"]["start"])
        assert index.line_starts[line_of(text, "def " + name.split(".")[-1]) - 1] <= start


def test_fix_positions_after_astral_characters(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(BUFFER.replace("\n", "\r\n").encode())
    line = line_of(BUFFER, "x[i] = y")
    action = fix(str(path), "--line", str(line))
    assert action is not None
    (diag,) = action["diagnostics"]
    # "\tt = 'é𝄞'; " is 11 characters, 12 UTF-16 units
    assert diag["range"] == {"start": pos(line - 1, 12), "end": pos(line - 1, 20)}
    (edit,) = action["edit"]["changes"][path.resolve().as_uri()]
    assert edit == {
        "range": {"start": pos(line - 1, 0), "end": pos(line, 0)},
        "newText": "\tt = 'é𝄞'; x = x.at[i].set(y)  # keep\r\n",
    }


def test_fix_adds_the_imports_it_needs() -> None:
    text = "import jax.numpy as jnp\n\n\ndef g(x, n):\n    for i in range(n):\n        x = x + jnp.sin(x)\n    return x\n"
    action = fix("-", "--stdin-filename", "m.py", "--line", "5", input=text.encode())
    assert action is not None
    new = apply_text_edits(text, action["edit"]["changes"][path_to_uri("m.py")])
    assert new == converted(text, "g") and "import jax\n" in new
    assert new == convert_source(text, "m.py", only=["g"]).text


def test_fix_from_stdin_uses_the_unsaved_buffer(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def put(x):\n    return x\n")  # the saved file has nothing to fix
    action = fix("-", "--stdin-filename", str(path), "--line", "7", input=BUFFER.encode("utf-8"))
    assert action is not None and action["title"] == "Make `put` jittable (autojit)"
    assert list(action["edit"]["changes"]) == [path.resolve().as_uri()]


def test_fix_only_touches_the_function_at_the_cursor() -> None:
    # `--function f` would also match the method C.f; the quick-fix for f leaves C.f alone
    text = textwrap.dedent(
        """\
        import jax.numpy as jnp


        class C:
            def f(self, x):
                x = jnp.asarray(x)
                x[0] = 1.0
                return x


        def f(x):
            x = jnp.asarray(x)
            x[1] = 2.0
            return x
        """
    )
    action = fix("-", "--line", "13", input=text)
    assert action is not None and action["title"] == "Make `f` jittable (autojit)"
    new = apply_text_edits(text, action["edit"]["changes"]["untitled:-"])
    assert new == text.replace("x[1] = 2.0", "x = x.at[1].set(2.0)")
    assert [d["range"]["start"]["line"] for d in action["diagnostics"]] == [12]


@pytest.mark.parametrize("line", ["5", "9", "10"])
def test_fix_at_column_one_of_a_methods_def_or_decorator_line(line: str) -> None:
    """A method's `def` and decorator lines are indented: `--line N` with the default column 1
    found no function there and printed null (probe 29)."""
    text = (
        "import jax\nimport jax.numpy as jnp\n\nclass M:\n    def apply(self, x):\n"
        "        x[0] = 1.0\n        return x\n\n    @staticmethod\n    def upd(x):\n"
        "        x[1] = 2.0\n        return x\n"
    )
    action = fix("-", "--line", line, input=text)
    name = "M.apply" if line == "5" else "M.upd"
    assert action is not None and action["title"] == f"Make `{name}` jittable (autojit)"


@pytest.mark.parametrize("line", ["1", "3", "19", "27", "500"])
def test_fix_null_when_no_function_or_nothing_to_fix(line: str) -> None:
    # 1: import, 3: blank between functions, 19: `class C:`, 27: `plain` (nothing to fix),
    # 500: past the end
    r = CliRunner().invoke(main, ["fix", "-", "--line", line], input=BUFFER.encode())
    assert r.exit_code == 0 and r.stdout.strip() == "null"


def test_fix_errors() -> None:
    r = CliRunner().invoke(
        main, ["fix", "-", "--stdin-filename", "bad.py", "--line", "1"], input="def f(:\n"
    )
    assert r.exit_code == 2 and "bad.py:1:7: E999 SyntaxError" in r.stderr
    r = CliRunner().invoke(main, ["fix", "/nonexistent/x.py", "--line", "1"])
    assert r.exit_code == 2 and "E902" in r.stderr
    r = CliRunner().invoke(main, ["fix", "-", "--line", "0"], input="")
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["fix", "-"], input="")
    assert r.exit_code == 2 and "--line" in r.stderr


def test_fix_respects_ignore() -> None:
    line = line_of(BUFFER, "x[i] = y")
    r = CliRunner().invoke(
        main, ["fix", "-", "--line", str(line), "--ignore", "AJ3"], input=BUFFER.encode()
    )
    assert r.exit_code == 0 and r.stdout.strip() == "null"


def test_fix_in_a_process_reads_stdin_bytes(tmp_path: Path) -> None:
    text = BUFFER.replace("\n", "\r\n")
    out = subprocess.run(
        [sys.executable, "-m", "autojit", "fix", "-", "--stdin-filename", "m.py", "--line", "22"],
        input=text.encode("utf-8"),
        capture_output=True,
        timeout=120,
        check=True,
    )
    action = json.loads(out.stdout)
    assert_schema(action, CODE_ACTION)
    new = apply_text_edits(text, action["edit"]["changes"][path_to_uri("m.py")])
    assert new == converted(text, "C.m")


# -- check --output-format json uses the same conversions ---------------------------------------


def test_check_json_schema_and_ranges(tmp_path: Path) -> None:
    text = BUFFER.replace("\n", "\r\n")
    path = tmp_path / "m.py"
    path.write_bytes(text.encode())
    r = CliRunner().invoke(main, ["check", "--output-format", "json", str(path)])
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert_schema(report, CHECK_REPORT)
    (entry,) = report
    index = LineIndex(text)
    edits: dict[tuple[int, int], dict[str, Any]] = {}
    for f in entry["findings"]:
        # the LSP range is the 1-based character position, converted
        assert f["range"]["start"] == index.lsp_position(f["line"], f["col"])
        assert f["range"]["end"] == index.lsp_position(f["end_line"], f["end_col"])
        for e in f["fix"]:
            edits[(e["start_line"], e["end_line"])] = e
    item = next(f for f in entry["findings"] if f["line"] == line_of(text, "x[i] = y"))
    assert item["range"]["start"]["character"] == 12
    # all the fixes together give the converted file
    whole = convert_source(text, str(path)).text
    assert apply_text_edits(text, list(edits.values())) == whole


def test_fix_on_a_decorator_line_and_in_a_nested_function() -> None:
    text = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp


        @jax.jit
        def outer(x):
            def inner(y):
                y = jnp.asarray(y)
                y[0] = 1.0
                return y

            return inner(x)
        """
    )
    for line in ("5", "9"):  # the decorator; a line of the nested function
        action = fix("-", "--line", line, input=text)
        assert action is not None and action["title"] == "Make `outer` jittable (autojit)"
        new = apply_text_edits(text, action["edit"]["changes"]["untitled:-"])
        assert new == converted(text, "outer")
        assert "y = y.at[0].set(1.0)" in new


def test_sarif_and_github_columns_count_characters(tmp_path: Path) -> None:
    """The 1-based formats count characters: `\\tt = 'é𝄞'; ` is 11 of them (12 UTF-16 units),
    and the SARIF log says so (its default unit would be UTF-16)."""
    path = tmp_path / "m.py"
    path.write_bytes(BUFFER.encode())
    line = line_of(BUFFER, "x[i] = y")
    r = CliRunner().invoke(main, ["check", "--output-format", "sarif", str(path)])
    (run,) = json.loads(r.stdout)["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    regions = [
        res["locations"][0]["physicalLocation"]["region"]
        for res in run["results"]
        if res["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    ]
    assert [(g["startColumn"], g["endColumn"]) for g in regions] == [(12, 20)]
    r = CliRunner().invoke(main, ["check", "--output-format", "github", str(path)])
    assert f"line={line},col=12,endLine={line},endColumn=20," in r.stdout


def test_fix_rejects_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.py"
    path.write_bytes("s = 'é'\n".encode("latin-1"))
    r = CliRunner().invoke(main, ["fix", str(path), "--line", "1"])
    assert r.exit_code == 2 and f"{path}:1:6: E902 UnicodeDecodeError" in r.stderr


def test_fix_never_imports_jax() -> None:
    code = textwrap.dedent(
        """\
        import json, sys
        from click.testing import CliRunner
        from autojit.cli import main
        r = CliRunner().invoke(main, ["fix", "-", "--line", "7"], input=json.loads(sys.argv[1]))
        assert r.exit_code == 0 and json.loads(r.stdout)["kind"] == "quickfix", r.output
        print(any(m == "jax" or m.startswith(("jax.", "jaxlib")) for m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(BUFFER)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


safe_text = st.text(
    alphabet=st.sampled_from(["a", " ", "\t", "é", "𝄞", "中", "\\"]), max_size=8
).map(
    lambda s: s.replace("\\", "\\\\")  # a backslash, escaped in the string literal
)


@settings(max_examples=30, deadline=None)
@given(safe_text, safe_text, st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["\t", "    "]))
def test_code_action_positions_property(before: str, same_line: str, nl: str, indent: str) -> None:
    """Whatever text comes before the code (on earlier lines and on the same line), the
    diagnostic's UTF-16 position is right and the edits give the converted text."""
    lines = [
        "import jax.numpy as jnp",
        f"s = '{before}'  # {before}",
        "",
        "def put(x, i, y):",
        f"{indent}x = jnp.asarray(x)",
        f"{indent}t = '{same_line}'; x[i] = y  # {same_line}",
        f"{indent}return x",
        "",
    ]
    text = nl.join(lines)
    action = code_action(text, "m.py", {"line": 5, "character": 0}, uri="untitled:m")
    assert action is not None
    assert_schema(action, CODE_ACTION)
    (diag,) = action["diagnostics"]
    prefix = lines[5][: lines[5].index("x[i]")]
    assert diag["range"]["start"] == {"line": 5, "character": utf16_len(prefix)}
    assert diag["range"]["end"] == {"line": 5, "character": utf16_len(prefix + "x[i] = y")}
    new = apply_text_edits(text, action["edit"]["changes"]["untitled:m"])
    assert new == convert_source(text, "m.py", only=["put"]).text
    assert new.count(nl) == text.count(nl)


def test_notes_of_kept_code_are_hints_and_link_their_rule() -> None:
    index = LineIndex("for i in range(3):\n    pass\n")
    loc = Location("f.py", 1, 1, 1, 19)
    note = diagnostic(index, "AJ930", "kept as a Python loop", loc, "refusal")
    refusal = diagnostic(index, "AJ931", "cannot convert", loc, "refusal")
    change = diagnostic(index, "AJ301", "x[i] = y", loc, "change")
    assert (note["severity"], refusal["severity"], change["severity"]) == (4, 3, 2)
    assert note["codeDescription"]["href"].endswith("/AJ930.md")
