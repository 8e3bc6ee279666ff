//! The request bodies of the commands that take one, typed as W3C WebDriver spells them; each
//! says its own usage for the `invalid argument` a body that does not fit gets. (The actions
//! API's body lives with its parser, in `input`; a find's with the locators, in `locate`.)

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// `value` read as `T`; the error names the path to the field that did not fit.
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| match e.path().to_string() {
        p if p == "." => e.inner().to_string(),
        p => format!("`{p}`: {}", e.inner()),
    })
}

/// `POST …/element/{id}/value`: the text (W3C), or the legacy list of strings.
#[derive(Debug, Deserialize)]
pub struct SendKeysBody {
    /// The text, with W3C's special-key code points.
    #[serde(default)]
    pub text: Option<String>,
    /// The legacy form: strings to join.
    #[serde(default)]
    pub value: Option<Vec<String>>,
}

impl SendKeysBody {
    /// What the body looks like.
    pub const USAGE: &str = "send keys takes {\"text\": \"…\"}";
}

/// `POST …/execute/sync`: `automation: <op>` with the op's arguments (JSON handed to the op as
/// it came, elements unwrapped), or one of Selenium's atoms.
#[derive(Debug, Deserialize)]
pub struct ExecuteBody {
    /// The script.
    pub script: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
}

impl ExecuteBody {
    /// What the body looks like.
    pub const USAGE: &str = "execute takes {\"script\": \"automation: <op>\", \"args\": [{…}]}";
}

/// `POST …/window`: the handle to switch to (`name` is its legacy spelling).
#[derive(Debug, Deserialize)]
pub struct SwitchWindowBody {
    /// A handle from `GET …/window/handles`.
    #[serde(default)]
    pub handle: Option<String>,
    /// The legacy field.
    #[serde(default)]
    pub name: Option<String>,
}

impl SwitchWindowBody {
    /// What the body looks like.
    pub const USAGE: &str = "switch to window takes {\"handle\": \"…\"} from GET /window/handles";
}

/// `POST …/timeouts`: any of the three, in milliseconds (`null` or absent: unchanged).
#[derive(Debug, Deserialize)]
pub struct TimeoutsBody {
    /// How long a find looks again for what it did not find.
    #[serde(default)]
    pub implicit: Option<Millis>,
    /// Kept and answered; there are no pages to load.
    #[serde(default, rename = "pageLoad")]
    pub page_load: Option<Millis>,
    /// Kept and answered.
    #[serde(default)]
    pub script: Option<Millis>,
}

impl TimeoutsBody {
    /// What the body looks like.
    pub const USAGE: &str =
        "timeouts take whole milliseconds ≥ 0 under 2^53, like {\"implicit\": 5000}";
}

/// A timeout: whole milliseconds, at most W3C's 2^53 − 1.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "u64")]
pub struct Millis(pub u64);

impl TryFrom<u64> for Millis {
    type Error = String;

    fn try_from(ms: u64) -> Result<Self, String> {
        if ms < (1u64 << 53) {
            Ok(Self(ms))
        } else {
            Err(format!("{ms} is over 2^53 − 1"))
        }
    }
}
