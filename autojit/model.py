"""Result types of a conversion: what changed, what was refused, and the new text."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
from typing import Any

from .source import split_lines

#: Codes that only report code kept as it is because it already works under jit (a condition
#: on static values, a loop over static values): notes, not findings. ``check`` does not count
#: them and editors show them as hints.
KEPT_CODES = frozenset({"AJ100", "AJ930"})


@dataclass(frozen=True, order=True)
class Location:
    """A place in a source file. ``line`` is 1-based, ``col`` is 1-based in characters."""

    path: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Change:
    """A rewrite that was applied: rule code, place, and what was done."""

    code: str
    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.code} {self.message}"


@dataclass(frozen=True)
class Refusal:
    """A statement left as it is because the rewrite could not be proven safe."""

    code: str
    location: Location
    reason: str

    @property
    def message(self) -> str:
        return self.reason

    def __str__(self) -> str:
        return f"{self.location}: {self.code} {self.reason}"


@dataclass(frozen=True)
class StaticArgument:
    """A parameter that must be static under ``jax.jit``, and the line that made it so."""

    name: str
    index: int | None
    location: Location
    reason: str
    user_declared: bool = False


@dataclass
class FunctionConversion:
    """The conversion of one function."""

    name: str
    qualname: str
    location: Location
    original_text: str
    new_text: str
    changes: list[Change] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    static_arguments: list[StaticArgument] = field(default_factory=list)
    # for each line of ``new_text``, the line of the original file it comes from (a generated
    # statement: the original statement it replaces); given where ``convert_source`` is asked
    # for it (``line_origins=True``) and the function changed, else None
    line_origins: list[int] | None = None
    # the parameters whose items the conversion now updates functionally where NumPy changed
    # the caller's array in place (the caller must use what the function returns)
    updated_arguments: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new_text != self.original_text

    @property
    def static_argnames(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.static_arguments)

    @property
    def static_argnums(self) -> tuple[int, ...]:
        return tuple(a.index for a in self.static_arguments if a.index is not None)


@dataclass
class Conversion:
    """The result of :func:`autojit.convert_source`."""

    filename: str
    original: str
    text: str
    functions: list[FunctionConversion] = field(default_factory=list)
    # the module as parsed from ``original`` (read it, do not change it); not pickled (a result
    # sent from a worker process comes without it)
    tree: ast.Module | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "tree": None}

    @property
    def changed(self) -> bool:
        return self.text != self.original

    @property
    def changes(self) -> list[Change]:
        return sorted((c for f in self.functions for c in f.changes), key=lambda c: c.location)

    @property
    def refusals(self) -> list[Refusal]:
        return sorted((r for f in self.functions for r in f.refusals), key=lambda r: r.location)

    def function(self, name: str) -> FunctionConversion:
        for f in self.functions:
            if f.qualname == name or f.name == name:
                return f
        raise KeyError(name)

    def diff(self, fromfile: str | None = None, tofile: str | None = None) -> str:
        name = fromfile or self.filename
        return "".join(
            difflib.unified_diff(
                split_lines(self.original),
                split_lines(self.text),
                fromfile=name,
                tofile=tofile or name,
            )
        )
