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
libatspi's caches are cleared before every read, so an answer is what the app says now.
"""

import json
import sys

import pyatspi

TEXT_CAP = 4096


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
        out["text"] = t.getText(0, -1)[:TEXT_CAP]
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
                kids = [obj.getChildAtIndex(i) for i in range(obj.childCount)]
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
            else:
                answer = {"error": f"unknown command {cmd}"}
        except Exception as e:  # an answer either way: the test reads one line a command
            answer = {"error": repr(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
