// The client's side of the protocol's failure modes, against a scripted peer on a real Unix
// socket (the well-behaved server is automation-wire's own, in the live suite).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { WireConnection, encodeFrame, FrameReader } from '../../src/wire.js';
import { App } from '../../src/app.js';

const HELLO = JSON.stringify({ bridge: 'automation-wire', protocol: 1, pid: 4242 });

/** A peer: `script(socket, tokenLine, frames)` decides what it does; returns {address, close}. */
async function peer(onToken, onFrame = () => {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'akjs-peer-'));
  const address = path.join(dir, 's');
  const server = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    let gotToken = false;
    const reader = new FrameReader(1 << 20);
    sock.on('data', (chunk) => {
      if (!gotToken) {
        buf = Buffer.concat([buf, chunk]);
        const nl = buf.indexOf(10);
        if (nl < 0) return;
        gotToken = true;
        const rest = buf.subarray(nl + 1);
        onToken(sock, buf.subarray(0, nl).toString());
        if (rest.length) for (const f of reader.push(rest)) onFrame(sock, f.toString());
        return;
      }
      for (const f of reader.push(chunk)) onFrame(sock, f.toString());
    });
    sock.on('error', () => {});
  });
  await new Promise((r) => server.listen(address, r));
  return { address, close: () => new Promise((r) => server.close(() => { fs.rmSync(dir, { recursive: true, force: true }); r(); })) };
}

test('the token line is the token and a newline; the hello gives the pid', async () => {
  let sent;
  const p = await peer((s, token) => {
    sent = token;
    s.write(encodeFrame(HELLO));
  });
  const c = await WireConnection.open(p.address, 'secret-token');
  assert.equal(sent, 'secret-token');
  assert.equal(c.pid, 4242);
  await c.close();
  await p.close();
});

test('a busy notice is BRIDGE_IO with busy: true', async () => {
  const p = await peer((s) => {
    s.end(encodeFrame(JSON.stringify({ bridge: 'automation-wire', busy: true, pid: 7, message: 'another client is attached to this app; wait for it to detach or retry later' })));
  });
  await assert.rejects(WireConnection.open(p.address, 't'), (e) => e.code === 'BRIDGE_IO' && e.busy === true && /pid 7/.test(e.message));
  await p.close();
});

test('a refused token (the server hangs up) says the token may be wrong', async () => {
  const p = await peer((s) => s.end());
  await assert.rejects(WireConnection.open(p.address, 't'), (e) => e.code === 'BRIDGE_IO' && /token rejected\?/.test(e.message));
  await p.close();
});

test('a newer protocol asks to upgrade the client; a greeting that never comes is cut at the deadline', async () => {
  const p = await peer((s) => s.write(encodeFrame(JSON.stringify({ bridge: 'automation-wire', protocol: 2, pid: 1 }))));
  await assert.rejects(WireConnection.open(p.address, 't'), (e) => e.code === 'BRIDGE_IO' && /upgrade the client/.test(e.message));
  await p.close();
  const q = await peer(() => {});
  const t0 = Date.now();
  await assert.rejects(WireConnection.open(q.address, 't', { helloTimeoutMs: 200 }), (e) => e.code === 'BRIDGE_IO' && /no greeting within 200 ms/.test(e.message));
  assert.ok(Date.now() - t0 < 2000);
  await q.close();
});

test('a reply timeout is BRIDGE_TIMEOUT; the late reply is discarded and the next request gets its own', async () => {
  let n = 0;
  const p = await peer(
    (s) => s.write(encodeFrame(HELLO)),
    (s, frame) => {
      n += 1;
      const reply = JSON.stringify({ status: 'ok', data: { echo: JSON.parse(frame).n } });
      if (n === 1) setTimeout(() => s.write(encodeFrame(reply)), 300);
      else s.write(encodeFrame(reply));
    },
  );
  const c = await WireConnection.open(p.address, 't');
  await assert.rejects(c.request({ n: 1 }, { timeoutMs: 100 }), (e) => e.code === 'BRIDGE_TIMEOUT' && e.retryable);
  await new Promise((r) => setTimeout(r, 400));
  assert.deepEqual(await c.request({ n: 2 }), { status: 'ok', data: { echo: 2 } });
  await c.close();
  await p.close();
});

test('requests are queued: one on the wire at a time, replies matched in order', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const p = await peer(
    (s) => s.write(encodeFrame(HELLO)),
    (s, frame) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        s.write(encodeFrame(JSON.stringify({ status: 'ok', data: JSON.parse(frame).i })));
      }, 5);
    },
  );
  const c = await WireConnection.open(p.address, 't');
  const replies = await Promise.all([0, 1, 2, 3, 4].map((i) => c.request({ i })));
  assert.deepEqual(replies.map((r) => r.data), [0, 1, 2, 3, 4]);
  assert.equal(maxInFlight, 1);
  await c.close();
  await p.close();
});

test('the server closing is BRIDGE_DROPPED; closing inside a frame is BRIDGE_IO (truncated)', async () => {
  const p = await peer((s) => s.write(encodeFrame(HELLO)), (s) => s.end());
  const c = await WireConnection.open(p.address, 't');
  await assert.rejects(c.request({}), (e) => e.code === 'BRIDGE_DROPPED' && /re-attach/.test(e.message));
  await assert.rejects(c.request({}), (e) => e.code === 'BRIDGE_DROPPED');
  await p.close();
  const q = await peer((s) => s.write(encodeFrame(HELLO)), (s) => s.end(encodeFrame('{"status":"ok","data":1}').subarray(0, 10)));
  const d = await WireConnection.open(q.address, 't');
  await assert.rejects(d.request({}), (e) => e.code === 'BRIDGE_IO' && /truncated frame/.test(e.message));
  await q.close();
});

test('a reply that is not UTF-8 JSON is BRIDGE_IO and the stream stays in sync', async () => {
  let n = 0;
  const p = await peer(
    (s) => s.write(encodeFrame(HELLO)),
    (s) => {
      n += 1;
      s.write(n === 1 ? encodeFrame(Buffer.from([0xff, 0xfe])) : encodeFrame('{"status":"ok","data":"fine"}'));
    },
  );
  const c = await WireConnection.open(p.address, 't');
  await assert.rejects(c.request({}), (e) => e.code === 'BRIDGE_IO' && /not UTF-8/.test(e.message));
  assert.deepEqual(await c.request({}), { status: 'ok', data: 'fine' });
  await c.close();
  await p.close();
});

test('app.op sends the op, resolves with data; an error reply throws with the caller in its stack', async () => {
  const sent = [];
  const p = await peer(
    (s) => s.write(encodeFrame(HELLO)),
    (s, frame) => {
      sent.push(frame);
      const reply = sent.length === 1
        ? { status: 'ok', data: { count: 1, node: 'e1' } }
        : { status: 'err', code: 'NOT_FOUND', message: 'no node matches', candidates: [{ node: 'e1' }] };
      // Written a byte at a time on the first reply: a frame split over many reads.
      const bytes = encodeFrame(JSON.stringify(reply));
      if (sent.length === 1) for (const b of bytes) s.write(Buffer.from([b]));
      else s.write(bytes);
    },
  );
  const app = new App(await WireConnection.open(p.address, 't'));
  try {
    assert.deepEqual(await app.op('find_node', { role: 'Button', name: 'Save' }), { count: 1, node: 'e1' });
    assert.equal(sent[0], '{"op":{"find_node":{"role":"Button","label":"Save"}}}');
    async function callerInTheScript() {
      await app.op('read_node', { node: 'Sav' });
    }
    await assert.rejects(callerInTheScript(), (e) => {
      assert.equal(e.code, 'NOT_FOUND');
      assert.deepEqual(e.candidates, [{ node: 'e1' }]);
      assert.deepEqual(e.selector, { label: 'Sav' });
      assert.match(e.stack, /callerInTheScript/, 'the async stack reaches the caller (crash reports locate the script line)');
      return true;
    });
  } finally {
    await app.close();
    await p.close();
  }
});
