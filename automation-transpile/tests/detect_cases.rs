//! The detector's table: every false positive of Terminator's `is_typescript_code` regexes
//! stays JavaScript, every missed case is caught, and the usual TypeScript constructs are found.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "detect")]

use automation_transpile::detect::detect;

/// Valid JavaScript (Terminator's `is_typescript_code` regexes flag most of the first block).
const JAVASCRIPT: &[&str] = &[
    // The spec's false positives: TS-looking text in strings and comments.
    "const msg = 'log in as admin';",
    "// configure the interface settings\ndesktop.click('#ok');",
    "desktop.type(\"private browsing\");",
    "const html = '<p>Hello<br>';",
    "await sleep(100); // (default: 5000)",
    "log(\"Done!.\");",
    "import * as fs from 'fs';",
    "/* type Foo = string; interface X {} */ run();",
    "const t = `as admin ${user} interface settings`;",
    "const t = `outer ${cond ? `inner: ${x}` : 'no'} end: 1`;",
    "const re = /as admin: (\\d+)!/g; re.test(s);",
    "if (x) { const m = s.match(/private: [a-z]+/); }",
    // Ordinary JavaScript that uses ':' '?' '!' '<' 'as' legitimately.
    "desktop.click('#ok');",
    "const o = { timeout: 5000, retries: 3 };",
    "const v = ready ? 'go' : 'wait';",
    "const v = a ? (b) : c;",
    "f(a ? b : c, { k: v });",
    "switch (x) { case 1: break; case (2): y(); default: z(); }",
    "outer: for (const a of list) { if (!a) continue outer; }",
    "if (a < b && c > d) { go(); }",
    "for (let i = 0; i < n.length; i++) { total += n[i]; }",
    "if (x !== y && !done) { stop(); }",
    "const ok = !ready;",
    "import { a as b, c } from './mod.js';\nexport { b as default };",
    "export * as ns from './mod.js';",
    "const type = 'button'; if (type === 'button') click();",
    "let as = 1; as += 2;",
    "const interfaceName = 'eth0';",
    "obj.private = true; obj.interface = 'x'; obj.type = 'y';",
    "const o = { private: true, public: false, readonly: 1 };",
    "class A { constructor(x) { this.x = x ? 1 : 2; } get y() { return this.x; } }",
    "class B extends A { static z = 1; #p = 2; m() { return { a: 1 }; } }",
    "const el = { class: 'btn' }; if (el) { label: { break label; } }",
    "const f = (a, b = {}) => ({ a: a ?? b?.c });",
    "x = y?.z ? 1 : 2; w = a?.5:1;",
    "const n = a / b / c; const r = (x) / 2;",
    "return_value = 3 > 2 ? 'yes' : 'no';",
    "const s = \"it's: fine\" + 'a \\' b: c';",
    "function f(a, b) { return a < b ? a : b; }",
    "let x = 5;\nlet y = x!== 3;",
    "const big = 1e-5 + 0x1F + 1_000;",
    "async function run() { await desktop.open('notepad'); }",
    "const { a, b: renamed } = obj;",
    "const [first, second] = list;",
    "try { go(); } catch (e) { log(e.message); } finally { done(); }",
    "#!/usr/bin/env node\ndesktop.click('#ok');",
    "if (ready) !silent && log('ready');",
    "const n = count++ + 1; const m = !flag;",
];

/// TypeScript, with the rule expected to fire.
const TYPESCRIPT: &[(&str, &str)] = &[
    // The spec's missed cases.
    ("let el: HTMLElement | null = null;", "type annotation"),
    ("function f(a?: Foo) {}", "optional member or parameter"),
    ("abstract class Shape { }", "abstract class"),
    ("class Dog extends Animal implements Pet { }", "implements"),
    ("const cfg = { a: 1 } satisfies Config;", "satisfies"),
    ("const v = maybe!;", "non-null assertion"),
    (
        "document.querySelector('#x')!.click();",
        "non-null assertion",
    ),
    ("use(value!)", "non-null assertion"),
    ("const last = items.pop()!", "non-null assertion"),
    ("let v = el![0];", "non-null assertion"),
    // Annotations.
    ("const x: string = 'a';", "type annotation"),
    (
        "function add(a: number, b: number) { return a + b; }",
        "type annotation",
    ),
    ("const f = (a: number) => a * 2;", "type annotation"),
    ("function f(): void {}", "return type annotation"),
    (
        "const f = async (): Promise<void> => {};",
        "return type annotation",
    ),
    ("function f({ a, b }: Props) {}", "type annotation"),
    ("class A { x: number = 1; }", "type annotation"),
    ("class A { y?: string; }", "optional member or parameter"),
    ("function f(a?) {}", "optional parameter"),
    ("let x!: number;", "non-null assertion"),
    (
        "const x string = 1;",
        "type after a declared name without ':'",
    ),
    // Declarations.
    ("interface User { name: string }", "interface"),
    ("export interface User extends Base { }", "interface"),
    ("interface Box<T> { v: T }", "interface"),
    ("type Id = string | number;", "type alias"),
    ("export type Pair<T> = [T, T];", "type alias"),
    ("enum Color { Red, Green }", "enum"),
    ("const enum Flags { A = 1 }", "enum"),
    ("namespace NS { export const a = 1; }", "namespace"),
    ("declare const VERSION: string;", "declare"),
    ("declare module 'foo' { }", "declare"),
    ("import type { Page } from './page';", "import type"),
    ("import { type Page, run } from './page';", "import type"),
    ("export type { Page };", "import type"),
    ("import fs = require('fs');", "import = require"),
    // Generics and casts.
    ("function id<T>(x: T) { return x; }", "generic parameters"),
    ("class Box<T> { }", "generic parameters"),
    ("const m = new Map<string, number>();", "generic arguments"),
    (
        "const [s, set] = useState<string | null>(null);",
        "generic arguments",
    ),
    ("const p = load<Array<Item>>('x');", "generic arguments"),
    ("const el = document.body as HTMLElement;", "as cast"),
    ("const v = JSON.parse(s) as unknown as Config;", "as cast"),
    ("const t = ['a', 'b'] as const;", "as cast"),
    ("const o = x as { a: number };", "as cast"),
    ("export const v = y as T;", "as cast"),
    // Class members.
    ("class A { private secret = 1; }", "access modifier"),
    ("class A { constructor(public name) {} }", "access modifier"),
    ("class A { readonly id = 1; }", "access modifier"),
    ("class A { protected run() {} }", "access modifier"),
    // Inside nested template code, still found.
    ("const s = `${(x as any).y}`;", "as cast"),
    ("const s = `a ${f((v: number) => v)} b`;", "type annotation"),
];

#[test]
fn javascript_is_not_typescript() {
    let wrong: Vec<String> = JAVASCRIPT
        .iter()
        .filter_map(|src| {
            let d = detect(src);
            d.is_typescript.then(|| {
                let at = d.span.and_then(|(s, e)| src.get(s..e)).unwrap_or("");
                format!("{src:?}: flagged by {:?} at {at:?}", d.reason)
            })
        })
        .collect();
    assert!(wrong.is_empty(), "false positives:\n{}", wrong.join("\n"));
}

#[test]
fn typescript_is_detected_with_the_right_reason() {
    let wrong: Vec<String> = TYPESCRIPT
        .iter()
        .filter_map(|(src, reason)| {
            let d = detect(src);
            (!d.is_typescript || d.reason != Some(reason))
                .then(|| format!("{src:?}: got {:?}, want {reason:?}", d.reason))
        })
        .collect();
    assert!(wrong.is_empty(), "misses:\n{}", wrong.join("\n"));
}

#[test]
fn span_points_at_the_evidence() {
    let src = "desktop.click('#a');\nlet el: HTMLElement | null = null;";
    let d = detect(src);
    let (s, e) = d.span.expect("a span");
    assert_eq!(src.get(s..e), Some(":"));
}

#[test]
fn mixed_module_starting_with_interface() {
    let src = "interface Step { name: string }\nconst steps = [];\ndesktop.click('#ok');\n";
    assert!(detect(src).is_typescript);
}

#[test]
fn unterminated_constructs_do_not_hang_or_panic() {
    for src in [
        "'abc",
        "`abc ${",
        "/* never closed",
        "x = /re",
        "`${`${`${",
        "}}}",
        ")))",
    ] {
        let _ = detect(src);
    }
}
