// The descriptor directory rules (docs/wire.md "Endpoint descriptor"), on real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

import { listDescriptors, parseDescriptor, defaultBaseDir, openEndpoint } from '../../src/endpoint.js';
import { connect } from '../../src/index.js';

function tempBase() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'akjs-'));
  fs.mkdirSync(path.join(base, 'automation'), { mode: 0o700 });
  return base;
}

const desc = (pid, started, extra = {}) => ({
  version: 1, pid, transport: 'unix', address: `/nonexistent/${pid}.d/s`, token: 't', app: 'demo', started_unix_ms: started, ...extra,
});

test('the base dir is $XDG_RUNTIME_DIR when set and non-empty, else our own dir in the temp dir', () => {
  const own = path.join(os.tmpdir(), `automation-${process.geteuid()}`);
  assert.equal(defaultBaseDir({ XDG_RUNTIME_DIR: '/run/user/7' }), '/run/user/7');
  assert.equal(defaultBaseDir({ XDG_RUNTIME_DIR: '' }), own);
  assert.equal(defaultBaseDir({}), own);
});

test('a future version is refused, a missing field is invalid, unknown fields are tolerated', () => {
  assert.throws(() => parseDescriptor('x', JSON.stringify(desc(1, 1, { version: 2 }))), /version 2 is newer/);
  assert.throws(() => parseDescriptor('x', '{"pid":1}'), /missing or invalid "version"/);
  assert.throws(() => parseDescriptor('x', JSON.stringify({ ...desc(1, 1), token: undefined })), /"token"/);
  assert.throws(() => parseDescriptor('x', 'not json'), /not a valid endpoint descriptor/);
  assert.equal(parseDescriptor('x', JSON.stringify(desc(1, 1, { something_new: true }))).pid, 1);
});

test('listing is newest first; unreadable files are reported, a FIFO and a symlink are never opened', () => {
  const base = tempBase();
  const dir = path.join(base, 'automation');
  fs.writeFileSync(path.join(dir, '10.json'), JSON.stringify(desc(10, 100)), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, '11.json'), JSON.stringify(desc(11, 300)), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, '12.json'), JSON.stringify(desc(12, 200)), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, '99.json'), '{"version":7}');
  fs.writeFileSync(path.join(dir, 'big.json'), Buffer.alloc(64 * 1024 + 1, 0x20));
  fs.writeFileSync(path.join(dir, '.13.abc.tmp'), 'staging');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
  execFileSync('mkfifo', [path.join(dir, 'fifo.json')]);
  fs.symlinkSync(path.join(dir, '10.json'), path.join(dir, 'link.json'));
  const started = Date.now();
  const l = listDescriptors({ baseDir: base });
  assert.ok(Date.now() - started < 1000, 'a FIFO named x.json must not block the listing');
  assert.deepEqual(l.entries.map((e) => e.descriptor.pid), [11, 12, 10]);
  const reasons = l.skipped.map((s) => s.reason).join('\n');
  assert.equal(l.skipped.length, 4, reasons);
  assert.match(reasons, /version 7 is newer/);
  assert.match(reasons, /fifo\.json is a fifo/);
  assert.match(reasons, /link\.json is a symlink/);
  assert.match(reasons, /over the 65536-byte descriptor cap/);
  fs.rmSync(base, { recursive: true });
});

test('a symlinked descriptor directory is refused', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'akjs-'));
  const real = fs.mkdtempSync(path.join(os.tmpdir(), 'akjs-real-'));
  fs.symlinkSync(real, path.join(base, 'automation'));
  assert.throws(() => listDescriptors({ baseDir: base }), (e) => e.code === 'BRIDGE_IO' && /symlink/.test(e.message));
  fs.rmSync(base, { recursive: true });
  fs.rmSync(real, { recursive: true });
});

test('with no endpoint and only dead descriptors, connect() is APP_GONE saying what to do', async () => {
  const base = tempBase();
  const dir = path.join(base, 'automation');
  // A socket path that does not exist, and a stale socket nobody listens on (ECONNREFUSED).
  const corpse = path.join(base, 's');
  execFileSync('python3', ['-c', `import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(corpse)})`]);
  fs.writeFileSync(path.join(dir, '20.json'), JSON.stringify(desc(20, 500)));
  fs.writeFileSync(path.join(dir, '21.json'), JSON.stringify(desc(21, 600, { address: corpse })));
  await assert.rejects(connect({ baseDir: base, env: {} }), (e) => {
    assert.equal(e.code, 'APP_GONE');
    assert.equal(e.fault, 'relaunch');
    assert.match(e.message, /no live app to attach to/);
    assert.match(e.hint, /AUTOMATION_ENDPOINT/);
    return true;
  });
  await assert.rejects(connect({ baseDir: base, env: {}, pid: 4242 }), (e) => e.code === 'APP_GONE' && /pid 4242/.test(e.message));
  fs.rmSync(base, { recursive: true });
});

test('$AUTOMATION_ENDPOINT wins over descriptors, and needs $AUTOMATION_TOKEN', async () => {
  await assert.rejects(openEndpoint({ env: { AUTOMATION_ENDPOINT: '/nonexistent/x' } }), (e) => e.code === 'BAD_ARGUMENT' && /AUTOMATION_TOKEN/.test(e.message));
  await assert.rejects(
    openEndpoint({ env: { AUTOMATION_ENDPOINT: '/nonexistent/x', AUTOMATION_TOKEN: 'abc' } }),
    (e) => e.code === 'BRIDGE_IO' && e.notListening && /\/nonexistent\/x/.test(e.message),
  );
});
