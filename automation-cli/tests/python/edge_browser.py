"""Opens the attack page (tests/python/edge_attacks.html, served from another loopback origin)
in headless Chromium with its targets, waits for it to finish, and prints its findings as one
JSON line.

Usage: python edge_browser.py PAGE_URL TARGETS_JSON
"""

import json
import sys
import urllib.parse

from browser import chromium, wait_for


def main(page: str, targets: str) -> None:
    driver = chromium()
    try:
        driver.get(page + "#" + urllib.parse.quote(targets))
        wait_for(driver, "document.title.startsWith('done:')", timeout=120, poll=0.1)
        print(json.dumps(json.loads(driver.title[len("done:"):])))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
