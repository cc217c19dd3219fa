"""Every rule file in `rules/` is executed: its `# after` block is the exact conversion of its
`# before` block, and each `# inputs` call gives the same value, shape and dtype for the eager
original (on NumPy copies of the inputs) and the converted function under `jax.jit`.

Refusal files (AJ9xx, no `# after` block) must leave the text unchanged and emit their code; a
line of the `# before` block that ends with the comment `# AJ9xx` is where the refusal must be
reported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from differential import (
    INPUT_ENV,
    assert_same,
    convert,
    imports_autojit,
    load,
    parse_call,
    run_eager,
    run_jitted,
)

import autojit
from autojit import registry

ROOT = Path(autojit.__file__).resolve().parent.parent
RULE_FILES = sorted((ROOT / "rules").glob("*.md"))
RULE_IDS = [p.stem for p in RULE_FILES]


def _rule(path: Path) -> registry.Rule:
    return registry.parse_rule(path.read_text(encoding="utf-8"), path)


def test_catalog_is_not_empty_and_loads():
    registry.reload()
    rules = registry.all_rules()
    assert [r.code for r in rules] == sorted(p.stem for p in RULE_FILES if p.stem.startswith("AJ"))
    for r in rules:
        assert r.name and re.fullmatch(r"[a-z0-9][a-z0-9-]*", r.name), r.name
        assert r.summary, f"{r.code}: no summary paragraph"
        assert registry.rule(r.code.lower()) is r
    with pytest.raises(registry.UnknownRule):
        registry.rule("AJ000")


def test_registry_does_not_import_jax():
    import subprocess
    import sys

    code = (
        "import sys, autojit.registry as r; r.all_rules(); "
        "assert 'jax' not in sys.modules, 'registry imported jax'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("path", RULE_FILES, ids=RULE_IDS)
def test_rule_file_format(path: Path):
    r = _rule(path)
    assert path.stem == r.code
    assert "## Why" in r.text, f"{r.code}: no '## Why' section"
    assert "## Example" in r.text, f"{r.code}: no '## Example' section"
    assert r.before is not None, f"{r.code}: no `# before` block"
    ast.parse(r.before)
    if r.is_refusal:
        assert r.after is None, f"{r.code}: refusals have no `# after` block"


def _marked_lines(code: str, before: str) -> list[int]:
    return [
        i
        for i, line in enumerate(before.splitlines(), start=1)
        if re.search(r"#\s*" + code + r"\s*$", line)
    ]


@pytest.mark.parametrize("path", RULE_FILES, ids=RULE_IDS)
def test_rule_example_converts_exactly(path: Path):
    r = _rule(path)
    before = r.before
    assert before is not None
    c = convert(before, "rule.py")
    if r.after is None:
        assert c.text == before, f"{r.code}: a refusal example must stay unchanged:\n{c.text}"
    else:
        assert c.text == r.after, f"{r.code}: conversion differs from `# after`:\n{c.text}"
        assert r.code in {ch.code for ch in c.changes} or r.is_refusal, (
            f"{r.code} was not among the changes: {c.changes}"
        )
    if r.is_refusal:
        refused = [x for x in c.refusals if x.code == r.code]
        assert refused, f"{r.code} not emitted; refusals: {c.refusals}"
        marked = _marked_lines(r.code, before)
        if marked:
            assert {x.location.line for x in refused} >= set(marked), (
                f"{r.code} expected at lines {marked}, got {[x.location for x in refused]}"
            )
    # the output re-parses, never imports autojit, and converting it again changes nothing
    ast.parse(c.text)
    assert not imports_autojit(c.text)
    again = convert(c.text, "rule.py")
    assert again.text == c.text, f"{r.code}: not idempotent:\n{again.text}"


@pytest.mark.parametrize(
    "path",
    [p for p in RULE_FILES if _rule(p).inputs],
    ids=[p.stem for p in RULE_FILES if _rule(p).inputs],
)
def test_rule_example_runs_the_same_jitted(path: Path):
    r = _rule(path)
    before = r.before
    assert before is not None
    c = convert(before, "rule.py")
    original = load(before, "rule.py")
    converted = load(c.text, "rule.py")
    for line in r.inputs:
        name, args, kwargs = parse_call(line, INPUT_ENV)
        statics = c.function(name).static_argnames
        expected = run_eager(original[name], args, kwargs)
        got = run_jitted(converted[name], statics, args, kwargs)
        try:
            assert_same(expected, got)
        except AssertionError as e:
            raise AssertionError(f"{r.code}: {line}: {e}") from None


def _emitted_codes() -> set[str]:
    """Every `AJxxx` string literal in the converters and analyses (change/refuse/CODES)."""
    codes: set[str] = set()
    for py in (ROOT / "autojit").rglob("*.py"):
        if py.name == "registry.py":
            continue
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                if n.func.attr in ("change", "refuse") and n.args:
                    a = n.args[0]
                    if isinstance(a, ast.Constant) and isinstance(a.value, str):
                        if re.fullmatch(r"AJ\d{3}", a.value):
                            codes.add(a.value)
            if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "CODES" for t in n.targets
            ):
                for e in ast.walk(n.value):
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        if re.fullmatch(r"AJ\d{3}", e.value):
                            codes.add(e.value)
    return codes


def test_every_emitted_code_has_a_rule_file():
    codes = _emitted_codes()
    assert {"AJ301", "AJ302", "AJ303", "AJ304"} <= codes
    missing = sorted(c for c in codes if not (ROOT / "rules" / f"{c}.md").exists())
    assert not missing, f"codes without a rule file: {missing}"


def test_built_package_carries_the_rule_catalog(tmp_path: Path) -> None:
    """A wheel has no checkout: setup.py's build_py copies rules/ into autojit/_rules, and the
    registry of a package without a top-level rules/ next to it reads that copy."""
    import subprocess
    import sys

    root = Path(registry.__file__).resolve().parent.parent
    build = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)],
        cwd=root,
        check=True,
        capture_output=True,
    )
    shipped = sorted(p.name for p in (build / "autojit" / "_rules").glob("AJ*.md"))
    assert shipped == sorted(p.name for p in (root / "rules").glob("AJ*.md"))
    code = (
        "import autojit.registry as r; "
        "print(r.RULES_DIR.name, len(r.all_rules()), r.rule('AJ301').name)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(build), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out == ["_rules", str(len(shipped)), "array-item-assignment"]
