"""The table of static parameters (`autojit.jaxapi.STATIC_PARAMETERS`) against the real jax
signatures: every function exists, every parameter named exists, and every position given is the
position of that parameter."""

from __future__ import annotations

import importlib
import inspect

import jax
import pytest

from autojit.jaxapi import (
    CALLABLE_PARAMETERS,
    SHAPE_ARGUMENTS,
    SIZE_OPTIONAL,
    STATIC_PARAMETERS,
)

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _resolve(qualname: str):
    if qualname.startswith("<method>."):
        return getattr(jax.Array, qualname.split(".", 1)[1])
    module, _, attr = qualname.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError:
        parent, _, sub = module.rpartition(".")
        return getattr(getattr(importlib.import_module(parent), sub), attr)


def _parameters(qualname: str) -> list[inspect.Parameter]:
    params = list(inspect.signature(_resolve(qualname)).parameters.values())
    if qualname.startswith("<method>."):
        assert params and params[0].name == "self", qualname
        params = params[1:]
    return params


TABLES = sorted({**STATIC_PARAMETERS, **CALLABLE_PARAMETERS}.items())


@pytest.mark.parametrize("qualname,spec", TABLES, ids=[q for q, _ in TABLES])
def test_entry_matches_the_jax_signature(qualname, spec):
    params = _parameters(qualname)
    by_name = {p.name: p for p in params}
    positional = [p for p in params if p.kind in _POSITIONAL]
    for pname, position in spec.items():
        if pname == "*":
            # every positional argument: the method takes *args
            assert any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params), qualname
            continue
        assert pname in by_name, f"{qualname} has no parameter {pname!r}: {list(by_name)}"
        if position is None:
            assert by_name[pname].kind is inspect.Parameter.KEYWORD_ONLY or pname not in [
                p.name for p in positional
            ], f"{qualname}: {pname!r} can be passed by position"
        else:
            assert position < len(positional), f"{qualname}: no positional parameter {position}"
            assert positional[position].name == pname, (
                f"{qualname}: position {position} is {positional[position].name!r}, not {pname!r}"
            )


def test_lookup_table_is_derived_from_the_named_one():
    assert set(SHAPE_ARGUMENTS) == set(STATIC_PARAMETERS)
    positions, keywords = SHAPE_ARGUMENTS["jax.numpy.full"]
    assert positions == {0, 2} and keywords >= {"shape", "dtype"}
    assert SHAPE_ARGUMENTS["<method>.reshape"][0] == "*"
    assert SIZE_OPTIONAL <= set(STATIC_PARAMETERS)
    for q in SIZE_OPTIONAL:
        assert "size" in STATIC_PARAMETERS[q]


def test_the_seeds_calls_are_in_the_table():
    assert "shape" in STATIC_PARAMETERS["jax.numpy.full"]
    assert STATIC_PARAMETERS["jax.random.categorical"]["shape"] == 3
    assert STATIC_PARAMETERS["jax.numpy.linspace"]["num"] == 2


def test_at_update_methods_are_jax_s():
    """Every name in AT_UPDATE_METHODS is a method of jax's `x.at[index]`."""
    from autojit.jaxapi import AT_UPDATE_METHODS

    ref = jax.numpy.zeros(3).at[0]
    assert all(callable(getattr(ref, m, None)) for m in AT_UPDATE_METHODS)
