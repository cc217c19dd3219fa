"""Differential fuzzing of the converters (bounded, for CI; `benchmarks/soak.py N` runs long).

Hypothesis generates a fixed (derandomized) sample of small numeric functions mixing if/elif/else,
ternaries, and/or/not, for and while loops with break/continue/return, item and mask updates,
over traced and static values (``tests/fuzz/generator.py``). Each is converted, and the eager
original (NumPy meaning) is compared with the jitted conversion (``tests/fuzz/oracle.py``).
Every program must end as "converted and equal" or "refused with a rule code".
"""

from __future__ import annotations

import collections
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.fuzz import oracle
from tests.fuzz.generator import Program, cases

EXAMPLES = int(os.environ.get("AUTOJIT_FUZZ_EXAMPLES", "1000"))
# how many of the programs with rewrites also run through `@autojit.convert` (each compiles again)
DECORATED = int(os.environ.get("AUTOJIT_FUZZ_DECORATED", "40"))
# how many of them also run on int32, float16, bool, int8 and bfloat16 data (five compiles more)
OTHER_DTYPED = int(os.environ.get("AUTOJIT_FUZZ_OTHER_DTYPED", "80"))


def _sampled(strategy: Any, examples: int) -> list[tuple[Program, oracle.Outcome]]:
    """A fixed (derandomized) sample of ``strategy``'s distinct programs, each run through the
    oracle."""
    found: list[tuple[Program, oracle.Outcome]] = []
    seen: set[str] = set()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def sample(program: Program) -> None:
        if program.source in seen:
            return
        seen.add(program.source)
        found.append((program, oracle.run(program.source, program.inputs)))

    with np.errstate(all="ignore"):
        sample()
    return found


@pytest.fixture(scope="module")
def outcomes() -> list[tuple[Program, oracle.Outcome]]:
    return _sampled(cases(), EXAMPLES)


def _summary(outs: list[tuple[Program, oracle.Outcome]], kinds: tuple[str, ...]) -> str:
    counts = collections.Counter(o.kind for _, o in outs)
    lines = [f"{dict(counts)}"]
    shown: set[str] = set()
    for program, o in outs:
        if o.kind in kinds and o.kind not in shown:
            shown.add(o.kind)
            src, ins = oracle.reduce(program.source, program.inputs, o.kind, max_tries=120)
            lines.append(oracle.run(src, ins).report())
            lines += ["# inputs: " + ", ".join(oracle._show(a) for a in args) for args in ins]
    return "\n".join(lines)


def test_sample_is_varied(outcomes: list[tuple[Program, oracle.Outcome]]) -> None:
    assert len(outcomes) >= EXAMPLES // 3
    text = "\n".join(p.source for p, _ in outcomes)
    for construct in ("elif ", " else ", "while ", "for ", "break", "continue", "] = ", "] += "):
        assert construct in text, construct
    kinds = collections.Counter(o.kind for _, o in outcomes)
    assert kinds["converted"] >= len(outcomes) // 3, kinds


def test_generated_programs_are_valid(outcomes: list[tuple[Program, oracle.Outcome]]) -> None:
    """The generator only writes programs that run eagerly (else the oracle tests nothing)."""
    bad = [(p, o) for p, o in outcomes if o.kind == "invalid"]
    assert not bad, bad[0][1].report()


def test_never_wrong_never_crashes(outcomes: list[tuple[Program, oracle.Outcome]]) -> None:
    """No different value/shape/dtype, no rewriter crash, no output that does not parse."""
    kinds = ("wrong", "crash", "unparsable")
    assert not any(o.kind in kinds for _, o in outcomes), _summary(outcomes, kinds)


def test_converted_or_refused(outcomes: list[tuple[Program, oracle.Outcome]]) -> None:
    """Nothing fails under jit without a refusal; converting the output again changes nothing;
    a refused statement is left as it is."""
    assert not any(o.is_bug for _, o in outcomes), _summary(outcomes, oracle.BUGS)


def test_decorator_matches_the_file_conversion(
    outcomes: list[tuple[Program, oracle.Outcome]],
) -> None:
    """Programs with rewrites, through `@autojit.convert` (their module imported from a file):
    the same values, shapes and dtypes as the eager original, and the same converted text and
    static arguments as the file conversion."""
    picked = [p for p, o in outcomes if o.kind == "converted" and o.changes][:DECORATED]
    assert len(picked) >= min(DECORATED, 10)
    with np.errstate(all="ignore"):
        runs = [oracle.run(p.source, p.inputs, decorator=True) for p in picked]
    bad = [o for o in runs if o.is_bug]
    assert not bad, bad[0].report()


def test_oracle_catches_a_wrong_decoration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle's decorator path: a decorated function that changes a value is reported."""
    import autojit

    real = autojit.convert

    def broken(fn: Any) -> Any:
        out = real(fn)

        def shifted(*args: Any) -> Any:
            x, s = out(*args)
            return x, s + 1

        shifted.source = out.source  # type: ignore[attr-defined]
        shifted.static_argnames = out.static_argnames  # type: ignore[attr-defined]
        return shifted

    monkeypatch.setattr(autojit, "convert", broken)
    src = "import jax.numpy as jnp\n\ndef f(x, y, a, k):\n    s = x.sum()\n    return x, s\n"
    x = np.zeros(3, np.float32)
    out = oracle.run(src, [(x, x, np.float32(1), 0)], decorator=True)
    assert out.kind == "decorator-wrong", out.report()


def _break_conversions(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """Make every `autojit.convert_source` write ``new`` where its output has ``old``."""
    import autojit

    real = autojit.convert_source

    def broken(text: str, *args: Any, **kwargs: Any) -> Any:
        conv = real(text, *args, **kwargs)
        conv.text = conv.text.replace(old, new)
        return conv

    monkeypatch.setattr(autojit, "convert_source", broken)


def test_oracle_catches_a_wrong_conversion(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle itself: a conversion that changes a value is reported as `wrong`."""
    _break_conversions(monkeypatch, "s = 0.5", "s = 0.25")
    src = "import jax.numpy as jnp\n\ndef f(x, y, a, k):\n    s = 0.5\n    return x, s\n"
    x = np.zeros(3, np.float32)
    out = oracle.run(src, [(x, x, np.float32(1), 0)])
    assert out.kind == "wrong", out.report()
    assert "0.5" in out.detail and "0.25" in out.detail


def test_never_silently_wrong_on_other_dtypes(
    outcomes: list[tuple[Program, oracle.Outcome]],
) -> None:
    """Programs with rewrites, on int32, float16, bool, int8 and bfloat16 data, against the
    original run eagerly on jax arrays (where it makes no item update): equal, or a loud jit
    error (a carry or `lax.cond` of two dtypes), never a silently other value, shape or dtype.
    (The float32 corpus hid those: a loop start widened to the body's float32 gave bools back
    as floats.)"""
    picked = [(p, o) for p, o in outcomes if o.kind == "converted" and o.changes][:OTHER_DTYPED]
    assert len(picked) >= min(OTHER_DTYPED, 10)
    with np.errstate(all="ignore"):
        runs = [oracle.run(p.source, p.inputs, other_dtypes=True) for p, _ in picked]
    bad = [o for o in runs if o.is_bug]
    assert not bad, bad[0].report()


def test_oracle_catches_a_conversion_wrong_on_other_dtypes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle's other-dtypes path: a conversion right on float32 data that casts an array
    to float32 (what the loops converter did to a start the body widens) is reported as
    `wrong-other-dtype` on int32 and bool data; a Python float that one path leaves where the
    conversion gives float16 (one dtype under jit) is not."""
    _break_conversions(monkeypatch, "s = x.sum()", "s = jnp.float32(x.sum())")
    src = "import jax.numpy as jnp\n\ndef f(x, y, a, k):\n    s = x.sum()\n    return x, s\n"
    x = np.ones(3, np.float32)
    out = oracle.run(src, [(x, x, np.float32(1), 0)], other_dtypes=True)
    assert out.kind == "wrong-other-dtype", out.report()
    assert "int32 data" in out.detail, out.detail
    monkeypatch.undo()
    kept = (
        "import jax.numpy as jnp\n\ndef f(x, y, a, k):\n    s = 0.5\n"
        "    if a > 2:\n        s = x[0]\n    return s\n"
    )
    out = oracle.run(kept, [(x, x, np.float32(1), 0)], other_dtypes=True)
    assert out.kind == "converted", out.report()


RICH_EXAMPLES = int(os.environ.get("AUTOJIT_FUZZ_RICH_EXAMPLES", "600"))


def test_rich_programs_are_converted_or_refused() -> None:
    """The generator's rich constructs (``cases(rich=True)``: augmented and compound-mask item
    updates, slices, aliases and views read after an update, copies, nested defs, int
    ternaries, reversed and dependent loops, loop ``else`` clauses), a fixed sample: every
    program runs eagerly, and ends converted and equal or refused with a rule code (its first
    soaks found an `else:` clause written after the next statement, and an alias missed
    through a function defined twice)."""
    found = _sampled(cases(rich=True), RICH_EXAMPLES)
    text = "\n".join(p.source for p, _ in found)
    for construct in ("] *= ", "else:\n", "def g(v)", "w = ", "[c % n]", "z[", "jnp.array(["):
        assert construct in text, construct
    kinds = collections.Counter(o.kind for _, o in found)
    assert kinds["converted"] >= len(found) // 3, kinds
    assert not any(o.is_bug or o.kind == "invalid" for _, o in found), _summary(
        found, (*oracle.BUGS, "invalid")
    )
