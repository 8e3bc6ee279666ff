"""An independent reader for the tests: pyatspi (Debian's python3-pyatspi, libatspi) on the
same bus as the kit, never the kit's own read.

Usage: /usr/bin/python3 oracle.py APP
APP is the app's pid or its accessible name. Then one JSON command a line on stdin, one JSON
answer a line on stdout:
  {"dump": true}   every object: {"id", "role", "name", "states", "text", "value", "extents"}
                   (extents: window coordinates [x, y, w, h]); ids stay valid for "read"
  {"read": ID}     the same fields for one object from the last dump, read again now
  {"focused": true} the object with STATE_FOCUSED (the first found), or null
  {"window": true} the first top-level window's extents, [x, y, w, h] on the screen
  {"find": {"role": R, "name": N, "showing": B}}
                   the first object with that role name ("combo box"), name (omitted: any)
                   and, with "showing": true, showing: {"role", "name", "states", "screen",
                   "text"} (screen: [x, y, w, h] on the screen), or null
  {"cell": [ROW, COL]}  the first table's cell: {"name", "text", "screen"}, or null
  {"windows": true}     the app's top-level windows: [{"role", "name", "screen"}]
  {"children": R}       the children of the first showing object with role R (at most 1000):
                        [{"role", "name"}], or null
libatspi's caches are cleared before every read, so an answer is what the app says now. No
walk lists the children of an object that manages its descendants (a spreadsheet counts
2^31-1 of them), nor more than 1000 children of any.
"""

import json
import sys

import pyatspi

TEXT_CAP = 4096
MAX_CHILDREN = 1000


def find_app(which):
    desktop = pyatspi.Registry.getDesktop(0)
    for _ in range(2):
        for app in desktop:
            if app is None:
                continue
            try:
                if which.isdigit() and app.get_process_id() == int(which):
                    return app
                if app.name == which:
                    return app
            except Exception:
                continue
    raise SystemExit(f"oracle: no app {which!r} on the bus")


def describe(obj, ident):
    obj.clearCache()
    out = {"id": ident, "role": obj.getRoleName(), "name": obj.name}
    states = obj.getState()
    out["states"] = sorted(
        pyatspi.stateToString(s) for s in states.getStates()
    )
    try:
        t = obj.queryText()
        # To the count, not -1: GTK 4.8 answers "" for an end of -1.
        out["text"] = t.getText(0, t.characterCount)[:TEXT_CAP]
    except NotImplementedError:
        out["text"] = None
    except Exception:
        out["text"] = None
    try:
        out["value"] = obj.queryValue().currentValue
    except Exception:
        out["value"] = None
    try:
        e = obj.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        out["extents"] = [e.x, e.y, e.width, e.height]
    except Exception:
        out["extents"] = None
    return out


class Oracle:
    def __init__(self, app):
        self.app = app
        self.objects = []

    def walk(self):
        self.app.clearCache()
        self.objects = []
        stack = [self.app]
        seen = 0
        while stack and seen < 20000:
            obj = stack.pop()
            seen += 1
            self.objects.append(obj)
            try:
                if obj.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS):
                    kids = []
                else:
                    kids = [obj.getChildAtIndex(i) for i in range(min(obj.childCount, MAX_CHILDREN))]
            except Exception:
                kids = []
            stack.extend(k for k in reversed(kids) if k is not None)

    def dump(self):
        self.walk()
        out = []
        for i, o in enumerate(self.objects):
            try:
                out.append(describe(o, i))
            except Exception:
                continue
        return {"nodes": out}

    def read(self, ident):
        return describe(self.objects[ident], ident)

    def focused(self):
        self.walk()
        for i, o in enumerate(self.objects):
            try:
                o.clearCache()
                if o.getState().contains(pyatspi.STATE_FOCUSED):
                    return describe(o, i)
            except Exception:
                continue
        return None

    def window(self):
        self.app.clearCache()
        for i in range(self.app.childCount):
            w = self.app.getChildAtIndex(i)
            if w is None:
                continue
            e = w.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            return [e.x, e.y, e.width, e.height]
        return None


    def find(self, want):
        self.walk()
        for obj in self.objects:
            try:
                if (
                    obj.getRoleName() == want["role"]
                    and ("name" not in want or obj.name == want["name"])
                    and (not want.get("showing") or obj.getState().contains(pyatspi.STATE_SHOWING))
                ):
                    return {"role": obj.getRoleName(), "name": obj.name,
                            "states": sorted(pyatspi.stateToString(s) for s in obj.getState().getStates()),
                            "screen": screen(obj), "text": text(obj)}
            except Exception:
                continue
        return None

    def cell(self, row, col):
        self.walk()
        for obj in self.objects:
            try:
                if obj.getRoleName() == "table":
                    cell = obj.queryTable().getAccessibleAt(row, col)
                    cell.clearCache()
                    return {"name": cell.name, "text": text(cell), "screen": screen(cell)}
            except Exception:
                continue
        return None

    def children(self, role):
        self.walk()
        for obj in self.objects:
            try:
                if obj.getRoleName() == role and obj.getState().contains(pyatspi.STATE_SHOWING):
                    kids = [obj.getChildAtIndex(i) for i in range(min(obj.childCount, MAX_CHILDREN))]
                    return [{"role": k.getRoleName(), "name": k.name} for k in kids if k]
            except Exception:
                continue
        return None

    def windows(self):
        self.app.clearCache()
        out = []
        for i in range(self.app.childCount):
            w = self.app.getChildAtIndex(i)
            if w is not None:
                out.append({"role": w.getRoleName(), "name": w.name, "screen": screen(w)})
        return out


def screen(obj):
    try:
        e = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return [e.x, e.y, e.width, e.height]
    except Exception:
        return None


def text(obj):
    try:
        t = obj.queryText()
        return t.getText(0, t.characterCount)[:TEXT_CAP]
    except Exception:
        return None


def main():
    oracle = Oracle(find_app(sys.argv[1]))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        cmd = json.loads(line)
        try:
            if "dump" in cmd:
                answer = oracle.dump()
            elif "read" in cmd:
                answer = oracle.read(cmd["read"])
            elif "focused" in cmd:
                answer = {"focused": oracle.focused()}
            elif "window" in cmd:
                answer = {"window": oracle.window()}
            elif "find" in cmd:
                answer = oracle.find(cmd["find"])
            elif "cell" in cmd:
                answer = oracle.cell(*cmd["cell"])
            elif "children" in cmd:
                answer = oracle.children(cmd["children"])
            elif "windows" in cmd:
                answer = oracle.windows()
            else:
                answer = {"error": f"unknown command {cmd}"}
        except Exception as e:  # an answer either way: the test reads one line a command
            answer = {"error": repr(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
