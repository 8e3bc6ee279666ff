"""The conformance matrix's parts: the private session, the oracle, the kit over MCP, widgets
that both readers see, and cells (see atspi_matrix.py)."""

import asyncio
import base64
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The session the apps run in: Xvfb, or on Wayland a headless GNOME compositor (mutter) or a
# headless sway (wlroots).
SESSION = os.environ.get("AUTOMATION_MATRIX_SESSION", "x11")
WAYLAND = SESSION in ("wayland", "sway")
SYSTEM_PYTHON = "/usr/bin/python3"


class Missing(Exception):
    """Something the run needs is not installed; the message names the Debian package."""


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# The private session: Xvfb, the accessibility bus, the app
# ------------------------------------------------------------------------------------------

def bus_launcher():
    for p in ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher"):
        if os.path.exists(p):
            return p
    raise Missing("at-spi-bus-launcher (Debian: at-spi2-core)")


class Desktop:
    """Xvfb and the accessibility bus on the session bus dbus-run-session gave us."""

    def __init__(self, first_display):
        self.procs = []
        self.first_display = first_display
        self.tmp = tempfile.mkdtemp(prefix="atspi-matrix-")

    def start(self):
        if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            raise Missing("a session bus: run under dbus-run-session (Debian: dbus)")
        if SESSION == "sway":
            return self.start_sway()
        if WAYLAND:
            return self.start_wayland()
        if not shutil.which("Xvfb"):
            raise Missing("Xvfb (Debian: xvfb)")
        n = self.first_display
        while os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(f"/tmp/.X11-unix/X{n}"):
            n += 1
        xvfb = subprocess.Popen(
            ["Xvfb", f":{n}", "-screen", "0", "1600x1200x24", "-noreset", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(xvfb)
        deadline = time.time() + 10
        while not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            if xvfb.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"Xvfb :{n} did not start")
            time.sleep(0.05)
        os.environ["DISPLAY"] = f":{n}"
        # The launcher's socket goes under XDG_RUNTIME_DIR, named by display number: a
        # directory of this session's, so no other launcher on :n can replace or remove it.
        runtime = os.path.join(self.tmp, "runtime")
        os.mkdir(runtime, 0o700)
        os.environ["XDG_RUNTIME_DIR"] = runtime
        # A call to org.a11y.Bus before our launcher owns the name activates another one, with
        # the bus daemon's environment (the caller's display and runtime dir): it would take
        # the caller's accessibility bus socket, and remove it on exit.
        subprocess.run(["dbus-update-activation-environment", f"DISPLAY=:{n}", f"XDG_RUNTIME_DIR={runtime}"],
                       check=True)
        self.start_accessibility_bus()
        os.environ.update({
            "GTK_A11Y": "atspi", "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "0",
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_ACCESSIBILITY": "1",
            "QT_QPA_PLATFORM": "xcb", "GSETTINGS_BACKEND": "memory", "WINIT_UNIX_BACKEND": "x11",
            "XDG_RUNTIME_DIR": runtime, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": os.path.join(self.tmp, "home"),
        })
        os.makedirs(os.environ["HOME"], exist_ok=True)
        return n

    def start_wayland(self):
        """A headless GNOME compositor (mutter) with PipeWire and WirePlumber in place of Xvfb,
        on the same session bus: the apps are Wayland clients, the kit drives them through
        Mutter's remote-desktop and screen-cast APIs (what `--virtual-display=wayland` starts)."""
        for tool, package in (("mutter", "mutter"), ("pipewire", "pipewire"),
                              ("wireplumber", "wireplumber")):
            if not shutil.which(tool):
                raise Missing(f"{tool} (Debian: {package})")
        runtime = os.path.join(self.tmp, "runtime")
        os.mkdir(runtime, 0o700)
        # Mutter's own settings: no key repeat (a loaded machine's late key release repeats it).
        config = os.path.join(self.tmp, "config")
        os.makedirs(os.path.join(config, "glib-2.0", "settings"))
        with open(os.path.join(config, "glib-2.0", "settings", "keyfile"), "w") as f:
            f.write("[org/gnome/desktop/peripherals/keyboard]\nrepeat=false\n")
        os.environ.pop("DISPLAY", None)
        os.environ["XDG_RUNTIME_DIR"] = runtime
        env = dict(os.environ, GSETTINGS_BACKEND="keyfile", XDG_CONFIG_HOME=config)
        env.pop("WAYLAND_DISPLAY", None)

        def daemon(argv):
            self.procs.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL, start_new_session=True))

        def wait_for(what, ready, seconds=15):
            deadline = time.time() + seconds
            while not ready():
                if time.time() > deadline:
                    raise RuntimeError(f"{what} did not come up")
                time.sleep(0.05)

        daemon(["pipewire"])
        wait_for("pipewire", lambda: os.path.exists(os.path.join(runtime, "pipewire-0")))
        daemon(["wireplumber"])
        daemon(["mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1600x1000",
                "--wayland-display", "wayland-0"])
        wait_for("mutter", lambda: os.path.exists(os.path.join(runtime, "wayland-0")))

        def has_owner(name):
            got = subprocess.run(
                ["dbus-send", "--session", "--print-reply=literal", "--dest=org.freedesktop.DBus",
                 "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", f"string:{name}"],
                capture_output=True, text=True)
            return "true" in got.stdout
        wait_for("mutter's remote-desktop API",
                 lambda: has_owner("org.gnome.Mutter.RemoteDesktop")
                 and has_owner("org.gnome.Mutter.ScreenCast"))
        subprocess.run(["dbus-update-activation-environment", "WAYLAND_DISPLAY=wayland-0",
                        f"XDG_RUNTIME_DIR={runtime}"], check=True)
        self.start_accessibility_bus()
        return self.wayland_apps_env(runtime, "wayland-0")

    def start_sway(self):
        """A headless sway (wlroots) in place of Xvfb, on the same session bus: the apps are
        Wayland clients, the kit drives them through wlroots' virtual keyboard and pointer and
        screencopy, and finds their windows through sway's IPC (what
        `VirtualDisplay::start_sway` starts). sway refuses to run as root: as root it runs as
        nobody, in a runtime directory of nobody's."""
        if not shutil.which("sway"):
            raise Missing("sway (Debian: sway)")
        runtime = os.path.join(self.tmp, "runtime")
        os.mkdir(runtime, 0o700)
        config = os.path.join(self.tmp, "sway-config")
        with open(config, "w") as f:
            f.write("xwayland disable\ndefault_border none\ndefault_floating_border none\n"
                    "output * resolution 1600x1000 position 0 0\n"
                    "input type:keyboard repeat_rate 0\n")
        as_nobody = {}
        if os.getuid() == 0:
            os.chown(runtime, 65534, 65534)
            os.chmod(self.tmp, 0o711)
            os.chmod(config, 0o644)
            as_nobody = {"user": 65534, "group": 65534, "extra_groups": []}
        os.environ.pop("DISPLAY", None)
        os.environ["XDG_RUNTIME_DIR"] = runtime
        env = dict(os.environ, HOME=runtime, WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1",
                   WLR_RENDERER="pixman")
        for k in ("WAYLAND_DISPLAY", "SWAYSOCK"):
            env.pop(k, None)
        self.procs.append(subprocess.Popen(["sway", "--config", config], env=env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True, **as_nobody))

        def found(prefix, suffix="", not_suffix=None):
            for name in sorted(os.listdir(runtime)):
                if name.startswith(prefix) and name.endswith(suffix) and not (
                        not_suffix and name.endswith(not_suffix)):
                    return name
            return None
        deadline = time.time() + 15
        while not (found("wayland-", not_suffix=".lock") and found("sway-ipc.", ".sock")):
            if self.procs[-1].poll() is not None or time.time() > deadline:
                raise RuntimeError("sway did not come up")
            time.sleep(0.05)
        display = found("wayland-", not_suffix=".lock")
        swaysock = os.path.join(runtime, found("sway-ipc.", ".sock"))
        subprocess.run(["dbus-update-activation-environment", f"WAYLAND_DISPLAY={display}",
                        f"XDG_RUNTIME_DIR={runtime}"], check=True)
        self.start_accessibility_bus()
        return self.wayland_apps_env(runtime, display, SWAYSOCK=swaysock)

    def wayland_apps_env(self, runtime, display, **more):
        """What the apps started from here get on a Wayland session: each toolkit's Wayland
        backend, accessibility on, the compositor's socket (and `more`)."""
        os.environ.update({
            "GTK_A11Y": "atspi", "GSK_RENDERER": "cairo", "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "0",
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_ACCESSIBILITY": "1",
            "QT_QPA_PLATFORM": "wayland", "QT_WAYLAND_DISABLE_WINDOWDECORATION": "1",
            "GSETTINGS_BACKEND": "memory",
            "WINIT_UNIX_BACKEND": "wayland", "WAYLAND_DISPLAY": display,
            "XDG_SESSION_TYPE": "wayland",
            "XDG_RUNTIME_DIR": runtime, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": os.path.join(self.tmp, "home"),
            **more,
        })
        os.makedirs(os.environ["HOME"], exist_ok=True)
        return 0

    def start_accessibility_bus(self):
        """The accessibility bus on our session bus, up and switched on."""
        self.procs.append(subprocess.Popen(
            [bus_launcher(), "--launch-immediately", "--a11y=1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        # The launcher answers GetAddress before its bus daemon takes connections: wait for
        # the bus itself to answer (a reader that connects too early aborts in libatspi).
        deadline = time.time() + 15
        while True:
            got = subprocess.run(
                ["dbus-send", "--session", "--print-reply=literal", "--dest=org.a11y.Bus",
                 "/org/a11y/bus", "org.a11y.Bus.GetAddress"], capture_output=True, text=True)
            address = got.stdout.strip()
            if got.returncode == 0 and address and subprocess.run(
                    ["dbus-send", f"--bus={address}", "--print-reply", "--dest=org.freedesktop.DBus",
                     "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"],
                    capture_output=True).returncode == 0:
                break
            if time.time() > deadline:
                raise RuntimeError("the accessibility bus did not come up")
            time.sleep(0.1)
        for prop in ("IsEnabled", "ScreenReaderEnabled"):
            subprocess.run(
                ["dbus-send", "--session", "--dest=org.a11y.Bus", "/org/a11y/bus",
                 "org.freedesktop.DBus.Properties.Set", "string:org.a11y.Status",
                 f"string:{prop}", "variant:boolean:true"], check=True)

    def spawn(self, argv, capture=False):
        exe = shutil.which(argv[0]) or (argv[0] if os.path.exists(argv[0]) else None)
        if exe is None:
            raise Missing(f"{argv[0]} is not installed")
        p = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, text=capture)
        self.procs.append(p)
        return p

    def stop(self):
        for p in reversed(self.procs):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)


class Oracle:
    """pyatspi in the system python, spoken to in JSON lines."""

    def __init__(self):
        if not os.path.exists(SYSTEM_PYTHON):
            raise Missing(f"{SYSTEM_PYTHON} (Debian: python3)")
        self.p = subprocess.Popen(
            [SYSTEM_PYTHON, os.path.join(HERE, "atspi_oracle.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        self.spent = {}
        line = self.p.stdout.readline()
        if not line:  # libatspi aborts the process when it cannot reach the bus
            raise RuntimeError(f"the oracle exited at start ({self.p.wait()})")
        first = json.loads(line)
        if not first.get("ok"):
            raise Missing(f"pyatspi for {SYSTEM_PYTHON}: {first.get('error')} (Debian: python3-pyatspi)")

    def q_sync(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the oracle died")
        return json.loads(line)

    async def q(self, **req):
        t = time.monotonic()
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.q_sync, **req), 60)
        finally:
            k = req.get("cmd")
            self.spent[k] = self.spent.get(k, 0) + time.monotonic() - t

    async def must(self, **req):
        r = await self.q(**req)
        if not r.get("ok"):
            raise RuntimeError(f"oracle {req}: {r.get('error')}")
        return r

    async def read(self, h):
        r = await self.q(cmd="read", h=h)
        return r.get("read") if r.get("ok") else {"gone": True}

    def stop(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


# ------------------------------------------------------------------------------------------
# The kit over MCP
# ------------------------------------------------------------------------------------------

def g(obj, snake, camel):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h = struct.unpack(">II", data[16:24])
    return [w, h]


class Reply:
    def __init__(self, ok, data, ms, images=(), code=None):
        self.ok = ok
        self.data = data or {}
        self.ms = ms
        self.images = list(images)
        self.code = code if code else (None if ok else (self.data.get("code") or "ERROR"))

    def summary(self):
        d = dict(self.data)
        if "record" in d:
            d.pop("record")
        s = json.dumps(d, ensure_ascii=False)
        return s if len(s) <= 400 else s[:400] + "…"


class Kit:
    def __init__(self, session, timeout=20):
        self.s = session
        self.timeout = timeout
        self.hung = False
        self.spent = {}

    async def call(self, tool, args, timeout=None):
        timeout = timeout or self.timeout
        if self.hung:
            return Reply(False, {"code": "CLIENT_TIMEOUT", "message": "an earlier call hung"}, 0)
        t = time.monotonic()
        try:
            r = await asyncio.wait_for(self.s.call_tool(tool, args), timeout)
        except asyncio.TimeoutError:
            self.hung = True
            return Reply(False, {"code": "CLIENT_TIMEOUT", "message": f"no answer in {timeout} s"},
                         round((time.monotonic() - t) * 1000))
        ms = round((time.monotonic() - t) * 1000)
        self.spent[tool] = self.spent.get(tool, 0) + ms / 1000
        data = g(r, "structured_content", "structuredContent") or {}
        if not data:
            text = "".join(getattr(b, "text", "") or "" for b in r.content)
            try:
                data = json.loads(text)
            except ValueError:
                data = {"text": text[:2000]}
        images = [png_size(base64.b64decode(b.data)) for b in r.content
                  if getattr(b, "type", "") == "image"]
        return Reply(not g(r, "is_error", "isError"), data, ms, images)


# Toolkit role name (pyatspi) → the kit's role (docs/atspi.md's table).
KIT_ROLE = {
    "check box": "CheckBox", "push button": "Button", "toggle button": "Button",
    "radio button": "RadioButton", "slider": "Slider", "dial": "Slider", "spin button": "SpinButton",
    "text": "TextInput", "entry": "TextInput", "password text": "PasswordInput",
    "combo box": "ComboBox", "menu item": "MenuItem", "menu": "Menu", "page tab": "Tab",
    "list item": "ListItem", "table cell": "Cell", "scroll bar": "ScrollBar",
    "frame": "Window", "dialog": "Dialog", "label": "Label", "scroll pane": "ScrollView",
    "link": "Link", "list box": "ListBox", "list": "List", "tree table": "TreeGrid",
    "layered pane": "GenericContainer", "filler": "GenericContainer", "panel": "GenericContainer",
    "tool bar": "Toolbar", "page tab list": "TabList", "table": "Table", "tree": "Tree",
    "window": "Window", "paragraph": "Paragraph", "document spreadsheet": "GenericContainer",
}


def close(a, b, tol=2):
    return a is not None and b is not None and all(abs(x - y) <= tol for x, y in zip(a, b))


def kit_bounds(rec):
    b = (rec or {}).get("bounds")
    if not b:
        return None
    return [round(b["x"]), round(b["y"]), round(b["width"]), round(b["height"])]


def x_window_size(title):
    """The X server's size of the top-level window called `title` (xwininfo, x11-utils)."""
    out = subprocess.run(["xwininfo", "-name", title], capture_output=True, text=True).stdout
    dims = {}
    for line in out.splitlines():
        key, _, val = line.strip().partition(":")
        if key in ("Width", "Height"):
            dims[key] = int(val)
    return (dims["Width"], dims["Height"]) if len(dims) == 2 else None


def zero(ext):
    return ext is None or ext[2] <= 1 or ext[3] <= 1


class Unresolved(Exception):
    """A widget one of the readers cannot find: the cell is recorded as unjudged."""


class Widget:
    """One widget as both readers see it: the oracle's handle and the kit's reference."""

    def __init__(self, key, kind, spec, label=None, hidden_index=0, kit_role=None, kit=True,
                 kit_within=None, kit_at=None):
        self.kit = kit  # False: only the oracle reads it (a label that shows an effect)
        # A widget the kit's node is looked up under (a snapshot of its subtree): for hidden
        # nodes with no bounds to match, whose name is not unique (a closed combo's items).
        self.kit_within = kit_within
        # "parent": the kit shows the node where its parent is (a combo box drawn by its
        # siblings, LibreOffice's): its bounds are matched against the parent's.
        self.kit_at = kit_at
        self.key = key
        self.kind = kind
        self.spec = spec
        self.label = label
        self.hidden_index = hidden_index
        self.kit_role = kit_role or KIT_ROLE.get(spec.get("role"), "GenericContainer")
        self.h = None
        self.ref = None
        self.first = None


# ------------------------------------------------------------------------------------------
# Cells
# ------------------------------------------------------------------------------------------

def brief(r):
    """The part of an oracle read a cell keeps."""
    if r is None:
        return None
    if r.get("gone"):
        return {"gone": True}
    keep = {k: r[k] for k in ("name", "value", "extents") if r.get(k) is not None}
    interesting = {"checked", "indeterminate", "pressed", "selected", "focused", "showing",
                   "enabled", "sensitive", "expanded"}
    keep["states"] = [s for s in r.get("states", []) if s in interesting]
    if r.get("text") is not None:
        t = r["text"]
        keep["text"] = t if len(t) <= 80 else t[:80] + "…"
    return keep


class Matrix:
    def __init__(self, app, oracle, kit, window):
        self.app = app
        self.o = oracle
        self.kit = kit
        self.window = window  # the main window's oracle read
        self.cells = []
        self.notes = []
        self.aborted = False

    # -- resolving widgets ---------------------------------------------------------------

    async def resolve(self, w, kit=True):
        if w.ref is not None or (not kit and w.h is not None):
            return w
        if w.h is None:
            r = await self.o.q(cmd="find", spec=w.spec)
            if not r.get("ok"):
                raise Unresolved(f"the oracle finds no {w.key} ({w.spec}): {r.get('error')}")
            w.h = r["h"]
            w.first = r["read"]
        if kit and w.kit:
            # A popover still sliding in (GNOME Text Editor's menus) moves between the
            # oracle's read and the kit's: the two must agree at one moment, so a miss is read
            # again, both sides, once the motion has had time to end.
            for attempt in range(3):
                try:
                    w.ref = await self.kit_ref(w, await self.o.read(w.h))
                    break
                except Unresolved:
                    if attempt == 2:
                        raise
                    await asyncio.sleep(0.4)
        return w

    async def kit_ref(self, w, read):
        sel = {"role": w.kit_role}
        if w.label is not None:
            sel["label"] = w.label
        elif read.get("name") and w.kit_role not in ("Label",):
            sel["label"] = read["name"]
        cands = []
        if w.kit_within is not None:
            outer = await self.resolve(w.kit_within)
            snap = await self.kit.call("snapshot_tree", {"root": outer.ref, "format": "json",
                                                         "max_nodes": 2000})
            for n in snap.data.get("nodes", []) if snap.ok else []:
                if n.get("role") == sel["role"] and n.get("label") == sel.get("label", n.get("label")):
                    cands.append((n["id"], kit_bounds(n)))
        else:
            first = await self.kit.call("find_node", sel)
            if first.code == "CLIENT_TIMEOUT":
                raise Unresolved(f"find_node {sel} got no answer: {first.data.get('message')}")
            count = (first.data or {}).get("count", 0) if first.ok else 0
            for i in range(min(count, 150)):
                rr = first if (i == 0 and count == 1) else await self.kit.call("find_node", dict(sel, nth=i))
                if rr.ok and rr.data.get("node"):
                    cands.append((rr.data["node"], kit_bounds(rr.data.get("record"))))
        ext = read.get("extents")
        if w.kit_at == "parent":
            # On screen, against the main window's place (the kit's bounds are relative to it).
            parent = (await self.o.q(cmd="parent", h=w.h)).get("read") or {}
            corner = ((self.window or {}).get("screen") or [0, 0])[:2]
            ext = [a - b for a, b in zip(parent.get("screen") or [0, 0], corner)] + (parent.get("screen") or [0, 0, 0, 0])[2:]
        if w.kit_within is not None and len(cands) == 1:
            return cands[0][0]  # the one node of its kind under its container, bounds or not
        if not zero(ext):
            # The kit's bounds are relative to the app's main window; pyatspi's are screen
            # coordinates (the same where the window sits at the screen's origin).
            origin = ((self.window or {}).get("extents") or [0, 0])[:2]
            rel = [ext[0] - origin[0], ext[1] - origin[1], ext[2], ext[3]]
            for ref, b in cands:
                if close(b, ext) or close(b, rel):
                    return ref
            # GTK3 gives a popup's items extents in the popup's own coordinates, screen or
            # not: there, the one candidate that is shown is the one on screen. On Wayland the
            # popup's surface holds its shadow too (6 px).
            shown = [ref for ref, b in cands if not zero(b)]
            corner = 16 if WAYLAND else 5
            if len(shown) == 1 and ext[0] < corner and ext[1] < 200:
                return shown[0]
            raise Unresolved(f"the kit has no {sel} at {ext}: {cands}")
        hidden = [ref for ref, b in cands if zero(b)]
        if len(hidden) > w.hidden_index:
            return hidden[w.hidden_index]
        raise Unresolved(f"the kit has no hidden {sel} #{w.hidden_index}: {cands}")

    # -- one cell -------------------------------------------------------------------------

    async def cell(self, w, op, tool, args, judge, variant="", expect="effect", also=None,
                   window=2.0, before_hook=None):
        """Send `tool` with `args` (the string "REF" in args is the widget's reference), then
        judge. `judge(before, after)` → (holds, changed): whether the op's effect is there, and
        whether it arrived during this call. `also`: other widgets whose reads the judge sees."""
        others = {}
        try:
            await self.resolve(w)
            for k, ow in (also or {}).items():
                others[k] = (await self.resolve(ow, kit=False)).h if isinstance(ow, Widget) else ow
        except Unresolved as e:
            c = {"app": self.app, "widget": w.kind, "key": w.key, "op": op, "variant": variant,
                 "expect": expect, "call": {"tool": tool, "args": args}, "verdict": "unjudged",
                 "note": str(e)}
            self.cells.append(c)
            log(f"  {w.kind:10} {op:14} {variant:10} UNJUDGED: {e}")
            return c
        handles = dict(others, w=w.h)
        if before_hook:
            await before_hook()
        before = {k: await self.o.read(h) for k, h in handles.items()}
        if callable(args):  # arguments that depend on what the widget holds now
            args = args(before)
        args = json.loads(json.dumps(args).replace('"REF"', json.dumps(w.ref)))
        reply = await self.kit.call(tool, args)
        after = None
        holds = changed = False
        # An ok that promises an effect may see it land a little later; anything else is
        # watched for a second, long enough for GTK3's delayed clicks to show.
        waiting = window if (reply.ok and expect == "effect") else min(window, 0.8)
        deadline = time.monotonic() + waiting
        while True:
            after = {k: await self.o.read(h) for k, h in handles.items()}
            try:
                holds, changed = judge(before, after, reply)
            except (KeyError, TypeError, AttributeError):  # a field the read lacks: no effect
                holds, changed = False, False
            if reply.ok and expect == "effect" and holds:
                break
            if changed and (not reply.ok or expect == "refuse"):
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        if reply.code == "CLIENT_TIMEOUT":
            verdict = "NO_ANSWER"
        elif not reply.ok:
            # A refusal is truthful only where a person could not do it either (the cell
            # expects a refusal: disabled, hidden, gone); refusing what a person does
            # (the cell expects the effect) is its own failure.
            if changed:
                verdict = "LIE_ERR"
            elif expect == "effect":
                verdict = "PERSON_COULD"
            else:
                verdict = "refused"
        elif expect == "refuse":
            verdict = "ACTED" if changed else "LIE_OK"
        else:
            verdict = "effect" if holds else "LIE_OK"
        c = {
            "app": self.app, "widget": w.kind, "key": w.key, "op": op, "variant": variant,
            "expect": expect, "call": {"tool": tool, "args": args},
            "reply": {"ok": reply.ok, "code": reply.code, "ms": reply.ms, "data": reply.summary(),
                      "images": reply.images},
            "before": {k: brief(v) for k, v in before.items()},
            "after": {k: brief(v) for k, v in after.items()},
            "verdict": verdict,
        }
        self.cells.append(c)
        mark = "" if verdict in ("effect", "refused") else "   <<<<<"
        log(f"  {w.kind:10} {op:14} {variant:10} {reply.code or 'ok':18} {reply.ms:5} ms  {verdict}{mark}")
        return c

    # -- the op library ---------------------------------------------------------------------

    async def toggle(self, w, variant="", expect="effect", how="action", states=("checked",)):
        def judge(b, a, _r):
            keyset = lambda r: tuple(s in r.get("states", []) for s in states + ("indeterminate",))
            ch = keyset(a["w"]) != keyset(b["w"])
            return ch, ch
        if how == "action":
            return await self.cell(w, "toggle", "invoke_action", {"node": "REF", "action": "click"},
                                   judge, variant, expect)
        return await self.cell(w, "pointer", "inject_pointer", {"node": "REF"}, judge, variant, expect)

    async def click(self, w, judge, variant="", expect="effect", also=None, how="action", op=None):
        if how == "action":
            return await self.cell(w, op or "click", "invoke_action", {"node": "REF", "action": "click"},
                                   judge, variant, expect, also)
        # A click through the pointer is the `pointer` column, whatever it is meant to do.
        return await self.cell(w, "pointer", "inject_pointer", {"node": "REF"}, judge, variant,
                               expect, also)

    async def focus(self, w, variant="", expect="effect"):
        def judge(b, a, _r):
            f = "focused" in a["w"].get("states", [])
            return f, f and "focused" not in b["w"].get("states", [])
        return await self.cell(w, "focus", "focus_node", {"node": "REF"}, judge, variant, expect)

    async def set_number(self, w, value, variant="", expect="effect", tol=None):
        def judge(b, a, _r):
            t = tol if tol is not None else max(1e-6, 0.01 * abs((a["w"].get("max") or 1) - (a["w"].get("min") or 0)))
            v = a["w"].get("value")
            holds = v is not None and abs(v - value) <= t
            return holds, holds and abs((b["w"].get("value") or 0) - value) > t
        return await self.cell(w, "set_value", "set_value", {"node": "REF", "value": value}, judge,
                               variant, expect)

    async def step(self, w, action, variant="", expect="effect"):
        sign = 1 if action == "increment" else -1
        def judge(b, a, _r):
            d = (a["w"].get("value") or 0) - (b["w"].get("value") or 0)
            return d * sign > 0, d * sign > 0
        return await self.cell(w, action, "invoke_action", {"node": "REF", "action": action}, judge,
                               variant, expect)

    async def set_text(self, w, text, variant="", expect="effect", node=None, field="text"):
        """`node`: a selector to send instead of the reference (a function of the reads)."""
        def judge(b, a, _r):
            holds = (a["w"].get(field) or "") == text
            return holds, holds and (b["w"].get(field) or "") != text
        args = {"node": "REF", "value": text}
        if node is not None:
            args = lambda before: {"node": node(before), "value": text}  # noqa: E731
        return await self.cell(w, "set_value", "set_value", args, judge, variant, expect)

    async def type_text(self, w, text, variant="", expect="effect", field="text"):
        def judge(b, a, _r):
            holds = text in (a["w"].get(field) or "")
            return holds, holds and text not in (b["w"].get(field) or "")
        return await self.cell(w, "type_text", "type_text", {"node": "REF", "text": text}, judge,
                               variant, expect)

    async def expand(self, w, op="expand", variant="", expect="effect"):
        want = op == "expand"
        if variant == "already":  # only when it is: an earlier cell may have left it otherwise
            await self.resolve(w)
            if ("expanded" in (await self.o.read(w.h)).get("states", [])) != want:
                variant = ""
        def judge(b, a, _r):
            e = ("expanded" in a["w"].get("states", [])) == want
            return e, e and ("expanded" in b["w"].get("states", [])) != want
        return await self.cell(w, op, op, {"node": "REF"}, judge, variant, expect)

    async def scroll(self, w, bar, dy=3, variant="", expect="effect"):
        def judge(b, a, _r):
            d = (a["bar"].get("value") or 0) - (b["bar"].get("value") or 0)
            return d * dy > 0, d * dy > 0
        return await self.cell(w, "scroll", "scroll", {"node": "REF", "dy": dy, "lines": True}, judge,
                               variant, expect, also={"bar": bar})

    async def screenshot(self, w, variant="", expect="effect", window=False, size=None):
        """`size`: the window's size from the X server, for toolkits whose frame has no
        extents (AccessKit reports none)."""
        def judge(b, a, r):
            ext = a["w"].get("extents") if size is None else [0, 0, size[0], size[1]]
            if not r.images or zero(ext):
                return False, False
            if not window:
                return close(r.images[0], ext[2:], 2), False
            # A window's X geometry may add client-side decorations (GTK4's shadow margins)
            # around the accessible frame: the image holds the frame, and not much more.
            return all(e - 2 <= i <= e + 100 for i, e in zip(r.images[0], ext[2:])), False
        args = {} if window else {"node": "REF"}
        return await self.cell(w, "screenshot", "screenshot", args, judge, variant, expect, window=0.3)

    async def setup_action(self, w, name):
        """Set-up through the oracle (never judged): a toolkit action on a widget."""
        await self.resolve(w, kit=False)
        await self.o.q(cmd="do_action", h=w.h, name=name)
        await asyncio.sleep(0.5)

    # -- output -----------------------------------------------------------------------------

    def result(self):
        lies = [c for c in self.cells if c["verdict"] not in ("effect", "refused")]
        return {"app": self.app, "cells": self.cells, "lies": len(lies), "notes": self.notes,
                "aborted": self.aborted}


def state(name):
    """A judge: the widget gained state `name`."""
    def judge(b, a, _r):
        s = name in a["w"].get("states", [])
        return s, s and name not in b["w"].get("states", [])
    return judge


def other_state(key, name, present=True):
    """A judge: the other widget `key` has (or lost) state `name`."""
    def judge(b, a, _r):
        s = (name in a[key].get("states", [])) == present
        return s, s and (name in b[key].get("states", [])) != present
    return judge


def other_field(key, field, pred):
    """A judge: `pred` holds of the other widget's `field` now and did not before."""
    def judge(b, a, _r):
        s = bool(pred(a[key].get(field)))
        return s, s and not pred(b[key].get(field))
    return judge


