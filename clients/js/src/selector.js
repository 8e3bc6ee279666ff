// Selectors in the shape agents guess, turned into core's selector (`node_ref.rs`:
// role, label, label_contains, value, author_id, nth). `name` is the accessible name, which
// core calls `label` (core accepts `name` too; this client sends `label`, and `label` works
// here as well). Unknown keys are passed on unchanged, so the app's strict parser names
// them in its BAD_REQUEST (one source of truth for what a selector may hold).

import { AutomationError } from './errors.js';
import { Locator } from './locator.js';

const ALIASES = Object.freeze({
  name: 'label',
  labelContains: 'label_contains',
  nameContains: 'label_contains',
  authorId: 'author_id',
  testId: 'author_id',
  index: 'nth',
});

/** A selector object for the wire, from `{role, name, …}`, a label string or a node id string. */
export function toSelector(input) {
  if (input instanceof Locator) return input.selector;
  if (typeof input === 'string') {
    // A decimal string is a node id (as replies give them); anything else is a label.
    return /^e?\d+$/.test(input) ? input : { label: input };
  }
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 0) return String(input);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AutomationError(
      'BAD_ARGUMENT',
      `a selector is an object like {role: 'Button', name: 'Save'}, a label string or a node id string; got ${describe(input)}`,
    );
  }
  const out = {};
  // for…in over own keys, not Object.entries: no array of pairs per call (every op pays this).
  for (const key in input) {
    if (!Object.prototype.hasOwnProperty.call(input, key)) continue;
    const value = input[key];
    if (value === undefined) continue;
    const wire = ALIASES[key] ?? key;
    if (out[wire] !== undefined) {
      const other = Object.keys(input).find((k) => k !== key && input[k] !== undefined && (ALIASES[k] ?? k) === wire);
      throw new AutomationError(
        'BAD_ARGUMENT',
        `selector gives \`${wire}\` twice, as \`${other}\` and as \`${key}\` (the same field: ${wire === 'label' || wire === 'label_contains' ? 'the accessible name' : wire}); keep one`,
        { hint: `e.g. {${other}: ${JSON.stringify(input[other])}}` },
      );
    }
    out[wire] = value;
  }
  return out;
}

/** A readable form of a selector for messages: `{role: "Button", label: "Save"}`. */
export function describeSelector(sel) {
  if (typeof sel === 'string') return `node ${sel}`;
  return `{${Object.entries(sel)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ')}}`;
}

function describe(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return `${typeof x} ${JSON.stringify(x)}`;
}

const NODE_KEYS = ['node', 'to_node', 'root'];

/** Args with every node target (`node`, `to_node`, `root`, `condition.node`) made wire-ready. */
export function normalizeArgs(args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const out = { ...args };
  for (const k of NODE_KEYS) if (out[k] !== undefined && out[k] !== null) out[k] = toSelector(out[k]);
  if (out.condition && typeof out.condition === 'object' && out.condition.node !== undefined) {
    out.condition = { ...out.condition, node: toSelector(out.condition.node) };
  }
  if (Array.isArray(out.steps)) {
    out.steps = out.steps.map((s) => (s && typeof s === 'object' && s.node !== undefined ? { ...s, node: toSelector(s.node) } : s));
  }
  return out;
}
