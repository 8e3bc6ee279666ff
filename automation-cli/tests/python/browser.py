"""Headless Chromium through Selenium (Debian's chromium and chromium-driver), shared by the
report and inspector checks."""

import os
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(offline: bool = False) -> webdriver.Chrome:
    """A headless Chromium at 1280×900. `offline`: the network is cut (file:// still loads)."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                "--disable-dev-shm-usage", "--allow-file-access-from-files"):
        opts.add_argument(arg)
    if offline:
        # No name resolves: any request to the network fails at once.
        opts.add_argument("--host-resolver-rules=MAP * ~NOTFOUND")
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    if offline:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    return driver


def wait_for(driver, script: str, timeout: float = 10.0, poll: float = 0.05):
    """Polls a JS expression until it is truthy; returns its value or raises."""
    import time
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script("return (" + script + ");")
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for: {script}")
        time.sleep(poll)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


_ = os
