//! New-session capabilities: W3C's `alwaysMatch` merged with each `firstMatch` in turn, the
//! first set that names one target wins. The target is `appium:app` (a command line, as
//! KDE's AT-SPI driver and Appium's desktop drivers take it) or one `automation:*`
//! capability; vendor capabilities of other prefixes are ignored, as W3C asks.

use serde_json::{Map, Value, json};

use automation_session::mode::Mode;

/// The `appium:automationName` this server answers to.
pub const AUTOMATION_NAME: &str = "automation";

/// Our capabilities, each with what it takes.
pub const OURS: &[(&str, &str)] = &[
    (
        "appium:app",
        "a command line to launch (on a private display unless automation:virtualDisplay is false)",
    ),
    (
        "automation:virtualDisplay",
        "with appium:app: false launches it on the server's own display and session bus (default true)",
    ),
    (
        "automation:atspi",
        "a running app on the server's accessibility bus, by name or pid",
    ),
    ("automation:headless", "true: the built-in headless demo"),
    (
        "automation:connect",
        "a bridge endpoint (socket path or pipe name) of an app built with the kit",
    ),
    ("automation:token", "the token for automation:connect"),
];

/// What a new session asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Wanted {
    /// The target.
    pub mode: Mode,
    /// The capabilities as matched (echoed in the reply).
    pub matched: Map<String, Value>,
}

impl Wanted {
    /// The command line, for an `appium:app` session (the allow-list checks it).
    pub fn command(&self) -> Option<&str> {
        match &self.mode {
            Mode::Launch { command, .. } => Some(command),
            _ => None,
        }
    }
}

/// A `POST /session` body: W3C's `capabilities`, or the legacy `desiredCapabilities`.
#[derive(Debug, serde::Deserialize)]
struct NewSessionBody {
    #[serde(default)]
    capabilities: Option<Capabilities>,
    #[serde(default, rename = "desiredCapabilities")]
    desired_capabilities: Option<Map<String, Value>>,
}

/// W3C's capabilities: what every set holds, and the sets tried in turn.
#[derive(Debug, serde::Deserialize)]
struct Capabilities {
    #[serde(default, rename = "alwaysMatch")]
    always_match: Option<Map<String, Value>>,
    #[serde(default, rename = "firstMatch")]
    first_match: Option<Vec<Map<String, Value>>>,
}

/// Reads a `POST /session` body: `{"capabilities": {"alwaysMatch", "firstMatch"}}` (or the
/// legacy `desiredCapabilities`). `Err` says why no set matched, for `session not created`
/// — or, with `true`, that the body itself is malformed (`invalid argument`).
pub fn read(body: &Value) -> Result<Wanted, (bool, String)> {
    let body: NewSessionBody = super::bodies::typed(body.clone()).map_err(|e| {
        (
            true,
            format!("{e}; the new-session body is {{\"capabilities\": {{\"alwaysMatch\": {{…}}, \"firstMatch\": [{{…}}]}}}}"),
        )
    })?;
    let (always, first) = match (body.capabilities, body.desired_capabilities) {
        (Some(c), _) => {
            let first = c.first_match.filter(|f| !f.is_empty());
            (
                c.always_match.unwrap_or_default(),
                first.unwrap_or_else(|| vec![Map::new()]),
            )
        }
        (None, Some(d)) => (d, vec![Map::new()]),
        (None, None) => {
            return Err((
                true,
                "the body has no `capabilities`; send {\"capabilities\": {\"alwaysMatch\": {\"appium:app\": \"gtk3-widget-factory\"}}}".into(),
            ));
        }
    };
    let mut reasons = Vec::new();
    for f in first {
        let mut merged = always.clone();
        for (k, v) in f {
            if merged.contains_key(&k) {
                return Err((
                    true,
                    format!("capability {k:?} is in both alwaysMatch and firstMatch"),
                ));
            }
            merged.insert(k, v);
        }
        match matched(merged) {
            Ok(w) => return Ok(w),
            Err((true, e)) => return Err((true, e)),
            Err((false, e)) => reasons.push(e),
        }
    }
    Err((false, reasons.join("; ")))
}

/// One merged set: the target it names, or why it matches none.
fn matched(caps: Map<String, Value>) -> Result<Wanted, (bool, String)> {
    let text = |k: &str| -> Result<Option<String>, (bool, String)> {
        match caps.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) if k == "automation:atspi" => Ok(Some(n.to_string())),
            Some(other) => Err((
                true,
                format!("capability {k:?} must be a string, got {other}"),
            )),
        }
    };
    let flag = |k: &str| -> Result<Option<bool>, (bool, String)> {
        match caps.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err((
                true,
                format!("capability {k:?} must be true or false, got {other}"),
            )),
        }
    };
    for k in caps.keys() {
        if k.starts_with("automation:") && !OURS.iter().any(|(o, _)| o == k) {
            let ours: Vec<&str> = OURS.iter().map(|(o, _)| *o).collect();
            return Err((
                true,
                format!(
                    "unknown capability {k:?}; this server reads {}",
                    ours.join(", ")
                ),
            ));
        }
    }
    if let Some(p) = text("platformName")?
        && !p.eq_ignore_ascii_case("linux")
        && !p.eq_ignore_ascii_case("any")
    {
        return Err((
            false,
            format!("platformName {p:?} is not this server's (linux)"),
        ));
    }
    if let Some(n) = text("appium:automationName")?
        && !n.eq_ignore_ascii_case(AUTOMATION_NAME)
    {
        return Err((
            false,
            format!("appium:automationName {n:?} is not this server's ({AUTOMATION_NAME:?})"),
        ));
    }
    if let Some(b) = text("browserName")?
        && !b.is_empty()
    {
        return Err((
            false,
            format!("browserName {b:?}: this server drives desktop apps, not browsers"),
        ));
    }
    let app = text("appium:app")?.filter(|a| !a.trim().is_empty());
    let atspi = text("automation:atspi")?;
    let headless = flag("automation:headless")?.unwrap_or(false);
    let connect = text("automation:connect")?;
    let token = text("automation:token")?;
    let virtual_display = flag("automation:virtualDisplay")?.unwrap_or(true);
    let named = [app.is_some(), atspi.is_some(), headless, connect.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    if named > 1 {
        return Err((true, "name one target: appium:app, automation:atspi, automation:headless or automation:connect, not several".into()));
    }
    let mode = if let Some(command) = app {
        Mode::Launch {
            command,
            virtual_display,
            display: Default::default(),
        }
    } else if let Some(which) = atspi {
        Mode::Atspi(which)
    } else if headless {
        Mode::Headless
    } else if let Some(endpoint) = connect {
        Mode::Connect { endpoint, token }
    } else {
        return Err((false, "no target: set appium:app to a command line (e.g. \"gtk3-widget-factory\"), or automation:atspi, automation:headless or automation:connect".into()));
    };
    Ok(Wanted {
        mode,
        matched: caps,
    })
}

/// The capabilities a new session answers with.
pub fn reply(wanted: &Wanted, describe: &str) -> Value {
    let mut caps = wanted.matched.clone();
    caps.insert("platformName".into(), json!("linux"));
    caps.insert("appium:automationName".into(), json!(AUTOMATION_NAME));
    caps.insert("automation:target".into(), json!(describe));
    // The app's pid, when it has one: an independent reader (pyatspi in a test) finds the
    // app's display and buses in its environment.
    if let Some(pid) = describe
        .split("(pid ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|p| p.parse::<u32>().ok())
    {
        caps.insert("automation:pid".into(), json!(pid));
    }
    Value::Object(caps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(v: Value) -> Result<Wanted, (bool, String)> {
        read(&json!({ "capabilities": v }))
    }

    #[test]
    fn the_app_capability_launches_on_a_private_display_by_default() {
        let w = caps(json!({"alwaysMatch": {"platformName": "Linux", "appium:automationName": "Automation", "appium:app": "gtk3-widget-factory"}})).unwrap();
        assert_eq!(
            w.mode,
            Mode::Launch {
                command: "gtk3-widget-factory".into(),
                virtual_display: true,
                display: Default::default(),
            }
        );
        let w = caps(json!({"alwaysMatch": {"appium:app": "zenity --entry", "automation:virtualDisplay": false}})).unwrap();
        assert_eq!(w.command(), Some("zenity --entry"));
        let w = caps(
            json!({"firstMatch": [{"platformName": "windows"}, {"automation:headless": true}]}),
        )
        .unwrap();
        assert_eq!(w.mode, Mode::Headless);
    }

    #[test]
    fn unmatched_and_malformed_sets_say_why() {
        let (malformed, why) =
            caps(json!({"alwaysMatch": {"appium:automationName": "mac2", "appium:app": "x"}}))
                .unwrap_err();
        assert!(!malformed && why.contains("mac2"), "{why}");
        let (_, why) = caps(json!({"alwaysMatch": {}})).unwrap_err();
        assert!(why.contains("appium:app"), "{why}");
        let (malformed, why) =
            caps(json!({"alwaysMatch": {"automation:headles": true}})).unwrap_err();
        assert!(malformed && why.contains("automation:headless"), "{why}");
        assert!(read(&json!([1])).unwrap_err().0);
        assert!(
            caps(json!({"alwaysMatch": {"appium:app": "a", "automation:headless": true}}))
                .unwrap_err()
                .0
        );
    }
}
