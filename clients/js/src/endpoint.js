// Where the app is: `AUTOMATION_ENDPOINT` + `AUTOMATION_TOKEN` from the environment (the
// runner hands a script child a private endpoint and a token for that run only), or else the
// newest live app descriptor in automation-wire's descriptor directory, read with the same
// rules (`docs/wire.md`, "Endpoint descriptor" and "Probe").

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AutomationError } from './errors.js';
import { WireConnection } from './wire.js';

/** Env var: the endpoint address (socket path or pipe name). */
export const ENDPOINT_ENV = 'AUTOMATION_ENDPOINT';
/** Env var: the token for that endpoint (the banner's `export AUTOMATION_TOKEN=…`). */
export const TOKEN_ENV = 'AUTOMATION_TOKEN';
/** `descriptor::DESCRIPTOR_VERSION`: the newest descriptor format read. */
export const DESCRIPTOR_VERSION = 1;
/** `descriptor::DESCRIPTOR_DIR_NAME`. */
export const DESCRIPTOR_DIR_NAME = 'automation';
/** `descriptor::MAX_DESCRIPTOR_BYTES`. */
export const MAX_DESCRIPTOR_BYTES = 64 * 1024;
/** `probe::PROBE_TIMEOUT`: one deadline for a whole probe. */
export const PROBE_TIMEOUT_MS = 1000;
/** `probe::PROBE_PARALLELISM`: descriptors probed at once. */
export const PROBE_PARALLELISM = 8;

const nonEmpty = (v) => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * `descriptor::default_base_dir`: `$XDG_RUNTIME_DIR`, else this user's own `<temp>/automation-<uid>`
 * (never a directory every user shares; Windows: `%LOCALAPPDATA%`, else the temp dir).
 */
export function defaultBaseDir(env = process.env) {
  if (process.platform === 'win32') {
    const local = nonEmpty(env.LOCALAPPDATA);
    if (local) return local;
    return os.tmpdir();
  }
  const xdg = nonEmpty(env.XDG_RUNTIME_DIR);
  if (xdg) return xdg;
  return path.join(os.tmpdir(), `automation-${process.geteuid()}`);
}

/** The descriptor directory, `<base>/automation`. */
export function descriptorDir(baseDir = defaultBaseDir()) {
  return path.join(baseDir, DESCRIPTOR_DIR_NAME);
}

function kindOf(st) {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isBlockDevice() || st.isCharacterDevice()) return 'device';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  return 'special file';
}

/** The directory must be ours and private: not a symlink, a directory, owned by our uid. */
function vetDir(dir) {
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch (e) {
    if (e.code === 'ENOENT') return false;
    throw new AutomationError('BRIDGE_IO', `${dir}: ${e.message}`, { cause: e });
  }
  if (st.isSymbolicLink()) {
    throw new AutomationError('BRIDGE_IO', `${dir} is a symlink; refusing to follow it (remove it, or point the base dir elsewhere)`);
  }
  if (!st.isDirectory()) {
    throw new AutomationError('BRIDGE_IO', `${dir} exists and is not a directory; remove it`);
  }
  if (typeof process.geteuid === 'function' && st.uid !== process.geteuid()) {
    throw new AutomationError(
      'BRIDGE_IO',
      `${dir} is owned by uid ${st.uid}, not by us (uid ${process.geteuid()}); another user may control it: remove it or use $XDG_RUNTIME_DIR`,
    );
  }
  return true;
}

/**
 * Read one descriptor file: a regular file of at most 64 KiB, opened without following a
 * symlink and without blocking on a FIFO, checked on the opened handle. Throws a message
 * naming the file and what is wrong.
 */
export function readDescriptor(file) {
  const flags =
    fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
  let fd;
  try {
    fd = fs.openSync(file, flags);
  } catch (e) {
    let st;
    try {
      st = fs.lstatSync(file);
    } catch {
      st = null;
    }
    if (st && !st.isFile()) {
      throw new Error(`${file} is a ${kindOf(st)}, not a regular file; it is not an endpoint descriptor: remove it`);
    }
    throw new Error(`${file}: ${e.message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      throw new Error(`${file} is a ${kindOf(st)}, not a regular file; it is not an endpoint descriptor: remove it`);
    }
    if (st.size > MAX_DESCRIPTOR_BYTES) {
      throw new Error(`${file} is ${st.size} bytes, over the ${MAX_DESCRIPTOR_BYTES}-byte descriptor cap; it was not read: remove it`);
    }
    const buf = Buffer.alloc(MAX_DESCRIPTOR_BYTES + 1);
    let got = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
      if (got > MAX_DESCRIPTOR_BYTES) {
        throw new Error(`${file} grew past the ${MAX_DESCRIPTOR_BYTES}-byte descriptor cap while read; remove it`);
      }
    }
    return parseDescriptor(file, buf.subarray(0, got).toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

/** `Descriptor::from_json`: a future version is refused before the other fields are looked at. */
export function parseDescriptor(file, text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not a valid endpoint descriptor: ${e.message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new Error(`${file}: not a valid endpoint descriptor: not a JSON object`);
  }
  const version = v.version;
  if (!Number.isInteger(version) || version <= 0) {
    throw new Error(`${file}: not a valid endpoint descriptor: missing or invalid "version"`);
  }
  if (version > DESCRIPTOR_VERSION) {
    throw new Error(`${file}: descriptor version ${version} is newer than this client understands (${DESCRIPTOR_VERSION}); upgrade the client`);
  }
  const need = (field, ok) => {
    if (!ok(v[field])) throw new Error(`${file}: not a valid endpoint descriptor: missing or invalid "${field}"`);
  };
  const isU = (x) => Number.isInteger(x) && x >= 0;
  const isS = (x) => typeof x === 'string';
  need('pid', isU);
  need('transport', (x) => x === 'unix' || x === 'named_pipe');
  need('address', isS);
  need('token', isS);
  need('app', isS);
  need('started_unix_ms', isU);
  return {
    version,
    pid: v.pid,
    transport: v.transport,
    address: v.address,
    token: v.token,
    app: v.app,
    started_unix_ms: v.started_unix_ms,
  };
}

/**
 * Every descriptor in the directory, newest (`started_unix_ms`, then pid) first; files that
 * could not be read are listed in `skipped` with the reason, never silently dropped.
 */
export function listDescriptors({ baseDir } = {}) {
  const dir = descriptorDir(baseDir ?? defaultBaseDir());
  const out = { dir, entries: [], skipped: [] };
  if (!vetDir(dir)) return out;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const name = ent.name;
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    if (!ent.isFile()) {
      out.skipped.push({ path: file, reason: `${file} is a ${kindOf(ent)}, not a regular file; it is not an endpoint descriptor: remove it` });
      continue;
    }
    try {
      out.entries.push({ path: file, descriptor: readDescriptor(file) });
    } catch (e) {
      out.skipped.push({ path: file, reason: e.message });
    }
  }
  out.entries.sort(
    (a, b) => b.descriptor.started_unix_ms - a.descriptor.started_unix_ms || b.descriptor.pid - a.descriptor.pid,
  );
  return out;
}

/**
 * `probe::probe`: `live` (the hello arrived), `busy` (something is there but could not take
 * us: the busy notice, no greeting in time, a refused token) or `dead` (no socket, or
 * ECONNREFUSED). One deadline for the whole probe. With `keep: true` a live probe's
 * connection is returned instead of closed.
 */
export async function probe(descriptor, { timeoutMs = PROBE_TIMEOUT_MS, keep = false } = {}) {
  try {
    const conn = await WireConnection.open(descriptor.address, descriptor.token, { helloTimeoutMs: timeoutMs });
    if (keep) return { state: 'live', conn };
    await conn.close();
    return { state: 'live' };
  } catch (e) {
    return { state: e.notListening ? 'dead' : 'busy', error: e };
  }
}

/** `probe::list_live`: the descriptors whose app is there (live or busy), newest first; dead ones skipped. */
export async function listLive({ baseDir, timeoutMs = PROBE_TIMEOUT_MS } = {}) {
  const listing = listDescriptors({ baseDir });
  // `probe::PROBE_PARALLELISM`: eight at a time, each under its own deadline.
  const states = [];
  for (let i = 0; i < listing.entries.length; i += PROBE_PARALLELISM) {
    const batch = listing.entries.slice(i, i + PROBE_PARALLELISM);
    states.push(...(await Promise.all(batch.map((e) => probe(e.descriptor, { timeoutMs })))));
  }
  return listing.entries
    .map((e, i) => ({ ...e, state: states[i].state }))
    .filter((e) => e.state !== 'dead');
}

/**
 * Resolve and open the connection. Order: explicit `address` (+ `token`); then
 * `$AUTOMATION_ENDPOINT` (+ `$AUTOMATION_TOKEN`); then the descriptor of `pid`; then the newest
 * descriptor whose app is not dead (a busy one is reported as busy, not passed over).
 */
export async function openEndpoint(opts = {}) {
  const env = opts.env ?? process.env;
  const wire = { helloTimeoutMs: opts.helloTimeoutMs, replyTimeoutMs: opts.replyTimeoutMs };
  Object.keys(wire).forEach((k) => wire[k] === undefined && delete wire[k]);
  const address = nonEmpty(opts.address) ?? nonEmpty(env[ENDPOINT_ENV]);
  if (address) {
    const token = nonEmpty(opts.token) ?? nonEmpty(env[TOKEN_ENV]);
    if (!token) {
      throw new AutomationError(
        'BAD_ARGUMENT',
        `endpoint ${address} given (${opts.address ? 'connect({address})' : `$${ENDPOINT_ENV}`}) but no token: set $${TOKEN_ENV} or pass connect({address, token})`,
      );
    }
    const conn = await withWait(() => WireConnection.open(address, token, wire), opts.waitMs);
    return { conn, descriptor: null, source: opts.address ? 'options' : 'env' };
  }
  const listing = listDescriptors({ baseDir: opts.baseDir });
  let entries = listing.entries;
  if (opts.pid !== undefined) {
    entries = entries.filter((e) => e.descriptor.pid === opts.pid);
    if (entries.length === 0) {
      throw new AutomationError('APP_GONE', `no app with pid ${opts.pid} has published a descriptor in ${listing.dir}`, {
        hint: 'is the app a debug build with the automation bridge installed? `automation --list` shows the live ones',
      });
    }
  }
  for (const entry of entries) {
    const d = entry.descriptor;
    try {
      const conn = await withWait(() => WireConnection.open(d.address, d.token, wire), opts.waitMs);
      return { conn, descriptor: d, source: 'descriptor' };
    } catch (e) {
      if (e.notListening) continue; // a dead pid's descriptor: skipped
      throw e;
    }
  }
  const skipped = listing.skipped.length
    ? ` (${listing.skipped.length} unreadable: ${listing.skipped.map((s) => s.reason).join('; ')})`
    : '';
  throw new AutomationError(
    'APP_GONE',
    `no live app to attach to: $${ENDPOINT_ENV} is unset and no descriptor in ${listing.dir} names a running bridge${skipped}`,
    {
      hint: `start the app (a debug build with the automation bridge), or run the script with \`automation run\`, or set $${ENDPOINT_ENV} and $${TOKEN_ENV}`,
    },
  );
}

/** `connect_with_wait`: retry while busy (25 ms pause growing to 250 ms) until `waitMs` has passed. */
async function withWait(open, waitMs) {
  if (!(waitMs > 0)) return open();
  const giveUp = Date.now() + waitMs;
  let pause = 25;
  for (;;) {
    try {
      return await open();
    } catch (e) {
      const left = giveUp - Date.now();
      if (!e.busy || left <= 0) throw e;
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
      pause = Math.min(pause * 2, 250);
    }
  }
}
