"""The examples in `examples/` (the seeds' item-assignment and mask examples): converted, each
function runs jitted with the same values, shapes and dtypes as the original run eagerly on NumPy
inputs, and the converted file's `__main__` block (jax.jit calls that fail on the original) runs.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from differential import assert_same, convert, imports_autojit, load, run_eager, run_jitted

import autojit

EXAMPLES = Path(autojit.__file__).resolve().parent.parent / "examples"
F32, I32 = np.float32, np.int32

rng = np.random.default_rng(0)
X44 = rng.normal(size=(4, 4)).astype(F32)
MASK44 = rng.uniform(size=(4, 4)) < 0.5

INPUTS = {
    "item_assignment.py": {
        "set_first": [(np.arange(0, 8, 2, dtype=I32),), (np.arange(3, dtype=F32),)],
        "add_bonus": [(np.array([10, 20, 30, 40], I32), 7), (np.arange(5, dtype=F32), F32(0.5))],
        "fill_diagonal": [(np.zeros((3, 4), F32), F32(1.5)), (np.ones((2, 2), I32), 9)],
        "one_hot_rows": [(np.array([0, 2, 1], I32), 4)],
        "clamp_borders": [(np.ones((4, 5), F32),), (np.arange(9, dtype=F32).reshape(3, 3),)],
    },
    "mask_tensor.py": {
        "mask_tensor": [(X44, MASK44), (X44, np.array([0, 3], I32)), (X44, MASK44[:, 0])],
        "mask_tensor_numpy_style": [(X44, MASK44), (X44, np.array([1, 1], I32))],
        "relu_in_place": [(X44,), (np.array([-np.inf, np.inf, np.nan, -1.0], F32),)],
        "scale_outliers": [(X44 * 10, F32(5.0)), (np.array([np.inf, 1.0], F32), F32(2.0))],
        "drop_empty_rows": [(np.array([[1, 2], [0, 0], [3, -3]], F32),)],
    },
}


def test_example_files_exist():
    assert set(INPUTS) <= {p.name for p in EXAMPLES.glob("*.py")}


@pytest.mark.parametrize("fname", sorted(INPUTS))
def test_example_converts_cleanly(fname):
    text = (EXAMPLES / fname).read_text(encoding="utf-8")
    c = autojit.convert_source(text, str(EXAMPLES / fname))
    assert c.changed and not c.refusals, c.refusals
    assert not imports_autojit(c.text)
    assert autojit.convert_source(c.text, fname).text == c.text
    converted_names = {f.name for f in c.functions if f.changed}
    assert converted_names == set(INPUTS[fname])


@pytest.mark.parametrize(
    "fname,func",
    [(f, fn) for f, fns in sorted(INPUTS.items()) for fn in fns],
)
def test_example_function_eager_vs_jitted(fname, func):
    text = (EXAMPLES / fname).read_text(encoding="utf-8")
    c = autojit.convert_source(text, fname)
    original = load(text, fname)[func]
    converted = load(c.text, fname)[func]
    statics = c.function(func).static_argnames
    for args in INPUTS[fname][func]:
        assert_same(run_eager(original, args), run_jitted(converted, statics, args))


@pytest.mark.parametrize("fname", sorted(INPUTS))
def test_main_block_fails_before_and_runs_after(fname):
    text = (EXAMPLES / fname).read_text(encoding="utf-8")
    c = convert(text, fname, all_functions=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(Exception) as err:
        exec(compile(text, fname, "exec"), {"__name__": "__main__"})
    assert (
        "immutable" in str(err.value) or "NonConcreteBooleanIndexError" in type(err.value).__name__
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(c.text, fname, "exec"), {"__name__": "__main__"})
    assert out.getvalue().strip()
