// A locator: a selector bound to an app. It holds no node id, so it never goes stale: every
// action sends the selector and the app resolves it against its current tree (a miss is
// NOT_FOUND with `candidates`, several matches AMBIGUOUS with the matches).

import { AutomationError } from './errors.js';

export class Locator {
  /** Use `app.find(selector)`. */
  constructor(app, selector) {
    this.app = app;
    /** The wire selector (core's fields) or a node id string. */
    this.selector = selector;
  }

  /** The n-th match (0-based, document order). */
  nth(n) {
    if (typeof this.selector === 'string') {
      throw new AutomationError('BAD_ARGUMENT', `nth() needs a selector, not the node id ${this.selector}`);
    }
    return new Locator(this.app, { ...this.selector, nth: n });
  }

  /** The first match. */
  first() {
    return this.nth(0);
  }

  /** The node's full record (`read_node`): role, label, value, states, bounds, actions, text. */
  read() {
    return this.app.op('read_node', { node: this.selector });
  }

  /** What the node shows: its value, else its label, else its text runs (`''` when none). */
  async text() {
    const r = await this.read();
    return textOf(r);
  }

  /** The node's value (`undefined` when it has none). */
  async value() {
    return (await this.read()).value;
  }

  /** The node id of the current match, or null when nothing matches (`find_node`). */
  async id() {
    return (await this.app.op('find_node', this.selector)).node;
  }

  /** How many nodes match (`find_node`'s count; `nth` ignored). */
  async count() {
    if (typeof this.selector === 'string') return (await this.exists()) ? 1 : 0;
    const { nth: _nth, ...sel } = this.selector;
    return (await this.app.op('find_node', sel)).count;
  }

  /** True when something matches now. */
  async exists() {
    if (typeof this.selector === 'string') {
      try {
        await this.read();
        return true;
      } catch (e) {
        if (e.code === 'NOT_FOUND') return false;
        throw e;
      }
    }
    return (await this.app.op('find_node', this.selector)).node !== null;
  }

  /** True when it matches and has a non-empty on-screen box. */
  async isVisible() {
    try {
      return hasBox(await this.read());
    } catch (e) {
      if (e.code === 'NOT_FOUND') return false;
      throw e;
    }
  }

  /** The accessibility `click` action (`invoke_action`). `{pointer: true}` clicks with the mouse instead. */
  click({ pointer = false, settle } = {}) {
    if (pointer) return this.app.op('inject_pointer', { node: this.selector, action: 'click' }, { settle });
    return this.app.op('invoke_action', { node: this.selector, action: 'click' }, { settle });
  }

  /** A mouse double click at the node's centre. */
  dblclick({ settle } = {}) {
    return this.app.op('inject_pointer', { node: this.selector, action: 'double_click' }, { settle });
  }

  /** Move the mouse over the node's centre. */
  hover({ settle } = {}) {
    return this.app.op('inject_pointer', { node: this.selector, action: 'move' }, { settle });
  }

  /** Secondary click (context menu). */
  rightClick({ settle } = {}) {
    return this.app.op('right_click', { node: this.selector }, { settle });
  }

  /** Any accessibility action: `invoke('increment')`. */
  invoke(action, { settle } = {}) {
    return this.app.op('invoke_action', { node: this.selector, action }, { settle });
  }

  /** Give it keyboard focus. */
  focus({ settle } = {}) {
    return this.app.op('focus_node', { node: this.selector }, { settle });
  }

  /** Type as a keyboard does, one key per character, after focusing it. */
  typeText(text, { settle } = {}) {
    return this.app.op('type_text', { node: this.selector, text: String(text) }, { settle });
  }

  /** Replace its value (text, or a number for sliders). */
  setValue(value, { settle } = {}) {
    return this.app.op('set_value', { node: this.selector, value }, { settle });
  }

  /** Replace its text (Playwright's name for `setValue`). */
  fill(text, options) {
    return this.setValue(String(text), options);
  }

  /** Empty it. */
  clear(options) {
    return this.setValue('', options);
  }

  /** Focus it, then press one key (`press('Enter')`, `press('Control+A')`). */
  async press(key, modifiers = {}, { settle } = {}) {
    await this.focus();
    return this.app.pressKey(key, modifiers, { settle });
  }

  /** Expand (a collapsible header, a tree item). */
  expand({ settle } = {}) {
    return this.app.op('expand', { node: this.selector }, { settle });
  }

  /** Collapse. */
  collapse({ settle } = {}) {
    return this.app.op('collapse', { node: this.selector }, { settle });
  }

  /** Turn the wheel over it: `scroll({dy: 120})` (px; `{lines: true}` for notches). */
  scroll(args = {}, { settle } = {}) {
    return this.app.op('scroll', { node: this.selector, ...args }, { settle });
  }

  /** Drag it onto another locator / selector, or to `{x, y}` (window-logical). */
  dragTo(target, { settle } = {}) {
    const args = { node: this.selector };
    if (target && typeof target === 'object' && 'x' in target && 'y' in target && !(target instanceof Locator)) {
      args.to_x = target.x;
      args.to_y = target.y;
    } else {
      args.to_node = target;
    }
    return this.app.op('drag_node', args, { settle });
  }

  /** Hold on it for the target's long-press threshold. */
  longPress(args = {}, { settle } = {}) {
    return this.app.op('long_press', { node: this.selector, ...args }, { settle });
  }

  /** Two-finger pinch around it (`pinch(2)` zooms in). */
  pinch(scale, args = {}, { settle } = {}) {
    return this.app.op('pinch', { node: this.selector, scale, ...args }, { settle });
  }

  /** A fast swipe from it. */
  fling(dx, dy, args = {}, { settle } = {}) {
    return this.app.op('fling', { node: this.selector, dx, dy, ...args }, { settle });
  }

  /** Check one fact app-side (`assert_node`): `assert('value_equals', 'Ada')`, `assert('toggled', true)`. */
  assert(kind, expected) {
    const args = { node: this.selector, kind };
    if (typeof expected === 'boolean') args.flag = expected;
    else if (expected !== undefined) args.value = String(expected);
    return this.app.op('assert_node', args);
  }

  /** A PNG of just this node (see `app.screenshot`). */
  screenshot(args = {}) {
    return this.app.screenshot({ ...args, node: this.selector });
  }

  /** Wait until it matches (`{state: 'gone'}`: until it does not). */
  waitFor(options) {
    return this.app.waitFor(this, options);
  }

  toJSON() {
    return { selector: this.selector };
  }
}

/** What a node shows: value, else label, else its text runs. */
export function textOf(record) {
  if (!record) return undefined;
  return record.value ?? record.label ?? record.text?.document_text ?? '';
}

/** True when the record has a non-empty box. */
export function hasBox(record) {
  const b = record?.bounds;
  return !!b && b.width > 0 && b.height > 0;
}
