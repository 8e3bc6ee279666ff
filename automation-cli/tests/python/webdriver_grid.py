"""N Selenium sessions at once through a Selenium Grid 4 hub whose node relays to
`automation webdriver` (tests/grid/node.toml.in).

Usage: python webdriver_grid.py HUB_URL N

Each session (its own thread) asks for gtk3-widget-factory on the server's default private
virtual display (so no oracle here: each reads back through WebDriver), clicks the unchecked
checkbutton (is_selected turns true) and types "Zoë" into an empty entry (text and value read
it back). Reports, as one JSON line: the hub's /status (ready, node count, slots, the relay's
stereotype), each session's wall times (new session, flow, quit) and the total; exit 0 only
when every session held.
"""

import json
import sys
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions

from webdriver_apps import GTK3_FACTORY, Checks, caps, checkbox_flow, entry_flow, trace_http, wait_until


def hub_status(hub):
    with urllib.request.urlopen(hub.rstrip("/") + "/status", timeout=10) as r:
        return json.loads(r.read())["value"]


def one(hub, i, out):
    c = Checks(f"grid session {i}")
    rec = {"i": i}
    t0 = time.monotonic()
    driver = None
    try:
        opts = ArgOptions()
        for k, v in caps(GTK3_FACTORY, virtual_display=True).items():
            opts.set_capability(k, v)
        driver = webdriver.Remote(command_executor=hub, options=opts)
        rec["new_session_ms"] = round((time.monotonic() - t0) * 1000)
        rec["session_id"] = driver.session_id
        driver.implicitly_wait(10)
        t1 = time.monotonic()
        with c.section("checkbox"):
            checkbox_flow(c, driver, By, prefix="checkbox")
        with c.section("entry"):
            entry_flow(c, driver, By, prefix="entry")
        rec["flow_ms"] = round((time.monotonic() - t1) * 1000)
    except Exception as e:
        c.check("session started", False, error=f"{type(e).__name__}: {e}")
    finally:
        if driver is not None:
            t2 = time.monotonic()
            try:
                driver.quit()
            except Exception as e:
                c.check("quit", False, error=f"{type(e).__name__}: {e}")
            rec["quit_ms"] = round((time.monotonic() - t2) * 1000)
        rec["wall_ms"] = round((time.monotonic() - t0) * 1000)
        rec["ok"] = not c.failures and bool(c.checks)
        rec["failed"] = [f.get("failed") for f in c.failures]
        rec["entry_text"] = c.facts.get("entry_text")
        out[i] = rec


def main(hub, n):
    trace_http()
    c = Checks("webdriver_grid")
    status = hub_status(hub)
    nodes = status.get("nodes", [])
    c.fact("hub_ready", status.get("ready"))
    c.fact("nodes", len(nodes))
    c.fact("slots", sum(len(nd.get("slots", [])) for nd in nodes))
    c.fact("stereotypes", sorted({json.dumps(s.get("stereotype"), sort_keys=True)
                                  for nd in nodes for s in nd.get("slots", [])}))
    c.fact("node_versions", sorted({nd.get("version", "") for nd in nodes}))
    c.check("the hub is ready with a node", status.get("ready") is True and len(nodes) >= 1, status=status)
    out = {}
    t = time.monotonic()
    threads = [threading.Thread(target=one, args=(hub, i, out)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    c.fact("total_ms", round((time.monotonic() - t) * 1000))
    sessions = [out.get(i, {"i": i, "ok": False, "failed": ["thread died"]}) for i in range(n)]
    c.fact("sessions", sessions)
    for s in sessions:
        c.check(f"session {s['i']}: checkbox and entry held", s.get("ok"), session_failed=s.get("failed"))
    ids = [s.get("session_id") for s in sessions if s.get("session_id")]
    c.check("distinct session ids", len(set(ids)) == len(ids) == n, ids=ids)

    def busy():
        return sum(1 for nd in hub_status(hub).get("nodes", []) for s in nd.get("slots", []) if s.get("session"))

    # The hub hears of a freed slot over its event bus, a moment after the quit answered.
    left = busy()
    if left:
        wait_until(lambda: busy() == 0, timeout=10, poll=0.5)
        left = busy()
    c.check("no slot busy after every quit", left == 0, busy=left)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
