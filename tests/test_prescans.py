"""The text pre-scans are written for speed (plain text searches, words checked by hand); each
must answer exactly as the readable regex it stands for. Checked here on generated text built
from the characters and words that matter to them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from autojit import pipeline
from autojit.converters import masked_reductions
from autojit.converters.base import WordTrigger

# pieces of text that make the patterns match, nearly match, or match inside a word
_PIECES = [
    "jit", "vmap", "grad", "value_and_grad", "scan", "cond", "convert", "f", "g1", "_h",
    "(", ")", ",", " ", "\t", "\n", ".", "[", "]", "x", "é", "ｆ", "1",
    "sum", "max", "amax", "len", "where", "nonzero", "flatnonzero", "size", "unique",
    "if", "and", "or", "not", "for", "while", "print", "lo < x < hi", "in", "is",
    "block_until_ready", "device_get", "np.", "numpy.", "testing.", "time.", "perf_counter",
    "monotonic", "timeit", "my", "_", "~", "&", "==", "=", "!", "isnan", "logical_and",
]  # fmt: skip
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join)

# what masked_reductions.TRIGGER stands for
_MASKED_SPEC = re.compile(
    r"\]\s*\.\s*(?:sum|prod|mean|max|min|size|nonzero)\b"
    r"|\b(?:nonzero|flatnonzero|where|unique|argwhere)\s*\("
    r"|\A(?=[^\[]*\[)[\s\S]*?\b(?:sum|prod|mean|max|min|amax|amin|len)\s*\("
    # (a mask made by a comparison or a logical operator, for AJ921)
    r"|\A(?=[^\[]*\[)[\s\S]*?(?:[<>~&|]|[=!]=|\b(?:isnan|isinf|isfinite|logical_\w+)\b)"
)


@settings(max_examples=600, deadline=None)
@given(_TEXT)
def test_masked_reductions_trigger_is_its_regex(text):
    expected = _MASKED_SPEC.search(text) is not None
    assert (masked_reductions.TRIGGER.search(text) is not None) == expected


@settings(max_examples=600, deadline=None)
@given(_TEXT)
def test_word_trigger_is_its_regex(text):
    words = "if|and|or|not|print|for|while"
    spec = re.compile(rf"\b(?:{words})\b")
    assert (WordTrigger(words).search(text) is not None) == (spec.search(text) is not None)
    call = re.compile(r"\b(?:sum|max|amax|len)\s*\(")
    fast = WordTrigger("sum|max|amax|len", tail=r"\s*\(")
    assert (fast.search(text) is not None) == (call.search(text) is not None)


@settings(max_examples=600, deadline=None)
@given(_TEXT, st.sets(st.sampled_from(["f", "g1", "_h", "x", "jit"])))
def test_passed_names_are_the_transform_regex_matches(text, names):
    expected = {n for n in pipeline._PASSED.findall(text) if n in names}
    assert pipeline._passed_names(text, names) == expected


@settings(max_examples=600, deadline=None)
@given(_TEXT, st.integers(0, 40), st.integers(0, 40))
def test_eager_driver_is_its_regex(text, a, b):
    start, end = min(a, b, len(text)), min(max(a, b), len(text))
    expected = pipeline._EAGER_DRIVER.search(text, start, end) is not None
    assert pipeline._eager_driver(text, start, end) == expected
