// The app: `await connect()`, then any op by name (`app.op('find_node', {...})`), a camelCase
// method per catalog op, and the helpers agents reach for (`find`, `snapshot`, `screenshot`,
// `waitFor`, `pressKey`, `waitForAnnouncement`).

import fs from 'node:fs';
import path from 'node:path';

import { OPS, opSpec } from './catalog.js';
import { openEndpoint } from './endpoint.js';
import { AutomationError } from './errors.js';
import { Locator } from './locator.js';
import { describeSelector, normalizeArgs, toSelector } from './selector.js';

/** The live settle limit on `settle_timeout_ms` (`SettleSpec::LIVE_MAX_TIMEOUT_MS`). */
export const LIVE_MAX_WAIT_MS = 2000;
/** Default wait of `waitFor`, `expect` and `waitForAnnouncement`. */
export const DEFAULT_TIMEOUT_MS = 5000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isPlain = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof Locator);

/** The second positional argument of a few helpers: `setValue(node, 'Ada')`, `invokeAction(node, 'click')`. */
const SECONDARY = Object.freeze({ set_value: 'value', invoke_action: 'action', pinch: 'scale', assert_node: 'kind' });

const SELECTOR_KEYS = new Set(['role', 'name', 'label', 'labelContains', 'label_contains', 'nameContains', 'value', 'authorId', 'author_id', 'testId', 'nth', 'index']);

/** `{role: 'Button', name: 'Save'}` (a selector) rather than `{node: …}` (an op's arguments). */
function looksLikeSelector(x) {
  const keys = Object.keys(x);
  return keys.length > 0 && !keys.includes('node') && keys.every((k) => SELECTOR_KEYS.has(k));
}

/** Builds an op's args from a helper's positional arguments (see `catalog.js`). */
function helperArgs(spec, first, second) {
  let args = {};
  const primary = spec.primary;
  if (first === undefined || first === null) {
    args = {};
  } else if (primary === 'node' && (first instanceof Locator || typeof first === 'string' || typeof first === 'number')) {
    args = { node: first };
  } else if (isPlain(first)) {
    const looksLikeArgs =
      primary !== 'node' && primary !== 'condition' && primary !== 'root'
        ? true
        : primary === 'condition'
          ? 'condition' in first
          : primary === 'root'
            ? !looksLikeSelector(first)
            : !looksLikeSelector(first);
    args = looksLikeArgs ? { ...first } : { [primary]: first };
  } else if (spec.name === 'find_node') {
    args = first; // a label or node id string: the selector itself
  } else if (primary) {
    args = { [primary]: first };
  } else {
    throw new AutomationError('BAD_ARGUMENT', `${spec.method}() takes an arguments object (see \`automation tools\` for ${spec.name}); got ${JSON.stringify(first)}`);
  }
  if (second !== undefined) {
    if (isPlain(second)) Object.assign(args, second);
    else if (SECONDARY[spec.name]) args[SECONDARY[spec.name]] = second;
    else throw new AutomationError('BAD_ARGUMENT', `${spec.method}(): the second argument is an object of further ${spec.name} arguments; got ${JSON.stringify(second)}`);
  }
  return args;
}

/**
 * `JSON.stringify({op: {[name]: args}, settle})` (settle left out when undefined), byte for byte,
 * without building the two wrapper objects per op. Anything JSON has no text for (a function,
 * say) is left out, as `JSON.stringify` leaves such a property out.
 */
function requestJson(name, args, settle) {
  const argsJson = JSON.stringify(args);
  let text = argsJson === undefined ? '{"op":{}' : `{"op":{${JSON.stringify(name)}:${argsJson}}`;
  const settleJson = settle === undefined ? undefined : JSON.stringify(settle);
  if (settleJson !== undefined) text += `,"settle":${settleJson}`;
  return `${text}}`;
}

/** The reply itself, when it is one (`status` ok or err); anything else is a `BRIDGE_IO`. */
function checkedReply(reply) {
  if (!reply || (reply.status !== 'ok' && reply.status !== 'err')) {
    throw new AutomationError('BRIDGE_IO', `bridge payload: a reply without "status": ${JSON.stringify(reply).slice(0, 200)}`);
  }
  return reply;
}

export class App {
  /** Use `connect()`. */
  constructor(conn, descriptor = null, { settle } = {}) {
    this.conn = conn;
    /** The settle spec sent with every op that takes one when the call gives none (`connect({settle})`). */
    this.defaultSettle = settle;
    /** The descriptor attached through (null when the endpoint came from the environment). */
    this.descriptor = descriptor;
  }

  /** The serving process's pid (from the bridge's hello). */
  get pid() {
    return this.conn.pid;
  }

  /**
   * Send one request and return the reply as it came (`{status: "ok", data}` or
   * `{status: "err", code, message, hint?, candidates?}`); transport failures are thrown.
   */
  async request(request, { timeoutMs } = {}) {
    return checkedReply(await this.conn.request(request, timeoutMs === undefined ? undefined : { timeoutMs }));
  }

  /**
   * Run any op by its catalog name: `await app.op('find_node', {role: 'Button', label: 'Save'})`.
   * Resolves with the reply's `data`; an error reply is thrown as an `AutomationError` with the
   * kit's `code`, `hint` and `candidates`. `settle` is the op's settle spec (only on ops that take one).
   */
  async op(name, args = {}, { settle, timeoutMs } = {}) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new AutomationError('BAD_ARGUMENT', `op() needs an op name (a string such as "find_node"); got ${JSON.stringify(name)}`);
    }
    const wireArgs = name === 'find_node' ? toSelector(args ?? {}) : normalizeArgs(args ?? {});
    const spec = settle ?? (this.defaultSettle && opSpec(name)?.settle ? this.defaultSettle : undefined);
    // Straight to the connection, one await: every async layer between a reply and the script
    // is another promise and microtask per op. The error is made here, after the await, so its
    // async stack still reaches the script's line.
    const reply = checkedReply(await this.conn.request(requestJson(name, wireArgs, spec), timeoutMs === undefined ? undefined : { timeoutMs }));
    if (reply.status === 'ok') return reply.data;
    const err = AutomationError.fromReply(reply, name);
    const node = wireArgs && typeof wireArgs === 'object' ? wireArgs.node ?? (name === 'find_node' ? wireArgs : undefined) : undefined;
    if (node !== undefined) err.selector = node;
    throw err;
  }

  /** A lazy handle on the node(s) a selector matches, resolved afresh by every action. */
  find(selector) {
    return new Locator(this, toSelector(selector));
  }

  /** `find` by role and accessible name: `app.getByRole('Button', {name: 'Save'})`. */
  getByRole(role, { name, exact = true } = {}) {
    const sel = { role };
    if (name !== undefined) sel[exact ? 'label' : 'label_contains'] = name;
    return this.find(sel);
  }

  /** `find` by accessible name (label): `app.getByLabel('Name')`. */
  getByLabel(label, { exact = true } = {}) {
    return this.find(exact ? { label } : { label_contains: label });
  }

  /** The accessibility tree (`snapshot_tree`): `{tree, version, truncated?, …}` (a text
   * outline), or with `format: 'json'` `{nodes, version, …}`. */
  snapshot(args = {}, options) {
    return this.op('snapshot_tree', helperArgs(opSpec('snapshot_tree'), args), options);
  }

  /**
   * A PNG of the window or a node: `{png, width, height, scale, path?}`. With `{path}` the PNG
   * is also written there (the directory is created).
   */
  async screenshot(args = {}, options) {
    const { path: file, ...rest } = isPlain(args) ? args : { node: args };
    const data = await this.op('screenshot', helperArgs(opSpec('screenshot'), rest), options);
    const b64 = data?.image?.base64;
    if (typeof b64 !== 'string') {
      throw new AutomationError('BRIDGE_IO', 'screenshot reply carries no image.base64');
    }
    const png = Buffer.from(b64, 'base64');
    const out = { png, width: data.width, height: data.height, scale: data.scale, mime: data.image.mime };
    if (file) {
      const abs = path.resolve(file);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, png);
      out.path = abs;
    }
    return out;
  }

  /**
   * Press one key: `app.pressKey('Enter')`, `app.pressKey('s', {command: true})`. Also
   * `'Control+S'` / `'Meta+Shift+Z'` (modifiers before the key, `+`-separated).
   */
  pressKey(key, modifiers = {}, options) {
    if (typeof key !== 'string' || key.length === 0) {
      throw new AutomationError('BAD_ARGUMENT', `pressKey() needs a key name such as "enter" or "Control+S"; got ${JSON.stringify(key)}`);
    }
    const args = { key, ...modifiers };
    const parts = key.split('+');
    if (parts.length > 1 && parts.every((p) => p.length > 0)) {
      const mods = { control: 'ctrl', ctrl: 'ctrl', shift: 'shift', alt: 'alt', option: 'alt', meta: 'meta', cmd: 'command', command: 'command', mod: 'command', super: 'meta' };
      const named = parts.slice(0, -1).map((p) => mods[p.toLowerCase()]);
      if (named.every(Boolean)) {
        args.key = parts[parts.length - 1];
        for (const m of named) args[m] = true;
      }
    }
    return this.op('inject_key', args, options);
  }

  /** Type into whatever has focus (`type_text`); `app.type('Ada', {node: field})` focuses first. */
  type(text, args = {}, options) {
    return this.op('type_text', { ...args, text }, options);
  }

  /**
   * Wait until a node exists (`app.waitFor({role: 'Button', name: 'Save'})`), or until a
   * `wait_for_condition` condition holds (`app.waitFor({kind: 'node_value', node, expected})`),
   * for up to `timeoutMs` (default 5 s) of the app's time. `{state: 'gone'}` waits for no match.
   * Resolves with the node record (existence) or the op's data; fails with WAIT_TIMEOUT.
   */
  async waitFor(what, { timeoutMs = DEFAULT_TIMEOUT_MS, state = 'attached' } = {}) {
    const deadline = Date.now() + timeoutMs;
    if (isPlain(what) && typeof what.kind === 'string') {
      for (;;) {
        const left = Math.max(1, Math.min(LIVE_MAX_WAIT_MS, deadline - Date.now()));
        try {
          return await this.op('wait_for_condition', { condition: what }, { settle: { settle_timeout_ms: left } });
        } catch (e) {
          if (e.code !== 'WAIT_TIMEOUT' || Date.now() >= deadline) throw e;
        }
      }
    }
    const loc = what instanceof Locator ? what : this.find(what);
    const gone = state === 'gone' || state === 'detached' || state === 'hidden';
    const sel = loc.selector;
    const simple = !gone && typeof sel === 'object' && Object.keys(sel).every((k) => k === 'role' || k === 'label');
    let lastCount = 0;
    for (;;) {
      if (simple) {
        const left = Math.max(1, Math.min(LIVE_MAX_WAIT_MS, deadline - Date.now()));
        try {
          await this.op('wait_for_condition', { condition: { kind: 'node_exists', ...sel } }, { settle: { settle_timeout_ms: left } });
          return await loc.read();
        } catch (e) {
          if (e.code !== 'WAIT_TIMEOUT' || Date.now() >= deadline) {
            if (e.code === 'WAIT_TIMEOUT') e.selector = sel;
            throw e;
          }
        }
        continue;
      }
      const found = await this.op('find_node', sel);
      lastCount = found.count;
      if (gone ? found.node === null : found.node !== null) return gone ? null : found.record;
      if (Date.now() >= deadline) {
        throw new AutomationError(
          'WAIT_TIMEOUT',
          `${describeSelector(sel)} ${gone ? `still matches ${lastCount} node(s)` : 'still matches nothing'} after ${timeoutMs} ms`,
          { selector: sel, timeoutMs, hint: gone ? 'check what still shows it with snapshot()' : 'check the selector against snapshot(); a NOT_FOUND from find(...).read() lists candidates' },
        );
      }
      await this.pace();
    }
  }

  /**
   * Between two checks of a wait: let the app run (a `settle`), then yield 16 ms. A settle
   * that runs out of its budget here is only pacing, not the wait's failure.
   */
  async pace() {
    try {
      await this.op('settle');
    } catch (e) {
      if (e.code !== 'SETTLE_TIMEOUT') throw e;
    }
    await sleep(16);
  }

  /** Live-region announcements since `sinceSeq` (`pull_announcements`). */
  async announcements(sinceSeq) {
    const data = await this.op('pull_announcements', sinceSeq === undefined ? {} : { since_seq: sinceSeq });
    return data.announcements ?? [];
  }

  /**
   * Wait until a screen reader would have heard `text` (a string: exact; a RegExp: matched),
   * counting announcements made after `sinceSeq` (default: all recorded). Resolves with the
   * announcement; WAIT_TIMEOUT lists what was heard.
   */
  async waitForAnnouncement(text, { timeoutMs = DEFAULT_TIMEOUT_MS, sinceSeq } = {}) {
    const deadline = Date.now() + timeoutMs;
    const match = (t) => (text instanceof RegExp ? text.test(t) : t === text);
    const heard = [];
    let since = sinceSeq;
    for (;;) {
      const data = await this.op('pull_announcements', since === undefined ? {} : { since_seq: since });
      for (const a of data.announcements ?? []) {
        heard.push(a.text);
        if (match(a.text)) return a;
      }
      if (typeof data.last_seq === 'number') since = data.last_seq;
      if (Date.now() >= deadline) {
        throw new AutomationError('WAIT_TIMEOUT', `no announcement ${text instanceof RegExp ? `matching ${text}` : JSON.stringify(text)} within ${timeoutMs} ms`, {
          actual: heard,
          expected: String(text),
          timeoutMs,
        });
      }
      await this.pace();
    }
  }

  /** Detach (the bridge serves one client at a time: close to let another attach). */
  close() {
    return this.conn.close();
  }
}

// One camelCase method per catalog op, unless a helper above already is that method.
for (const spec of OPS) {
  if (Object.prototype.hasOwnProperty.call(App.prototype, spec.method)) continue;
  Object.defineProperty(App.prototype, spec.method, {
    value: function (first, second, options) {
      return this.op(spec.name, helperArgs(spec, first, second), options);
    },
    writable: true,
    configurable: true,
  });
}

/**
 * Attach to the app: `$AUTOMATION_ENDPOINT` + `$AUTOMATION_TOKEN` when set (what `automation
 * run` gives a script), else the newest live app's descriptor. Options: `address`, `token`,
 * `pid`, `baseDir`, `waitMs` (wait while another client is attached), `helloTimeoutMs`,
 * `replyTimeoutMs`, `settle` (the settle spec of every op that takes one, when a call gives none).
 */
export async function connect(options = {}) {
  const { conn, descriptor } = await openEndpoint(options);
  return new App(conn, descriptor, { settle: options.settle });
}

export { helperArgs, requestJson };
