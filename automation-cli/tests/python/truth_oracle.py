"""The independent reader for atspi_truth.rs: pyatspi (Debian python3-pyatspi, the system
python) on the same bus as the kit, reading what a person would check.

Usage: /usr/bin/python3 truth_oracle.py APP ROLES
APP: a substring of the application's accessible name. ROLES: comma-separated pyatspi role
names ("check box,slider,text"). Prints one JSON list: every object of those roles in
document order, with its name, states, value, text and extents (desktop coordinates).
"""

import json
import sys
import time

import pyatspi

STATES = {
    "showing": pyatspi.STATE_SHOWING,
    "visible": pyatspi.STATE_VISIBLE,
    "enabled": pyatspi.STATE_ENABLED,
    "sensitive": pyatspi.STATE_SENSITIVE,
    "checked": pyatspi.STATE_CHECKED,
    "indeterminate": pyatspi.STATE_INDETERMINATE,
    "selected": pyatspi.STATE_SELECTED,
    "focused": pyatspi.STATE_FOCUSED,
    "expanded": pyatspi.STATE_EXPANDED,
}


def app_named(name):
    for _ in range(80):
        desktop = pyatspi.Registry.getDesktop(0)
        for app in desktop:
            if app is not None and name in (app.name or ""):
                return app
        time.sleep(0.25)
    raise SystemExit(f"no application named {name!r} on the bus")


def record(obj):
    st = obj.getState()
    out = {
        "role": obj.getRoleName(),
        "name": obj.name or "",
        "states": [n for n, s in STATES.items() if st.contains(s)],
    }
    try:
        out["value"] = obj.queryValue().currentValue
    except NotImplementedError:
        pass
    try:
        t = obj.queryText()
        out["text"] = t.getText(0, t.characterCount)
    except NotImplementedError:
        pass
    try:
        e = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        out["extents"] = [e.x, e.y, e.width, e.height]
    except NotImplementedError:
        pass
    return out


def walk(obj, roles, out, depth=0):
    if obj is None or depth > 60:
        return
    try:
        if obj.getRoleName() in roles:
            out.append(record(obj))
        for child in obj:
            walk(child, roles, out, depth + 1)
    except Exception:  # an object that went away mid-walk
        return


def main():
    app = app_named(sys.argv[1])
    app.clearCache()  # pyatspi caches: read the app now, not our own past
    out = []
    walk(app, set(sys.argv[2].split(",")), out)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
