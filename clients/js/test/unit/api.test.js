// The pieces that need no app: selectors, helper arguments, codes, catalog, emit, locations.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { App, AutomationError, Codes, ERROR_CODES, OPS, emit, faultOf, inputs, isRetryable, scriptLocation, toSelector } from '../../src/index.js';
import { Locator } from '../../src/locator.js';
import { helperArgs, requestJson } from '../../src/app.js';
import { opSpec } from '../../src/catalog.js';

test('selectors in the shape agents guess become core selectors', () => {
  assert.deepEqual(toSelector({ role: 'Button', name: 'Save' }), { role: 'Button', label: 'Save' });
  assert.deepEqual(toSelector({ nameContains: 'sav', authorId: 'x', index: 1 }), { label_contains: 'sav', author_id: 'x', nth: 1 });
  assert.deepEqual(toSelector('Save'), { label: 'Save' });
  assert.equal(toSelector('15228925633216577297'), '15228925633216577297');
  // An unknown key is left for the app's strict parser to name.
  assert.deepEqual(toSelector({ lable: 'Save' }), { lable: 'Save' });
  assert.throws(() => toSelector({ name: 'a', label: 'b' }), (e) => e.code === 'BAD_ARGUMENT' && /twice/.test(e.message));
});

test('selector name and label are one field: either is sent as label, both are refused', () => {
  for (const sel of [{ role: 'Button', name: 'Save' }, { role: 'Button', label: 'Save' }]) {
    assert.deepEqual(toSelector(sel), { role: 'Button', label: 'Save' });
  }
  for (const sel of [{ nameContains: 'sav' }, { labelContains: 'sav' }, { label_contains: 'sav' }]) {
    assert.deepEqual(toSelector(sel), { label_contains: 'sav' });
  }
  assert.throws(
    () => toSelector({ name: 'a', label: 'b' }),
    (e) => e.code === 'BAD_ARGUMENT' && /`name`/.test(e.message) && /`label`/.test(e.message) && /keep one/.test(e.message),
  );
  assert.throws(() => toSelector({ labelContains: 'a', nameContains: 'b' }), (e) => /`labelContains` and as `nameContains`/.test(e.message));
  assert.throws(() => toSelector(null), (e) => e.code === 'BAD_ARGUMENT');
});

test('helpers map positional arguments onto the op', () => {
  const loc = { app: {}, selector: { label: 'Save' } };
  assert.deepEqual(helperArgs(opSpec('type_text'), 'Zoë'), { text: 'Zoë' });
  assert.deepEqual(helperArgs(opSpec('type_text'), 'Zoë', { node: 'Name' }), { text: 'Zoë', node: 'Name' });
  assert.deepEqual(helperArgs(opSpec('inject_key'), 'enter', { ctrl: true }), { key: 'enter', ctrl: true });
  assert.deepEqual(helperArgs(opSpec('read_node'), 'Save'), { node: 'Save' });
  assert.deepEqual(helperArgs(opSpec('read_node'), { role: 'Button', name: 'Save' }), { node: { role: 'Button', name: 'Save' } });
  assert.deepEqual(helperArgs(opSpec('read_node'), { node: 'Save' }), { node: 'Save' });
  assert.deepEqual(helperArgs(opSpec('set_value'), 'Name', 'Ada'), { node: 'Name', value: 'Ada' });
  assert.deepEqual(helperArgs(opSpec('invoke_action'), 'Save', 'click'), { node: 'Save', action: 'click' });
  assert.deepEqual(helperArgs(opSpec('advance_clock'), 100), { millis: 100 });
  assert.deepEqual(helperArgs(opSpec('wait_for_condition'), { kind: 'node_exists', label: 'Save' }), { condition: { kind: 'node_exists', label: 'Save' } });
  assert.deepEqual(helperArgs(opSpec('snapshot_tree'), { max_nodes: 5 }), { max_nodes: 5 });
  assert.deepEqual(helperArgs(opSpec('settle')), {});
  assert.ok(loc);
});

test('codes carry whose fault they are', () => {
  assert.equal(Codes.NOT_FOUND, 'NOT_FOUND');
  assert.equal(faultOf('APP_GONE'), 'relaunch');
  assert.equal(isRetryable('BRIDGE_TIMEOUT'), true);
  assert.equal(isRetryable('NOT_FOUND'), false);
  assert.equal(ERROR_CODES.length, Object.keys(Codes).length);
  const e = AutomationError.fromReply({ status: 'err', code: 'AMBIGUOUS', message: 'two', candidates: [{ node: '1', role: 'Button' }] }, 'read_node');
  assert.equal(e.retryable, false);
  assert.deepEqual(e.toJSON(), { code: 'AMBIGUOUS', message: 'two', fault: 'request', candidates: [{ node: '1', role: 'Button' }], op: 'read_node' });
});

test('every catalog op has a method on App, and method names are unique', () => {
  assert.equal(OPS.length, 34);
  for (const spec of OPS) assert.equal(typeof App.prototype[spec.method], 'function', spec.name);
  assert.equal(new Set(OPS.map((o) => o.method)).size, OPS.length);
});

test('emit is a no-op without $MCP_EVENT_PIPE_PATH', () => {
  delete process.env.MCP_EVENT_PIPE_PATH;
  assert.equal(emit.enabled, false);
  assert.equal(emit.progress(1, 2), false);
  assert.equal(emit.stepStarted('a'), false);
  assert.throws(() => emit.progress(Number.NaN), (e) => e.code === 'BAD_ARGUMENT');
  assert.throws(() => emit.stepStarted(''), (e) => e.code === 'BAD_ARGUMENT');
});

test('the script location is the first frame outside node and this package', () => {
  const stack = [
    'TypeError: boom',
    '    at Locator.click (file:///opt/x/node_modules/@automation-kit/client/src/locator.js:80:12)',
    '    at main (file:///home/me/test.js:12:5)',
    '    at node:internal/modules/run_main:1:1',
  ].join('\n');
  assert.deepEqual(scriptLocation(stack), { file: '/opt/x/node_modules/@automation-kit/client/src/locator.js', line: 80, column: 12 });
  const ours = new URL('../../src/locator.js', import.meta.url).href;
  const stack2 = ['Error: x', `    at Locator.click (${ours}:80:12)`, '    at /home/me/test.js:3:7', '    at node:internal/x:1:1'].join('\n');
  assert.deepEqual(scriptLocation(stack2), { file: '/home/me/test.js', line: 3, column: 7 });
  assert.equal(scriptLocation('no frames'), null);
});

test('a locator is its selector wherever a node goes', () => {
  assert.deepEqual(toSelector(new Locator({}, { role: 'Button', label: 'Save' })), { role: 'Button', label: 'Save' });
  assert.equal(toSelector(new Locator({}, '42')), '42');
});

test('inputs() reads the run inputs, {} outside the runner, and refuses non-objects', () => {
  delete process.env.AUTOMATION_INPUTS;
  assert.deepEqual(inputs(), {});
  process.env.AUTOMATION_INPUTS = '{"name":"Zoë","n":2}';
  assert.deepEqual(inputs(), { name: 'Zoë', n: 2 });
  process.env.AUTOMATION_INPUTS = '[1]';
  assert.throws(() => inputs(), (e) => e.code === 'BAD_ARGUMENT');
  process.env.AUTOMATION_INPUTS = '{';
  assert.throws(() => inputs(), (e) => e.code === 'BAD_ARGUMENT' && /not JSON/.test(e.message));
  delete process.env.AUTOMATION_INPUTS;
});

test('the request an op sends is JSON.stringify of {op: {[name]: args}, settle}, byte for byte', () => {
  const cases = [
    ['find_node', { role: 'Button', label: 'Sa"ve é\u2028' }, undefined],
    ['settle', {}, { settle_timeout_ms: 5 }],
    ['read_node', '12', undefined],
    ['odd', () => 1, undefined],
    ['odd', { a: undefined, b: [1, undefined] }, () => 2],
    ['odd', { toJSON: () => 7 }, { toJSON: () => 'k' }],
    ['odd', null, null],
  ];
  for (const [name, args, settle] of cases) {
    const request = { op: { [name]: args } };
    if (settle !== undefined) request.settle = settle;
    assert.equal(requestJson(name, args, settle), JSON.stringify(request), name);
  }
});

test('toMatchScreenshot sends assert_screenshot with the tool names, masks as selectors', async () => {
  const sent = [];
  const app = Object.create(App.prototype);
  app.op = async (name, args) => {
    sent.push([name, args]);
    return { result: 'matched' };
  };
  const { expect } = await import('../../src/index.js');
  await expect(app).toMatchScreenshot('main', { threshold: 0.2, maxDiffPixels: 3, mask: [new Locator(app, { label: 'Clock' }), { role: 'Spinner' }], stableFrames: 1 });
  assert.deepEqual(sent[0], ['assert_screenshot', { name: 'main', threshold: 0.2, max_diff_pixels: 3, mask: [{ label: 'Clock' }, { role: 'Spinner' }], stable_frames: 1 }]);
  await expect(new Locator(app, { role: 'Button', label: 'Save' })).toMatchScreenshot('save');
  assert.deepEqual(sent[1], ['assert_screenshot', { name: 'save', node: { role: 'Button', label: 'Save' } }]);
  assert.throws(() => expect(app).toMatchScreenshot('main', { treshold: 1 }), (e) => e.code === 'BAD_ARGUMENT' && /treshold/.test(e.message));
  assert.throws(() => expect(app).toMatchScreenshot(''), (e) => e.code === 'BAD_ARGUMENT');
  assert.throws(() => expect(new Locator(app, { label: 'Save' })).not.toMatchScreenshot('x'), (e) => e.code === 'BAD_ARGUMENT');
});

test('toPassAudit sends audit_app expecting a pass, with its options', async () => {
  const sent = [];
  const app = Object.create(App.prototype);
  app.op = async (name, args) => {
    sent.push([name, args]);
    return { passed: true };
  };
  const { expect } = await import('../../src/index.js');
  const baseline = [{ rule: 'target-size', selector: '{role="Button", label="+"}' }];
  await expect(app).toPassAudit({ rules: ['control-name'], keyboard: false, baseline });
  assert.deepEqual(sent[0], ['audit_app', { expect_pass: true, rules: ['control-name'], keyboard: false, baseline }]);
  await expect(app).toPassAudit();
  assert.deepEqual(sent[1], ['audit_app', { expect_pass: true }]);
  assert.throws(() => expect(app).toPassAudit({ rule: ['x'] }), (e) => e.code === 'BAD_ARGUMENT' && /"rule"/.test(e.message));
});

test('a waiting matcher refuses an option it does not take, naming it (not a silent 5 s wait)', async () => {
  const app = Object.create(App.prototype);
  const { expect } = await import('../../src/index.js');
  const field = new Locator(app, { role: 'TextInput', label: 'Name' });
  assert.throws(
    () => expect(field).toHaveValue('x', { timeout: 300 }),
    (e) => e.code === 'BAD_ARGUMENT' && /`timeout`/.test(e.message) && /timeoutMs: 300/.test(e.hint),
  );
  assert.throws(() => expect(field).not.toBeVisible({ timeoutMs: -1 }), (e) => e.code === 'BAD_ARGUMENT' && /timeoutMs/.test(e.message));
  assert.throws(() => expect(field).toExist('fast'), (e) => e.code === 'BAD_ARGUMENT');
});
