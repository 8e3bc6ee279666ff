// `expect(locator).toHaveText('Saved')`: assertions that wait (default 5 s, settling the app
// between checks) and fail with the kit's ASSERTION_FAILED, `actual` and `expected` as data,
// and the selector — so a model reading the failure knows what was there instead.
// `.not` negates any of them.

import { App, DEFAULT_TIMEOUT_MS } from './app.js';
import { AutomationError } from './errors.js';
import { Locator, hasBox, textOf } from './locator.js';
import { describeSelector, toSelector } from './selector.js';

function matches(expected, actual) {
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual);
  return actual === expected;
}

const show = (x) => (x instanceof RegExp ? String(x) : JSON.stringify(x));

/**
 * Polls `check(record)` (record: the node's `read_node` record, or null when nothing matches)
 * until it passes (or, negated, fails), or the timeout. `check` returns `{pass, actual}`.
 */
async function poll(locator, { negate, timeoutMs, what, expected, check }) {
  const app = locator.app;
  const deadline = Date.now() + timeoutMs;
  let last = { pass: false, actual: undefined };
  let candidates;
  for (;;) {
    let record = null;
    try {
      record = await locator.read();
      candidates = undefined;
    } catch (e) {
      if (e.code !== 'NOT_FOUND' && e.code !== 'AMBIGUOUS') throw e;
      candidates = e.candidates;
      if (e.code === 'AMBIGUOUS') {
        throw new AutomationError(e.code, `${describeSelector(locator.selector)} matches several nodes: ${e.message}`, {
          hint: 'narrow the selector or pick one with .nth(n); candidates lists the matches',
          candidates: e.candidates,
          selector: locator.selector,
        });
      }
    }
    last = check(record);
    if (last.pass !== negate) return;
    if (Date.now() >= deadline) break;
    await app.pace();
  }
  const sel = describeSelector(locator.selector);
  throw new AutomationError(
    'ASSERTION_FAILED',
    `expected ${sel} ${negate ? 'not ' : ''}${what}${expected === undefined ? '' : ` ${show(expected)}`}, but it ${
      last.actual === undefined ? 'matched no node' : `was ${show(last.actual)}`
    } (waited ${timeoutMs} ms)`,
    {
      actual: last.actual === undefined ? null : last.actual,
      expected: expected instanceof RegExp ? String(expected) : expected === undefined ? (negate ? `not ${what}` : what) : expected,
      selector: locator.selector,
      candidates,
      hint: candidates?.length ? 'nothing matched: candidates lists the nodes you may have meant' : undefined,
    },
  );
}

/**
 * The wait of a matcher's options: `{timeoutMs}`, or the default. Any other key is refused,
 * named: `{timeout: 300}` was silently ignored and the matcher waited 5 s.
 */
function waitMs(what, options) {
  if (options === undefined || options === null) return DEFAULT_TIMEOUT_MS;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new AutomationError('BAD_ARGUMENT', `expect(…) ${what}: options must be an object like { timeoutMs: 2000 }, got ${JSON.stringify(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'timeoutMs') {
      throw new AutomationError('BAD_ARGUMENT', `expect(…) ${what}: unknown option \`${key}\`; the one option is timeoutMs (milliseconds)`, {
        hint: key === 'timeout' ? `write { timeoutMs: ${JSON.stringify(options[key])} }` : 'pass { timeoutMs: 2000 }, or no options for the 5 s default',
      });
    }
  }
  const ms = options.timeoutMs;
  if (ms === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new AutomationError('BAD_ARGUMENT', `expect(…) ${what}: timeoutMs must be milliseconds, 0 or more, got ${JSON.stringify(ms)}`, {
      hint: 'e.g. { timeoutMs: 2000 }',
    });
  }
  return ms;
}

class Expectation {
  constructor(locator, negate) {
    if (!(locator instanceof Locator)) {
      throw new AutomationError('BAD_ARGUMENT', 'expect() takes a locator: expect(app.find({role: "Label", name: "Status"}))');
    }
    this.locator = locator;
    this.negate = negate;
  }

  /** The negated expectation. */
  get not() {
    return new Expectation(this.locator, !this.negate);
  }

  run(what, expected, check, options) {
    return poll(this.locator, { negate: this.negate, timeoutMs: waitMs(what, options), what, expected, check });
  }

  /** Its value (else label, else text) equals the string, or matches the RegExp. */
  toHaveText(expected, options) {
    return this.run('to have text', expected, (r) => ({ pass: !!r && matches(expected, textOf(r)), actual: r ? textOf(r) : undefined }), options);
  }

  /** Its text contains the substring. */
  toContainText(expected, options) {
    return this.run('to contain text', expected, (r) => {
      const t = r ? textOf(r) : undefined;
      return { pass: typeof t === 'string' && t.includes(expected), actual: t };
    }, options);
  }

  /** Its value equals (or matches). */
  toHaveValue(expected, options) {
    return this.run('to have value', expected, (r) => ({ pass: !!r && matches(expected, r.value), actual: r ? r.value ?? null : undefined }), options);
  }

  /** Its accessible name (label) equals (or matches). */
  toHaveLabel(expected, options) {
    return this.run('to have label', expected, (r) => ({ pass: !!r && matches(expected, r.label), actual: r ? r.label ?? null : undefined }), options);
  }

  /** Something matches. */
  toExist(options) {
    return this.run('to exist', undefined, (r) => ({ pass: !!r, actual: r ? 'exists' : undefined }), options);
  }

  /** Nothing matches (the same as `.not.toExist()`). */
  toBeGone(options) {
    return new Expectation(this.locator, !this.negate).run('to exist', undefined, (r) => ({ pass: !!r, actual: r ? 'exists' : undefined }), options);
  }

  /** It matches and has a non-empty on-screen box. */
  toBeVisible(options) {
    return this.run('to be visible', undefined, (r) => ({ pass: hasBox(r), actual: r ? (hasBox(r) ? 'visible' : 'no on-screen box') : undefined }), options);
  }

  /** It has keyboard focus. */
  toBeFocused(options) {
    return this.run('to be focused', undefined, (r) => ({ pass: !!r?.focused, actual: r ? (r.focused ? 'focused' : 'not focused') : undefined }), options);
  }

  /** A checkbox / toggle is on. */
  toBeChecked(options) {
    return this.run('to be checked', undefined, (r) => ({ pass: r?.toggled === true, actual: r ? r.toggled ?? null : undefined }), options);
  }

  /** It is disabled. */
  toBeDisabled(options) {
    return this.run('to be disabled', undefined, (r) => ({ pass: !!r?.disabled, actual: r ? (r.disabled ? 'disabled' : 'enabled') : undefined }), options);
  }

  /** It is enabled. */
  toBeEnabled(options) {
    return this.run('to be enabled', undefined, (r) => ({ pass: !!r && !r.disabled, actual: r ? (r.disabled ? 'disabled' : 'enabled') : undefined }), options);
  }

  /** It is expanded. */
  toBeExpanded(options) {
    return this.run('to be expanded', undefined, (r) => ({ pass: r?.expanded === true, actual: r ? r.expanded ?? null : undefined }), options);
  }

  /** Exactly `n` nodes match (`nth` ignored). */
  async toHaveCount(n, options) {
    const timeoutMs = waitMs('to have count', options);
    const deadline = Date.now() + timeoutMs;
    let count;
    for (;;) {
      count = await this.locator.count();
      if ((count === n) !== this.negate) return;
      if (Date.now() >= deadline) break;
      await this.locator.app.pace();
    }
    throw new AutomationError(
      'ASSERTION_FAILED',
      `expected ${describeSelector(this.locator.selector)} ${this.negate ? 'not ' : ''}to match ${n} node(s), but it matched ${count} (waited ${timeoutMs} ms)`,
      { actual: count, expected: n, selector: this.locator.selector },
    );
  }
}

/**
 * `assert_screenshot`'s arguments from `toMatchScreenshot`'s options (camelCase → the tool's
 * names; mask locators → selectors).
 */
function screenshotArgs(name, node, options = {}) {
  if (typeof name !== 'string' || name.length === 0) {
    throw new AutomationError('BAD_ARGUMENT', 'toMatchScreenshot(name, options?) needs a name: its baseline is <name>.png, e.g. toMatchScreenshot("settings")');
  }
  const known = { threshold: 'threshold', maxDiffPixels: 'max_diff_pixels', maxDiffRatio: 'max_diff_ratio', stableFrames: 'stable_frames', timeoutMs: 'timeout_ms', mask: 'mask' };
  const args = { name };
  if (node !== undefined) args.node = node;
  for (const [k, v] of Object.entries(options ?? {})) {
    const wire = known[k];
    if (!wire) {
      throw new AutomationError('BAD_ARGUMENT', `toMatchScreenshot: unknown option ${JSON.stringify(k)}; known: ${Object.keys(known).join(', ')}`);
    }
    if (v === undefined) continue;
    args[wire] = wire === 'mask' ? [].concat(v).map((m) => toSelector(m instanceof Locator ? m.selector : m)) : v;
  }
  return args;
}

/**
 * `audit_app`'s arguments from `toPassAudit`'s options: the rules, the walk, the accepted
 * findings (`{rule, selector}`, as a report gives them); the audit must pass.
 */
function auditArgs(options = {}) {
  const known = ['rules', 'keyboard', 'baseline'];
  const args = { expect_pass: true };
  for (const [k, v] of Object.entries(options ?? {})) {
    if (!known.includes(k)) {
      throw new AutomationError('BAD_ARGUMENT', `toPassAudit: unknown option ${JSON.stringify(k)}; known: ${known.join(', ')}`);
    }
    if (v !== undefined) args[k] = v;
  }
  return args;
}

/**
 * The whole window: its golden screenshot, `await expect(app).toMatchScreenshot('main')`; its
 * accessibility audit, `await expect(app).toPassAudit({rules: ['control-name']})`.
 */
class AppExpectation {
  constructor(app) {
    this.app = app;
  }

  /**
   * The window's screenshot matches its baseline `<name>.png` (in the flow's
   * `<file>-snapshots/` directory; the first run creates it). A mismatch is ASSERTION_FAILED
   * with the diff pixel count and the expected/actual/diff PNG paths in `actual`/`expected`.
   */
  toMatchScreenshot(name, options) {
    return this.app.op('assert_screenshot', screenshotArgs(name, undefined, options));
  }

  /**
   * The app passes the accessibility audit (docs/audit.md): no finding outside `baseline`.
   * A finding is an ASSERTION_FAILED `AutomationError` naming the first ones; `actual` holds
   * the whole report. Items to review never fail it.
   */
  toPassAudit(options) {
    return this.app.op('audit_app', auditArgs(options));
  }
}

Expectation.prototype.toMatchScreenshot = function toMatchScreenshot(name, options) {
  if (this.negate) {
    throw new AutomationError('BAD_ARGUMENT', 'toMatchScreenshot cannot be negated: a screenshot either matches its baseline or fails with its diff');
  }
  return this.locator.app.op('assert_screenshot', screenshotArgs(name, this.locator.selector, options));
};

/**
 * Assertions on a locator: `await expect(app.find({name: 'Status'})).toHaveText('Saved')`;
 * on the app, its window's golden screenshot: `await expect(app).toMatchScreenshot('main')`.
 */
export function expect(target) {
  if (target instanceof App) return new AppExpectation(target);
  return new Expectation(target, false);
}
