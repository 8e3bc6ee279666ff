//! Property tests: arbitrary input never panics; print → parse is the identity on trees.

#![cfg(all(feature = "expr", feature = "detect"))]

use automation_transpile::detect::detect;
use automation_transpile::expr::{CmpOp, Expr, Func, Path, Pattern, Segment};
use proptest::prelude::*;
use serde_json::{Number, Value, json};

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z_$][a-zA-Z0-9_$]{0,6}".prop_filter("keywords are literals", |s| {
        !["true", "false", "null"].contains(&s.to_ascii_lowercase().as_str())
    })
}

fn literal() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        any::<String>().prop_map(Value::String),
        "[ -~\u{2018}\u{201C}\u{a0}`\\\\\n]{0,8}".prop_map(Value::String),
    ]
}

fn path() -> impl Strategy<Value = Path> {
    let seg = prop_oneof![
        ident().prop_map(Segment::Key),
        any::<String>().prop_map(Segment::Key),
        (0usize..1000).prop_map(Segment::Index),
    ];
    (ident(), prop::collection::vec(seg, 0..4)).prop_map(|(first, rest)| {
        let mut segments = vec![Segment::Key(first)];
        segments.extend(rest);
        Path { segments }
    })
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge),
    ]
}

fn tree() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        literal().prop_map(Expr::Literal),
        path().prop_map(Expr::Path)
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            (cmp_op(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| Expr::Compare {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r)
            }),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::And),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::Or),
            (
                prop::sample::select(vec![
                    Func::Contains,
                    Func::StartsWith,
                    Func::EndsWith,
                    Func::Always,
                    Func::Coalesce,
                    Func::Length,
                    Func::Lower,
                    Func::Upper,
                ]),
                prop::collection::vec(inner.clone(), 0..4)
            )
                .prop_map(|(func, mut args)| {
                    let (min, max) = func.arity();
                    while args.len() < min {
                        args.push(Expr::Literal(Value::Null));
                    }
                    args.truncate(max.unwrap_or(args.len()));
                    Expr::Call { func, args }
                }),
            (inner, "[a-z.+*]{1,5}").prop_filter_map("valid regex", |(text, pat)| {
                Pattern::new(&pat).ok().map(|p| Expr::Call {
                    func: Func::Matches,
                    args: vec![text, Expr::Pattern(p)],
                })
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(e in tree()) {
        let printed = e.to_string();
        let again = Expr::parse(&printed);
        prop_assert_eq!(again.as_ref().ok(), Some(&e), "printed: {}", printed);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        if let Ok(e) = Expr::parse(&s) {
            let _ = e.evaluate(&json!({"a": [1, {"b": "c"}]}));
            prop_assert_eq!(Expr::parse(&e.to_string()).ok(), Some(e));
        }
        let _ = detect(&s);
    }

    #[test]
    fn near_miss_expressions_never_panic(s in "[a-c0-9()'\"!=<>&|.,\\[\\] `\u{2018}\\\\-]{0,40}") {
        match Expr::parse(&s) {
            Ok(e) => {
                let _ = e.evaluate(&json!({"a": [1, 2], "b": "x", "c": {"0": true}}));
                prop_assert_eq!(Expr::parse(&e.to_string()).ok(), Some(e));
            }
            Err(err) => {
                prop_assert!(err.position <= s.chars().count());
                let _ = err.to_json();
                let _ = err.caret();
            }
        }
    }

    #[test]
    fn near_miss_scripts_never_panic(s in "[a-z:?!<>(){}\\[\\]'\"`$/*\n =;,.\\\\]{0,80}") {
        let _ = detect(&s);
    }
}
