"""autojit over a large body of real Python: the installed source of jax and numpy.

    python benchmarks/scale.py [PATH ...] [--all-functions] [--limit N] [--timeout S]

For every ``*.py`` file (default: ``site-packages/jax`` and ``site-packages/numpy``) runs what
``autojit check`` and ``autojit convert --diff`` run (``cli.convert_bytes``, then the findings with
their line edits and the diff), and checks:

- no crash (an ``E000`` internal error or an exception out of the CLI's code);
- every converted output parses again;
- converting the output again changes nothing (idempotent);
- each file finishes within ``--timeout`` seconds.

Prints files, lines, changed files, findings, errors by code, every bug, and the throughput in
lines per second beside bare ``ast.parse`` + ``ast.unparse`` of the same files. Exit status 1
when any bug was found.
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


@dataclass
class Report:
    files: int = 0
    lines: int = 0
    changed: int = 0
    findings: int = 0
    seconds: float = 0.0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    bugs: list[str] = field(default_factory=list)


def default_paths() -> list[str]:
    import jax
    import numpy

    return [os.path.dirname(jax.__file__), os.path.dirname(numpy.__file__)]


def python_files(paths: list[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    return out


def run_autojit(files: list[str], all_functions: bool, timeout: float) -> Report:
    from autojit import cli

    settings = cli.Settings(all_functions=all_functions)
    rep = Report()
    signal.signal(signal.SIGALRM, _alarm)
    for path in files:
        data = Path(path).read_bytes()
        rep.files += 1
        rep.lines += data.count(b"\n")
        started = time.process_time()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            result = cli.convert_bytes(path, data, settings)
            findings = cli._findings(result) if result.error is None else []
            diff = cli._diff(result) if result.changed else ""
        except _Timeout:
            rep.bugs.append(f"{path}: timeout: more than {timeout:.0f} s")
            continue
        except Exception as exc:  # the CLI promises never to raise
            rep.bugs.append(f"{path}: crash: {type(exc).__name__}: {exc}")
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            rep.seconds += time.process_time() - started
        del diff
        if result.error is not None:
            e = result.error
            rep.errors[e.code] += 1
            if e.code == "E000":
                rep.bugs.append(f"{path}:{e.line}:{e.col}: crash: {e.message}")
            continue
        rep.findings += len(findings)
        if not result.changed:
            continue
        rep.changed += 1
        try:
            ast.parse(result.new_text)
        except SyntaxError as exc:
            rep.bugs.append(f"{path}: the output does not parse: {exc.msg} at line {exc.lineno}")
            continue
        try:
            again = cli.convert_bytes(path, result.new_data, settings)
        except Exception as exc:
            rep.bugs.append(f"{path}: crash on the converted output: {type(exc).__name__}: {exc}")
            continue
        if again.error is not None:
            rep.bugs.append(f"{path}: the converted output fails: {again.error.message}")
        elif again.new_text != result.new_text:
            first = next(
                (
                    i
                    for i, (x, y) in enumerate(
                        zip(result.new_text.splitlines(), again.new_text.splitlines(), strict=False)
                    )
                    if x != y
                ),
                0,
            )
            line = result.new_text.splitlines()[first].strip() if result.new_text else ""
            rep.bugs.append(
                f"{path}: not idempotent: converting the output changes line {first + 1} "
                f"({line[:60]!r})"
            )
    return rep


def run_baseline(files: list[str]) -> tuple[int, float]:
    """Lines and seconds of bare ``ast.parse`` + ``ast.unparse`` on the files that parse."""
    lines, seconds = 0, 0.0
    for path in files:
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
        started = time.process_time()
        try:
            ast.unparse(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError):
            continue
        finally:
            seconds += time.process_time() - started
        lines += data.count(b"\n")
    return lines, seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("paths", nargs="*", help="files or directories (default: jax and numpy)")
    p.add_argument("--all-functions", action="store_true", help="convert every function")
    p.add_argument("--limit", type=int, default=0, help="only the first N files")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per file")
    a = p.parse_args(argv)
    warnings.simplefilter("ignore")
    files = python_files(a.paths or default_paths())
    if a.limit:
        files = files[: a.limit]
    rep = run_autojit(files, a.all_functions, a.timeout)
    base_lines, base_seconds = run_baseline(files)
    mode = "all functions" if a.all_functions else "functions that use jax"
    print(f"autojit check + convert --diff ({mode}) over {', '.join(a.paths or default_paths())}")
    print(f"files:             {rep.files}")
    print(f"lines:             {rep.lines}")
    print(f"changed files:     {rep.changed}")
    print(f"findings:          {rep.findings}")
    print(f"errors:            {dict(rep.errors) or 0} (E999/E902: the file itself; E000: a bug)")
    print(f"bugs:              {len(rep.bugs)}")
    for b in rep.bugs:
        print(f"  {b}")
    lps = rep.lines / rep.seconds if rep.seconds else 0.0
    base = base_lines / base_seconds if base_seconds else 0.0
    print(f"autojit:           {lps:,.0f} lines/s ({rep.seconds:.1f} s)")
    print(f"ast.parse+unparse: {base:,.0f} lines/s ({base_seconds:.1f} s)")
    if base:
        print(f"ratio:             autojit takes {base / lps:.1f}x the time of parse+unparse")
    return 1 if rep.bugs else 0


if __name__ == "__main__":
    sys.exit(main())
