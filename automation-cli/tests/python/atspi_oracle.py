"""The independent reader of the conformance matrix: pyatspi on the same bus as the kit.

Run with the system python3 (Debian's python3-pyatspi; a venv does not see it). Speaks JSON
lines: one command object a line on stdin, one reply object a line on stdout
(`{"ok": true, ...}` or `{"ok": false, "error": "..."}`).

Commands (`cmd`):
- `app` {pid?, name?, timeout}: wait until the app is on the bus with a showing window.
- `find` {spec}: the nth object of the app matching `spec` (role, name, name_contains, states,
  not_states, zero_size, within (another spec), nth); answers a handle `h` and its `read`.
- `find_all` {spec}: every match, as reads with handles.
- `read` {h}: clear the cache, then what a person would check: name, role, states, value,
  text, the caret's offset, extents (window and screen coordinates).
- `focused` {}: the object that holds STATE_FOCUSED (a read), or null.
- `windows` {}: the app's top-level children (reads).
- `alive` {}: whether the app is still on the bus.
- `actions` {h}: the names of its actions, asked one index at a time (`GetName(i)`).
- `do_action` {h, name}: set-up only (never to judge): run a toolkit action by name.
- `table_cell` {h, row, col}: a table's cell (a spreadsheet's cells are not walked).
- `dump` {max_depth}: the tree as text, for diagnosing a failed cell.
- `text_attributes` {h, offset}: the attributes of the text run at `offset` (editors).

pyatspi caches what it read: every judging read clears the app's cache first.
"""

import json
import sys
import time

try:
    import pyatspi
except Exception as e:  # the harness turns this into "install python3-pyatspi"
    print(json.dumps({"ok": False, "error": f"pyatspi unavailable: {e}"}), flush=True)
    sys.exit(3)

STATES = {
    "checked": pyatspi.STATE_CHECKED,
    "indeterminate": pyatspi.STATE_INDETERMINATE,
    "pressed": pyatspi.STATE_PRESSED,
    "selected": pyatspi.STATE_SELECTED,
    "focused": pyatspi.STATE_FOCUSED,
    "focusable": pyatspi.STATE_FOCUSABLE,
    "showing": pyatspi.STATE_SHOWING,
    "visible": pyatspi.STATE_VISIBLE,
    "enabled": pyatspi.STATE_ENABLED,
    "sensitive": pyatspi.STATE_SENSITIVE,
    "expanded": pyatspi.STATE_EXPANDED,
    "expandable": pyatspi.STATE_EXPANDABLE,
    "editable": pyatspi.STATE_EDITABLE,
    "active": pyatspi.STATE_ACTIVE,
    "manages_descendants": pyatspi.STATE_MANAGES_DESCENDANTS,
}

# A walk never follows more children than this under one object (a spreadsheet's table
# claims a million cells), nor descends into objects that manage their descendants.
MAX_CHILDREN = 400
MAX_NODES = 6000

APP = None
HANDLES = {}



def text_of(o):
    """The object's whole text. GTK 4.8 answers getText(0, -1) with nothing on entries and
    labels; by its length it answers the text."""
    t = o.queryText()
    whole = t.getText(0, -1)
    if whole:
        return whole
    n = t.characterCount
    return t.getText(0, n) if n > 0 else whole

def clear():
    if APP is None:
        return
    try:
        APP.clearCache()
    except Exception:
        pass


def states_of(o):
    try:
        s = o.getState()
    except Exception:
        return []
    return sorted(n for n, v in STATES.items() if s.contains(v))


def extents(o, coords):
    try:
        e = o.queryComponent().getExtents(coords)
    except Exception:
        return None
    if e.x <= -(2**30) or e.y <= -(2**30):
        return None
    return [e.x, e.y, e.width, e.height]


def read(o):
    r = {}
    try:
        r["role"] = o.getRoleName()
        r["name"] = o.name or ""
    except Exception as e:
        return {"gone": True, "error": str(e)}
    r["states"] = states_of(o)
    try:
        v = o.queryValue()
        r["value"] = v.currentValue
        r["min"] = v.minimumValue
        r["max"] = v.maximumValue
    except Exception:
        pass
    try:
        r["text"] = text_of(o)
    except Exception:
        pass
    try:
        r["caret"] = o.queryText().caretOffset
    except Exception:
        pass
    r["extents"] = extents(o, pyatspi.WINDOW_COORDS)
    r["screen"] = extents(o, pyatspi.DESKTOP_COORDS)
    try:
        r["children"] = o.childCount
    except Exception:
        pass
    return r


def handle(o):
    h = f"o{len(HANDLES) + 1}"
    HANDLES[h] = o
    return h


def children(o):
    try:
        n = o.childCount
    except Exception:
        return []
    out = []
    for i in range(min(n, MAX_CHILDREN)):
        try:
            c = o.getChildAtIndex(i)
        except Exception:
            c = None
        if c is not None:
            out.append(c)
    return out


def walk(root):
    """Depth first, in tree order, bounded."""
    stack = [root]
    seen = 0
    while stack and seen < MAX_NODES:
        o = stack.pop()
        seen += 1
        yield o
        try:
            if o.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS) and o.childCount > MAX_CHILDREN:
                continue
        except Exception:
            continue
        stack.extend(reversed(children(o)))


def matches(o, spec):
    try:
        if "role" in spec and o.getRoleName() != spec["role"]:
            return False
        name = o.name or ""
    except Exception:
        return False
    if "name" in spec and name != spec["name"]:
        return False
    if "name_contains" in spec and spec["name_contains"] not in name:
        return False
    if "text" in spec:
        try:
            if text_of(o) != spec["text"]:
                return False
        except Exception:
            return False
    st = states_of(o)
    if any(s not in st for s in spec.get("states", [])):
        return False
    if "parent_states" in spec:
        try:
            pst = states_of(o.parent)
        except Exception:
            return False
        if any(s not in pst for s in spec["parent_states"]):
            return False
    if any(s in st for s in spec.get("not_states", [])):
        return False
    if "zero_size" in spec:
        e = extents(o, pyatspi.WINDOW_COORDS)
        zero = e is None or e[2] <= 1 or e[3] <= 1
        if zero != spec["zero_size"]:
            return False
    return True


def roles():
    """Every object of the app with its role and ancestors, in tree order. Roles do not
    change, so this is walked again only when a search misses (a popup opened, a page was
    built); names, states and text are always read fresh."""
    global STRUCTURE
    clear()
    out = []
    stack = [(APP, ())]
    while stack and len(out) < MAX_NODES:
        o, up = stack.pop()
        try:
            role = o.getRoleName()
        except Exception:
            continue
        out.append((o, role, up))
        try:
            if o.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS) and o.childCount > MAX_CHILDREN:
                continue
        except Exception:
            continue
        below = up + (id(o),)
        stack.extend((c, below) for c in reversed(children(o)))
    STRUCTURE = out
    return out


STRUCTURE = None


def search(spec, structure):
    outer = None
    if "within" in spec:
        found = search(spec["within"], structure)
        nth = spec["within"].get("nth", 0)
        if len(found) <= nth:
            return []
        outer = id(found[nth])
    return [o for o, role, up in structure
            if role == spec.get("role", role) and (outer is None or outer in up) and o is not APP
            and matches(o, spec)]


def find_all(spec):
    clear()
    found = search(spec, STRUCTURE or roles())
    if len(found) <= spec.get("nth", 0):
        found = search(spec, roles())
    return found


def find_app(pid, name, timeout):
    deadline = time.time() + timeout
    while True:
        desk = pyatspi.Registry.getDesktop(0)
        try:
            desk.clearCache()  # without a main loop, libatspi never hears of new apps
        except Exception:
            pass
        for i in range(desk.childCount):
            try:
                a = desk.getChildAtIndex(i)
                if a is None:
                    continue
                apid = a.get_process_id()
                if (pid is not None and apid == pid) or (name is not None and a.name == name):
                    for w in children(a):
                        if "showing" in states_of(w) or w.getRoleName() in ("frame", "dialog", "window"):
                            return a
            except Exception:
                continue
        if time.time() > deadline:
            return None
        time.sleep(0.2)


def dump(o, depth, max_depth, out):
    r = read(o)
    out.append("  " * depth + f"{r.get('role')} {r.get('name')!r} {r.get('states')} "
               f"v={r.get('value')} t={(r.get('text') or '')[:30]!r} e={r.get('extents')}")
    if depth < max_depth:
        for c in children(o):
            dump(c, depth + 1, max_depth, out)


# --- editors (atspi_matrix_editors.py): a text run's attributes -------------------------------

def text_attributes(o, offset):
    """The attributes of the text run at `offset`, defaults included (LibreOffice: `weight`
    400 / 600, `style`, `underline`, `size`…), and where the run starts and ends."""
    attrs, start, end = o.queryText().getAttributeRun(offset, True)
    return {"attrs": dict(a.partition(":")[::2] for a in attrs), "start": start, "end": end}


def serve(req):
    global APP
    cmd = req.get("cmd")
    if cmd == "app":
        a = find_app(req.get("pid"), req.get("name"), req.get("timeout", 30))
        if a is None:
            return {"ok": False, "error": "the app is not on the accessibility bus with a window"}
        APP = a
        global STRUCTURE
        STRUCTURE = None
        return {"ok": True, "name": a.name, "pid": a.get_process_id()}
    if APP is None:
        return {"ok": False, "error": "no app yet (send `app` first)"}
    if cmd == "find":
        found = find_all(req["spec"])
        nth = req["spec"].get("nth", 0)
        if len(found) <= nth:
            return {"ok": False, "error": f"no match for {req['spec']} ({len(found)} found)"}
        o = found[nth]
        return {"ok": True, "h": handle(o), "read": read(o), "count": len(found)}
    if cmd == "find_all":
        found = find_all(req["spec"])
        return {"ok": True, "all": [dict(read(o), h=handle(o)) for o in found]}
    if cmd == "read":
        clear()
        o = HANDLES.get(req["h"])
        if o is None:
            return {"ok": False, "error": f"no handle {req['h']}"}
        return {"ok": True, "read": read(o)}
    if cmd == "parent":  # {h}: the object's parent, as `find` answers
        clear()
        o = HANDLES.get(req["h"])
        p = o.parent if o is not None else None
        if p is None:
            return {"ok": False, "error": f"no parent of handle {req['h']}"}
        return {"ok": True, "h": handle(p), "read": read(p)}
    if cmd == "focused":
        clear()
        for o in walk(APP):
            if "focused" in states_of(o):
                return {"ok": True, "read": dict(read(o), h=handle(o))}
        return {"ok": True, "read": None}
    if cmd == "windows":
        clear()
        return {"ok": True, "all": [dict(read(w), h=handle(w)) for w in children(APP)]}
    if cmd == "alive":
        try:
            desk = pyatspi.Registry.getDesktop(0)
            pids = []
            for i in range(desk.childCount):
                a = desk.getChildAtIndex(i)
                if a is not None:
                    pids.append(a.get_process_id())
            return {"ok": True, "alive": APP.get_process_id() in pids}
        except Exception:
            return {"ok": True, "alive": False}
    if cmd == "actions":
        o = HANDLES[req["h"]]
        try:
            a = o.queryAction()
        except Exception:
            return {"ok": True, "names": []}
        return {"ok": True, "names": [a.getName(i) for i in range(a.nActions)]}
    if cmd == "do_action":
        o = HANDLES[req["h"]]
        a = o.queryAction()
        for i in range(a.nActions):
            if a.getName(i).lower() == req["name"].lower():
                return {"ok": True, "done": bool(a.doAction(i))}
        return {"ok": False, "error": f"no action {req['name']}"}
    if cmd == "table_cell":
        clear()
        try:
            o = HANDLES[req["h"]].queryTable().getAccessibleAt(req["row"], req["col"])
        except Exception as e:
            return {"ok": False, "error": f"no cell: {e}"}
        if o is None:
            return {"ok": False, "error": "no cell there"}
        return {"ok": True, "h": handle(o), "read": read(o)}
    if cmd == "dump":
        clear()
        out = []
        dump(HANDLES[req["h"]] if "h" in req else APP, 0, req.get("max_depth", 30), out)
        return {"ok": True, "text": "\n".join(out)}
    if cmd == "text_attributes":  # editors: {h, offset}
        clear()
        o = HANDLES.get(req["h"])
        if o is None:
            return {"ok": False, "error": f"no handle {req['h']}"}
        return dict(text_attributes(o, req.get("offset", 0)), ok=True)
    return {"ok": False, "error": f"unknown command {cmd}"}


def main():
    print(json.dumps({"ok": True, "ready": True}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            reply = serve(json.loads(line))
        except Exception as e:
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
