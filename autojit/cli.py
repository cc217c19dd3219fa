"""The ``autojit`` command line: ``convert``, ``check``, ``rules`` and ``explain``.

Messages go to stderr as ``path:line:col: CODE message``; machine output (JSON, diffs, the
converted text of stdin) goes to stdout. Exit status: 0 ok, 1 something would change (``convert
--check``) or there are findings (``check``), 2 an error (syntax error, unreadable file, bad
option). Nothing here imports jax or the user's code.
"""

from __future__ import annotations

import ast
import codecs
import errno
import gc
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from .model import KEPT_CODES, Conversion
from .source import split_lines

EXIT_OK = 0
EXIT_CHANGED = 1
EXIT_ERROR = 2

# directories never searched when a directory is given (besides hidden ones)
EXCLUDED_DIRS = frozenset(
    {
        "__pycache__",
        "__pypackages__",
        "node_modules",
        "site-packages",
        "venv",
        "buck-out",
        "build",
        "dist",
        "_build",
    }
)
_CODE = re.compile(r"^(?:AJ[0-9]{0,3}|ALL)$")


# -- reading and writing files ---------------------------------------------------------------


@dataclass
class FileError:
    code: str
    message: str
    line: int = 1
    col: int = 1

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "line": self.line, "col": self.col}


@dataclass
class FileResult:
    """What converting one file gave: the new text, or the error that stopped it."""

    path: str
    data: bytes = b""
    bom: bool = False
    text: str = ""
    new_text: str = ""
    conversion: Conversion | None = None
    error: FileError | None = None
    notes: list[Any] = field(default_factory=list)
    findings: list[dict[str, Any]] | None = None  # what `check` reports, once found

    @property
    def changed(self) -> bool:
        return self.error is None and self.new_text != self.text

    @property
    def new_data(self) -> bytes:
        return (codecs.BOM_UTF8 if self.bom else b"") + self.new_text.encode("utf-8")


@dataclass
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    all_functions: bool = False
    functions: tuple[str, ...] = ()
    add_jit: bool = False


def decode(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 source bytes; returns (text, had_bom). Line endings are kept as they are."""
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    return data.decode("utf-8"), bom


def _decode_error(data: bytes, exc: UnicodeDecodeError) -> FileError:
    if data.startswith(codecs.BOM_UTF8):  # exc.start counts from after the BOM
        data = data[len(codecs.BOM_UTF8) :]
    start = exc.start
    ends = list(_BYTE_LINE_END.finditer(data, 0, start))  # (`\r\n`, `\r`, `\n`, as Python)
    line = len(ends) + 1
    line_start = ends[-1].end() if ends else 0
    col = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    declared = _CODING_DECLARATION.search(b"\n".join(data.splitlines()[:2]))
    hint = f" (the file declares {declared.group(1).decode('ascii', 'replace')})" if declared else ""
    return FileError(
        "E902",
        f"UnicodeDecodeError: not valid UTF-8 (byte 0x{data[start]:02x}); autojit reads UTF-8 "
        f"only{hint}",
        line,
        col,
    )


_BYTE_LINE_END = re.compile(rb"\r\n|\r|\n")
_CODING_DECLARATION = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def write_atomic(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Replace the file at ``path`` with ``data``: temporary file in the same directory, the
    original's permission bits, fsync, then ``os.replace``. A symlink is followed (its target is
    rewritten). With ``expected``, refuse if the file no longer holds those bytes. A read-only
    file, or one with other hard links (the rename would leave them the old text), is refused:
    the rename would get round the first, and break the second."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real) or "."
    st = os.stat(real)
    if not os.access(real, os.W_OK) or not st.st_mode & 0o222:  # (root may write anything)
        raise OSError(errno.EACCES, "the file is read-only; autojit leaves it as it is")
    if st.st_nlink > 1:
        raise OSError(
            errno.EMLINK,
            f"the file has {st.st_nlink} hard links, which replacing it would leave with the old "
            f"text; convert a copy, or use --diff",
        )
    import tempfile  # (on first write: `check` never needs it)

    fd, tmp = tempfile.mkstemp(
        prefix=f".{os.path.basename(real)}.", suffix=".autojit-tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass
        if expected is not None:
            with open(real, "rb") as f:
                if f.read() != expected:
                    raise OSError(f"{path} changed on disk while it was being converted")
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def iter_python_files(root: str) -> Iterator[str]:
    """``*.py`` files under ``root``, sorted, skipping hidden directories, caches and venvs."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in EXCLUDED_DIRS
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        )
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            # (a symlinked file may lead out of the folder: only files named on their own are
            # followed)
            if name.endswith(".py") and not name.startswith(".") and not os.path.islink(path):
                yield path


def _collect(paths: Sequence[str]) -> list[str | FileResult]:
    """The files to convert, in the order given (directories expanded), each once; a path that
    does not exist becomes its error, in its place."""
    out: list[str | FileResult] = []
    seen: set[str] = set()
    for p in paths:
        if os.path.isdir(p):
            found = list(iter_python_files(p))
        elif os.path.exists(p) or os.path.islink(p):
            found = [p]
        else:
            out.append(FileResult(p, error=FileError("E902", "No such file or directory")))
            continue
        for f in found:
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


# -- converting ---------------------------------------------------------------------------


def convert_bytes(path: str, data: bytes, settings: Settings) -> FileResult:
    """Convert one file's bytes. Never raises: errors are in ``result.error``."""
    from .pipeline import ConversionError, convert_source

    result = FileResult(path, data)
    try:
        result.text, result.bom = decode(data)
    except UnicodeDecodeError as exc:
        result.error = _decode_error(data, exc)
        return result
    result.new_text = result.text
    try:
        conversion = _deep_retry(
            lambda: convert_source(
                result.text,
                path,
                select=settings.select,
                ignore=settings.ignore,
                only=list(settings.functions) or None,
                all_functions=settings.all_functions,
            )
        )
    except RecursionError:
        result.error = _too_deep(result.text)
        return result
    except SyntaxError as exc:
        try:  # the user's syntax error, or one inside autojit (e.g. from gast)?
            ast.parse(result.text, path)
        except (SyntaxError, ValueError):
            result.error = _syntax_error(exc)
            if not exc.lineno:
                result.error = _at_nul(result.text, result.error)
        else:
            result.error = FileError("E000", f"internal error: SyntaxError: {exc}")
        return result
    except ValueError as exc:  # e.g. null bytes on older Pythons
        result.error = _at_nul(result.text, FileError("E999", f"SyntaxError: {exc}"))
        return result
    except ConversionError as exc:
        result.error = FileError("E000", f"cannot convert: {exc}")
        return result
    except Exception as exc:  # a bug in autojit must not take the other files down
        result.error = FileError("E000", f"internal error: {type(exc).__name__}: {exc}")
        return result
    result.conversion = conversion
    new_text = conversion.text
    if new_text != result.text:
        error = _unparsable(new_text)
        if error is not None:
            result.error = error
            return result
    if settings.add_jit:
        from .add_jit import add_jit

        try:
            new_text, result.notes = add_jit(new_text, conversion)
        except Exception as exc:
            result.error = FileError("E000", f"internal error in --add-jit: {exc}")
            return result
    if new_text != conversion.text:
        error = _unparsable(new_text)
        if error is not None:
            result.error = error
            return result
    result.new_text = new_text
    return result


def _at_nul(text: str, error: FileError) -> FileError:
    """Point a "null bytes" error (which Python reports without a position) at the first one."""
    nul = text.find("\0")
    if nul >= 0:
        error.line = text.count("\n", 0, nul) + 1
        error.col = nul - (text.rfind("\n", 0, nul) + 1) + 1
    return error


_T = TypeVar("_T")


def _deep_retry(work: Callable[[], _T]) -> _T:
    """Run ``work``; if it hits Python's recursion limit (a very long or deeply nested
    expression), run it once more in a thread with a large stack and a high recursion limit."""
    try:
        return work()
    except RecursionError:
        pass
    import threading

    out: list[Any] = []

    def run() -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 200_000))
        try:
            out.append(work())
        except BaseException as exc:  # re-raised in the calling thread
            out.append(exc)
        finally:
            sys.setrecursionlimit(limit)

    old_size = threading.stack_size()
    try:
        threading.stack_size(512 * 1024 * 1024)
        thread = threading.Thread(target=run, name="autojit-deep")
    finally:
        threading.stack_size(old_size)
    thread.start()
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]  # type: ignore[no-any-return]


def _too_deep(text: str) -> FileError:
    """The error for a file whose expressions are nested too deeply to parse or convert, at the
    line of the longest logical line (tokenizing does not recurse)."""
    import io
    import tokenize

    line, best, count, start = 1, -1, 0, 1
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if count == 0:
                start = tok.start[0]
            count += 1
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if count > best:
                    line, best = start, count
                count = 0
    except (tokenize.TokenError, SyntaxError):
        pass
    try:
        ast.parse(text)
    except (RecursionError, MemoryError):
        return FileError(
            "E999",
            "SyntaxError: an expression is nested too deeply for Python's parser "
            "(RecursionError)",
            line,
        )
    except (SyntaxError, ValueError) as exc:
        return _syntax_error(exc) if isinstance(exc, SyntaxError) else FileError("E999", str(exc))
    return FileError(
        "E000",
        "cannot convert: an expression is nested too deeply (RecursionError); left as is",
        line,
    )


def _unparsable(text: str) -> FileError | None:
    """Never write a file that does not parse: the error to report if ``text`` does not."""
    try:
        _deep_retry(lambda: ast.parse(text))
    except (RecursionError, MemoryError):
        return FileError(
            "E000", "internal error: the converted file is nested too deeply to parse; left as is"
        )
    except (SyntaxError, ValueError) as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else ""
        msg = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return FileError(
            "E000",
            f"internal error: the converted file does not parse ({msg}{where}); left as is",
        )
    return None


def _syntax_error(exc: SyntaxError) -> FileError:
    line = exc.lineno or 1
    col = exc.offset or 1
    return FileError("E999", f"SyntaxError: {exc.msg}", line, max(col, 1))


def _read(path: str) -> bytes | FileError:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        return FileError("E902", exc.strerror or str(exc))


def _diff(result: FileResult) -> str:
    name = result.path
    out = []
    import difflib  # (for --diff only)

    for line in difflib.unified_diff(
        split_lines(result.text),
        split_lines(result.new_text),
        fromfile=name,
        tofile=name,
    ):
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


# -- reporting ------------------------------------------------------------------------------


def _loc_json(loc: Any) -> dict[str, int]:
    return {
        "line": loc.line,
        "col": loc.col,
        "end_line": loc.end_line or loc.line,
        "end_col": loc.end_col or loc.col,
    }


def _result_json(
    result: FileResult, include_text: bool = False, include_diff: bool = False
) -> dict[str, Any]:
    conv = result.conversion
    out: dict[str, Any] = {
        "path": result.path,
        "changed": result.changed,
        "changes": [],
        "refusals": [],
        "static_arguments": [],
        "notes": [str(n.message) for n in result.notes],
        "error": result.error.as_json() if result.error else None,
    }
    if conv is not None and result.error is None:
        out["changes"] = [
            {"code": c.code, "message": c.message, **_loc_json(c.location)} for c in conv.changes
        ]
        out["refusals"] = [
            {"code": r.code, "message": r.reason, **_loc_json(r.location)} for r in conv.refusals
        ]
        out["static_arguments"] = [
            {
                "function": f.qualname,
                "name": s.name,
                "index": s.index,
                "reason": s.reason,
                "user_declared": s.user_declared,
                **_loc_json(s.location),
            }
            for f in conv.functions
            for s in f.static_arguments
        ]
    if include_text:
        out["text"] = result.new_text if result.error is None else None
    if include_diff:
        out["diff"] = _diff(result) if result.changed else ""
    return out


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


def _report_error(result: FileResult) -> None:
    e = result.error
    assert e is not None
    _echo_err(f"{result.path}:{e.line}:{e.col}: {e.code} {e.message}")


def _report_findings(result: FileResult) -> None:
    conv = result.conversion
    if conv is None:
        return
    items: list[tuple[Any, str]] = [(c.location, str(c)) for c in conv.changes]
    items += [(r.location, str(r)) for r in conv.refusals]
    items += [(n.location, str(n)) for n in result.notes]
    for _, text in sorted(items, key=lambda i: (i[0].line, i[0].col)):
        _echo_err(text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# -- option parsing -------------------------------------------------------------------------


def _codes(ctx: click.Context, param: click.Parameter, values: Sequence[str]) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            code = part.strip().upper()
            if not code:
                continue
            if not _CODE.match(code):
                raise click.BadParameter(
                    f"{part.strip()!r} is not a rule code or prefix (e.g. AJ3, AJ301)"
                )
            code = "AJ" if code == "ALL" else code
            known = _known_codes()
            if known and not any(k.startswith(code) for k in known):
                raise click.BadParameter(
                    f"{part.strip()!r} names no rule (`autojit rules` lists them)"
                )
            out.append(code)
    return tuple(out)


def _known_codes() -> list[str]:
    """The catalog's codes (none where it is missing: then no code is rejected)."""
    from . import registry

    return [r.code for r in registry.all_rules()]


def _conversion_options(f: Any) -> Any:
    options = [
        click.option(
            "--select",
            multiple=True,
            callback=_codes,
            metavar="CODES",
            help="Only these rule codes or prefixes (comma separated, repeatable).",
        ),
        click.option(
            "--ignore",
            multiple=True,
            callback=_codes,
            metavar="CODES",
            help="Skip these rule codes or prefixes (comma separated, repeatable).",
        ),
        click.option(
            "--all-functions/--no-all-functions",
            default=None,
            help="Convert every function, not only those that use jax.",
        ),
        click.option(
            "--function",
            "functions",
            multiple=True,
            metavar="NAME",
            help="Convert only this function (name or Class.method; repeatable).",
        ),
        click.option(
            "--stdin-filename",
            metavar="PATH",
            help="The name of the file read from stdin (`-`), used in messages.",
        ),
        click.option("-q", "--quiet", is_flag=True, help="Print errors only."),
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(min=0),
            default=0,
            show_default=True,
            help="Files converted at once, each in its own process (0: one per core when the "
            "files hold enough source to share; the results are the same).",
        ),
        click.option(
            "--config",
            "config_path",
            type=click.Path(dir_okay=False),
            help="Read [tool.autojit] from this pyproject.toml instead of the nearest one.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


CONFIG_KEYS = {"select", "ignore", "add-jit", "all-functions"}


def find_config(paths: Sequence[str], stdin_filename: str | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.autojit]`` table, searching upwards from
    the paths' common directory (the current directory for stdin)."""
    if list(paths) == ["-"] or not paths:
        starts = [
            os.path.dirname(os.path.abspath(stdin_filename)) if stdin_filename else os.getcwd()
        ]
    else:
        starts = [os.path.abspath(p) for p in paths]
    try:
        start = Path(os.path.commonpath(starts))
    except ValueError:
        start = Path.cwd()
    if not start.is_dir():
        start = start.parent
    for d in [start, *start.parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                if "autojit" in _read_toml(candidate).get("tool", {}):
                    return candidate
            except click.UsageError:
                return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise click.UsageError(f"{path}: cannot read the configuration: {exc}") from exc


def load_config(path: Path) -> dict[str, Any]:
    """``[tool.autojit]`` of ``path``, checked: keys with dashes, codes upper-cased."""
    table = _read_toml(path).get("tool", {}).get("autojit", {})
    if not isinstance(table, dict):
        raise click.UsageError(f"{path}: [tool.autojit] must be a table")
    out: dict[str, Any] = {}
    for key, value in table.items():
        k = key.replace("_", "-")
        if k not in CONFIG_KEYS:
            raise click.UsageError(
                f"{path}: unknown key {key!r} in [tool.autojit] (known: {', '.join(sorted(CONFIG_KEYS))})"
            )
        if k in ("select", "ignore"):
            if isinstance(value, str):
                value = [value]
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise click.UsageError(f"{path}: [tool.autojit] {key} must be a list of codes")
            try:
                out[k] = _codes(None, None, value)  # type: ignore[arg-type]
            except click.BadParameter as exc:
                raise click.UsageError(f"{path}: [tool.autojit] {key}: {exc.message}") from exc
        else:
            if not isinstance(value, bool):
                raise click.UsageError(f"{path}: [tool.autojit] {key} must be true or false")
            out[k] = value
    return out


def _settings(
    paths: Sequence[str],
    stdin_filename: str | None,
    config_path: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    all_functions: bool | None,
    functions: tuple[str, ...],
    add_jit: bool | None = False,
) -> Settings:
    """Options from the command line, falling back to ``[tool.autojit]``."""
    path = Path(config_path) if config_path else find_config(paths, stdin_filename)
    config = load_config(path) if path is not None else {}
    if not select:
        select = config.get("select", ())
    if not ignore:
        ignore = config.get("ignore", ())
    if all_functions is None:
        all_functions = bool(config.get("all-functions", False)) and not functions
    if add_jit is None:
        add_jit = bool(config.get("add-jit", False))
    if all_functions and functions:
        raise click.UsageError("--all-functions and --function cannot be used together")
    return Settings(tuple(select), tuple(ignore), all_functions, tuple(functions), add_jit)


def _check_paths(paths: Sequence[str]) -> None:
    if "-" in paths and len(paths) > 1:
        raise click.UsageError("`-` (stdin) cannot be combined with other paths")


def _warn_unmatched(settings: Settings, results: list[FileResult]) -> None:
    """Say so when a ``--function`` name matched no function in any file."""
    found = {
        n
        for r in results
        if r.conversion is not None
        for f in r.conversion.functions
        for n in (f.name, f.qualname)
    }
    for name in settings.functions:
        if name not in found:
            _echo_err(f"autojit: warning: no function named {name!r} was found")


def binary_stream(name: str) -> Any:
    """The bytes under ``sys.stdin`` / ``sys.stdout`` (click's get_binary_stream is deprecated);
    a stream with no ``buffer`` is taken as it is."""
    stream = getattr(sys, name)
    return getattr(stream, "buffer", stream)


def _stdin_result(settings: Settings, stdin_filename: str | None) -> FileResult:
    name = stdin_filename or "-"
    data = binary_stream("stdin").read()
    return convert_bytes(name, data, settings)


def convert_path(path: str, settings: Settings, findings: bool = False) -> FileResult:
    """Read and convert one file (in a worker process where several files are converted at
    once); ``findings``: with what `check` reports of it. Never raises: errors are in
    ``result.error``."""
    data = _read(path)
    if isinstance(data, FileError):
        return FileResult(path, error=data)
    result = convert_bytes(path, data, settings)
    if findings and result.error is None:
        result.findings = _findings(result)
    if result.conversion is not None:
        result.conversion.tree = None  # (read by the findings only: not kept with the results)
    return result


# Below this much source in all, one process converts the files: starting workers would cost
# about what they save (the rewriter converts ~0.8 MB of source per second per core; a forked
# worker starts in milliseconds, a fresh interpreter importing the rewriter in ~0.3 s).
PARALLEL_MIN_BYTES = {"fork": 64 * 1024, "spawn": 1024 * 1024}


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _workers(jobs: int, paths: Sequence[str], method: str) -> int:
    """How many processes convert ``paths``: ``jobs`` where given (at most one per file), else
    one per available core where there is enough source to share (started by ``method``)."""
    if len(paths) < 2 or jobs == 1:
        return 1
    if jobs > 1:
        return min(jobs, len(paths))
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    if total < PARALLEL_MIN_BYTES[method]:
        return 1
    return min(available_cores(), len(paths))


def _start_method() -> str:
    """Fork where that is safe (Linux, a process running one thread: the command line's own), as
    it copies the loaded rewriter and no worker imports it again; else each worker starts a
    fresh interpreter (a process that loaded jax, whose runtime runs threads of its own)."""
    import multiprocessing
    import threading

    if (
        sys.platform.startswith("linux")
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and "jaxlib" not in sys.modules
    ):
        return "fork"
    return "spawn"


def _convert_in_workers(
    todo: list[tuple[int, str]], settings: Settings, workers: int, method: str, findings: bool
) -> dict[int, FileResult]:
    """Convert files in ``workers`` processes, the largest first (so that no long file starts
    last); index in ``todo`` -> result. A file whose worker could not give a result (the pool
    could not start, or a worker died) is left out, for the caller to convert itself."""
    import concurrent.futures
    import multiprocessing

    def size(item: tuple[int, str]) -> int:
        try:
            return os.path.getsize(item[1])
        except OSError:
            return 0

    done: dict[int, FileResult] = {}
    try:
        pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context(method)
        )
    except (OSError, ValueError):
        return done
    try:
        futures = {}
        for i, path in sorted(todo, key=size, reverse=True):
            futures[pool.submit(convert_path, path, settings, findings)] = i
        for future in concurrent.futures.as_completed(futures):
            try:
                done[futures[future]] = future.result()
            except Exception:  # (a worker that died: its file is converted here after)
                continue
    except concurrent.futures.process.BrokenProcessPool:
        pass  # (a worker died before every file was handed out: the rest are converted here)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return done


def _run(
    paths: Sequence[str],
    settings: Settings,
    stdin_filename: str | None,
    jobs: int = 0,
    findings: bool = False,
) -> list[FileResult]:
    """Convert ``paths`` (files, directories, or `-`), the results in the order given.
    ``jobs``: processes converting at once (0: one per core where there is enough source; the
    results are the same either way); ``findings``: each with what `check` reports of it."""
    if list(paths) == ["-"]:
        return [_stdin_result(settings, stdin_filename)]
    collected = _collect(paths)
    todo = [(i, p) for i, p in enumerate(collected) if not isinstance(p, FileResult)]
    method = _start_method()
    workers = _workers(jobs, [p for _, p in todo], method)
    done = _convert_in_workers(todo, settings, workers, method, findings) if workers > 1 else {}
    results: list[FileResult] = []
    try:
        for i, item in enumerate(collected):
            if isinstance(item, FileResult):
                results.append(item)
            else:
                results.append(done[i] if i in done else convert_path(item, settings, findings))
                # (the results are kept to the end: the cyclic garbage collector need not walk
                # them again at every collection while the next files are converted; a fifth
                # of the time of one process checking all of jax)
                gc.freeze()
    finally:
        gc.unfreeze()
    return results


# -- commands -------------------------------------------------------------------------------


class _Group(click.Group):
    """The command group; commands from other modules are imported only when they are run."""

    lazy: dict[str, tuple[str, str]] = {
        "bench": ("autojit.bench.cli", "bench_command"),
        "fix": ("autojit.editor", "fix_command"),
        "lsp": ("autojit.lsp", "lsp_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module, attr = self.lazy[cmd_name]
            try:
                command = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                _echo_err(f"autojit: the `{cmd_name}` command is unavailable: {exc}")
                return None
            return command  # type: ignore[no-any-return]
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="autojit", prog_name="autojit")
def main() -> None:
    """Rewrite Python/JAX functions so that jax.jit can trace them."""


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
@click.option(
    "--add-jit/--no-add-jit",
    default=None,
    help="Decorate each converted function with jax.jit and its inferred static arguments.",
)
@_conversion_options
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: a list of per-file results on stdout.",
)
def convert(
    paths: tuple[str, ...],
    show_diff: bool,
    check: bool,
    add_jit: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    all_functions: bool | None,
    functions: tuple[str, ...],
    stdin_filename: str | None,
    quiet: bool,
    config_path: str | None,
    jobs: int,
    output_format: str,
) -> None:
    """Rewrite files in place so that jax.jit can trace their functions.

    PATH may be a file, a directory (searched for *.py), or `-` for stdin (the result goes to
    stdout).
    """
    _check_paths(paths)
    settings = _settings(
        paths, stdin_filename, config_path, select, ignore, all_functions, functions, add_jit
    )
    results = _run(paths, settings, stdin_filename, jobs)
    is_stdin = list(paths) == ["-"]
    write = not (show_diff or check)
    as_json = output_format == "json"

    written = 0
    for result in results:
        if result.error is not None:
            _report_error(result)
            continue
        if not quiet and not as_json:
            _report_findings(result)
        if show_diff and result.changed and not as_json:
            click.echo(_diff(result), nl=False)
        if is_stdin:
            if write and not as_json:
                out = binary_stream("stdout")
                out.write(result.new_data)
                out.flush()
            continue
        if write and result.changed:
            try:
                write_atomic(result.path, result.new_data, expected=result.data)
            except OSError as exc:
                result.error = FileError("E902", f"could not write: {exc.strerror or exc}")
                _report_error(result)
                continue
            written += 1

    if as_json:
        click.echo(
            json.dumps(
                [_result_json(r, include_text=is_stdin, include_diff=show_diff) for r in results],
                indent=2,
            )
        )

    _warn_unmatched(settings, results)
    errors = sum(r.error is not None for r in results)
    changed = sum(r.changed for r in results)
    if not quiet and not as_json and not is_stdin:
        verb = "converted" if write else "would be converted"
        unchanged = len(results) - changed - errors
        parts = [f"{_plural(changed, 'file')} {verb}"] if changed or not unchanged else []
        if unchanged:
            parts.append(f"{_plural(unchanged, 'file')} unchanged")
        if errors:
            parts.append(f"{_plural(errors, 'error')}")
        _echo_err("autojit: " + ", ".join(parts))
    if errors:
        sys.exit(EXIT_ERROR)
    if check and changed:
        sys.exit(EXIT_CHANGED)
    sys.exit(EXIT_OK)


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@_conversion_options
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "sarif", "github"]),
    default="text",
    show_default=True,
)
@click.option(
    "--show-notes",
    is_flag=True,
    help="Also print notes (AJ100, AJ930: code kept as it is because it already works under "
    "jit). JSON and SARIF always carry them, as kind/level 'note'.",
)
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    all_functions: bool | None,
    functions: tuple[str, ...],
    stdin_filename: str | None,
    quiet: bool,
    config_path: str | None,
    jobs: int,
    output_format: str,
    show_notes: bool,
) -> None:
    """Report what `convert` would rewrite and what it cannot; write nothing.

    Exit 1 when there are findings, 0 when clean, 2 on error. Notes (code kept as it is because
    it already works under jit) are not findings.
    """
    _check_paths(paths)
    settings = _settings(
        paths, stdin_filename, config_path, select, ignore, all_functions, functions, False
    )
    results = _run(paths, settings, stdin_filename, jobs, findings=True)
    _warn_unmatched(settings, results)
    findings = 0
    files_with_findings = 0
    report: list[dict[str, Any]] = []
    for result in results:
        if result.error is not None:
            _report_error(result)
            if output_format == "json":
                report.append(
                    {"path": result.path, "error": result.error.as_json(), "findings": []}
                )
            continue
        items = _findings(result)
        counted = [it for it in items if it["kind"] != "note"]
        findings += len(counted)
        files_with_findings += bool(counted)
        if output_format == "json":
            report.append({"path": result.path, "error": None, "findings": items})
            continue
        if not show_notes:
            items = counted
        if output_format == "github":
            for it in items:
                level = "warning" if it["kind"] == "change" else "notice"
                click.echo(
                    f"::{level} file={result.path},line={it['line']},col={it['col']},"
                    f"endLine={it['end_line']},endColumn={it['end_col']},"
                    f"title=autojit {it['code']}::{it['code']} {_gh_escape(it['message'])}"
                )
        elif output_format == "text":
            for it in items:
                click.echo(f"{result.path}:{it['line']}:{it['col']}: {it['code']} {it['message']}")
    if output_format == "json":
        click.echo(json.dumps(report, indent=2))
    elif output_format == "sarif":
        click.echo(json.dumps(_sarif(results), indent=2))
    elif output_format == "text" and not quiet:
        _echo_err(
            f"autojit: {_plural(findings, 'finding')} in {_plural(files_with_findings, 'file')}"
            if findings
            else "autojit: no findings"
        )
    if any(r.error is not None for r in results):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_CHANGED if findings else EXIT_OK)


def _sarif(results: list[FileResult]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of the findings (GitHub code scanning and other viewers read it)."""
    from . import __version__

    summaries = {e.code: e for e in load_rules()}
    rules: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    notifications = []
    for result in results:
        if result.error is not None:
            e = result.error
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{e.code} {e.message}"},
                    "locations": [_sarif_location(result.path, e.line, e.col, e.line, e.col)],
                }
            )
            continue
        for it in _findings(result):
            code = it["code"]
            if code not in rules:
                entry = summaries.get(code)
                rules[code] = {
                    "id": code,
                    "name": entry.name if entry and entry.name else code,
                    "shortDescription": {"text": entry.summary if entry else code},
                    "helpUri": it["doc"],
                }
            out.append(
                {
                    "ruleId": code,
                    "level": {"change": "warning", "refusal": "note"}.get(it["kind"], "none"),
                    "message": {"text": it["message"]},
                    "locations": [
                        _sarif_location(
                            result.path, it["line"], it["col"], it["end_line"], it["end_col"]
                        )
                    ],
                }
            )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "autojit",
                        "version": __version__,
                        "rules": list(rules.values()),
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": out,
                # columns are 1-based characters (code points), not SARIF's UTF-16 units
                "columnKind": "unicodeCodePoints",
            }
        ],
    }


def _sarif_location(path: str, line: int, col: int, end_line: int, end_col: int) -> dict:
    uri = Path(path).as_posix() if path != "-" else "stdin"
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": {
                "startLine": line,
                "startColumn": col,
                "endLine": end_line,
                "endColumn": end_col,
            },
        }
    }


def _gh_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _findings(result: FileResult) -> list[dict[str, Any]]:
    conv = result.conversion
    if conv is None:
        return []
    from .editor import LineIndex, function_at

    if result.findings is not None:  # (found where the file was converted: a worker)
        return result.findings
    index = LineIndex(result.text)  # LSP ranges (0-based, UTF-16) next to the 1-based fields
    fixes: dict[str, list[dict[str, Any]]] = {}
    spans: list[Any] = []
    if result.changed:  # (an unchanged file has no edits: no fix)
        edits = _line_edits(result.text, result.new_text, index)
        fixes, spans = _function_fixes(result, edits, index)
    out: list[dict[str, Any]] = []
    for c in conv.changes:
        loc = _loc_json(c.location)
        at = function_at(spans, index.offset_of(c.location.line, c.location.col))
        fix = fixes.get(at.qualname, []) if at is not None else []
        out.append(
            {
                "kind": "note" if c.code in KEPT_CODES else "change",
                "code": c.code,
                "message": c.message,
                "doc": f"rules/{c.code}.md",
                **loc,
                "range": index.location_range(c.location),
                "fix": fix,
            }
        )
    for r in conv.refusals:
        out.append(
            {
                "kind": "note" if r.code in KEPT_CODES else "refusal",
                "code": r.code,
                "message": r.reason,
                "doc": f"rules/{r.code}.md",
                **_loc_json(r.location),
                "range": index.location_range(r.location),
                "fix": [],
            }
        )
    out.sort(key=lambda it: (it["line"], it["col"], it["code"]))
    return out


def _function_fixes(
    result: FileResult, edits: list[dict[str, Any]], index: Any
) -> tuple[dict[str, list[dict[str, Any]]], list[Any]]:
    """The fix of each changed function: the edits that convert it, and it alone (with the
    edits outside every function: the imports it needs), as the editor's quick-fix does. A
    rewrite's lines are not only those of its statement (a loop's `fori_loop` call comes after
    it), and the rewrites of one function go together: every finding of a function carries its
    function's edits. Each edit goes to the function whose lines hold it (an insertion after a
    function's last line is that function's); where that is not clear (an insertion between
    two functions with no line between them, an edit across two) the functions it may belong
    to are checked by applying their fix; one whose fix does not give its new text gets none
    (never a partial fix)."""
    import bisect

    from .editor import _line_span, apply_text_edits, convertible_functions

    assert result.conversion is not None
    spans = convertible_functions(result.text, index, result.conversion.tree)
    by_name = {s.qualname: s for s in spans}
    changed = [f for f in result.conversion.functions if f.changed and f.qualname in by_name]
    lines = sorted((*_line_span(index, by_name[f.qualname]), f.qualname) for f in changed)
    starts = [a for a, _b, _q in lines]
    mine: dict[str, list[dict[str, Any]]] = {f.qualname: [] for f in changed}
    shared: list[dict[str, Any]] = []  # outside every changed function
    unclear: set[str] = set()
    for e in edits:
        a, b = index.offset(e["range"]["start"]), index.offset(e["range"]["end"])
        k = bisect.bisect_right(starts, a) - 1
        holders = [
            q for lo, hi, q in lines[max(k - 1, 0) : k + 2] if lo <= a and b <= hi
        ]
        crossing = [q for lo, hi, q in lines[max(k - 1, 0) : k + 2] if a < hi and b > lo]
        if holders:
            mine[holders[0]].append(e)
            if len(holders) > 1:
                unclear.update(holders)
        elif crossing:
            unclear.update(crossing)
        else:
            shared.append(e)
    fixes: dict[str, list[dict[str, Any]]] = {}
    for f in changed:
        fix = sorted(mine[f.qualname] + shared, key=lambda e: (e["start_line"], e["end_line"]))
        if f.qualname in unclear:
            applied = apply_text_edits(result.text, [_text_edit(e) for e in fix])
            if f.new_text not in applied or any(
                g.original_text not in applied for g in changed if g is not f
            ):
                continue
        fixes[f.qualname] = fix
    return fixes, spans


def _text_edit(edit: dict[str, Any]) -> dict[str, Any]:
    return {"range": edit["range"], "newText": edit["newText"]}


def _line_edits(old: str, new: str, index: Any = None) -> list[dict[str, Any]]:
    """Whole-line edits turning ``old`` into ``new``: 1-based ``start_line`` (inclusive) to
    ``end_line`` (exclusive, so an insertion has start_line == end_line), and the new text;
    with the same edit as an LSP ``TextEdit`` (``range``, ``newText``). See autojit.editor."""
    from .editor import line_edits

    return line_edits(old, new, index)


# -- the rule catalog -------------------------------------------------------------------------


def rules_dir() -> Path:
    from .registry import RULES_DIR

    return RULES_DIR


@dataclass
class RuleEntry:
    code: str
    name: str
    summary: str
    path: Path


def load_rules(directory: Path | None = None) -> list[RuleEntry]:
    directory = directory or rules_dir()
    out = []
    for path in sorted(directory.glob("AJ*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        code, name, summary = path.stem, "", ""
        lines = text.splitlines()
        para: list[str] = []
        in_para = False
        for line in lines:
            if not name and line.startswith("# "):
                head = line[2:].strip()
                c, sep, rest = head.partition(":")
                if sep:
                    code, name = c.strip(), rest.strip()
                else:
                    name = head
                in_para = True
                continue
            if in_para:
                if line.strip() and not line.startswith("#"):
                    para.append(line.strip())
                elif para or line.startswith("#"):
                    break
        summary = " ".join(para)
        out.append(RuleEntry(code, name, _first_sentence(summary), path))
    return out


def _first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?])(?:\s|$)", text)
    return m.group(1) if m else text


@main.command()
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rules(output_format: str) -> None:
    """List the rules: code, name and what each one rewrites."""
    entries = load_rules()
    if output_format == "json":
        click.echo(
            json.dumps(
                [{"code": e.code, "name": e.name, "summary": e.summary} for e in entries],
                indent=2,
            )
        )
        return
    if not entries:
        _echo_err(f"autojit: no rule files found in {rules_dir()}")
        sys.exit(EXIT_ERROR)
    width = max(len(e.code) for e in entries)
    for e in entries:
        click.echo(
            f"{e.code:<{width}}  {e.name}: {e.summary}" if e.name else f"{e.code}  {e.summary}"
        )


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Print a rule's entry from the rule catalog."""
    wanted = code.strip().upper()
    for e in load_rules():
        if e.code.upper() == wanted:
            click.echo(e.path.read_text(encoding="utf-8"), nl=False)
            return
    _echo_err(f"autojit: unknown rule code {code!r} (see `autojit rules`)")
    sys.exit(EXIT_ERROR)


if __name__ == "__main__":  # pragma: no cover
    main()
