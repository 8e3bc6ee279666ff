"""Shared parts of the WebDriver client checks (webdriver_selenium.py, webdriver_appium.py,
webdriver_grid.py): the capabilities, the independent reader (pyatspi, in the system python,
through atspi_oracle.py on the session bus this process shares with the app), the flows every
client runs (a check box, a slider, "Zoë" typed into an entry, the Qt calculator's 6 × 7), and
a small check recorder that prints what failed as JSON and the measured facts as one JSON line.

The flows take the client's own locator names (`loc`: Selenium's By or Appium's AppiumBy), so
each client finds elements the way its users would.

Environment:
  AUTOMATION_WD_TRACE=1   log every WebDriver request and response (the client's own HTTP
                          log) on stderr, to name a failing request exactly.
"""

import json
import logging
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"
GTK3_FACTORY = "gtk3-widget-factory"
QT_CALCULATOR = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator"
ZOE = "Zo\u00eb"
TIMES = "\u00d7"

# In gtk3-widget-factory's first page: the enabled, unchecked "checkbutton" (three enabled and
# three disabled ones share the name), the first enabled slider, the first enabled empty entry.
XP_CHECKBOX = "//CheckBox[@name='checkbutton'][@enabled='true'][@checked='false']"
XP_SLIDER = "(//Slider[@enabled='true'])[1]"
XP_ENTRY = "(//TextInput[@enabled='true'][not(@value) or @value=''])[1]"


def caps(app, virtual_display=True, **extra):
    """The capabilities of a session on `app` (a shell command line): by default on a private
    display and buses of its own (the oracle reads it there: `Oracle(pid)`); `virtual_display`
    False runs it on this process's own display and session bus."""
    c = {"platformName": "linux", "appium:automationName": "automation", "appium:app": app}
    if not virtual_display:
        c["automation:virtualDisplay"] = False
    c.update(extra)
    return c


def trace_http():
    if os.environ.get("AUTOMATION_WD_TRACE") == "1":
        logging.basicConfig(stream=sys.stderr, level=logging.DEBUG,
                            format="%(asctime)s %(name)s %(message)s")
        for name in ("selenium.webdriver.remote.remote_connection", "appium"):
            logging.getLogger(name).setLevel(logging.DEBUG)


# ------------------------------------------------------------------------------------------
# Checks and facts
# ------------------------------------------------------------------------------------------

class Checks:
    """Records each check (name → held) and measured facts; a failed check prints one JSON
    line on stderr with its details at once. `section` runs one flow, turning an exception
    into a failure so the next flow still runs. `finish` prints the facts as one JSON line on
    stdout and answers the exit code (0 only when every check held and no section raised)."""

    def __init__(self, script):
        self.facts = {"script": script}
        self.checks = {}
        self.failures = []

    def fact(self, key, value):
        self.facts[key] = value
        return value

    def check(self, key, cond, **detail):
        held = bool(cond)
        self.checks[key] = held
        if not held:
            rec = {**detail, "failed": key}
            print(json.dumps(rec, default=repr, ensure_ascii=False), file=sys.stderr, flush=True)
            self.failures.append(rec)
        return held

    def section(self, name):
        return _Section(self, name)

    def finish(self):
        ok = not self.failures and bool(self.checks)
        out = dict(self.facts, ok=ok, checks=self.checks,
                   failed=[f.get("failed") for f in self.failures])
        print(json.dumps(out, default=repr, ensure_ascii=False), flush=True)
        return 0 if ok else 1


class _Section:
    def __init__(self, checks, name):
        self.c = checks
        self.name = name
        self.t = 0.0

    def __enter__(self):
        self.t = time.monotonic()
        return self

    def __exit__(self, typ, exc, tb):
        self.c.facts.setdefault("section_ms", {})[self.name] = round((time.monotonic() - self.t) * 1000)
        if exc is not None:
            self.c.checks[f"{self.name}: ran"] = False
            rec = {"failed": f"{self.name}: ran", "error": f"{typ.__name__}: {exc}",
                   "at": traceback.format_exception(typ, exc, tb)[-3:]}
            print(json.dumps(rec, default=repr, ensure_ascii=False), file=sys.stderr, flush=True)
            self.c.failures.append(rec)
        return True  # the next section still runs


def wait_until(probe, timeout=5.0, poll=0.1):
    """Polls `probe()` until it answers truthy; answers the last answer (a UI changes a moment
    after the input that changes it). An exception from the probe ends the wait and is raised."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(poll)


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def png_size(data):
    if not isinstance(data, (bytes, bytearray)) or data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return [int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")]


# ------------------------------------------------------------------------------------------
# The app's process and the accessibility bus
# ------------------------------------------------------------------------------------------

def pids_named(name):
    """Pids whose argv[0]'s basename is `name` (a path or a bare name)."""
    want = os.path.basename(name.split()[0]) if name else name
    out = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if argv0 and os.path.basename(argv0) == want:
            out.add(int(pid))
    return out


def _bus_of(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return None
    for e in env:
        if e.startswith(b"DBUS_SESSION_BUS_ADDRESS="):
            return e.split(b"=", 1)[1].decode(errors="replace")
    return None


def app_pid(session_caps, app, before, timeout=30.0):
    """The pid of the app the server launched for this session: from the returned
    capabilities when the server says it, else the new process named like `app` (not among
    `before`) on this session bus, the newest."""
    for key in ("automation:pid", "appium:pid", "automation:appPid"):
        v = (session_caps or {}).get(key)
        if isinstance(v, int) and v > 0:
            return v
    ours = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    deadline = time.monotonic() + timeout
    while True:
        new = [p for p in pids_named(app) - set(before) if ours is None or _bus_of(p) in (None, ours)]
        if new:
            return max(new, key=lambda p: os.stat(f"/proc/{p}").st_mtime if os.path.exists(f"/proc/{p}") else 0)
        if time.monotonic() > deadline:
            raise RuntimeError(f"no new `{app}` process on this session bus after {timeout:.0f} s")
        time.sleep(0.2)


def _dbus(*args, timeout=5):
    return subprocess.run(["dbus-send", *args], capture_output=True, text=True, timeout=timeout)


def ensure_a11y_bus(timeout=15.0, registry=True):
    """The accessibility bus of this session answers, and accessibility is on (so GTK and Qt
    apps started afterwards register). Asking org.a11y.Bus D-Bus-activates the launcher when
    nothing started it; a reader connecting before its bus daemon answers would abort."""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        raise RuntimeError("no session bus: run under dbus-run-session")
    deadline = time.monotonic() + timeout
    while True:
        got = _dbus("--session", "--print-reply=literal", "--dest=org.a11y.Bus", "/org/a11y/bus",
                    "org.a11y.Bus.GetAddress")
        address = got.stdout.strip()
        if got.returncode == 0 and address and _dbus(
                f"--bus={address}", "--print-reply", "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames").returncode == 0:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"the accessibility bus did not answer: {got.stderr.strip()}")
        time.sleep(0.1)
    for prop in ("IsEnabled", "ScreenReaderEnabled"):
        _dbus("--session", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Set",
              "string:org.a11y.Status", f"string:{prop}", "variant:boolean:true")
    # The registry answering too, as on a running desktop: it starts by D-Bus activation, and
    # an app that registers while it is still starting may never show up (a Qt 5 example does
    # not; atspi_matrix.py says the same).
    while registry:
        got = _dbus(f"--bus={address}", "--print-reply", "--dest=org.a11y.atspi.Registry",
                    "/org/a11y/atspi/accessible/root", "org.freedesktop.DBus.Properties.Get",
                    "string:org.a11y.atspi.Accessible", "string:ChildCount")
        if got.returncode == 0:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"the accessibility registry did not answer: {got.stderr.strip()}")
        time.sleep(0.1)
    return address


# ------------------------------------------------------------------------------------------
# The oracle: pyatspi, independent of the kit
# ------------------------------------------------------------------------------------------

class Oracle:
    """atspi_oracle.py in the system python (Debian's python3-pyatspi; a venv does not see it),
    spoken to in JSON lines. Reads what a person would check: states, the Value interface's
    current value, the Text interface's text, extents."""

    def __init__(self, pid=None):
        """With `pid`, on that app's own display and buses, as its environment names them (an
        app the server launched on a private display); else on this process's."""
        if not os.path.exists(SYSTEM_PYTHON):
            raise RuntimeError(f"{SYSTEM_PYTHON} is missing (Debian: python3, python3-pyatspi)")
        env = dict(os.environ)
        if pid is not None:
            theirs = dict(e.decode(errors="replace").split("=", 1)
                          for e in open(f"/proc/{pid}/environ", "rb").read().split(b"\0") if b"=" in e)
            env.pop("AT_SPI_BUS_ADDRESS", None)
            for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "AT_SPI_BUS_ADDRESS"):
                if k in theirs:
                    env[k] = theirs[k]
        self.p = subprocess.Popen([SYSTEM_PYTHON, os.path.join(HERE, "atspi_oracle.py")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env)
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the oracle exited at start ({self.p.wait()})")
        first = json.loads(line)
        if not first.get("ok"):
            raise RuntimeError(f"pyatspi: {first.get('error')} (Debian: python3-pyatspi)")

    def q(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the oracle died")
        return json.loads(line)

    def must(self, **req):
        r = self.q(**req)
        if not r.get("ok"):
            raise RuntimeError(f"oracle {req}: {r.get('error')}")
        return r

    def app(self, pid, timeout=30):
        return self.must(cmd="app", pid=pid, timeout=timeout)

    def read(self, h):
        r = self.q(cmd="read", h=h)
        return r["read"] if r.get("ok") else {"gone": True, "error": r.get("error")}

    def find(self, spec):
        r = self.must(cmd="find", spec=spec)
        return r["h"], r["read"]

    def at_rect(self, spec, rect, slack=3):
        """The one object matching `spec` whose extents (window or screen coordinates) are the
        element's WebDriver rect: how the oracle finds the same widget without the kit's ids."""
        found = self.must(cmd="find_all", spec=spec)["all"]
        want = [rect.get("x"), rect.get("y"), rect.get("width"), rect.get("height")]

        def near(e):
            return e is not None and all(abs(a - b) <= slack for a, b in zip(e, want))

        hits = [r for r in found if near(r.get("extents")) or near(r.get("screen"))]
        if len(hits) != 1:
            raise RuntimeError(f"oracle: {len(hits)} of {len(found)} {spec} at {want}: "
                               f"{[(r.get('name'), r.get('extents'), r.get('screen')) for r in found][:12]}")
        return hits[0]["h"], hits[0]

    def wait_read(self, h, pred, timeout=5.0):
        return wait_until(lambda: (lambda r: r if pred(r) else None)(self.read(h)), timeout) or self.read(h)

    def alive(self):
        return bool(self.q(cmd="alive").get("alive"))

    def stop(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def brief(r):
    """An oracle read, short enough for a failure line."""
    return {k: r.get(k) for k in ("role", "name", "states", "value", "text", "extents") if k in r}


# ------------------------------------------------------------------------------------------
# The flows (gtk3-widget-factory; the Qt 5 calculator)
# ------------------------------------------------------------------------------------------

def truthy(v):
    """get_attribute's answer as a boolean ("true"/True; Selenium's atom converts)."""
    return v is True or (isinstance(v, str) and v.lower() == "true")


def checkbox_flow(c, driver, loc, oracle=None, prefix="checkbox"):
    """Click the unchecked checkbutton: is_selected turns true, its `checked` attribute reads
    "true", and pyatspi sees STATE_CHECKED."""
    cb = driver.find_element(loc.XPATH, XP_CHECKBOX)
    c.fact(f"{prefix}_element", cb.id)
    o = None
    if oracle is not None:
        o, before = oracle.at_rect({"role": "check box", "name": "checkbutton"}, cb.rect)
        c.check(f"{prefix}: oracle unchecked before", "checked" not in before["states"], oracle=brief(before))
    c.check(f"{prefix}: is_selected before is false", cb.is_selected() is False)
    t = time.monotonic()
    cb.click()
    c.fact(f"{prefix}_click_ms", round((time.monotonic() - t) * 1000))
    sel = wait_until(lambda: cb.is_selected() is True)
    c.check(f"{prefix}: is_selected after click", sel is True, got=sel)
    attr = cb.get_attribute("checked")
    c.check(f"{prefix}: get_attribute('checked') is true", truthy(attr), got=attr)
    if oracle is not None:
        after = oracle.wait_read(o, lambda r: "checked" in r.get("states", []))
        c.check(f"{prefix}: oracle STATE_CHECKED", "checked" in after.get("states", []), oracle=brief(after))
    return cb


def slider_flow(c, driver, loc, keys, oracle=None, prefix="slider"):
    """The first enabled slider: its value attribute and pyatspi's Value agree; an arrow key
    moves it up; `automation: set_value` (execute_script) sets 30; pyatspi agrees each time."""
    sl = driver.find_element(loc.XPATH, XP_SLIDER)
    v0 = number(sl.get_attribute("value"))
    c.fact(f"{prefix}_value_before", v0)
    c.check(f"{prefix}: value attribute is a number", v0 is not None, got=sl.get_attribute("value"))
    o = None
    if oracle is not None:
        o, before = oracle.at_rect({"role": "slider"}, sl.rect)
        c.check(f"{prefix}: oracle agrees before", v0 is not None and abs(before.get("value", -1e9) - v0) < 1e-6,
                kit=v0, oracle=brief(before))
    sl.send_keys(keys.ARROW_RIGHT)
    v1 = wait_until(lambda: (lambda v: v if v is not None and v != v0 else None)(number(sl.get_attribute("value"))))
    c.fact(f"{prefix}_value_after_arrow", v1)
    c.check(f"{prefix}: ARROW_RIGHT moves it up", v1 is not None and v0 is not None and v1 > v0, before=v0, after=v1)
    if oracle is not None and v1 is not None:
        r = oracle.wait_read(o, lambda r: abs(r.get("value", -1e9) - v1) < 1e-6)
        c.check(f"{prefix}: oracle agrees after the arrow key", abs(r.get("value", -1e9) - v1) < 1e-6,
                kit=v1, oracle=brief(r))
    got = driver.execute_script("automation: set_value", {"node": sl.id, "value": 30})
    c.fact(f"{prefix}_set_value_reply", got)
    v2 = wait_until(lambda: (lambda v: v if v == 30 else None)(number(sl.get_attribute("value"))))
    c.check(f"{prefix}: set_value 30 reads back 30", v2 == 30, got=number(sl.get_attribute("value")))
    read = driver.execute_script("automation: read_node", {"node": sl.id})
    c.fact(f"{prefix}_read_node", read)
    if oracle is not None:
        r = oracle.wait_read(o, lambda r: abs(r.get("value", -1e9) - 30) < 1e-6)
        c.check(f"{prefix}: oracle Value is 30", abs(r.get("value", -1e9) - 30) < 1e-6, oracle=brief(r))
    return sl


def entry_flow(c, driver, loc, oracle=None, prefix="entry", text=ZOE):
    """Type `text` (non-ASCII) into the first empty enabled entry: element text and its value
    attribute read it back, and pyatspi's Text interface holds exactly it."""
    en = driver.find_element(loc.XPATH, XP_ENTRY)
    o = None
    if oracle is not None:
        o, before = oracle.at_rect({"role": "text"}, en.rect)
        c.check(f"{prefix}: oracle empty before", (before.get("text") or "") == "", oracle=brief(before))
    c.check(f"{prefix}: is_enabled", en.is_enabled() is True)
    en.clear()
    t = time.monotonic()
    en.send_keys(text)
    c.fact(f"{prefix}_send_keys_ms", round((time.monotonic() - t) * 1000))
    got = wait_until(lambda: en.text == text) and en.text
    c.fact(f"{prefix}_text", en.text)
    c.check(f"{prefix}: element text is {text!r}", got == text, got=en.text)
    val = en.get_attribute("value")
    c.check(f"{prefix}: get_attribute('value') is {text!r}", val == text, got=val)
    if oracle is not None:
        r = oracle.wait_read(o, lambda r: r.get("text") == text)
        c.check(f"{prefix}: oracle Text is {text!r}", r.get("text") == text, oracle=brief(r))
    return en


def calculator_flow(c, driver, loc, action_chains=None, oracle=None, prefix="calculator"):
    """6 × 7 = on the Qt 5 calculator: the display reads 42 (and pyatspi's Text agrees). "="
    goes through the actions API (pointer move to the element, down, up) when given one."""
    display = driver.find_element(loc.CLASS_NAME, "TextInput")
    o = None
    if oracle is not None:
        o, _ = oracle.at_rect({"role": "text"}, display.rect)
    driver.find_element(loc.NAME, "6").click()
    six = wait_until(lambda: display.text.strip() == "6") and display.text.strip()
    c.check(f"{prefix}: display reads 6", six == "6", got=display.text)
    driver.find_element(loc.XPATH, f"//Button[@name='{TIMES}']").click()
    driver.find_element(loc.NAME, "7").click()
    seven = wait_until(lambda: display.text.strip() == "7") and display.text.strip()
    c.check(f"{prefix}: display reads 7", seven == "7", got=display.text)
    eq = driver.find_element(loc.NAME, "=")
    if action_chains is not None:
        action_chains(driver).move_to_element(eq).click().perform()
    else:
        eq.click()
    got = wait_until(lambda: display.text.strip() == "42") and display.text.strip()
    c.fact(f"{prefix}_display", display.text)
    c.check(f"{prefix}: display reads 42", got == "42", got=display.text)
    if oracle is not None:
        r = oracle.wait_read(o, lambda r: (r.get("text") or "").strip() == "42")
        c.check(f"{prefix}: oracle Text is 42", (r.get("text") or "").strip() == "42", oracle=brief(r))


def app_ends(c, oracle, pid, prefix):
    """After quit, the server ended the app it launched: its process is gone (its private bus
    went with it, so the oracle is not asked)."""
    gone = wait_until(lambda: not os.path.exists(f"/proc/{pid}"), timeout=10)
    c.check(f"{prefix}: the app ended after quit", bool(gone), pid=pid)
