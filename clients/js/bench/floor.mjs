// The floor for benches/benches/js_client_roundtrip.rs: the fewest lines node needs for the
// same round trip — connect, token line, skip the hello, then one frame out and one frame in,
// the reply parsed — with none of the client's checks, timers or queue. What it costs above the
// Rust client is node's (event loop, socket, V8); what the real client costs above it is ours.
// Usage: node bench/floor.mjs N  (env as roundtrip.mjs: AUTOMATION_ENDPOINT, AUTOMATION_TOKEN,
// AUTOMATION_BENCH_WARM). Prints the nanoseconds the N timed round trips took.
import net from 'node:net';

const iters = Number(process.argv[2] ?? 1000);
const WARM = Number(process.env.AUTOMATION_BENCH_WARM ?? 300);
const body = Buffer.from('{"op":{"find_node":{"role":"Button","label":"Save"}}}');
const frame = Buffer.alloc(4 + body.length);
frame.writeUInt32LE(body.length, 0);
body.copy(frame, 4);

// Node's fastest read path (`onread`: one buffer, no stream `data` event), as the client uses.
let pending = Buffer.alloc(0);
let waiter = null;
const onRead = (n, buf) => {
  const chunk = Buffer.from(buf.subarray(0, n));
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32LE(0)) {
    const len = pending.readUInt32LE(0);
    const reply = JSON.parse(pending.toString('utf8', 4, 4 + len));
    pending = pending.subarray(4 + len);
    const w = waiter;
    waiter = null;
    w(reply);
  }
};
const socket = net.createConnection(
  { path: process.env.AUTOMATION_ENDPOINT, onread: { buffer: Buffer.allocUnsafe(65536), callback: onRead } },
  () => socket.write(`${process.env.AUTOMATION_TOKEN}\n`),
);
const next = () => new Promise((resolve) => (waiter = resolve));
const once = async () => {
  const reply = next();
  socket.write(frame);
  if ((await reply).status !== 'ok') throw new Error('not ok');
};

await next(); // the hello
for (let i = 0; i < WARM; i += 1) await once();
const t0 = process.hrtime.bigint();
for (let i = 0; i < iters; i += 1) await once();
const t1 = process.hrtime.bigint();
process.stdout.write(`${t1 - t0}\n`);
socket.end();
