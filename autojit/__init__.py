"""autojit: rewrite Python/JAX functions so that ``jax.jit`` can trace them."""

from __future__ import annotations

from .decorator import ConversionWarning, convert, do_not_convert, to_code
from .model import Change, Conversion, FunctionConversion, Location, Refusal, StaticArgument
from .pipeline import ConversionError, convert_source

__all__ = [
    "Change",
    "Conversion",
    "ConversionError",
    "ConversionWarning",
    "FunctionConversion",
    "Location",
    "Refusal",
    "StaticArgument",
    "convert",
    "convert_source",
    "do_not_convert",
    "to_code",
]
__version__ = "0.1.0"
