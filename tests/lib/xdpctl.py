# SPDX-License-Identifier: BSD-2-Clause
"""xdpctl.py - a minimal client of the xdplane control protocol (v1) for the
integration tests: one session on the Unix control socket, newline-delimited
JSON, the version handshake first (see xdplanectl(8)). The tests drive the
daemon through this where they need many requests in one session (100
reloads); single commands go through the real xdplanectl."""
import json
import socket


class CtlError(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Ctl:
    def __init__(self, path, timeout=30.0, client="xdpctl.py"):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        hello = self._rpc({"hello": client, "version": 1})
        if not hello.get("ok"):
            raise CtlError(hello["error"]["code"], hello["error"]["message"])
        self.server = hello

    def _rpc(self, msg):
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise CtlError("closed", "the daemon closed the session")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, command, args=None):
        """The result object; raises CtlError on an error response."""
        msg = {"command": command}
        if args is not None:
            msg["args"] = args
        r = self._rpc(msg)
        if not r.get("ok"):
            raise CtlError(r["error"]["code"], r["error"]["message"])
        return r["result"]

    def close(self):
        self.sock.close()


def port(stats, name):
    for p in stats["ports"]:
        if p["name"] == name:
            return p
    raise KeyError(name)


def klass(port_obj, name):
    for c in port_obj["classes"]:
        if c["name"] == name:
            return c
    raise KeyError(name)
