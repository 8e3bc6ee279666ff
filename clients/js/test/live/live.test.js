// Against a real live app, found the way `node test.js` finds one: no endpoint in the
// environment, the newest live descriptor in the descriptor directory. Run by
// automation-cli/tests/clients/js_client.rs, which serves the egui demo through automation-wire's
// bridge server and points $XDG_RUNTIME_DIR at its descriptor directory.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { connect, expect, AutomationError, Codes, OPS, listLive, descriptorDir } from '../../src/index.js';

const PKG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let app;
const SETTLE = { settle_timeout_ms: 2000 };

before(async () => {
  assert.equal(process.env.AUTOMATION_ENDPOINT, undefined, 'these tests attach by descriptor');
  // A loaded CI machine runs the debug demo's frames slowly: the live settle limit (2 s)
  // instead of the 500 ms default, so a click's settle does not run out of wall-clock time.
  app = await connect({ waitMs: 10_000, settle: SETTLE });
});

after(async () => {
  await app?.close();
});

test('attached through the newest live descriptor', async () => {
  assert.ok(app.descriptor, 'attached through a descriptor');
  assert.equal(app.descriptor.pid, app.pid, 'the hello names the descriptor pid');
  assert.equal(typeof app.descriptor.address, 'string');
});

test('find + click Save: the status becomes "Saved" and a screen reader hears it', async () => {
  const before = await app.announcements();
  const since = before.length ? before[before.length - 1].seq : undefined;
  const reply = await app.find({ role: 'Button', name: 'Save' }).click();
  assert.equal(reply.action, 'click');
  assert.ok(reply.settled, 'a mutating op reports its settle');
  await expect(app.find({ role: 'Label', value: 'Saved' })).toExist();
  const heard = await app.waitForAnnouncement('Saved', { sinceSeq: since });
  assert.equal(heard.text, 'Saved');
});

test("typeText 'Zoë Ångström' into Name and read it back", async () => {
  const name = app.find({ role: 'TextInput', name: 'Name' });
  await name.clear();
  await name.typeText('Zoë Ångström');
  const record = await name.read();
  assert.equal(record.value, 'Zoë Ångström');
  assert.equal(await name.text(), 'Zoë Ångström');
  await expect(name).toHaveValue('Zoë Ångström');
  await expect(name).toHaveText(/Ångström$/);
  await name.setValue('Ada');
  await expect(name).toHaveValue('Ada');
});

test('an unknown selector fails with NOT_FOUND and candidates', async () => {
  await assert.rejects(
    app.find({ role: 'Button', name: 'Sav' }).click(),
    (e) => {
      assert.ok(e instanceof AutomationError);
      assert.equal(e.code, Codes.NOT_FOUND);
      assert.equal(e.fault, 'request');
      assert.equal(e.retryable, false);
      assert.ok(Array.isArray(e.candidates) && e.candidates.length > 0, JSON.stringify(e));
      assert.ok(e.candidates.some((c) => c.label === 'Save'), JSON.stringify(e.candidates));
      assert.deepEqual(e.selector, { role: 'Button', label: 'Sav' });
      assert.equal(e.op, 'invoke_action');
      return true;
    },
  );
});

test('a stale node reference fails with STALE naming it', async () => {
  const id = await app.find({ role: 'Button', name: 'Save' }).id();
  assert.match(id, /^e\d+$/);
  // A node id that is not in the tree (never was).
  await assert.rejects(app.readNode('12345'), (e) => e.code === 'NOT_FOUND' && /12345/.test(e.message));
  // An id string works where a selector does.
  const rec = await app.readNode(id);
  assert.equal(rec.label, 'Save');
  // A node that was there and is gone: NOT_FOUND says so, and once a widget with its role
  // and label is back, names it as the candidate.
  const advanced = app.find({ label: 'Advanced' });
  await advanced.expand();
  const volume = await app.find({ label: 'Volume' }).id();
  assert.match(volume, /^e\d+$/);
  await advanced.collapse();
  await assert.rejects(app.find(volume).read(), (e) => {
    assert.equal(e.code, 'STALE');
    assert.match(e.message, /Volume.*is gone/);
    assert.match(e.hint, /find it again/);
    assert.equal(e.selector, volume);
    return true;
  });
  await advanced.expand();
  try {
    assert.equal((await app.readNode(volume)).label, 'Volume'); // egui gave it the same id again
  } catch (e) {
    assert.equal(e.code, 'STALE');
    assert.ok(e.candidates?.some((c) => c.label === 'Volume'), JSON.stringify(e));
  }
  await advanced.collapse();
});

test('a misspelled argument is the app\'s BAD_REQUEST naming it', async () => {
  await assert.rejects(app.op('find_node', { lable: 'Save' }), (e) => e.code === 'BAD_REQUEST' && /lable/.test(e.message));
  await assert.rejects(app.op('find_nod', {}), (e) => e.code === 'BAD_REQUEST' && /find_node/.test(e.hint ?? ''));
});

test('expect fails with ASSERTION_FAILED, actual and expected as data', async () => {
  const status = app.find({ role: 'Label', value: 'Saved' });
  await app.find({ role: 'Button', name: 'Save' }).click();
  const name = app.find({ role: 'TextInput', name: 'Name' });
  await name.setValue('Grace');
  await assert.rejects(expect(name).toHaveText('Ada', { timeoutMs: 200 }), (e) => {
    assert.equal(e.code, 'ASSERTION_FAILED');
    assert.equal(e.actual, 'Grace');
    assert.equal(e.expected, 'Ada');
    assert.deepEqual(e.selector, { role: 'TextInput', label: 'Name' });
    return true;
  });
  await assert.rejects(expect(app.find({ role: 'Button', name: 'Nope' })).toExist({ timeoutMs: 100 }), (e) => {
    assert.equal(e.code, 'ASSERTION_FAILED');
    assert.equal(e.actual, null);
    assert.ok(e.candidates?.length > 0);
    return true;
  });
  await expect(status).toBeVisible();
  await expect(app.find({ name: 'Nope' })).toBeGone({ timeoutMs: 100 });
  await expect(app.find({ name: 'Nope' })).not.toExist({ timeoutMs: 100 });
  await assert.rejects(expect(status).toBeGone({ timeoutMs: 100 }), (e) => e.code === 'ASSERTION_FAILED');
});

test('snapshot, waitFor, pressKey, screenshot', async () => {
  const outline = await app.snapshot();
  assert.match(outline.tree, /- Button "Save" \[e\d+\]/);
  const snap = await app.snapshot({ max_nodes: 2000, format: 'json' });
  assert.ok(Array.isArray(snap.nodes) && snap.nodes.some((n) => n.label === 'Save'));
  const rec = await app.waitFor({ role: 'Button', name: 'Save' }, { timeoutMs: 1000 });
  assert.equal(rec.label, 'Save');
  await assert.rejects(app.waitFor({ role: 'Button', name: 'Nope' }, { timeoutMs: 300 }), (e) => e.code === 'WAIT_TIMEOUT');
  await assert.rejects(app.waitFor({ label_contains: 'nope nope' }, { timeoutMs: 100 }), (e) => e.code === 'WAIT_TIMEOUT');
  await app.find({ role: 'TextInput', name: 'Name' }).focus();
  const key = await app.pressKey('End');
  assert.equal(key.key, 'End');
  await assert.rejects(app.pressKey('NoSuchKey'), (e) => e.code === 'UNKNOWN_NAME');
  const shot = await app.screenshot();
  assert.ok(shot.png.length > 100);
  assert.deepEqual([...shot.png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(shot.width > 0 && shot.height > 0);
});

test('every catalog op is reachable by its camelCase helper', async () => {
  // Each op is sent; the app answers it (ok, or its own typed error): nothing is unknown.
  const save = { role: 'Button', label: 'Save' };
  const args = {
    snapshot_tree: { max_depth: 1 },
    read_node: { node: save },
    find_node: save,
    assert_node: { node: save, kind: 'exists' },
    inspect_node: { node: save },
    pull_announcements: {},
    invoke_action: { node: save, action: 'focus' },
    focus_node: { node: save },
    set_value: { node: { role: 'TextInput', label: 'Name' }, value: 'x' },
    expand: { node: { label: 'Advanced' } },
    collapse: { node: { label: 'Advanced' } },
    scroll: { node: { label: 'Row 1' }, dy: 10 },
    inject_pointer: { node: save, action: 'move' },
    right_click: { node: { label: 'Row 1' } },
    inject_key: { key: 'escape' },
    type_text: { text: '' },
    type_ime: { commit: '' },
    drag_node: { node: { label: 'Row 1' }, to_x: 10, to_y: 10 },
    inject_touch_sequence: { steps: [{ phase: 'down', x: 5, y: 5 }, { phase: 'up', x: 5, y: 5 }] },
    pinch: { node: { label: 'Zoom 100%', role: 'Label' }, scale: 1 },
    fling: { node: { label: 'Row 1' }, dy: -5 },
    long_press: { node: save },
    cancel_pointer: { pointer_id: 424242 },
    set_density: { density: 'compact' },
    wait_for_condition: { condition: { kind: 'node_exists', label: 'Save' } },
    advance_clock: { millis: 16 },
    screenshot: {},
  };
  const answered = [];
  for (const spec of OPS) {
    assert.equal(typeof app[spec.method], 'function', `${spec.name} has no helper ${spec.method}`);
    try {
      await app[spec.method](args[spec.name] ?? {});
      answered.push(`${spec.name}: ok`);
    } catch (e) {
      assert.ok(e instanceof AutomationError, `${spec.name}: ${e}`);
      assert.notEqual(e.code, 'BAD_REQUEST', `${spec.name} was not understood: ${e.message}`);
      assert.ok(e.code.startsWith('BRIDGE') === false, `${spec.name}: transport ${e.message}`);
      answered.push(`${spec.name}: ${e.code}`);
    }
  }
  assert.equal(answered.length, 34, answered.join('\n'));
});

test('listLive sees the app and probes it live', async () => {
  await app.close();
  const live = await listLive();
  assert.ok(live.some((e) => e.descriptor.pid === app.pid && e.state === 'live'), JSON.stringify(live));
  app = await connect({ waitMs: 10_000, settle: SETTLE });
});

test('a second client is told the bridge is busy, and waitMs waits for it', async () => {
  await assert.rejects(connect(), (e) => e.code === 'BRIDGE_IO' && e.busy === true && /another client/.test(e.message));
  const later = connect({ waitMs: 5000, settle: SETTLE });
  setTimeout(() => app.close(), 100);
  const second = await later;
  assert.equal(second.pid, app.pid);
  app = second;
});

test('dead descriptors newer than the live app are skipped, not attached to', async () => {
  await app.close();
  const dir = descriptorDir();
  const newer = Date.now() + 1_000_000;
  const corpse = path.join(dir, '999998.d');
  fs.mkdirSync(corpse, { mode: 0o700 });
  // A stale socket nobody listens on (ECONNREFUSED), and a socket path that does not exist.
  execFileSync('python3', ['-c', `import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(path.join(corpse, 's'))})`]);
  const write = (pid, address, started) =>
    fs.writeFileSync(
      path.join(dir, `${pid}.json`),
      JSON.stringify({ version: 1, pid, transport: 'unix', address, token: 'stale', app: 'gone', started_unix_ms: started }),
      { mode: 0o600 },
    );
  write(999998, path.join(corpse, 's'), newer);
  write(999999, path.join(dir, '999999.d', 's'), newer + 1);
  try {
    app = await connect({ waitMs: 10_000, settle: SETTLE });
    assert.notEqual(app.descriptor.pid, 999999);
    assert.notEqual(app.descriptor.pid, 999998);
    assert.equal(app.descriptor.pid, app.pid);
    await app.close();
    const live = await listLive();
    assert.deepEqual(live.map((e) => e.descriptor.pid), [app.pid]);
  } finally {
    fs.rmSync(path.join(dir, '999998.json'));
    fs.rmSync(path.join(dir, '999999.json'));
    fs.rmSync(corpse, { recursive: true });
  }
  app = await connect({ waitMs: 10_000, settle: SETTLE });
});

test('the example runs unchanged as plain `node examples/save-name.mjs`', async () => {
  await app.close();
  const env = { ...process.env };
  delete env.AUTOMATION_ENDPOINT;
  delete env.AUTOMATION_TOKEN;
  delete env.MCP_EVENT_PIPE_PATH;
  const run = spawnSync(process.execPath, ['examples/save-name.mjs'], { cwd: PKG, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /saved "Zoë Ångström" in js-client-test \(pid \d+\)/);
  app = await connect({ waitMs: 10_000, settle: SETTLE });
  assert.equal(await app.find({ role: 'TextInput', name: 'Name' }).value(), 'Zoë Ångström');
});
