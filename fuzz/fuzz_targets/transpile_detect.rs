//! `detect` and the in-process oxc `transpile` on arbitrary UTF-8 (first byte 0) or on
//! TypeScript-ish token soup with deep nesting (first byte != 0).
//! Oracles: no panic; the detection span lies inside the source on char boundaries;
//! `detect` agrees with `transpile`'s `was_typescript`; plain JavaScript without JSX comes
//! back unchanged; errors serialise.
#![no_main]

use arbitrary::{Result, Unstructured};
use automation_transpile::{Backend, Transpiler, detect};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const WORDS: &[&str] = &[
    "let", "const", "var", "function", "return", "if", "else", "for", "while", "class",
    "interface", "type", "enum", "namespace", "declare", "abstract", "implements", "extends",
    "public", "private", "protected", "readonly", "as", "satisfies", "keyof", "typeof", "infer",
    "is", "asserts", "unique", "symbol", "import", "export", "from", "default", "new", "this",
    "async", "await", "yield", "get", "set", "static", "override", "accessor", "of", "in",
    "number", "string", "boolean", "any", "unknown", "never", "void", "null", "undefined",
    "x", "y", "Foo", "T", "U", "desktop", "locator", "=>", ":", "?", "?:", "!", "!.", "<", ">",
    "=", "==", "===", "!==", "&&", "||", "??", "?.", "|", "&", "+", "-", "*", "/", "%", "...",
    ",", ";", ".", "@", "#", "0", "1.5", "0x1F", "1e39", "'s'", "\"d\"", "`t${x}`", "/re/g",
    "//c\n", "/*c*/", "\n", " ", "\t", "\\", "'", "\"", "`", "${", "}", "</", "/>", "<T,>",
];

const OPEN: &[(&str, &str)] = &[
    ("(", ")"), ("[", "]"), ("{", "}"), ("<", ">"), ("`${", "}`"), ("/*", "*/"), ("'", "'"),
    ("<T>(", ")"), ("x as (", ")"), ("function f<T extends (", ")>() {}"), ("", ""),
];

fn soup(u: &mut Unstructured<'_>, out: &mut String, depth: u32) -> Result<()> {
    let n = u.int_in_range(0..=12)?;
    for _ in 0..n {
        if u.is_empty() {
            break;
        }
        match u.int_in_range(0..=9)? {
            0..=6 => {
                out.push_str(u.choose(WORDS)?);
                if u.ratio(1, 2)? {
                    out.push(' ');
                }
            }
            7 if depth < 200 => {
                let (open, close) = u.choose(OPEN)?;
                out.push_str(open);
                soup(u, out, depth + 1)?;
                // Unbalanced on purpose now and then.
                if !u.ratio(1, 16)? {
                    out.push_str(close);
                }
            }
            8 => {
                let c: char = u.arbitrary()?;
                out.push(c);
            }
            _ => {
                let reps = u.int_in_range(1..=300)?;
                let open = u.choose(&["(", "[", "{", "<", "a?.b.", "!"])?;
                for _ in 0..reps {
                    out.push_str(open);
                }
            }
        }
    }
    Ok(())
}

fn oxc() -> &'static Transpiler {
    static T: OnceLock<Transpiler> = OnceLock::new();
    T.get_or_init(|| Transpiler::builder().backends([Backend::Oxc]).build())
}

fn check(src: &str) {
    let d = detect(src);
    if let Some((a, b)) = d.span {
        assert!(a <= b && b <= src.len(), "span {a}..{b} outside {} bytes", src.len());
        assert!(src.get(a..b).is_some(), "span {a}..{b} not on char boundaries");
    }
    match oxc().transpile(src) {
        Ok(t) => {
            assert_eq!(t.was_typescript, d.is_typescript);
            assert_eq!(t.detection, d);
            if !t.was_typescript && !t.jsx {
                assert_eq!(t.code, src);
            }
        }
        Err(e) => {
            // Plain JavaScript fails only as TypeScript would: a write to a `const`, or JSX
            // (found by oxc) that does not transform.
            assert!(
                d.is_typescript
                    || e.kind == automation_transpile::TranspileErrorKind::TypeError
                    || (e.backend == Some(Backend::Oxc)
                        && e.kind != automation_transpile::TranspileErrorKind::SystemError),
                "an error on plain JavaScript: {e:?}"
            );
            let _ = serde_json::to_string(&e.to_json()).expect("error JSON");
            let _ = e.into_mcp_error();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode == 0 {
        if let Ok(s) = std::str::from_utf8(rest) {
            check(s);
        }
    } else {
        let mut u = Unstructured::new(rest);
        let mut src = String::new();
        let _ = soup(&mut u, &mut src, 0);
        check(&src);
    }
});
