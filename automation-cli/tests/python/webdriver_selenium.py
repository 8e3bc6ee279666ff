"""The official Selenium Python client against `automation webdriver`, with pyatspi as the
independent reader.

Usage: python webdriver_selenium.py URL      (URL: http://127.0.0.1:PORT or …/wd/hub)

Run on a display and session bus shared with the server (its apps are launched with
`automation:virtualDisplay: false`, so the oracle sees them); the system python3 needs
python3-pyatspi; this python needs selenium and lxml.

Checks, each flow on its own (a failing one does not stop the next):
  gtk3:       gtk3-widget-factory — click the unchecked checkbutton (is_selected, the checked
              attribute, pyatspi STATE_CHECKED); the first enabled slider (ARROW_RIGHT moves it
              up, `automation: set_value` sets 30, the value attribute and pyatspi's Value
              agree); "Zoë" typed into an empty entry (text, value, pyatspi's Text); screenshots,
              rects, window handles and rect, is_enabled/is_displayed.
  locators:   the page source parses (lxml); for XPath expressions, lxml's refs over the page
              source and the server's find_elements refs are the same list, in order; By.NAME,
              By.CLASS_NAME, By.ID (Selenium's CSS rewrites) and `-automation selector` agree
              with the XPath that means the same.
  errors:     a missing element is NoSuchElementException (after the implicit wait); a broken
              XPath is InvalidSelectorException; an unknown `automation:` op fails.
  calculator: the Qt 5 calculator, 6 × 7 = ("=" through the actions API) reads 42 (pyatspi
              agrees).
Prints one JSON line of measured facts; exit 0 only when every check held. Every session is
quit (finally).
"""

import sys
import time

from lxml import etree
from selenium import webdriver
from selenium.common.exceptions import (InvalidSelectorException, NoSuchElementException,
                                        WebDriverException)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.command import Command
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions

from webdriver_apps import (GTK3_FACTORY, QT_CALCULATOR, XP_CHECKBOX, Checks, Oracle, app_ends, app_pid,
                            calculator_flow, caps, checkbox_flow, entry_flow, png_size,
                            brief, pids_named, slider_flow, trace_http, wait_until)


def remote(url, capabilities):
    opts = ArgOptions()
    for k, v in capabilities.items():
        opts.set_capability(k, v)
    return webdriver.Remote(command_executor=url, options=opts)


def start(c, url, app, prefix):
    before = pids_named(app)
    t = time.monotonic()
    driver = remote(url, caps(app))
    c.fact(f"{prefix}_new_session_ms", round((time.monotonic() - t) * 1000))
    c.fact(f"{prefix}_capabilities", driver.capabilities)
    pid = app_pid(driver.capabilities, app, before)
    c.fact(f"{prefix}_app_pid", pid)
    return driver, pid


def xpath_quote(s):
    return f"'{s}'" if "'" not in s else f'"{s}"'


def refs_lxml(root, expr):
    return [n.get("ref") for n in root.xpath(expr)]


def refs_server(driver, by, value):
    return [e.get_attribute("ref") or e.id for e in driver.find_elements(by, value)]


def actions_flow(c, driver, box, oracle):
    """The actions API: ActionChains moves the pointer to the (now checked) box and clicks it
    (pointerMove with an element origin, pointerDown, pointerUp); it unchecks, and pyatspi
    agrees."""
    o, before = oracle.at_rect({"role": "check box", "name": "checkbutton"}, box.rect)
    c.check("actions: oracle checked before", "checked" in before["states"], oracle=brief(before))
    t = time.monotonic()
    ActionChains(driver).move_to_element(box).click().perform()
    c.fact("actions_click_ms", round((time.monotonic() - t) * 1000))
    after = oracle.wait_read(o, lambda r: "checked" not in r.get("states", []))
    c.check("actions: oracle unchecked after the pointer click", "checked" not in after.get("states", []),
            oracle=brief(after))
    cleared = wait_until(lambda: box.is_selected() is False)
    c.check("actions: is_selected after the pointer click is false", cleared is True, got=box.is_selected())
    # DELETE /actions: releases whatever is held (nothing is, after a whole click).
    driver.execute(Command.W3C_CLEAR_ACTIONS)


def locators(c, driver):
    t = time.monotonic()
    src = driver.page_source
    c.fact("page_source_ms", round((time.monotonic() - t) * 1000))
    c.fact("page_source_chars", len(src))
    root = etree.fromstring(src.encode())
    c.check("page source root is <App>", root.tag == "App", root=root.tag)
    c.fact("page_source_nodes", sum(1 for _ in root.iter()))
    named_buttons = [b.get("name") for b in root.xpath("//Button[@name!='']") if '"' not in b.get("name")]
    c.fact("buttons_named", len(named_buttons))
    c.check("a named Button in the page source", bool(named_buttons))
    button = named_buttons[0] if named_buttons else "?"
    exprs = [
        "//CheckBox",
        f"//Button[@name={xpath_quote(button)}]",
        "//*[@enabled='false']",
        "(//Label)[3]",
        "//TextInput/..",
        "(//Slider[@enabled='true'])[1]",
        "//CheckBox[@checked='true']",
        XP_CHECKBOX,
        "//*[starts-with(@name, 'check')]",
        "/App/*",
        "//CheckBox[last()]",
        "//Slider/following-sibling::*[1]",
        "//*[@name='no such name anywhere']",
    ]
    agree = {}
    for expr in exprs:
        want = refs_lxml(root, expr)
        got = refs_server(driver, By.XPATH, expr)
        agree[expr] = len(want)
        c.check(f"xpath agrees: {expr}", got == want, lxml=want, server=got)
    c.fact("xpath_counts", agree)
    first = [driver.find_element(By.XPATH, "(//CheckBox)[1]").id for _ in range(2)]
    c.fact("same_node_found_twice_same_id", first[0] == first[1])
    c.check("xpath: some expression found several nodes", any(n > 1 for n in agree.values()), counts=agree)

    # Selenium rewrites By.NAME / By.ID / By.CLASS_NAME into CSS ([name="…"], [id="…"], .Role).
    same = [
        (By.NAME, "checkbutton", "//*[@name='checkbutton']"),
        (By.CLASS_NAME, "CheckBox", "//CheckBox"),
        (By.CLASS_NAME, "Slider", "//Slider"),
        ("-automation selector", '{"role":"CheckBox","label":"checkbutton"}', "//CheckBox[@name='checkbutton']"),
    ]
    with_id = root.xpath("//*[@accessibility-id!='']")
    c.fact("nodes_with_accessibility_id", len(with_id))
    if with_id:
        aid = with_id[0].get("accessibility-id")
        same.append((By.ID, aid, f"//*[@accessibility-id={xpath_quote(aid)}]"))
        same.append(("accessibility id", aid, f"//*[@accessibility-id={xpath_quote(aid)}]"))
    for by, value, expr in same:
        want = refs_lxml(root, expr)
        got = refs_server(driver, by, value)
        c.check(f"{by} {value!r} agrees with {expr}", got == want and len(want) > 0, lxml=want, server=got)


def errors(c, driver):
    driver.implicitly_wait(1)
    t = time.monotonic()
    try:
        driver.find_element(By.XPATH, "//Button[@name='no such button here']")
        c.check("missing element: NoSuchElementException", False, got="found one")
    except NoSuchElementException as e:
        took = time.monotonic() - t
        c.fact("no_such_element_ms", round(took * 1000))
        c.check("missing element: NoSuchElementException", True)
        c.check("missing element: the implicit wait (1 s) was honoured", took >= 0.9, took=took, msg=e.msg)
    try:
        driver.find_element(By.NAME, "no such name here")
        c.check("missing by name: NoSuchElementException", False, got="found one")
    except NoSuchElementException:
        c.check("missing by name: NoSuchElementException", True)
    driver.implicitly_wait(0)
    for bad in ("//[", "//Button[@name='x'"):
        try:
            driver.find_elements(By.XPATH, bad)
            c.check(f"invalid xpath {bad!r}: InvalidSelectorException", False, got="no error")
        except InvalidSelectorException:
            c.check(f"invalid xpath {bad!r}: InvalidSelectorException", True)
        except WebDriverException as e:
            c.check(f"invalid xpath {bad!r}: InvalidSelectorException", False, got=type(e).__name__, msg=e.msg)
    try:
        driver.execute_script("automation: no_such_op", {})
        c.check("an unknown automation: op fails", False, got="no error")
    except WebDriverException as e:
        c.fact("unknown_op_error", f"{type(e).__name__}: {e.msg}")
        c.check("an unknown automation: op fails", True)


def page_facts(c, driver, element):
    handles = driver.window_handles
    c.check("window_handles: at least one", len(handles) >= 1, got=handles)
    wr = driver.get_window_rect()
    c.fact("window_rect", wr)
    c.check("window rect has a size", wr.get("width", 0) > 0 and wr.get("height", 0) > 0, got=wr)
    shot = png_size(driver.get_screenshot_as_png())
    c.fact("screenshot_size", shot)
    c.check("page screenshot is a PNG", shot is not None and shot[0] > 0)
    r = element.rect
    es = png_size(element.screenshot_as_png)
    c.fact("element_screenshot_size", es)
    c.check("element screenshot is a PNG of the element's size",
            es is not None and abs(es[0] - r["width"]) <= 2 and abs(es[1] - r["height"]) <= 2, png=es, rect=r)
    c.check("is_displayed on a shown element", element.is_displayed() is True)
    off = driver.find_elements(By.XPATH, "//TextInput[@enabled='false']")
    c.check("a disabled entry: is_enabled is false", bool(off) and off[0].is_enabled() is False)


def main(url):
    trace_http()
    c = Checks("webdriver_selenium")
    c.fact("selenium", webdriver.__version__)
    oracle = None
    try:
        with c.section("gtk3"):
            driver, pid = start(c, url, GTK3_FACTORY, "gtk3")
            try:
                driver.implicitly_wait(5)
                oracle = Oracle(pid)
                oracle.app(pid)
                with c.section("checkbox"):
                    box = checkbox_flow(c, driver, By, oracle)
                with c.section("actions"):
                    actions_flow(c, driver, box, oracle)
                with c.section("slider"):
                    slider_flow(c, driver, By, Keys, oracle)
                with c.section("entry"):
                    entry = entry_flow(c, driver, By, oracle)
                with c.section("page"):
                    page_facts(c, driver, entry)
                with c.section("locators"):
                    locators(c, driver)
                with c.section("errors"):
                    errors(c, driver)
            finally:
                t = time.monotonic()
                driver.quit()
                c.fact("gtk3_quit_ms", round((time.monotonic() - t) * 1000))
            app_ends(c, oracle, pid, "gtk3")
            oracle.stop()
            oracle = None
        with c.section("calculator"):
            driver, pid = start(c, url, QT_CALCULATOR, "calculator")
            try:
                driver.implicitly_wait(5)
                oracle = Oracle(pid)
                oracle.app(pid)
                calculator_flow(c, driver, By, ActionChains, oracle)
            finally:
                driver.quit()
            app_ends(c, oracle, pid, "calculator")
    finally:
        if oracle is not None:
            oracle.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
