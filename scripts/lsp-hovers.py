#!/usr/bin/env python3
"""Hovers with a node replayed into `pbc lsp`, for comparing two builds side by side.

    python3 scripts/lsp-hovers.py TREE FILE PBC [EDITS]

Starts PBC as a language server on TREE (an editor that watches the tree's files, the node
`web01`), opens FILE (relative to TREE; the generated tree's `modules/m5/bindings/default.pp`,
whose second line binds `m5::k0` to 'value 5 0'), hovers `m5::k0` (the first hover loads the
tree for the node), hovers another key three times (the tree loaded), then EDITS times
(default 6) changes the value `m5::k0` is bound to and hovers it again once the change is
checked, the answer holding the new value. Prints each time in ms, and the server's resident
memory (and its peak) after the first hover and at the end. Alternate two builds' runs to
compare them: this machine's speed swings between runs. (`cargo bench --bench lsp` measures
one build.)
"""
import json
import os
import subprocess
import sys
import time


def main():
    root = os.path.abspath(sys.argv[1])
    path = os.path.join(root, sys.argv[2])
    edits = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    server = subprocess.Popen([sys.argv[3], "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    next_id = [0]

    def send(message):
        body = json.dumps(message).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    def receive():
        headers = {}
        while True:
            line = server.stdout.readline()
            if line == b"\r\n":
                break
            name, value = line.decode().split(":", 1)
            headers[name.lower()] = value.strip()
        return json.loads(server.stdout.read(int(headers["content-length"])))

    def request(method, params):
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        while True:
            message = receive()
            if message.get("id") == next_id[0]:
                return message
            if "method" in message and "id" in message:
                send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    uri = "file://" + path
    watching = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    request("initialize", {"capabilities": watching, "rootUri": "file://" + root,
                           "initializationOptions": {"node": "web01"}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    outline = {"textDocument": {"uri": uri}}
    request("textDocument/documentSymbol", outline)
    with open(path) as f:
        text = f.read()
    document = {"uri": uri, "languageId": "puppet", "version": 1, "text": text}
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}})
    request("textDocument/documentSymbol", outline)

    def hover(line, key, value=None):
        asked = time.time()
        position = {"line": line, "character": 10}
        answer = request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
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
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})
        request("textDocument/documentSymbol", outline)
        value = new
        changed.append(hover(1, "m5::k0", value))
    at_end = memory(server.pid)
    request("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait()
    ordered = sorted(changed)
    print("first hover %.1f ms; on the loaded tree %s ms" % (first, " ".join("%.1f" % t for t in loaded)))
    print("after a change: median %.1f ms: %s" % (ordered[len(ordered) // 2], " ".join("%.1f" % t for t in changed)))
    print("resident after the first hover %s, at the end %s" % (after_first, at_end))


def memory(pid):
    """The process's resident memory and its peak so far, in MB, from /proc."""
    with open("/proc/%d/status" % pid) as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    mb = lambda name: int(fields[name].split()[0]) / 1024
    return "%.1f MB (peak %.1f MB)" % (mb("VmRSS"), mb("VmHWM"))


if __name__ == "__main__":
    main()
