"""``autojit lsp``: a small language server over stdio, with no dependency beyond autojit.

It speaks JSON-RPC 2.0 with ``Content-Length`` framing (the LSP base protocol) and implements:

* ``initialize`` / ``initialized`` / ``shutdown`` / ``exit``;
* ``textDocument/didOpen``, ``didChange`` (full document sync), ``didSave``, ``didClose``: each
  (re)checks the document and sends ``textDocument/publishDiagnostics``: one diagnostic per
  rewrite autojit would make (warning) and per statement it cannot convert (information);
* ``textDocument/codeAction``: the quick-fix "Make `f` jittable" for the function at the
  requested range (the same ``CodeAction`` as ``autojit fix``), and ``source.fixAll.autojit``
  for the whole document.

Positions are LSP's default encoding, UTF-16 (see :mod:`autojit.editor`). Settings come from the
nearest ``pyproject.toml`` ``[tool.autojit]`` of each file; ``initializationOptions`` may hold
``{"select": [...], "ignore": [...]}``, which win. A document that does not parse gets no
diagnostics (the editor's Python support reports syntax errors). Nothing here imports jax.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from .editor import (
    LineIndex,
    action_for_function,
    convertible_functions,
    diagnostics,
    function_at,
    line_edits,
    path_to_uri,
    uri_to_path,
)

if TYPE_CHECKING:
    from .model import Conversion

# JSON-RPC / LSP error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

FIX_ALL_KIND = "source.fixAll.autojit"
# a selection over more functions than this gets the quick-fix of the one at its start only
# (each quick-fix converts the file once)
MAX_QUICKFIXES = 5


class ProtocolError(Exception):
    """The client sent something that is not a framed JSON-RPC message."""


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """Read one framed message; ``None`` at end of input."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            if length is None:
                continue  # stray blank line between messages
            break
        name, _, value = line.decode("ascii", errors="replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError as exc:
                raise ProtocolError(f"bad Content-Length: {value.strip()!r}") from exc
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"message is not JSON: {exc}") from exc
    if not isinstance(message, dict):
        raise ProtocolError("message is not a JSON object")
    return message


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body))
    stream.write(body)
    stream.flush()


@dataclass
class Document:
    uri: str
    text: str
    version: int | None = None
    # the last whole-file conversion, with the (text, select, ignore) it was made from
    conversion: Any = None
    conversion_key: tuple[str, tuple[str, ...], tuple[str, ...]] | None = None


class ResponseError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Server:
    """The language server: reads messages from ``reader``, writes to ``writer``."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self.reader = reader
        self.writer = writer
        self.documents: dict[str, Document] = {}
        self.initialized = False
        self.shutdown_requested = False
        self.options: dict[str, Any] = {}
        self.root: str | None = None
        self._config_errors: set[str] = set()
        self._superseded = False

    # -- the loop ----------------------------------------------------------------------------
    def run(self) -> int:
        """Serve until ``exit`` (or end of input); the process exit code.

        A thread reads messages as they come; the loop handles them in order, and a document
        change that a later queued change of the same document supersedes is applied without
        checking it (fast typing does not queue up a check per keystroke)."""
        inbox: queue.Queue[dict[str, Any] | ProtocolError | None] = queue.Queue()
        threading.Thread(target=self._read_all, args=(inbox,), daemon=True).start()
        while True:
            batch = [inbox.get()]
            while True:
                try:
                    batch.append(inbox.get_nowait())
                except queue.Empty:
                    break
            for k, item in enumerate(batch):
                if isinstance(item, ProtocolError):
                    self.send(
                        {"jsonrpc": "2.0", "id": None, "error": _error(PARSE_ERROR, str(item))}
                    )
                    continue
                if item is None or item.get("method") == "exit":
                    return 0 if self.shutdown_requested else 1
                self._superseded = _superseded(item, batch[k + 1 :])
                try:
                    self.handle(item)
                finally:
                    self._superseded = False

    def _read_all(self, inbox: queue.Queue[dict[str, Any] | ProtocolError | None]) -> None:
        while True:
            try:
                message = read_message(self.reader)
            except ProtocolError as exc:
                inbox.put(exc)
                continue
            except (OSError, ValueError):  # the stream was closed under us
                message = None
            inbox.put(message)
            if message is None:
                return

    def send(self, message: dict[str, Any]) -> None:
        write_message(self.writer, message)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def log(self, message: str, type_: int = 3) -> None:
        self.notify("window/logMessage", {"type": type_, "message": message})

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str):
            return  # a response to a request of ours (we send none) or junk
        is_request = "id" in message
        params = message.get("params") or {}
        handler = self.REQUESTS.get(method) if is_request else self.NOTIFICATIONS.get(method)
        try:
            if is_request and method != "initialize" and not self.initialized:
                raise ResponseError(SERVER_NOT_INITIALIZED, "the server is not initialized")
            if is_request and self.shutdown_requested:
                raise ResponseError(INVALID_REQUEST, "the server is shutting down")
            if handler is None:
                if is_request:
                    raise ResponseError(METHOD_NOT_FOUND, f"unknown method {method}")
                return  # unknown notifications ($/cancelRequest, ...) are ignored
            if not is_request and not self.initialized:
                return
            result = handler(self, params)
        except ResponseError as exc:
            if is_request:
                self.send(
                    {"jsonrpc": "2.0", "id": message["id"], "error": _error(exc.code, exc.message)}
                )
            return
        except Exception as exc:  # a bug must not take the editor's server down
            text = f"autojit: internal error in {method}: {type(exc).__name__}: {exc}"
            if is_request:
                self.send(
                    {"jsonrpc": "2.0", "id": message["id"], "error": _error(INTERNAL_ERROR, text)}
                )
            else:
                self.log(text, 1)
            return
        if is_request:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- lifecycle -------------------------------------------------------------------------
    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        from . import __version__

        self.initialized = True
        options = params.get("initializationOptions") or {}
        self.options = options if isinstance(options, dict) else {}
        root = params.get("rootUri")
        folders = params.get("workspaceFolders") or []
        if not root and folders:
            root = folders[0].get("uri")
        self.root = uri_to_path(root) if root else params.get("rootPath")
        return {
            "capabilities": {
                "positionEncoding": "utf-16",
                "textDocumentSync": {
                    "openClose": True,
                    "change": 1,  # full
                    "save": {"includeText": True},
                },
                "codeActionProvider": {
                    "codeActionKinds": ["quickfix", FIX_ALL_KIND],
                    "resolveProvider": False,
                },
            },
            "serverInfo": {"name": "autojit", "version": __version__},
        }

    def initialized_(self, params: Any) -> None:
        return None

    def shutdown(self, params: Any) -> None:
        self.shutdown_requested = True
        return None

    # -- documents -------------------------------------------------------------------------
    def did_open(self, params: dict[str, Any]) -> None:
        td = params["textDocument"]
        doc = Document(td["uri"], td["text"], td.get("version"))
        self.documents[doc.uri] = doc
        self.publish(doc)

    def did_change(self, params: dict[str, Any]) -> None:
        td = params["textDocument"]
        doc = self.documents.get(td["uri"])
        if doc is None:
            return
        for change in params.get("contentChanges", []):
            if "range" in change:  # incremental, although we asked for full sync
                index = LineIndex(doc.text)
                start = index.offset(change["range"]["start"])
                end = index.offset(change["range"]["end"])
                doc.text = doc.text[:start] + change["text"] + doc.text[end:]
            else:
                doc.text = change["text"]
        doc.version = td.get("version", doc.version)
        self.publish(doc)

    def did_save(self, params: dict[str, Any]) -> None:
        doc = self.documents.get(params["textDocument"]["uri"])
        if doc is None:
            return
        if isinstance(params.get("text"), str):
            doc.text = params["text"]
        self.publish(doc)

    def did_close(self, params: dict[str, Any]) -> None:
        uri = params["textDocument"]["uri"]
        self.documents.pop(uri, None)
        self.notify("textDocument/publishDiagnostics", {"uri": uri, "diagnostics": []})

    # -- checking --------------------------------------------------------------------------
    def settings(self, uri: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(select, ignore) for a document: initializationOptions, else [tool.autojit]."""
        from . import cli

        select: tuple[str, ...] = ()
        ignore: tuple[str, ...] = ()
        path = uri_to_path(uri)
        if path == uri:  # not a file: look from the workspace root
            path = os.path.join(self.root or os.getcwd(), "untitled.py")
        try:
            config_path = cli.find_config([path])
            config = cli.load_config(config_path) if config_path is not None else {}
            select = tuple(config.get("select", ()))
            ignore = tuple(config.get("ignore", ()))
        except click.ClickException as exc:
            if exc.message not in self._config_errors:
                self._config_errors.add(exc.message)
                self.notify("window/showMessage", {"type": 1, "message": f"autojit: {exc.message}"})
        for key in ("select", "ignore"):
            value = self.options.get(key)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                codes = tuple(v.strip().upper() for v in value if v.strip())
                if key == "select":
                    select = codes
                else:
                    ignore = codes
        return select, ignore

    def convert(self, doc: Document, only: list[str] | None = None) -> Conversion | None:
        """The conversion of the document (``None`` if it does not parse); the whole-file one
        is kept until the text or the settings change."""
        from .pipeline import convert_source

        select, ignore = self.settings(doc.uri)
        key = (doc.text, select, ignore)
        if only is None and doc.conversion_key == key:
            return doc.conversion  # type: ignore[no-any-return]
        try:
            conversion = convert_source(
                doc.text, uri_to_path(doc.uri), select=select, ignore=ignore, only=only
            )
        except (SyntaxError, ValueError):
            conversion = None
        if only is None:
            doc.conversion, doc.conversion_key = conversion, key
        return conversion

    def publish(self, doc: Document) -> None:
        if self._superseded:
            return  # a later change of this document is already queued: check that one
        try:
            conversion = self.convert(doc)
            diags = diagnostics(conversion) if conversion is not None else []
        except Exception as exc:
            self.log(f"autojit: cannot check {doc.uri}: {type(exc).__name__}: {exc}", 1)
            diags = []
        params: dict[str, Any] = {"uri": doc.uri, "diagnostics": diags}
        if doc.version is not None:
            params["version"] = doc.version
        self.notify("textDocument/publishDiagnostics", params)

    def code_action(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        uri = params["textDocument"]["uri"]
        doc = self.documents.get(uri)
        if doc is None:
            return []
        only = (params.get("context") or {}).get("only")

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(k + ".") for k in only)

        index = LineIndex(doc.text)
        try:
            import ast

            tree = ast.parse(doc.text)
        except (SyntaxError, ValueError):
            return []
        out: list[dict[str, Any]] = []
        if wanted("quickfix"):
            spans = convertible_functions(doc.text, index, tree)
            start = index.offset(params["range"]["start"])
            end = index.offset(params["range"]["end"])
            targets = [s for s in spans if s.start <= end and s.end >= start]
            inner = function_at(spans, start)
            if len(targets) > MAX_QUICKFIXES:  # a big selection: the fix-all action covers it
                targets = []
            if inner is not None and inner not in targets:
                targets.append(inner)
            # the innermost at the cursor first, then the others the selection touches
            targets.sort(key=lambda s: (s is not inner, s.start))
            for target in targets:
                conversion = self.convert(doc, only=[target.qualname])
                if conversion is None:
                    continue
                action = action_for_function(conversion, target, spans, index, uri)
                if action is not None:
                    out.append(action)
        if (only and wanted(FIX_ALL_KIND)) or (not only and out):
            conversion = self.convert(doc)
            if conversion is not None and conversion.changed:
                edits = [
                    {"range": e["range"], "newText": e["newText"]}
                    for e in line_edits(doc.text, conversion.text, index)
                ]
                out.append(
                    {
                        "title": "Make all functions jittable (autojit)",
                        "kind": FIX_ALL_KIND,
                        "diagnostics": [],
                        "edit": {"changes": {uri: edits}},
                    }
                )
        return out

    REQUESTS = {
        "initialize": initialize,
        "shutdown": shutdown,
        "textDocument/codeAction": code_action,
    }
    NOTIFICATIONS = {
        "initialized": initialized_,
        "textDocument/didOpen": did_open,
        "textDocument/didChange": did_change,
        "textDocument/didSave": did_save,
        "textDocument/didClose": did_close,
    }


_DOCUMENT_CHANGES = ("textDocument/didOpen", "textDocument/didChange", "textDocument/didSave")


def _superseded(message: dict[str, Any], later: list[Any]) -> bool:
    """Whether ``message`` changes a document that a message in ``later`` changes or closes."""
    if message.get("method") not in _DOCUMENT_CHANGES:
        return False
    try:
        uri = message["params"]["textDocument"]["uri"]
    except (KeyError, TypeError):
        return False
    for m in later:
        if (
            isinstance(m, dict)
            and m.get("method") in ("textDocument/didChange", "textDocument/didClose")
            and isinstance(m.get("params"), dict)
            and (m["params"].get("textDocument") or {}).get("uri") == uri
        ):
            return True
    return False


def _error(code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


@click.command("lsp")
def lsp_command() -> None:
    """Run the autojit language server on stdin/stdout (for editors' LSP clients)."""
    # nothing else may write to stdout: it carries the protocol
    out = sys.stdout.buffer
    sys.stdout = sys.stderr
    code = Server(sys.stdin.buffer, out).run()
    out.flush()
    sys.stderr.flush()
    # not sys.exit: the reader thread may be blocked reading stdin, and interpreter shutdown
    # would abort on the lock it holds
    os._exit(code)


__all__ = ["Server", "lsp_command", "read_message", "write_message", "path_to_uri"]
