// The bridge wire, exactly as automation-wire speaks it (docs/wire.md): connect to the local
// socket, send the token line, read the hello frame (or the busy notice), then one request
// frame → one reply frame. A frame is a u32 little-endian length and that many bytes of UTF-8
// JSON. Every failure is an `AutomationError` with the code automation-wire's own client
// gives it (`BRIDGE_IO`, `BRIDGE_TIMEOUT`, `BRIDGE_DROPPED`).

import net from 'node:net';

import { AutomationError } from './errors.js';

/** Largest request frame a server accepts (`frame::MAX_REQUEST_FRAME`). */
export const MAX_REQUEST_FRAME = 16 * 1024 * 1024;
/** Largest reply frame (`frame::MAX_REPLY_FRAME`; a reply may carry a screenshot). */
export const MAX_REPLY_FRAME = 256 * 1024 * 1024;
/** Largest greeting frame (`handshake::MAX_GREETING_FRAME`). */
export const MAX_GREETING_FRAME = 64 * 1024;
/** Longest token (`handshake::TOKEN_LINE_CAP`). */
export const TOKEN_LINE_CAP = 512;
/** Wire protocol version this client speaks (`handshake::PROTOCOL_VERSION`). */
export const PROTOCOL_VERSION = 1;
/** One deadline for the whole greeting (`handshake::HANDSHAKE_DEADLINE`). */
export const HANDSHAKE_DEADLINE_MS = 10_000;
/** Client-side wait for a reply (`client::CLIENT_REPLY_TIMEOUT`), above the server's 15 s. */
export const CLIENT_REPLY_TIMEOUT_MS = 20_000;
/** What node reads into at a time: one buffer per connection, reused for every read. */
const READ_BUFFER_BYTES = 64 * 1024;
/** What a busy bridge says (`handshake::BUSY_MESSAGE`). */
export const BUSY_MESSAGE = 'another client is attached to this app; wait for it to detach or retry later';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The u32 little-endian length header, stored byte by byte (`writeUInt32LE` is several JS calls). */
function putLength(frame, length) {
  frame[0] = length & 0xff;
  frame[1] = (length >>> 8) & 0xff;
  frame[2] = (length >>> 16) & 0xff;
  frame[3] = length >>> 24;
}

/** One frame: header and body in one buffer. An oversize payload is refused before writing. */
export function encodeFrame(payload, cap = MAX_REQUEST_FRAME) {
  if (typeof payload === 'string') {
    // Encoded straight into the frame: one buffer, no intermediate copy.
    const length = Buffer.byteLength(payload, 'utf8');
    if (length > cap) {
      throw new AutomationError(
        'BRIDGE_IO',
        `frame of ${length} bytes exceeds the ${cap}-byte cap; nothing was written: split the payload or raise the cap on both ends`,
      );
    }
    const frame = Buffer.allocUnsafe(4 + length);
    frame.write(payload, 4, 'utf8');
    putLength(frame, length);
    return frame;
  }
  const body = payload;
  if (body.length > cap) {
    throw new AutomationError(
      'BRIDGE_IO',
      `frame of ${body.length} bytes exceeds the ${cap}-byte cap; nothing was written: split the payload or raise the cap on both ends`,
    );
  }
  const frame = Buffer.allocUnsafe(4 + body.length);
  putLength(frame, body.length);
  body.copy(frame, 4);
  return frame;
}

/**
 * Splits a byte stream into frames. The cap is checked against the announced length before
 * anything is buffered for the body. A frame that arrives whole in one chunk is handed over in
 * place (no copy); only a frame split across chunks is collected and joined.
 */
export class FrameReader {
  constructor(cap) {
    this.cap = cap;
    this.head = Buffer.alloc(4); // a header split across chunks
    this.headGot = 0;
    this.need = -1; // body length once the header is known
    this.parts = []; // the body so far, when it spans chunks
    this.buffered = 0;
  }

  /** Bytes of an unfinished frame (a stall after any of them puts the stream out of sync). */
  get partial() {
    return this.need >= 0 ? this.buffered : this.headGot;
  }

  /** True once any byte of a frame has been read and the frame is not complete. */
  get inFrame() {
    return this.need >= 0 || this.headGot > 0;
  }

  /** Feed a chunk; returns the complete frames' bodies (Buffers). Throws on an oversize header. */
  push(chunk) {
    const frames = [];
    this.feed(chunk, chunk.length, (bytes, start, end) => frames.push(bytes.subarray(start, end)), false);
    return frames;
  }

  /**
   * Feed the first `length` bytes of `chunk` and call `onFrame(bytes, start, end)` for every
   * frame they complete, in order (the body is `bytes[start, end)`; offsets, not a view, since a
   * Buffer view is an object per frame). With `reused` the caller overwrites the chunk once this
   * returns (node's `onread` buffer): a body in it is valid only during the call, and an
   * unfinished frame is copied out. Throws on an oversize header.
   */
  feed(chunk, length, onFrame, reused) {
    let pos = 0;
    for (;;) {
      if (this.need < 0) {
        let len;
        if (this.headGot === 0 && length - pos >= 4) {
          len = chunk.readUInt32LE(pos);
          pos += 4;
        } else {
          if (pos >= length) return;
          const n = Math.min(4 - this.headGot, length - pos);
          chunk.copy(this.head, this.headGot, pos, pos + n);
          this.headGot += n;
          pos += n;
          if (this.headGot < 4) return;
          this.headGot = 0;
          len = this.head.readUInt32LE(0);
        }
        if (len > this.cap) {
          throw new AutomationError(
            'BRIDGE_IO',
            `frame of ${len} bytes exceeds the ${this.cap}-byte cap; nothing was read: the stream is out of sync, reconnect`,
          );
        }
        this.need = len;
      }
      const avail = length - pos;
      if (this.buffered === 0 && avail >= this.need) {
        // The common case: the whole body is in this chunk.
        const start = pos;
        pos += this.need;
        this.need = -1;
        onFrame(chunk, start, pos);
        continue;
      }
      if (avail === 0) return;
      const n = Math.min(this.need - this.buffered, avail);
      const piece = chunk.subarray(pos, pos + n);
      this.parts.push(reused ? Buffer.from(piece) : piece);
      this.buffered += n;
      pos += n;
      if (this.buffered < this.need) return;
      const body = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.buffered);
      this.parts = [];
      this.buffered = 0;
      this.need = -1;
      onFrame(body, 0, body.length);
    }
  }
}

/** `bytes[start, end)` as JSON; not UTF-8 or not JSON is a `BRIDGE_IO` naming `what`. */
function parseJson(bytes, start, end, what) {
  const text = bytes.toString('utf8', start, end);
  // Decoding turns every byte sequence that is not UTF-8 into U+FFFD, so only a text holding
  // one can be invalid (a reply may also carry a real U+FFFD): the strict check runs then only.
  if (text.includes('\uFFFD')) {
    try {
      utf8.decode(bytes.subarray(start, end));
    } catch (e) {
      throw new AutomationError('BRIDGE_IO', `${what} is not UTF-8 (${e.message}); frames carry UTF-8 JSON`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AutomationError('BRIDGE_IO', `${what} is not JSON (${e.message})`);
  }
}

function checkToken(token) {
  if (typeof token !== 'string' || token.length === 0) {
    throw new AutomationError(
      'BAD_ARGUMENT',
      'no token: pass the token from the endpoint descriptor (or $AUTOMATION_TOKEN)',
    );
  }
  if (Buffer.byteLength(token, 'utf8') > TOKEN_LINE_CAP) {
    throw new AutomationError(
      'BAD_ARGUMENT',
      `token line longer than ${TOKEN_LINE_CAP} bytes; send the token from the descriptor followed by a newline`,
    );
  }
  if (/[\n\r\0]/.test(token)) {
    throw new AutomationError(
      'BAD_ARGUMENT',
      'the token contains a newline, carriage return or NUL byte; pass it exactly as the endpoint descriptor (or $AUTOMATION_TOKEN) gives it',
    );
  }
}

/** A connected, authenticated bridge connection. One request in flight at a time. */
export class WireConnection {
  /**
   * Connect to `address` (a Unix socket path or `\\.\pipe\…`), send `token`, read the hello.
   * A bridge serving another client answers with its busy notice: `BRIDGE_IO` with `busy: true`.
   * A socket nobody listens on: `BRIDGE_IO` with `notListening: true`.
   */
  static open(address, token, { helloTimeoutMs = HANDSHAKE_DEADLINE_MS, replyTimeoutMs = CLIENT_REPLY_TIMEOUT_MS } = {}) {
    checkToken(token);
    return new Promise((resolve, reject) => {
      // One reader for the whole stream: the greeting first, then (cap raised) the replies.
      const reader = new FrameReader(MAX_GREETING_FRAME);
      let conn = null; // once the hello is in, every later frame is a reply
      let settled = false;
      let connected = false;
      let writeError = null;
      const finish = (err) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.removeListener('error', onError);
        socket.removeListener('close', onClose);
        if (err) {
          socket.destroy();
          reject(err);
        }
      };
      const onGreeting = (bytes, start, end) => {
        if (settled) return; // a frame after a busy notice or a refused greeting
        let greeting;
        try {
          greeting = parseJson(bytes, start, end, 'the greeting');
        } catch (e) {
          finish(e);
          return;
        }
        if (greeting && greeting.busy === true) {
          const pid = Number.isInteger(greeting.pid) ? greeting.pid : 0;
          finish(
            new AutomationError(
              'BRIDGE_IO',
              `${BUSY_MESSAGE} (the bridge at ${address}, pid ${pid}, serves one client at a time)`,
              { busy: true, hint: 'pass { waitMs } to connect() to wait for the other client to detach' },
            ),
          );
          return;
        }
        if (
          !greeting ||
          greeting.bridge !== 'automation-wire' ||
          !Number.isInteger(greeting.protocol) ||
          !Number.isInteger(greeting.pid)
        ) {
          finish(
            new AutomationError(
              'BRIDGE_IO',
              `bridge handshake failed: no hello from the server (unexpected greeting ${JSON.stringify(greeting).slice(0, 200)})`,
            ),
          );
          return;
        }
        if (greeting.protocol > PROTOCOL_VERSION) {
          finish(
            new AutomationError(
              'BRIDGE_IO',
              `bridge handshake failed: server speaks protocol ${greeting.protocol}, this client ${PROTOCOL_VERSION}; upgrade the client`,
            ),
          );
          return;
        }
        finish(null);
        reader.cap = MAX_REPLY_FRAME;
        conn = new WireConnection(socket, greeting, address, replyTimeoutMs, reader);
        resolve(conn);
      };
      const onFrame = (bytes, start, end) => (conn === null ? onGreeting(bytes, start, end) : conn.onFrame(bytes, start, end));
      const socket = net.createConnection({
        path: address,
        // Node reads into this one buffer and calls back directly: no Buffer allocated and no
        // stream `data` event per read. That stream machinery was a good part of the client's
        // round trip, the more so before node has optimised it (a short script never gets there).
        onread: {
          buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (nread, buf) => {
            try {
              reader.feed(buf, nread, onFrame, true);
            } catch (e) {
              if (conn !== null) conn.fail(e);
              else finish(e);
            }
          },
        },
      });
      const timer = setTimeout(() => {
        finish(
          new AutomationError(
            'BRIDGE_IO',
            `bridge handshake failed: no hello from the server (no greeting within ${helloTimeoutMs} ms; the app may be frozen)`,
            { timeoutMs: helloTimeoutMs },
          ),
        );
      }, helloTimeoutMs);
      socket.on('connect', () => {
        connected = true;
        // A busy bridge may answer and hang up before our token is read: a failed write is
        // recorded, and the greeting (if one arrived) decides.
        socket.write(`${token}\n`);
      });
      const onError = (e) => {
        if (!connected) {
          const nobody = e.code === 'ENOENT' || e.code === 'ECONNREFUSED';
          const err = new AutomationError(
            'BRIDGE_IO',
            nobody
              ? `cannot reach the bridge: no bridge is listening at ${address}; the app has exited (run \`automation --list\` to see live ones)`
              : `cannot reach the bridge: connect ${address}: ${e.message}`,
            { cause: e },
          );
          if (nobody) err.notListening = true;
          finish(err);
        } else {
          writeError = e;
        }
      };
      socket.on('error', onError);
      const onClose = () => {
        const why = writeError ? `connection closed (${writeError.message})` : 'connection closed (token rejected?)';
        finish(
          new AutomationError(
            'BRIDGE_IO',
            `bridge handshake failed: no hello from the server (${why}); the token may be wrong or the endpoint is not an automation bridge`,
          ),
        );
      };
      socket.on('close', onClose);
    });
  }

  /** Use `WireConnection.open`. `reader` has read the hello; it reads the replies. */
  constructor(socket, hello, address, replyTimeoutMs, reader) {
    this.socket = socket;
    this.hello = Object.freeze({ bridge: hello.bridge, protocol: hello.protocol, pid: hello.pid });
    this.address = address;
    this.replyTimeoutMs = replyTimeoutMs;
    this.reader = reader;
    this.queue = []; // requests made while one is on the wire
    this.waiting = null; // the request on the wire: {resolve, reject, deadline, timeoutMs}
    // One reply timer per connection, not one per request: it is armed for the earliest
    // deadline and, when it fires early (the request it was armed for has been answered), it
    // re-arms for the request now waiting. A timer per request cost more than the rest of
    // the client's round trip (node's timer list insert and removal, and the garbage).
    this.timer = null;
    this.timerAt = Infinity;
    this.orphans = 0; // replies still owed to requests that timed out: discarded on arrival
    this.broken = null; // the error every later request fails with
    socket.unref();
    socket.on('error', (e) => {
      this.fail(new AutomationError('BRIDGE_IO', `bridge I/O: ${e.message}`, { cause: e }));
    });
    socket.on('close', () => {
      if (this.reader.inFrame) {
        this.fail(
          new AutomationError(
            'BRIDGE_IO',
            `bridge I/O: truncated frame (${this.reader.partial} bytes of an unfinished frame before end of stream); the peer closed mid-frame, reconnect`,
          ),
        );
      } else {
        this.fail(
          new AutomationError(
            'BRIDGE_DROPPED',
            'the bridge closed the connection (the app exited or shut its bridge down); re-attach',
          ),
        );
      }
    });
  }

  /** The server's process id (from its hello). */
  get pid() {
    return this.hello.pid;
  }

  fail(err) {
    if (!this.broken) this.broken = err;
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      w.reject(this.broken);
    }
    this.disarm();
    for (const q of this.queue.splice(0)) q.reject(this.broken);
    this.socket.destroy();
  }

  /** One reply frame, `bytes[start, end)` (maybe the read buffer: it is decoded before returning). */
  onFrame(bytes, start, end) {
    if (this.orphans > 0) {
      this.orphans -= 1;
      return;
    }
    const w = this.waiting;
    if (!w) {
      this.fail(new AutomationError('BRIDGE_IO', 'bridge I/O: a reply arrived with no request waiting; the stream is out of sync, reconnect'));
      return;
    }
    this.waiting = null;
    let reply;
    let error = null;
    try {
      reply = parseJson(bytes, start, end, 'the reply frame');
    } catch (e) {
      error = e;
    }
    this.next();
    if (error !== null) w.reject(error);
    else w.resolve(reply);
  }

  /**
   * Send one request (an object, serialised as JSON, or a JSON string) and resolve with the
   * parsed reply object (`{status: "ok", data}` or `{status: "err", code, message, …}`).
   * Requests are queued: one is on the wire at a time, as the protocol requires.
   */
  request(request, { timeoutMs = this.replyTimeoutMs } = {}) {
    if (this.broken) return Promise.reject(this.broken);
    let frame;
    try {
      frame = encodeFrame(typeof request === 'string' ? request : JSON.stringify(request), MAX_REQUEST_FRAME);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => {
      const call = { frame, timeoutMs, deadline: 0, resolve, reject };
      // With nothing on the wire it goes out now; the queue holds only what waits behind one.
      if (this.waiting === null) this.send(call);
      else this.queue.push(call);
    });
  }

  /** Put the next queued request on the wire (or, with none, let the process exit when idle). */
  next() {
    const call = this.queue.shift();
    if (call === undefined) {
      // An idle connection does not keep the process alive: a script that never calls
      // close() still exits when it is done.
      this.socket.unref();
      return;
    }
    this.send(call);
  }

  send(call) {
    call.deadline = performance.now() + call.timeoutMs;
    this.waiting = call;
    if (call.deadline < this.timerAt) this.arm(call.deadline);
    this.socket.ref();
    this.socket.write(call.frame);
    call.frame = null;
  }

  /** (Re-)arm the reply timer for `at` (a `performance.now()` time). */
  arm(at) {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.onTimer(), Math.max(0, at - performance.now()));
    // The in-flight request keeps the process alive through the socket's ref, not the timer.
    this.timer.unref();
  }

  disarm() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  onTimer() {
    this.timer = null;
    this.timerAt = Infinity;
    const w = this.waiting;
    if (!w) return; // answered in time; the next request arms it again
    if (w.deadline > performance.now()) {
      this.arm(w.deadline); // armed for an earlier request that was answered
      return;
    }
    this.waiting = null;
    const { reject } = w;
    if (this.reader.inFrame) {
      // A stall inside a frame: the stream cannot be trusted any more.
      const err = new AutomationError(
        'BRIDGE_IO',
        `bridge I/O: peer stalled mid-frame after ${this.reader.partial} bytes; the stream is out of sync, reconnect`,
      );
      reject(err);
      this.fail(err);
      return;
    }
    // The server answers every request in order: the late reply is discarded when it comes.
    this.orphans += 1;
    const { timeoutMs } = w;
    this.next();
    reject(
      new AutomationError(
        'BRIDGE_TIMEOUT',
        `no reply from the bridge within ${timeoutMs} ms; the app may be frozen — retry or re-attach`,
        { timeoutMs },
      ),
    );
  }

  /** Close the connection (the bridge frees its single slot). Resolves once closed. */
  close() {
    if (!this.broken) {
      this.broken = new AutomationError('BRIDGE_DROPPED', 'this connection was closed with close(); connect() again');
    }
    if (this.socket.destroyed) return Promise.resolve();
    this.socket.ref(); // keep the process alive until the close completes
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
      // A peer that does not finish the close in time is cut.
      setTimeout(() => this.socket.destroy(), 1000).unref();
    });
  }
}
