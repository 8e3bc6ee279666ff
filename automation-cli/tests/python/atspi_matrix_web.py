"""The matrix's web apps (see atspi_matrix.py): one local page, tests/fixtures/web/form.html,
in Firefox ESR and in Chromium, each driven over AT-SPI.

The page is its own second reader: every handler writes what the page now holds into
document.title as "[n] what" (n counts the page's events), and the title is the document's
accessible name. A judge here asks both: did the control change (its states, value, text),
and did the page's own script see the change (the title) — a value that changes without the
event a person's input fires is not taken by the page's own code.

Expectations: `effect` wherever a person can do it with the mouse or the keys — a field
below its list's fold (scroll, then click), a button under an overlay by its action (Tab and
Space reach it), a read-only field's focus; `refuse` where a person cannot: disabled controls,
a read-only field's text, display:none (taken away after the kit saw it, or from the start),
what a closed <details> or tree branch holds, a closed <select>'s option, the covered button
by the pointer.

Set-up (never judged): the page loaded with real geometry, then one Warm-up press through the
oracle, since Firefox drops the first accessibility action after it starts. References for
what later cells scroll to are taken first, while both readers agree where each node is."""

import asyncio
import json
import os
import re
import time

from atspi_matrix_lib import Unresolved, Widget as W

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.normpath(os.path.join(HERE, "..", "fixtures", "web", "form.html"))
URL = "file://" + PAGE

# Firefox: a fresh profile. accessibility.force_disabled = -1 forces its accessibility on,
# whatever the platform says; the rest keeps a first start quiet and off the network.
FIREFOX_PREFS = {
    "accessibility.force_disabled": -1,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "startup.homepage_welcome_url": "",
    "startup.homepage_welcome_url.additional": "",
    "startup.homepage_override_url": "",
    "browser.aboutwelcome.enabled": False,
    "browser.startup.firstrunSkipsHomepage": True,
    "trailhead.firstrun.didSeeAboutWelcome": True,
    "browser.startup.page": 0,
    "browser.startup.homepage": "about:blank",
    "browser.newtabpage.enabled": False,
    "browser.tabs.warnOnClose": False,
    "browser.warnOnQuit": False,
    "browser.uitour.enabled": False,
    "browser.translations.automaticallyPopup": False,
    "browser.toolbars.bookmarks.visibility": "never",
    "browser.messaging-system.whatsNewPanel.enabled": False,
    "browser.ml.enable": False,
    "browser.ml.chat.enabled": False,
    "sidebar.revamp": False,
    "browser.profiles.enabled": False,
    "browser.sessionstore.resume_from_crash": False,
    "browser.sessionstore.max_resumed_crashes": 0,
    "toolkit.startup.max_resumed_crashes": -1,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.dataSubmissionPolicyBypassNotification": True,
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.usage.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.archive.enabled": False,
    "toolkit.telemetry.server": "",
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "browser.discovery.enabled": False,
    "app.update.auto": False,
    "app.update.disabledForTesting": True,
    "app.update.checkInstallTime": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.region.network.url": "",
    "browser.region.update.enabled": False,
    "browser.search.update": False,
    "browser.topsites.contile.enabled": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "security.sandbox.warn_unprivileged_namespaces": False,
    "layers.acceleration.disabled": True,
}


def firefox_argv(_extra):
    """A fresh profile under the session's HOME (the harness's, removed with it)."""
    profile = os.path.join(os.environ["HOME"], "firefox-profile")
    os.makedirs(profile, exist_ok=True)
    with open(os.path.join(profile, "user.js"), "w") as f:
        for k, v in FIREFOX_PREFS.items():
            val = "true" if v is True else "false" if v is False else (
                str(v) if isinstance(v, int) else '"' + v + '"')
            f.write(f'user_pref("{k}", {val});\n')
    # `env` execs Firefox: the pid the harness holds is Firefox's main process, the one on the bus.
    return ["env", "MOZ_ENABLE_WAYLAND=0", "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_DISABLE_AUTO_SAFE_MODE=1",
            "GNOME_ACCESSIBILITY=1", "firefox-esr", "--no-remote", "--new-instance", "--profile", profile,
            URL]


def chromium_argv(_extra):
    """/usr/bin/chromium is a shell script that execs the browser: the pid is the browser's.
    --force-renderer-accessibility: without it no page reaches AT-SPI; --test-type: no
    --no-sandbox warning bar over the page."""
    data = os.path.join(os.environ["HOME"], "chromium-profile")
    os.makedirs(data, exist_ok=True)
    return ["env", "GNOME_ACCESSIBILITY=1", "chromium", "--no-sandbox", "--force-renderer-accessibility",
            "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
            "--test-type", "--password-store=basic", "--use-mock-keychain", "--ozone-platform=x11",
            "--window-position=0,0", "--window-size=1280,1000", f"--user-data-dir={data}", URL]


# ------------------------------------------------------------------------------------------
# Judges: the control (its states, value, text) and the page's own report (the title)
# ------------------------------------------------------------------------------------------

def title(r):
    """The page's report, from the document's name: (n, what), n None when unreadable."""
    m = re.match(r"\[(\d+)\] (.*)", (r or {}).get("name") or "", re.S)
    return (int(m.group(1)), m.group(2)) if m else (None, "")


def fired(b, a, want):
    """The page's script ran a handler since the read `b`, and its report `want` accepts."""
    nb, _ = title(b["page"])
    na, what = title(a["page"])
    return nb is not None and na is not None and na > nb and bool(want(what))


def page(want, control=None):
    """A judge: the page reported an event `want` accepts (a string: exactly that report), and
    `control(b, a)` → (holds, changed) holds of the control itself when given. What changed
    during the call is either: the control, or such a report."""
    if isinstance(want, str):
        text = want
        want = lambda t: t == text  # noqa: E731
    def judge(b, a, r):
        f = fired(b, a, want)
        if control is None:
            return f, f
        h, c = control(b, a, r)
        return h and f, c or f
    return judge


def has(r, name):
    return name in (r or {}).get("states", [])


def flip(*names, key="w"):
    """The control: any of `names` turned on or off."""
    def control(b, a, _r):
        ch = tuple(has(a[key], n) for n in names) != tuple(has(b[key], n) for n in names)
        return ch, ch
    return control


def now(name, want=True, key="w"):
    """The control (or `key`) has (want) or lacks state `name` now."""
    def control(b, a, _r):
        s = has(a[key], name) == want
        return s, s and has(b[key], name) != want
    return control


def text_is(pred):
    def control(b, a, _r):
        s = bool(pred(a["w"].get("text") or ""))
        return s, (a["w"].get("text") or "") != (b["w"].get("text") or "")
    return control


def value_near(v, tol=0.5):
    def control(b, a, _r):
        va, vb = a["w"].get("value"), b["w"].get("value")
        s = va is not None and abs(va - v) <= tol
        return s, va != vb
    return control


def value_moved(sign):
    def control(b, a, _r):
        d = (a["w"].get("value") or 0) - (b["w"].get("value") or 0)
        return d * sign > 0, d != 0
    return control


def focused(b, a, _r):
    f = has(a["w"], "focused")
    return f, f and not has(b["w"], "focused")


def moved_up(key):
    """A judge: the other widget `key` moved up on the screen (a scroll)."""
    def judge(b, a, _r):
        eb, ea = (b[key] or {}).get("extents"), (a[key] or {}).get("extents")
        up = bool(eb and ea and ea[1] < eb[1])
        return up, bool(eb and ea and ea[1] != eb[1])
    return judge


def in_view(win_key="win"):
    """A judge: the control is shown and lies inside its window now, and did not before."""
    def inside(r, win):
        e, f = (r or {}).get("extents"), (win or {}).get("extents")
        return bool(e and f and e[2] > 1 and e[1] >= f[1] and e[1] + e[3] <= f[1] + f[3])
    def judge(b, a, _r):
        s = inside(a["w"], a[win_key]) and has(a["w"], "showing")
        return s, s and not inside(b["w"], b[win_key])
    return judge


# ------------------------------------------------------------------------------------------
# Start: the page loaded, its geometry read, Firefox's first action spent
# ------------------------------------------------------------------------------------------

async def web_prepare(oracle):
    """Before the kit attaches: wait until the page is there with real geometry (Firefox
    answers (-1,-1,-1,-1) for a while after load), then press the page's Warm-up button
    through the oracle until the page reports it (Firefox drops the first accessibility
    action after it starts; set-up, never judged)."""
    deadline = time.monotonic() + 40
    while True:
        bottom = await oracle.q(cmd="find", spec={"role": "push button", "name": "Bottom"})
        gift = await oracle.q(cmd="find", spec={"role": "check box", "name": "Gift wrap"})
        if bottom.get("ok") and gift.get("ok"):
            eb = (bottom["read"].get("extents") or [-1, -1])
            eg = (gift["read"].get("extents") or [-1, -1])
            if eb[1] > 0 and eg[1] > 0:
                break
        if time.monotonic() > deadline:
            raise RuntimeError("the page did not load (no Bottom button with geometry after 40 s)")
        await asyncio.sleep(0.3)
    doc = await oracle.must(cmd="find", spec={"role": "document web", "name_contains": "] "})
    warm = await oracle.must(cmd="find", spec={"role": "push button", "name": "Warm up"})
    for _ in range(6):
        await oracle.q(cmd="do_action", h=warm["h"], name="press")
        await asyncio.sleep(0.5)
        if title(await oracle.read(doc["h"]))[1] == "warm":
            break
    frame = await oracle.must(cmd="find", spec={"role": "frame", "name_contains": "[", "nth": 0})
    return {"doc": doc["h"], "frame": frame["h"]}


# ------------------------------------------------------------------------------------------
# The cells
# ------------------------------------------------------------------------------------------

async def act(m, w, op, tool, args, judge, variant="", expect="effect", also=None):
    """A cell whose judge also sees the page's report (`page`)."""
    return await m.cell(w, op, tool, args, judge, variant, expect, dict(also or {}, page=m.page))


def click(m, w, judge, variant="", expect="effect", op="click", also=None):
    return act(m, w, op, "invoke_action", {"node": "REF", "action": "click"}, judge, variant, expect, also)


def pointer(m, w, judge, variant="", expect="effect", also=None):
    return act(m, w, "pointer", "inject_pointer", {"node": "REF"}, judge, variant, expect, also)


def focus(m, w, variant="", expect="effect"):
    return m.cell(w, "focus", "focus_node", {"node": "REF"}, focused, variant, expect)


def keep_full_replies(m):
    """A cell keeps its reply cut to 400 characters; one that is not `effect` or `refused`
    also keeps the whole reply (`reply.full`), for the report."""
    last = {}
    call, cell = m.kit.call, m.cell

    async def recording(tool, args, timeout=None):
        r = await call(tool, args, timeout)
        last["data"] = r.data
        return r

    async def keeping(*a, **k):
        c = await cell(*a, **k)
        if c.get("verdict") not in ("effect", "refused") and "reply" in c:
            c["reply"]["full"] = json.dumps(last.get("data"), ensure_ascii=False)
        return c
    m.kit.call, m.cell = recording, keeping


async def web_cells(m, browser):
    ff = browser == "firefox"
    keep_full_replies(m)
    m.page = W("page (document title)", "Document", {"role": "document web"}, kit=False)
    m.page.h = m.ctx["doc"]
    button = "push button"
    # A button with aria-pressed, and a <summary>: Chromium says toggle button; Firefox says
    # push button or toggle button, from one start to the next. Found by name and state.
    toggle = {"states": ["focusable"], "zero_size": False}
    name = W("Name", "TextInput", {"role": "entry", "name": "Name"})
    notes = W("Notes (textarea)", "TextInput", {"role": "entry", "name": "Notes"})
    order = W("Order id (read-only)", "TextInput", {"role": "entry", "name": "Order id"})
    code = W("Code (disabled)", "TextInput", {"role": "entry", "name": "Code"})
    gift = W("Gift wrap (label for)", "CheckBox", {"role": "check box", "name": "Gift wrap"})
    express = W("Express (wrapping label)", "CheckBox", {"role": "check box", "name": "Express"})
    insured = W("Insured (disabled)", "CheckBox", {"role": "check box", "name": "Insured"})
    small = W("Small", "RadioButton", {"role": "radio button", "name": "Small"})
    large = W("Large", "RadioButton", {"role": "radio button", "name": "Large"})
    huge = W("Huge (disabled)", "RadioButton", {"role": "radio button", "name": "Huge"})
    os_box = W("select OS", "ComboBox", {"role": "combo box", "name": "OS"})
    region = W("select Region (disabled)", "ComboBox", {"role": "combo box", "name": "Region"})

    def option(label, box="OS"):
        return W(f"option {label}", "MenuItem", {"role": "menu item", "name": label,
                                                "within": {"role": "combo box", "name": box}})
    windows, macos, linux = option("Windows"), option("macOS"), option("Linux")
    volume = W("range Volume", "Slider", {"role": "slider", "name": "Volume"})
    balance = W("range Balance (disabled)", "Slider", {"role": "slider", "name": "Balance"})
    qty = W("number Quantity", "SpinButton", {"role": "spin button", "name": "Quantity"})
    limit = W("number Limit (disabled)", "SpinButton", {"role": "spin button", "name": "Limit"})
    submit = W("Submit", "Button", {"role": button, "name": "Submit"})
    mute = W("Mute (aria-pressed)", "ToggleButton", dict(toggle, name="Mute"), kit_role="Button")
    delete = W("Delete (disabled)", "Button", {"role": button, "name": "Delete"})
    covered = W("Covered (under an overlay)", "Button", {"role": button, "name": "Covered"})
    link = W("link Details page", "Link", {"role": "link", "name": "Details page"})
    docs = W("tree item Documents", "TreeItem", {"role": "tree item", "name": "Documents"}, kit_role="TreeItem")
    report = W("tree item Report", "TreeItem", {"role": "tree item", "name": "Report"}, kit_role="TreeItem")
    music = W("tree item Music", "TreeItem", {"role": "tree item", "name": "Music"}, kit_role="TreeItem")
    fruit = W("list box Fruit", "ListBox", {"role": "list box", "name": "Fruit"})
    banana = W("option Banana", "ListItem", {"role": "list item", "name": "Banana"})
    cherry = W("option Cherry", "ListItem", {"role": "list item", "name": "Cherry"})

    def row(n, kit=True):
        return W(f"Row {n}", "Button", {"role": button, "name": f"Row {n}"}, kit=kit)
    hide = W("Hide panel", "Button", {"role": button, "name": "Hide panel"})
    secret = W("Secret (then display:none)", "Button", {"role": button, "name": "Secret"})
    more = W("summary More", "Button", dict(toggle, name="More"), kit_role="Button")
    inside = W("Inside (in <details>)", "Button", {"role": button, "name": "Inside"})
    heading = W("heading Form fixture", "Heading", {"role": "heading", "name": "Form fixture"}, kit_role="Heading")
    bottom = W("Bottom (below the fold)", "Button", {"role": button, "name": "Bottom"})
    frame = W("window", "Window", {"role": "frame", "name_contains": "["})
    frame.h = m.ctx["frame"]

    starts = lambda p: (lambda t: t.startswith(p))  # noqa: E731
    # The kit's references for what later cells scroll to, taken now, while both readers agree
    # where each is: the harness matches the kit's node to the oracle's by bounds, and the
    # kit's bounds do not follow a scroll (see the report of this matrix).
    rows = {n: row(n) for n in (2, 30, 35, 38)}
    for w in (link, bottom, heading, secret, *rows.values()):
        try:
            await m.resolve(w)
        except Unresolved as e:  # its cells record it as unjudged
            m.notes.append(f"{w.key}: {e}")

    # -- text fields --------------------------------------------------------------------------
    await focus(m, name)
    await act(m, name, "set_value", "set_value", {"node": "REF", "value": "Ada"},
              page("name=Ada", text_is(lambda t: t == "Ada")))
    await act(m, name, "type_text", "type_text", {"node": "REF", "text": " Zoë"},
              page(lambda t: t.startswith("name=") and t.endswith(" Zoë"), text_is(lambda t: t.endswith(" Zoë"))))
    await pointer(m, notes, now("focused"))
    await act(m, notes, "type_text", "type_text", {"node": "REF", "text": "line one"},
              page(lambda t: t.startswith("notes=") and t.endswith("line one"),
                   text_is(lambda t: t.endswith("line one"))))
    await act(m, notes, "set_value", "set_value", {"node": "REF", "value": "set by the kit"},
              page("notes=set by the kit", text_is(lambda t: t == "set by the kit")))
    await focus(m, order, "read-only")  # a read-only field takes the focus (a click, Tab)
    await act(m, order, "type_text", "type_text", {"node": "REF", "text": "9"},
              page(starts("orderid="), text_is(lambda t: t != "A-100")), "read-only", "refuse")
    await act(m, order, "set_value", "set_value", {"node": "REF", "value": "B-200"},
              page(starts("orderid="), text_is(lambda t: t != "A-100")), "read-only", "refuse")
    await act(m, code, "type_text", "type_text", {"node": "REF", "text": "9"},
              page(starts("code="), text_is(lambda t: t != "locked")), "disabled", "refuse")
    await act(m, code, "set_value", "set_value", {"node": "REF", "value": "open"},
              page(starts("code="), text_is(lambda t: t != "locked")), "disabled", "refuse")
    await focus(m, code, "disabled", "refuse")
    await pointer(m, code, now("focused"), "disabled", "refuse")

    # -- check boxes and radios --------------------------------------------------------------
    def checked_page(prefix):
        return lambda b, a, r: page(lambda t: t == f"{prefix}={str(has(a['w'], 'checked')).lower()}",
                                    flip("checked"))(b, a, r)
    await focus(m, gift)
    await click(m, gift, checked_page("gift"), op="toggle")
    await pointer(m, gift, checked_page("gift"))
    await click(m, express, checked_page("express"), op="toggle")
    await pointer(m, express, checked_page("express"))
    await click(m, insured, checked_page("insured"), "disabled", "refuse", op="toggle")
    await pointer(m, insured, checked_page("insured"), "disabled", "refuse")
    await focus(m, insured, "disabled", "refuse")
    await click(m, large, page("size=Large", now("checked")), op="select")
    await pointer(m, small, page("size=Small", now("checked")))
    await click(m, huge, page("size=Huge", now("checked")), "disabled", "refuse", op="select")
    await pointer(m, huge, page("size=Huge", now("checked")), "disabled", "refuse")

    # -- <select> -------------------------------------------------------------------------------
    await focus(m, os_box)
    await act(m, os_box, "set_value", "set_value", {"node": "REF", "value": "Windows"},
              page("os=Windows", now("selected", key="opt")), also={"opt": windows})
    await click(m, macos, page("os=macOS", now("selected")), "closed popup", "refuse", op="select")
    await act(m, region, "set_value", "set_value", {"node": "REF", "value": "South"},
              page("region=South"), "disabled", "refuse")
    if not ff:  # Firefox never sets `expanded` on an open <select>: nothing to judge there by
        await click(m, os_box, now("expanded"), op="expand")
        await click(m, linux, page("os=Linux", now("selected")), "open popup", op="select")
        if has(await m.o.read(os_box.h), "expanded"):
            await m.setup_action(os_box, "open")

    # -- range and number ---------------------------------------------------------------------
    await focus(m, volume)
    await act(m, volume, "set_value", "set_value", {"node": "REF", "value": 77},
              page("volume=77", value_near(77)))
    await act(m, volume, "increment", "invoke_action", {"node": "REF", "action": "increment"},
              page(starts("volume="), value_moved(1)))
    await act(m, volume, "decrement", "invoke_action", {"node": "REF", "action": "decrement"},
              page(starts("volume="), value_moved(-1)))
    await act(m, balance, "set_value", "set_value", {"node": "REF", "value": 8},
              page(starts("balance="), value_near(8)), "disabled", "refuse")
    await act(m, balance, "increment", "invoke_action", {"node": "REF", "action": "increment"},
              page(starts("balance="), value_moved(1)), "disabled", "refuse")
    await act(m, qty, "set_value", "set_value", {"node": "REF", "value": 7}, page("qty=7", value_near(7)))
    await act(m, qty, "increment", "invoke_action", {"node": "REF", "action": "increment"},
              page(starts("qty="), value_moved(1)))
    await act(m, qty, "decrement", "invoke_action", {"node": "REF", "action": "decrement"},
              page(starts("qty="), value_moved(-1)))
    await act(m, limit, "set_value", "set_value", {"node": "REF", "value": 3},
              page(starts("limit="), value_near(3)), "disabled", "refuse")
    await act(m, limit, "increment", "invoke_action", {"node": "REF", "action": "increment"},
              page(starts("limit="), value_moved(1)), "disabled", "refuse")

    # -- buttons ---------------------------------------------------------------------------------
    def submitted(b, a, r):
        """The page's summary agrees with what the oracle reads of two controls."""
        gift_now = "gift=" + str(has(a["gift"], "checked")).lower()
        volume_now = "volume=" + str(round(a["volume"].get("value") or -1))
        return page(lambda t: t.startswith("submitted ") and gift_now in t.split()
                    and volume_now in t.split())(b, a, r)
    await focus(m, submit)
    await click(m, submit, submitted, also={"gift": gift, "volume": volume})
    await pointer(m, submit, submitted, also={"gift": gift, "volume": volume})
    pressed = lambda b, a, r: page(  # noqa: E731
        lambda t: t == "mute=" + str(has(a["w"], "pressed") or has(a["w"], "checked")).lower(),
        flip("pressed", "checked"))(b, a, r)
    await click(m, mute, pressed, op="toggle")
    await pointer(m, mute, pressed)
    await click(m, delete, page("delete clicked"), "disabled", "refuse")
    await pointer(m, delete, page("delete clicked"), "disabled", "refuse")
    await pointer(m, covered, page("covered clicked"), "covered", "refuse")
    # The overlay stops a mouse, not the keyboard: Tab to it and Space presses it.
    await click(m, covered, page("covered clicked"), "covered")

    # -- the ARIA tree and list box ---------------------------------------------------------------
    await act(m, docs, "expand", "expand", {"node": "REF"},
              page("tree Documents expanded=true", now("expanded")))
    await click(m, report, page("tree selected=Report", now("selected")), op="select")
    await act(m, docs, "collapse", "collapse", {"node": "REF"},
              page("tree Documents expanded=false", now("expanded", False)))
    await click(m, report, page("tree selected=Report"), "collapsed parent", "refuse", op="select")
    await pointer(m, music, page("tree selected=Music", now("selected")))
    await focus(m, docs)
    await pointer(m, docs, page("tree Documents expanded=true", now("expanded")))
    await click(m, banana, page("fruit=Banana", now("selected")), op="select")
    await pointer(m, cherry, page("fruit=Cherry", now("selected")))
    # A list box takes the focus onto its current item (Firefox: pyatspi shows the option
    # focused, never the list box): either is the list box focused, as a person sees it.
    apple = W("option Apple", "ListItem", {"role": "list item", "name": "Apple"}, kit=False)
    options = {"apple": apple, "banana": W("option Banana", "ListItem", banana.spec, kit=False),
               "cherry": W("option Cherry", "ListItem", cherry.spec, kit=False)}

    def list_focused(b, a, _r):
        now = any(has(a[k], "focused") for k in ["w", *options])
        was = any(has(b[k], "focused") for k in ["w", *options])
        return now, now and not was
    await m.cell(fruit, "focus", "focus_node", {"node": "REF"}, list_focused, also=options)

    # -- a list longer than its box -----------------------------------------------------------------
    await m.cell(rows[2], "scroll", "scroll", {"node": "REF", "dy": 3, "lines": True}, moved_up("first"),
                 also={"first": row(1, kit=False)})
    await pointer(m, rows[30], page("row=30"), "below the fold")
    await click(m, rows[35], page("row=35"), "below the fold")
    await focus(m, rows[38], "below the fold")

    # -- hidden: display:none after the reference was taken, and from the start -------------------
    await click(m, hide, page("panel hidden"))
    await click(m, secret, page("secret clicked"), "display:none", "refuse")
    await pointer(m, secret, page("secret clicked"), "display:none", "refuse")
    ghost = W("Ghost (display:none from the start)", "Button", {"role": "document web"}, kit=False)
    ghost.h = m.ctx["doc"]
    await act(m, ghost, "click", "invoke_action", {"node": {"role": "Button", "label": "Ghost"}, "action": "click"},
              page("ghost clicked"), "display:none", "refuse")

    # -- <details> ----------------------------------------------------------------------------------------
    await act(m, more, "expand", "expand", {"node": "REF"}, page("details open=true", now("expanded")))
    await click(m, inside, page("inside clicked"), "open")
    await act(m, more, "collapse", "collapse", {"node": "REF"},
              page("details open=false", now("expanded", False)))
    await click(m, inside, page("inside clicked"), "closed", "refuse")
    await pointer(m, more, page("details open=true", now("expanded")))

    # -- pixels --------------------------------------------------------------------------------------------
    await m.screenshot(gift)
    await m.screenshot(frame, window=True)

    # -- the page scrolls: the wheel, a link's jump, a button below the fold --------------------------
    await m.cell(heading, "scroll", "scroll", {"node": "REF", "dy": 5, "lines": True}, moved_up("w"))
    # Its effect is the jump: the hashchange comes after the click's own report.
    await click(m, link, page("hash=#details"))
    await pointer(m, link, page("link clicked"), "scrolled away")
    await focus(m, link)
    await act(m, bottom, "scroll_into_view", "invoke_action", {"node": "REF", "action": "scroll_into_view"},
              in_view(), also={"win": frame})
    await pointer(m, bottom, page("bottom clicked"))
    await click(m, bottom, page("bottom clicked"))


async def firefox_cells(m):
    await web_cells(m, "firefox")


async def chromium_cells(m):
    await web_cells(m, "chromium")


APPS = {
    "firefox": {"display": 153, "argv": firefox_argv, "cells": firefox_cells, "prepare": web_prepare,
                "package": "firefox-esr", "timeout": 40},
    "chromium": {"display": 154, "argv": chromium_argv, "cells": chromium_cells, "prepare": web_prepare,
                 "package": "chromium", "timeout": 40},
}
