"""The matrix's KDE and Java apps (see atspi_matrix.py): KCalc (Qt 5 + KDE Frameworks) and a
Swing form through the Java ATK wrapper (tests/fixtures/swing/SwingForm.java, judged by
pyatspi and by the app's own stdout)."""

import asyncio
import atexit
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time

from atspi_matrix_lib import (Missing, Unresolved, Widget as W, brief, close, kit_bounds, log, other_field,
                              other_state, state, x_window_size, zero)


# ------------------------------------------------------------------------------------------
# Shared: finding the kit's node by where it is on screen, set-up keys
# ------------------------------------------------------------------------------------------

async def pin(m, w):
    """Take `w`'s kit node by its screen extents. Qt 5.15 answers WINDOW-coordinate extents
    wrong (y is the x again, height is bottom − x: KCalc's "7" at 21,135 42x27 reads
    21,21 42x141), so the library's match on them finds nothing; the screen ones are right.
    A hidden node (no `showing`) is taken among the kit's hidden ones, as the library does;
    failing both, the kit's one node of that role and name. Anything else is left to
    `m.resolve` (which records the cell as unjudged)."""
    if w.ref is not None or not w.kit:
        return w
    try:
        await m.resolve(w, kit=False)
    except Unresolved:
        return w
    read = await m.o.read(w.h)
    sel = {"role": w.kit_role}
    label = w.label if w.label is not None else read.get("name")
    if label:
        sel["label"] = label
    first = await m.kit.call("find_node", sel)
    count = (first.data or {}).get("count", 0) if first.ok else 0
    cands = []
    for i in range(min(count, 60)):
        rr = first if (i == 0 and count == 1) else await m.kit.call("find_node", dict(sel, nth=i))
        if rr.ok and rr.data.get("node"):
            cands.append((rr.data["node"], kit_bounds(rr.data.get("record"))))
    scr = read.get("screen")
    if "showing" in read.get("states", []) and not zero(scr):
        origin = ((m.window or {}).get("screen") or [0, 0])[:2]
        rel = [scr[0] - origin[0], scr[1] - origin[1], scr[2], scr[3]]
        win = read.get("extents")  # window coordinates: right for Swing, wrong for Qt 5
        for ref, b in cands:
            if close(b, scr) or close(b, rel) or close(b, win):
                w.ref = ref
                return w
    else:
        hidden = [ref for ref, b in cands if zero(b)]
        if len(hidden) > w.hidden_index:
            w.ref = hidden[w.hidden_index]
            return w
    if len(cands) == 1:
        # The one node of its role and name: the same widget, though the kit places it
        # elsewhere (recorded: a pointer cell on it shows what that costs).
        w.ref = cands[0][0]
        m.notes.append(f"{w.key}: the oracle has it {'showing' if 'showing' in read.get('states', []) else 'hidden'}"
                       f" at {scr} (screen); the kit's one {sel} has bounds {cands[0][1]}")
        return w
    log(f"  pin: the kit has no {sel} at {scr}: {cands}")
    return w


def keep_replies(m):
    """Each cell that is not an effect or a truthful refusal keeps the kit's whole reply
    (`reply.data` is cut at 400 characters): the report quotes it."""
    call, cell = m.kit.call, m.cell

    async def kept_call(tool, args, timeout=None):
        r = await call(tool, args, timeout)
        m.last_reply = r
        return r

    async def kept_cell(*a, **k):
        m.last_reply = None
        c = await cell(*a, **k)
        r = m.last_reply
        if r is not None and c.get("verdict") not in ("effect", "refused", "unjudged"):
            c["reply_full"] = json.dumps(r.data, ensure_ascii=False)[:6000]
        return c
    m.kit.call = kept_call
    m.cell = kept_cell


def xdotool(*args):
    """Set-up only (never judged): a key or a click through XTEST, as a person does it."""
    if not shutil.which("xdotool"):
        raise Missing("xdotool (Debian: xdotool)")
    subprocess.run(["xdotool", *args], check=False, capture_output=True)


def changed(key):
    """A judge for a cell that expects a refusal: any change of widget `key` counts."""
    def judge(b, a, _r):
        return False, brief(a[key]) != brief(b[key])
    return judge


def same_place(m, bounds, screen):
    """The kit's bounds (relative to the app's main window) are where the oracle sees it on
    screen."""
    if bounds is None or zero(screen):
        return False
    origin = ((m.window or {}).get("screen") or [0, 0])[:2]
    return close(bounds, screen) or close(bounds, [screen[0] - origin[0], screen[1] - origin[1]] + screen[2:])


def screen_shot_judge(b, a, r):
    """The image holds the widget: its size is the widget's on-screen size."""
    ext = a["w"].get("screen")
    if not r.images or zero(ext):
        return False, False
    return close(r.images[0], ext[2:], 2), False


# ------------------------------------------------------------------------------------------
# KCalc: a KDE main window (menus, modes that show, hide and disable keys); the display's
# accessible name is what it shows
# ------------------------------------------------------------------------------------------

async def kcalc_cells(m):
    keep_replies(m)
    o = m.o
    display = W("display", "Window", {"role": "frame", "states": ["focusable", "showing"]}, kit=False)
    D = {"display": display}
    frame = W("window", "Window", {"role": "frame", "states": ["showing"], "not_states": ["focusable"]},
              kit=False)
    keys = {}

    def key(name, shown=True):
        k = (name, shown)
        if k not in keys:
            spec = {"role": "push button", "name": name}
            if shown:
                spec["states"] = ["showing"]
            else:
                spec["not_states"] = ["showing"]
            keys[k] = W(f"key {name}" + ("" if shown else " (hidden)"), "Button", spec)
        return keys[k]

    def item(name, closed=False):
        return W(f"menu item {name}" + (" (closed menu)" if closed else ""), "MenuItem",
                 {"role": "menu item", "name": name})

    def reads(text):
        return other_field("display", "name", lambda v: (v or "").strip() == text)

    async def P(w):
        return await pin(m, w)

    async def press(*names):
        """Set-up through the oracle: the toolkit's Press on each key, in order."""
        for n in names:
            r = await o.q(cmd="find", spec={"role": "push button", "name": n, "states": ["enabled", "showing"]})
            if not r.get("ok"):
                raise RuntimeError(f"set-up: no key {n}: {r.get('error')}")
            await o.q(cmd="do_action", h=r["h"], name="Press")
            await asyncio.sleep(0.12)
        await asyncio.sleep(0.2)

    async def showing(name):
        r = await o.q(cmd="find", spec={"role": "menu item", "name": name})
        return r.get("ok") and "showing" in r["read"].get("states", [])

    async def close_menu(probe):
        """A menu left open (a toolkit action on an item does not close Qt's menu) is closed
        with Escape — only then: Escape on the window clears the display."""
        for _ in range(3):
            if not await showing(probe):
                return
            xdotool("key", "Escape")
            await asyncio.sleep(0.3)

    async def open_menu(name, probe):
        """Set-up: open the menu `name` as a person does, a click on its title (XTEST)."""
        r = await o.must(cmd="find", spec={"role": "menu item", "name": name})
        x, y, wd, ht = r["read"]["screen"]
        xdotool("mousemove", str(x + wd // 2), str(y + ht // 2), "click", "1")
        deadline = time.monotonic() + 3
        while not await showing(probe) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    async def ensure(spec, want=True):
        """Set-up: the check box or radio button `spec` checked (or not), by its own action."""
        r = await o.must(cmd="find", spec=spec)
        if ("checked" in r["read"].get("states", [])) != want:
            for name in ("Toggle", "Press"):
                if (await o.q(cmd="do_action", h=r["h"], name=name)).get("ok"):
                    break
            await asyncio.sleep(0.3)

    async def mode(name):
        """Set-up: the mode `name` checked (the toolkit's Press acts with the menu closed)."""
        r = await o.must(cmd="find", spec={"role": "menu item", "name": name})
        if "checked" not in r["read"].get("states", []):
            await o.q(cmd="do_action", h=r["h"], name="Press")
            await asyncio.sleep(0.6)

    # -- Simple Mode: the keys by action and by pointer, the display judged by its name ------
    await m.click(await P(key("7")), reads("7"), also=D)
    await press("×")
    await m.click(await P(key("6")), reads("6"), also=D)
    await m.click(await P(key("=")), reads("42"), also=D)
    await m.click(await P(key("+/−")), reads("-42"), also=D)
    await m.click(await P(key("C")), reads("0"), also=D, how="pointer")
    await m.click(await P(key("8")), reads("8"), also=D, how="pointer")
    await press("÷")
    await m.click(await P(key("4")), reads("4"), also=D, how="pointer")
    await m.click(await P(key("=")), reads("2"), "chained", also=D, how="pointer")
    await m.click(await P(key("AC")), reads("0"), also=D)
    await press("2", "×", "(", "3", "+", "4")
    await m.click(await P(key(")")), reads("7"), also=D)
    await m.click(await P(key("=")), reads("14"), "parentheses", also=D)
    await press("AC", "1")
    await m.click(await P(key(".")), reads("1."), also=D, how="pointer")
    await press("AC", "5", "0", "×", "1", "0")
    await m.click(await P(key("%")), reads("5"), also=D)
    # Science Mode's keys exist but are hidden in Simple Mode: a person sees no "sin".
    await press("AC", "3", "0")
    await m.click(await P(key("sin", shown=False)), changed("display"), "hidden", "refuse", also=D)
    await m.click(await P(key("sin", shown=False)), changed("display"), "hidden", "refuse", also=D,
                  how="pointer")
    await m.click(await P(key("A", shown=False)), changed("display"), "hidden, disabled", "refuse", also=D)
    await m.focus(await P(key("5")))
    await m.focus(await P(W("display (focus)", "Window", {"role": "frame", "states": ["focusable", "showing"]})))

    # -- Typing: no node (into the focused window, as a person types), and into the display --
    await press("AC")
    frame_read = (await o.must(cmd="find", spec=frame.spec))["read"]
    if "active" not in frame_read.get("states", []):
        m.notes.append("kcalc's window was not active before the typing cells")
    await m.cell(display, "type_text", "type_text", {"text": "7*6="}, reads("42"), "no node", also=D)
    await m.cell(display, "type_text", "type_text", {"text": "1.5+3.25="}, reads("4.75"), "no node, decimals",
                 also=D)
    disp_k = await P(W("display (type)", "Window", {"role": "frame", "states": ["focusable", "showing"]}))
    await m.cell(disp_k, "type_text", "type_text", {"node": "REF", "text": "9-4="}, reads("5"), "display",
                 also=D)
    await m.cell(display, "type_text", "inject_key", {"key": "escape"}, reads("0"), "inject_key Escape: clears",
                 also=D)
    await press("1", "2")
    await m.cell(display, "type_text", "inject_key", {"key": "backspace"}, reads("1"), "inject_key Backspace",
                 also=D)

    # -- Reading: screenshots, find_node, snapshot_tree --------------------------------------
    await m.cell(await P(key("=")), "screenshot", "screenshot", {"node": "REF"}, screen_shot_judge, window=0.3)
    await m.screenshot(frame, window=True)
    await press("AC", "4", "2")

    def found_display(b, a, r):
        rec = (r.data or {}).get("record") or {}
        ext = a["w"].get("screen")
        ok = r.ok and r.data.get("count") == 1 and rec.get("label") == a["w"].get("name") and same_place(
            m, kit_bounds(rec), ext)
        return ok, False
    await m.cell(display, "find", "find_node", lambda b: {"role": "Window", "label": b["w"]["name"]},
                 found_display, "display by its text", window=0)

    def found_key(b, a, r):
        rec = (r.data or {}).get("record") or {}
        ok = r.ok and r.data.get("count") == 1 and same_place(m, kit_bounds(rec), a["w"].get("screen"))
        return ok, False
    eq = key("=")
    await m.resolve(eq, kit=False)
    await m.cell(eq, "find", "find_node", {"role": "Button", "label": "="}, found_key, "by role and label",
                 window=0)

    def small_tree(b, a, r):
        text = (r.data or {}).get("text") or ""
        name = a["display"].get("name") or "?"
        ok = r.ok and r.ms <= 2000 and len(text.encode()) <= 3000 and f'"{name}"' in text
        return ok, False
    await m.cell(frame, "snapshot", "snapshot_tree", {}, small_tree, "≤ 3 kB, names the display", also=D,
                 window=0)

    # -- The menu bar: open a menu, pick an item in it; a closed menu's items are hidden ---------
    science = item("Science Mode")
    await m.click(await P(item("Settings")), other_state("item", "showing"), op="expand",
                  also={"item": science})
    # The popup is wider than the window (Simple Mode): the item's centre is on the popup.
    await m.click(await P(science), state("checked"), "open menu, past the window's edge", how="pointer")
    await close_menu("Science Mode")
    await mode("Science Mode")
    stat = item("Statistic Mode", closed=True)
    await m.click(await P(stat), state("checked"), "closed menu", "refuse")
    await m.click(await P(stat), state("checked"), "closed menu", "refuse", how="pointer")
    settings = await P(item("Settings"))

    def items_shown(want):
        def judge(b, a, _r):
            s = ("showing" in a["item"].get("states", [])) == want
            return s, s and ("showing" in b["item"].get("states", [])) != want
        return judge
    await m.cell(settings, "expand", "expand", {"node": "REF"}, items_shown(True), also={"item": science})
    await m.cell(settings, "collapse", "collapse", {"node": "REF"}, items_shown(False), also={"item": science})
    await close_menu("Science Mode")
    # Edit > Paste: the clipboard holds what Copy took from the display (set-up by the oracle).
    await press("AC", "8", "1")
    copy = await o.must(cmd="find", spec={"role": "menu item", "name": "Copy"})
    await o.q(cmd="do_action", h=copy["h"], name="Press")
    await press("AC")
    paste = item("Paste")
    await m.click(await P(item("Edit")), other_state("item", "showing"), op="expand", how="pointer",
                  also={"item": paste})
    opened_by = "the kit's pointer"
    if not await showing("Paste"):
        await open_menu("Edit", "Paste")
        opened_by = "a person's click"
    await m.click(await P(paste), reads("81"), f"menu opened by {opened_by}", also=D)
    await close_menu("Paste")

    # -- Science Mode: radio buttons, check boxes, function keys, memory ------------------------
    await m.click(await P(W("Rad", "RadioButton", {"role": "radio button", "name": "Rad"})), state("checked"),
                  op="select")
    await m.click(await P(W("Grad", "RadioButton", {"role": "radio button", "name": "Grad"})),
                  state("checked"), op="select", how="pointer")
    await m.click(await P(W("Deg", "RadioButton", {"role": "radio button", "name": "Deg"})), state("checked"),
                  op="select")
    hyp = await P(W("Hyp", "CheckBox", {"role": "check box", "name": "Hyp"}))
    await m.toggle(hyp)
    await m.toggle(hyp, how="pointer")
    await m.toggle(await P(W("Shift", "CheckBox", {"role": "check box", "name": "Shift"})))
    # sin needs degrees, no Shift (asin) and no Hyp (sinh): whatever the cells left.
    await ensure({"role": "check box", "name": "Shift"}, False)
    await ensure({"role": "check box", "name": "Hyp"}, False)
    await ensure({"role": "radio button", "name": "Deg"})
    await press("AC", "3", "0")
    await m.click(await P(key("sin")), reads("0.5"), also=D)
    await press("AC", "9")
    await m.click(await P(key("x<sup>2</sup>")), reads("81"), also=D, how="pointer")
    mr = key("MR")
    await press("AC", "7")
    await m.click(await P(mr), changed("display"), "disabled (memory empty)", "refuse", also=D)
    await m.click(await P(mr), changed("display"), "disabled (memory empty)", "refuse", also=D, how="pointer")
    await m.focus(await P(mr), "disabled", "refuse")
    await press("AC", "6", "4")
    await m.click(await P(key("MS")), other_state("mr", "enabled"), "enables MR", also={"mr": mr})
    await press("AC")
    await m.click(await P(mr), reads("64"), "now enabled", also=D, how="pointer")

    # -- Numeral System Mode: hex keys disabled in decimal, decimal keys disabled in binary ----
    await open_menu("Settings", "Numeral System Mode")
    await m.click(await P(item("Numeral System Mode")), state("checked"), "menu opened by a person's click")
    await close_menu("Numeral System Mode")
    await mode("Numeral System Mode")
    a_key = key("A")
    await m.click(await P(a_key), changed("display"), "disabled (decimal)", "refuse", also=D)
    await m.click(await P(a_key), changed("display"), "disabled (decimal)", "refuse", also=D, how="pointer")
    await m.click(await P(W("Hex", "RadioButton", {"role": "radio button", "name": "Hex"})), state("checked"),
                  op="select", how="pointer")
    await press("AC")
    await m.click(await P(a_key), reads("A"), "enabled (hex)", also=D)
    await m.click(await P(key("F")), reads("AF"), also=D, how="pointer")
    await m.click(await P(W("Bin", "RadioButton", {"role": "radio button", "name": "Bin"})), state("checked"),
                  op="select")
    five = key("5")
    await m.click(await P(five), changed("display"), "disabled (binary)", "refuse", also=D)
    await m.click(await P(five), changed("display"), "disabled (binary)", "refuse", also=D, how="pointer")
    await press("AC")
    await m.cell(display, "type_text", "type_text", {"text": "2"}, changed("display"), "binary, no digit 2",
                 "refuse", also=D)
    await m.cell(display, "type_text", "type_text", {"text": "101"}, reads("101"), "binary", also=D)

    # -- Settings' check items: Show History shows the history pane; back to Simple Mode -------
    hist = W("history", "TextInput", {"role": "text"}, kit=False)
    await open_menu("Settings", "Show History")
    await m.click(await P(item("Show History")), other_state("hist", "showing"), "menu opened by a person's click",
                  also={"hist": hist})
    await close_menu("Show History")
    await open_menu("Settings", "Simple Mode")
    await m.click(await P(item("Simple Mode")), state("checked"), "menu opened by a person's click",
                  how="pointer")
    await close_menu("Simple Mode")


# ------------------------------------------------------------------------------------------
# Swing (Java ATK wrapper): tests/fixtures/swing/SwingForm.java, compiled here; its stdout
# (one line a change) judges what pyatspi cannot read back (a password, a Value write, a
# combo's real selection, a label the wrapper names stale)
# ------------------------------------------------------------------------------------------

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
SWING = {}


def swing_argv(extra):
    """Compile the form with javac into a temp dir; the app runs with the ATK wrapper as its
    assistive technology, its stdout into a file the cells read. EXTRA: another `java`."""
    java = extra or shutil.which("java")
    if not shutil.which("javac"):
        raise Missing("javac (Debian: openjdk-17-jdk-headless)")
    if not java:
        raise Missing("java (Debian: openjdk-17-jdk-headless)")
    jar = "/usr/share/java/java-atk-wrapper.jar"
    if not os.path.exists(jar):
        raise Missing("java-atk-wrapper.jar (Debian: libatk-wrapper-java)")
    jni = next((d for d in ("/usr/lib/x86_64-linux-gnu/jni", "/usr/lib/aarch64-linux-gnu/jni", "/usr/lib/jni")
                if os.path.exists(os.path.join(d, "libatk-wrapper.so"))), None)
    if jni is None:
        raise Missing("libatk-wrapper.so (Debian: libatk-wrapper-java-jni)")
    classes = tempfile.mkdtemp(prefix="swingform-")
    atexit.register(shutil.rmtree, classes, True)
    got = subprocess.run(["javac", "-encoding", "UTF-8", "-d", classes,
                          os.path.join(FIXTURES, "swing", "SwingForm.java")], capture_output=True, text=True)
    if got.returncode != 0:
        raise RuntimeError(f"javac: {got.stderr.strip()[-2000:]}")
    SWING["out"] = os.path.join(classes, "stdout.txt")
    cmd = ["env", "-u", "AT_SPI_BUS_ADDRESS", "GNOME_ACCESSIBILITY=1", "NO_AT_BRIDGE=0", java,
           "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper",
           f"-Djava.library.path={jni}", "-cp", f"{classes}:{jar}", "SwingForm", "40", "40"]
    # `exec`: the shell becomes the JVM (the pid the kit attaches to), its stdout the file.
    return ["sh", "-c", "exec " + " ".join(shlex.quote(a) for a in cmd) + " >" + shlex.quote(SWING["out"])
            + " 2>" + shlex.quote(SWING["out"] + ".err")]


class AppOut:
    """The app's stdout, read from its file: `mark()` before a cell, `since()` after."""

    def __init__(self, path):
        self.path = path
        self.at = 0

    def lines(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return [x for x in f.read().split("\n") if x]
        except OSError:
            return []

    async def mark(self):
        self.at = len(self.lines())

    def since(self):
        return self.lines()[self.at:]


async def swing_cells(m):
    keep_replies(m)
    o = m.o
    out = AppOut(SWING["out"])

    def says_if(pred):
        """The effect: the app printed a line `pred` holds of, during the cell."""
        def judge(_b, _a, _r):
            s = any(pred(x) for x in out.since())
            return s, s
        return judge

    def says(line):
        return says_if(lambda x: x == line)

    def says_prefix(prefix):
        return says_if(lambda x: x.startswith(prefix))

    def says_step(prefix, delta):
        """The app printed the widget's value (the oracle's, before the cell) plus `delta`."""
        def judge(b, _a, _r):
            want = f"{prefix}{int(round(b['w']['value'])) + delta}"
            s = want in out.since()
            return s, s
        return judge

    def says_flip(prefix):
        """A set_value to the other state: the app printed it."""
        def judge(b, _a, _r):
            want = "false" if "checked" in b["w"].get("states", []) else "true"
            s = f"{prefix}{want}" in out.since()
            return s, s
        return judge

    def flipped(b):
        return {"node": "REF", "value": "checked" not in b["w"].get("states", [])}

    def silent(_b, _a, _r):
        """A cell that expects a refusal: any line the app prints is an effect."""
        return False, bool(out.since())

    async def sc(w, op, tool, args, judge, variant="", expect="effect", also=None):
        await pin(m, w)
        c = await m.cell(w, op, tool, args, judge, variant, expect, also=also, before_hook=out.mark)
        c["app_output"] = out.since()
        return c

    async def click(w, judge, variant="", expect="effect", how="action", op="click", also=None):
        if judge is None:
            judge = silent
        elif isinstance(judge, str):
            judge = says(judge)
        if how == "action":
            return await sc(w, op, "invoke_action", {"node": "REF", "action": "click"}, judge, variant, expect,
                            also=also)
        return await sc(w, "pointer", "inject_pointer", {"node": "REF"}, judge, variant, expect, also=also)

    async def P(w):
        return await pin(m, w)

    async def setup(spec, action):
        """Set-up through the oracle (never judged): a toolkit action."""
        r = await o.q(cmd="find", spec=spec)
        if r.get("ok"):
            await o.q(cmd="do_action", h=r["h"], name=action)
            await asyncio.sleep(0.4)

    async def has(spec, st):
        r = await o.q(cmd="find", spec=spec)
        return bool(r.get("ok")) and st in r["read"].get("states", [])

    await asyncio.sleep(0.5)
    inc = W("Increment", "Button", {"role": "push button", "name": "Increment"})
    count = W("Count label", "Label", {"role": "label", "name_contains": "Count:"}, kit=False)
    delete = W("Delete (disabled)", "Button", {"role": "push button", "name": "Delete"})
    gift = W("Gift wrap", "CheckBox", {"role": "check box", "name": "Gift wrap"})
    locked = W("Locked (disabled)", "CheckBox", {"role": "check box", "name": "Locked"})
    small = W("Small", "RadioButton", {"role": "radio button", "name": "Small"})
    large = W("Large", "RadioButton", {"role": "radio button", "name": "Large"})
    bold = W("Bold", "ToggleButton", {"role": "toggle button", "name": "Bold"})
    name = W("Name", "TextInput", {"role": "text", "name": "Name"})
    code = W("Code (disabled)", "TextInput", {"role": "text", "name": "Code"})
    ident = W("ID (read-only)", "TextInput", {"role": "text", "name": "ID"})
    secret = W("PIN", "PasswordInput", {"role": "password text", "name": "PIN"})
    volume = W("Volume", "Slider", {"role": "slider", "name": "Volume"})
    balance = W("Balance (disabled)", "Slider", {"role": "slider", "name": "Balance"})
    qty = W("Quantity", "SpinButton", {"role": "spin button", "name": "Quantity"})
    items = W("list Items", "List", {"role": "list", "name": "Items"})
    frame = W("window", "Window", {"role": "frame", "name": "Swing Form"}, kit=False)

    def combo(key="combo box OS"):
        # Its accessible name is its selected item: a new Widget takes the kit's node anew.
        return W(key, "ComboBox", {"role": "combo box"})

    def list_item(n):
        return W(f"list item {n}", "ListItem",
                 {"role": "label", "name": n, "within": {"role": "list", "name": "Items"}}, kit_role="Label")

    def combo_item(n, closed):
        return W(f"combo item {n}" + (" (closed popup)" if closed else ""), "ListItem",
                 {"role": "label", "name": n, "within": {"role": "combo box"}}, kit_role="Label")

    def tree_item(n):
        return W(f"tree item {n}", "TreeItem", {"role": "label", "name": n, "within": {"role": "tree"}},
                 kit_role="Label")

    # -- Buttons, check boxes, radio and toggle buttons ------------------------------------------
    # The app's line, and the label it changes (recorded beside: pyatspi reads it fresh).
    await click(inc, says_prefix("count="), also={"count": count})
    await click(inc, says_prefix("count="), how="pointer", also={"count": count})
    await m.focus(await P(inc))
    await sc(inc, "screenshot", "screenshot", {"node": "REF"}, screen_shot_judge)
    kit_label = {}

    def finds_count(b, a, r):
        rec = (r.data or {}).get("record") or {}
        kit_label["label"] = rec.get("label", rec.get("value"))
        # A Label's text may come as its label or its value: either, as it reads now.
        s = r.ok and a["w"].get("name") in (rec.get("label"), rec.get("value"))
        return s, False
    c = await sc(count, "find", "find_node", {"label_contains": "Count:"}, finds_count,
                 "a label the app changed (the wrapper sends only visible-data-changed)")
    c["kit_label"] = kit_label.get("label")
    await click(delete, None, "disabled", "refuse")
    await click(delete, None, "disabled", "refuse", how="pointer")
    await m.focus(await P(delete), "disabled", "refuse")
    await click(gift, says_prefix("gift_wrap="), op="toggle")
    await click(gift, says_prefix("gift_wrap="), how="pointer")
    await sc(gift, "set_value", "set_value", flipped, says_flip("gift_wrap="), "to the other state")
    await click(locked, None, "disabled", "refuse", op="toggle")
    await click(locked, None, "disabled", "refuse", how="pointer")
    await click(large, "size=Large", op="select")
    if await has(small.spec, "checked"):
        await setup(large.spec, "click")
    await click(small, "size=Small", how="pointer")
    await click(bold, says_prefix("bold="), op="toggle")
    await click(bold, says_prefix("bold="), how="pointer")
    await sc(bold, "set_value", "set_value", flipped, says_flip("bold="), "to the other state")

    # -- The combo box: by value, its popup closed and open -------------------------------------
    os_box = combo()
    await sc(os_box, "set_value", "set_value", {"node": "REF", "value": "Windows"}, says("os=Windows"))
    await sc(os_box, "expand", "expand", {"node": "REF"}, state("expanded"),
             "its node taken before its selection (its name) changed")
    if await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")

    def untouched(b, a, r):
        """A refusal leaves the combo as it was: no app output, its popup as it was."""
        moved = ("expanded" in a["w"].get("states", [])) != ("expanded" in b["w"].get("states", []))
        return False, bool(out.since()) or moved
    await sc(combo("combo box OS (found again)"), "set_value", "set_value", {"node": "REF", "value": "Solaris"},
             untouched, "no such option", "refuse")
    if await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")
    await click(combo_item("macOS", True), None, "closed popup", "refuse", op="select")
    if await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")
    await sc(combo("combo box OS (found again)"), "expand", "expand", {"node": "REF"}, state("expanded"))
    if not await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")
    await click(combo_item("macOS", False), "os=macOS", "open popup", how="pointer")
    if not await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")
    await click(combo_item("Linux", False), "os=Linux", "open popup", op="select")
    if await has({"role": "combo box"}, "expanded"):
        await setup({"role": "combo box"}, "togglePopup")

    # -- Text: a field, a disabled one, a read-only one, a password ------------------------------
    await sc(name, "set_value", "set_value", {"node": "REF", "value": "Zoë"}, says("name=Zoë"))
    await sc(name, "type_text", "type_text", {"node": "REF", "text": " Lovelace"},
             says_if(lambda x: x.startswith("name=") and x.endswith(" Lovelace")))
    await m.focus(await P(name))
    await sc(name, "type_text", "type_text", {"text": "!"},
             says_if(lambda x: x.startswith("name=") and x.endswith("!")), "no node (the focused field)")
    await sc(code, "set_value", "set_value", {"node": "REF", "value": "nope"}, silent, "disabled", "refuse")
    await sc(code, "type_text", "type_text", {"node": "REF", "text": "nope"}, silent, "disabled", "refuse")
    await m.focus(await P(code), "disabled", "refuse")
    await sc(ident, "type_text", "type_text", {"node": "REF", "text": "nope"}, silent, "read-only", "refuse")
    await sc(ident, "set_value", "set_value", {"node": "REF", "value": "nope"}, silent, "read-only", "refuse")
    await sc(secret, "type_text", "type_text", {"node": "REF", "text": "2468"}, says("pin_len=4"))
    await sc(secret, "set_value", "set_value", {"node": "REF", "value": "secret"}, says("pin_len=6"))

    # -- Slider and spinner (Value writes are no-ops in the wrapper: the keys do it) --------------
    await sc(volume, "set_value", "set_value", {"node": "REF", "value": 77}, says("volume=77"))
    await sc(volume, "increment", "invoke_action", {"node": "REF", "action": "increment"}, says_step("volume=", 1))
    await sc(volume, "decrement", "invoke_action", {"node": "REF", "action": "decrement"}, says_step("volume=", -1))
    await m.focus(await P(volume))
    await sc(volume, "type_text", "inject_key", {"key": "arrowright"}, says_step("volume=", 1),
             "inject_key Right (focused)")
    await sc(balance, "set_value", "set_value", {"node": "REF", "value": 5}, silent, "disabled", "refuse")
    await sc(balance, "increment", "invoke_action", {"node": "REF", "action": "increment"}, silent, "disabled",
             "refuse")
    await sc(qty, "set_value", "set_value", {"node": "REF", "value": 5}, says("quantity=5"))
    await sc(qty, "increment", "invoke_action", {"node": "REF", "action": "increment"}, says_step("quantity=", 1))
    await sc(qty, "decrement", "invoke_action", {"node": "REF", "action": "decrement"}, says_step("quantity=", -1))

    # -- The list and the tree --------------------------------------------------------------------
    await click(list_item("C"), "list=C", op="select")
    await click(list_item("B"), "list=B", how="pointer")
    await sc(items, "set_value", "set_value", {"node": "REF", "value": "D"}, says("list=D"))
    fruits_spec = {"role": "label", "name": "Fruits", "within": {"role": "tree"}}
    await sc(W("tree item Fruits", "TreeItem", fruits_spec, kit_role="Label"), "expand", "expand", {"node": "REF"},
             says("expand=Fruits"))
    if not await has(fruits_spec, "expanded"):
        await setup(fruits_spec, "toggleexpand")
    await click(tree_item("Apple"), "tree=Apple", op="select")
    await click(tree_item("Banana"), "tree=Banana", how="pointer")
    # Expanded, the wrapper makes the row's objects anew: the node is taken again.
    await sc(W("tree item Fruits (expanded)", "TreeItem", fruits_spec, kit_role="Label"), "collapse", "collapse",
             {"node": "REF"}, says("collapse=Fruits"))
    if await has(fruits_spec, "expanded"):
        await setup(fruits_spec, "toggleexpand")
    await click(tree_item("Vegetables"), "tree=Vegetables", how="pointer")
    notes_pane = W("Notes (scroll pane)", "ScrollView", {"role": "scroll pane", "name": "Notes scroll"})
    notes = W("Notes (text area)", "TextInput", {"role": "text", "name": "Notes"})
    await sc(notes_pane, "scroll", "scroll", {"node": "REF", "dy": 3, "lines": True}, says_prefix("scroll="))
    await sc(notes, "scroll", "scroll", {"node": "REF", "dy": 3, "lines": True}, says_prefix("scroll="),
             "over the text")

    # -- The menu bar: File open (Save, Wrap lines, Export disabled), then closed ----------------
    file_menu = W("menu File", "Menu", {"role": "menu", "name": "File"})
    save = W("menu item Save", "MenuItem", {"role": "menu item", "name": "Save"})
    wrap = W("menu check item Wrap lines", "CheckBox", {"role": "check box", "name": "Wrap lines"})
    export = W("menu item Export (disabled)", "MenuItem", {"role": "menu item", "name": "Export"})

    async def menu_open(want):
        """Set-up: File's popup open (its toolkit action) or closed (Escape, as a person)."""
        for _ in range(3):
            if await has(save.spec, "showing") == want:
                return
            if want:
                await setup(file_menu.spec, "click")
            else:
                xdotool("key", "Escape")
                await asyncio.sleep(0.4)
        m.notes.append(f"the File menu could not be {'opened' if want else 'closed'} for the next cell")
    await sc(file_menu, "expand", "invoke_action", {"node": "REF", "action": "click"}, other_state("item", "showing"),
             also={"item": save})
    await menu_open(True)
    await click(save, "menu=Save", "open menu")
    await menu_open(True)
    await click(export, None, "open menu, disabled", "refuse")
    await menu_open(True)
    await click(wrap, says_prefix("wrap="), "open menu", how="pointer")
    await menu_open(False)
    await click(save, None, "closed menu", "refuse")
    await click(save, None, "closed menu", "refuse", how="pointer")
    await click(wrap, None, "closed menu", "refuse", op="toggle")
    await menu_open(False)

    # -- Tabs: the other page's widgets are hidden; switching by a click and by value ------------
    reset = W("Reset (other tab)", "Button", {"role": "push button", "name": "Reset"})
    advanced = W("Advanced (other tab)", "CheckBox", {"role": "check box", "name": "Advanced"})
    more = W("tab More", "Tab", {"role": "page tab", "name": "More"})
    controls = W("tab Controls", "Tab", {"role": "page tab", "name": "Controls"})
    tabs = W("tab list", "TabList", {"role": "page tab list", "name": "Tabs"})
    if (await o.must(cmd="find", spec=count.spec))["read"].get("name") == "Count: 0":
        await setup(inc.spec, "click")  # Reset must have something to reset
    await click(reset, None, "hidden tab", "refuse")
    await click(advanced, None, "hidden tab", "refuse", op="toggle")
    await click(more, "tab=More", op="select")
    if not await has(more.spec, "selected"):
        await click_tab(o, "More")
    if (await o.must(cmd="find", spec=count.spec))["read"].get("name") == "Count: 0":
        await setup(inc.spec, "click")
    await click(reset, "count=0", "its tab shown", also={"count": count})
    await click(advanced, says_prefix("advanced="), "its tab shown", op="toggle")
    await click(inc, None, "hidden tab", "refuse")
    await click(inc, None, "hidden tab", "refuse", how="pointer")
    await click(controls, "tab=Controls", how="pointer")
    if not await has(controls.spec, "selected"):
        await click_tab(o, "Controls")
    await sc(tabs, "set_value", "set_value", {"node": "REF", "value": "More"}, says("tab=More"))
    await sc(tabs, "set_value", "set_value", {"node": "REF", "value": "Controls"}, says("tab=Controls"))

    # -- Reading the window: screenshot, find_node, snapshot_tree ---------------------------------
    size = x_window_size("Swing Form")
    await m.screenshot(frame, window=True, size=size)

    def finds_window(b, a, r):
        rec = (r.data or {}).get("record") or {}
        bounds = kit_bounds(rec)
        s = r.ok and r.data.get("count") == 1 and bool(size) and bounds is not None and close(bounds[2:], list(size))
        return s, False
    await sc(frame, "find", "find_node", {"role": "Window", "label": "Swing Form"}, finds_window,
             "its size, the X window's")

    def tree_names_count(b, a, r):
        text = (r.data or {}).get("text") or ""
        s = r.ok and r.ms <= 2000 and f'"{a["count"].get("name")}"' in text
        return s, False
    await sc(frame, "snapshot", "snapshot_tree", {}, tree_names_count, "names the count label as it reads now",
             also={"count": count})


async def click_tab(o, title):
    """Set-up: a person's click (XTEST) on the tab `title` (page tabs have no action in the
    wrapper)."""
    r = await o.q(cmd="find", spec={"role": "page tab", "name": title})
    if r.get("ok") and r["read"].get("screen"):
        x, y, wd, ht = r["read"]["screen"]
        xdotool("mousemove", str(x + wd // 2), str(y + ht // 2), "click", "1")
        await asyncio.sleep(0.5)


# ------------------------------------------------------------------------------------------

APPS = {
    "kcalc": {"display": 151, "argv": lambda _e: ["kcalc"], "cells": kcalc_cells, "package": "kcalc",
              "settle": 1.0},
    "swing": {"display": 152, "argv": swing_argv, "cells": swing_cells, "by_name": "Swing Form",
              "package": "openjdk-17-jdk-headless libatk-wrapper-java libatk-wrapper-java-jni", "settle": 1.0},
}
