"""A Groot2 client on libzmq (pyzmq) and msgpack, for botd's interop test.

It speaks the monitor protocol as Groot2 does: a REQ socket on the endpoint's port, multipart
requests whose first part is the 6-byte header (protocol 2, type, a random request id), replies
whose first part is the 22-byte header (the request echoed, the tree identity). It reads one JSON
request a line on stdin and writes one JSON answer a line on stdout, decoding the reply as Groot2
would, so the Go test asserts what a libzmq client saw.

usage: groot2_client.py PORT
"""
import json
import random
import struct
import sys

import msgpack
import zmq

TIMEOUT_MS = 10000


class Client:
    def __init__(self, port):
        self.ctx = zmq.Context()
        self.url = "tcp://127.0.0.1:%d" % port
        self.sock = None
        self.sub = None
        self.connect()

    def connect(self):
        if self.sock is not None:
            self.sock.close(linger=0)
        self.sock = self.ctx.socket(zmq.REQ)
        self.sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
        self.sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(self.url)

    def exchange(self, parts):
        try:
            self.sock.send_multipart(parts)
            return self.sock.recv_multipart()
        except zmq.Again:
            # A REQ socket left without a reply is stuck: a new one.
            self.connect()
            return None

    def request(self, typ, extra=None):
        rid = random.getrandbits(32)
        header = struct.pack("<BBI", 2, ord(typ), rid)
        parts = [header] + ([extra] if extra is not None else [])
        reply = self.exchange(parts)
        if reply is None:
            return {"timeout": True}, None
        out = {"nparts": len(reply)}
        if reply[0] == b"error":
            out["error"] = [p.decode("utf-8", "replace") for p in reply]
            return out, None
        head = reply[0]
        if len(head) != 22:
            out["bad_header"] = head.hex()
            return out, None
        proto, rtyp, rrid = struct.unpack("<BBI", head[:6])
        out["echo_ok"] = proto == 2 and rtyp == ord(typ) and rrid == rid
        out["tree_id"] = head[6:].hex()
        return out, reply[1:]


def main():
    c = Client(int(sys.argv[1]))
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "fulltree":
            out, body = c.request("T")
            if body is not None:
                out["xml"] = body[0].decode("utf-8")
        elif op == "status":
            out, body = c.request("S")
            if body is not None:
                raw = body[0]
                out["len"] = len(raw)
                out["status"] = [list(struct.unpack("<HB", raw[i:i + 3])) for i in range(0, len(raw) - len(raw) % 3, 3)]
        elif op == "blackboard":
            out, body = c.request("B", req["names"].encode())
            if body is not None:
                out["bb"] = msgpack.unpackb(body[0], raw=False)
        elif op == "record":
            out, body = c.request("r", req["cmd"].encode())
            if body is not None and body:
                out["time"] = body[0].decode()
        elif op == "transitions":
            out, body = c.request("t")
            if body is not None:
                raw = body[0]
                recs = []
                for i in range(0, len(raw) - len(raw) % 9, 9):
                    usec = int.from_bytes(raw[i:i + 6], "little")
                    uid, st = struct.unpack("<HB", raw[i + 6:i + 9])
                    recs.append([usec, uid, st])
                out["len"] = len(raw)
                out["transitions"] = recs
        elif op == "hook":
            # A hook request as Groot2 sends it: I, R, U (a JSON body), D, A, X.
            body = req.get("body")
            out, rest = c.request(req["type"], json.dumps(body).encode() if body is not None else None)
            if rest:
                out["body"] = rest[0].decode()
        elif op == "subscribe":
            # Groot2's SUB socket on the publisher port, subscribed to everything.
            c.sub = c.ctx.socket(zmq.SUB)
            c.sub.setsockopt(zmq.LINGER, 0)
            c.sub.setsockopt(zmq.SUBSCRIBE, b"")
            c.sub.connect("tcp://127.0.0.1:%d" % (int(sys.argv[1]) + 1))
            out = {"subscribed": True}
        elif op == "notice":
            # The next BREAKPOINT_REACHED notice, within timeout_ms.
            if c.sub.poll(req.get("timeout_ms", TIMEOUT_MS)):
                parts = c.sub.recv_multipart()
                proto, typ, _ = struct.unpack("<BBI", parts[0])
                out = {"nparts": len(parts), "proto": proto, "type": chr(typ), "uid": int(parts[1].decode())}
            else:
                out = {"no_notice": True}
        elif op == "raw":
            reply = c.exchange([bytes.fromhex(p) for p in req["parts"]])
            out = {"timeout": True} if reply is None else {"parts": [p.hex() for p in reply]}
        else:
            out = {"client_error": "unknown op " + op}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
