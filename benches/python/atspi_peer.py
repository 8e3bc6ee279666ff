"""The peers of the AT-SPI benches, timed from inside Python (interpreter start-up excluded).

  walk APP N     pyatspi (Debian's python3-pyatspi, the dogtail stack) walks APP's whole tree
                 N times, reading what automation-atspi reads for each object: role, name,
                 description, states, interfaces, children, extents (Component), action
                 names (Action), value (Value), text for text roles / nameless objects, and
                 relations for nameless objects. libatspi's own cache is cleared before each
                 walk, so every walk reads the app afresh, as automation's snapshot does.
                 Prints the total seconds and the object count.
  walk-minimal APP N   the same walk reading role, name and children only.
  names APP N    the audit's anchor: pyatspi walks the tree N times checking what the audit's
                 name rules check (a showing, enabled button, check box, radio, link, menu item
                 or tab with no name; a showing text field, spin button, slider or combo box
                 with no name and no labelled-by relation). Prints the total seconds and the
                 count of nameless objects.
  click APP LABEL N   dogtail clicks the button LABEL N times with dogtail's own click()
                 (doAction + its default action delay, config.actionDelay). Prints the total
                 seconds.
"""

import sys
import time

import pyatspi

TEXT_ROLES = {pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT,
              pyatspi.ROLE_SPIN_BUTTON, pyatspi.ROLE_TERMINAL, pyatspi.ROLE_COMBO_BOX}


def find_app(name):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.name == name:
            return app
    raise SystemExit(f"no app {name!r} on the accessibility bus")


def read(node):
    count = 1
    role = node.getRole()
    name = node.name
    node.description
    node.getState()
    ifaces = node.get_interfaces()
    if not name:
        node.getRelationSet()
    if "Component" in ifaces:
        node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    if "Action" in ifaces:
        a = node.queryAction()
        [a.getName(i) for i in range(a.nActions)]
    if "Value" in ifaces:
        v = node.queryValue()
        (v.currentValue, v.minimumValue, v.maximumValue, v.minimumIncrement)
    if "Text" in ifaces and (role in TEXT_ROLES or not name):
        node.queryText().getText(0, 4096)
    for child in node:
        if child is not None:
            count += read(child)
    return count


def read_minimal(node):
    """What the notes' 0.28 s walk reads: role, name and children only."""
    count = 1
    node.getRole()
    node.name
    for child in node:
        if child is not None:
            count += read_minimal(child)
    return count


CONTROLS = {pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_CHECK_BOX,
            pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_LINK, pyatspi.ROLE_MENU_ITEM,
            pyatspi.ROLE_PAGE_TAB}
FIELDS = {pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT,
          pyatspi.ROLE_SPIN_BUTTON, pyatspi.ROLE_SLIDER, pyatspi.ROLE_COMBO_BOX}


def nameless(node):
    """The objects the audit's name rules would look at and find with no name."""
    found = 0
    role = node.getRole()
    if role in CONTROLS or role in FIELDS:
        states = node.getState()
        if (states.contains(pyatspi.STATE_SHOWING) and states.contains(pyatspi.STATE_SENSITIVE)
                and not node.name):
            labelled = any(r.getRelationType() == pyatspi.RELATION_LABELLED_BY
                           for r in node.getRelationSet())
            found += 0 if (role in FIELDS and labelled) else 1
    for child in node:
        if child is not None:
            found += nameless(child)
    return found


def walk(app_name, n, reader=read):
    app = find_app(app_name)
    t = time.perf_counter()
    count = 0
    for _ in range(n):
        app.clearCache()
        count = reader(app)
    print(time.perf_counter() - t, count)


def click(app_name, label, n):
    from dogtail import tree
    from dogtail.config import config  # dogtail's defaults, as a user gets them
    app = tree.root.application(app_name)
    button = app.child(name=label, roleName="push button")
    t = time.perf_counter()
    for _ in range(n):
        button.click()
    print(time.perf_counter() - t, config.actionDelay)


if __name__ == "__main__":
    if sys.argv[1] == "walk":
        walk(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "walk-minimal":
        walk(sys.argv[2], int(sys.argv[3]), read_minimal)
    elif sys.argv[1] == "names":
        walk(sys.argv[2], int(sys.argv[3]), nameless)
    elif sys.argv[1] == "click":
        click(sys.argv[2], sys.argv[3], int(sys.argv[4]))
