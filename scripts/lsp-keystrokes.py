#!/usr/bin/env python3
"""Keystrokes replayed into `pbc lsp`, for comparing two builds side by side.

    python3 scripts/lsp-keystrokes.py TREE FILE PBC [EDITS] [PAUSE_MS]

Starts PBC as a language server on TREE (an editor that watches the tree's files), opens
FILE (relative to TREE), then types and deletes one character at the start of its second
line EDITS times (default 21), each time until the server has published the new diagnostics,
and prints the median and every time in ms, and the server's resident memory (and its peak)
after the first check and after the edits. Alternate two builds' runs to compare them: this
machine's speed swings between runs. (`cargo bench --bench lsp` measures one build.)

With PAUSE_MS, the editor hovers a key of FILE's second line for the node `web01` first (so
the server keeps a tree loaded for hovers) and waits PAUSE_MS before each keystroke: from 250
ms on, the server loads that tree again in each pause, and a keystroke that comes while it
loads is checked beside the load.
"""
import os
import sys
import time

from lsp_client import Server, memory


def main():
    root = os.path.abspath(sys.argv[1])
    path = os.path.join(root, sys.argv[2])
    edits = int(sys.argv[4]) if len(sys.argv) > 4 else 21
    pause = int(sys.argv[5]) / 1000 if len(sys.argv) > 5 else None
    server = Server(sys.argv[3])
    uri = "file://" + path
    watching = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    settings = {"node": "web01"} if pause is not None else {}
    server.request("initialize", {"capabilities": watching, "rootUri": "file://" + root,
                                  "initializationOptions": settings})
    server.notify("initialized", {})
    outline = {"textDocument": {"uri": uri}}
    server.request("textDocument/documentSymbol", outline)
    first = memory(server.pid)
    with open(path) as f:
        text = f.read()
    document = {"uri": uri, "languageId": "puppet", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": document})
    server.request("textDocument/documentSymbol", outline)
    if pause is not None:
        position = {"line": 1, "character": 10}
        server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    times = []
    for version in range(2, edits + 2):
        at = {"line": 1, "character": 2}
        if version % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": "x"}
        else:
            change = {"range": {"start": at, "end": {"line": 1, "character": 3}}, "text": ""}
        if pause is not None:
            time.sleep(pause)
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
