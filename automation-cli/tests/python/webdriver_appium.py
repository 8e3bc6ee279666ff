"""The Appium Python client (Appium-Python-Client) against `automation webdriver`, with pyatspi
as the independent reader.

Usage: python webdriver_appium.py URL      (URL: http://127.0.0.1:PORT or …/wd/hub)

Run on a display and session bus shared with the server (`automation:virtualDisplay: false`);
the system python3 needs python3-pyatspi; this python needs Appium-Python-Client.

Appium's client speaks plain W3C where Selenium's runs JavaScript atoms (get_attribute,
is_displayed) and keeps `name` / `class name` / `accessibility id` as locator strategies
(Selenium rewrites them to CSS), so this is the other common client shape.

Checks:
  gtk3:       gtk3-widget-factory — the checkbutton (found with AppiumBy.XPATH; also listed
              with AppiumBy.NAME and AppiumBy.CLASS_NAME), the slider (arrow key, set_value 30)
              and "Zoë" in an entry, each agreeing with pyatspi; AppiumBy.ACCESSIBILITY_ID finds
              the node carrying an author id when the app has any, and a missing one is
              NoSuchElementException.
  calculator: the Qt 5 calculator: AppiumBy.NAME 6, ×, 7, = ; AppiumBy.CLASS_NAME TextInput
              reads 42; pyatspi agrees.
Prints one JSON line of measured facts; exit 0 only when every check held.
"""

import sys
import time

from appium import webdriver
from appium.options.common.base import AppiumOptions
from appium.webdriver.common.appiumby import AppiumBy
from lxml import etree
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.keys import Keys

from webdriver_apps import (GTK3_FACTORY, QT_CALCULATOR, Checks, Oracle, app_ends, app_pid, calculator_flow,
                            caps, checkbox_flow, entry_flow, pids_named, slider_flow,
                            trace_http)


def remote(url, capabilities):
    opts = AppiumOptions()
    opts.load_capabilities(capabilities)
    return webdriver.Remote(url, options=opts)


def start(c, url, app, prefix):
    before = pids_named(app)
    t = time.monotonic()
    driver = remote(url, caps(app))
    c.fact(f"{prefix}_new_session_ms", round((time.monotonic() - t) * 1000))
    c.fact(f"{prefix}_capabilities", driver.capabilities)
    pid = app_pid(driver.capabilities, app, before)
    c.fact(f"{prefix}_app_pid", pid)
    return driver, pid


def locators(c, driver):
    root = etree.fromstring(driver.page_source.encode())
    by_name = driver.find_elements(AppiumBy.NAME, "checkbutton")
    want = [n.get("ref") for n in root.xpath("//*[@name='checkbutton']")]
    got = [e.get_attribute("ref") or e.id for e in by_name]
    c.check("AppiumBy.NAME checkbutton: the page source's nodes, in order", got == want and want, lxml=want, server=got)
    boxes = driver.find_elements(AppiumBy.CLASS_NAME, "CheckBox")
    want = [n.get("ref") for n in root.xpath("//CheckBox")]
    got = [e.get_attribute("ref") or e.id for e in boxes]
    c.check("AppiumBy.CLASS_NAME CheckBox: the page source's nodes, in order", got == want and want, lxml=want, server=got)
    # get_attribute is W3C's GET …/attribute/{name} here: the raw page-source attribute.
    enabled = [e.get_attribute("enabled") for e in by_name]
    c.fact("checkbutton_enabled_attributes", enabled)
    c.check("enabled attributes: three true, three false",
            sorted(str(v).lower() for v in enabled) == ["false"] * 3 + ["true"] * 3, got=enabled)
    with_id = root.xpath("//*[@accessibility-id!='']")
    c.fact("nodes_with_accessibility_id", len(with_id))
    if with_id:
        aid = with_id[0].get("accessibility-id")
        el = driver.find_element(AppiumBy.ACCESSIBILITY_ID, aid)
        c.check("AppiumBy.ACCESSIBILITY_ID finds the node with that author id",
                el.get_attribute("ref") == with_id[0].get("ref"), id=aid, got=el.get_attribute("ref"))
    driver.implicitly_wait(0)
    try:
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "no-such-author-id")
        c.check("missing accessibility id: NoSuchElementException", False, got="found one")
    except NoSuchElementException:
        c.check("missing accessibility id: NoSuchElementException", True)
    driver.implicitly_wait(5)


def main(url):
    trace_http()
    c = Checks("webdriver_appium")
    import appium.version
    c.fact("appium_python_client", appium.version.version)
    oracle = None
    try:
        with c.section("gtk3"):
            driver, pid = start(c, url, GTK3_FACTORY, "gtk3")
            try:
                driver.implicitly_wait(5)
                oracle = Oracle(pid)
                oracle.app(pid)
                with c.section("locators"):
                    locators(c, driver)
                with c.section("checkbox"):
                    checkbox_flow(c, driver, AppiumBy, oracle)
                with c.section("slider"):
                    slider_flow(c, driver, AppiumBy, Keys, oracle)
                with c.section("entry"):
                    entry_flow(c, driver, AppiumBy, oracle)
            finally:
                driver.quit()
            app_ends(c, oracle, pid, "gtk3")
            oracle.stop()
            oracle = None
        with c.section("calculator"):
            driver, pid = start(c, url, QT_CALCULATOR, "calculator")
            try:
                driver.implicitly_wait(5)
                oracle = Oracle(pid)
                oracle.app(pid)
                calculator_flow(c, driver, AppiumBy, None, oracle)
            finally:
                driver.quit()
            app_ends(c, oracle, pid, "calculator")
    finally:
        if oracle is not None:
            oracle.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
