// The typed error every failure of this client is: the kit's `code`, whose fault it is, and
// what the reply said (`hint`, `candidates`), plus `actual` / `expected` for assertions.

import { faultOf } from './codes.js';

export class AutomationError extends Error {
  /**
   * @param {string} code one of `Codes`
   * @param {string} message one sentence on what went wrong
   * @param {object} [details] hint, candidates, actual, expected, op, selector, busy, cause
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'AutomationError';
    this.code = code;
    this.fault = faultOf(code) ?? 'retry';
    this.retryable = this.fault === 'retry';
    for (const key of ['hint', 'candidates', 'actual', 'expected', 'op', 'selector', 'busy', 'timeoutMs']) {
      if (details[key] !== undefined) this[key] = details[key];
    }
  }

  /** A reply's `{"status":"err", …}` as an error. */
  static fromReply(reply, op) {
    const e = new AutomationError(
      typeof reply.code === 'string' ? reply.code : 'BRIDGE_IO',
      typeof reply.message === 'string' ? reply.message : 'the app answered an error without a message',
      { hint: reply.hint, candidates: reply.candidates, op },
    );
    return e;
  }

  /** What an agent reads: the code, the message and the data, no stack. */
  toJSON() {
    const out = { code: this.code, message: this.message, fault: this.fault };
    for (const key of ['hint', 'candidates', 'actual', 'expected', 'op', 'selector', 'busy']) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    return out;
  }
}
