#!/usr/bin/env python3
"""Keystrokes replayed into `pbc lsp`, for comparing two builds side by side.

    python3 scripts/lsp-keystrokes.py TREE FILE PBC [EDITS]

Starts PBC as a language server on TREE (an editor that watches the tree's files), opens
FILE (relative to TREE), then types and deletes one character at the start of its second
line EDITS times (default 21), each time until the server has published the new diagnostics,
and prints the median and every time in ms, and the server's resident memory (and its peak)
after the first check and after the edits. Alternate two builds' runs to compare them: this
machine's speed swings between runs. (`cargo bench --bench lsp` measures one build.)
"""
import os
import sys
import time

from lsp_client import Server, memory


def main():
    root = os.path.abspath(sys.argv[1])
    path = os.path.join(root, sys.argv[2])
    edits = int(sys.argv[4]) if len(sys.argv) > 4 else 21
    server = Server(sys.argv[3])
    uri = "file://" + path
    watching = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    server.request("initialize", {"capabilities": watching, "rootUri": "file://" + root})
    server.notify("initialized", {})
    outline = {"textDocument": {"uri": uri}}
    server.request("textDocument/documentSymbol", outline)
    first = memory(server.pid)
    with open(path) as f:
        text = f.read()
    document = {"uri": uri, "languageId": "puppet", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": document})
    server.request("textDocument/documentSymbol", outline)
    times = []
    for version in range(2, edits + 2):
        at = {"line": 1, "character": 2}
        if version % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": "x"}
        else:
            change = {"range": {"start": at, "end": {"line": 1, "character": 3}}, "text": ""}
        typed = time.time()
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        server.notify("textDocument/didChange", params)
        server.request("textDocument/documentSymbol", outline)
        times.append((time.time() - typed) * 1000)
    after = memory(server.pid)
    server.shut_down()
    ordered = sorted(times)
    print("median %.1f ms: %s" % (ordered[len(ordered) // 2], " ".join("%.1f" % t for t in times)))
    print("resident after the first check %s, after the edits %s" % (first, after))


if __name__ == "__main__":
    main()
