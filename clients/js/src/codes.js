// The kit's error codes, mirrored from automation-core's `ErrorCode` list (error.rs), in the
// same order, with whose fault each is. `automation-cli/tests/clients/js_client.rs` fails when this
// list drifts from core's.

/** @type {ReadonlyArray<{code: string, fault: 'request' | 'retry' | 'relaunch'}>} */
export const ERROR_CODES = Object.freeze([
  { code: 'BAD_REQUEST', fault: 'request' },
  { code: 'NOT_FOUND', fault: 'request' },
  { code: 'AMBIGUOUS', fault: 'request' },
  { code: 'BAD_ARGUMENT', fault: 'request' },
  { code: 'UNKNOWN_NAME', fault: 'request' },
  { code: 'UNHANDLED_ACTION', fault: 'request' },
  { code: 'STALE', fault: 'request' },
  { code: 'ASSERTION_FAILED', fault: 'request' },
  { code: 'WAIT_TIMEOUT', fault: 'retry' },
  { code: 'SETTLE_TIMEOUT', fault: 'retry' },
  { code: 'NO_GEOMETRY', fault: 'request' },
  { code: 'OUT_OF_VIEW', fault: 'request' },
  { code: 'NO_EFFECT', fault: 'request' },
  { code: 'DISABLED', fault: 'request' },
  { code: 'NOT_VISIBLE', fault: 'request' },
  { code: 'HOST_REQUIRED', fault: 'request' },
  { code: 'UNSUPPORTED', fault: 'request' },
  { code: 'INVALID_TREE_UPDATE', fault: 'retry' },
  { code: 'GPU_UNAVAILABLE', fault: 'retry' },
  { code: 'GPU_READBACK_FAILED', fault: 'retry' },
  { code: 'BRIDGE_TIMEOUT', fault: 'retry' },
  { code: 'BRIDGE_DROPPED', fault: 'retry' },
  { code: 'BRIDGE_IO', fault: 'retry' },
  { code: 'TARGET_FAILED', fault: 'retry' },
  { code: 'TARGET_TIMEOUT', fault: 'retry' },
  { code: 'CANCELLED', fault: 'retry' },
  { code: 'APP_GONE', fault: 'relaunch' },
  { code: 'STEP_FAILED', fault: 'request' },
  { code: 'SCRIPT_ERROR', fault: 'request' },
  { code: 'SCRIPT_EXITED_EARLY', fault: 'request' },
  { code: 'BUDGET_EXCEEDED', fault: 'request' },
  { code: 'RUN_TIMEOUT', fault: 'retry' },
  { code: 'COMMAND_NOT_STARTED', fault: 'request' },
  { code: 'COMMAND_FAILED', fault: 'request' },
  { code: 'COMMAND_KILLED', fault: 'retry' },
  { code: 'INTERRUPTED', fault: 'retry' },
  { code: 'NOT_A_REGULAR_FILE', fault: 'request' },
  { code: 'FILE_TOO_LARGE', fault: 'request' },
  { code: 'UNSAFE_PATH', fault: 'request' },
  { code: 'FILE_IO', fault: 'retry' },
  { code: 'HOST_REFUSED', fault: 'request' },
  { code: 'PEER_REFUSED', fault: 'request' },
  { code: 'ORIGIN_REFUSED', fault: 'request' },
  { code: 'CROSS_SITE_REFUSED', fault: 'request' },
  { code: 'TOKEN_REQUIRED', fault: 'request' },
  { code: 'CONTENT_TYPE_REFUSED', fault: 'request' },
].map(Object.freeze));

/** Every code by name: `Codes.NOT_FOUND === 'NOT_FOUND'`. */
export const Codes = Object.freeze(Object.fromEntries(ERROR_CODES.map(({ code }) => [code, code])));

const FAULTS = new Map(ERROR_CODES.map(({ code, fault }) => [code, fault]));

/** Whose fault a code is (`request`: fix the call; `retry`: the environment; `relaunch`). */
export function faultOf(code) {
  return FAULTS.get(code);
}

/** True when the same call may succeed later (the environment failed, not the request). */
export function isRetryable(code) {
  return FAULTS.get(code) === 'retry';
}
