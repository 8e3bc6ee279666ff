"""Must-show 2 of the seeing issue: `automation inspect` in headless Chromium.

Usage: python inspect_browser.py URL ACT_ROLE ACT_LABEL EXPECT_TEXT ROLE LABEL PAGE_SCREENSHOT_PNG
  URL                 what `automation inspect` printed (it carries the token)
  ACT_ROLE ACT_LABEL  the node pressed through the kit (the page must show the change in 1 s)
  EXPECT_TEXT         text the page's tree shows after the press
  ROLE LABEL          the node then selected in the tree (its outline is checked)
Prints one JSON line with what was measured; raises on any failed check.
"""

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from browser import check, chromium, wait_for


def api(base: str, path: str, token: str | None, body: dict | None = None, host: str | None = None):
    url = base + path + (("&" if "?" in path else "?") + "token=" + token if token else "")
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main(url: str, act_role: str, act_label: str, expect: str, role: str, label: str, shot: str) -> None:
    parts = urllib.parse.urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    token = urllib.parse.parse_qs(parts.query)["token"][0]
    # Refusals first: no token, a wrong one (401), a page from another origin (DNS rebinding:
    # 403).
    for path, tok, host, want in (("/api/tree", None, None, 401), ("/api/tree", "nope", None, 401),
                                  ("/", None, None, 401), ("/api/tree", token, "evil.example:80", 403)):
        status, body = api(base, path, tok, host=host)
        check(status == want, f"{path} token={tok} host={host}: {status} {body}")
    status, body = api(base, "/api/act", None, {"node": {"role": act_role, "label": act_label}})
    check(status == 401, f"an action without the token is refused: {status}")

    driver = chromium()
    try:
        driver.get(url)
        wait_for(driver, "document.body.dataset.ready === '1'", timeout=20)
        before = int(driver.execute_script("return document.body.dataset.version || '0'"))
        t_press = time.monotonic()
        status, body = api(base, "/api/act", token, {"node": {"role": act_role, "label": act_label}})
        check(status == 200 and body.get("ok"), f"pressing through the kit: {status} {body}")
        # The press itself settles the app (up to the settle budget on a live app); the page
        # must show its effect within 1 s of it.
        t0 = time.monotonic()
        press = t0 - t_press
        wait_for(driver, f"Number(document.body.dataset.version || 0) > {before}", timeout=5, poll=0.02)
        if expect:
            wait_for(driver, "document.getElementById('tree').textContent.includes(arguments[0])"
                     .replace("arguments[0]", json.dumps(expect)), timeout=5, poll=0.02)
        took = time.monotonic() - t0
        check(took <= 1.0, f"the page showed the change within 1 s: {took:.3f} s")
        _, tree = api(base, "/api/tree", token)
        listed = driver.execute_script("return document.querySelectorAll('#tree li.node').length")
        check(listed == len(tree["nodes"]) and listed > 10, f"the tree lists the app's nodes: {listed} of {len(tree['nodes'])}")
        _, meta = api(base, "/api/shot-meta", token)
        rows = driver.execute_script(
            "return [...document.querySelectorAll('#tree li.node')].filter(li => li.dataset.role === arguments[0] && li.dataset.label === arguments[1]).map(li => li.dataset.id);",
            role, label)
        check(len(rows) >= 1, f"{role} {label!r} is in the tree")
        node_id = rows[0]
        driver.execute_script(
            "document.querySelector(`#tree li.node[data-id='${arguments[0]}'] > span.row`).click();", node_id)
        wait_for(driver, "(() => { const o = document.getElementById('outline'); return o && o.offsetWidth > 0; })()")
        # The screenshot of the latest version may still be loading (each change is a new URL).
        loaded = wait_for(driver, "(() => { const i = document.getElementById('shot'); return i.complete && i.naturalWidth > 0; })()",
                          timeout=10, poll=0.05)
        check(loaded, "the screenshot loaded in the page")
        # Read in one go with the image loaded: a later capture may replace it at any time.
        got = wait_for(driver, """(() => {
          const img = document.getElementById('shot'), o = document.getElementById('outline');
          if (!img.complete || !img.naturalWidth) return null;
          const a = img.getBoundingClientRect(), b = o.getBoundingClientRect();
          return {img: [a.left, a.top, a.width, a.height], box: [b.left - a.left, b.top - a.top, b.width, b.height],
                  nat: [img.naturalWidth, img.naturalHeight]}; })()""", timeout=10, poll=0.05)
        node = next(n for n in tree["nodes"] if n["id"] == node_id)
        b, k = node["bounds"], got["img"][2] / got["nat"][0]
        s = meta["scale"]
        want = [b["x"] * s * k, b["y"] * s * k, b["width"] * s * k, b["height"] * s * k]
        off = [abs(x - y) for x, y in zip(got["box"], want)]
        check(all(d <= 2 for d in off),
              f"the outline {got['box']} is where the node is {want} (off by {off})")
        # The record is fetched after the click: its placeholder shows until it arrives.
        try:
            record = wait_for(driver, "(() => { const t = document.getElementById('record').textContent;"
                              f" return t.includes({json.dumps(node_id)}) && t; }})()", timeout=5)
        except AssertionError:
            record = driver.execute_script("return document.getElementById('record').textContent")
        check(node_id in record, f"the record shows the selected node: {record[:200]}")
        selector = driver.execute_script("return document.getElementById('selector').textContent")
        check(label in selector, f"the selector names it: {selector}")
        snippet = driver.execute_script("return document.getElementById('snippet-js').textContent")
        check("app.find(" in snippet, f"a JS client call: {snippet}")

        # A change's pixels may still be moving when its tree is read (GTK's stack slides to
        # the new page): the page captures once more a moment later, with no new version.
        late = wait_for(driver, "(document.getElementById('shot').dataset.loadedSrc || '').includes('late=1')",
                        timeout=5, poll=0.05)
        check(late, "the screenshot was taken again once the change came to rest")
        # Measured once that capture is in: a new one loading has no natural size yet.
        check(wait_for(driver, "(() => { const i = document.getElementById('shot'); return i.complete && i.naturalWidth > 0; })()",
                       timeout=10, poll=0.05), "the late screenshot loaded")
        # Issue 39: the screenshot shows at 100% (the pane scrolls); "Fit to pane" scales it
        # into the pane and the outline follows.
        sizes = driver.execute_script("""
          const img = document.getElementById('shot'), pane = document.getElementById('middle');
          const at100 = [img.getBoundingClientRect().width, img.naturalWidth];
          document.getElementById('shot-fit').click();
          return {at100, pane: pane.clientWidth, fit: img.getBoundingClientRect().width,
                  pressed: document.getElementById('shot-fit').getAttribute('aria-pressed')};""")
        fit_off = wait_for(driver, """(() => {
          const img = document.getElementById('shot'), o = document.getElementById('outline');
          if (!img.complete || !img.naturalWidth) return null;
          const a = img.getBoundingClientRect(), b = o.getBoundingClientRect();
          return [b.left - a.left, b.top - a.top, b.width, b.height, a.width / img.naturalWidth]; })()""",
                           timeout=10, poll=0.05)
        k2 = fit_off[4]
        want2 = [b["x"] * s * k2, b["y"] * s * k2, b["width"] * s * k2, b["height"] * s * k2]
        off2 = [abs(x - y) for x, y in zip(fit_off[:4], want2)]
        check(all(d <= 2 for d in off2), f"fitted, the outline {fit_off[:4]} is where the node is {want2}")
        driver.execute_script("document.getElementById('shot-fit').click();")

        # Two frames: the loaded image is painted before the page is captured.
        driver.execute_async_script(
            "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));")
        driver.save_screenshot(shot)
        print(json.dumps({"nodes": listed, "outline_off_px": off, "update_s": round(took, 3), "press_s": round(press, 3),
                          "natural": abs(sizes["at100"][0] - sizes["at100"][1]) <= 1,
                          "fits": sizes["fit"] <= sizes["pane"] + 1, "pressed": sizes["pressed"],
                          "shot_px": sizes["at100"][1], "pane_px": sizes["pane"]}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:8])
