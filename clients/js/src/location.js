// Where in the script an error was thrown: the first stack frame that is neither node's own
// nor this package's, as `{file, line, column}` (the runner maps it back to the submitted
// source).

import { fileURLToPath } from 'node:url';
import path from 'node:path';

const PACKAGE_DIR = path.dirname(fileURLToPath(import.meta.url));

// `    at fn (file:///x/test.js:12:5)` or `    at /x/test.js:12:5`
const FRAME = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;

/** The first stack frame of the script itself: `{file, line, column}`, or null. */
export function scriptLocation(stack) {
  if (typeof stack !== 'string') return null;
  for (const raw of stack.split('\n').slice(1)) {
    const lineText = raw.trim();
    if (!lineText.startsWith('at ')) continue;
    const m = FRAME.exec(lineText);
    if (!m) continue;
    let file = m[1];
    if (file.startsWith('node:') || file.startsWith('internal/')) continue;
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (file.startsWith(PACKAGE_DIR + path.sep)) continue;
    return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return null;
}
