"""Must-show 1 of the seeing issue: a report of a run with a passing and a failing flow,
loaded from file:// in headless Chromium with the network cut.

Usage: python report_browser.py REPORT_DIR PAGE_SCREENSHOT_PNG
Prints one JSON line with what the page showed; raises on any failed check.
"""

import json
import pathlib
import re
import sys

from browser import check, chromium, wait_for


def main(report_dir: str, shot: str) -> None:
    page = pathlib.Path(report_dir).resolve() / "index.html"
    html = page.read_text()
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>', html, re.S).group(1))
    driver = chromium(offline=True)
    try:
        driver.get(page.as_uri())
        wait_for(driver, "document.body.dataset.imagesReady === '1'")
        flows = driver.execute_script("""
          return [...document.querySelectorAll('section.flow')].map(f => ({
            index: f.dataset.index, status: f.dataset.status,
            steps: [...f.querySelectorAll('div.step')].map(s => ({id: s.dataset.id, status: s.dataset.status})),
            codes: [...f.querySelectorAll('span.code')].map(c => c.textContent.trim()),
            hits: [...f.querySelectorAll('pre.source .hit')].map(h => h.textContent),
          }));""")
        check(len(flows) == len(data["flows"]) == 2, f"two flows listed: {flows}")
        for want, got in zip(data["flows"], flows):
            check(got["status"] == want["status"], f"status {got} vs {want['status']}")
            ids = [s["id"] for s in want["steps"]]
            check([s["id"] for s in got["steps"]] == ids, f"every step of {want['name']}: {got['steps']} vs {ids}")
        failed = [f for f in data["flows"] if f["status"] == "failed"]
        check(len(failed) == 1, "one failing flow")
        failing = next(g for g in flows if g["status"] == "failed")
        code = failed[0]["error"]["code"]
        check(code in failing["codes"], f"the error code {code} is shown: {failing['codes']}")
        src = failed[0]["source"]
        line_text = src["lines"][src["line"] - src["first_line"]].strip()
        check(any(line_text in h for h in failing["hits"]), f"the source line {line_text!r} is marked: {failing['hits']}")
        images = driver.execute_script("""
          return [...document.querySelectorAll('img')].map(i => ({src: i.getAttribute('src'),
            ok: i.complete && i.naturalWidth > 0, broken: i.dataset.broken === '1'}));""")
        check(len(images) > 0, "the report shows screenshots")
        bad = [i for i in images if not i["ok"] or i["broken"]]
        check(not bad, f"every image loads: {bad}")
        # The outlined node on a step's screenshot: its box where the node's bounds are.
        boxes = driver.execute_script("""
          return [...document.querySelectorAll('div.shot')].filter(s => s.querySelector('div.node-box'))
            .filter(s => s.offsetParent !== null).map(s => {
              const img = s.querySelector('img'), box = s.querySelector('div.node-box');
              const a = img.getBoundingClientRect(), b = box.getBoundingClientRect();
              return {src: img.getAttribute('src'), nat: [img.naturalWidth, img.naturalHeight],
                      shown: [a.width, a.height], box: [b.left - a.left, b.top - a.top, b.width, b.height]};
            });""")
        check(len(boxes) > 0, "a visible screenshot has an outlined node")
        calls = {c["image"]: c for f in data["flows"] for s in f["steps"] for c in s["calls"] if c.get("image") and c.get("bounds")}
        verified = 0
        for b in boxes:
            c = calls.get(b["src"])
            if c is None:
                continue
            verified += 1
            k = b["shown"][0] / b["nat"][0]
            want = [c["bounds"]["x"] * c["scale"] * k, c["bounds"]["y"] * c["scale"] * k,
                    c["bounds"]["width"] * c["scale"] * k, c["bounds"]["height"] * c["scale"] * k]
            check(all(abs(x - y) <= 2 for x, y in zip(b["box"], want)), f"box {b['box']} vs bounds {want}")
        check(verified >= 1, f"an outlined box was checked against its call's bounds: {boxes}")
        # Scroll the first outlined screenshot into view and keep a picture of the page.
        driver.execute_script("""
          const s = [...document.querySelectorAll('div.shot')].find(s => s.querySelector('div.node-box') && s.offsetParent !== null);
          if (s) s.scrollIntoView({block: 'center'});""")
        driver.save_screenshot(shot)
        print(json.dumps({"flows": len(flows), "steps": sum(len(f["steps"]) for f in flows),
                          "images": len(images), "outlined": verified, "code": code}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
