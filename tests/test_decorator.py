"""``@autojit.convert``: differential tests (eager NumPy original vs jitted converted code)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
import textwrap
import traceback
import types
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autojit

HERE = __file__


def line_of(marker: str) -> int:
    """Line number in this file of the line holding ``marker`` (the marker itself excluded)."""
    with open(HERE) as f:
        for i, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return i
    raise AssertionError(marker)


def same(got, want) -> None:
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def eager(fn, *args, **kwargs):
    """The original function run on NumPy copies: NumPy's in-place meaning."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    return fn.original(*args, **kwargs)


def f32(*values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# --------------------------------------------------------------------------------------------
# array updates


@autojit.convert
def item_updates(x, i, y):
    x[i] = y
    x[i + 1] += y * 2.0
    x[0] *= 3.0
    return x


@autojit.convert
def mask_update(x, limit):
    x[x > limit] = 0.0
    x[x < 0.0] -= 1.0
    return x


def test_item_updates_match_numpy():
    x = np.arange(6, dtype=np.float32)
    for i in (0, 1, 3):
        same(item_updates(x, i, np.float32(7.0)), eager(item_updates, x, i, np.float32(7.0)))
    assert {c.code[:3] for c in item_updates.changes} == {"AJ3"}
    assert isinstance(item_updates, type(jax.jit(lambda v: v)))


def test_mask_update_matches_numpy():
    x = f32(-2.0, 1.0, 5.0, 3.0, 9.0)
    for limit in (0.0, 4.0, 100.0):
        same(mask_update(x, np.float32(limit)), eager(mask_update, x, np.float32(limit)))


def test_attributes_and_lower():
    assert item_updates.original.__name__ == "item_updates"
    assert "x.at[" in item_updates.source
    assert "autojit" not in item_updates.source
    assert item_updates.source.startswith("def item_updates(x, i, y):")
    assert item_updates.refusals == []
    lowered = item_updates.lower(np.zeros(4, np.float32), 1, np.float32(2.0))
    assert "scatter" in lowered.as_text()
    assert autojit.to_code(item_updates) == item_updates.source
    assert item_updates.__name__ == "item_updates"
    assert inspect.signature(mask_update) == inspect.signature(mask_update.original)


def test_to_code_of_plain_function():
    def g(x):
        x[1] = 2.0
        return x

    code = autojit.to_code(g)
    assert code.startswith("def g(x):")
    assert "x = x.at[1].set(2.0)" in code


# --------------------------------------------------------------------------------------------
# static arguments


@autojit.convert
def zeros_then_set(n, v):
    z = jnp.zeros(n, dtype=jnp.float32)
    z[0] = v
    return z


def test_static_argument_inference():
    assert zeros_then_set.static_argnames == ("n",)
    assert zeros_then_set.static_argnums == (0,)
    for n in (1, 3, 8):
        out = zeros_then_set(n, np.float32(2.5))
        want = np.zeros(n, np.float32)
        want[0] = 2.5
        same(out, want)


@autojit.convert(static_argnames="mode")
def with_user_static(x, n, mode):
    z = jnp.ones(n, dtype=jnp.float32)
    x[0] = z.sum() if mode == "sum" else z.max()
    return x


def test_user_and_inferred_static_arguments():
    assert set(with_user_static.static_argnames) == {"mode", "n"}
    assert with_user_static.static_argnums == (1, 2)
    x = f32(0.0, 1.0, 2.0)
    same(with_user_static(x, 4, "sum"), f32(4.0, 1.0, 2.0))
    same(with_user_static(x, 4, mode="max"), f32(1.0, 1.0, 2.0))


# --------------------------------------------------------------------------------------------
# globals, closures, defaults, keyword-only arguments, methods, nested functions

SCALE = 2.0


@autojit.convert
def uses_global(x, i):
    x[i] = SCALE
    return x


def test_global_changed_after_decoration_is_seen():
    global SCALE
    old = SCALE
    SCALE = 5.0
    try:
        same(uses_global(np.zeros(3, np.float32), 1), f32(0.0, 5.0, 0.0))
    finally:
        SCALE = old
    assert "jnp" in globals() and globals()["SCALE"] == old


def make_closure(c):
    @autojit.convert
    def inner(x, i, *, scale=2.0, shift=0.0):
        x[i] = c * scale + shift
        return x

    def set_c(v):
        nonlocal c
        c = v

    return inner, set_c


def test_closure_defaults_and_keyword_only():
    inner, set_c = make_closure(3.0)
    x = np.zeros(3, np.float32)
    assert inner.__qualname__ == "make_closure.<locals>.inner"
    set_c(4.0)  # the converted function reads the original's closure cell
    same(inner(x, 0), f32(8.0, 0.0, 0.0))
    same(inner(x, 1, scale=1.0, shift=0.5), f32(0.0, 4.5, 0.0))
    assert inner.original.__kwdefaults__ == {"scale": 2.0, "shift": 0.0}


@autojit.convert
def positional_defaults(x, i=1, y=9.0):
    x[i] = y
    return x


def test_positional_defaults():
    x = np.zeros(3, np.float32)
    same(positional_defaults(x), f32(0.0, 9.0, 0.0))
    same(positional_defaults(x, 2), f32(0.0, 0.0, 9.0))


class Model:
    def __init__(self, value: float) -> None:
        self.value = value

    @autojit.convert(static_argnums=0)
    def put(self, x, i):
        x[i] = self.value
        return x

    @autojit.convert(jit=False)
    def put_eager(self, x, i):
        x[i] = self.value * 2
        return x

    @staticmethod
    @autojit.convert
    def static_put(x, i):
        x[i] = -1.0
        return x

    @autojit.convert(static_argnums=0)
    def private(self, x):
        self.__seen = True
        x[0] = self.__offset()
        return x

    def __offset(self):
        return self.value + 1.0

    @autojit.convert(static_argnums=0)
    def via_super(self, x):
        return super().__hash__() * 0 + x.sum()


def test_methods():
    m = Model(7.0)
    x = np.zeros(3, np.float32)
    same(m.put(x, 2), f32(0.0, 0.0, 7.0))
    same(m.put_eager(jnp.asarray(x), 0), f32(14.0, 0.0, 0.0))
    same(Model.static_put(x, 1), f32(0.0, -1.0, 0.0))
    same(m.via_super(f32(1.0, 2.0)), np.float32(3.0))
    same(m.private(f32(0.0, 2.0)), f32(8.0, 2.0))  # name mangling as in the class
    assert m._Model__seen
    assert Model.put.__qualname__ == "Model.put"


def test_nested_function_and_inner_def():
    def outer(offset):
        @autojit.convert
        def body(x, i):
            def bump(v):
                v[0] = v[0] + offset
                return v

            x[i] = 1.0
            return bump(x)

        return body

    f = outer(2.0)
    same(f(np.zeros(3, np.float32), 1), f32(2.0, 1.0, 0.0))
    assert len(f.changes) == 2


@autojit.convert
@partial(jax.jit, static_argnames="n")
def over_user_jit(x, n):
    z = jnp.zeros(n, dtype=jnp.float32)
    x[0] = z.sum() + n
    return x


@jax.jit
@autojit.convert
def under_user_jit(x, i):
    x[i] = 3.0
    return x


@autojit.convert(static_argnames="k")
def countdown(x, k):
    if k == 0:
        return x
    x[k] = k
    return countdown(x, k - 1)


def test_stacked_with_user_jit_and_self_recursion():
    x = np.zeros(3, np.float32)
    same(over_user_jit(x, 4), f32(4.0, 0.0, 0.0))
    assert over_user_jit.static_argnames == ("n",)
    assert over_user_jit.source.startswith("@partial(jax.jit")
    same(under_user_jit(x, 1), f32(0.0, 3.0, 0.0))
    same(countdown(x, 2), f32(0.0, 1.0, 2.0))  # calls itself by its global name


def test_code_names_are_the_originals():
    code = item_updates.__wrapped__.__wrapped__.__code__
    assert code.co_name == "item_updates"
    assert code.co_qualname == "item_updates"
    assert code.co_filename == HERE
    assert code.co_firstlineno == line_of("def item_updates(")


# --------------------------------------------------------------------------------------------
# helpers: converted recursively, once each, at the first call


def helper_sets_first(x):
    x[0] = 1.0
    return x


@autojit.do_not_convert
def helper_left_alone(x):
    x[0] = 1.0
    return x


@autojit.convert
def calls_helper(x):
    x = helper_sets_first(x)
    x[1] = 5.0
    return x * 2.0


@autojit.convert
def calls_opted_out(x):
    return helper_left_alone(x)


@autojit.convert
def calls_later_helper(x):
    return defined_after(x) + 1.0


def defined_after(x):
    y = helper_sets_first(x)
    y[-1] += 10.0
    return y


def test_helper_converted_recursively():
    x = f32(0.0, 0.0, 3.0)
    same(calls_helper(x), f32(2.0, 10.0, 6.0))
    # the module is not changed: the helper is the user's own function still
    assert globals()["helper_sets_first"].__code__.co_firstlineno == line_of(
        "def helper_sets_first"
    )
    with pytest.raises(TypeError):
        helper_sets_first(jnp.asarray(x))


def test_helper_defined_after_decorated_function():
    same(calls_later_helper(f32(0.0, 0.0, 3.0)), f32(2.0, 1.0, 14.0))


def test_do_not_convert_helper_is_left_alone():
    with pytest.raises(TypeError, match="immutable"):
        calls_opted_out(f32(0.0, 1.0))


def test_helper_in_module_without_jnp(tmp_path):
    # The rewrite of the mask update needs jnp, which the module does not import: the
    # converted code gets it without the module being changed.
    path = tmp_path / "aj_user_mod.py"
    path.write_text(
        textwrap.dedent(
            """\
            import autojit

            def clip_helper(x, limit):
                x[x > limit] = 0.0
                return x

            @autojit.convert
            def top(x):
                return clip_helper(x, 1.0)
            """
        )
    )
    spec = importlib.util.spec_from_file_location("aj_user_mod", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["aj_user_mod"] = mod
    try:
        spec.loader.exec_module(mod)
        before = set(vars(mod))
        same(mod.top(f32(0.5, 2.0, 1.0, 3.0)), f32(0.5, 0.0, 1.0, 0.0))
        assert set(vars(mod)) == before
        assert "jnp" not in vars(mod)
    finally:
        del sys.modules["aj_user_mod"]


def _import_user_module(tmp_path, name: str, text: str) -> types.ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]
    return mod


STATIC_THROUGH_HELPERS = """\
import jax.numpy as jnp
import autojit

def ones(k):
    return jnp.ones(k)

def direct(x, n):
    return ones(n) * x[0]

def derived(x, n):
    m = n + 1
    return ones(m) * x[0]

@autojit.convert
def decorated_before_its_helpers(x, n):
    return middle(x, n)

def middle(x, n):
    # a comment at column 0 inside the body does not end it
# (like this one)
    return x[0] + lowest(n)

def lowest(k):
    if k > 2:
        return jnp.ones(k).sum()
    return jnp.zeros((k,)).sum()
"""


def test_static_arguments_are_inferred_through_module_helpers(tmp_path):
    # `n` is a shape only inside a helper (two levels down, or defined below the decorated
    # function): the decorator infers it static, as a file conversion does
    mod = _import_user_module(tmp_path, "aj_static_helpers", STATIC_THROUGH_HELPERS)
    text = (tmp_path / "aj_static_helpers.py").read_text()
    by_file = autojit.convert_source(text, "m.py", all_functions=True)
    x = f32(2.0, 5.0)
    for name in ("direct", "derived"):
        converted = autojit.convert(getattr(mod, name))
        assert converted.static_argnames == by_file.function(name).static_argnames == ("n",)
        for n in (1, 3):
            same(converted(x, n), getattr(mod, name)(x, n))
    f = mod.decorated_before_its_helpers
    assert f.static_argnames == ("n",)
    for n in (1, 2, 3, 4):
        same(f(x, n), f.original(x, n))


STALE_SOURCE = """\
import autojit

@autojit.convert
def f(x):
    if x[0] > 0:
        x = x * 2.0
    return x
"""


def test_reloaded_module_is_converted_from_its_new_text(tmp_path, monkeypatch):
    # the module edited, then reloaded (importlib.reload, IPython's autoreload): the text
    # converted is the new one, not lines read before the edit
    import importlib
    import os

    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "aj_reloaded.py"
    path.write_text(STALE_SOURCE)
    import aj_reloaded as mod  # type: ignore[import-not-found]

    try:
        x = f32(1.0, 2.0)
        same(mod.f(x), f32(2.0, 4.0))
        path.write_text(STALE_SOURCE.replace("x * 2.0", "x * 100.0"))
        os.utime(path, (1, 1))  # (a new stat, whatever the clock's resolution)
        importlib.reload(mod)
        same(mod.f(x), f32(100.0, 200.0))
        assert "100.0" in mod.f.source
    finally:
        sys.modules.pop("aj_reloaded", None)


def test_source_edited_after_import_is_not_converted(tmp_path, monkeypatch):
    # the file changed after the import, not reloaded: its text is not the code that runs, so
    # converting it would run other code; the function is left as it is, with a warning
    import os

    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "aj_edited.py"
    path.write_text(STALE_SOURCE.replace("@autojit.convert\n", ""))
    import aj_edited as mod  # type: ignore[import-not-found]

    try:
        path.write_text(STALE_SOURCE.replace("@autojit.convert\n", "").replace("2.0", "100.0"))
        os.utime(path, (1, 1))
        with pytest.warns(autojit.ConversionWarning, match="does not compile to the code"):
            converted = autojit.convert(mod.f)
        assert converted.changes == [] and converted.source == ""
        with pytest.raises(jax.errors.TracerBoolConversionError):
            converted(f32(1.0, 2.0))  # the imported code, as written: loud under jit
    finally:
        sys.modules.pop("aj_edited", None)


def a_generator(x):
    for i in range(3):
        yield x[i]


async def a_coroutine(x):
    return x


@pytest.mark.parametrize("fn,kind", [(a_generator, "generator"), (a_coroutine, "async")])
def test_generators_and_coroutines_are_refused_at_decoration(fn, kind):
    with pytest.raises(autojit.ConversionError, match=f"it is an? {kind}"):
        autojit.convert(fn)


def zeros_of_size(x, n):
    out = jnp.zeros(n)
    out[0] = x[0]
    return out


def test_converting_a_converted_function_keeps_its_static_arguments():
    once = autojit.convert(zeros_of_size)
    twice = autojit.convert(once)
    assert once.static_argnames == twice.static_argnames == ("n",)
    assert twice.original is zeros_of_size
    same(twice(f32(3.0, 4.0), 3), f32(3.0, 0.0, 0.0))


def index_as_a_shape(x, n):
    out = x
    for i in range(n):
        out = out + jnp.zeros(i + 1).sum()  # the index is a shape here
    return out


def test_lines_named_in_messages_are_the_files():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = autojit.convert(index_as_a_shape)
    line = line_of("jnp.zeros(i + 1).sum()  # the index is a shape here")
    (refusal,) = [r for r in converted.refusals if r.code == "AJ934"]
    assert f"line {line}:" in refusal.reason
    assert any(f"line {line}:" in str(w.message) for w in caught)


CONSTANTS_BELOW = """\
import jax.numpy as jnp
import autojit


@autojit.convert
def f(x):
    if MODE == "train":
        x = x * 2.0
    for i in range(N):
        x = x + jnp.sin(x)
    return x * SCALE


MODE = "train"
N = 3
SCALE = 3.0
"""


def test_module_constants_assigned_below_are_read_as_the_file_conversion_reads_them(tmp_path):
    # (the decoration runs before `N = 3`: the file's text tells what it is, as for the CLI)
    mod = _import_user_module(tmp_path, "aj_constants_below", CONSTANTS_BELOW)
    text = (tmp_path / "aj_constants_below.py").read_text()
    by_file = autojit.convert_source(text, "m.py").function("f")
    assert [r.code for r in mod.f.refusals] == [r.code for r in by_file.refusals] == ["AJ930"]
    x = f32(0.5, -1.0)
    same(mod.f(x), mod.f.original(x))


def helper_with_index(x, i):
    x[i] = 1.0
    return x


@autojit.convert
def calls_helper_with_index(x):
    return helper_with_index(x, 2)


def test_helper_with_unknown_index_kind():
    # In a helper the analysis cannot tell whether `i` is an integer or a boolean mask.
    same(calls_helper_with_index(f32(0.0, 0.0, 0.0)), f32(0.0, 0.0, 1.0))


def test_closure_helper_converted():
    def outer(offset):
        def local_helper(x):
            x[0] = offset
            return x

        @autojit.convert
        def body(x):
            return local_helper(x) + 1.0

        return body

    same(outer(5.0)(f32(0.0, 0.0)), f32(6.0, 1.0))


def write_package(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_helper_in_another_module_of_the_package(tmp_path, monkeypatch):
    write_package(
        tmp_path,
        {
            "ajpkg/__init__.py": "",
            "ajpkg/util.py": """\
                def put_one(x, i):
                    x[i] = 1.0
                    return x
                """,
            "ajpkg/model.py": """\
                import autojit
                from ajpkg import util
                from ajpkg.util import put_one

                @autojit.convert
                def run(x):
                    return put_one(x, 2) * 3.0

                @autojit.convert
                def run_attribute(x):
                    return util.put_one(x, 0) + 1.0
                """,
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import ajpkg.model

        same(ajpkg.model.run(f32(1.0, 1.0, 0.0)), f32(3.0, 3.0, 3.0))
        same(ajpkg.model.run_attribute(f32(0.0, 1.0, 0.0)), f32(2.0, 2.0, 1.0))
        assert ajpkg.model.util.put_one.__code__.co_filename.endswith("util.py")
    finally:
        for name in [m for m in sys.modules if m == "ajpkg" or m.startswith("ajpkg.")]:
            del sys.modules[name]


def test_conversion_cached_in_pycache(tmp_path, monkeypatch):
    write_package(
        tmp_path,
        {
            "aj_cached_mod.py": """\
                def put(x, i):
                    x[i] = 2.0
                    return x
                """
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("AUTOJIT_CACHE", "1")
    from autojit import decorator

    try:
        import aj_cached_mod

        first = autojit.convert(aj_cached_mod.put)
        entries = list((tmp_path / "__pycache__").glob("aj_cached_mod.autojit.put.*.bin"))
        assert len(entries) == 1
        decorator._memory_cache.clear()
        second = autojit.convert(aj_cached_mod.put)
        assert second.source == first.source and second.changes == first.changes
        same(second(np.zeros(3, np.float32), 1), f32(0.0, 2.0, 0.0))
        # a damaged entry is ignored
        entries[0].write_bytes(b"not marshal")
        decorator._memory_cache.clear()
        third = autojit.convert(aj_cached_mod.put)
        same(third(np.zeros(3, np.float32), 0), f32(2.0, 0.0, 0.0))
    finally:
        sys.modules.pop("aj_cached_mod", None)


def test_pycache_entry_survives_lines_added_above(tmp_path, monkeypatch):
    """Lines added above a function do not make it convert again (the cache key has no line
    numbers), and its code, compiled for where it is now, reports the new lines in tracebacks."""
    body = """\
        def put(x, i):
            x[i] = 2.0
            y = x.reshape(7, 7)  # MARK
            return y
        """
    path = tmp_path / "aj_moved_mod.py"
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("AUTOJIT_CACHE", "1")
    import linecache

    from autojit import decorator

    conversions = []
    real = decorator.convert_source

    def counting(*args, **kwargs):
        conversions.append(args[1] if len(args) > 1 else kwargs.get("filename"))
        return real(*args, **kwargs)

    monkeypatch.setattr(decorator, "convert_source", counting)

    def load_and_fail(above: int) -> tuple[int, int]:
        """Write the module with ``above`` blank lines first, import it afresh, decorate and
        call: (the file line of MARK, the traceback's line in the module)."""
        text = "import jax.numpy as jnp\n" + "\n" * above + textwrap.dedent(body)
        path.write_text(text)
        linecache.checkcache(str(path))
        sys.modules.pop("aj_moved_mod", None)
        decorator._memory_cache.clear()  # as in a new process: only __pycache__ remains
        import aj_moved_mod

        f = autojit.convert(aj_moved_mod.put)
        with pytest.raises(TypeError) as info:
            f(np.zeros(3, np.float32), 1)
        lines = [
            fr.lineno
            for fr in traceback.extract_tb(info.value.__traceback__)
            if fr.filename == str(path)
        ]
        mark = text.splitlines().index("    y = x.reshape(7, 7)  # MARK") + 1
        return mark, lines[-1]

    try:
        mark, seen = load_and_fail(0)
        assert seen == mark and len(conversions) == 1
        mark, seen = load_and_fail(3)
        assert seen == mark and len(conversions) == 1  # from the cache, at the new lines
        mark, seen = load_and_fail(0)
        assert seen == mark and len(conversions) == 1
    finally:
        sys.modules.pop("aj_moved_mod", None)


def zero_first_in_place(u):
    u[0] = 0.0
    return u


def through_own_argument(u):
    u = zero_first_in_place(u)
    return u


@autojit.convert
def reads_after_helper(u):
    zero_first_in_place(u)  # MARK-READS-AFTER
    return u * 2.0


@autojit.convert
def reads_after_chain(a):
    b = through_own_argument(a)  # MARK-READS-AFTER-CHAIN
    return a + b


@autojit.convert
def uses_helper_result(u):
    u = zero_first_in_place(u)
    return u * 2.0


@pytest.mark.parametrize(
    ("fn", "mark"),
    [
        (reads_after_helper, "MARK-READS-AFTER"),
        (reads_after_chain, "MARK-READS-AFTER-CHAIN"),
    ],
)
def test_helper_changing_an_argument_the_caller_reads_after_is_not_bound(fn, mark):
    """A helper that changes its argument in place (NumPy's meaning) would, converted, leave
    the caller that reads that array after the call its old values (a wrong answer before:
    `[2, 4, 6]` for NumPy's `[0, 4, 6]`). It is called as written instead, which fails under
    jit, with AJ908 at the call (also where the array reaches it through another helper)."""
    x = f32(1.0, 2.0, 3.0)
    with pytest.warns(autojit.ConversionWarning, match="AJ908") as caught:
        with pytest.raises(TypeError, match="immutable"):
            fn(x)
    lines = {w.lineno for w in caught if "AJ908" in str(w.message)}
    assert line_of(mark) in lines


def test_helper_changing_an_argument_whose_result_is_used():
    x = f32(1.0, 2.0, 3.0)
    same(uses_helper_result(x), eager(uses_helper_result, x))
    same(uses_helper_result(x), f32(0.0, 4.0, 6.0))


def test_mutual_recursion_terminates():
    @autojit.convert
    def entry(x):
        return ping(x)

    x = f32(5.0, 6.0, 7.0)
    same(entry(x), f32(1.0, 1.0, 1.0))


def ping(x):
    if x.shape[0] == 0:  # static: shapes are known at trace time
        return x
    x[0] = 1.0
    return jnp.concatenate([x[:1], pong(x[1:])])


def pong(x):
    return ping(x)


# --------------------------------------------------------------------------------------------
# errors


def test_no_source_raises_conversion_error():
    namespace: dict = {}
    exec("def made_by_exec(x):\n    x[0] = 1\n    return x\n", namespace)
    with pytest.raises(autojit.ConversionError, match="source is not available"):
        autojit.convert(namespace["made_by_exec"])
    with pytest.raises(autojit.ConversionError, match="lambda"):
        autojit.convert(lambda x: x)
    with pytest.raises(autojit.ConversionError):
        autojit.convert(len)


@autojit.convert
def fails_at_reshape(x, i):
    x[i] = 1.0
    y = x.reshape(7, 7)  # MARK-RESHAPE
    return y


@autojit.convert
def fails_in_rewritten_line(x, i):
    # a comment line
    x[i] = jnp.ones(3)  # MARK-REWRITTEN
    return x


def test_traceback_points_at_original_lines():
    with pytest.raises(TypeError) as info:
        fails_at_reshape(np.zeros(5, np.float32), 1)
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(info.value.__traceback__)]
    assert (HERE, line_of("MARK-RESHAPE")) in frames


def test_error_on_rewritten_line_has_note():
    with pytest.raises(ValueError) as info:
        fails_in_rewritten_line(np.zeros(5, np.float32), 1)
    line = line_of("MARK-REWRITTEN")
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(info.value.__traceback__)]
    assert (HERE, line) in frames
    notes = getattr(info.value, "__notes__", [])
    assert any(f"{HERE}:{line}:" in n and "AJ30" in n for n in notes), notes


@autojit.convert
def branches_of_two_shapes(x, a):
    if a > 0:  # MARK-COND-IF
        y = x.sum()
    else:
        y = x
    return y


@autojit.convert
def returns_of_two_shapes(x, a):
    if a > 0:  # MARK-LIFTED-IF
        return x.sum()
    return x


@autojit.convert
def carry_changes_shape(x, a):
    s = a
    while s.sum() < 10:  # MARK-WHILE
        s = s + x
    return s


class Shapes:
    @staticmethod
    @autojit.convert
    def branch_body_fails(x, a):
        i = 0
        while i < 3:
            if x[i] > a:  # MARK-BODY-IF
                x = x.reshape(7, 7)  # MARK-BODY-RESHAPE
            i += 1
        return x


def _frames_and_notes(call):
    with pytest.raises(TypeError, match="shape") as info:
        call()
    frames = [
        f.lineno for f in traceback.extract_tb(info.value.__traceback__) if f.filename == HERE
    ]
    return frames, getattr(info.value, "__notes__", [])


@pytest.mark.parametrize(
    ("call", "mark", "codes"),
    [
        (lambda: branches_of_two_shapes(f32(1, 2), np.float32(1)), "MARK-COND-IF", ["AJ101"]),
        (
            lambda: returns_of_two_shapes(f32(1, 2), np.float32(1)),
            "MARK-LIFTED-IF",
            ["AJ107", "AJ101"],
        ),
        (lambda: carry_changes_shape(f32(1, 2), np.float32(1)), "MARK-WHILE", ["AJ201"]),
    ],
)
def test_error_of_a_lax_call_points_at_the_statement_it_replaces(call, mark, codes):
    """A shape mismatch jax finds in the `lax.cond` / `while_loop` call that replaced an `if` or
    `while` is reported at the `if` / `while` line, with a note naming each rewrite there (the
    call is the last line of the generated code: it used to be reported at the line after it,
    outside the rewrite, with no note)."""
    frames, notes = _frames_and_notes(call)
    line = line_of(mark)
    assert frames[-1] == line, (frames, line)
    for code in codes:
        assert any(f"{HERE}:{line}:" in n and code in n for n in notes), notes


def test_error_in_a_branch_points_at_its_own_line():
    """An error raised by the user's code inside a branch function (in a method, indented, under
    two decorators) is reported at that code's own line, below the `if` it is in."""
    frames, notes = _frames_and_notes(lambda: Shapes.branch_body_fails(f32(1, 2, 3), np.float32(0)))
    assert frames[-2:] == [line_of("MARK-BODY-IF"), line_of("MARK-BODY-RESHAPE")], frames
    assert any(f"{HERE}:{line_of('MARK-BODY-IF')}:" in n and "AJ101" in n for n in notes), notes


def _virtual_module(name: str, src: str, **globals_: object) -> tuple[str, dict]:
    """Run ``src`` as a module at a file name only linecache knows (its source readable by the
    decorator): (that file name, the module's namespace)."""
    import linecache

    filename = f"/virtual/{name}.py"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    namespace = {"__name__": name, **globals_}
    exec(compile(src, filename, "exec"), namespace)
    return filename, namespace


def test_refusal_is_a_warning():
    src = textwrap.dedent(
        """\
        import numpy as np
        BUFFER = np.zeros(3)

        def writes_global(i):
            BUFFER[i] = 1.0
            return BUFFER
        """
    )
    filename, namespace = _virtual_module("aj_refusal_mod", src)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = autojit.convert(namespace["writes_global"], jit=False)
    assert f.refusals
    hits = [w for w in caught if issubclass(w.category, autojit.ConversionWarning)]
    assert hits and hits[0].filename == filename and hits[0].lineno == 5
    assert "AJ9" in str(hits[0].message)


def test_refusal_warns_once_per_place_like_warnings_warn():
    """A `def` decorated again (a nested function made at each call) warns once under the
    default filter, as `warnings.warn` from that module would, not at each decoration."""
    src = textwrap.dedent(
        """\
        import jax.numpy as jnp

        def make():
            def aliased(x):
                y = x
                x[0] = 1.0
                return x + y
            return aliased
        """
    )
    filename, namespace = _virtual_module("aj_warn_once_mod", src)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            f = autojit.convert(namespace["make"](), jit=False)
    assert f.refusals
    hits = [w for w in caught if issubclass(w.category, autojit.ConversionWarning)]
    assert len(hits) == len(f.refusals), [str(w.message) for w in hits]
    assert hits[0].filename == filename and hits[0].lineno == 6


def test_a_global_whose_module_is_none_is_read():
    """A global the function reads may have `__module__` None (C extension objects, some
    callables): the decorator's header builder called `.startswith` on it and crashed."""

    class NoModule:
        def __call__(self, v):
            return v * 2

    helper = NoModule()
    NoModule.__module__ = None  # type: ignore[assignment]
    src = textwrap.dedent(
        """\
        import jax.numpy as jnp

        def uses_it(x, i):
            x[i] = 1.0
            return HELPER(x)
        """
    )
    _filename, namespace = _virtual_module("aj_none_module_mod", src, HELPER=helper)
    f = autojit.convert(namespace["uses_it"])
    x = np.zeros(3, np.float32)
    np.testing.assert_allclose(f(x, 1), [0.0, 2.0, 0.0])


def test_importing_autojit_does_not_import_jax():
    import subprocess

    code = "import sys, autojit; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------------------
# conditionals (converted by the AJ1xx rules once they exist)


@autojit.convert
def traced_if(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def if_helper(x):
    if x.sum() > 0:
        x = x * 2.0
    return x


@autojit.convert
def calls_if_helper(x):
    return if_helper(x) + 1.0


def _needs_conditionals(fn) -> None:
    if not any(c.code.startswith("AJ1") for c in fn.changes):
        pytest.skip("conditional rewrites (AJ1xx) are not there yet")


def test_traced_if():
    _needs_conditionals(traced_if)
    for x in (f32(1.0, 2.0), f32(-3.0, 1.0)):
        same(traced_if(x), eager(traced_if, x))


def test_traced_if_in_helper():
    if not any(c.code.startswith("AJ1") for c in autojit.convert(if_helper).changes):
        pytest.skip("conditional rewrites (AJ1xx) are not there yet")
    for x in (f32(1.0, 2.0), f32(-3.0, 1.0)):
        want = if_helper(x.copy()) + np.float32(1.0)
        same(calls_if_helper(x), want)


# --------------------------------------------------------------------------------------------
# loops (converted by the AJ2xx rules once they exist)


@autojit.convert
def doubling(x):
    while x.sum() < 100.0:
        x = x * 2.0
    return x


@autojit.convert
def running_sum(x, n):
    for i in range(1, n):
        x[i] += x[i - 1]
    return x


def test_traced_while_loop():
    if not any(c.code.startswith("AJ2") for c in doubling.changes):
        pytest.skip("loop rewrites (AJ2xx) are not there yet")
    for x in (f32(1.0, 2.0), f32(60.0, 50.0)):
        same(doubling(x), eager(doubling, x))


def test_loop_with_item_updates():
    x = f32(1.0, 2.0, 3.0, 4.0)
    for n in (1, 3, 4):
        same(running_sum(x, n), eager(running_sum, x, n))


@pytest.mark.parametrize("cache", ["0", "1"])
def test_a_decorated_function_changing_its_argument_is_checked_against_its_callers(
    tmp_path, monkeypatch, cache
):
    """`@autojit.convert def put(x): x[0] = 7.0; return x`, called `put(y); return y` by
    another function of the module: NumPy's `y` holds 7.0 after the call. The decorator converts
    a function's own text, which shows no caller, and the CLI left decorated functions out of
    the callers check to give the same text: the caller got the old `y` back (silent). Both
    read the module's callers now: refused (AJ908), the update left as written (jit then
    raises), and a caller that uses the returned array (`y = put(y)`) keeps it converted. A
    `__pycache__` entry made for other callers is not reused."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("AUTOJIT_CACHE", cache)
    head = "import jax.numpy as jnp\nimport autojit\n\n\n@autojit.convert\ndef put(x):\n"
    head += "    x[0] = 7.0\n    return x\n\n\n"
    x = np.ones(3, np.float32)
    for k, (caller, refused) in enumerate(
        [("    y = put(y)\n", False), ("    put(y)\n", True), ("    y = put(y)\n", False)]
    ):
        text = head + "def use(x):\n    y = x * 2\n" + caller + "    return y\n"
        # (one module name, the file rewritten: a cache entry is looked up by name and text)
        mod = _import_user_module(tmp_path, "aj_callers_mod", text)
        codes = {r.code for r in mod.put.refusals}
        assert ("AJ908" in codes) is refused, (k, mod.put.refusals)
        cli = autojit.convert_source(text, "m.py", only=["put"]).function("put")
        assert ("AJ908" in {r.code for r in cli.refusals}) is refused
        assert mod.put.source == "".join(
            line for line in cli.new_text.splitlines(True) if "@autojit" not in line
        )
        if refused:
            with pytest.raises(TypeError):
                mod.use(x)  # (loud: the update runs on a jax array)
        else:
            same(mod.use(x), f32(7.0, 2.0, 2.0))
    # wrapped by a call, and handed on as a value: jitted where it is wrapped, its callers use
    # what it returns
    text = (
        "import jax.numpy as jnp\nimport autojit\n\n\ndef put(x):\n    x[0] = 7.0\n"
        "    return x\n\n\nfast = autojit.convert(put)\nputs = [put]\n"
    )
    mod = _import_user_module(tmp_path, "aj_callers_mod", text)
    assert not mod.fast.refusals and "x.at[0].set(7.0)" in mod.fast.source
    same(mod.fast(x), f32(7.0, 1.0, 1.0))


def test_a_helpers_constant_result_tested_with_is_keeps_the_helper_as_written(tmp_path):
    """`def is_big(v): if v.sum() > 10: return True; return False`, and `if is_big(x) is
    True:` in the decorated caller: converted, the helper returns a traced bool, which is never
    `True` itself, so the caller always took the other path (silent; probe E). The CLI refuses
    it (AJ918, the module's callers in view); the decorator calls the helper as written, with a
    warning, and jit then fails loudly."""
    text = (
        "import jax.numpy as jnp\nimport autojit\n\n\ndef is_big(v):\n    if v.sum() > 10:\n"
        "        return True\n    return False\n\n\n@autojit.convert\ndef f(x):\n"
        "    if is_big(x) is True:\n        return x / 10\n    return x\n"
    )
    cli = autojit.convert_source(text, "m.py", all_functions=True)
    assert "AJ918" in {r.code for r in cli.function("is_big").refusals}
    mod = _import_user_module(tmp_path, "aj_identity_mod", text)
    with pytest.warns(autojit.ConversionWarning, match="AJ918"):
        with pytest.raises(Exception, match="TracerBool|concrete|bool"):
            mod.f(np.array([10.0, 20.0], np.float32))


def test_source_is_what_the_cli_writes():
    with open(HERE) as f:
        text = f.read()
    for fn in (doubling, running_sum, item_updates, mask_update):
        name = fn.__name__
        cli = autojit.convert_source(text, HERE, only=[name]).function(name).new_text
        cli = "".join(line for line in cli.splitlines(True) if "@autojit.convert" not in line)
        assert fn.source == cli


# --------------------------------------------------------------------------------------------
# what keeps the decorator fast (behaviour only: no timing here)


def _same_tree(a, b, path: str = "tree") -> None:
    """The same node classes, attributes (in order) and values, recursively."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, list):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _same_tree(x, y, f"{path}[{k}]")
    elif isinstance(a, ast.AST):
        assert list(vars(a)) == list(vars(b)), f"{path}: {list(vars(a))} vs {list(vars(b))}"
        for key, value in vars(a).items():
            _same_tree(value, getattr(b, key), f"{path}.{key}")
    else:
        assert a == b or (a != a and b != b), f"{path}: {a!r} vs {b!r}"


_GAST_SAMPLES = [
    autojit.decorator.__file__,
    autojit.pipeline.__file__,
    ast.__file__,
    inspect.__file__,
    jnp.__file__,
]


@pytest.mark.parametrize("path", _GAST_SAMPLES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_fast_gast_conversion_gives_gasts_trees(path):
    """autojit.gastconv converts as gast does, node for node, both ways."""
    import gast

    from autojit import gastconv

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    mine = gastconv.ast_to_gast(tree)
    _same_tree(gast.ast_to_gast(tree), mine)
    _same_tree(gast.gast_to_ast(mine), gastconv.gast_to_ast(mine))
    # without positions: gast's tree with them deleted
    ref = gast.ast_to_gast(tree)
    for node in gast.walk(ref):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            vars(node).pop(attr, None)
    _same_tree(ref, gastconv.ast_to_gast(tree, positions=False))
    # for unparsing: every node at line 1, the same text
    assert ast.unparse(gastconv.gast_to_ast_line_1(mine)) == ast.unparse(tree)


_CYCLE_FREE = '''
import jax.numpy as jnp

def f(x, y, i, mask, n):
    """Prose with and, or, if."""
    z = jnp.zeros(n)
    x[i] = y
    x[mask] += 1.0
    s = x[mask].sum()
    if s > 0:
        w = x * 2
    else:
        w = x - 1
    return w + z.sum() + s
'''


def test_conversion_leaves_no_reference_cycles():
    """A converted function's tree is freed as soon as the conversion ends, not by the garbage
    collector: a reference cycle (a recursive closure, say) holding the tree makes every
    decoration pay a collection. Array updates, masked reductions and a traced if."""
    import gc

    import gast

    autojit.convert_source(_CYCLE_FREE, "m.py")
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        conv = autojit.convert_source(_CYCLE_FREE, "m.py")
        gc.collect()
        trees = sum(isinstance(o, gast.AST) for o in gc.garbage)
        cycles = sorted({o.__qualname__ for o in gc.garbage if isinstance(o, types.FunctionType)})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert {c.code for c in conv.functions[0].changes} >= {"AJ304", "AJ403"}
    assert any(c.code.startswith("AJ1") for c in conv.functions[0].changes)
    assert trees == 0, f"tree nodes kept in reference cycles by {cycles}"


def test_docstring_prose_does_not_run_converters():
    """The conditionals pass is not run for the words of a docstring (and the output is the
    same as without the docstring)."""
    from autojit import pipeline

    seen: list[str] = []
    original = list(pipeline.CONVERTERS)

    def spy(convert):
        def run(ctx):
            seen.append(convert.__module__.rsplit(".", 1)[-1])
            convert(ctx)

        run.__module__ = convert.__module__
        return run

    text = (
        'def f(x, i):\n    """Set x at i, if and only if not ..."""\n    x[i] = 1.0\n    return x\n'
    )
    triggers = dict(pipeline._TRIGGERS)
    try:
        pipeline.CONVERTERS[:] = [spy(c) for c in original]
        pipeline._TRIGGERS.clear()
        pipeline._TRIGGERS.update(
            {pipeline.CONVERTERS[original.index(c)]: t for c, t in triggers.items()}
        )
        new = autojit.convert_source(text, "m.py", all_functions=True).text
    finally:
        pipeline.CONVERTERS[:] = original
        pipeline._TRIGGERS.clear()
        pipeline._TRIGGERS.update(triggers)
    assert seen == ["array_updates"]
    assert "x.at[i].set(1.0)" in new


@pytest.mark.parametrize("path", _GAST_SAMPLES[:3], ids=lambda p: p.rsplit("/", 1)[-1])
def test_fast_transformer_visits_as_gasts(path):
    """autojit.gastconv.NodeTransformer: the same visits, in order, and the same tree as
    gast.NodeTransformer, with nodes replaced, dropped and expanded into lists."""
    import gast

    from autojit import gastconv

    def transformer(base):
        class Rewrite(base):
            def __init__(self) -> None:
                self.seen: list[str] = []

            def visit_Name(self, node):
                self.seen.append(node.id)
                if node.id.startswith("_"):
                    return gast.Name(
                        id="U" + node.id, ctx=node.ctx, annotation=None, type_comment=None
                    )
                return node

            def visit_Expr(self, node):
                self.generic_visit(node)
                if isinstance(node.value, gast.Constant):
                    return None
                if isinstance(node.value, gast.Call):
                    return [node, gast.Pass()]
                return node

            def visit_Starred(self, node):
                return None

        return Rewrite()

    with open(path, encoding="utf-8") as f:
        text = f.read()
    theirs, mine = transformer(gast.NodeTransformer), transformer(gastconv.NodeTransformer)
    want = theirs.visit(gast.parse(text))
    got = mine.visit(gast.parse(text))
    _same_tree(want, got)
    assert theirs.seen == mine.seen
    assert sorted(map(id, gastconv.walk(got))) == sorted(map(id, gast.walk(got)))


def positions_sample(x, i, mask, k):
    """Rewrites that keep every line in place: updates, a ternary, a lambda on a changed line."""
    x[i] = 1.0
    x[mask] += 2.0  # comment kept
    y = jnp.dot(x, x) if k > 1 else 0.0
    z = [v * 2 for v in (x, x)]
    return x, y, z


def _same_code(a: types.CodeType, b: types.CodeType, path: str) -> None:
    assert a.co_code == b.co_code, path
    assert list(a.co_positions()) == list(b.co_positions()), path
    assert list(a.co_lines()) == list(b.co_lines()), path
    for attr in ("co_name", "co_qualname", "co_firstlineno", "co_names", "co_varnames"):
        assert getattr(a, attr) == getattr(b, attr), (path, attr)
    for x, y in zip(a.co_consts, b.co_consts, strict=True):
        if isinstance(x, types.CodeType):
            _same_code(x, y, f"{path}/{x.co_name}")


def test_code_compiled_from_text_is_the_trees(monkeypatch):
    """A module-level function whose rewrite keeps every line in place is compiled from its
    text, its positions moved afterwards: the same code, positions and line table as compiling
    the line-remapped tree."""
    from autojit import decorator

    monkeypatch.setenv("AUTOJIT_CACHE", "0")
    decorator._memory_cache.clear()
    rec = decorator._Record(positions_sample, (), (), True)
    assert rec.changed and {c.code for c in rec.changes} >= {"AJ304", "AJ104"}
    fast = rec._compile_text()
    assert fast is not None
    rec.tree = None
    monkeypatch.setattr(decorator._Record, "_compile_text", lambda self: None)
    _same_code(fast, rec._compile_code(()), "positions_sample")


def _moved(pos, changed):
    """A position as _moved_positions moves it, one code unit at a time (the specification)."""
    line, end, col, ecol = pos
    if line is None or (line not in changed and end not in changed):
        return pos
    if end == line and col == 0 and ecol == 0:  # a scope's own start
        return pos
    if col is not None and line in changed:
        col = changed[line][0]
    if ecol is not None and end in changed:
        ecol = changed[end][1]
    if end is None:
        end = line
    elif col is not None and ecol is not None and (end < line or (end == line and ecol < col)):
        end, ecol = line, col
    return (line, end, col, ecol)


def test_moved_positions_move_each_position_on_a_changed_line():
    """Every code unit's position, in the code and the code inside it, for random sets of
    changed lines over real functions (multi-line calls, long lines, comprehensions,
    lambdas): moved as specified, the bytecode and line starts kept."""
    import difflib
    import random

    from autojit import decorator, pipeline, render

    rng = random.Random(0)
    codes = [
        v.__code__
        for m in (decorator, pipeline, render, difflib, ast)
        for v in vars(m).values()
        if isinstance(v, types.FunctionType) and v.__module__ == m.__name__
    ]
    assert len(codes) > 100
    for code in codes:
        inner = decorator._all_codes(code)
        lines = sorted({p[0] for c in inner for p in c.co_positions() if p[0] is not None})
        for size in (1, 3, len(lines) // 2, len(lines)):
            chosen = rng.sample(lines, min(size, len(lines)))
            changed = {n: (rng.randint(0, 20), rng.randint(0, 150)) for n in chosen}
            got = decorator._all_codes(decorator._moved_positions(code, changed))
            for a, b in zip(inner, got, strict=True):
                assert b.co_code == a.co_code
                assert list(b.co_lines()) == list(a.co_lines())
                want = [_moved(p, changed) for p in a.co_positions()]
                assert list(b.co_positions()) == want, (a.co_qualname, changed)


def test_line_map_without_difflib_is_difflibs():
    """Line lists of the same length whose differing lines appear nowhere on the other side
    are mapped line by line without difflib: the same map as difflib's opcodes give."""
    import difflib
    import random

    from autojit import decorator

    def by_difflib(first, old, new):
        out = [(first, False)] * len(new)
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            for k in range(j2 - j1):
                if tag == "equal":
                    out[j1 + k] = (first + i1 + k, True)
                elif tag == "replace":
                    out[j1 + k] = (first + i1 + min(k, i2 - i1 - 1), False)
                elif tag == "insert":
                    out[j1 + k] = (first + max(i1 - 1, 0), False)
        return out

    rng = random.Random(1)
    rec = object.__new__(decorator._Record)
    for _ in range(20000):
        alphabet = [f"l{i}\n" for i in range(rng.randint(1, 5))]
        old = [rng.choice(alphabet) for _ in range(rng.randint(1, 10))]
        new = list(old)
        for _ in range(rng.randint(1, 3)):
            new[rng.randrange(len(new))] = rng.choice([*alphabet, "n1\n", "n2\n"])
        if rng.random() < 0.2:
            new.insert(rng.randrange(len(new) + 1), rng.choice(alphabet))
        rec.first_line, rec.lines, rec.new_lines = rng.randint(1, 50), old, new
        assert rec._text_line_map() == by_difflib(rec.first_line, old, new), (old, new)


_LOOPS_CYCLE_FREE = """
def f(x, n, t):
    total = 0.0
    for i in range(n):
        if x[i] > t:
            break
        total = total + x[i]
    k = 0
    while total > t:
        total = total / 2
        k += 1
    if total > 1:
        for j in range(3):
            total = total + j
    return total, k
"""


def test_loop_conversion_leaves_no_reference_cycles():
    """As above, for loops (an early exit under a traced if, a while) and a loop moved into a
    branch function: no recursive closure of autojit's own is left as garbage."""
    import gc

    import gast

    autojit.convert_source(_LOOPS_CYCLE_FREE, "m.py", all_functions=True)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        conv = autojit.convert_source(_LOOPS_CYCLE_FREE, "m.py", all_functions=True)
        gc.collect()
        trees = sum(isinstance(o, gast.AST) for o in gc.garbage)
        cycles = sorted(
            f"{o.__module__}.{o.__qualname__}"
            for o in gc.garbage
            if isinstance(o, types.FunctionType) and o.__module__.startswith("autojit")
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert {c.code for c in conv.functions[0].changes} >= {"AJ201", "AJ202"}
    assert trees == 0
    assert cycles == []


def test_static_methods_and_class_functions_of_the_module_are_converted(tmp_path):
    """`Ops.clip(x)` (a static method) and `Ops.scale(obj, x)` (a function of the class) of a
    class in the user's module: converted like a module helper (a traced `if` in them failed
    with TracerBoolConversionError; probe 19). A class method, bound to its class, is called as
    it is."""
    mod = _import_user_module(
        tmp_path,
        "aj_user_static_methods",
        textwrap.dedent(
            """\
            import autojit

            class Ops:
                @staticmethod
                def clip(x):
                    if x[0] > 1:
                        x = x - 1
                    return x

                def scale(self, x):
                    if x[0] > 1:
                        return x * 2
                    return x

            @autojit.convert
            def f(x):
                return Ops.clip(x) * 2

            @autojit.convert
            def g(x):
                return Ops.scale(None, x)
            """
        ),
    )
    try:
        same(mod.f(f32(3.0, 2.0)), f32(4.0, 2.0))
        same(mod.f(f32(0.0, 2.0)), f32(0.0, 4.0))
        same(mod.g(f32(3.0, 2.0)), f32(6.0, 4.0))
        same(mod.g(f32(0.0, 2.0)), f32(0.0, 2.0))
        # the class itself is left as it was
        assert isinstance(vars(mod.Ops)["clip"], staticmethod)
        same(mod.Ops.clip(f32(3.0, 2.0)), f32(2.0, 1.0))
    finally:
        sys.modules.pop("aj_user_static_methods", None)


def test_class_functions_calling_each_other_and_shadowed_class_names(tmp_path):
    """A converted class function calling another (`A.f` -> `A.g`) failed with a bare
    AssertionError (the alias of `A.g` was name-mangled inside the class); `A.s` where `A` is a
    nested function's parameter or a comprehension's variable was bound to the global `A`'s
    converted function (probe 21): such a function is left to call what its names hold."""
    mod = _import_user_module(
        tmp_path,
        "aj_user_class_calls",
        textwrap.dedent(
            """\
            import autojit

            class A:
                @staticmethod
                def f(x):
                    if x.sum() > 0:
                        return A.g(x) + 1
                    return x

                @staticmethod
                def g(x):
                    if x[0] > 0:
                        return x * 10
                    return x

                @staticmethod
                def s(x):
                    return x * 2

            class B:
                @staticmethod
                def s(x):
                    return x * 3

            @autojit.convert
            def top(x):
                return A.f(x)

            @autojit.convert
            def shadowed(x):
                def inner(A):
                    return A.s(x)
                return A.s(x) + inner(B) + [A.s(x) for A in (B,)][0]
            """
        ),
    )
    try:
        same(mod.top(f32(1.0, -2.0, 3.0)), f32(11.0, -19.0, 31.0))
        same(mod.top(f32(-1.0, -2.0, 0.0)), f32(-1.0, -2.0, 0.0))
        same(mod.shadowed(f32(1.0, 2.0)), f32(8.0, 16.0))
    finally:
        sys.modules.pop("aj_user_class_calls", None)


def test_an_argument_read_only_into_another_argument_is_not_read_after_the_call():
    """`x = h(x, jnp.min(x))`: `jnp.min(x)` is computed before `h` changes `x`, so the
    functional update of `h` keeps NumPy's meaning; it was refused (AJ908), and the refusal
    was not idempotent (soak 13003). `h(x, x[1:])` passes a view: still refused."""
    from tests.fuzz.oracle import run

    head = "import jax.numpy as jnp\n\ndef h(v, b):\n    v[0] += b * 0.5\n    return v\n\n"
    x = np.array([3.0, 1.0, 2.0], np.float32)
    out = run(head + "def f(x):\n    x = h(x, jnp.min(x))\n    return x\n", [(x,)], decorator=True)
    assert out.kind == "converted" and not out.refusals, out.report()
    c = autojit.convert_source(
        head + "def f(x):\n    x = h(x, x[1:])\n    return x\n", "m.py", all_functions=True
    )
    assert "AJ908" in {r.code for r in c.refusals}


REBOUND_HELPERS = '''
import jax.numpy as jnp
import autojit


def helper(v):
    if v[0] > 0:
        v = v * 10
    return v


class Ops:
    @staticmethod
    def clip(v):
        if v[0] > 0:
            v = v + 1
        return v


@autojit.convert
def f(x):
    return helper(x) + 1


@autojit.convert
def g(x):
    return Ops.clip(x) * 2
'''


def test_a_helper_rebound_after_the_first_call_is_read_on_the_next_trace(tmp_path, monkeypatch):
    """A converted function reads its helpers' names when jax traces it, as plain `jax.jit`
    does: a helper rebound after the first call (`mock.patch` in a test) is called on the next
    trace (a new shape). The converted helper was bound for good: [11, 21, 31, 41]."""
    mod = _import_user_module(tmp_path, "aj_rebound_helpers", REBOUND_HELPERS)
    a = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(mod.f(a), [11.0, 21.0, 31.0])
    np.testing.assert_allclose(mod.g(a), [4.0, 6.0, 8.0])
    monkeypatch.setattr(mod, "helper", lambda v: v * 0)
    monkeypatch.setattr(mod.Ops, "clip", staticmethod(lambda v: v * 0))
    b = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_allclose(mod.f(b), [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(mod.g(b), [0.0, 0.0, 0.0, 0.0])
    monkeypatch.undo()  # (the converted helpers again, on a third shape)
    c = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(mod.f(c), [11.0, 21.0])
    np.testing.assert_allclose(mod.g(c), [4.0, 6.0])


NESTED_DECORATED = '''
import jax.numpy as jnp
import autojit


@autojit.convert
def f(x):
    @autojit.convert
    def g(v):
        if v[0] > 0:
            return v + 1
        return v
    return g(x) * 3
'''


def test_a_decorated_def_inside_a_converted_function_gives_no_stale_source_warning(tmp_path):
    """`g` is converted with `f` (its code is autojit's): its own decorator warned that the
    file's text does not compile to the code that runs, "the file changed" (probe 25)."""
    import warnings

    mod = _import_user_module(tmp_path, "aj_nested_decorated", NESTED_DECORATED)
    a = np.array([1.0, -2.0], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_allclose(mod.f(a), [6.0, -3.0])
        np.testing.assert_allclose(mod.f(-a), [-3.0, 6.0])
    assert not [w for w in caught if "does not compile" in str(w.message)], caught


def test_a_jax_transform_s_wrapper_is_refused_with_a_clear_message():
    """`@autojit.convert` above `@jax.grad` (or `autojit.convert(jnp.sum)`) converted jax's own
    wrapper, `reraise_with_filtered_traceback`, warned about jax's file, and the user's `if`
    failed under jit (probe H). It raises ConversionError saying to put it below the
    transform; below it, it works."""

    def loss(x):
        if x.sum() > 0:
            return (x * x).sum()
        return x.sum()

    for wrapped in (jax.grad(loss), jnp.sum):
        with pytest.raises(autojit.ConversionError, match="below the transform"):
            autojit.convert(wrapped)
    same(jax.grad(autojit.convert(loss))(f32(1.0, 2.0)), f32(2.0, 4.0))
    same(jax.grad(autojit.convert(loss))(f32(-1.0, -2.0)), f32(1.0, 1.0))


STATIC_INTO_HELPERS = """\
import jax.numpy as jnp
import autojit

def scale_by(x, n):
    if n > 0:
        return x * ((n * n) / 1e9)
    return x

def head(x, n):
    if x.sum() > 100.0:
        x = x / 2.0
    if n > 2:
        return x[:2]
    return x

@autojit.convert(static_argnames=("n",))
def f(x, n):
    return scale_by(x, n) + head(x, n + 1).sum()

@autojit.convert
def g(x, t):
    return scale_by(x, t)

def even(x, n):
    if n == 0:
        return x
    return odd(x + 1.0, n - 1)

def odd(x, n):
    if n == 0:
        return -x
    return even(x * 2.0, n - 1)

@autojit.convert(static_argnames=("n",))
def run(x, n):
    return even(x, n)
"""


def test_a_static_argument_stays_static_in_the_helpers_it_is_passed_to(tmp_path):
    """Probe H1: the user's `static_argnames` did not reach a helper: its `if n > 0:` became a
    `lax.cond` with `n` an int32 operand (`n * n` wrapped past 2**31, silently), and `if n > 2:
    return x[:2]` a cond whose branches differ in shape (loud, where plain jit ran). A helper
    is converted once for each set of parameters its callers give static values; a caller
    passing a traced value (`g`) gets the conversion that takes it for traced. Mutual
    recursion on a static depth (RecursionError before) is the same case."""
    mod = _import_user_module(tmp_path, "aj_static_into_helpers", STATIC_INTO_HELPERS)
    x = f32(1.0, 2.0, 3.0)
    for n in (50000, 2, 1, 0):
        same(mod.f(x, n), mod.f.original(np.asarray(x), n))
    same(mod.f(f32(200.0, 1.0, 1.0), 3), mod.f.original(np.asarray(f32(200.0, 1.0, 1.0)), 3))
    for t in (3, -1):
        same(mod.g(x, jnp.int32(t)), mod.g.original(x, t))
    assert "jax.lax.cond" in autojit.to_code(mod.scale_by)  # (its own conversion: `n` traced)
    # (mutual recursion on the static depth: every `lax.cond` traced both branches, forever)
    for n in (0, 3, 4):
        same(mod.run(x, n), mod.run.original(x, n))


DECORATED_CALLS_DECORATED = '''
import jax.numpy as jnp
import autojit


@autojit.convert
def helper(x, n):
    s = x[0]
    for i in range(n):
        s = s * 1.5
    return jnp.zeros(n) + s


@autojit.convert
def caller(x, n):
    return helper(x, n) * 2


@autojit.convert
def by_keyword(x, m):
    return helper(x, n=m) + 1
'''


def test_a_decorated_function_passing_its_argument_to_a_decorated_callees_static_one(tmp_path):
    """Probe J, L1 (loud): `caller(x, n)` calling the decorated `helper(x, n)`, whose `n` is
    static (a size), was jitted with `n` traced: helper's jit could not hash it (ValueError:
    Non-hashable static arguments). A parameter passed as it is to a static argument of a
    decorated callee is static in the caller too."""
    mod = _import_user_module(tmp_path, "aj_decorated_calls", DECORATED_CALLS_DECORATED)
    assert mod.helper.static_argnames == ("n",)
    assert mod.caller.static_argnames == ("n",)
    assert mod.by_keyword.static_argnames == ("m",)
    x = np.ones(3, np.float32)
    np.testing.assert_allclose(mod.caller(x, 3), np.full(3, 6.75, np.float32))
    np.testing.assert_allclose(mod.by_keyword(x, 2), np.full(2, 3.25, np.float32))
