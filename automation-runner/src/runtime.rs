//! The JavaScript runtime a script child runs under: node (preferred), else bun; and the
//! resolve hook that lets `import … from '<the JS client's package name>'` find the client
//! shipped in this repository (`clients/js`), wherever the script lives.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::error::RunnerError;

/// Env var: the node (or bun) executable to use.
pub const NODE_ENV: &str = "AUTOMATION_NODE";
/// Env var: the JS client's directory (its `package.json`), when not the repository's own.
pub const CLIENT_ENV: &str = "AUTOMATION_JS_CLIENT";

/// A runtime found on this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Runtime {
    /// Its executable.
    pub program: PathBuf,
    /// `node` or `bun`.
    pub kind: &'static str,
    /// The JS client: package name and entry file.
    pub client: Option<(String, PathBuf)>,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Finds node (or bun); the error is a `missing_tool` payload with what to install.
pub fn find() -> Result<Runtime, RunnerError> {
    let explicit = std::env::var_os(NODE_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let found = explicit
        .map(|p| {
            let kind = if p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("bun"))
            {
                "bun"
            } else {
                "node"
            };
            (p, kind)
        })
        .or_else(|| on_path("node").map(|p| (p, "node")))
        .or_else(|| on_path("bun").map(|p| (p, "bun")));
    let Some((program, kind)) = found else {
        return Err(RunnerError::NoRuntime);
    };
    Ok(Runtime {
        program,
        kind,
        client: client(),
    })
}

/// The JS client's package name and entry file: `$AUTOMATION_JS_CLIENT`, else the
/// repository's `clients/js` when this binary was built from it.
pub fn client() -> Option<(String, PathBuf)> {
    let dir = std::env::var_os(CLIENT_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients/js"));
    let pkg: Package =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).ok()?).ok()?;
    let entry = dir.join(pkg.entry()).canonicalize().ok()?;
    Some((pkg.name, entry))
}

/// What the runner reads of the client's `package.json`: its name and where its ES module
/// starts. A field of another shape reads as absent (the next one is tried).
#[derive(serde::Deserialize)]
struct Package {
    name: String,
    #[serde(default, deserialize_with = "crate::report::lenient")]
    exports: Option<Exports>,
    #[serde(default, deserialize_with = "crate::report::lenient")]
    module: Option<String>,
    #[serde(default, deserialize_with = "crate::report::lenient")]
    main: Option<String>,
}

/// `exports`: one path, or conditions for the package's root (`"."`).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Exports {
    Path(String),
    Root {
        #[serde(rename = ".")]
        root: Conditions,
    },
}

/// The root export's conditions the runner can load.
#[derive(serde::Deserialize)]
struct Conditions {
    #[serde(default, deserialize_with = "crate::report::lenient")]
    import: Option<String>,
    #[serde(default, deserialize_with = "crate::report::lenient")]
    default: Option<String>,
}

impl Package {
    /// The ES module to import: `exports["."].import`, its `default`, a string `exports`,
    /// `module`, `main`, else `src/index.js`.
    fn entry(&self) -> &str {
        let (import, default, path) = match &self.exports {
            Some(Exports::Root { root }) => (root.import.as_deref(), root.default.as_deref(), None),
            Some(Exports::Path(p)) => (None, None, Some(p.as_str())),
            None => (None, None, None),
        };
        import
            .or(default)
            .or(path)
            .or(self.module.as_deref())
            .or(self.main.as_deref())
            .unwrap_or("src/index.js")
    }
}

fn file_url(p: &Path) -> String {
    let mut s = String::from("file://");
    for c in p.display().to_string().chars() {
        match c {
            ' ' => s.push_str("%20"),
            '%' => s.push_str("%25"),
            '#' => s.push_str("%23"),
            '?' => s.push_str("%3F"),
            c => s.push(c),
        }
    }
    s
}

impl Runtime {
    /// What runs, for messages.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.kind, self.program.display())
    }

    /// The command for `entry`; under node with a resolve hook (written into `work`) that
    /// maps the client's package name to its entry file.
    pub fn command(&self, entry: &Path, work: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        if self.kind == "node"
            && let Some((name, file)) = &self.client
        {
            let hook = format!(
                "export async function resolve(specifier, context, next) {{\n\
                 \x20 if (specifier === {name}) return {{ url: {url}, shortCircuit: true }};\n\
                 \x20 return next(specifier, context);\n}}\n",
                name = Value::from(name.as_str()),
                url = Value::from(file_url(file)),
            );
            let hooks = work.join("automation-resolve-hooks.mjs");
            let register = work.join("automation-resolve.mjs");
            let ok = std::fs::write(&hooks, hook).is_ok()
                && std::fs::write(
                    &register,
                    format!(
                        "import {{ register }} from 'node:module';\nregister({});\n",
                        Value::from(file_url(&hooks))
                    ),
                )
                .is_ok();
            if ok {
                cmd.arg("--import").arg(file_url(&register));
            }
        }
        if self.kind == "bun" {
            cmd.arg("run");
        }
        cmd.arg(entry);
        cmd
    }
}
