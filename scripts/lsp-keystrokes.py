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
import json
import os
import subprocess
import sys
import time


def main():
    root = os.path.abspath(sys.argv[1])
    path = os.path.join(root, sys.argv[2])
    edits = int(sys.argv[4]) if len(sys.argv) > 4 else 21
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
    request("initialize", {"capabilities": watching, "rootUri": "file://" + root})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    outline = {"textDocument": {"uri": uri}}
    request("textDocument/documentSymbol", outline)
    first = memory(server.pid)
    with open(path) as f:
        text = f.read()
    document = {"uri": uri, "languageId": "puppet", "version": 1, "text": text}
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}})
    request("textDocument/documentSymbol", outline)
    times = []
    for version in range(2, edits + 2):
        at = {"line": 1, "character": 2}
        if version % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": "x"}
        else:
            change = {"range": {"start": at, "end": {"line": 1, "character": 3}}, "text": ""}
        typed = time.time()
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})
        request("textDocument/documentSymbol", outline)
        times.append((time.time() - typed) * 1000)
    after = memory(server.pid)
    request("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait()
    ordered = sorted(times)
    print("median %.1f ms: %s" % (ordered[len(ordered) // 2], " ".join("%.1f" % t for t in times)))
    print("resident after the first check %s, after the edits %s" % (first, after))


def memory(pid):
    """The process's resident memory and its peak so far, in MB, from /proc."""
    with open("/proc/%d/status" % pid) as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    mb = lambda name: int(fields[name].split()[0]) / 1024
    return "%.1f MB (peak %.1f MB)" % (mb("VmRSS"), mb("VmHWM"))


if __name__ == "__main__":
    main()
