// Types for @automation-kit/client (hand-written; the code is plain ESM in src/).

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** The kit's error codes (automation-core's `ErrorCode`). */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'AMBIGUOUS'
  | 'BAD_ARGUMENT'
  | 'UNKNOWN_NAME'
  | 'UNHANDLED_ACTION'
  | 'STALE'
  | 'ASSERTION_FAILED'
  | 'WAIT_TIMEOUT'
  | 'SETTLE_TIMEOUT'
  | 'NO_GEOMETRY'
  | 'OUT_OF_VIEW'
  | 'NO_EFFECT'
  | 'DISABLED'
  | 'NOT_VISIBLE'
  | 'HOST_REQUIRED'
  | 'UNSUPPORTED'
  | 'INVALID_TREE_UPDATE'
  | 'GPU_UNAVAILABLE'
  | 'GPU_READBACK_FAILED'
  | 'BRIDGE_TIMEOUT'
  | 'BRIDGE_DROPPED'
  | 'BRIDGE_IO'
  | 'TARGET_FAILED'
  | 'TARGET_TIMEOUT'
  | 'CANCELLED'
  | 'APP_GONE'
  | 'STEP_FAILED'
  | 'SCRIPT_ERROR'
  | 'SCRIPT_EXITED_EARLY'
  | 'BUDGET_EXCEEDED'
  | 'RUN_TIMEOUT'
  | 'COMMAND_NOT_STARTED'
  | 'COMMAND_FAILED'
  | 'COMMAND_KILLED'
  | 'INTERRUPTED'
  | 'NOT_A_REGULAR_FILE'
  | 'FILE_TOO_LARGE'
  | 'UNSAFE_PATH'
  | 'FILE_IO'
  | 'HOST_REFUSED'
  | 'PEER_REFUSED'
  | 'ORIGIN_REFUSED'
  | 'CROSS_SITE_REFUSED'
  | 'TOKEN_REQUIRED'
  | 'CONTENT_TYPE_REFUSED';

/** Whose fault: `request` — fix the call; `retry` — the environment, try again; `relaunch` — start the app again. */
export type Fault = 'request' | 'retry' | 'relaunch';

export declare const ERROR_CODES: ReadonlyArray<{ readonly code: ErrorCode; readonly fault: Fault }>;
export declare const Codes: { readonly [K in ErrorCode]: K };
export declare function faultOf(code: string): Fault | undefined;
export declare function isRetryable(code: string): boolean;

/** A node the caller may have meant (on NOT_FOUND / AMBIGUOUS). */
export interface Candidate {
  /** Node id (a decimal string). */
  node: string;
  role: string;
  label?: string;
}

/** Every failure of this client. */
export declare class AutomationError extends Error {
  constructor(code: ErrorCode, message: string, details?: AutomationErrorDetails);
  readonly name: 'AutomationError';
  readonly code: ErrorCode;
  readonly fault: Fault;
  readonly retryable: boolean;
  /** What to do next. */
  readonly hint?: string;
  /** Nodes the caller may have meant. */
  readonly candidates?: Candidate[];
  /** Assertions: what was there. */
  readonly actual?: unknown;
  /** Assertions: what was expected. */
  readonly expected?: unknown;
  /** The op that failed (wire name). */
  readonly op?: string;
  /** The selector (or node id) the op was given. */
  readonly selector?: WireSelector | string;
  /** The bridge is serving another client (code BRIDGE_IO). */
  readonly busy?: boolean;
  /** Nothing listens at the endpoint (code BRIDGE_IO). */
  readonly notListening?: boolean;
  readonly timeoutMs?: number;
  static fromReply(reply: ErrReply, op?: string): AutomationError;
  toJSON(): {
    code: ErrorCode;
    message: string;
    fault: Fault;
    hint?: string;
    candidates?: Candidate[];
    actual?: unknown;
    expected?: unknown;
    op?: string;
    selector?: WireSelector | string;
    busy?: boolean;
  };
}

export interface AutomationErrorDetails {
  hint?: string;
  candidates?: Candidate[];
  actual?: unknown;
  expected?: unknown;
  op?: string;
  selector?: WireSelector | string;
  busy?: boolean;
  timeoutMs?: number;
  cause?: unknown;
}

// ---------------------------------------------------------------------------------------------
// Selectors, records, replies
// ---------------------------------------------------------------------------------------------

/** A selector as agents write it; `name` is the accessible name (core's `label`). */
export interface Selector {
  /** AccessKit role, case-insensitive: `Button`, `TextInput`, `Label`, `CheckBox`, … */
  role?: string;
  /** Exact accessible name. */
  name?: string;
  /** Exact accessible name (core's spelling). */
  label?: string;
  /** Case-insensitive substring of the name. */
  nameContains?: string;
  labelContains?: string;
  label_contains?: string;
  /** Exact value. */
  value?: string;
  /** The app's own stable id. */
  authorId?: string;
  testId?: string;
  author_id?: string;
  /** The n-th match (0-based). */
  nth?: number;
  index?: number;
  /** Only nodes inside the one node this selector picks (one level: no `within` of its own). */
  within?: Omit<Selector, 'within'>;
}

/** Core's selector, as sent on the wire. */
export interface WireSelector {
  role?: string;
  label?: string;
  label_contains?: string;
  value?: string;
  author_id?: string;
  nth?: number;
}

/** Anything that names a node: a locator, a selector, a label string, or a node id string. */
export type NodeTarget = Locator | Selector | string;

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A node's record (`read_node`, `find_node`'s `record`, a snapshot's `nodes`). */
export interface NodeRecord {
  id: string;
  role: string;
  label?: string;
  raw_label?: string;
  value?: string;
  description?: string;
  toggled?: boolean | 'mixed';
  expanded?: boolean;
  selected?: boolean;
  level?: number;
  disabled: boolean;
  focused: boolean;
  live?: string;
  numeric_value?: number;
  bounds?: Bounds;
  actions: string[];
  children: string[];
  author_id?: string;
  text?: { run_count: number; document_text: string; has_geometry: boolean; direction?: string };
  cut?: string[];
  [field: string]: unknown;
}

export interface OkReply {
  status: 'ok';
  data: any;
}
export interface ErrReply {
  status: 'err';
  code: ErrorCode;
  message: string;
  hint?: string;
  candidates?: Candidate[];
}
export type Reply = OkReply | ErrReply;

/** How a mutating op settles (`docs/core.md`, "The settle model"). */
export interface SettleSpec {
  clock_millis?: number;
  max_anim_frames?: number;
  layout_after?: boolean;
  settle_timeout_ms?: number;
  quiet_ms?: number;
}

export interface OpOptions {
  /** The op's settle spec (only ops that accept one). */
  settle?: SettleSpec;
  /** Client-side reply timeout (default 20 s). */
  timeoutMs?: number;
}

/** What a mutating op answers: the op's own fields, with the settle report and the tree version merged in. */
export interface MutationReply {
  settled: any;
  version?: number;
  [field: string]: unknown;
}

export interface Announcement {
  seq: number;
  node: string;
  text: string;
  politeness: 'polite' | 'assertive';
}

export interface Screenshot {
  /** The PNG bytes (a Node `Buffer` at run time). */
  png: Uint8Array;
  width: number;
  height: number;
  scale: number;
  mime: string;
  /** Where it was written, when `path` was given. */
  path?: string;
}

export type Condition =
  | { kind: 'node_exists'; role?: string; label?: string }
  | { kind: 'node_value'; node: NodeTarget; expected: string }
  | { kind: 'node_gone'; node: string }
  | { kind: 'at_version_at_least'; version: number };

export interface Modifiers {
  ctrl?: boolean;
  shift?: boolean;
  alt?: boolean;
  meta?: boolean;
  /** Ctrl on Windows/Linux, ⌘ on macOS. */
  command?: boolean;
}

/** The op names of automation-core's catalog. */
export type OpName =
  | 'snapshot_tree'
  | 'read_node'
  | 'find_node'
  | 'assert_node'
  | 'list_windows'
  | 'query_pointers'
  | 'layout_tree'
  | 'inspect_node'
  | 'list_live_regions'
  | 'pull_announcements'
  | 'get_overlays'
  | 'get_shortcuts'
  | 'invoke_action'
  | 'focus_node'
  | 'set_value'
  | 'expand'
  | 'collapse'
  | 'scroll'
  | 'inject_pointer'
  | 'right_click'
  | 'inject_key'
  | 'type_text'
  | 'type_ime'
  | 'drag_node'
  | 'inject_touch_sequence'
  | 'pinch'
  | 'fling'
  | 'long_press'
  | 'cancel_pointer'
  | 'set_density'
  | 'settle'
  | 'wait_for_condition'
  | 'advance_clock'
  | 'screenshot';

export interface OpSpecEntry {
  readonly name: OpName;
  readonly method: string;
  readonly access: 'read_only' | 'mutating';
  readonly servedBy: 'target' | 'host';
  readonly settle: boolean;
  readonly primary?: string;
}
export declare const OPS: ReadonlyArray<OpSpecEntry>;
export declare function opSpec(name: string): OpSpecEntry | undefined;
export declare function toSelector(input: NodeTarget | number): WireSelector | string;

type Args = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Connecting
// ---------------------------------------------------------------------------------------------

export interface ConnectOptions {
  /** Endpoint address (socket path / pipe name); default `$AUTOMATION_ENDPOINT`. */
  address?: string;
  /** Token; default `$AUTOMATION_TOKEN`. */
  token?: string;
  /** Attach to this pid's descriptor. */
  pid?: number;
  /** Base of the descriptor directory (default `$XDG_RUNTIME_DIR`, else the temp dir). */
  baseDir?: string;
  /** Wait up to this long while another client is attached (default: fail at once). */
  waitMs?: number;
  /** One deadline for the whole greeting (default 10 s). */
  helloTimeoutMs?: number;
  /** Reply timeout (default 20 s). */
  replyTimeoutMs?: number;
  /** The settle spec sent with every op that takes one when the call gives none. */
  settle?: SettleSpec;
  /** Environment to read (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** An endpoint descriptor (`<base>/automation/<pid>.json`). */
export interface Descriptor {
  version: number;
  pid: number;
  transport: 'unix' | 'named_pipe';
  address: string;
  token: string;
  app: string;
  started_unix_ms: number;
}

export declare function connect(options?: ConnectOptions): Promise<App>;
export declare const ENDPOINT_ENV: 'AUTOMATION_ENDPOINT';
export declare const TOKEN_ENV: 'AUTOMATION_TOKEN';
export declare function defaultBaseDir(env?: Record<string, string | undefined>): string;
export declare function descriptorDir(baseDir?: string): string;
export declare function listDescriptors(options?: { baseDir?: string }): {
  dir: string;
  entries: Array<{ path: string; descriptor: Descriptor }>;
  skipped: Array<{ path: string; reason: string }>;
};
export declare function listLive(options?: { baseDir?: string; timeoutMs?: number }): Promise<
  Array<{ path: string; descriptor: Descriptor; state: 'live' | 'busy' }>
>;
export declare function probe(
  descriptor: Descriptor,
  options?: { timeoutMs?: number; keep?: boolean },
): Promise<{ state: 'live' | 'busy' | 'dead'; conn?: WireConnection; error?: AutomationError }>;

export declare const PROTOCOL_VERSION: 1;
export declare const MAX_REQUEST_FRAME: number;
export declare const MAX_REPLY_FRAME: number;

/** The raw wire connection (one request in flight at a time). */
export declare class WireConnection {
  static open(
    address: string,
    token: string,
    options?: { helloTimeoutMs?: number; replyTimeoutMs?: number },
  ): Promise<WireConnection>;
  readonly hello: { readonly bridge: 'automation-wire'; readonly protocol: number; readonly pid: number };
  readonly address: string;
  readonly pid: number;
  request(request: object | string, options?: { timeoutMs?: number }): Promise<Reply>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The app and its locators
// ---------------------------------------------------------------------------------------------

export declare const DEFAULT_TIMEOUT_MS: number;
export declare const LIVE_MAX_WAIT_MS: number;

export interface WaitOptions {
  /** Default 5000 ms. */
  timeoutMs?: number;
  /** `attached` (default): until it matches; `gone`: until nothing matches. */
  state?: 'attached' | 'visible' | 'gone' | 'detached' | 'hidden';
}

export declare class App {
  /** The serving process's pid. */
  readonly pid: number;
  /** The descriptor attached through (null when the endpoint came from the environment). */
  readonly descriptor: Descriptor | null;
  readonly conn: WireConnection;
  /** The default settle spec (`connect({settle})`). */
  readonly defaultSettle: SettleSpec | undefined;
  /** One pacing step of a wait: a `settle` (its SETTLE_TIMEOUT ignored), then 16 ms. */
  pace(): Promise<void>;

  /** Any op by name; resolves with the reply's `data`, throws `AutomationError` on an error reply. */
  op(name: OpName | (string & {}), args?: Args | string, options?: OpOptions): Promise<any>;
  /** One raw request; resolves with the reply as it came. */
  request(request: object, options?: { timeoutMs?: number }): Promise<Reply>;

  find(selector: NodeTarget): Locator;
  getByRole(role: string, options?: { name?: string; exact?: boolean }): Locator;
  getByLabel(label: string, options?: { exact?: boolean }): Locator;

  /** By default a text outline (`tree`: one line a node, `- Role "name" [e12]: value [states]`);
   * `format: 'json'` gives the full `nodes` records. */
  snapshot(args?: { root?: NodeTarget; max_depth?: number; max_nodes?: number; format?: 'text' | 'json'; bounds?: boolean }, options?: OpOptions): Promise<{
    tree?: string;
    nodes?: NodeRecord[];
    version: number;
    truncated?: boolean;
    frontier?: string[];
    note?: string;
    [field: string]: unknown;
  }>;
  screenshot(args?: { node?: NodeTarget; path?: string } | Locator, options?: OpOptions): Promise<Screenshot>;
  pressKey(key: string, modifiers?: Modifiers & { text?: string; phase?: 'press' | 'down' | 'up' }, options?: OpOptions): Promise<MutationReply>;
  type(text: string, args?: { node?: NodeTarget }, options?: OpOptions): Promise<MutationReply>;
  waitFor(what: NodeTarget | Condition, options?: WaitOptions): Promise<any>;
  announcements(sinceSeq?: number): Promise<Announcement[]>;
  waitForAnnouncement(text: string | RegExp, options?: { timeoutMs?: number; sinceSeq?: number }): Promise<Announcement>;
  close(): Promise<void>;

  // One method per catalog op: (args object | primary argument, more args, options).
  snapshotTree(args?: { root?: NodeTarget; max_depth?: number; max_nodes?: number } | NodeTarget, more?: Args, options?: OpOptions): Promise<any>;
  readNode(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<NodeRecord>;
  findNode(selector: Selector | string, more?: Args, options?: OpOptions): Promise<{ node: string | null; count: number; record?: NodeRecord }>;
  assertNode(node: NodeTarget | { node: NodeTarget; kind: string; value?: string; flag?: boolean }, more?: { kind?: string; value?: string; flag?: boolean } | string, options?: OpOptions): Promise<{ passed: true; node: string }>;
  listWindows(args?: Args, more?: Args, options?: OpOptions): Promise<{ windows: any[] }>;
  queryPointers(args?: Args, more?: Args, options?: OpOptions): Promise<{ pointers: any[] }>;
  layoutTree(args?: { max_depth?: number; include_debug?: boolean }, more?: Args, options?: OpOptions): Promise<any>;
  inspectNode(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<any>;
  listLiveRegions(args?: Args, more?: Args, options?: OpOptions): Promise<{ regions: any[] }>;
  pullAnnouncements(sinceSeq?: number | { since_seq?: number }, more?: Args, options?: OpOptions): Promise<{ announcements: Announcement[]; last_seq: number }>;
  getOverlays(args?: Args, more?: Args, options?: OpOptions): Promise<any>;
  getShortcuts(args?: Args, more?: Args, options?: OpOptions): Promise<any>;
  invokeAction(node: NodeTarget | { node: NodeTarget; action: string }, action?: string | Args, options?: OpOptions): Promise<MutationReply>;
  focusNode(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  setValue(node: NodeTarget | { node: NodeTarget; value: string | number }, value?: string | number | Args, options?: OpOptions): Promise<MutationReply>;
  expand(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  collapse(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  scroll(node: NodeTarget | { node: NodeTarget; dx?: number; dy?: number }, more?: { dx?: number; dy?: number; lines?: boolean } & Modifiers, options?: OpOptions): Promise<MutationReply>;
  injectPointer(args?: { x?: number; y?: number; node?: NodeTarget; action?: 'click' | 'double_click' | 'down' | 'up' | 'move'; button?: string; kind?: 'mouse' | 'touch' | 'pen'; pointer_id?: number } & Modifiers, more?: Args, options?: OpOptions): Promise<MutationReply>;
  rightClick(node: NodeTarget | { node: NodeTarget }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  injectKey(key: string | ({ key: string; text?: string; phase?: 'press' | 'down' | 'up' } & Modifiers), more?: Modifiers & Args, options?: OpOptions): Promise<MutationReply>;
  typeText(text: string | { text: string; node?: NodeTarget }, more?: { node?: NodeTarget }, options?: OpOptions): Promise<MutationReply>;
  typeIme(args: { node?: NodeTarget; preedit?: string; commit?: string }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  dragNode(node: NodeTarget | { node: NodeTarget; to_node?: NodeTarget; to_x?: number; to_y?: number }, more?: { to_node?: NodeTarget; to_x?: number; to_y?: number }, options?: OpOptions): Promise<MutationReply>;
  injectTouchSequence(steps: Array<Args> | { steps: Array<Args> }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  pinch(node: NodeTarget | { node: NodeTarget; scale: number }, scale?: number | Args, options?: OpOptions): Promise<MutationReply>;
  fling(node: NodeTarget | { node: NodeTarget; dx?: number; dy?: number }, more?: { dx?: number; dy?: number; over_ms?: number }, options?: OpOptions): Promise<MutationReply>;
  longPress(node: NodeTarget | { node: NodeTarget }, more?: { x?: number; y?: number; kind?: string }, options?: OpOptions): Promise<MutationReply>;
  cancelPointer(pointerId: number | { pointer_id: number }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  setDensity(density: 'compact' | 'comfortable' | 'touch' | { density: 'compact' | 'comfortable' | 'touch' }, more?: Args, options?: OpOptions): Promise<MutationReply>;
  settle(args?: Args, more?: Args, options?: OpOptions): Promise<any>;
  waitForCondition(condition: Condition | { condition: Condition }, more?: Args, options?: OpOptions): Promise<{ satisfied: true; waited_ms: number; version: number }>;
  advanceClock(millis: number | { millis: number }, more?: Args, options?: OpOptions): Promise<{ advanced_ms: number; version: number }>;
}

/** A selector bound to an app; resolved afresh by every action (it never goes stale). */
export declare class Locator {
  readonly app: App;
  readonly selector: WireSelector | string;
  nth(n: number): Locator;
  first(): Locator;
  read(): Promise<NodeRecord>;
  text(): Promise<string>;
  value(): Promise<string | undefined>;
  id(): Promise<string | null>;
  count(): Promise<number>;
  exists(): Promise<boolean>;
  isVisible(): Promise<boolean>;
  click(options?: { pointer?: boolean; settle?: SettleSpec }): Promise<MutationReply>;
  dblclick(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  hover(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  rightClick(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  invoke(action: string, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  focus(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  typeText(text: string, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  setValue(value: string | number, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  fill(text: string, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  clear(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  press(key: string, modifiers?: Modifiers, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  expand(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  collapse(options?: { settle?: SettleSpec }): Promise<MutationReply>;
  scroll(args?: { dx?: number; dy?: number; lines?: boolean; at?: [number, number] } & Modifiers, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  dragTo(target: NodeTarget | { x: number; y: number }, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  longPress(args?: { x?: number; y?: number; kind?: 'touch' | 'pen' | 'mouse' }, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  pinch(scale: number, args?: { start_distance?: number; over_ms?: number }, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  fling(dx: number, dy: number, args?: { over_ms?: number }, options?: { settle?: SettleSpec }): Promise<MutationReply>;
  assert(kind: string, expected?: string | boolean): Promise<{ passed: true; node: string }>;
  screenshot(args?: { path?: string }): Promise<Screenshot>;
  waitFor(options?: WaitOptions): Promise<any>;
}

/** What a node shows: its value, else its label, else its text runs. */
export declare function textOf(record: NodeRecord | null | undefined): string | undefined;

// ---------------------------------------------------------------------------------------------
// expect
// ---------------------------------------------------------------------------------------------

export interface ExpectOptions {
  /** How long to keep checking (default 5000 ms). */
  timeoutMs?: number;
}

/** Assertions that wait; a failure is an `AutomationError` with code ASSERTION_FAILED, `actual` and `expected`. */
export interface Expectation {
  readonly not: Expectation;
  toHaveText(expected: string | RegExp, options?: ExpectOptions): Promise<void>;
  toContainText(expected: string, options?: ExpectOptions): Promise<void>;
  toHaveValue(expected: string | RegExp, options?: ExpectOptions): Promise<void>;
  toHaveLabel(expected: string | RegExp, options?: ExpectOptions): Promise<void>;
  toExist(options?: ExpectOptions): Promise<void>;
  toBeGone(options?: ExpectOptions): Promise<void>;
  toBeVisible(options?: ExpectOptions): Promise<void>;
  toBeFocused(options?: ExpectOptions): Promise<void>;
  toBeChecked(options?: ExpectOptions): Promise<void>;
  toBeDisabled(options?: ExpectOptions): Promise<void>;
  toBeEnabled(options?: ExpectOptions): Promise<void>;
  toBeExpanded(options?: ExpectOptions): Promise<void>;
  toHaveCount(n: number, options?: ExpectOptions): Promise<void>;
  /** This node's screenshot matches its baseline `<name>.png` (see `AppExpectation.toMatchScreenshot`). */
  toMatchScreenshot(name: string, options?: ScreenshotOptions): Promise<ScreenshotMatch>;
}

/** Options of `toMatchScreenshot` (the `assert_screenshot` tool's arguments). */
export interface ScreenshotOptions {
  /** Per-pixel colour distance (YIQ, 0–1) a pixel may change by and still match (default 0.1). */
  threshold?: number;
  /** Pass with at most this many differing pixels (default 0). */
  maxDiffPixels?: number;
  /** Pass with at most this share (0–1) of pixels differing. */
  maxDiffRatio?: number;
  /** Nodes whose bounds are left out of the comparison (a clock, a spinner). */
  mask?: Array<Locator | NodeTarget>;
  /** Identical captures in a row before comparing (default 2). */
  stableFrames?: number;
  /** How long to wait for stable captures (default 5000 ms). */
  timeoutMs?: number;
}

/** What a passing `toMatchScreenshot` answers. */
export interface ScreenshotMatch {
  name: string;
  /** created (first run), matched, updated or resized (with --update-snapshots). */
  result: 'created' | 'matched' | 'updated' | 'resized';
  /** The baseline's path. */
  baseline: string;
  width: number;
  height: number;
  /** Captures taken until `stableFrames` were identical. */
  frames: number;
  diff_pixels?: number;
  compared_pixels?: number;
  masked_pixels?: number;
  allowed?: number;
}

/** Options of `toPassAudit` (the `audit_app` tool's arguments). */
export interface AuditOptions {
  /** Only these rule ids (docs/audit.md; default all). */
  rules?: string[];
  /** Walk the app with real Tab presses (default true). */
  keyboard?: boolean;
  /** Accepted findings, by rule and the node's selector (as a report gives them). */
  baseline?: Array<{ rule: string; selector: string }>;
}

/** One node a rule judged. */
export interface AuditItem {
  rule: string;
  node: string;
  role: string;
  name?: string;
  selector?: string;
  message: string;
}

/** What a passing `toPassAudit` answers: the audit's report. */
export interface AuditReport {
  passed: boolean;
  findings: AuditItem[];
  needs_review: AuditItem[];
  baselined?: AuditItem[];
  rules: Array<{ rule: string; checked: number; findings: number; needs_review: number }>;
  nodes: number;
  ms: number;
}

/** Golden screenshots of the app's window, and its accessibility audit. */
export interface AppExpectation {
  /**
   * The window's screenshot matches its baseline `<name>.png` in the flow's `<file>-snapshots/`
   * directory; the first run creates it, `--update-snapshots` replaces a differing one. A
   * mismatch is an ASSERTION_FAILED `AutomationError` whose `actual` holds the diff pixel count
   * and the actual/diff PNG paths.
   */
  toMatchScreenshot(name: string, options?: ScreenshotOptions): Promise<ScreenshotMatch>;
  /**
   * The app passes the accessibility audit (docs/audit.md): no finding outside `baseline`. A
   * finding is an ASSERTION_FAILED `AutomationError` whose `actual` holds the report.
   */
  toPassAudit(options?: AuditOptions): Promise<AuditReport>;
}

export declare function expect(app: App): AppExpectation;
export declare function expect(locator: Locator): Expectation;

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export declare const EVENT_PIPE_ENV: 'MCP_EVENT_PIPE_PATH';
export declare const LOG_PIPE_ENV: 'MCP_LOG_PIPE_PATH';

/** Each returns true when the event was written, false when there is no event pipe. */
export declare const emit: {
  readonly enabled: boolean;
  progress(current: number, total?: number, message?: string): boolean;
  progress(fields: { current: number; total?: number; message?: string }): boolean;
  stepStarted(stepId: string, stepName?: string, extra?: { stepIndex?: number; totalSteps?: number }): boolean;
  stepCompleted(stepId: string, stepName?: string, extra?: { duration?: number; stepIndex?: number; totalSteps?: number }): boolean;
  stepFailed(stepId: string, stepName?: string, error?: unknown, extra?: { duration?: number }): boolean;
  screenshot(
    shot?: { path?: string; base64?: string; png?: Uint8Array; annotation?: string; element?: string } | Screenshot,
    annotation?: string,
  ): boolean;
  data(key: string, value: unknown): boolean;
  status(message: string, extra?: { duration?: number; element?: string }): boolean;
  log(level: LogLevel, message: string, data?: unknown): boolean;
};

/** The log channel (`$MCP_LOG_PIPE_PATH`; stderr without it). */
export declare const log: {
  trace(message: string, data?: unknown): void;
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
};

/** Run `fn` as one step: step_started, then step_completed (with its duration) or step_failed (rethrown). */
export declare function step<T>(name: string, fn: () => T | Promise<T>, options?: { id?: string }): Promise<T>;

export declare class EmitError extends Error {
  readonly name: 'EmitError';
  readonly path: string;
}

/** Installed on import when `$MCP_EVENT_PIPE_PATH` is set: an uncaught exception / unhandled rejection is reported as events, then exit 1. */
export declare function installCrashHandler(): void;
/** The first stack frame outside node and this package. */
export declare function scriptLocation(stack: string | undefined): { file: string; line: number; column: number } | null;

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

export declare const INPUTS_ENV: 'AUTOMATION_INPUTS';
export declare const EXECUTION_ID_ENV: 'AUTOMATION_EXECUTION_ID';
/** The run's inputs (`$AUTOMATION_INPUTS`, a JSON object; `{}` outside the runner). */
export declare function inputs(): Record<string, unknown>;
/** The run's execution id (`$AUTOMATION_EXECUTION_ID`), or undefined outside the runner. */
export declare function executionId(): string | undefined;
