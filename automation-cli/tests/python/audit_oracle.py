"""The audit test's independent reader: pyatspi's view of one app, by pid, as JSON on stdout —
each object's role, name, states, screen extents, whether a label is tied to it, and its
parent's index — so the test can say which defects a rule must find without the kit.

    python3 audit_oracle.py PID
"""

import json
import sys

import pyatspi


def main():
    pid = int(sys.argv[1])
    desktop = pyatspi.Registry.getDesktop(0)
    app = next((a for a in desktop if a is not None and a.get_process_id() == pid), None)
    if app is None:
        print(json.dumps({"error": f"no app with pid {pid} on the bus"}))
        return
    nodes = []

    def walk(obj, parent, depth):
        if obj is None or depth > 60:
            return
        states = obj.getState()
        try:
            ext = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            extents = [ext.x, ext.y, ext.width, ext.height]
        except NotImplementedError:
            extents = None
        labelled = any(
            r.getRelationType() == pyatspi.RELATION_LABELLED_BY for r in obj.getRelationSet()
        )
        index = len(nodes)
        nodes.append(
            {
                "role": obj.getRoleName(),
                "name": obj.name or "",
                "focusable": states.contains(pyatspi.STATE_FOCUSABLE),
                "focused": states.contains(pyatspi.STATE_FOCUSED),
                "showing": states.contains(pyatspi.STATE_SHOWING),
                "enabled": states.contains(pyatspi.STATE_SENSITIVE),
                "extents": extents,
                "labelled": labelled,
                "parent": parent,
            }
        )
        for child in obj:
            walk(child, index, depth + 1)

    walk(app, None, 0)
    print(json.dumps({"nodes": nodes}))


if __name__ == "__main__":
    main()
