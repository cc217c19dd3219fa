"""The input spec language of ``autojit bench``, and factories in the user's file.

One spec per argument::

    x=f32[1000000]      a float32 array of that shape (standard normal values)
    mask=bool[100,100]  a boolean array (each element True with probability 1/2)
    i=i32[]             an int32 scalar array (values in [0, 10))
    idx=i32[5](0,100)   an int32 array with values drawn from [0, 100)
    key=prng            ``jax.random.PRNGKey(seed)``
    n=5  s=1.5  flag=True  shape=(3,4)  mode='sum'   a Python literal, passed as it is
    f32[3]              a positional argument (no ``name=``)

``{n}`` in a spec is replaced by the size when sweeping with ``--sizes``. Values are drawn from
a NumPy generator seeded with ``--seed``, so every run sees the same inputs. Arrays are NumPy
arrays: the eager original runs on them as written (in-place updates included); the jitted
functions get copies placed on the target device.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

DTYPES: dict[str, str] = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "c64": "complex64",
    "c128": "complex128",
    "bool": "bool",
}
for _long in list(DTYPES.values()):
    DTYPES.setdefault(_long, _long)

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=(?!=)(.*)$", re.S)
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ARRAY = re.compile(
    r"^(?P<dtype>[A-Za-z][A-Za-z0-9]*)\[(?P<dims>[^\]]*)\]"
    r"(?:\((?P<lo>" + _NUM + r")\s*,\s*(?P<hi>" + _NUM + r")\))?$"
)
SIZE_PLACEHOLDER = "{n}"


class SpecError(ValueError):
    """A spec that cannot be read, or inputs that do not fit the function."""


@dataclass(frozen=True)
class ArgSpec:
    """One argument: an array to draw, a PRNG key, or a Python literal."""

    name: str | None
    kind: str  # "array" | "prng" | "literal"
    text: str
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    low: float | None = None
    high: float | None = None
    value: Any = None

    def __str__(self) -> str:
        return f"{self.name}={self.text}" if self.name else self.text


def substitute_size(spec: str, size: int | None) -> str:
    """Replace ``{n}`` in ``spec`` by ``size``."""
    if SIZE_PLACEHOLDER in spec:
        if size is None:
            raise SpecError(f"{spec!r} uses {SIZE_PLACEHOLDER} but no --sizes were given")
        return spec.replace(SIZE_PLACEHOLDER, str(size))
    return spec


def parse_spec(text: str) -> ArgSpec:
    """Parse one spec such as ``x=f32[1000]``, ``n=5``, ``key=prng`` or ``f32[3]``."""
    m = _NAME.match(text)
    name: str | None = None
    body = text.strip()
    if m:
        name, body = m.group(1), m.group(2).strip()
    if not body:
        raise SpecError(f"empty spec {text!r}")
    if body in ("prng", "key", "prngkey", "PRNGKey"):
        return ArgSpec(name, "prng", body)
    am = _ARRAY.match(body.replace(" ", ""))
    if am and am.group("dtype") not in ("True", "False", "None"):
        dt = am.group("dtype")
        if dt not in DTYPES:
            known = ", ".join(k for k, v in DTYPES.items() if k != v or k == "bool")
            raise SpecError(f"unknown dtype {dt!r} in {text!r}; known: {known}")
        dims_text = am.group("dims").strip()
        dims: list[int] = []
        if dims_text:
            for d in dims_text.split(","):
                d = d.strip()
                if not re.fullmatch(r"\d+", d):
                    raise SpecError(f"bad dimension {d!r} in {text!r} (a non-negative integer)")
                dims.append(int(d))
        lo = float(am.group("lo")) if am.group("lo") is not None else None
        hi = float(am.group("hi")) if am.group("hi") is not None else None
        if lo is not None and hi is not None and not lo < hi:
            raise SpecError(f"empty range ({lo}, {hi}) in {text!r}")
        return ArgSpec(name, "array", body, DTYPES[dt], tuple(dims), lo, hi)
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError):
        raise SpecError(
            f"cannot read spec {text!r}: expected dtype[dims] (f32[100], bool[4,4], i32[]), "
            "prng, or a Python literal (5, 1.5, True, (3, 4), 'sum')"
        ) from None
    return ArgSpec(name, "literal", body, value=value)


def parse_specs(texts: Sequence[str], size: int | None = None) -> list[ArgSpec]:
    """Parse every spec after substituting ``size`` for ``{n}``."""
    out = [parse_spec(substitute_size(t, size)) for t in texts]
    seen: set[str] = set()
    positional_done = False
    for s in out:
        if s.name is None:
            if positional_done:
                raise SpecError(f"positional spec {s.text!r} after a named one")
        else:
            positional_done = True
            if s.name in seen:
                raise SpecError(f"argument {s.name!r} given twice")
            seen.add(s.name)
    return out


def make_value(spec: ArgSpec, rng: Any, seed: int) -> Any:
    """Draw the value of one spec (NumPy arrays; a JAX key for ``prng``)."""
    import numpy as np

    if spec.kind == "literal":
        return spec.value
    if spec.kind == "prng":
        import jax

        return jax.random.PRNGKey(int(rng.integers(0, 2**31 - 1)) if rng is not None else seed)
    dtype_name = spec.dtype or "float32"
    if dtype_name == "bfloat16":
        import ml_dtypes

        dtype: Any = np.dtype(ml_dtypes.bfloat16)
    else:
        dtype = np.dtype(dtype_name)
    shape = spec.shape
    if dtype == np.bool_:
        arr = rng.random(shape) < 0.5
    elif np.issubdtype(dtype, np.integer):
        lo = int(spec.low) if spec.low is not None else 0
        hi = int(spec.high) if spec.high is not None else 10
        arr = rng.integers(lo, hi, size=shape)
    elif np.issubdtype(dtype, np.complexfloating):
        arr = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    elif spec.low is not None and spec.high is not None:
        arr = rng.uniform(spec.low, spec.high, size=shape)
    else:
        arr = rng.standard_normal(shape)
    return np.asarray(arr).astype(dtype)


def make_inputs(
    specs: Sequence[ArgSpec], seed: int = 0, fn: Callable[..., Any] | None = None
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Draw the inputs; with ``fn``, bind named specs to its parameters (positional where
    the parameter is positional) and check that they fit its signature."""
    import numpy as np

    rng = np.random.default_rng(seed)
    args = [make_value(s, rng, seed) for s in specs if s.name is None]
    kwargs = {s.name: make_value(s, rng, seed) for s in specs if s.name is not None}
    if fn is None:
        return tuple(args), kwargs
    return bind(fn, tuple(args), kwargs)


def bind(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Normalise a call to ``fn``: arguments of positional parameters become positional."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return args, kwargs
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        params = ", ".join(str(p) for p in sig.parameters.values())
        raise SpecError(f"inputs do not fit {getattr(fn, '__name__', fn)}({params}): {e}") from None
    return tuple(bound.args), dict(bound.kwargs)


def call_factory(
    factory: Callable[..., Any], size: int | None = None, seed: int = 0
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Call a factory from the user's file: ``factory()``, ``factory(n)`` when sweeping sizes,
    with ``seed=`` when it takes one. It returns ``(args, kwargs)``, a tuple/list of
    positional arguments, or a dict of keyword arguments."""
    kw: dict[str, Any] = {}
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    if "seed" in params:
        kw["seed"] = seed
    positional = [
        p
        for p in params.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "seed"
    ]
    if size is not None:
        if not positional:
            raise SpecError(
                f"--sizes given but the factory {factory.__name__}() takes no size parameter"
            )
        result = factory(size, **kw)
    else:
        result = factory(**kw)
    return split_factory_result(result, getattr(factory, "__name__", "factory"))


def split_factory_result(
    result: Any, name: str = "factory"
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` from what a factory returned."""
    if (
        isinstance(result, tuple)
        and len(result) == 2
        and isinstance(result[0], (tuple, list))
        and isinstance(result[1], dict)
    ):
        return tuple(result[0]), dict(result[1])
    if isinstance(result, dict):
        return (), dict(result)
    if isinstance(result, (tuple, list)):
        return tuple(result), {}
    raise SpecError(
        f"{name}() must return (args, kwargs), a tuple of arguments or a dict of keyword "
        f"arguments; got {type(result).__name__}"
    )


def describe_inputs(args: Sequence[Any], kwargs: dict[str, Any]) -> list[str]:
    """Short descriptions (``f32[1000]``, ``5``) of concrete inputs, for reports."""
    return [describe_value(a) for a in args] + [
        f"{k}={describe_value(v)}" for k, v in kwargs.items()
    ]


_SHORT = {v: k for k, v in DTYPES.items() if len(k) <= 4}


def describe_value(v: Any) -> str:
    shape = getattr(v, "shape", None)
    dtype = getattr(v, "dtype", None)
    if shape is not None and dtype is not None:
        dt = str(dtype)
        if dt.startswith("key<"):
            return dt
        return f"{_SHORT.get(dt, dt)}[{','.join(map(str, shape))}]"
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."
