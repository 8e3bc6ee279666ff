"""Issue 39: a failing flow's report shows its error once, without the JS client's class name
(`AutomationError:`), and no tool name is split across lines, even in a narrow window.

Usage: python report_error_browser.py REPORT_DIR MESSAGE
Prints one JSON line with what the page showed; the caller asserts on it.
"""

import json
import pathlib
import sys

from browser import chromium, wait_for


def main(report_dir: str, message: str) -> None:
    page = pathlib.Path(report_dir).resolve() / "index.html"
    driver = chromium(offline=True)
    try:
        # Narrow, so a breakable tool name would wrap.
        driver.set_window_size(560, 900)
        driver.get(page.as_uri())
        wait_for(driver, "document.body.dataset.imagesReady === '1'")
        seen = driver.execute_script("""
          const msg = arguments[0];
          const f = [...document.querySelectorAll('section.flow')].find(s => s.dataset.status === 'failed');
          const text = f ? f.innerText : '';
          const tools = [...document.querySelectorAll('td.tool code')].filter(c => c.offsetParent !== null);
          return {
            message_count: text.split(msg).length - 1,
            class_name: document.body.innerText.includes('AutomationError'),
            tools: tools.length,
            split_tools: tools.filter(c => c.getClientRects().length > 1).map(c => c.textContent),
          };""", message)
        print(json.dumps(seen))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
