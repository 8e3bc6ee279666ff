// @automation-kit/client: drive an app through the automation kit's live bridge.
//
//   import { connect, expect, emit, step } from '@automation-kit/client';
//   const app = await connect();
//   await app.find({ role: 'Button', name: 'Save' }).click();

import { installCrashHandler } from './crash.js';

export { connect, App, DEFAULT_TIMEOUT_MS, LIVE_MAX_WAIT_MS } from './app.js';
export { Locator, textOf } from './locator.js';
export { expect } from './expect.js';
export { emit, log, step, EmitError, EVENT_PIPE_ENV, LOG_PIPE_ENV } from './emit.js';
export { AutomationError } from './errors.js';
export { Codes, ERROR_CODES, faultOf, isRetryable } from './codes.js';
export { OPS, opSpec } from './catalog.js';
export { toSelector } from './selector.js';
export { inputs, executionId, INPUTS_ENV, EXECUTION_ID_ENV } from './run.js';
export {
  ENDPOINT_ENV,
  TOKEN_ENV,
  defaultBaseDir,
  descriptorDir,
  listDescriptors,
  listLive,
  probe,
} from './endpoint.js';
export { WireConnection, PROTOCOL_VERSION, MAX_REQUEST_FRAME, MAX_REPLY_FRAME } from './wire.js';
export { installCrashHandler, scriptLocation } from './crash.js';

// Under a runner (an event pipe is set), a script's uncaught exception becomes a structured
// failure event (see crash.js). Without one, node's own handling (the stack and the error's
// fields on stderr, exit 1) is left alone — also for test runners such as node:test.
if (process.env.MCP_EVENT_PIPE_PATH) installCrashHandler();
