// Framing and the token rules, in memory (the live suite speaks to the real bridge).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { FrameReader, encodeFrame, WireConnection, MAX_REQUEST_FRAME } from '../../src/wire.js';

test('a frame is a u32 LE length and the UTF-8 body; an empty frame is four zero bytes', () => {
  assert.deepEqual([...encodeFrame('')], [0, 0, 0, 0]);
  const f = encodeFrame('{"é":1}');
  assert.equal(f.readUInt32LE(0), Buffer.byteLength('{"é":1}'));
  assert.equal(f.subarray(4).toString('utf8'), '{"é":1}');
});

test('frames split at every byte boundary come back whole and in order', () => {
  const bodies = ['{"a":1}', '', 'Zoë Ångström', 'x'.repeat(1000)];
  const wire = Buffer.concat(bodies.map((b) => encodeFrame(b)));
  for (let cut = 0; cut <= wire.length; cut += 1) {
    const r = new FrameReader(MAX_REQUEST_FRAME);
    const got = [...r.push(wire.subarray(0, cut)), ...r.push(wire.subarray(cut))].map((b) => b.toString('utf8'));
    assert.deepEqual(got, bodies, `cut at ${cut}`);
    assert.equal(r.partial, 0);
  }
  // One byte at a time.
  const r = new FrameReader(MAX_REQUEST_FRAME);
  const got = [];
  for (const byte of wire) got.push(...r.push(Buffer.from([byte])));
  assert.deepEqual(got.map((b) => b.toString('utf8')), bodies);
});

test('frames fed from one reused read buffer come back whole: a frame split across reads is copied out', () => {
  const bodies = ['{"a":1}', '', 'Zoë Ångström', 'x'.repeat(1000)];
  const wire = Buffer.concat(bodies.map((b) => encodeFrame(b)));
  for (const size of [1, 2, 3, 5, 7, 64, wire.length]) {
    const r = new FrameReader(MAX_REQUEST_FRAME);
    const read = Buffer.alloc(size); // what node's onread hands over, overwritten by every read
    const got = [];
    for (let at = 0; at < wire.length; at += size) {
      const n = wire.copy(read, 0, at, at + size);
      r.feed(read, n, (bytes, start, end) => got.push(bytes.toString('utf8', start, end)), true);
      read.fill(0xee); // the next read overwrites it
    }
    assert.deepEqual(got, bodies, `reads of ${size} bytes`);
    assert.equal(r.inFrame, false);
  }
});

test('an oversize header is refused before its body is buffered', () => {
  const r = new FrameReader(10);
  assert.throws(() => r.push(Buffer.from([0xff, 0xff, 0xff, 0xff])), (e) => e.code === 'BRIDGE_IO' && /exceeds the 10-byte cap/.test(e.message));
  assert.throws(() => encodeFrame('x'.repeat(11), 10), (e) => e.code === 'BRIDGE_IO' && /nothing was written/.test(e.message));
});

test('a token with a newline, CR or NUL, an empty one, or one over 512 bytes is refused before connecting', async () => {
  for (const token of ['a\nb', 'a\rb', 'a\0b', '', 'x'.repeat(513)]) {
    assert.throws(() => WireConnection.open('/nonexistent/socket', token), (e) => e.code === 'BAD_ARGUMENT', JSON.stringify(token));
  }
});

test('nothing listening at the address is BRIDGE_IO, marked not listening', async () => {
  await assert.rejects(WireConnection.open('/nonexistent/automation/1.d/s', 'tok'), (e) => {
    assert.equal(e.code, 'BRIDGE_IO');
    assert.equal(e.notListening, true);
    assert.match(e.message, /no bridge is listening at \/nonexistent/);
    return true;
  });
});
