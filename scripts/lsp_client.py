"""A language client for `pbc lsp` over its stdin and stdout, for the scripts that replay an
editor's requests (`lsp-keystrokes.py`, `lsp-hovers.py`)."""
import json
import subprocess


class Server:
    """`PBC lsp` started as a child process."""

    def __init__(self, pbc):
        self.process = subprocess.Popen([pbc, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pid = self.process.pid
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def receive(self):
        headers = {}
        while True:
            line = self.process.stdout.readline()
            if line == b"\r\n":
                break
            name, value = line.decode().split(":", 1)
            headers[name.lower()] = value.strip()
        return json.loads(self.process.stdout.read(int(headers["content-length"])))

    def request(self, method, params):
        """The answer to a request; the server's own requests meanwhile get a null result."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id:
                return message
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def shut_down(self):
        self.request("shutdown", None)
        self.notify("exit")
        self.process.wait()


def memory(pid):
    """The process's resident memory and its peak so far, in MB, from /proc."""
    with open("/proc/%d/status" % pid) as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    mb = lambda name: int(fields[name].split()[0]) / 1024
    return "%.1f MB (peak %.1f MB)" % (mb("VmRSS"), mb("VmHWM"))
