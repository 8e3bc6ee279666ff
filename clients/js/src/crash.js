// An uncaught exception or unhandled rejection in a script becomes a structured failure:
// a `step_failed` event for the step that was running (if one was), and a `log` event at
// level `error` whose `data` is `{uncaught, name, message, code?, stack, location, step}` —
// `location` is the first stack frame outside node's internals and this package, as
// `{file, line, column}`, which the runner maps back to the submitted source. The stack also
// goes to stderr as node would print it (not under `automation run` / `execute_sequence`,
// which set `AUTOMATION_EXECUTION_ID` and report the failure themselves, once), and the
// process exits 1.

import { AutomationError } from './errors.js';
import { current, emit, errorPayload } from './emit.js';
import { scriptLocation } from './location.js';
import { EXECUTION_ID_ENV } from './run.js';

export { scriptLocation };

/** The `data` of the crash event for `error`. */
export function crashReport(error, kind) {
  const isError = error instanceof Error;
  const report = {
    uncaught: kind,
    name: isError ? error.name : typeof error,
    message: isError ? error.message : String(error),
    stack: isError && typeof error.stack === 'string' ? error.stack : undefined,
    location: isError ? scriptLocation(error.stack) : null,
    step: current.step ?? current.lastFailed ?? null,
  };
  if (error instanceof AutomationError) Object.assign(report, { code: error.code, error: error.toJSON() });
  else if (isError && typeof error.code === 'string') report.code = error.code;
  return report;
}

let installed = false;

/** Install the handlers (done on import when an event pipe is set; idempotent). */
export function installCrashHandler() {
  if (installed) return;
  installed = true;
  const onCrash = (kind) => (error) => {
    const report = crashReport(error, kind);
    // The runner shows the failure from the events below; a copy on stderr would repeat it.
    const runner = Boolean(process.env[EXECUTION_ID_ENV]) && emit.enabled;
    try {
      if (!runner) {
        process.stderr.write(`${report.stack ?? `Uncaught ${report.name}: ${report.message}`}\n`);
        if (error instanceof AutomationError) process.stderr.write(`${JSON.stringify(error.toJSON())}\n`);
      }
    } catch {
      // stderr closed: the events below still say it.
    }
    try {
      if (current.step) emit.stepFailed(current.step.stepId, current.step.stepName, errorPayload(error) ?? report.message);
      emit.log('error', `${kind === 'rejection' ? 'Unhandled rejection' : 'Uncaught exception'}: ${report.name}: ${report.message}`, report);
    } catch (e) {
      try {
        process.stderr.write(`automation: the failure could not be reported on the event pipe: ${e.message}\n`);
      } catch {
        // nothing left to tell
      }
    }
    process.exit(1);
  };
  process.on('uncaughtException', onCrash('exception'));
  process.on('unhandledRejection', onCrash('rejection'));
}
