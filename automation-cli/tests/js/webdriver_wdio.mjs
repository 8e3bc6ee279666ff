// WebdriverIO (v9, the `webdriverio` package's `remote()`) against `automation webdriver`.
//
// Usage: node webdriver_wdio.mjs URL [--shared-display]
//   URL               http://127.0.0.1:PORT (or …/wd/hub)
//   --shared-display  launch the apps on this process's display and session bus
//                     (`automation:virtualDisplay: false`, for a pyatspi oracle alongside);
//                     default: each app on the server's private virtual display.
//
// webdriverio is loaded from the node tools dir scripts/test installs into ($AUTOMATION_NODE_DIR,
// else the `node_modules/.bin` on PATH, else NODE_PATH), so this file needs no node_modules of
// its own. WebdriverIO treats a session with `appium:*` capabilities and no browserName as a
// native mobile-style app: no BiDi, W3C element commands (isDisplayed, getValue are endpoints,
// not scripts); `click({...})` goes through the actions API with a touch pointer.
//
// Flows (read back through WebDriver, and judged by pyatspi too: `atspi_oracle.py` in the
// system python, on each app's own display and buses, found through `automation:pid`):
//   gtk3-widget-factory: the unchecked checkbutton clicked (isSelected, the checked attribute);
//   the first enabled slider (ArrowRight moves it up; `automation: set_value` 30 reads 30);
//   "Zoë" typed into an empty entry (getText, getValue); direct strategies `name:`,
//   `class name:`, `-automation selector` agree with the XPath meaning the same.
//   Qt 5 calculator: `name:6`, `name:×`, `name:7`, then `=` by an action click; the display
//   (`class name:TextInput`) reads 42.
// Prints one JSON line of measured facts (the last line on stdout); exit 0 only when every check
// held. Every session is deleted (finally).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const GTK3 = 'gtk3-widget-factory';
const QT_CALCULATOR = '/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator';
const ZOE = 'Zo\u00eb';
const TIMES = '\u00d7';
const XP_CHECKBOX = "//CheckBox[@name='checkbutton'][@enabled='true'][@checked='false']";
const XP_SLIDER = "(//Slider[@enabled='true'])[1]";
const XP_ENTRY = "(//TextInput[@enabled='true'][not(@value) or @value=''])[1]";

/** Import a package installed in the node tools dir (ESM ignores NODE_PATH). */
async function load(name) {
    const roots = [];
    if (process.env.AUTOMATION_NODE_DIR) roots.push(join(process.env.AUTOMATION_NODE_DIR, 'node_modules'));
    for (const p of (process.env.PATH || '').split(delimiter)) {
        if (p.endsWith(join('node_modules', '.bin'))) roots.push(dirname(p));
    }
    for (const p of (process.env.NODE_PATH || '').split(delimiter)) if (p) roots.push(p);
    for (const root of roots) {
        const dir = join(root, name);
        const manifest = join(dir, 'package.json');
        if (!existsSync(manifest)) continue;
        const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
        const dot = pkg.exports && (pkg.exports['.'] ?? pkg.exports);
        const entry = (dot && (dot.import ?? dot.node ?? dot.default)) || pkg.module || pkg.main || 'index.js';
        return import(pathToFileURL(join(dir, typeof entry === 'string' ? entry : entry.default)).href);
    }
    return import(name); // a node_modules next to this file, if any
}

const { remote, Key } = await load('webdriverio');

const facts = { script: 'webdriver_wdio' };
const checks = {};
const failures = [];

function check(key, cond, detail = {}) {
    checks[key] = Boolean(cond);
    if (!cond) {
        const rec = { failed: key, ...detail };
        process.stderr.write(JSON.stringify(rec) + '\n');
        failures.push(rec);
    }
    return Boolean(cond);
}

async function section(name, fn) {
    const t = performance.now();
    try {
        await fn();
    } catch (e) {
        checks[`${name}: ran`] = false;
        const rec = { failed: `${name}: ran`, error: `${e?.name}: ${e?.message}`, at: String(e?.stack || '').split('\n').slice(0, 6) };
        process.stderr.write(JSON.stringify(rec) + '\n');
        failures.push(rec);
    } finally {
        (facts.section_ms ??= {})[name] = Math.round(performance.now() - t);
    }
}

async function waitFor(probe, timeout = 5000, interval = 100) {
    const deadline = Date.now() + timeout;
    for (;;) {
        const got = await probe();
        if (got || Date.now() > deadline) return got;
        await new Promise((r) => setTimeout(r, interval));
    }
}

const num = (v) => (v === null || v === undefined || v === '' || Number.isNaN(Number(v)) ? null : Number(v));
const refs = async (els) => Promise.all(Array.from(els).map(async (e) => (await e.getAttribute('ref')) || e.elementId));

const url = new URL(process.argv[2]);
const shared = process.argv.includes('--shared-display');

async function session(app, prefix) {
    const capabilities = { platformName: 'linux', 'appium:automationName': 'automation', 'appium:app': app };
    if (shared) capabilities['automation:virtualDisplay'] = false;
    const t = performance.now();
    const browser = await remote({
        protocol: url.protocol.replace(':', ''),
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname === '' ? '/' : url.pathname,
        logLevel: process.env.AUTOMATION_WD_TRACE === '1' ? 'trace' : 'silent',
        connectionRetryCount: 0,
        waitforTimeout: 10000,
        capabilities,
    });
    facts[`${prefix}_new_session_ms`] = Math.round(performance.now() - t);
    facts[`${prefix}_capabilities`] = browser.capabilities;
    facts[`${prefix}_is_mobile`] = browser.isMobile;
    facts[`${prefix}_is_bidi`] = browser.isBidi;
    return browser;
}

const ORACLE = new URL('../python/atspi_oracle.py', import.meta.url).pathname;

/** Every object of the app `pid` matching `spec`, as pyatspi reads it on the app's own bus. */
function oracleAll(pid, spec) {
    const theirs = Object.fromEntries(
        readFileSync(`/proc/${pid}/environ`, 'latin1')
            .split('\0')
            .filter((e) => e.includes('='))
            .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
    );
    const env = { ...process.env };
    delete env.AT_SPI_BUS_ADDRESS;
    for (const k of ['DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'AT_SPI_BUS_ADDRESS']) {
        if (k in theirs) env[k] = theirs[k];
    }
    const input = [{ cmd: 'app', pid, timeout: 10 }, { cmd: 'find_all', spec }].map((c) => JSON.stringify(c)).join('\n') + '\n';
    const r = spawnSync('/usr/bin/python3', [ORACLE], { input, env, encoding: 'utf8', timeout: 60000 });
    const replies = (r.stdout || '').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const last = replies[replies.length - 1];
    if (!last || !last.ok || !Array.isArray(last.all)) throw new Error(`oracle ${JSON.stringify(spec)}: ${JSON.stringify(last)} ${r.stderr}`);
    return last.all;
}

/** Polls the oracle until `holds(all)` (an app takes a moment to show an effect). */
async function oracleUntil(pid, spec, holds) {
    let all = [];
    const ok = await waitFor(async () => {
        all = oracleAll(pid, spec);
        return holds(all);
    }, 5000, 200);
    return { ok: ok === true, all };
}

const checkedCount = (all) => all.filter((o) => (o.states || []).includes('checked')).length;

async function gtk3(browser) {
    const pid = browser.capabilities['automation:pid'];
    await section('checkbox', async () => {
        const cb = await browser.$(XP_CHECKBOX);
        await cb.waitForExist({ timeout: 10000 });
        check('checkbox: isSelected before is false', (await cb.isSelected()) === false);
        const spec = { role: 'check box', name: 'checkbutton' };
        const before = checkedCount(oracleAll(pid, spec));
        await cb.click();
        const sel = await waitFor(async () => (await cb.isSelected()) === true);
        check('checkbox: isSelected after click', sel === true, { got: sel });
        const seen = await oracleUntil(pid, spec, (all) => checkedCount(all) === before + 1);
        check('checkbox: oracle sees one more checkbutton checked', seen.ok, { before, after: checkedCount(seen.all) });
        const attr = await cb.getAttribute('checked');
        check("checkbox: getAttribute('checked') is true", attr === 'true', { got: attr });
        check('checkbox: isDisplayed', (await cb.isDisplayed()) === true);
    });
    await section('slider', async () => {
        const sl = await browser.$(XP_SLIDER);
        const v0 = num(await sl.getAttribute('value'));
        facts.slider_value_before = v0;
        check('slider: value attribute is a number', v0 !== null);
        await sl.addValue(Key.ArrowRight);
        const v1 = await waitFor(async () => {
            const v = num(await sl.getAttribute('value'));
            return v !== null && v !== v0 ? v : null;
        });
        facts.slider_value_after_arrow = v1;
        check('slider: ArrowRight moves it up', v1 !== null && v0 !== null && v1 > v0, { before: v0, after: v1 });
        facts.slider_set_value_reply = await browser.execute('automation: set_value', { node: sl.elementId, value: 30 });
        const v2 = await waitFor(async () => num(await sl.getAttribute('value')) === 30);
        check('slider: set_value 30 reads back 30', v2 === true, { got: await sl.getAttribute('value') });
    });
    await section('entry', async () => {
        const en = await browser.$(XP_ENTRY);
        check('entry: isEnabled', (await en.isEnabled()) === true);
        await en.setValue(ZOE); // clear, then send keys
        const text = await waitFor(async () => ((await en.getText()) === ZOE ? ZOE : null));
        facts.entry_text = await en.getText();
        check(`entry: getText is ${ZOE}`, text === ZOE, { got: facts.entry_text });
        const value = await en.getValue();
        check(`entry: getValue is ${ZOE}`, value === ZOE, { got: value });
        const seen = await oracleUntil(pid, { role: 'text' }, (all) => all.some((o) => o.text === ZOE));
        check(`entry: oracle Text is ${ZOE}`, seen.ok, { texts: seen.all.map((o) => o.text).slice(0, 12) });
        const rect = await browser.getElementRect(en.elementId);
        check('entry: rect has a size', rect.width > 0 && rect.height > 0, { rect });
    });
    await section('locators', async () => {
        const xpath = await refs(await browser.$$("//*[@name='checkbutton']"));
        const byName = await refs(await browser.$$('name:checkbutton'));
        check("name:checkbutton agrees with //*[@name='checkbutton']", xpath.length > 0 && JSON.stringify(byName) === JSON.stringify(xpath), { xpath, byName });
        const boxes = await refs(await browser.$$('//CheckBox'));
        const byClass = await refs(await browser.$$('class name:CheckBox'));
        check('class name:CheckBox agrees with //CheckBox', boxes.length > 0 && JSON.stringify(byClass) === JSON.stringify(boxes), { boxes, byClass });
        const raw = await browser.findElements('-automation selector', JSON.stringify({ role: 'CheckBox', label: 'checkbutton' }));
        const bySelector = raw.map((r) => Object.values(r)[0]);
        const want = Array.from(await browser.$$("//CheckBox[@name='checkbutton']")).map((e) => e.elementId);
        check('-automation selector agrees with the XPath', want.length > 0 && JSON.stringify(bySelector) === JSON.stringify(want), { want, bySelector });
        const src = await browser.getPageSource();
        facts.page_source_chars = src.length;
        check('page source is <App …>', /^\s*(<\?xml[^>]*>\s*)?<App[\s>]/.test(src), { head: src.slice(0, 80) });
        const missing = await browser.findElements('xpath', "//Button[@name='no such button here']");
        check('a missing XPath finds nothing', Array.isArray(missing) && missing.length === 0, { missing });
    });
}

async function calculator(browser) {
    const pid = browser.capabilities['automation:pid'];
    await section('calculator', async () => {
        const display = await browser.$('class name:TextInput');
        await display.waitForExist({ timeout: 10000 });
        await (await browser.$('name:6')).click();
        const six = await waitFor(async () => (await display.getText()).trim() === '6');
        check('calculator: display reads 6', six === true, { got: await display.getText() });
        await (await browser.$(`name:${TIMES}`)).click();
        await (await browser.$('name:7')).click();
        const seven = await waitFor(async () => (await display.getText()).trim() === '7');
        check('calculator: display reads 7', seven === true, { got: await display.getText() });
        // With options, WebdriverIO clicks through the actions API (pointer move to the element,
        // down, up); for an app session its pointer type is `touch`.
        await (await browser.$('name:=')).click({ button: 0 });
        const done = await waitFor(async () => (await display.getText()).trim() === '42');
        facts.calculator_display = await display.getText();
        check('calculator: display reads 42', done === true, { got: facts.calculator_display });
        const seen = await oracleUntil(pid, { role: 'text' }, (all) => all.some((o) => (o.text || '').trim() === '42'));
        check('calculator: oracle Text is 42', seen.ok, { texts: seen.all.map((o) => o.text) });
    });
}

async function withSession(app, prefix, fn) {
    let browser;
    await section(prefix, async () => {
        browser = await session(app, prefix);
        try {
            await fn(browser);
        } finally {
            const t = performance.now();
            await browser.deleteSession();
            facts[`${prefix}_quit_ms`] = Math.round(performance.now() - t);
        }
    });
}

await withSession(GTK3, 'gtk3', gtk3);
await withSession(QT_CALCULATOR, 'calculator', calculator);

const ok = failures.length === 0 && Object.keys(checks).length > 0;
process.stdout.write(JSON.stringify({ ...facts, ok, checks, failed: failures.map((f) => f.failed) }) + '\n');
process.exit(ok ? 0 : 1);
