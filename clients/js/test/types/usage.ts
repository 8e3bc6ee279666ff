// Type-checked (not run) by automation-cli/tests/clients/js_client.rs with `tsc -p test/types`:
// the shapes the README shows compile under --strict.
import {
  connect,
  expect,
  emit,
  log,
  step,
  AutomationError,
  Codes,
  type ErrorCode,
  type NodeRecord,
  type Screenshot,
} from '../../index.js';

async function main(): Promise<void> {
  const app = await connect({ waitMs: 1000 });
  const save = app.find({ role: 'Button', name: 'Save' });
  await save.click();
  const name = app.find({ role: 'TextInput', name: 'Name' });
  await name.typeText('Zoë Ångström');
  const record: NodeRecord = await name.read();
  const value: string | undefined = record.value;
  await name.setValue(value ?? '');
  await expect(name).toHaveText('Zoë Ångström');
  await expect(app.find({ role: 'Label', value: 'Saved' })).toBeVisible({ timeoutMs: 2000 });
  await expect(app.find({ name: 'Dialog' })).not.toExist();
  await expect(app.find('Dialog')).toBeGone();
  const golden = await expect(app).toMatchScreenshot('main', { threshold: 0.1, mask: [app.find({ name: 'Clock' })] });
  const diffPixels: number | undefined = golden.diff_pixels;
  log.info('golden', { result: golden.result, diffPixels });
  await expect(save).toMatchScreenshot('save-button', { maxDiffRatio: 0.01, stableFrames: 1 });
  const audit = await expect(app).toPassAudit({ rules: ['control-name'], keyboard: false, baseline: [{ rule: 'target-size', selector: '{role="Button"}' }] });
  const reviewed: number = audit.needs_review.length;
  log.info('audit', { passed: audit.passed, reviewed });
  const shot: Screenshot = await app.screenshot({ path: '/tmp/x.png' });
  emit.screenshot(shot, 'after save');
  await app.waitFor({ role: 'Button', name: 'Save' }, { timeoutMs: 500 });
  await app.waitFor({ kind: 'node_exists', label: 'Save' });
  await app.pressKey('Control+S');
  await app.pressKey('s', { command: true });
  const snap = await app.snapshot({ max_nodes: 100, format: "json" });
  const first: NodeRecord | undefined = snap.nodes?.[0];
  await app.op('find_node', { role: 'Button', label: 'Save' });
  await app.typeText('abc');
  await app.advanceClock(100);
  await app.setValue(name, 'Ada');
  await app.invokeAction(save, 'focus');
  const found = await app.findNode({ role: 'Button', name: 'Save' });
  const id: string | null = found.node;
  const heard = await app.waitForAnnouncement(/Saved/);
  emit.progress(1, 3, 'typing');
  emit.progress({ current: 2, total: 3 });
  emit.stepStarted('s1', 'Save');
  emit.stepCompleted('s1', 'Save', { duration: 12 });
  emit.stepFailed('s2', 'Save', new Error('x'));
  emit.data('rows', [1, 2]);
  emit.status('saving', { element: 'Save' });
  emit.log('warn', 'slow', { ms: 1 });
  log.info('to the log channel');
  const n: number = await step('Count rows', async () => app.find({ nameContains: 'Row' }).count());
  try {
    await save.click();
  } catch (e) {
    if (e instanceof AutomationError) {
      const code: ErrorCode = e.code;
      const retry: boolean = e.retryable || code === Codes.BRIDGE_TIMEOUT;
      console.log(retry, e.candidates?.[0]?.label, e.actual, e.expected, heard.seq, first?.role, id, n);
    }
  }
  await app.close();
}

void main();
