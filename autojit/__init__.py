"""autojit: rewrite Python/JAX functions so that ``jax.jit`` can trace them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import Change, Conversion, FunctionConversion, Location, Refusal, StaticArgument
from .pipeline import ConversionError, convert_source

if TYPE_CHECKING:
    from .bench import BenchResult, benchmark
    from .decorator import ConversionWarning, convert, do_not_convert, to_code

# imported on first use: the command line (`autojit check` on every save in an editor) needs
# neither the decorator nor the benchmark, and importing them costs a sixth of its time
_LAZY = {
    "BenchResult": ".bench",
    "benchmark": ".bench",
    "ConversionWarning": ".decorator",
    "convert": ".decorator",
    "do_not_convert": ".decorator",
    "to_code": ".decorator",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "BenchResult",
    "Change",
    "Conversion",
    "ConversionError",
    "ConversionWarning",
    "FunctionConversion",
    "Location",
    "Refusal",
    "StaticArgument",
    "benchmark",
    "convert",
    "convert_source",
    "do_not_convert",
    "to_code",
]
__version__ = "0.1.0"
