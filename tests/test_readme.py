"""The README's example and set-up commands are true."""

import re
from pathlib import Path

import numpy as np

import autojit

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _before_after() -> tuple[str, str]:
    section = README[README.index("## Before and after") : README.index("## Three ways in")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return blocks[0], blocks[1]


def test_readme_after_is_what_convert_writes():
    before, after = _before_after()
    conversion = autojit.convert_source(before, "example.py", all_functions=True)
    assert conversion.text == after
    assert autojit.convert_source(after, "example.py", all_functions=True).text == after


def test_readme_example_runs_the_same_jitted():
    import jax

    before, after = _before_after()
    original: dict = {}
    converted: dict = {}
    exec(compile(before, "before.py", "exec"), original)
    exec(compile(after, "after.py", "exec"), converted)
    x = np.array([0.5, 1.5, 2.5, -1.0], dtype=np.float32)
    mask = x > 1
    cases = {
        "square_or_cube": [(np.int32(3),), (np.int32(4),)],
        "g": [(np.int32(2), np.int32(0)), (np.int32(2), np.int32(5))],
        "recurrence": [(x.copy(), np.float32(0.5), np.float32(1.0))],
        "mask_tensor": [(x.copy(), mask), (x.copy(), np.array([0, 2]))],
    }
    for name, calls in cases.items():
        for args in calls:
            want = np.asarray(original[name](*[np.copy(a) for a in args]))
            got = jax.jit(converted[name])(*args)
            np.testing.assert_allclose(got, want, rtol=1e-6)
            assert got.shape == want.shape


def test_ci_runs_the_readme_test_command():
    setup = README[README.index("## Set-up") : README.index("## Before and after")]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, re.S)
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1].strip() in ci
