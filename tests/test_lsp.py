"""`autojit lsp`: a real JSON-RPC exchange over stdio with `python -m autojit lsp`."""

from __future__ import annotations

import io
import json
import queue
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from test_editor import BUFFER, CODE_ACTION, DIAGNOSTIC, assert_schema, converted, line_of

from autojit.editor import apply_text_edits, path_to_uri
from autojit.lsp import read_message, write_message

TIMEOUT = 60


class Client:
    """A minimal LSP client talking to a server process over its stdin/stdout."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autojit", "lsp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            try:
                message = read_message(self.proc.stdout)
            except Exception:
                message = None
            self.inbox.put(message)
            if message is None:
                return

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        write_message(self.proc.stdin, {"jsonrpc": "2.0", **message})

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, **({"params": params} if params is not None else {})})

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request; the response (notifications on the way are kept in ``seen``)."""
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, **({"params": params} if params else {})})
        while True:
            message = self.receive()
            if message.get("id") == rid and "method" not in message:
                return message
            self.seen.append(message)

    seen: list[dict[str, Any]] = []

    def receive(self) -> dict[str, Any]:
        message = self.inbox.get(timeout=TIMEOUT)
        assert message is not None, "the server closed its output"
        assert message["jsonrpc"] == "2.0"
        return message

    def diagnostics(self, uri: str) -> dict[str, Any]:
        """The next publishDiagnostics for ``uri``."""
        for i, m in enumerate(self.seen):
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                del self.seen[i]
                return m["params"]
        while True:
            m = self.receive()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]
            self.seen.append(m)

    def close(self) -> int:
        self.request("shutdown")
        self.notify("exit")
        return self.proc.wait(timeout=TIMEOUT)


@pytest.fixture
def client():
    c = Client()
    c.seen = []
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait()


def initialize(c: Client, **options: Any) -> dict[str, Any]:
    r = c.request(
        "initialize",
        {
            "processId": None,
            "rootUri": None,
            "capabilities": {},
            **({"initializationOptions": options} if options else {}),
        },
    )
    c.notify("initialized", {})
    return r


def code_actions(
    c: Client, uri: str, line: int, character: int = 0, only: list[str] | None = None
) -> list[dict[str, Any]]:
    p = {"line": line, "character": character}
    context: dict[str, Any] = {"diagnostics": []}
    if only is not None:
        context["only"] = only
    r = c.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": {"start": p, "end": p}, "context": context},
    )
    assert "result" in r, r
    return r["result"]


def test_lsp_session(client: Client, tmp_path: Path) -> None:
    r = initialize(client)
    caps = r["result"]["capabilities"]
    assert caps["textDocumentSync"]["change"] == 1 and caps["textDocumentSync"]["openClose"]
    assert "quickfix" in caps["codeActionProvider"]["codeActionKinds"]
    assert caps["positionEncoding"] == "utf-16"
    assert r["result"]["serverInfo"]["name"] == "autojit"

    text = BUFFER.replace("\n", "\r\n")
    uri = path_to_uri(str(tmp_path / "m.py"))
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    published = client.diagnostics(uri)
    assert published["version"] == 1
    diags = published["diagnostics"]
    for d in diags:
        assert_schema(d, DIAGNOSTIC)
    line = line_of(text, "x[i] = y") - 1
    item = next(d for d in diags if d["range"]["start"]["line"] == line)
    assert item["range"]["start"]["character"] == 12  # after 'é𝄞' (3 UTF-16 units)
    assert item["severity"] == 2 and item["code"].startswith("AJ3")
    assert {d["data"]["function"] for d in diags} >= {"put", "branch", "C.m"}

    # the quick-fix at the cursor: the same action as `autojit fix`, applied = converted
    (quick, fix_all) = code_actions(client, uri, line, 14)
    assert_schema(quick, CODE_ACTION)
    assert quick["title"] == "Make `put` jittable (autojit)"
    assert apply_text_edits(text, quick["edit"]["changes"][uri]) == converted(text, "put")
    assert fix_all["kind"] == "source.fixAll.autojit"
    from autojit import convert_source

    whole = convert_source(text, "m.py").text
    assert apply_text_edits(text, fix_all["edit"]["changes"][uri]) == whole
    assert code_actions(client, uri, 0) == []  # no function at the cursor
    r = client.request(  # a selection over the whole file: a quick-fix per function in it
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}},
            "context": {"diagnostics": []},
        },
    )
    assert [a["title"] for a in r["result"]] == [
        "Make `put` jittable (autojit)",
        "Make `branch` jittable (autojit)",
        "Make `C.m` jittable (autojit)",
        "Make all functions jittable (autojit)",
    ]
    assert code_actions(client, uri, line_of(text, "def plain") - 1) == []  # nothing to fix
    only = code_actions(client, uri, line, only=["source.fixAll"])
    assert [a["kind"] for a in only] == ["source.fixAll.autojit"]

    # full-sync change: fixed in the editor -> the diagnostic goes away
    new_text = apply_text_edits(text, quick["edit"]["changes"][uri])
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": new_text}]},
    )
    published = client.diagnostics(uri)
    assert published["version"] == 2
    assert all(d["data"]["function"] != "put" for d in published["diagnostics"])
    assert len(published["diagnostics"]) == len(diags) - 1
    assert code_actions(client, uri, line, 14) == [] or all(
        a["title"] != "Make `put` jittable (autojit)" for a in code_actions(client, uri, line)
    )

    # while typing: a syntax error clears the diagnostics; no code actions
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": "def f(:\n"}]},
    )
    assert client.diagnostics(uri)["diagnostics"] == []
    assert code_actions(client, uri, 0) == []

    # save with text, close
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
    assert len(client.diagnostics(uri)["diagnostics"]) == len(diags)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri)["diagnostics"] == []

    # an unknown request is an error, an unknown notification is ignored
    client.notify("$/cancelRequest", {"id": 99})
    r = client.request("textDocument/hover", {})
    assert r["error"]["code"] == -32601
    assert client.close() == 0


def test_lsp_lifecycle_errors(client: Client) -> None:
    r = client.request("textDocument/codeAction", {})
    assert r["error"]["code"] == -32002  # not initialized
    initialize(client)
    r = client.request("textDocument/codeAction", {"textDocument": {}})  # bad params
    assert r["error"]["code"] == -32603
    client.notify("exit")  # exit without shutdown: exit code 1
    assert client.proc.wait(timeout=TIMEOUT) == 1


def test_lsp_settings_from_options_and_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.autojit]\nignore = ["AJ1"]\n')
    uri = path_to_uri(str(tmp_path / "m.py"))
    c = Client()
    c.seen = []
    try:
        initialize(c)
        c.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BUFFER}},
        )
        codes = {d["code"] for d in c.diagnostics(uri)["diagnostics"]}
        assert codes and not any(code.startswith("AJ1") for code in codes)  # config
        assert c.close() == 0
    finally:
        c.proc.kill()
    c = Client()
    c.seen = []
    try:
        initialize(c, select=["AJ1"], ignore=[])  # initializationOptions win
        c.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BUFFER}},
        )
        codes = {d["code"] for d in c.diagnostics(uri)["diagnostics"]}
        assert codes and all(code.startswith("AJ1") for code in codes)
        assert c.close() == 0
    finally:
        c.proc.kill()


def test_framing_and_no_jax() -> None:
    """Messages split and joined arbitrarily; the server never imports jax."""
    code = textwrap.dedent(
        """\
        import io, json, sys
        from autojit.lsp import Server, read_message, write_message
        BUFFER = json.loads(sys.argv[1])
        inp = io.BytesIO()
        msgs = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
                {"uri": "untitled:1", "languageId": "python", "version": 1, "text": BUFFER}}},
            {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {
                "textDocument": {"uri": "untitled:1"},
                "range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 0}},
                "context": {"diagnostics": []}}},
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"},
        ]
        for m in msgs:
            write_message(inp, m)
        inp.seek(0)
        out = io.BytesIO()
        code = Server(inp, out).run()
        out.seek(0)
        got = []
        while (m := read_message(out)) is not None:
            got.append(m)
        print(json.dumps({"code": code, "ids": [m.get("id") for m in got],
                          "actions": len(got[2]["result"]),
                          "jax": any(k == "jax" or k.startswith(("jax.", "jaxlib")) for k in sys.modules)}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(BUFFER)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parent.parent,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result == {"code": 0, "ids": [1, None, 2, 3], "actions": 2, "jax": False}


def test_read_message_framing() -> None:
    body = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"s": "é𝄞"}}).encode()
    stream = io.BytesIO(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )
    assert read_message(stream) == {"jsonrpc": "2.0", "method": "x", "params": {"s": "é𝄞"}}
    assert read_message(stream) is None


def test_queued_changes_are_checked_once(client: Client, tmp_path: Path) -> None:
    """Changes sent faster than they are checked: the last version is always published, older
    ones that a queued change supersedes may be skipped, never published after a newer one."""
    from autojit.lsp import _superseded

    initialize(client)
    uri = path_to_uri(str(tmp_path / "m.py"))
    messages = [
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": BUFFER}
            },
        }
    ]
    for v in range(1, 8):
        text = BUFFER + "\n" * v
        messages.append(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": v},
                    "contentChanges": [{"text": text}],
                },
            }
        )
    assert _superseded(messages[0], messages[1:]) and not _superseded(messages[-1], [])
    other = {**messages[1], "params": {**messages[1]["params"], "textDocument": {"uri": "x"}}}
    assert not _superseded(messages[0], [other])
    assert client.proc.stdin is not None
    buf = io.BytesIO()
    for m in messages:
        write_message(buf, {"jsonrpc": "2.0", **m})
    client.proc.stdin.write(buf.getvalue())  # all at once
    client.proc.stdin.flush()
    code_actions(client, uri, 0)  # a round trip: every change before it has been handled
    versions = [
        m["params"]["version"]
        for m in client.seen
        if m.get("method") == "textDocument/publishDiagnostics"
    ]
    assert versions and versions[-1] == 7 and versions == sorted(versions)
    assert client.close() == 0
