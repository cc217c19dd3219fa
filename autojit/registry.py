"""The rule catalog: one Markdown file per rule code in the top-level ``rules/`` folder.

Each file starts with ``# AJ301: array-item-assignment``, then a paragraph that summarises the
rule, then ``## Why`` and ``## Example`` sections whose fenced Python blocks are marked by their
first line (``# before``, ``# after``, ``# inputs``). This module only reads text: it never
imports jax, so the CLI can list and explain rules quickly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path


def _rules_dir() -> Path:
    """The checkout's top-level ``rules/`` (editable install), else the copy a wheel carries."""
    here = Path(__file__).resolve().parent
    checkout = here.parent / "rules"
    if checkout.is_dir():
        return checkout
    return here / "_rules"  # copied there by setup.py's build_py when a wheel is built


RULES_DIR = _rules_dir()

_TITLE = re.compile(r"^#\s+(AJ\d{3})\s*:\s*(\S.*?)\s*$")
_FENCE = re.compile(r"^```[ \t]*python[ \t]*\r?\n(.*?)^```[ \t]*$", re.S | re.M)
_CODE = re.compile(r"^AJ\d{3}$")


class UnknownRule(KeyError):
    """No rule file for this code."""


@dataclass(frozen=True)
class Rule:
    """One rule of the catalog, as its Markdown file describes it."""

    code: str
    name: str
    summary: str
    text: str
    path: Path
    blocks: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def before(self) -> str | None:
        """The first ``# before`` example (the code the rule rewrites or refuses)."""
        return self.blocks.get("before", [None])[0]

    @property
    def after(self) -> str | None:
        """The first ``# after`` example (the exact conversion of ``before``); None for refusals."""
        return self.blocks.get("after", [None])[0]

    @property
    def inputs(self) -> list[str]:
        """The calls of the ``# inputs`` block, one per non-empty line."""
        text = self.blocks.get("inputs", [""])[0] or ""
        return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]

    @property
    def family(self) -> str:
        """``AJ3xx`` for ``AJ301``."""
        return self.code[:3] + "xx"

    @property
    def is_refusal(self) -> bool:
        return self.code.startswith("AJ9")


def parse_rule(text: str, path: Path | str = "<rule>") -> Rule:
    """Parse one rule file's text; raise ``ValueError`` when its title line is malformed."""
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    m = _TITLE.match(first)
    if not m:
        raise ValueError(f"{path}: the first line must be `# AJxxx: name`, got {first!r}")
    code, name = m.group(1), m.group(2)
    rest = text[text.index(first) + len(first) :]
    summary = ""
    for para in re.split(r"\n\s*\n", rest):
        para = para.strip()
        if para and not para.startswith("#") and not para.startswith("```"):
            summary = " ".join(ln.strip() for ln in para.splitlines())
            break
    blocks: dict[str, list[str]] = {}
    for fm in _FENCE.finditer(text):
        body = fm.group(1)
        head, _, tail = body.partition("\n")
        hm = re.match(r"^#\s*(before|after|inputs)\s*$", head.strip())
        if not hm:
            continue
        blocks.setdefault(hm.group(1), []).append(tail)
    return Rule(code, name, summary, text, Path(path), blocks)


@cache
def _load(rules_dir: Path) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    if not rules_dir.is_dir():
        return out
    for p in sorted(rules_dir.glob("AJ*.md")):
        r = parse_rule(p.read_text(encoding="utf-8"), p)
        if r.code != p.stem:
            raise ValueError(f"{p}: its title names {r.code}, the file name {p.stem}")
        out[r.code] = r
    return out


def all_rules(rules_dir: Path | None = None) -> list[Rule]:
    """Every rule of the catalog, sorted by code."""
    return list(_load((rules_dir or RULES_DIR).resolve()).values())


def rule(code: str, rules_dir: Path | None = None) -> Rule:
    """The rule for ``code`` (case-insensitive); ``UnknownRule`` when there is none."""
    code = code.strip().upper()
    rules = _load((rules_dir or RULES_DIR).resolve())
    if code not in rules:
        raise UnknownRule(code)
    return rules[code]


def is_code(text: str) -> bool:
    return bool(_CODE.match(text.strip().upper()))


def reload() -> None:
    """Forget the cached catalog (for tests that edit rule files)."""
    _load.cache_clear()


__all__ = [
    "RULES_DIR",
    "Rule",
    "UnknownRule",
    "all_rules",
    "is_code",
    "parse_rule",
    "reload",
    "rule",
]
