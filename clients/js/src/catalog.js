// Every op of automation-core's catalog (`CATALOG` in automation-core/src/catalog.rs), in
// catalog order, with the App method that sends it. `primary` is the argument a helper takes
// positionally (`app.typeText('Zoë')`, `app.pressKey('Enter')`); `node` means the first
// argument may be a locator, a selector or a node id. `automation-cli/tests/clients/js_client.rs`
// fails when this list drifts from core's (names, access, settle, served by) and
// `test/catalog.test.js` when an op has no method.

const op = (name, method, access, servedBy, settle, primary) =>
  Object.freeze({ name, method, access, servedBy, settle, primary });

/** @type {ReadonlyArray<{name: string, method: string, access: 'read_only' | 'mutating', servedBy: 'target' | 'host', settle: boolean, primary?: string}>} */
export const OPS = Object.freeze([
  op('snapshot_tree', 'snapshotTree', 'read_only', 'target', false, 'root'),
  op('read_node', 'readNode', 'read_only', 'target', false, 'node'),
  op('find_node', 'findNode', 'read_only', 'target', false),
  op('assert_node', 'assertNode', 'read_only', 'target', false, 'node'),
  op('list_windows', 'listWindows', 'read_only', 'host', false),
  op('query_pointers', 'queryPointers', 'read_only', 'target', false),
  op('layout_tree', 'layoutTree', 'read_only', 'target', false),
  op('inspect_node', 'inspectNode', 'read_only', 'target', false, 'node'),
  op('list_live_regions', 'listLiveRegions', 'read_only', 'target', false),
  op('pull_announcements', 'pullAnnouncements', 'read_only', 'target', false, 'since_seq'),
  op('get_overlays', 'getOverlays', 'read_only', 'target', false),
  op('get_shortcuts', 'getShortcuts', 'read_only', 'target', false),
  op('invoke_action', 'invokeAction', 'mutating', 'target', true, 'node'),
  op('focus_node', 'focusNode', 'mutating', 'target', true, 'node'),
  op('set_value', 'setValue', 'mutating', 'target', true, 'node'),
  op('expand', 'expand', 'mutating', 'target', true, 'node'),
  op('collapse', 'collapse', 'mutating', 'target', true, 'node'),
  op('scroll', 'scroll', 'mutating', 'target', true, 'node'),
  op('inject_pointer', 'injectPointer', 'mutating', 'target', true),
  op('right_click', 'rightClick', 'mutating', 'target', true, 'node'),
  op('inject_key', 'injectKey', 'mutating', 'target', true, 'key'),
  op('type_text', 'typeText', 'mutating', 'target', true, 'text'),
  op('type_ime', 'typeIme', 'mutating', 'target', true),
  op('drag_node', 'dragNode', 'mutating', 'target', true, 'node'),
  op('inject_touch_sequence', 'injectTouchSequence', 'mutating', 'target', true, 'steps'),
  op('pinch', 'pinch', 'mutating', 'target', true, 'node'),
  op('fling', 'fling', 'mutating', 'target', true, 'node'),
  op('long_press', 'longPress', 'mutating', 'target', true, 'node'),
  op('cancel_pointer', 'cancelPointer', 'mutating', 'target', true, 'pointer_id'),
  op('set_density', 'setDensity', 'mutating', 'target', true, 'density'),
  op('settle', 'settle', 'mutating', 'target', true),
  op('wait_for_condition', 'waitForCondition', 'mutating', 'target', true, 'condition'),
  op('advance_clock', 'advanceClock', 'mutating', 'target', false, 'millis'),
  op('screenshot', 'screenshot', 'read_only', 'host', true, 'node'),
]);

const BY_NAME = new Map(OPS.map((o) => [o.name, o]));

/** The catalog entry of an op name, or undefined. */
export function opSpec(name) {
  return BY_NAME.get(name);
}
