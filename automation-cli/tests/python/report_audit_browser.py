"""An audit in a run's report (issue 37): loaded from file:// in headless Chromium with the
network cut, the audit step shows the window with one numbered box per finding, each where
the finding's bounds are, and the findings listed under it.

Usage: python report_audit_browser.py REPORT_DIR
Prints one JSON line with what the page showed; raises on any failed check.
"""

import json
import pathlib
import re
import sys

from browser import check, chromium, wait_for


def main(report_dir: str) -> None:
    page = pathlib.Path(report_dir).resolve() / "index.html"
    html = page.read_text()
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>', html, re.S).group(1))
    calls = [c for f in data["flows"] for s in f["steps"] for c in s["calls"] if c.get("audit") is not None]
    check(len(calls) == 1, f"one audit call in the data: {len(calls)}")
    call = calls[0]
    def on_image(f):
        b, sc = f.get("bounds"), call.get("scale", 1)
        return b and b["x"] * sc < call["width"] and b["y"] * sc < call["height"] \
            and (b["x"] + b["width"]) * sc > 0 and (b["y"] + b["height"]) * sc > 0
    # A node scrolled off the captured window is listed but not outlined.
    findings = [f for f in call["audit"] if on_image(f)]
    check(len(findings) > 0 and call.get("image"), f"the audit has findings and a screenshot: {call.keys()}")
    driver = chromium(offline=True)
    try:
        driver.get(page.as_uri())
        wait_for(driver, "document.body.dataset.imagesReady === '1'")
        seen = driver.execute_script("""
          const block = document.querySelector('div.audit');
          if (!block) return null;
          const img = block.querySelector('img'), a = img.getBoundingClientRect();
          return {
            nat: [img.naturalWidth, img.naturalHeight], shown: [a.width, a.height],
            boxes: [...block.querySelectorAll('div.audit-box')].map(b => {
              const r = b.getBoundingClientRect();
              return {rule: b.dataset.rule, n: b.textContent, box: [r.left - a.left, r.top - a.top, r.width, r.height]};
            }),
            listed: [...block.querySelectorAll('ol.audit-findings li')].map(li => li.dataset.rule),
          };""")
        check(seen is not None, "the page shows an audit block")
        check(seen["nat"][0] > 0, f"its screenshot loads: {seen}")
        check(len(seen["boxes"]) == len(findings), f"{len(seen['boxes'])} boxes for {len(findings)} findings")
        check(len(seen["listed"]) == len(call["audit"]), f"every finding listed: {seen['listed']}")
        k = seen["shown"][0] / seen["nat"][0]
        for i, (f, b) in enumerate(zip(findings, seen["boxes"])):
            check(b["rule"] == f["rule"] and b["n"] == str(i + 1), f"box {i + 1}: {b} for {f['rule']}")
            bd = f["bounds"]
            want = [bd["x"] * call["scale"] * k, bd["y"] * call["scale"] * k,
                    bd["width"] * call["scale"] * k, bd["height"] * call["scale"] * k]
            check(all(abs(x - y) <= 2 for x, y in zip(b["box"], want)), f"box {b['box']} vs bounds {want}")
        print(json.dumps({"boxes": len(seen["boxes"]), "listed": len(seen["listed"])}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1])
