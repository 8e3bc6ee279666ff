"""An independent reader for the structure tests: pyatspi (Debian's python3-pyatspi) on the
same bus as the kit, never the kit's own read. It never lists the children of an object that
manages its descendants (a spreadsheet counts 2^31-1 of them).

Usage: /usr/bin/python3 tree_oracle.py APP
APP is the app's pid or its accessible name. Then one JSON command a line on stdin, one JSON
answer a line on stdout:
  {"find": {"role": R, "name": N, "showing": B}}
                                    the first object with that role name ("combo box"), name
                                    (omitted: any) and, with "showing": true, showing:
                                    {"role", "name", "states", "screen", "text"} (screen:
                                    [x, y, w, h] on the screen), or null
  {"cell": [ROW, COL]}              the first table's cell: {"name", "text", "screen"}, or null
  {"windows": true}                 the app's top-level windows: [{"role", "name", "screen"}]
  {"children": R}                   the children of the first showing object with role R
                                    (at most 1000): [{"role", "name"}], or null
libatspi's caches are cleared before every read, so an answer is what the app says now.
"""

import json
import sys

import pyatspi


def find_app(which):
    desktop = pyatspi.Registry.getDesktop(0)
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


def screen(obj):
    try:
        e = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return [e.x, e.y, e.width, e.height]
    except Exception:
        return None


def text(obj):
    try:
        return obj.queryText().getText(0, -1)
    except Exception:
        return None


def describe(obj):
    return {
        "role": obj.getRoleName(),
        "name": obj.name,
        "states": sorted(pyatspi.stateToString(s) for s in obj.getState().getStates()),
        "screen": screen(obj),
        "text": text(obj),
    }


def walk(app):
    """Every object, depth first, not below an object that manages its descendants."""
    app.clearCache()
    stack = [app]
    while stack:
        obj = stack.pop()
        yield obj
        try:
            if obj.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS):
                continue
            n = min(obj.childCount, 1000)
            kids = [obj.getChildAtIndex(i) for i in range(n)]
        except Exception:
            continue
        stack.extend(k for k in reversed(kids) if k is not None)


def answer(app, cmd):
    if "find" in cmd:
        want = cmd["find"]
        for obj in walk(app):
            try:
                if (
                    obj.getRoleName() == want["role"]
                    and ("name" not in want or obj.name == want["name"])
                    and (not want.get("showing") or obj.getState().contains(pyatspi.STATE_SHOWING))
                ):
                    return describe(obj)
            except Exception:
                continue
        return None
    if "cell" in cmd:
        row, col = cmd["cell"]
        for obj in walk(app):
            try:
                if obj.getRoleName() == "table":
                    cell = obj.queryTable().getAccessibleAt(row, col)
                    cell.clearCache()
                    return {"name": cell.name, "text": text(cell), "screen": screen(cell)}
            except Exception:
                continue
        return None
    if "children" in cmd:
        for obj in walk(app):
            try:
                if obj.getRoleName() == cmd["children"] and obj.getState().contains(
                    pyatspi.STATE_SHOWING
                ):
                    kids = [obj.getChildAtIndex(i) for i in range(min(obj.childCount, 1000))]
                    return [{"role": k.getRoleName(), "name": k.name} for k in kids if k]
            except Exception:
                continue
        return None
    if "windows" in cmd:
        app.clearCache()
        out = []
        for i in range(app.childCount):
            w = app.getChildAtIndex(i)
            if w is not None:
                out.append({"role": w.getRoleName(), "name": w.name, "screen": screen(w)})
        return out
    raise SystemExit(f"oracle: unknown command {cmd!r}")


def main():
    app = find_app(sys.argv[1])
    for line in sys.stdin:
        if not line.strip():
            continue
        print(json.dumps(answer(app, json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
