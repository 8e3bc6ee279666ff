//! The AI-shaped error contract: one [`TranspileError`] whatever the backend.
//!
//! Positions: `line` is 1-based, `column` is a 0-based offset in characters (Unicode scalar
//! values) within that line, for every backend (`const x string = 1;` → line 1, column 8,
//! the `s` of `string`).

use super::Backend;
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt;

/// The literal instruction of the `use_javascript` recovery (as Terminator's transpiler words it).
pub const USE_JAVASCRIPT_INSTRUCTION: &str = "Rewrite without TypeScript syntax. Remove: type annotations (: string), interfaces, generics (<T>), 'as' casts, enum, namespace.";

/// Where to get a transpiler when none is installed.
pub const ESBUILD_URL: &str = "https://esbuild.github.io/getting-started/";

/// The failure category (`error_type` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TranspileErrorKind {
    /// The script does not parse.
    SyntaxError,
    /// It parses but is rejected (TS2xxx diagnostics, assignment to a constant, …).
    TypeError,
    /// No transpiler is available for a script that needs one.
    MissingTool,
    /// The transpiler could not be run, or failed without a diagnostic (transient).
    SystemError,
}

impl TranspileErrorKind {
    /// The `error_type` string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SyntaxError => "syntax_error",
            Self::TypeError => "type_error",
            Self::MissingTool => "missing_tool",
            Self::SystemError => "system_error",
        }
    }
}

/// What the agent should do next (`recovery` in JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// Rewrite the code around `location` using `message` and `fix`: `"fix_code"`.
    FixCode,
    /// Transient: call again: `"retry"`.
    Retry,
    /// Remove the TypeScript syntax and run the script again:
    /// `{"action":"use_javascript","instruction":…}`.
    UseJavascript {
        /// The literal instruction, [`USE_JAVASCRIPT_INSTRUCTION`].
        instruction: String,
    },
    /// A human must install a tool: `{"action":"install_tool","tool":…,"url":…}`.
    InstallTool {
        /// Tool name, e.g. `esbuild`.
        tool: String,
        /// Where to get it.
        url: String,
    },
}

impl Recovery {
    /// The `use_javascript` recovery, worded as Terminator's transpiler words it.
    pub fn use_javascript() -> Self {
        Self::UseJavascript {
            instruction: USE_JAVASCRIPT_INSTRUCTION.to_owned(),
        }
    }

    /// The `install_tool` recovery for esbuild.
    pub fn install_esbuild() -> Self {
        Self::InstallTool {
            tool: "esbuild".to_owned(),
            url: ESBUILD_URL.to_owned(),
        }
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        match self {
            Self::FixCode => json!("fix_code"),
            Self::Retry => json!("retry"),
            Self::UseJavascript { instruction } => {
                json!({"action": "use_javascript", "instruction": instruction})
            }
            Self::InstallTool { tool, url } => {
                json!({"action": "install_tool", "tool": tool, "url": url})
            }
        }
    }
}

/// A source position: 1-based line, 0-based character column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Location {
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 0-based column in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Location {
    /// Both known.
    pub const fn at(line: usize, column: usize) -> Self {
        Self {
            line: Some(line),
            column: Some(column),
        }
    }
}

/// A transpilation failure, shaped for an AI agent: see [`TranspileError::to_json`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranspileError {
    /// The category.
    pub kind: TranspileErrorKind,
    /// One or two sentences, no stack trace, no raw tool output, no temp-file paths.
    pub message: String,
    /// Where, when known.
    pub location: Option<Location>,
    /// The offending source line, when known.
    pub error_line: Option<String>,
    /// A one-line suggestion, when one can be derived.
    pub fix: Option<String>,
    /// What to do next.
    pub recovery: Recovery,
    /// Which backend reported it (`None` for `missing_tool`).
    pub backend: Option<Backend>,
}

impl TranspileError {
    /// Whether the agent can fix it by changing the script.
    pub fn can_fix(&self) -> bool {
        match self.kind {
            TranspileErrorKind::SyntaxError | TranspileErrorKind::TypeError => true,
            TranspileErrorKind::MissingTool => {
                matches!(self.recovery, Recovery::UseJavascript { .. })
            }
            TranspileErrorKind::SystemError => false,
        }
    }

    /// The contract: `error_type`, `can_fix` and `message` always; `location` when line or
    /// column is known; `error_line` and `fix` when known; `recovery` always.
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("error_type".into(), json!(self.kind.as_str()));
        m.insert("can_fix".into(), json!(self.can_fix()));
        m.insert("message".into(), json!(self.message));
        if let Some(loc) = self
            .location
            .filter(|l| l.line.is_some() || l.column.is_some())
        {
            m.insert("location".into(), json!(loc));
        }
        if let Some(line) = &self.error_line {
            m.insert("error_line".into(), json!(line));
        }
        if let Some(fix) = &self.fix {
            m.insert("fix".into(), json!(fix));
        }
        m.insert("recovery".into(), self.recovery.to_json());
        Value::Object(m)
    }

    /// The MCP tool error: `invalid_params` (-32602) carrying [`Self::to_json`] as `data`.
    pub fn into_mcp_error(self) -> McpError {
        McpError {
            code: McpError::INVALID_PARAMS,
            message: format!("TypeScript transpilation failed: {}", self.message),
            data: Some(self.to_json()),
        }
    }
}

impl fmt::Display for TranspileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)?;
        if let Some(Location {
            line: Some(l),
            column,
        }) = self.location
        {
            write!(f, " (line {l}")?;
            if let Some(c) = column {
                write!(f, ", column {c}")?;
            }
            f.write_str(")")?;
        }
        if let Some(fix) = &self.fix {
            write!(f, "; fix: {fix}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TranspileError {}

/// Serialises as [`TranspileError::to_json`] (the contract, not the Rust struct).
impl Serialize for TranspileError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// A JSON-RPC error object as MCP servers return it (no dependency on an MCP SDK: convert
/// it into your SDK's error type with `code`, `message` and `data`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpError {
    /// JSON-RPC error code.
    pub code: i64,
    /// Human-readable summary.
    pub message: String,
    /// The structured payload an agent reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl McpError {
    /// JSON-RPC "Invalid params".
    pub const INVALID_PARAMS: i64 = -32602;
}
