// Events for whoever runs the script: one JSON line per event on `$MCP_EVENT_PIPE_PATH`, in
// automation-wire's typed format (`docs/events.md`: `"__mcp_event__": true`, `type`, an ISO-8601
// `timestamp`, camelCase fields), and log records on `$MCP_LOG_PIPE_PATH`. Without the
// variables the events are no-ops (a person running `node test.js` sees the script's own
// output) and log records go to stderr.
//
// Writes are synchronous (`writeSync` of one whole line): events arrive in order and none is
// lost when the script exits or crashes right after emitting.

import fs from 'node:fs';

import { AutomationError } from './errors.js';
import { scriptLocation } from './location.js';

/** Env var naming the event channel (`events::EVENT_PIPE_ENV`). */
export const EVENT_PIPE_ENV = 'MCP_EVENT_PIPE_PATH';
/** Env var naming the log channel (`events::LOG_PIPE_ENV`). */
export const LOG_PIPE_ENV = 'MCP_LOG_PIPE_PATH';
/** The tag every event line carries (`events::EVENT_TAG`). */
export const EVENT_TAG = '__mcp_event__';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error']);

/** Why an event or log line could not be written. */
export class EmitError extends Error {
  constructor(path, cause) {
    super(`could not write to the event pipe ${path}: ${cause.message}`, { cause });
    this.name = 'EmitError';
    this.path = path;
  }
}

/** One channel, opened on first use (write-only, append, never created). */
class Channel {
  constructor(envVar) {
    this.envVar = envVar;
    this.fd = null;
    this.path = null;
  }

  get enabled() {
    const p = process.env[this.envVar];
    return typeof p === 'string' && p.length > 0;
  }

  write(line) {
    const p = process.env[this.envVar];
    if (typeof p !== 'string' || p.length === 0) return false;
    try {
      if (this.fd === null || this.path !== p) {
        if (this.fd !== null) fs.closeSync(this.fd);
        this.fd = null;
        // No O_CREAT: a channel that is gone is an error, not a stray regular file.
        this.fd = fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_APPEND);
        this.path = p;
      }
      const buf = Buffer.from(`${line}\n`, 'utf8');
      let off = 0;
      while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
      return true;
    } catch (e) {
      throw new EmitError(p, e);
    }
  }
}

const events = new Channel(EVENT_PIPE_ENV);
const logs = new Channel(LOG_PIPE_ENV);

const finite = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const text = (x) => (x === undefined || x === null ? undefined : String(x));

function put(type, fields) {
  if (!events.enabled) return false;
  const line = { [EVENT_TAG]: true, type, timestamp: new Date().toISOString() };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) line[k] = v;
  return events.write(JSON.stringify(line));
}

/**
 * An error as the `error` field carries it: a kit error keeps its code and data, and the
 * script's line it was thrown from (`location`, `{file, line, column}`) when its stack has one.
 */
export function errorPayload(error) {
  if (error === undefined || error === null) return undefined;
  if (error instanceof AutomationError) {
    const out = error.toJSON();
    const location = scriptLocation(error.stack);
    if (location) out.location = location;
    return out;
  }
  if (error instanceof Error) return error.message;
  if (typeof error === 'object') return error;
  return String(error);
}

/** The step that is running (set by `step()` and `stepStarted`), for the crash handler. */
export const current = { step: null, lastFailed: null };

function stepArgs(stepId, stepName) {
  const id = text(stepId);
  if (!id) throw new AutomationError('BAD_ARGUMENT', 'a step event needs a stepId (a non-empty string)');
  return { stepId: id, stepName: text(stepName) ?? id };
}

export const emit = Object.freeze({
  /** True when events go somewhere (`$MCP_EVENT_PIPE_PATH` is set). */
  get enabled() {
    return events.enabled;
  },

  /** `progress {current, total?, message?}`; also `progress({current, total, message})`. */
  progress(currentOrFields, total, message) {
    const f = typeof currentOrFields === 'object' && currentOrFields !== null ? currentOrFields : { current: currentOrFields, total, message };
    const cur = finite(f.current);
    if (cur === undefined) throw new AutomationError('BAD_ARGUMENT', `progress needs a finite number \`current\`, got ${JSON.stringify(f.current)}`);
    return put('progress', { current: cur, total: finite(f.total), message: text(f.message) });
  },

  /** `step_started {stepId, stepName, stepIndex?, totalSteps?}` (stepName defaults to stepId). */
  stepStarted(stepId, stepName, { stepIndex, totalSteps } = {}) {
    const s = stepArgs(stepId, stepName);
    current.step = s;
    return put('step_started', { ...s, stepIndex: finite(stepIndex), totalSteps: finite(totalSteps) });
  },

  /** `step_completed {stepId, stepName, duration?, stepIndex?, totalSteps?}` (duration in ms). */
  stepCompleted(stepId, stepName, { duration, stepIndex, totalSteps } = {}) {
    const s = stepArgs(stepId, stepName);
    if (current.step?.stepId === s.stepId) current.step = null;
    return put('step_completed', { ...s, duration: finite(duration), stepIndex: finite(stepIndex), totalSteps: finite(totalSteps) });
  },

  /** `step_failed {stepId, stepName, error?, duration?}`; a kit error travels with its code and data. */
  stepFailed(stepId, stepName, error, { duration } = {}) {
    const s = stepArgs(stepId, stepName);
    if (current.step?.stepId === s.stepId) current.step = null;
    current.lastFailed = s;
    return put('step_failed', { ...s, error: errorPayload(error), duration: finite(duration) });
  },

  /**
   * `screenshot {path?, base64?, annotation?, element?}`. Pass what `app.screenshot()` returned
   * (its `path`, or its PNG as base64), or the fields themselves.
   */
  screenshot(shot = {}, annotation) {
    const base64 = shot.base64 ?? (shot.png instanceof Uint8Array && !shot.path ? Buffer.from(shot.png).toString('base64') : undefined);
    return put('screenshot', {
      path: text(shot.path),
      base64: text(base64),
      annotation: text(annotation ?? shot.annotation),
      element: text(shot.element),
    });
  },

  /** `data {key, value}` (any JSON value). */
  data(key, value) {
    const k = text(key);
    if (!k) throw new AutomationError('BAD_ARGUMENT', 'a data event needs a key (a non-empty string)');
    return put('data', { key: k, value: value === undefined ? null : value });
  },

  /** `status {message, duration?, element?}`. */
  status(message, { duration, element } = {}) {
    return put('status', { message: String(message), duration: finite(duration), element: text(element) });
  },

  /** `log {level, message, data?}` on the event channel (level: trace, debug, info, warn, error). */
  log(level, message, data) {
    const lv = LEVELS.has(level) ? level : 'info';
    return put('log', { level: lv, message: String(message), data: data === undefined ? undefined : data });
  },
});

/**
 * The log channel (`$MCP_LOG_PIPE_PATH`): `{level, message, data?, timestamp}` lines, which
 * the runner forwards at that level. Without the variable, one line on stderr.
 */
export function writeLog(level, message, data) {
  const lv = LEVELS.has(level) ? level : 'info';
  const record = { level: lv, message: String(message), timestamp: new Date().toISOString() };
  if (data !== undefined) record.data = data;
  if (!logs.write(JSON.stringify(record))) {
    process.stderr.write(`[${lv}] ${record.message}${data === undefined ? '' : ` ${JSON.stringify(data)}`}\n`);
  }
}

export const log = Object.freeze({
  trace: (m, d) => writeLog('trace', m, d),
  debug: (m, d) => writeLog('debug', m, d),
  info: (m, d) => writeLog('info', m, d),
  warn: (m, d) => writeLog('warn', m, d),
  error: (m, d) => writeLog('error', m, d),
});

let stepSeq = 0;

/**
 * Run `fn` as one step: `step_started`, then `step_completed` with its duration, or
 * `step_failed` with the error (rethrown). `await step('Click Save', () => save.click())`.
 */
export async function step(name, fn, { id } = {}) {
  stepSeq += 1;
  const stepId = id ?? `step-${stepSeq}`;
  const started = performance.now();
  emit.stepStarted(stepId, name);
  try {
    const out = await fn();
    emit.stepCompleted(stepId, name, { duration: performance.now() - started });
    return out;
  } catch (e) {
    emit.stepFailed(stepId, name, e, { duration: performance.now() - started });
    throw e;
  }
}
