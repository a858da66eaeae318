#!/usr/bin/env python3
"""Hovers with a node replayed into `pbc lsp`, for comparing two builds side by side.

    python3 scripts/lsp-hovers.py TREE FILE PBC [EDITS] [PAUSE_MS]

Starts PBC as a language server on TREE (an editor that watches the tree's files, the node
`web01`), opens FILE (relative to TREE; the generated tree's `modules/m5/bindings/default.pp`,
whose second line binds `m5::k0` to 'value 5 0'), hovers `m5::k0` (the first hover loads the
tree for the node), hovers another key three times (the tree loaded), then EDITS times
(default 6) changes the value `m5::k0` is bound to and hovers it again once the change is
checked (and PAUSE_MS later, default 0: a pause of 250 ms or more lets the server load the
tree again before the hover), the answer holding the new value. Prints each time in ms, and
the server's resident memory (and its peak) after the first hover and at the end. Alternate
two builds' runs to compare them: this machine's speed swings between runs. (`cargo bench
--bench lsp` measures one build.)
"""
import os
import sys
import time

from lsp_client import Server, memory


def main():
    root = os.path.abspath(sys.argv[1])
    path = os.path.join(root, sys.argv[2])
    edits = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    pause = int(sys.argv[5]) / 1000 if len(sys.argv) > 5 else 0
    server = Server(sys.argv[3])
    uri = "file://" + path
    watching = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    server.request("initialize", {"capabilities": watching, "rootUri": "file://" + root,
                           "initializationOptions": {"node": "web01"}})
    server.notify("initialized", {})
    outline = {"textDocument": {"uri": uri}}
    server.request("textDocument/documentSymbol", outline)
    with open(path) as f:
        text = f.read()
    document = {"uri": uri, "languageId": "puppet", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": document})
    server.request("textDocument/documentSymbol", outline)

    def hover(line, key, value=None):
        asked = time.time()
        position = {"line": line, "character": 10}
        answer = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
        took = (time.time() - asked) * 1000
        said = answer["result"]["contents"]["value"]
        assert ("key `%s`" % key) in said, answer
        assert value is None or ('"%s"' % value) in said, said
        return took

    first = hover(1, "m5::k0")
    after_first = memory(server.pid)
    loaded = [hover(4, "m5::k2") for _ in range(3)]
    changed = []
    value = "value 5 0"
    for version in range(2, edits + 2):
        # The value between the quotes of the second line, from its 21st character.
        new = "value 5 0 v%d" % version
        start, end = {"line": 1, "character": 20}, {"line": 1, "character": 20 + len(value)}
        change = {"range": {"start": start, "end": end}, "text": new}
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        server.notify("textDocument/didChange", params)
        server.request("textDocument/documentSymbol", outline)
        time.sleep(pause)
        value = new
        changed.append(hover(1, "m5::k0", value))
    at_end = memory(server.pid)
    server.shut_down()
    ordered = sorted(changed)
    print("first hover %.1f ms; on the loaded tree %s ms" % (first, " ".join("%.1f" % t for t in loaded)))
    print("after a change%s: median %.1f ms: %s" % (" and a pause of %d ms" % (pause * 1000) if pause else "",
                                         ordered[len(ordered) // 2], " ".join("%.1f" % t for t in changed)))
    print("resident after the first hover %s, at the end %s" % (after_first, at_end))


if __name__ == "__main__":
    main()
