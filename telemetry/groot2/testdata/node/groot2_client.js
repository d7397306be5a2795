// A Groot2 client on the npm zeromq package (its own libzmq build) and
// @msgpack/msgpack, for botd's second interop test. It speaks the monitor
// protocol as Groot2 does: a REQ socket on the endpoint's port, multipart
// requests whose first part is the 6-byte header (protocol 2, the request
// type, a random 32-bit request id, little-endian), replies whose first
// part is the 22-byte header (the request's six bytes echoed and the
// 16-byte tree identity), and a SUB socket on the next port for the
// breakpoint notices. It reads one JSON request a line on stdin and writes
// one JSON answer a line on stdout, so the Go test asserts what this
// client saw. Written from the protocol's description, not from the
// Python client.
//
// usage: node groot2_client.js PORT
'use strict';
const readline = require('node:readline');
const crypto = require('node:crypto');
const zmq = require('zeromq');
const { decode } = require('@msgpack/msgpack');

const TIMEOUT_MS = 10000;
const port = Number(process.argv[2]);
const url = `tcp://127.0.0.1:${port}`;

let req = null;
let sub = null;

function connect() {
  if (req) req.close();
  req = new zmq.Request({ receiveTimeout: TIMEOUT_MS, sendTimeout: TIMEOUT_MS, linger: 0 });
  req.connect(url);
}

async function exchange(parts) {
  try {
    await req.send(parts);
    return await req.receive();
  } catch (e) {
    // A REQ socket left without a reply cannot send again: a new one.
    connect();
    return null;
  }
}

async function request(type, extra) {
  const id = crypto.randomBytes(4).readUInt32LE(0);
  const head = Buffer.alloc(6);
  head.writeUInt8(2, 0);
  head.writeUInt8(type.charCodeAt(0), 1);
  head.writeUInt32LE(id, 2);
  const parts = extra === undefined ? [head] : [head, Buffer.from(extra)];
  const reply = await exchange(parts);
  if (reply === null) return [{ timeout: true }, null];
  const out = { nparts: reply.length };
  if (reply[0].toString() === 'error') {
    out.error = reply.map((p) => p.toString());
    return [out, null];
  }
  if (reply[0].length !== 22) {
    out.bad_header = reply[0].toString('hex');
    return [out, null];
  }
  out.echo_ok = reply[0].subarray(0, 6).equals(head);
  out.tree_id = reply[0].subarray(6).toString('hex');
  return [out, reply.slice(1)];
}

async function handle(r) {
  switch (r.op) {
    case 'fulltree': {
      const [out, body] = await request('T');
      if (body) out.xml = body[0].toString('utf8');
      return out;
    }
    case 'status': {
      const [out, body] = await request('S');
      if (body) {
        const raw = body[0];
        out.len = raw.length;
        out.status = [];
        for (let i = 0; i + 3 <= raw.length; i += 3) out.status.push([raw.readUInt16LE(i), raw.readUInt8(i + 2)]);
      }
      return out;
    }
    case 'blackboard': {
      const [out, body] = await request('B', r.names);
      if (body) out.bb = decode(body[0]);
      return out;
    }
    case 'hook': {
      const [out, body] = await request(r.type, r.body === undefined ? undefined : JSON.stringify(r.body));
      if (body && body.length) out.body = body[0].toString('utf8');
      return out;
    }
    case 'subscribe':
      sub = new zmq.Subscriber({ linger: 0 });
      sub.connect(`tcp://127.0.0.1:${port + 1}`);
      sub.subscribe();
      return { subscribed: true };
    case 'notice': {
      sub.receiveTimeout = r.timeout_ms || TIMEOUT_MS;
      try {
        const parts = await sub.receive();
        return { nparts: parts.length, proto: parts[0].readUInt8(0), type: String.fromCharCode(parts[0].readUInt8(1)), uid: Number(parts[1].toString()) };
      } catch (e) {
        return { no_notice: true };
      }
    }
    default:
      return { client_error: 'unknown op ' + r.op };
  }
}

async function main() {
  connect();
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const out = await handle(JSON.parse(line));
    process.stdout.write(JSON.stringify(out) + '\n');
  }
  if (req) req.close();
  if (sub) sub.close();
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
