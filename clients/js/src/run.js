// What the runner hands a script besides its endpoint: the run's inputs (`AUTOMATION_INPUTS`,
// a JSON object) and its execution id (`AUTOMATION_EXECUTION_ID`).

import { AutomationError } from './errors.js';

/** Env var: the run's inputs as a JSON object. */
export const INPUTS_ENV = 'AUTOMATION_INPUTS';
/** Env var: the run's execution id. */
export const EXECUTION_ID_ENV = 'AUTOMATION_EXECUTION_ID';

/** The run's inputs (`{}` when the script runs outside the runner). */
export function inputs() {
  const raw = process.env[INPUTS_ENV];
  if (raw === undefined || raw === '') return {};
  let v;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new AutomationError('BAD_ARGUMENT', `$${INPUTS_ENV} is not JSON (${e.message}); it must be a JSON object of the run's inputs`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new AutomationError('BAD_ARGUMENT', `$${INPUTS_ENV} must be a JSON object of the run's inputs, got ${JSON.stringify(v).slice(0, 100)}`);
  }
  return v;
}

/** The run's execution id, or undefined outside the runner. */
export function executionId() {
  const id = process.env[EXECUTION_ID_ENV];
  return id ? id : undefined;
}
