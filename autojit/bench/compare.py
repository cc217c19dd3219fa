"""The equivalence check: the eager original's outputs against the jitted converted function's.

Outputs are compared leaf by leaf (any pytree: tuples, lists, dicts, arrays, scalars): same
tree structure, same shapes, same dtypes and values within tolerance. Dtypes are compared after
JAX's canonicalisation (with x64 off, a NumPy float64 result is what ``jax.jit`` makes float32;
a Python ``int`` is int32), since that is what jit does to any function, converted or not.
Integer and boolean values must match exactly; NaNs match NaNs in the same places.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5


@dataclass
class LeafComparison:
    """One output leaf: where it is in the output, and how the two sides compare."""

    path: str
    expected_shape: tuple[int, ...] | None
    actual_shape: tuple[int, ...] | None
    expected_dtype: str | None
    actual_dtype: str | None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "expected_shape": list(self.expected_shape)
            if self.expected_shape is not None
            else None,
            "actual_shape": list(self.actual_shape) if self.actual_shape is not None else None,
            "expected_dtype": self.expected_dtype,
            "actual_dtype": self.actual_dtype,
            "max_abs_error": self.max_abs_error,
            "max_rel_error": self.max_rel_error,
            "problems": list(self.problems),
        }


@dataclass
class Equivalence:
    """The verdict of :func:`compare_outputs`."""

    leaves: list[LeafComparison] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # structure-level problems
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL

    @property
    def ok(self) -> bool:
        return not self.problems and all(leaf.ok for leaf in self.leaves)

    @property
    def max_abs_error(self) -> float | None:
        vals = [leaf.max_abs_error for leaf in self.leaves if leaf.max_abs_error is not None]
        return max(vals) if vals else None

    @property
    def max_rel_error(self) -> float | None:
        vals = [leaf.max_rel_error for leaf in self.leaves if leaf.max_rel_error is not None]
        return max(vals) if vals else None

    def all_problems(self) -> list[str]:
        return list(self.problems) + [
            f"{leaf.path}: {p}" for leaf in self.leaves for p in leaf.problems
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "max_abs_error": self.max_abs_error,
            "max_rel_error": self.max_rel_error,
            "rtol": self.rtol,
            "atol": self.atol,
            "problems": self.all_problems(),
            "leaves": [leaf.to_json() for leaf in self.leaves],
        }


def _canonical_dtype(value: Any) -> Any:
    import jax
    import numpy as np

    dt: Any
    if isinstance(value, bool):
        dt = np.dtype(bool)
    elif isinstance(value, int):
        dt = np.dtype(np.int64)
    elif isinstance(value, float):
        dt = np.dtype(np.float64)
    elif isinstance(value, complex):
        dt = np.dtype(np.complex128)
    else:
        dt = np.asarray(value).dtype
    try:
        return jax.dtypes.canonicalize_dtype(dt)
    except Exception:  # noqa: BLE001 - an exotic dtype is compared as it is
        return dt


def _keystr(path: Any) -> str:
    import jax

    s = jax.tree_util.keystr(path)
    return s or "output"


def compare_outputs(
    expected: Any, actual: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Equivalence:
    """Compare the eager original's output (``expected``) with the converted function's."""
    import jax
    import numpy as np

    eq = Equivalence(rtol=rtol, atol=atol)
    exp_leaves, exp_tree = jax.tree_util.tree_flatten_with_path(expected)
    act_leaves, act_tree = jax.tree_util.tree_flatten_with_path(actual)
    if exp_tree != act_tree:  # type: ignore[operator]
        eq.problems.append(f"output structure differs: original {exp_tree}, converted {act_tree}")
        return eq
    for (path, e), (_, a) in zip(exp_leaves, act_leaves, strict=True):
        name = _keystr(path)
        if isinstance(e, str) or isinstance(a, str) or e is None or a is None:
            leaf = LeafComparison(name, None, None, type(e).__name__, type(a).__name__)
            if e != a:
                leaf.problems.append(f"values differ: {e!r} vs {a!r}")
            eq.leaves.append(leaf)
            continue
        try:
            ea = np.asarray(e)
            aa = np.asarray(a)
        except Exception as err:  # noqa: BLE001
            leaf = LeafComparison(name, None, None, type(e).__name__, type(a).__name__)
            leaf.problems.append(f"cannot compare as arrays: {err}")
            eq.leaves.append(leaf)
            continue
        edt, adt = _canonical_dtype(e), _canonical_dtype(a)
        leaf = LeafComparison(name, tuple(ea.shape), tuple(aa.shape), str(edt), str(adt))
        eq.leaves.append(leaf)
        if ea.shape != aa.shape:
            leaf.problems.append(f"shape {ea.shape} vs {aa.shape}")
            continue
        if edt != adt:
            leaf.problems.append(f"dtype {edt} vs {adt}")
        if ea.dtype.kind == "V" or aa.dtype.kind == "V":  # PRNG key data and the like
            if not np.array_equal(ea, aa):
                leaf.problems.append("values differ")
            continue
        exact = ea.dtype.kind in "biu" and aa.dtype.kind in "biu"
        ef = ea.astype(np.complex128 if ea.dtype.kind == "c" else np.float64)
        af = aa.astype(np.complex128 if aa.dtype.kind == "c" else np.float64)
        both_nan = np.isnan(ef) & np.isnan(af)
        diff = np.where(both_nan, 0.0, np.abs(ef - af))
        same_inf = np.isinf(ef) & np.isinf(af) & (ef == af)
        diff = np.where(same_inf, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        denom = np.abs(ef)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(
                denom > 0, diff / np.where(denom > 0, denom, 1.0), np.where(diff > 0, np.inf, 0.0)
            )
        leaf.max_abs_error = float(diff.max()) if diff.size else 0.0
        leaf.max_rel_error = float(rel.max()) if rel.size else 0.0
        if exact:
            bad = int(np.count_nonzero(diff))
        else:
            scale = np.where(np.isfinite(denom), denom, 0.0)
            bad = int(np.count_nonzero((diff > atol + rtol * scale) | np.isinf(diff)))
        if bad:
            leaf.problems.append(
                f"{bad} of {diff.size} values differ (max abs error {leaf.max_abs_error:.3g}, "
                f"max rel error {leaf.max_rel_error:.3g})"
            )
    return eq
