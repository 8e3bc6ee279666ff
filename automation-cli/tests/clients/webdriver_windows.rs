//! Windows over WebDriver, on a real app with two top-level windows
//! (`tests/python/two_windows.py`, GTK 3, each window with an entry named "Note"): a handle
//! per window and its title; after a switch, finds (every strategy) and the page source see
//! that window alone, and keys typed land in that window's entry — judged by the app's own
//! record of what each entry holds. A find from an element with the kit's selector looks
//! under that element even when the app's first match lies elsewhere.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::webdriver as wd;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wd::{ELEMENT, Server, Session, TwoWindows, http};

#[test]
fn a_switch_scopes_finds_and_the_source_to_that_window_and_typing_lands_there() {
    // A GTK app on a private display.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let Some(two) = TwoWindows::new() else {
        return;
    };
    let server = Server::start(&[]);
    let addr = server.addr();
    let caps = json!({
        "platformName": "linux",
        "appium:automationName": "automation",
        "appium:app": two.app,
    });
    let session = Session::new(&addr, caps);
    let call = |method: &str, path: &str, v: Value| session.call(method, path, v);
    let refs = |found: &Value| -> Vec<String> {
        found
            .as_array()
            .unwrap()
            .iter()
            .map(Session::element)
            .collect()
    };

    // Both windows, each a handle (the second may show a moment after the first).
    let until = Instant::now() + Duration::from_secs(20);
    let handles = loop {
        let h = call("GET", "/window/handles", Value::Null);
        if h.as_array().unwrap().len() == 2 || Instant::now() > until {
            break h;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(handles.as_array().unwrap().len(), 2, "{handles}");

    // Before any switch a find sees the whole app: both entries.
    let both = refs(&call(
        "POST",
        "/elements",
        json!({"using": "name", "value": "Note"}),
    ));
    assert_eq!(both.len(), 2, "{both:?}");
    // From each window's element, the kit's selector finds that window's entry, though the
    // app's first match lies in the first window.
    let selector = json!({"using": "-automation selector", "value": r#"{"role": "TextInput", "label": "Note"}"#});
    let mut per_window = Vec::new();
    for title in ["First", "Second"] {
        let win = call(
            "POST",
            "/element",
            json!({"using": "xpath", "value": format!("//*[@name=\"{title}\"]")}),
        );
        let win = win[ELEMENT].as_str().unwrap().to_string();
        let note = call("POST", &format!("/element/{win}/element"), selector.clone());
        let by_name = call(
            "POST",
            &format!("/element/{win}/element"),
            json!({"using": "name", "value": "Note"}),
        );
        assert_eq!(
            note[ELEMENT], by_name[ELEMENT],
            "{title}: {note} vs {by_name}"
        );
        per_window.push(note[ELEMENT].as_str().unwrap().to_string());
    }
    assert_ne!(
        per_window[0], per_window[1],
        "each window has its own entry"
    );
    assert!(
        per_window.iter().all(|r| both.contains(r)),
        "{per_window:?} in {both:?}"
    );

    // A handle per window: switch to each and read its title.
    let mut second = None;
    let mut titles = Vec::new();
    for h in handles.as_array().unwrap() {
        call("POST", "/window", json!({"handle": h}));
        let title = call("GET", "/title", Value::Null);
        if title == "Second" {
            second = Some(h.clone());
        }
        titles.push(title);
    }
    titles.sort_by_key(Value::to_string);
    assert_eq!(titles, [json!("First"), json!("Second")]);
    let (status, body) = http(
        &addr,
        "POST",
        &format!("/session/{}/window", session.id),
        br#"{"handle": "999999"}"#,
        &[],
    );
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("no such window")),
        "{body}"
    );

    // Switched to "Second": the source, and every strategy, see that window alone.
    call(
        "POST",
        "/window",
        json!({"handle": second.clone().unwrap()}),
    );
    let source = call("GET", "/source", Value::Null);
    let source = source.as_str().unwrap();
    assert!(
        source.contains("name=\"Second\"") && !source.contains("name=\"First\""),
        "{source}"
    );
    let in_second = refs(&call(
        "POST",
        "/elements",
        json!({"using": "name", "value": "Note"}),
    ));
    assert_eq!(in_second, [per_window[1].clone()]);
    let by_xpath = refs(&call(
        "POST",
        "/elements",
        json!({"using": "xpath", "value": "//TextInput"}),
    ));
    assert_eq!(by_xpath, in_second);
    let by_selector = call("POST", "/element", selector.clone());
    assert_eq!(by_selector[ELEMENT], json!(per_window[1]), "{by_selector}");
    let by_name = call(
        "POST",
        "/element",
        json!({"using": "name", "value": "Note"}),
    );
    assert_eq!(by_name[ELEMENT], json!(per_window[1]), "{by_name}");

    // Typing there lands in the second window's entry, and only there.
    call(
        "POST",
        &format!("/element/{}/value", per_window[1]),
        json!({"text": "into second"}),
    );
    let text = two.record_with("Second: into second");
    assert!(
        text.lines().any(|l| l == "Second: into second") && !text.contains("First:"),
        "the app's record: {text:?}"
    );

    // Back to "First": its entry, and typing lands there.
    let first = handles
        .as_array()
        .unwrap()
        .iter()
        .find(|h| Some(*h) != second.as_ref())
        .unwrap()
        .clone();
    call("POST", "/window", json!({"handle": first}));
    let by_name = call(
        "POST",
        "/element",
        json!({"using": "name", "value": "Note"}),
    );
    assert_eq!(by_name[ELEMENT], json!(per_window[0]), "{by_name}");
    call(
        "POST",
        &format!("/element/{}/value", per_window[0]),
        json!({"text": "into first"}),
    );
    let text = two.record_with("First: into first");
    assert!(
        text.lines().any(|l| l == "First: into first"),
        "the app's record: {text:?}"
    );

    call("DELETE", "", Value::Null);
}
