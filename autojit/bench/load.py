"""Load the function to benchmark, and its converted twin.

``autojit bench FILE::FUNC`` imports the user's module from its path (bench runs user code;
``convert`` never does), converts the file's text with ``convert_source(text, only=[FUNC])``
and executes the converted module text in a fresh module namespace beside the original file.
From Python, :func:`convert_function` converts a live function and compiles the new text in
the function's own globals (and a snapshot of its closure).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import itertools
import linecache
import os
import sys
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Conversion, FunctionConversion

_counter = itertools.count()


class LoadError(Exception):
    """A FILE::FUNC that cannot be found, imported or converted."""


@dataclass
class Target:
    """The original function, the converted one, and what the conversion did."""

    name: str
    original: Callable[..., Any]
    converted: Callable[..., Any] | None
    conversion: FunctionConversion | None
    module: types.ModuleType | None = None
    path: str | None = None
    error: BaseException | None = None  # why there is no converted function
    reference: Callable[..., Any] | None = None  # a hand-written JAX version, if any


def split_target(target: str) -> tuple[str, str]:
    """``"path/to/file.py::func"`` -> (path, "func")."""
    if "::" not in target:
        raise LoadError(f"expected FILE::FUNC, got {target!r}")
    path, _, func = target.rpartition("::")
    if not path or not func:
        raise LoadError(f"expected FILE::FUNC, got {target!r}")
    return path, func


def _with_path(directory: str) -> Any:
    """Put the user's directory on sys.path (and leave it there: functions may import their
    sibling modules when they run, not only at import time)."""

    class _Ctx:
        def __enter__(self) -> None:
            if directory not in sys.path:
                sys.path.insert(0, directory)

        def __exit__(self, *exc: object) -> None:
            pass

    return _Ctx()


def import_file(path: str) -> types.ModuleType:
    """Import the user's module from its path (its directory is on sys.path meanwhile)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise LoadError(f"no such file: {path}")
    stem = os.path.splitext(os.path.basename(path))[0]
    modname = f"_autojit_bench_{stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    with _with_path(os.path.dirname(path)):
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(modname, None)
            raise LoadError(f"importing {path} raised {type(e).__name__}: {e}") from e
    return module


def exec_text(text: str, path: str, suffix: str = "autojit") -> types.ModuleType:
    """Execute module text in a fresh module that sits beside ``path`` (same directory, same
    ``__file__``), as if it were that file."""
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    modname = f"_autojit_bench_{stem}_{suffix}_{next(_counter)}"
    module = types.ModuleType(modname)
    module.__file__ = path
    sys.modules[modname] = module
    filename = f"{path} (converted by autojit)"
    # the converted text is this module's source: tracebacks and inspect.getsource read it
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    code = compile(text, filename, "exec")
    with _with_path(os.path.dirname(path)):
        try:
            exec(code, module.__dict__)
        except Exception as e:
            sys.modules.pop(modname, None)
            raise LoadError(f"running the converted {path} raised {type(e).__name__}: {e}") from e
    return module


def get_attr_path(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def unwrap_jit(fn: Any) -> Any:
    """The Python function under ``jax.jit`` (and similar JAX wrappers) or ``@autojit.convert``,
    so it can run eagerly and be jitted again by bench; other wrappers are kept."""
    original = getattr(fn, "original", None)
    if callable(original) and isinstance(getattr(fn, "source", None), str):
        fn = original  # an @autojit.convert result: the user's function as written
    seen = 0
    while hasattr(fn, "__wrapped__") and hasattr(fn, "lower") and seen < 10:
        fn = fn.__wrapped__
        seen += 1
    return fn


def load_target(path: str, func: str, *, convert: bool = True) -> Target:
    """Import ``path``, find ``func``, convert the file for it and load the converted twin."""
    from ..pipeline import convert_source

    module = import_file(path)
    try:
        original = unwrap_jit(get_attr_path(module, func))
    except AttributeError:
        names = sorted(
            n for n, v in vars(module).items() if inspect.isfunction(v) and not n.startswith("_")
        )
        raise LoadError(
            f"{path} has no function {func!r}"
            + (f"; functions: {', '.join(names)}" if names else "")
        ) from None
    if not callable(original):
        raise LoadError(f"{path}::{func} is not callable")
    target = Target(func, original, None, None, module, os.path.abspath(path))
    if not convert:
        return target
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        conversion = convert_source(text, path, only=[func])
        fc = conversion.function(func)
    except Exception as e:  # noqa: BLE001 - reported
        target.error = e
        return target
    target.conversion = fc
    try:
        converted_module = exec_text(conversion.text, path)
        target.converted = unwrap_jit(get_attr_path(converted_module, func))
    except Exception as e:  # noqa: BLE001 - reported
        target.error = e
    return target


def _imports_prefix(text: str, first_line: int) -> str:
    """The file's top-level imports before ``first_line``, at their lines, other lines blank."""
    lines = text.splitlines(keepends=True)
    keep: set[int] = set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    for node in tree.body:
        end = node.end_lineno or node.lineno
        if isinstance(node, (ast.Import, ast.ImportFrom)) and end < first_line:
            keep.update(range(node.lineno, end + 1))
    return "".join(
        lines[i - 1] if i in keep and i <= len(lines) else "\n" for i in range(1, first_line)
    )


def _strip_decorators(source: str, name: str, def_line: int) -> ast.Module:
    """Parse the function text, drop its decorators, and number its lines as in the file
    (``def_line`` is the line of its ``def``)."""
    tree = ast.parse(source)
    shift = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            node.decorator_list = []
            shift = def_line - node.lineno
    if shift > 0:
        ast.increment_lineno(tree, shift)
    return tree


def convert_function(fn: Callable[..., Any]) -> Target:
    """Convert a live function: its file's text through ``convert_source(only=[name])``, and the
    new function text compiled in the function's globals, decorators left off."""
    from ..pipeline import convert_source

    original = unwrap_jit(fn)
    name = getattr(original, "__name__", None)
    target = Target(name or repr(fn), original, None, None)
    try:
        path = inspect.getsourcefile(original)
        if path is None or not os.path.isfile(path):
            raise LoadError(f"the source of {name} cannot be found (defined in a REPL?)")
        target.path = path
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        wanted = [name] if name else []
        conversion: Conversion = convert_source(text, path, only=wanted)
        matches = [f for f in conversion.functions if f.name == name]
        if not matches:
            # a nested function: convert it alone, from its own source
            # (after the file's imports, which tell jnp from any other name, and blank lines,
            # so that reported lines are the file's)
            first = original.__code__.co_firstlineno
            src = _imports_prefix(text, first) + textwrap.dedent(inspect.getsource(original))
            conversion = convert_source(src, path, only=wanted)
            matches = [f for f in conversion.functions if f.name == name]
            def_line = matches[0].location.line if matches else first
        else:
            def_line = matches[0].location.line
        if not matches:
            raise LoadError(f"autojit found no function {name!r} in {path}")
        fc = matches[-1] if len(matches) > 1 else matches[0]
        if len(matches) > 1:
            lines = {f.location.line: f for f in matches}
            fc = lines.get(original.__code__.co_firstlineno, fc)
        target.conversion = fc
        new_text = textwrap.dedent(fc.new_text)
        tree = _strip_decorators(new_text, fc.name, def_line)
        namespace: dict[str, Any] = dict(original.__globals__)  # type: ignore[attr-defined]
        closure = getattr(original, "__closure__", None) or ()
        for var, cell in zip(original.__code__.co_freevars, closure, strict=False):
            try:
                namespace[var] = cell.cell_contents
            except ValueError:
                pass
        import jax
        import jax.numpy as jnp

        namespace.setdefault("jax", jax)
        namespace.setdefault("jnp", jnp)
        exec(compile(tree, f"{path} (converted by autojit)", "exec"), namespace)
        target.converted = namespace[fc.name]
    except Exception as e:  # noqa: BLE001 - reported
        target.error = e
    return target
