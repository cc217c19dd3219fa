"""``@autojit.convert``: rewrite a function from its source and ``jax.jit`` it.

The function's own source (not the whole file) is converted by
:func:`autojit.convert_source`, then compiled in the original's globals and closure:

- the new code is compiled inside a *factory* function whose parameters are the original's free
  variable names (plus names the rewrite needs that the module lacks, such as ``jnp``, plus the
  converted helpers it calls); the inner code object is taken from the factory's constants and
  turned into a function with the original's ``__globals__``, defaults and closure cells, so
  closures, globals (read live), defaults and keyword-only arguments behave as before and the
  user's module is never touched;
- line numbers of the compiled tree are remapped to the user's file, so tracebacks and JAX
  errors point at the original lines, and an exception leaving converted code gets a note naming
  the rewrite applied at that line;
- functions of the user's own code that the converted function calls are converted too, once
  each, at its first call (they may be defined after it), as AutoGraph does. ``do_not_convert``
  opts a function out.

Importing this module does not import jax: it is imported inside the functions that need it.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import functools
import itertools
import linecache
import marshal
import operator
import os
import re
import sys
import textwrap
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, overload

from .analysis.callers import (
    argument_read_after_call,
    arguments_passed,
    result_tested_by_identity,
)
from .analysis.passed_statics import control_parameters, static_parameters_passed
from .gastconv import ChildFields, walk_nodes
from .model import Change, FunctionConversion, Location, Refusal, StaticArgument
from .pipeline import ConversionError, convert_source

F = TypeVar("F", bound=Callable[..., Any])

_FACTORY = "__autojit_factory__"
_INNER = "__autojit_function__"  # the def's name inside the factory: its own name stays free
_WRAPPER_CLASS = "__autojit_scope__"
_OPT_OUT = "__autojit_do_not_convert__"
_MARK = "__autojit_converted__"
_ASYNC = 0x80 | 0x200  # CO_COROUTINE, CO_ASYNC_GENERATOR
_NOT_A_VALUE = 0x20 | _ASYNC  # and CO_GENERATOR: a call returns no array
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

# Names the rewrites may emit (the default aliases of autojit.converters.base.Names) and the
# modules they stand for, provided to the converted code when the user's module lacks them.
_FALLBACK_MODULES = {"jax": "jax", "jnp": "jax.numpy", "lax": "jax.lax"}
# Where a `from X import name` of a jax function is looked for, to tell the analysis about it.
_JAX_PUBLIC = ("jax.numpy", "jax.lax", "jax", "jax.random", "jax.nn")
_NOT_USER_PACKAGES = {"jax", "jaxlib", "numpy", "autojit", "scipy", "builtins"}


class StaleSourceError(ConversionError):
    """The function's source file no longer holds the code that runs."""


class ConversionWarning(UserWarning):
    """A statement that autojit left as it is (a refusal); the function may not trace."""


# --------------------------------------------------------------------------------------------
# public API


@overload
def convert(fn: F, /) -> F: ...


@overload
def convert(
    fn: None = None,
    /,
    *,
    static_argnames: str | Iterable[str] | None = None,
    static_argnums: int | Iterable[int] | None = None,
    jit: bool = True,
    recursive: bool = True,
    **jit_kwargs: Any,
) -> Callable[[F], F]: ...


def convert(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    static_argnames: str | Iterable[str] | None = None,
    static_argnums: int | Iterable[int] | None = None,
    jit: bool = True,
    recursive: bool = True,
    **jit_kwargs: Any,
) -> Any:
    """Rewrite ``fn`` so that ``jax.jit`` can trace it, and return ``jax.jit`` of the result.

    ``@autojit.convert`` or ``@autojit.convert(static_argnames=..., static_argnums=...,
    jit=True)``. Static arguments are the user's together with the inferred ones. With
    ``jit=False`` the converted plain function is returned. Other keyword arguments go to
    ``jax.jit``. The result has ``.original``, ``.source`` (the converted text),
    ``.static_argnums``, ``.static_argnames``, ``.changes`` and ``.refusals``.
    """
    names = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
    nums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
    user_names = tuple(names or ())
    user_nums = tuple(nums or ())

    def decorate(f: Callable[..., Any]) -> Any:
        return _decorate(f, user_names, user_nums, jit, recursive, jit_kwargs)

    if fn is None:
        return decorate
    return decorate(fn)


def do_not_convert(fn: F) -> F:
    """Leave ``fn`` as it is when a converted function calls it."""
    try:
        setattr(fn, _OPT_OUT, True)
    except (AttributeError, TypeError):
        _opted_out.add(id(fn))
    return fn


def to_code(fn: Callable[..., Any]) -> str:
    """The converted source text of ``fn`` (a plain function or a ``convert`` result)."""
    source = getattr(fn, "source", None)
    if isinstance(source, str) and hasattr(fn, "original"):
        return source
    return _record_for(_plain_function(fn)).source


# --------------------------------------------------------------------------------------------
# decoration


def _decorate(
    f: Callable[..., Any],
    user_names: tuple[str, ...],
    user_nums: tuple[int, ...],
    jit: bool,
    recursive: bool,
    jit_kwargs: dict[str, Any],
) -> Any:
    rewrap: Callable[[Any], Any] | None = None
    if isinstance(f, (staticmethod, classmethod)):
        rewrap = type(f)
        f = f.__func__
    fn = _plain_function(f)
    try:
        rec = _Record(fn, user_names, user_nums, recursive, decorated=True)
    except StaleSourceError as exc:
        # converting other text than what runs would run other code: the function as it is
        code = fn.__code__
        if not _compiled_by_autojit(code):  # (a nested `def` of a converted function is
            # converted with it already: its code is autojit's, not the file's, and no warning)
            _warn(fn, f"{exc}; left as it is", code.co_filename, code.co_firstlineno)
        rec = _Record.unconverted(fn)
    _decorated.add(rec)
    rec.warn_refusals()

    static_names, static_nums = rec.merged_statics(user_names, user_nums)

    def entry(*args: Any, **kwargs: Any) -> Any:
        target = rec.final if rec.final is not None else rec.resolve()
        try:
            return target(*args, **kwargs)
        except BaseException as exc:
            _annotate(exc)
            raise

    functools.update_wrapper(entry, fn)
    entry.__wrapped__ = rec.compiled if rec.compiled is not None else fn  # type: ignore[attr-defined]
    setattr(entry, _MARK, True)
    if jit:
        jax = _import_jax()
        _hide_frames(jax)
        kwargs = dict(jit_kwargs)
        if static_names:
            kwargs["static_argnames"] = static_names
        if static_nums:
            kwargs["static_argnums"] = static_nums
        out: Any = jax.jit(entry, **kwargs)
    else:
        out = entry
    out.original = fn
    out.source = rec.source
    out.static_argnames = static_names
    out.static_argnums = static_nums
    out.changes = list(rec.changes)
    out.refusals = list(rec.refusals)
    return rewrap(out) if rewrap is not None else out


def _warn(fn: types.FunctionType, message: str, filename: str, lineno: int) -> None:
    """A ConversionWarning at ``filename:lineno``, shown as ``warnings.warn`` from ``fn``'s module
    would show it: once per place under the default filter (the module's
    ``__warningregistry__``), not at each decoration of the same ``def`` (a nested function
    made in a loop, say)."""
    g = fn.__globals__
    registry = g.get("__warningregistry__")
    if not isinstance(registry, dict):
        registry = g["__warningregistry__"] = {}
    warnings.warn_explicit(
        message,
        ConversionWarning,
        filename,
        lineno,
        module=fn.__module__,
        registry=registry,
        module_globals=g,
    )


def _plain_function(f: Any) -> types.FunctionType:
    """The Python function behind ``f``: unwraps ``jax.jit`` and ``functools.wraps`` layers."""
    seen = 0
    while not isinstance(f, types.FunctionType) and hasattr(f, "__wrapped__") and seen < 20:
        f = f.__wrapped__
        seen += 1
    if isinstance(f, types.MethodType):
        f = f.__func__
    if not isinstance(f, types.FunctionType):
        raise ConversionError(
            f"autojit cannot convert {f!r}: it is not a Python function defined with `def`"
        )
    if _in_jax(f):
        # (`@autojit.convert` above `@jax.grad`: what it is given is jax's wrapper, whose
        # source is jax's, not the function written below it)
        raise ConversionError(
            f"autojit cannot convert `{f.__qualname__}` ({f.__code__.co_filename}): it is jax's "
            f"own code (the wrapper a jax transform returns, or a jax function); put "
            f"`@autojit.convert` below the transform (`@jax.grad` above `@autojit.convert`), on "
            f"your own `def`"
        )
    original = getattr(f, "original", None)
    if isinstance(original, types.FunctionType) and getattr(f, _MARK, False):
        f = original
    # (the entry or the converted code of an earlier decoration: down to the user's function)
    while getattr(f, _MARK, False) and isinstance(
        getattr(f, "__wrapped__", None), types.FunctionType
    ):
        f = f.__wrapped__
    return f


def _in_jax(f: types.FunctionType) -> bool:
    """Whether ``f``'s code is in the installed jax (or jaxlib) package."""
    filename = f.__code__.co_filename
    return any(filename.startswith(root) for root in _jax_roots())


@functools.cache
def _jax_roots() -> tuple[str, ...]:
    import importlib.util

    roots = []
    for name in ("jax", "jaxlib"):
        spec = importlib.util.find_spec(name)
        for loc in (spec.submodule_search_locations or []) if spec is not None else []:
            roots.append(os.path.join(os.path.realpath(loc), ""))
            roots.append(os.path.join(loc, ""))
    return tuple(roots)


# --------------------------------------------------------------------------------------------
# one converted function


_records: weakref.WeakKeyDictionary[types.FunctionType, _Record] = weakref.WeakKeyDictionary()
# helpers converted with parameters their caller gives static values (`head(x, n)` called with
# the caller's static `n`): function -> those parameters -> the conversion
_specialised: weakref.WeakKeyDictionary[
    types.FunctionType, dict[frozenset[str], _Record]
] = weakref.WeakKeyDictionary()


def _all_records() -> list[_Record]:
    return [
        *_records.values(),
        *(r for made in _specialised.values() for r in made.values()),
        *_decorated,
    ]
_opted_out: set[int] = set()
_failed: set[int] = set()
# decorated functions: alive as long as what the decorator returned
_decorated: weakref.WeakSet[_Record] = weakref.WeakSet()


def _record_for(fn: types.FunctionType) -> _Record:
    rec = _records.get(fn)
    if rec is None:
        rec = _Record(fn, (), (), True)
        _records[fn] = rec
    return rec


def _helper_record(fn: types.FunctionType, static: frozenset[str] = frozenset()) -> _Record | None:
    """The conversion of a helper, made once (once for each set of its parameters that its
    callers give static values: ``static``); None where it cannot be converted."""
    if static:
        made = _specialised.setdefault(fn, {})
        rec = made.get(static)
        if rec is None and id(fn) not in _failed:
            try:
                rec = made[static] = _Record(fn, sorted(static), (), True)
            except Exception:  # (as the helper's own conversion fails: called as it is)
                return _helper_record(fn)
            rec.warn_refusals()
        return rec
    rec = _records.get(fn)
    if rec is not None:
        return rec
    if id(fn) in _failed:
        return None
    try:
        rec = _Record(fn, (), (), True)
    except Exception as exc:  # a helper autojit cannot convert is called as it is
        _failed.add(id(fn))
        if not isinstance(exc, ConversionError):
            code = fn.__code__
            _warn(
                fn,
                f"autojit could not convert `{fn.__qualname__}`, called as it is: {exc!r}",
                code.co_filename,
                code.co_firstlineno,
            )
        return None
    _records[fn] = rec
    rec.warn_refusals()
    return rec


class _Record:
    """The conversion of one function: its source, new code, and the helpers bound into it."""

    def __init__(
        self,
        fn: types.FunctionType,
        user_names: Sequence[str],
        user_nums: Sequence[int],
        recursive: bool,
        decorated: bool = False,
    ) -> None:
        self.fn = fn
        self.recursive = recursive
        self.final: Callable[..., Any] | None = None
        self.cell = types.CellType()
        self.resolving = False
        self.compiled: types.FunctionType | None = None
        self.tree: ast.Module | None = None
        self.codes: set[types.CodeType] = set()
        code = fn.__code__
        self.filename = code.co_filename
        if code.co_flags & _NOT_A_VALUE:
            kind = "an async function" if code.co_flags & _ASYNC else "a generator function"
            raise ConversionError(
                f"autojit cannot convert `{fn.__qualname__}` ({self.filename}:"
                f"{code.co_firstlineno}): it is {kind}, whose call returns no array for "
                f"jax.jit to trace"
            )
        if code.co_name == "<lambda>":
            raise ConversionError(
                f"autojit cannot convert a lambda ({self.filename}:{code.co_firstlineno}): "
                "it has no `def` source; define it with `def`"
            )
        self.first_line, self.lines = _function_lines(fn)
        first = self.lines[0]
        self.indent = first[: len(first) - len(first.lstrip())]
        params = _positional_params(code)
        declared = set(user_names) | {
            params[i] for i in user_nums if -len(params) <= i < len(params)
        }
        if decorated:
            # (jit of this one would pass a traced value where the callee's jit hashes it)
            declared |= _passed_to_static_parameters(fn, self.lines)
        header = _header(fn)
        if self.indent:
            header += f"class {_WRAPPER_CLASS}:\n"
        # (the key leaves out where the function starts: a conversion is the same wherever the
        # lines above it move; the code, compiled at the file's line numbers, is kept by line)
        # (with the code's fingerprint: an entry is found only for the code it was made from,
        # whose source it was checked to be)
        # a decorated module-level function (or method) is checked against the module's
        # callers where it changes its argument in place; a helper, against the functions that
        # call it where they are converted (`_reads_changed_argument`); a nested function's
        # callers are its enclosing function's code, not looked up
        checks_callers = decorated and "<locals>" not in fn.__qualname__
        key = _cache_key(fn, header + ("\0callers" if checks_callers else ""), self.lines, declared)
        entry = _cache_get(key, fn)
        if entry is not None and "callers" in entry:
            if entry["callers"] != _callers_reading(fn, entry["updated"]):
                entry = None  # (made when the module's callers read otherwise)
        fresh = entry is None
        fc: FunctionConversion | None = None
        if entry is None:
            fc, nheader = self._convert(header, declared)
            callers, updated = None, sorted(fc.updated_arguments)
            if updated and checks_callers:
                # it changes an argument in place, and its text alone shows no caller: the
                # module's callers decide whether the functional update keeps NumPy's meaning
                # (AJ908), as they do where the CLI converts the file
                callers = _callers_reading(fn, updated)
                if "1" in callers:
                    fc, nheader = self._convert(header, declared, _module_tree_of(fn))
            if fc.changed and not _compiled_from_file(fn) and (
                _source_matches(fn, self.lines, header) is False
            ):
                raise StaleSourceError(
                    f"autojit cannot convert `{fn.__qualname__}` ({self.filename}:"
                    f"{code.co_firstlineno}): the file's text there does not compile to the "
                    f"code that runs (the file changed after the import: reload the module; "
                    f"or an import hook rewrote the function)"
                )
            entry = {"fc": _encode_fc(fc), "nheader": nheader, "lines": self.lines, "codes": {}}
            if callers is not None:
                entry["callers"], entry["updated"] = callers, updated
            _cache_put(key, entry, fn, write=False)
        self.entry = entry
        self.lines = list(entry["lines"])
        # a fresh conversion as it is: equal to its entry decoded (every field is encoded)
        self.fc = fc if fc is not None else _decode_fc(entry["fc"])
        self.header_lines = entry["nheader"]
        shift = self.first_line - 1 - self.header_lines
        self.changes = [_shift_change(c, shift) for c in self.fc.changes]
        self.refusals = [_shift_refusal(r, shift) for r in self.fc.refusals]
        new_text = self.indent + self.fc.new_text
        self.new_lines = new_text.splitlines(keepends=True)
        self.changed = self.fc.changed
        # parameters whose arrays NumPy changes in place, here or in a helper this one binds
        self.updated_arguments: set[str] = set(self.fc.updated_arguments)
        source = entry.get("source")
        if source is None:
            source = entry["source"] = self._public_source()
        self.source: str = source
        compiled_before = len(entry["codes"])
        self.compiled = self._compile({}) if self.changed else None
        if fresh or len(entry["codes"]) > compiled_before:
            # (written with the code compiled for where the function is now, only)
            entry["codes"] = {k: c for k, c in entry["codes"].items() if k[0] == self.first_line}
            _cache_put(key, entry, fn, write=True)

    @classmethod
    def unconverted(cls, fn: types.FunctionType) -> _Record:
        """The record of ``fn`` left as it is (its source is not the code that runs)."""
        rec = cls.__new__(cls)
        code = fn.__code__
        rec.fn, rec.recursive, rec.resolving = fn, False, False
        rec.final, rec.cell = fn, types.CellType(fn)
        rec.compiled, rec.tree, rec.codes = None, None, set()
        rec.filename = code.co_filename
        where = Location(code.co_filename, code.co_firstlineno, 1)
        rec.fc = FunctionConversion(fn.__name__, fn.__qualname__, where, "", "")
        rec.changes, rec.refusals, rec.changed = [], [], False
        rec.updated_arguments = set()
        rec.source = ""
        return rec

    # -- conversion -------------------------------------------------------------------------
    def _convert(
        self, header: str, declared: set[str], callers: ast.Module | None = None
    ) -> tuple[FunctionConversion, int]:
        fn = self.fn
        nheader = header.count("\n")
        text = header + "".join(self.lines)
        name = fn.__code__.co_name
        try:
            conv = convert_source(
                text,
                self.filename,
                only=[name],
                static_argnames={name: sorted(declared)} if declared else None,
                line_origins=True,
                callers=callers,
            )
        except SyntaxError:
            # the quick block finder was wrong (unusual formatting): ask inspect
            self.lines = _inspect_lines(fn)
            text = header + "".join(self.lines)
            conv = convert_source(
                text,
                self.filename,
                only=[name],
                static_argnames={name: sorted(declared)} if declared else None,
                line_origins=True,
                callers=callers,
            )
        for fc in conv.functions:
            if fc.name == name:
                return fc, nheader
        raise ConversionError(f"autojit could not find `def {name}` in {self.filename}")

    def merged_statics(
        self, user_names: Sequence[str], user_nums: Sequence[int]
    ) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """jax.jit's static_argnames / static_argnums: the user's and the inferred ones."""
        code = self.fn.__code__
        npos = code.co_argcount
        nposonly = code.co_posonlyargcount
        names = list(user_names)
        nums = list(user_nums)
        for arg in self.fc.static_arguments:
            idx = arg.index
            if idx is None:
                idx = _param_index(code, arg.name)
            if idx is not None and idx < npos:
                if idx not in nums and idx - npos not in nums:
                    nums.append(idx)
                if idx >= nposonly and arg.name not in names:
                    names.append(arg.name)
            elif arg.name not in names:
                names.append(arg.name)
        # keep names and numbers consistent, as jax.jit wants when both are given
        params = _positional_params(code)
        for i in list(nums):
            j = i + npos if i < 0 else i
            if nposonly <= j < npos and params[j] not in names:
                names.append(params[j])
        for n in list(names):
            k = _param_index(code, n)
            if k is not None and k < npos and k not in nums and k - npos not in nums:
                nums.append(k)
        return tuple(names), tuple(sorted(nums))

    def warn_refusals(self) -> None:
        for r in self.refusals:
            _warn(
                self.fn,
                f"{r.code} {r.reason} (autojit left this statement as it is)",
                r.location.path,
                r.location.line,
            )

    def _public_source(self) -> str:
        """The converted function text, dedented, without autojit's own decorator."""
        lines = list(self.new_lines)
        drop = _autojit_decorator_lines(self)
        if drop:
            text = "".join(line for i, line in enumerate(lines) if i not in drop)
        else:
            text = "".join(lines)
        if text[:1] not in ("", " ", "\t", "\n"):
            # a line starts at column 0, so the margin is empty: dedent would only empty the
            # lines of spaces and tabs (a line of them ends in " \n" or "\t\n", or ends the text)
            if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
                return _BLANK_LINE.sub("", text)
            return text

        return textwrap.dedent(text)

    # -- compilation ------------------------------------------------------------------------
    def _module_tree(self) -> ast.Module:
        """The converted function as a tree, decorators stripped, lines remapped to the file."""
        if self.tree is not None:
            return self.tree
        text = "".join(self.new_lines)
        offset = 0
        if self.indent:
            text = f"class {_WRAPPER_CLASS}:\n" + text
            offset = 1
        line_map = self._line_map()
        first = self.first_line
        pad = first - 1 - offset
        in_place = pad >= 0 and all(line == first + j for j, (line, _exact) in enumerate(line_map))
        if in_place:
            # each new line stands at the file line it replaces: parsed below blank lines, the
            # tree has the file's line numbers, and only nodes on a changed line need moving
            module = ast.parse("\n" * pad + text, self.filename)
        else:
            module = ast.parse(text, self.filename)
        fdef = module.body[0]
        if self.indent:
            fdef = fdef.body[0]  # type: ignore[attr-defined]
        assert isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef))
        fdef.decorator_list = []
        if in_place:
            changed: dict[int, tuple[int, int]] = {}
            for line, exact in line_map:
                if not exact:
                    t = self._file_line(line)
                    changed[line] = (len(t) - len(t.lstrip()), len(t.rstrip().encode()))
            if changed:
                _remap_in_place(fdef, changed, first, first + len(line_map) - 1)
        else:
            _remap(fdef, line_map, offset, self._file_line)
        self.tree = ast.Module(body=[fdef], type_ignores=[])
        return self.tree

    def _reads_name(self, name: str) -> bool:
        """Whether the converted function reads the global or free name ``name`` (a ``Name``
        node of that id): told by its text where the name is not there at all."""
        found = self.entry.setdefault("names", {})
        hit = found.get(name)
        if hit is None:
            text = "".join(self.new_lines)
            if text.isascii() and (
                name not in text or not re.search(rf"(?<![\w.]){name}(?!\w)", text)
            ):
                hit = False
            else:
                tree = self._module_tree()
                hit = any(type(n) is ast.Name and n.id == name for n in walk_nodes(tree))
            found[name] = hit
        return hit

    def _file_line(self, lineno: int) -> str:
        i = lineno - self.first_line
        if 0 <= i < len(self.lines):
            return self.lines[i]
        return ""

    def _line_map(self) -> list[tuple[int, bool]]:
        """For each new line (0-based): (original file line, whether it is unchanged)."""
        first = self.first_line
        old, new = self.lines, self.new_lines
        if old == new:
            return [(first + i, True) for i in range(len(new))]
        origins = self.fc.line_origins
        if origins is not None and len(origins) == len(new):
            # where the conversion put each line (a generated statement: at the original
            # statement it replaces); a line is unchanged where it is its origin's text
            shift = first - 1 - self.header_lines
            out = []
            for line, text in zip(origins, new, strict=True):
                at = line + shift
                old_text = self._file_line(at)
                out.append((at, text.rstrip("\r\n") == old_text.rstrip("\r\n")))
            return out
        return self._text_line_map()

    def _text_line_map(self) -> list[tuple[int, bool]]:
        """:meth:`_line_map` told by comparing the old and new lines alone (difflib's matching
        blocks; a line it inserts is put at the line before it)."""
        first = self.first_line
        old, new = self.lines, self.new_lines
        if len(old) == len(new):
            # Where no differing line's text is anywhere in the other list, difflib maps new line
            # j to old line j: a match a[i:i+k] == b[j:j+k] then holds only equal lines, so
            # a[i:i+k] == b[i:i+k] and a[j:j+k] == b[j:j+k] match too; the longest match it takes
            # first (smallest i, then smallest j) has j == i; every equal line is in one, and the
            # rest are same-size "replace" runs.
            same = list(map(operator.eq, old, new))
            in_old, in_new = set(old), set(new)
            if all(
                old[j] not in in_new and new[j] not in in_old
                for j in itertools.compress(itertools.count(), map(operator.not_, same))
            ):
                return list(zip(range(first, first + len(new)), same, strict=True))
        out: list[tuple[int, bool]] = [(first, False)] * len(new)
        import difflib

        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for k in range(j2 - j1):
                    out[j1 + k] = (first + i1 + k, True)
            elif tag == "replace":
                for k in range(j2 - j1):
                    out[j1 + k] = (first + i1 + min(k, i2 - i1 - 1), False)
            elif tag == "insert":
                line = first + max(i1 - 1, 0)
                for k in range(j2 - j1):
                    out[j1 + k] = (line, False)
        return out

    def _compile(self, helpers: dict[str, types.CellType]) -> types.FunctionType:
        fn = self.fn
        freevars = fn.__code__.co_freevars
        extras: dict[str, types.CellType] = {}
        for name, module in _FALLBACK_MODULES.items():
            if (
                name not in freevars
                and name not in fn.__globals__
                and not hasattr(builtins, name)
                and self._reads_name(name)
            ):
                extras[name] = types.CellType(_import_module(module))
        extras.update(helpers)
        params = tuple(freevars) + tuple(n for n in extras if n not in freevars)
        inner = self.entry["codes"].get((self.first_line, params))
        if inner is None:
            inner = self._compile_code(params)
            self.entry["codes"][(self.first_line, params)] = inner
        self.codes.update(_all_codes(inner))
        cells = []
        for name in inner.co_freevars:
            if name in extras:
                cells.append(extras[name])
            else:
                assert fn.__closure__ is not None
                cells.append(fn.__closure__[freevars.index(name)])
        new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
        new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
        new.__dict__.update(fn.__dict__)
        new.__qualname__ = fn.__qualname__
        new.__doc__ = fn.__doc__
        new.__module__ = fn.__module__
        new.__annotations__ = fn.__annotations__
        new.__wrapped__ = fn  # type: ignore[attr-defined]
        setattr(new, _MARK, True)
        return new

    def _compile_code(self, params: tuple[str, ...]) -> types.CodeType:
        """The converted function's code, compiled inside a factory taking ``params``."""
        if not params:
            code = self._compile_text()
            if code is not None:
                return code
        fn = self.fn
        tree = self._module_tree()
        fdef = tree.body[0]
        assert isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef))
        line = fdef.lineno
        fdef.name = _INNER
        factory = ast.FunctionDef(
            name=_FACTORY,
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(arg=p) for p in params],
                kwonlyargs=[],
                kw_defaults=[],
                defaults=[],
            ),
            body=[fdef, ast.Return(value=ast.Name(id=_INNER, ctx=ast.Load()))],
            decorator_list=[],
            returns=None,
        )
        ret = factory.body[1]
        assert isinstance(ret, ast.Return)
        top: ast.stmt = factory
        prefix = f"{_FACTORY}.<locals>.{_INNER}"
        owner = _owner_class(fn)
        if owner is not None:
            # a method: compiled inside a class of the same name, so that `self.__x` is
            # mangled as in the original
            top = ast.ClassDef(name=owner, bases=[], keywords=[], body=[factory], decorator_list=[])
            prefix = f"{owner}.{prefix}"
        for node in (top, factory, *factory.args.args, ret, ret.value):
            node.lineno = node.end_lineno = line  # type: ignore[union-attr]
            node.col_offset = node.end_col_offset = 0  # type: ignore[union-attr]
        module = ast.Module(body=[top], type_ignores=[])
        flags = fn.__code__.co_flags & _FUTURE_FLAGS
        code = compile(module, self.filename, "exec", flags=flags, dont_inherit=True)
        if owner is not None:
            code = _const_code(code, owner)
        factory_code = _const_code(code, _FACTORY)
        inner = _const_code(factory_code, _INNER)
        return _renamed(inner, prefix, fn.__code__)

    def _compile_text(self) -> types.CodeType | None:
        """The code of a module-level function with nothing to bind, compiled from the text
        (no tree, no factory): where every new line stands at the file line it replaces, the
        text is compiled below blank lines (decorator lines blanked), which gives the file's
        line numbers, and the positions on changed lines are then moved as :func:`_remap`
        moves the nodes there. None where that does not apply. (Two nested code objects, say
        the same comprehension written twice on a changed line, that the move makes equal stay
        two constants, where compiling the tree shares one: the same behaviour.)"""
        fn = self.fn
        code = fn.__code__
        if self.indent or self.tree is not None or code.co_qualname != code.co_name:
            return None
        first = self.first_line
        line_map = self._line_map()
        if [line for line, _exact in line_map] != list(range(first, first + len(line_map))):
            return None
        k = self.fc.location.line - 1 - self.header_lines  # the def line's index
        if not (0 <= k < len(line_map) and line_map[k][1]):
            return None
        if not _DEF_LINE.match(self.new_lines[k]):
            return None
        text = "\n" * (first - 1 + k) + "".join(self.new_lines[k:])
        flags = code.co_flags & _FUTURE_FLAGS
        module = compile(text, self.filename, "exec", flags=flags, dont_inherit=True)
        inner = None
        for c in module.co_consts:
            if isinstance(c, types.CodeType) and c.co_name == code.co_name:
                inner = c
        if inner is None:
            return None
        changed: dict[int, tuple[int, int]] = {}
        for line, exact in line_map:
            if not exact:
                t = self._file_line(line)
                changed[line] = (len(t) - len(t.lstrip()), len(t.rstrip().encode()))
        return _moved_positions(inner, changed) if changed else inner

    # -- helpers (at first call) ------------------------------------------------------------
    def resolve(self) -> Callable[..., Any]:
        """Convert the user's functions this one calls, bind them in, and fix the final code."""
        if self.final is not None:
            return self.final
        self.resolving = True
        try:
            helpers: dict[str, types.CellType] = {}
            attributes: dict[int, str] = {}
            if self.recursive:
                for name, value, nodes, current in self._callees():
                    helper = _helper_record(value, self._statics_passed(name, value))
                    if helper is None:
                        continue
                    if helper.resolving or helper.resolve() is not helper.fn:
                        called = nodes[0].attr if nodes else name
                        if self._reads_changed_argument(called, helper):
                            continue  # (called as written: its item update fails under jit)
                        if self._tests_result_identity(called, helper):
                            continue  # (called as written: its traced `if` fails under jit)
                        helpers[name] = types.CellType(_live_helper(helper, current))
                        attributes.update((id(node), name) for node in nodes)
            if attributes:
                # `module.helper(...)` reads the converted helper through a name of its own
                _AttributesToNames(attributes).visit(self._module_tree())
            if helpers:
                final: Callable[..., Any] = self._compile(helpers)
            elif self.compiled is not None:
                final = self.compiled
            else:
                final = self.fn
            self.cell.cell_contents = final
            self.final = final
            return final
        finally:
            self.resolving = False

    def _statics_passed(self, called: str, helper: types.FunctionType) -> frozenset[str]:
        """The parameters of ``helper`` that every call of it here (as ``called``) gives a
        static value, and that decide its control flow: static in its conversion, as they
        are when it runs (:mod:`autojit.analysis.passed_statics`)."""
        static = {s.name for s in self.fc.static_arguments}
        if not static or not self._reads_name(called):
            return frozenset()
        caller = _first_def(self._original_tree())
        try:
            _first, lines = _function_lines(helper)
            callee = _first_def(ast.parse(textwrap.dedent("".join(lines))))
        except (OSError, TypeError, SyntaxError):
            return frozenset()
        if caller is None or callee is None:
            return frozenset()
        passed = static_parameters_passed(caller, called, callee, static)
        return frozenset(control_parameters(callee, passed)) if passed else frozenset()

    def _original_tree(self) -> ast.Module:
        """The function as written (decorators kept; its first line is line 1): what the
        module-wide checks of the pipeline read, rather than the converted code, whose loops and
        branches are functions of their own."""

        try:
            return ast.parse(textwrap.dedent("".join(self.lines)))
        except SyntaxError:  # (a string at a lower indentation than the code: dedent cannot)
            text = "".join(self.lines)
            return ast.parse(f"class {_WRAPPER_CLASS}:\n" + text if self.indent else text)

    def _tests_result_identity(self, called: str, helper: _Record) -> bool:
        """Whether this function tests the result of ``helper`` (as ``called``) with `is`
        (`if big(x) is True:`) where the helper's conversion made a returning `if` of it
        (AJ101, AJ102): converted, it returns a traced value, never the constant Python returns
        (AJ918, as the CLI refuses it with the module's callers in view)."""
        if not any(c.code in ("AJ101", "AJ102") for c in helper.changes):
            return False
        found = result_tested_by_identity(self._original_tree(), called)
        if found is None:
            return False
        _warn(
            self.fn,
            f"AJ918 `{helper.fn.__name__}` returns a Python constant on a path of a traced "
            f"condition, and this function tests its result with `is`; converted, it would "
            f"return a traced value, never the constant itself: `{helper.fn.__name__}` is "
            f"called as written (compare with `==`, or return an array)",
            self.filename,
            found[1] + self.first_line - 1,
        )
        return True

    def _reads_changed_argument(self, called: str, helper: _Record) -> bool:
        """Whether this function reads, after calling ``helper`` (as ``called``), an array the
        helper changes in place in NumPy's meaning and only returns once converted (AJ908: the
        converted helper would leave this function the old values). Where it does not, and the
        array is this function's own argument, this function changes it too."""
        if not helper.updated_arguments:
            return False
        tree = self._original_tree()
        params = _positional_params(helper.fn.__code__)
        own = set(_positional_params(self.fn.__code__)) | set(
            self.fn.__code__.co_varnames[
                self.fn.__code__.co_argcount : self.fn.__code__.co_argcount
                + self.fn.__code__.co_kwonlyargcount
            ]
        )
        for p in sorted(helper.updated_arguments):
            found = argument_read_after_call(tree, called, params, p, function=True)
            if found is not None:
                _warn(
                    self.fn,
                    f"AJ908 `{helper.fn.__name__}` changes its argument `{p}` in place, and "
                    f"{found.reader()} the new values, a functional update would not; "
                    f"`{helper.fn.__name__}` is called as written (use the array it returns "
                    f"there)",
                    self.filename,
                    found.line + self.first_line - 1,
                )
                return True
        for p in helper.updated_arguments:
            self.updated_arguments |= arguments_passed(tree, called, params, p) & own
        return False

    def _callees(self) -> list[_Callee]:
        """The user's functions this one may call: by global or closure name, and as
        ``module.function`` of a module of the user's package and ``Class.function`` of a class
        (with those attribute nodes, and how to read what the name holds when it is called)."""
        fn = self.fn
        code = self.compiled.__code__ if self.compiled is not None else fn.__code__
        out: list[_Callee] = []
        modules: dict[str, types.ModuleType | type] = {}  # (and classes)
        for name in sorted(_global_names(code)):
            value = fn.__globals__.get(name)
            if value is None:
                continue
            if _is_user_function(value, fn):
                out.append((name, value, [], functools.partial(fn.__globals__.get, name)))
            elif isinstance(value, types.ModuleType) and _is_user_module(value, fn):
                modules[name] = value
            elif isinstance(value, type) and not name.startswith("__"):
                modules[name] = value  # (`Class.method(...)`: its functions, looked up below)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True):
            try:
                value = cell.cell_contents
            except ValueError:  # not assigned yet
                continue
            if _is_user_function(value, fn):
                out.append((name, value, [], functools.partial(_cell_contents, cell)))
        if modules:
            found: dict[str, tuple[types.FunctionType, list[ast.Attribute], Callable[[], Any]]] = {}
            tree = self._module_tree()
            # (a name the function binds anywhere, a nested function's parameter or a
            # comprehension's variable too, may hold another module or class there)
            local = _names_bound_in(tree)
            for node in walk_nodes(tree):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in modules
                    and node.value.id not in local
                ):
                    owner = modules[node.value.id]
                    value = _function_of(owner, node.attr)
                    if value is not None and _is_user_function(value, fn):
                        alias = f"__autojit_{node.value.id}_{node.attr}__"  # (never mangled)
                        current = functools.partial(_function_of, owner, node.attr)
                        found.setdefault(alias, (value, [], current))[1].append(node)
            out.extend((alias, *entry) for alias, entry in found.items())
        return out


# (name, the function, the `module.function` nodes that call it, what the name holds now)
_Callee = tuple[str, types.FunctionType, list[ast.Attribute], Callable[[], Any]]


def _first_def(tree: ast.Module) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function a record's parsed lines hold (inside the class wrapper of a method)."""
    body = tree.body
    if body and isinstance(body[0], ast.ClassDef):
        body = body[0].body
    return next((s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _cell_contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # (emptied)
        return None


def _live_helper(helper: _Record, current: Callable[[], Any]) -> Callable[..., Any]:
    """What a converted function calls for a helper of the user's: the helper's conversion
    while its name still holds the helper, else what the name holds now (a global rebound
    after the first call, `mock.patch` in a test: plain `jax.jit` reads the name on each trace
    too, and so do these calls, made when jax traces)."""
    original = helper.fn

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        now = current()
        if now is original or now is None:
            return helper.cell.cell_contents(*args, **kwargs)
        return now(*args, **kwargs)

    return call


class _AttributesToNames(ast.NodeTransformer):
    """Replaces the given ``module.helper`` nodes by names."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        name = self.names.get(id(node))
        if name is None:
            self.generic_visit(node)
            return node
        return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)


# --------------------------------------------------------------------------------------------
# source


def _function_lines(fn: types.FunctionType) -> tuple[int, list[str]]:
    """(first line, lines) of ``fn``'s source in its file, decorators included."""
    code = fn.__code__
    filename = code.co_filename
    linecache.checkcache(filename)  # (a file edited and reloaded since it was read: read again)
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        where = f"{filename}:{code.co_firstlineno}"
        raise ConversionError(
            f"autojit cannot convert `{code.co_name}` ({where}): its source is not available "
            "(functions typed in the REPL or created by exec/eval have no file); "
            "define it in a .py file"
        )
    start = code.co_firstlineno - 1
    if start >= len(lines):
        return code.co_firstlineno, _inspect_lines(fn)
    first = lines[start]
    indent = len(first) - len(first.lstrip())
    last = max(_max_line(code), code.co_firstlineno)  # 1-based, inclusive
    end = last
    n = len(lines)
    while end < n:
        line = lines[end]
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) > indent:
            end += 1
            continue
        if not stripped:
            # blank line: part of the function only if the function continues after it
            k = end
            while k < n and not lines[k].strip():
                k += 1
            if k < n and len(lines[k]) - len(lines[k].lstrip()) > indent:
                end = k
                continue
        break
    block = lines[start:end]
    if block and not block[-1].endswith("\n"):
        block[-1] += "\n"
    return code.co_firstlineno, block


def _inspect_lines(fn: types.FunctionType) -> list[str]:
    import inspect

    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise ConversionError(
            f"autojit cannot convert `{fn.__qualname__}`: its source is not available ({exc})"
        ) from None
    return lines


def _max_line(code: types.CodeType) -> int:
    best = 0
    for c in _all_codes(code):
        for _, _, line in c.co_lines():
            if line is not None and line > best:
                best = line
    return best


def _all_codes(code: types.CodeType) -> list[types.CodeType]:
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.extend(_all_codes(c))
    return out


def _global_names(code: types.CodeType) -> set[str]:
    """Names a code object (and the functions inside it) may look up as globals."""
    out: set[str] = set()
    for c in _all_codes(code):
        out.update(c.co_names)
    return out


_header_cache: dict[int, tuple[int, str, dict[str, Any]]] = {}


def _header(fn: types.FunctionType) -> str:
    """Import lines (and constants ``fn`` reads) that tell the analysis what the names mean.

    Made from the module's globals, not by parsing the module: only ``fn``'s own source is
    parsed. The import part is cached per module.
    """
    g = fn.__globals__
    cached = _header_cache.get(id(g))
    if cached is not None and cached[0] == len(g) and cached[2] is g:
        imports = cached[1]
    else:
        lines = []
        for name, value in list(g.items()):
            if type(value) is types.ModuleType and name.isidentifier():
                mod = value.__name__
                if not all(p.isidentifier() for p in mod.split(".")):
                    continue
                lines.append(f"import {mod}\n" if mod == name else f"import {mod} as {name}\n")
        # The names the rewrites use for jax and jax.numpy, where the module lacks them (the
        # converted code gets them from autojit, never from the module): the analysis then
        # knows what the generated code calls, e.g. that `jnp.result_type(i)` is static.
        # The same names as the CLI would add imports for, so the text is the CLI's.
        found = {line.split()[1] for line in lines}
        if "jax" not in found and "jax" not in g:
            lines.append("import jax\n")
            if "jax.numpy" not in found and "jnp" not in g:
                lines.append("import jax.numpy as jnp\n")
        imports = "".join(lines)
        _header_cache[id(g)] = (len(g), imports, g)
    extra = []
    jax_mods = [sys.modules.get(m) for m in _JAX_PUBLIC]
    helpers = _helper_sources(fn)
    names = _global_names(fn.__code__)
    for reads, _text in helpers.values():
        names |= reads
    for name in sorted(names):
        if name in helpers:
            continue
        if name not in g:
            # (a constant assigned further down the module: not yet run at the decoration)
            literal = None if hasattr(builtins, name) else _module_constant(fn, name)
            if literal is not None:
                extra.append(f"{name} = {literal}\n")
            continue
        value = g[name]
        if type(value) in (int, float, bool) or value is None:
            text = repr(value)
            if text not in ("inf", "-inf", "nan"):
                extra.append(f"{name} = {text}\n")
        elif type(value) is str:
            extra.append(f"{name} = {value!r}\n")
        elif isinstance(value, type):
            extra.append(f"class {name}: ...\n")
        elif isinstance(value, types.FunctionType) and name != fn.__code__.co_name:
            extra.append(f"def {name}(): ...\n")
        elif callable(value) and _jax_module(getattr(value, "__module__", None)):
            attr = getattr(value, "__name__", None)
            if not isinstance(attr, str) or not attr.isidentifier():
                continue
            for jax_mod, modname in zip(jax_mods, _JAX_PUBLIC, strict=True):
                if jax_mod is not None and getattr(jax_mod, attr, None) is value:
                    alias = "" if attr == name else f" as {name}"
                    extra.append(f"from {modname} import {attr}{alias}\n")
                    break
    return imports + "".join(extra) + "".join(text for _reads, text in helpers.values())


# The module functions whose source goes into a header (rather than a `def name(): ...` stub):
# at most this many, of at most this many lines in all
_HELPER_LIMIT = 12
_HELPER_LINES = 600
_MISSING = object()
_WORD = re.compile(r"[^\W\d]\w*")


def _helper_sources(fn: types.FunctionType) -> dict[str, tuple[set[str], str]]:
    """name -> (the global names it reads, its source at column 0) for the functions of ``fn``'s
    module that ``fn`` calls, and that those call (in breadth-first order, within the limits
    above). With their bodies in the header, static arguments are inferred through them as in a
    file conversion (`n` of `f(x, n): return h(n)` where `h(k)` makes `jnp.ones(k)`). A helper
    defined further down the module (not yet run when ``fn`` is decorated) is read from the
    file's text."""
    g = fn.__globals__
    out: dict[str, tuple[set[str], str]] = {}
    seen = {fn.__code__.co_name}
    todo = sorted(_global_names(fn.__code__))
    total = 0
    while todo and len(out) < _HELPER_LIMIT:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        value = g.get(name, _MISSING)
        reads: set[str] | None = None
        lines: list[str] | None = None
        if value is _MISSING:
            if not hasattr(builtins, name):
                lines = _module_def_lines(fn, name)
        elif (
            isinstance(value, types.FunctionType)
            and value.__globals__ is g
            and value.__code__.co_name == name
            and value.__qualname__ == name
            and _is_user_function(value, fn)
        ):
            try:
                lines = _function_lines(value)[1]
            except ConversionError:
                lines = None
            reads = _global_names(value.__code__)
        if not lines or total + len(lines) > _HELPER_LINES:
            continue
        text = "".join(lines)
        if text[:1].isspace():

            text = textwrap.dedent(text)
        try:
            compile(text, "<helper>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        if reads is None:
            reads = set(_WORD.findall(text))
        total += len(lines)
        out[name] = (reads, text)
        todo.extend(sorted(reads - seen))
    return out


# filename -> (the file's lines as linecache holds them, def name -> its line index, constant
# name -> its literal, or None where it is assigned more than once)
_module_defs: dict[str, tuple[list[str], dict[str, int], dict[str, str | None]]] = {}
_DEF_AT_TOP = re.compile(r"(?:async\s+)?def\s+([^\W\d]\w*)\s*\(")
_CONSTANT_AT_TOP = re.compile(
    r"([^\W\d]\w*)\s*(?::[^=]*)?=\s*(-?\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|True|False|None"
    r"|'[^'\\\n]*'|\"[^\"\\\n]*\")\s*(?:#.*)?$"
)


def _module_index(fn: types.FunctionType) -> tuple[list[str], dict[str, int], dict[str, str | None]]:
    """The module-level `def`s and literal constants of ``fn``'s file, indexed once per file
    (while linecache holds the same lines)."""
    filename = fn.__code__.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    cached = _module_defs.get(filename)
    if cached is None or cached[0] is not lines:
        defs: dict[str, int] = {}
        constants: dict[str, str | None] = {}
        for i, line in enumerate(lines):
            head = line[:1]
            if head in ("d", "a"):
                m = _DEF_AT_TOP.match(line)
                if m:
                    defs[m.group(1)] = i
                    continue
            if head.isalpha() or head == "_":
                m = _CONSTANT_AT_TOP.match(line.rstrip("\r\n"))
                if m:
                    name = m.group(1)
                    constants[name] = None if name in constants else m.group(2)
        cached = _module_defs[filename] = (lines, defs, constants)
    return cached


# (filename, name, parameters) -> (the file's lines as linecache holds them, the answer of
# `_callers_reading`): strings only, never the file's tree or its callers index (a tree kept
# alive for good would be an editor server's leak)
_callers_answers: dict[tuple[str, str, tuple[str, ...]], tuple[list[str], str]] = {}


def _dropped_call(name: str) -> re.Pattern[str]:
    """A statement that is a call of ``name`` (`name(...)`, `obj.name(...)`, `await
    name(...)`): the only calls whose caller may rely on a change in place of a function that is
    jitted where it is defined."""
    return re.compile(
        rf"(?:^|;)[ \t]*(?:await[ \t]+)?(?:[^\W\d][\w.]*\.)?{re.escape(name)}[ \t]*\(", re.M
    )


def _module_tree_of(fn: types.FunctionType) -> ast.Module | None:
    """The tree of ``fn``'s whole file, as linecache holds it (None where it does not parse)."""
    filename = fn.__code__.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    try:
        return ast.parse("".join(lines), filename) if lines else None
    except (SyntaxError, ValueError):
        return None


def _callers_reading(fn: types.FunctionType, updated: Sequence[str]) -> str:
    """For each parameter of ``updated`` (changed in place by ``fn``), whether a caller in its
    file drops the result of a call and then reads the array it passed (`x:1,y:0`): what
    decides its AJ908 refusals (the decorated function is jitted, so only those rely on NumPy's
    change in place), and so whether a cached conversion still holds. A file with no statement
    calling it is not parsed."""
    code = fn.__code__
    filename, name = code.co_filename, code.co_name
    lines = linecache.getlines(filename, fn.__globals__)
    key = (filename, name, tuple(updated))
    cached = _callers_answers.get(key)
    if cached is not None and cached[0] is lines:
        return cached[1]
    found = dict.fromkeys(updated, False)
    if _dropped_call(name).search("".join(lines)):
        tree = _module_tree_of(fn)
        params = list(code.co_varnames[: code.co_argcount])
        method = bool(params) and params[0] in ("self", "cls")
        for p in updated:
            found[p] = tree is not None and (
                argument_read_after_call(tree, name, params, p, method, dropped=True) is not None
            )
    answer = ",".join(f"{p}:{int(v)}" for p, v in found.items())
    _callers_answers[key] = (lines, answer)
    return answer


def _module_constant(fn: types.FunctionType, name: str) -> str | None:
    """The literal a module-level `NAME = literal` line of ``fn``'s file gives ``name`` (None
    where there is none, or several)."""
    return _module_index(fn)[2].get(name)


def _module_def_lines(fn: types.FunctionType, name: str) -> list[str] | None:
    """The lines of the module-level ``def name`` in ``fn``'s file (its decorators included; the
    last one where there are several, as the last one run is what a call finds), or None."""
    lines, defs, _constants = _module_index(fn)
    start = defs.get(name)
    if start is None:
        return None
    first = start
    while first > 0 and lines[first - 1].startswith("@"):
        first -= 1
    end = start + 1
    n = len(lines)
    while end < n:
        line = lines[end]
        if line.strip() and not line[:1].isspace() and not line.startswith("#"):
            break
        end += 1
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
        end -= 1
    block = lines[first:end]
    if block and not block[-1].endswith("\n"):
        block[-1] += "\n"
    return block


def _jax_module(name: object) -> bool:
    """Whether a ``__module__`` names jax (it may be None, or not even a string)."""
    return isinstance(name, str) and name.startswith("jax")


def _autojit_decorator_lines(rec: _Record) -> set[int]:
    """0-based indexes of the new text's lines that hold only an autojit decorator."""
    out: set[int] = set()
    g = rec.fn.__globals__
    for i, line in enumerate(rec.new_lines):
        s = line.strip()
        if not s.startswith("@"):
            if s.startswith(("def ", "async def ")):
                break
            continue
        expr = s[1:].split("(", 1)[0].strip()
        parts = expr.split(".")
        value: Any = g.get(parts[0]) if parts[0].isidentifier() else None
        for p in parts[1:]:
            value = getattr(value, p, None)
        if value is convert or (
            isinstance(value, types.ModuleType) and value.__name__.startswith("autojit")
        ):
            if s.endswith(")") or "(" not in s:
                out.add(i)
    return out


# --------------------------------------------------------------------------------------------
# cache: a conversion is kept per process and, like a .pyc, in the file's __pycache__
#
# The key is the function's source, the header describing its module's names, where it sits
# in the file, the declared static arguments, and autojit's own version and files; the entry
# holds the conversion and the compiled code (marshal, as .pyc files do). AUTOJIT_CACHE=0
# turns the on-disk part off; PYTHONDONTWRITEBYTECODE stops writing it.

_memory_cache: dict[str, dict[str, Any]] = {}
_cache_folders: set[str] = set()  # __pycache__ folders made (or found) in this process


@functools.lru_cache(maxsize=1)
def _fingerprint() -> str:
    import hashlib

    h = hashlib.sha1(sys.implementation.cache_tag.encode())
    root = os.path.dirname(os.path.abspath(__file__))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                st = os.stat(os.path.join(dirpath, name))
                h.update(f"{dirpath}/{name}:{st.st_mtime_ns}:{st.st_size};".encode())
    return h.hexdigest()


def _cache_key(fn: types.FunctionType, header: str, lines: list[str], declared: set[str]) -> str:
    import hashlib

    h = hashlib.sha1(_fingerprint().encode())
    for part in (fn.__code__.co_filename, ",".join(sorted(declared)), header, _code_digest(fn.__code__)):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    h.update("".join(lines).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _code_digest(code: types.CodeType) -> str:
    """What a function's code does, apart from where it stands: its bytecode, names and
    constants (and those of the code inside it). Equal for the code compiled from the same
    text wherever the text stands in its file."""
    import hashlib

    h = hashlib.sha1()
    for c in _all_codes(code):
        h.update(c.co_code)
        for part in (c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars):
            h.update("\0".join(part).encode("utf-8", "surrogatepass"))
            h.update(b"\1")
        h.update(_consts_text(c.co_consts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _consts_text(consts: tuple) -> str:
    """The constants of a code object as text, the same in every process (a frozenset listed
    sorted; code objects by name, their own constants being hashed on their own)."""
    out = []
    for c in consts:
        if isinstance(c, types.CodeType):
            out.append(f"<code {c.co_name}>")
        elif isinstance(c, frozenset):
            out.append("frozenset(" + ",".join(sorted(map(repr, c))) + ")")
        elif isinstance(c, tuple):
            out.append("(" + _consts_text(c) + ")")
        else:
            out.append(f"{type(c).__name__}:{c!r}")
    return "\2".join(out)


def _compiled_from_file(fn: types.FunctionType) -> bool:
    """Whether ``fn``'s module was compiled from its file as the file is now: its bytecode
    cache records the file's modification time and size, and they are the file's. (The cheap
    check; without it, :func:`_source_matches` compiles the function's text.)"""
    module = sys.modules.get(fn.__module__ or "")
    cached = getattr(module, "__cached__", None)
    filename = fn.__code__.co_filename
    if not cached or getattr(module, "__file__", None) != filename:
        return False
    try:
        with open(cached, "rb") as f:
            head = f.read(16)
        st = os.stat(filename)
    except OSError:
        return False
    if len(head) < 16 or int.from_bytes(head[4:8], "little") & 1:  # (hash-based: not read)
        return False
    mtime = int.from_bytes(head[8:12], "little")
    size = int.from_bytes(head[12:16], "little")
    return mtime == int(st.st_mtime) & 0xFFFFFFFF and size == st.st_size & 0xFFFFFFFF


def _source_matches(fn: types.FunctionType, lines: list[str], header: str) -> bool | None:
    """Whether ``lines`` (the function's source as found in its file) compile to ``fn``'s code:
    False where they do not (the file edited after the import: the text found is not what
    runs, or an import hook that rewrote the code); None where that cannot be told (a form
    of nesting the check does not rebuild)."""
    code = fn.__code__
    text = "".join(lines)
    free = [v for v in code.co_freevars if v != "__class__"]
    if text[:1].isspace():
        # compiled where it was: a method in a class of its owner's name (private names are
        # mangled with it), a nested function in a function whose parameters are its free names
        owner = _owner_class(fn)
        if owner is None:
            head = f"def {_FACTORY}({', '.join(free)}):\n"
        elif free:
            if len(text) - len(text.lstrip(" \t")) < 2:
                return None
            head = f"def {_FACTORY}({', '.join(free)}):\n class {owner}:\n"
        else:
            head = f"class {owner}:\n"
        text = head + text
    elif free:
        return None
    # (the module's imports first: the compiler calls a method of an imported name otherwise)
    imports = "".join(line for line in header.splitlines(True) if line.startswith("import "))
    flags = code.co_flags & _FUTURE_FLAGS
    try:
        module = compile(imports + text, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    found = next(
        (c for c in _all_codes(module) if c.co_name == code.co_name and c is not module), None
    )
    if found is None:
        return None
    if _code_digest(found) == _code_digest(code):
        return True
    return _instructions(found) == _instructions(code)


def _instructions(code: types.CodeType) -> list[tuple[Any, ...]]:
    """``code``'s instructions, and those of the code inside it, in a form that two compiles of
    the same text share whatever the compiler knew of the module around it (a method call on
    an imported name is an attribute load: `LOAD_METHOD` read as `LOAD_ATTR`; jump targets as
    instruction numbers, as the inline caches of the two differ in size)."""
    import dis

    out: list[tuple[Any, ...]] = []
    for c in _all_codes(code):
        instrs = list(dis.get_instructions(c))
        number = {ins.offset: k for k, ins in enumerate(instrs)}
        for ins in instrs:
            name = "LOAD_ATTR" if ins.opname == "LOAD_METHOD" else ins.opname
            arg = ins.argval
            if ins.opcode in dis.hasjabs or ins.opcode in dis.hasjrel:
                arg = number.get(arg, arg)
            elif isinstance(arg, types.CodeType):
                arg = arg.co_name
            elif isinstance(arg, frozenset):
                arg = tuple(sorted(map(repr, arg)))
            out.append((name, arg))
    return out


def _disk_path(fn: types.FunctionType) -> str | None:
    if os.environ.get("AUTOJIT_CACHE", "1") in ("0", "", "false", "no", "off"):
        return None
    filename = fn.__code__.co_filename
    if filename.startswith("<") or not os.path.isabs(filename) or not os.path.isfile(filename):
        return None
    folder, base = os.path.split(filename)
    stem = base.rsplit(".", 1)[0]
    qual = "".join(c if c.isalnum() or c == "_" else "-" for c in fn.__qualname__)
    tag = sys.implementation.cache_tag
    return os.path.join(folder, "__pycache__", f"{stem}.autojit.{qual}.{tag}.bin")


def _cache_get(key: str, fn: types.FunctionType) -> dict[str, Any] | None:
    entry = _memory_cache.get(key)
    if entry is not None:
        return entry
    path = _disk_path(fn)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    entry = data.get("entry")
    if not isinstance(entry, dict):
        return None
    _memory_cache[key] = entry
    return entry


def _cache_put(key: str, entry: dict[str, Any], fn: types.FunctionType, *, write: bool) -> None:
    _memory_cache[key] = entry
    if not write or sys.dont_write_bytecode:
        return
    path = _disk_path(fn)
    if path is None:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    folder = os.path.dirname(path)
    try:
        if folder not in _cache_folders:
            os.makedirs(folder, exist_ok=True)
            _cache_folders.add(folder)
        with open(tmp, "wb") as f:
            marshal.dump({"key": key, "entry": entry}, f)
        os.replace(tmp, path)
    except (OSError, ValueError):
        _cache_folders.discard(folder)  # removed since, say: made again next time
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _loc(loc: Location) -> tuple[Any, ...]:
    return (loc.path, loc.line, loc.col, loc.end_line, loc.end_col)


def _encode_fc(fc: FunctionConversion) -> tuple[Any, ...]:
    return (
        fc.name,
        fc.qualname,
        _loc(fc.location),
        fc.original_text,
        fc.new_text,
        [(c.code, _loc(c.location), c.message) for c in fc.changes],
        [(r.code, _loc(r.location), r.reason) for r in fc.refusals],
        [
            (a.name, a.index, _loc(a.location), a.reason, a.user_declared)
            for a in fc.static_arguments
        ],
        fc.line_origins,
        fc.updated_arguments,
    )


def _decode_fc(data: tuple[Any, ...]) -> FunctionConversion:
    name, qualname, loc, original, new, changes, refusals, statics, origins, updated = data
    fc = FunctionConversion(name, qualname, Location(*loc), original, new)
    fc.line_origins = origins
    fc.updated_arguments = list(updated)
    fc.changes = [Change(code, Location(*at), msg) for code, at, msg in changes]
    fc.refusals = [Refusal(code, Location(*at), why) for code, at, why in refusals]
    fc.static_arguments = [
        StaticArgument(n, i, Location(*at), why, bool(user)) for n, i, at, why, user in statics
    ]
    return fc


# --------------------------------------------------------------------------------------------
# line numbers


_NOT_CHILDREN = {"ctx", "id", "attr", "kind", "type_comment", "name", "arg", "module", "level"}
_NOT_CHILDREN |= {"is_async", "conversion", "simple", "op", "names"}
_child_fields = ChildFields(_NOT_CHILDREN)


def _remap(
    fdef: ast.AST,
    line_map: list[tuple[int, bool]],
    offset: int,
    file_line: Callable[[int], str],
) -> set[str]:
    """Give every node of the new tree the file line of the statement it came from.

    A node on an unchanged line keeps its columns; one on a generated line spans its original
    line. Returns the identifiers of the tree's ``Name`` nodes (collected in the same walk).
    """
    # tables indexed by the parsed line number: file line, start column, end column
    size = len(line_map) + offset + 2
    t_line = [0] * size
    t_start: list[int | None] = [None] * size
    t_end: list[int | None] = [None] * size
    last = len(line_map) - 1
    for raw in range(size):
        line, exact = line_map[min(max(raw - 1 - offset, 0), last)]
        t_line[raw] = line
        if not exact:
            text = file_line(line)
            t_start[raw] = len(text) - len(text.lstrip())
            t_end[raw] = len(text.rstrip().encode())
    names: set[str] = set()
    stack = [fdef]
    pop, push = stack.pop, stack.append
    ast_type, name_type, const_type = ast.AST, ast.Name, ast.Constant
    fields_of = _child_fields
    while stack:
        node = pop()
        kind = type(node)
        if kind is name_type:
            names.add(node.id)  # type: ignore[attr-defined]
        elif kind is not const_type:
            fields = fields_of[kind]
            for field in fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast_type):
                            push(item)
                elif isinstance(value, ast_type):
                    push(value)
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        line = t_line[lineno]
        node.lineno = line  # type: ignore[attr-defined]
        col = t_start[lineno]
        if col is not None:
            node.col_offset = col  # type: ignore[attr-defined]
        end = node.end_lineno  # type: ignore[attr-defined]
        if end is None:
            continue
        eline = t_line[end]
        node.end_lineno = eline  # type: ignore[attr-defined]
        ecol = t_end[end]
        if ecol is not None:
            node.end_col_offset = ecol  # type: ignore[attr-defined]
        if eline < line or (eline == line and node.end_col_offset < node.col_offset):  # type: ignore[attr-defined]
            node.end_lineno = line  # type: ignore[attr-defined]
            node.end_col_offset = node.col_offset  # type: ignore[attr-defined]
    return names


_DEF_LINE = re.compile(r"\s*(?:async\s+)?def\b")
_BLANK_LINE = re.compile("^[ \t]+$", re.MULTILINE)  # textwrap's _whitespace_only_re


def _moved_positions(code: types.CodeType, changed: dict[int, tuple[int, int]]) -> types.CodeType:
    """``code`` (and the code inside it) with each position starting on a changed line moved to
    that line's indentation and each one ending there to the line's end (``changed[line]``),
    as :func:`_remap` moves the nodes the positions come from. The line table keeps its
    entries (one per instruction, as the compiler writes them); those with a changed line are
    rewritten in the long form of the 3.11+ format (Objects/locations.md), the others copied
    as they are (no start line moves, so their relative line numbers stay right)."""
    consts = code.co_consts
    if any(isinstance(c, types.CodeType) for c in consts):
        consts = tuple(
            _moved_positions(c, changed) if isinstance(c, types.CodeType) else c for c in consts
        )
    table = code.co_linetable
    positions = list(code.co_positions())  # one per code unit
    lengths = table.translate(_ENTRY_UNITS, _NOT_ENTRY_START)  # each entry's code units
    firsts = list(itertools.accumulate(lengths, initial=0))  # each entry's first code unit
    entries: list[Any] = list(map(positions.__getitem__, firsts[:-1]))  # each one's position
    offsets: list[int] = []  # each entry's first byte in the table
    out = bytearray()
    done = 0  # table bytes copied or rewritten
    k2 = 0
    last = code.co_firstlineno  # the line of the last entry with one (line deltas count from it)
    moved = changed.keys()
    # runs of consecutive entries on one line: most are copied, in one slice at the end
    for line, run_of in itertools.groupby(entries, _START):
        run = list(run_of)
        k1 = k2
        k2 += len(run)
        prev = last
        if line is not None:
            last = line
        if line not in changed and moved.isdisjoint(map(_END, run)):
            continue
        if not offsets:
            offsets = list(itertools.compress(itertools.count(), table.translate(_IS_ENTRY_START)))
            offsets.append(len(table))
        at, nxt = offsets[k1], offsets[k2]
        if (
            set(map(_END, run)) == {line}
            and (line, line, 0, 0) not in run
            and (  # a column is missing only in the no-column and the long forms
                _NO_COLUMN_OR_LONG.search(table, at, nxt) is None
                or (None not in set(map(_COL, run)) and None not in set(map(_ECOL, run)))
            )
        ):
            # entries on one changed line, with columns: all get the same position
            out += table[done:at]
            done = nxt
            col, ecol = changed[line]
            ecol = max(ecol, col)
            out += _long_entry(lengths[k1], line - prev, 0, col, ecol)
            if k2 - k1 > 1:
                tail = _long_entry(1, 0, 0, col, ecol)[1:]  # after the first byte
                out += tail.join(map(_LONG_FIRST_BYTE.__getitem__, lengths[k1 + 1 : k2]))
                out += tail
            continue
        for k in range(k1, k2):  # one by one
            at, nxt = offsets[k], offsets[k + 1]
            out += table[done:at]
            done = nxt
            line, end, col, ecol = entries[k]
            if (
                (line not in changed and end not in changed)
                or (end == line and col == 0 and ecol == 0)  # a scope's own start (lambda...)
            ):
                out += table[at:nxt]
                prev = line
                continue
            if col is not None:
                span = changed.get(line)
                if span is not None:
                    col = span[0]
            if ecol is not None and end is not None:
                span = changed.get(end)
                if span is not None:
                    ecol = span[1]
            if end is None:
                end = line
            elif col is not None and ecol is not None:
                if end < line or (end == line and ecol < col):
                    end, ecol = line, col
            out += _long_entry(lengths[k], line - prev, end - line, col, ecol)
            prev = line
    if not offsets:
        return code if consts is code.co_consts else code.replace(co_consts=consts)
    out += table[done:]
    return code.replace(co_linetable=bytes(out), co_consts=consts)


def _long_entry(length: int, delta: int, lines: int, col: int | None, ecol: int | None) -> bytes:
    """A line table entry in the long form (code 14) of the 3.11+ format."""
    out = bytearray([0xF0 | (length - 1)])
    put = out.append
    for v in (
        delta << 1 if delta >= 0 else (-delta) << 1 | 1,
        lines,
        0 if col is None else col + 1,
        0 if ecol is None else ecol + 1,
    ):
        while v >= 64:
            put(0x40 | (v & 63))
            v >>= 6
        put(v)
    return bytes(out)


_START, _END = operator.itemgetter(0), operator.itemgetter(1)
_COL, _ECOL = operator.itemgetter(2), operator.itemgetter(3)
# each byte of a line table -> the code units of the entry it starts (0: not an entry's start)
_ENTRY_UNITS = bytes((b & 7) + 1 if b & 0x80 else 0 for b in range(256))
_NOT_ENTRY_START = bytes(range(0x80))
_IS_ENTRY_START = bytes(b >> 7 for b in range(256))
# the first byte of a long-form entry of n code units
_LONG_FIRST_BYTE = [b""] + [bytes((0xF0 | (n - 1),)) for n in range(1, 9)]
_NO_COLUMN_OR_LONG = re.compile(b"[\xe8-\xf7]")  # the first byte of entries of codes 13, 14


# nodes whose children may lie outside their own lines (decorators above a `def`; f-string
# parts, placed oddly by older Pythons): always entered
_ENTERED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.JoinedStr)


def _remap_in_place(
    fdef: ast.AST, changed: dict[int, tuple[int, int]], first: int, last: int
) -> None:
    """:func:`_remap` for a tree parsed at the file's own line numbers, each new line standing
    at the file line it replaces: a node on a changed line spans that line (its indentation to
    its end: ``changed[line]``), every other node is left as it is. Subtrees on unchanged lines
    only are not entered."""
    before = [0] * (last - first + 2)  # changed lines before each line of the function
    for k in range(first, last + 1):
        before[k - first + 1] = before[k - first] + (k in changed)
    stack = [fdef]
    pop, push = stack.pop, stack.append
    ast_type, const_type = ast.AST, ast.Constant
    fields_of = _child_fields
    while stack:
        node = pop()
        kind = type(node)
        lineno = getattr(node, "lineno", None)
        if lineno is not None and kind not in _ENTERED:
            end = node.end_lineno  # type: ignore[attr-defined]
            if (
                end is not None
                and first <= lineno <= end <= last
                and before[end - first + 1] == before[lineno - first]
            ):
                continue  # on unchanged lines only, and so is everything inside it
        if kind is not const_type:
            fields = fields_of[kind]
            for field in fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast_type):
                            push(item)
                elif isinstance(value, ast_type):
                    push(value)
        if lineno is None:
            continue
        span = changed.get(lineno)
        if span is not None:
            node.col_offset = span[0]  # type: ignore[attr-defined]
        end = node.end_lineno  # type: ignore[attr-defined]
        if end is None:
            continue
        span = changed.get(end)
        if span is not None:
            node.end_col_offset = span[1]  # type: ignore[attr-defined]
        if end < lineno or (end == lineno and node.end_col_offset < node.col_offset):  # type: ignore[attr-defined]
            node.end_lineno = lineno  # type: ignore[attr-defined]
            node.end_col_offset = node.col_offset  # type: ignore[attr-defined]


def _shift_location(loc: Location, shift: int) -> Location:
    return Location(
        loc.path,
        loc.line + shift,
        loc.col,
        loc.end_line + shift if loc.end_line else 0,
        loc.end_col,
    )


# a line a message names ("the statement at line 12", "(line 7: ...)"): a line of the text
# converted, which starts with the decorator's header
_LINE_IN_MESSAGE = re.compile(r"\b(line )(\d+)\b")


def _shift_message(message: str, shift: int) -> str:
    if not shift or "line " not in message:
        return message
    return _LINE_IN_MESSAGE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + shift}", message)


def _shift_change(c: Change, shift: int) -> Change:
    return Change(c.code, _shift_location(c.location, shift), _shift_message(c.message, shift))


def _shift_refusal(r: Refusal, shift: int) -> Refusal:
    return Refusal(r.code, _shift_location(r.location, shift), _shift_message(r.reason, shift))


def _compiled_by_autojit(code: types.CodeType) -> bool:
    """Whether ``code`` is part of a conversion autojit compiled (a function defined inside a
    converted function)."""
    return any(code in rec.codes for rec in _all_records())


def _annotate(exc: BaseException) -> None:
    """Add a note naming the rewrite applied at the line of converted code that raised."""
    if getattr(exc, "__autojit_noted__", False):
        return
    tb = exc.__traceback__
    hit: tuple[_Record, int] | None = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.endswith(".py") or code.co_filename.startswith("<"):
            for rec in _all_records():
                if code in rec.codes:
                    hit = (rec, tb.tb_lineno)
        tb = tb.tb_next
    if hit is None:
        return
    rec, line = hit
    notes = [
        f"{c.location}: autojit rewrote this line ({c.code}: {c.message})"
        for c in rec.changes
        if c.location.line <= line <= max(c.location.end_line, c.location.line)
    ]
    if notes:
        for n in notes:
            exc.add_note(n)
        try:
            exc.__autojit_noted__ = True  # type: ignore[attr-defined]
        except AttributeError:
            pass


# --------------------------------------------------------------------------------------------
# which functions are the user's own


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple[str, ...]:
    import sysconfig

    dirs = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = paths.get(key)
        if p:
            dirs.add(os.path.realpath(p) + os.sep)
    dirs.add(os.path.dirname(os.path.realpath(os.__file__)) + os.sep)
    return tuple(sorted(dirs))


def _is_user_module(module: types.ModuleType, caller: types.FunctionType) -> bool:
    name = module.__name__
    top = name.split(".")[0]
    if top in _NOT_USER_PACKAGES or top != (caller.__module__ or "").split(".")[0]:
        return False
    filename = getattr(module, "__file__", None)
    if not filename or "site-packages" in filename or "dist-packages" in filename:
        return False
    return not os.path.realpath(filename).startswith(_library_dirs())


def _names_bound_in(tree: ast.AST) -> set[str]:
    """The names bound anywhere in ``tree`` (a function's module tree), except the name of a
    function it defines at its top (the function itself): parameters, targets, imports,
    nested definitions."""
    out: set[str] = set()
    top = {s.name for s in getattr(tree, "body", []) if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in walk_nodes(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name not in top:
                out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).partition(".")[0])
    return out


def _function_of(owner: Any, attr: str) -> Any:
    """The function ``owner.attr`` calls: a module's attribute; of a class, a function defined
    in it or a static method's (not a class method: it is bound to the class), looked up
    without running a descriptor or a metaclass's ``__getattr__``."""
    if isinstance(owner, types.ModuleType):
        return getattr(owner, attr, None)
    import inspect

    try:
        value = inspect.getattr_static(owner, attr)
    except AttributeError:
        return None
    return value.__func__ if isinstance(value, staticmethod) else value


def _is_user_function(value: Any, caller: types.FunctionType) -> bool:
    if not isinstance(value, types.FunctionType) or value is caller:
        return False
    if getattr(value, _OPT_OUT, False) or id(value) in _opted_out or getattr(value, _MARK, False):
        return False
    if value.__code__.co_name == "<lambda>":
        return False
    mod = value.__module__ or ""
    caller_mod = caller.__module__ or ""
    if mod != caller_mod:
        top = mod.split(".")[0]
        if top != caller_mod.split(".")[0] or top in _NOT_USER_PACKAGES:
            return False
    if mod.split(".")[0] in _NOT_USER_PACKAGES:
        return False
    filename = value.__code__.co_filename
    if filename.startswith("<"):
        return False
    if "site-packages" in filename or "dist-packages" in filename:
        return False
    real = os.path.realpath(filename)
    return not real.startswith(_library_dirs())


# --------------------------------------------------------------------------------------------
# small things


def _passed_to_static_parameters(fn: types.FunctionType, lines: list[str]) -> set[str]:
    """The parameters of ``fn`` that it passes, as they are, to a static argument of a function
    decorated with ``@autojit.convert`` and called by a global name: `helper(x, n)`, where
    `helper`'s `n` is static, makes `n` static here too (jit would give `helper` a traced `n`,
    which its jit cannot hash). Only callees bound when ``fn`` is decorated are seen."""
    code = fn.__code__
    callees: dict[str, tuple[list[str], set[str], set[int]]] = {}
    for name in code.co_names:
        obj = fn.__globals__.get(name)
        original = getattr(obj, "original", None)
        if not isinstance(original, types.FunctionType) or not hasattr(obj, "static_argnums"):
            continue
        names = set(getattr(obj, "static_argnames", ()) or ())
        nums = set(getattr(obj, "static_argnums", ()) or ())
        if names or nums:
            callees[name] = (_positional_params(original.__code__), names, nums)
    if not callees:
        return set()
    own = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        callee = callees.get(node.func.id)
        if callee is None:
            continue
        positional, names, nums = callee
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            pname = positional[i] if i < len(positional) else None
            if (i in nums or pname in names) and isinstance(arg, ast.Name) and arg.id in own:
                out.add(arg.id)
        for kw in node.keywords:
            index = positional.index(kw.arg) if kw.arg in positional else None
            if (kw.arg in names or index in nums) and isinstance(kw.value, ast.Name):
                if kw.value.id in own:
                    out.add(kw.value.id)
    return out


def _positional_params(code: types.CodeType) -> list[str]:
    return list(code.co_varnames[: code.co_argcount])


def _param_index(code: types.CodeType, name: str) -> int | None:
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    if name in params:
        return params.index(name)
    return None


def _owner_class(fn: types.FunctionType) -> str | None:
    """The name of the class ``fn`` was defined in (its private names are mangled with it)."""
    parts = fn.__qualname__.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>" and parts[-2].isidentifier():
        return parts[-2]
    return None


def _renamed(code: types.CodeType, prefix: str, original: types.CodeType) -> types.CodeType:
    """``code`` named as the original function, and the functions inside it qualified so."""
    consts = tuple(
        _renamed(c, prefix, original) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    qual = code.co_qualname
    if qual == prefix:
        return code.replace(
            co_name=original.co_name, co_qualname=original.co_qualname, co_consts=consts
        )
    if qual.startswith(prefix + "."):
        qual = original.co_qualname + qual[len(prefix) :]
    return code.replace(co_qualname=qual, co_consts=consts)


def _const_code(code: types.CodeType, name: str) -> types.CodeType:
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and c.co_name == name:
            return c
    raise ConversionError(f"autojit: no code for {name}")  # pragma: no cover


def _import_module(name: str) -> types.ModuleType:
    import importlib

    return importlib.import_module(name)


def _import_jax() -> Any:
    import jax

    return jax


_hidden = False


def _hide_frames(jax: Any) -> None:
    """Let JAX's traceback filtering hide this module's frames, as it hides its own."""
    global _hidden
    if _hidden:
        return
    _hidden = True
    try:
        from jax._src import traceback_util

        traceback_util.register_exclusion(__file__)
    except Exception:  # pragma: no cover - private API moved
        pass


__all__ = ["ConversionError", "ConversionWarning", "convert", "do_not_convert", "to_code"]
