//! `assert_screenshot`: a golden screenshot, composed from core's ops. Captures the window (or
//! one node) until `stable_frames` captures in a row are identical, leaves out the bounds of
//! the `mask` nodes, and checks the capture against its baseline in the snapshots directory
//! with [`automation_golden`] — creating the baseline on the first run, replacing it when
//! updating, else writing `<name>.actual.png` and `<name>.diff.png` beside it on a mismatch.
//!
//! Not an op of core's catalog: core does no I/O, and a baseline is a file. Every front door
//! serves it from here with its own [`Snapshots`]: the MCP server's `--snapshots DIR`, a flow
//! file's `<file>-snapshots/` directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use automation_core::ops::{NodeArgs, Screenshot};
use automation_core::replies::{ReadNode, TypedOp};
use automation_core::{ErrorCode, NodeTarget, Op, OpError, Reply, Request};
use automation_golden::{Check, Limits, Region, Rgba, Update, Verdict, decode_png};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::files::{self, FileError, REPORT_FILE};

/// The tool's name.
pub const ASSERT_SCREENSHOT: &str = "assert_screenshot";

/// The tool's description.
pub const DESCRIPTION: &str = "Compare a screenshot of the window (or `node`) with its baseline `<name>.png` in the snapshots directory: the first run creates it; a mismatch fails ASSERTION_FAILED with the diff pixel count and the expected/actual/diff PNG paths. Waits for stable_frames identical captures; mask leaves nodes out.";

/// The environment variable that turns on updating baselines (`1` or `true`).
pub const UPDATE_ENV: &str = "AUTOMATION_UPDATE_SNAPSHOTS";

/// Largest baseline read: 64 MiB (a 4K RGBA frame compresses far below that).
const MAX_BASELINE_BYTES: u64 = 64 * 1024 * 1024;

/// The environment variable CI services set: when it is on ([`ci_from_env`]) a missing
/// baseline fails instead of being created.
pub const CI_ENV: &str = "CI";

/// Where an inline flow's (and every server's) baselines live unless `--snapshots` says:
/// `snapshots/` in the current directory.
pub const DEFAULT_SNAPSHOTS_DIR: &str = "snapshots";

/// Where a front door keeps baselines, and whether a check may replace them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshots {
    /// The snapshots directory (created on first write).
    pub dir: PathBuf,
    /// When a check may write a baseline.
    pub update: Update,
    /// A missing baseline fails rather than being created: on CI a baseline made there
    /// would vanish with the machine, and the check would pass against nothing.
    pub refuse_missing: bool,
}

impl Snapshots {
    /// Baselines in `dir`, updated when `update` or [`UPDATE_ENV`] says so; on CI
    /// ([`ci_from_env`]) a missing one fails unless updating.
    pub fn new(dir: impl Into<PathBuf>, update: bool) -> Self {
        let updating = update || update_from_env();
        Self {
            dir: dir.into(),
            update: if updating {
                Update::Differing
            } else {
                Update::Missing
            },
            refuse_missing: !updating && ci_from_env(),
        }
    }

    /// The directory beside a flow file: `<file>-snapshots/` (Playwright's layout).
    pub fn beside(flow_file: &Path, update: bool) -> Self {
        let mut name = flow_file
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| "flow".into());
        name.push("-snapshots");
        Self::new(flow_file.with_file_name(name), update)
    }
}

/// Whether [`CI_ENV`] says this is CI: set, not empty, and not `false` or `0`.
pub fn ci_from_env() -> bool {
    std::env::var(CI_ENV).is_ok_and(|v| {
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// What a passing check wrote, for a person: `created <baseline>` or `updated <baseline>`;
/// `None` when it only compared. `result` is the check's reply.
pub fn written_note(result: &Value) -> Option<String> {
    /// The part of a check's reply that says what it wrote.
    #[derive(Deserialize)]
    struct Written {
        result: String,
        #[serde(default)]
        name: Option<String>,
        baseline: String,
    }
    let written = Written::deserialize(result).ok()?;
    let word = match written.result.as_str() {
        "created" => "created",
        "updated" | "resized" => "updated",
        _ => return None,
    };
    let name = written.name.as_deref().unwrap_or("?");
    Some(format!(
        "{ASSERT_SCREENSHOT} {name:?}: {word} {}",
        written.baseline
    ))
}

/// Whether [`UPDATE_ENV`] asks for updating.
pub fn update_from_env() -> bool {
    std::env::var(UPDATE_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes" | "all"))
}

/// `assert_screenshot`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The screenshot's name; its baseline is `<name>.png` (letters, digits, - _ .).
    pub name: String,
    /// Capture only this node's bounds (an id or a selector), not the window.
    #[serde(default)]
    pub node: Option<NodeTarget>,
    /// Per-pixel colour distance (YIQ, 0–1) a pixel may change by and still match; default 0.1.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Pass with at most this many differing pixels (default 0).
    #[serde(default)]
    pub max_diff_pixels: Option<u64>,
    /// Pass with at most this share (0–1) of pixels differing.
    #[serde(default)]
    pub max_diff_ratio: Option<f64>,
    /// Nodes whose bounds are left out (a clock, a spinner); a selector masks every node it
    /// matches.
    #[serde(default)]
    pub mask: Vec<NodeTarget>,
    /// Identical captures in a row before comparing (default 2; 1 compares the first).
    #[serde(default)]
    pub stable_frames: Option<u32>,
    /// How long to wait for stable captures, ms (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The input schema the tool list shows.
pub fn input_schema() -> Map<String, Value> {
    let mut map = super::compact::tool_schema(schemars::schema_for!(Args).to_value());
    // Its node arguments are described below in place of their definitions.
    map.remove("definitions");
    map.remove("$defs");
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        // A node argument reads as it does on every node tool.
        let node = json!({"description": "An id from snapshot_tree/find_node, or a selector object with find_node's fields."});
        props.insert("node".into(), node.clone());
        props.insert(
            "mask".into(),
            json!({"type": "array", "items": node, "description": "Nodes whose bounds are left out (a clock, a spinner); a selector masks every match."}),
        );
        for v in props.values_mut() {
            super::compact::compact(v);
        }
    }
    map.insert("additionalProperties".into(), json!(false));
    map
}

const HINT: &str = r#"e.g. {"name": "main-window", "mask": [{"role": "Label", "label": "Clock"}]}; see the inputSchema of assert_screenshot in tools/list"#;

/// Serves one `assert_screenshot` call: `serve` answers the ops it is made of (on the
/// caller's target thread). Its steps: check the arguments, capture until stable, compare
/// with the baseline (writing what the check says to write), answer.
pub fn assert_screenshot(
    args: Map<String, Value>,
    snapshots: &Snapshots,
    serve: &mut dyn FnMut(&Request) -> Reply,
) -> Result<Value, OpError> {
    let call = Call::parse(args)?;
    let capture = call.capture(serve)?;
    let dir = &snapshots.dir;
    let paths = Paths {
        baseline: dir.join(&call.names.baseline),
        actual: dir.join(&call.names.actual),
        diff: dir.join(&call.names.diff),
    };
    let check = call.compare(&capture, snapshots, &paths)?;
    call.answer(&capture, &check, &paths)
}

/// One call's arguments, checked: what its steps share.
struct Call {
    args: Args,
    names: automation_golden::Files,
    limits: Limits,
    stable: u32,
    budget: Duration,
}

/// A capture that held still: the image, its PNG, the masks placed in it, the captures taken.
struct Capture {
    image: Rgba,
    png: Vec<u8>,
    masks: Vec<Region>,
    frames: u32,
}

/// The call's files in the snapshots directory.
struct Paths {
    baseline: PathBuf,
    actual: PathBuf,
    diff: PathBuf,
}

impl Call {
    /// The arguments, each refused in words about itself before anything is captured.
    fn parse(args: Map<String, Value>) -> Result<Self, OpError> {
        let args: Args = serde_json::from_value(Value::Object(args)).map_err(|e| {
            OpError::new(ErrorCode::BadRequest, format!("{ASSERT_SCREENSHOT}: {e}")).with_hint(HINT)
        })?;
        let names = automation_golden::files(&args.name).map_err(|why| {
            OpError::bad_argument(format!("{ASSERT_SCREENSHOT}: {why}"))
                .with_hint("name the screenshot as a file stem: its baseline is <name>.png in the snapshots directory")
        })?;
        let limits = Limits {
            threshold: args
                .threshold
                .unwrap_or(automation_golden::DEFAULT_THRESHOLD),
            max_diff_pixels: args.max_diff_pixels,
            max_diff_ratio: args.max_diff_ratio,
        };
        limits.validate().map_err(|why| {
            OpError::bad_argument(format!("{ASSERT_SCREENSHOT}: {why}"))
                .with_hint("threshold 0.1 is pixelmatch's default; max_diff_ratio 0.001 allows one pixel in a thousand")
        })?;
        let stable = args.stable_frames.unwrap_or(2);
        if !(1..=20).contains(&stable) {
            return Err(OpError::bad_argument(format!(
                "{ASSERT_SCREENSHOT}: stable_frames must be 1 to 20, got {stable}"
            ))
            .with_hint("2 (the default) waits for two identical captures; 1 compares the first"));
        }
        let budget = Duration::from_millis(args.timeout_ms.unwrap_or(5000).min(600_000));
        Ok(Self {
            args,
            names,
            limits,
            stable,
            budget,
        })
    }

    /// Captures the window (or node) until `stable` captures in a row agree, the masks'
    /// nodes resolved first.
    fn capture(&self, serve: &mut dyn FnMut(&Request) -> Reply) -> Result<Capture, OpError> {
        let args = &self.args;
        // Where the capture starts (window-logical px), to place masks in it.
        let origin = match &args.node {
            Some(node) => bounds_of(node, serve)?,
            None => Bounds::default(),
        };
        let mut mask_bounds = Vec::with_capacity(args.mask.len());
        for m in &args.mask {
            mask_bounds.extend(mask_of(m, serve)?);
        }
        let place = |scale: f64| -> Vec<Region> {
            mask_bounds
                .iter()
                .map(|b| b.region_in(&origin, scale))
                .collect()
        };
        let (image, png, masks, frames) =
            stable_capture(args.node.as_ref(), &place, self.stable, self.budget, serve)?;
        Ok(Capture {
            image,
            png,
            masks,
            frames,
        })
    }

    /// Checks the capture against its baseline and writes the files the check asks for.
    fn compare(
        &self,
        capture: &Capture,
        snapshots: &Snapshots,
        paths: &Paths,
    ) -> Result<Check, OpError> {
        let dir = &snapshots.dir;
        let baseline = read_baseline(&paths.baseline)?;
        if baseline.is_none() && snapshots.refuse_missing {
            return Err(missing_on_ci(
                &self.args.name,
                dir,
                &paths.baseline,
                &paths.actual,
                &capture.png,
            ));
        }
        let check = automation_golden::check(
            baseline.as_deref(),
            &capture.image,
            &capture.png,
            &self.limits,
            &capture.masks,
            snapshots.update,
        )
        .map_err(|e| {
            OpError::bad_argument(format!(
                "{ASSERT_SCREENSHOT}: {}: {e}",
                paths.baseline.display()
            ))
            .with_hint("delete the file, or rerun with --update-snapshots to write a new baseline")
        })?;
        write_files(&check, dir, &paths.baseline, &paths.actual, &paths.diff)?;
        Ok(check)
    }

    /// The reply: the check's figures, or ASSERTION_FAILED when the capture differs.
    fn answer(&self, capture: &Capture, check: &Check, paths: &Paths) -> Result<Value, OpError> {
        let name = &self.args.name;
        let mut data = Map::new();
        data.insert("name".into(), json!(name));
        data.insert("result".into(), json!(check.verdict.word()));
        data.insert("baseline".into(), json!(shown(&paths.baseline)));
        data.insert("width".into(), json!(capture.image.width));
        data.insert("height".into(), json!(capture.image.height));
        data.insert("frames".into(), json!(capture.frames));
        if let Verdict::Matched(c) | Verdict::Updated(c) | Verdict::Differs(c) = &check.verdict {
            data.insert("diff_pixels".into(), json!(c.diff_pixels));
            data.insert("compared_pixels".into(), json!(c.compared_pixels));
            if c.masked_pixels > 0 {
                data.insert("masked_pixels".into(), json!(c.masked_pixels));
            }
            data.insert("allowed".into(), json!(c.allowed));
        }
        match &check.verdict {
            Verdict::Differs(c) => {
                let actual = json!({
                    "diff_pixels": c.diff_pixels,
                    "ratio": c.ratio(),
                    "actual": shown(&paths.actual),
                    "diff": shown(&paths.diff),
                });
                let expected = json!({"baseline": shown(&paths.baseline), "allowed": c.allowed, "threshold": self.limits.threshold});
                Err(OpError::new(
                    ErrorCode::AssertionFailed,
                    format!(
                        "screenshot {:?} differs from its baseline in {} of {} pixels ({:.3}%), {} allowed; diff image: {}",
                        name,
                        c.diff_pixels,
                        c.compared_pixels,
                        c.ratio() * 100.0,
                        c.allowed,
                        shown(&paths.diff)
                    ),
                )
                .with_hint(update_hint())
                .with_actual_expected(actual, expected))
            }
            Verdict::SizeDiffers { expected, actual } => Err(OpError::new(
                ErrorCode::AssertionFailed,
                format!(
                    "screenshot {:?} is {}×{} px but its baseline is {}×{} (a resized window, another scale)",
                    name, actual.0, actual.1, expected.0, expected.1
                ),
            )
            .with_hint(update_hint())
            .with_actual_expected(
                json!({"width": actual.0, "height": actual.1, "actual": shown(&paths.actual)}),
                json!({"width": expected.0, "height": expected.1, "baseline": shown(&paths.baseline)}),
            )),
            _ => Ok(Value::Object(data)),
        }
    }
}

/// A missing baseline on CI: the capture is kept as `<name>.actual.png` (to download and
/// inspect), and the error names the baseline and how to make it.
fn missing_on_ci(name: &str, dir: &Path, baseline: &Path, actual: &Path, png: &[u8]) -> OpError {
    let kept = ensure_dir(dir)
        .and_then(|()| {
            files::write_replacing(actual, png, REPORT_FILE)
                .map_err(|e| file_error(e, "writing the capture"))
        })
        .map(|()| format!("; this run's capture is {}", shown(actual)))
        .unwrap_or_default();
    OpError::new(
        ErrorCode::AssertionFailed,
        format!(
            "screenshot {name:?} has no baseline: {} does not exist, and {CI_ENV} is set, so it was not created{kept}",
            shown(baseline)
        ),
    )
    .with_hint(format!(
        "create the baseline: run this flow once without {CI_ENV} (the first run writes it), or here with --update-snapshots (or {UPDATE_ENV}=1); then commit {}",
        shown(baseline)
    ))
    .with_actual_expected(
        json!({"baseline": null, "actual": shown(actual)}),
        json!({"baseline": shown(baseline)}),
    )
}

fn update_hint() -> String {
    format!(
        "open the diff image; if the change is intended, rerun with --update-snapshots (or {UPDATE_ENV}=1) to make this capture the baseline; mask regions that change on their own"
    )
}

/// A path as a reply shows it: absolute, so an agent or a report can open it from anywhere.
fn shown(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// A node's bounds (window-logical px).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Bounds {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

impl Bounds {
    /// These bounds as a pixel region of a capture that starts at `origin`, at `scale`
    /// physical px per logical px; rounded outwards, so a mask covers its node's edge pixels.
    fn region_in(&self, origin: &Bounds, scale: f64) -> Region {
        let x0 = ((self.x - origin.x) * scale).floor();
        let y0 = ((self.y - origin.y) * scale).floor();
        let x1 = ((self.x + self.width - origin.x) * scale).ceil();
        let y1 = ((self.y + self.height - origin.y) * scale).ceil();
        // Saturating casts: bounds come from the app; out-of-range values clip to the image.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Region {
            x: x0 as i64,
            y: y0 as i64,
            width: (x1 - x0).max(0.0) as u64,
            height: (y1 - y0).max(0.0) as u64,
        }
    }
}

/// The bounds of one node, read with `read_node`.
fn bounds_of(
    node: &NodeTarget,
    serve: &mut dyn FnMut(&Request) -> Reply,
) -> Result<Bounds, OpError> {
    let read = Request::new(ReadNode::op(NodeArgs { node: node.clone() }));
    let record = ReadNode::decode(serve(&read))?;
    match record.bounds {
        Some(b) if [b.x, b.y, b.width, b.height].iter().all(|v| v.is_finite()) => Ok(Bounds {
            x: b.x,
            y: b.y,
            width: b.width,
            height: b.height,
        }),
        _ => Err(OpError::new(
            ErrorCode::NoGeometry,
            format!(
                "{ASSERT_SCREENSHOT}: node {} has no bounds to capture or mask",
                record.id
            ),
        )
        .with_hint("wait until it is laid out, or leave it out of node/mask")),
    }
}

/// The most nodes one mask selector covers.
const MAX_MASKED_MATCHES: usize = 256;

/// The bounds a mask covers: every node its selector matches (as Playwright's masks do; a
/// selector with `nth`, a reference or an id names one), in order; a node with no bounds (not
/// laid out, hidden) has nothing to cover. A selector that matches nothing is NOT_FOUND, so a
/// misspelt mask is not silently ignored.
fn mask_of(
    mask: &NodeTarget,
    serve: &mut dyn FnMut(&Request) -> Reply,
) -> Result<Vec<Bounds>, OpError> {
    let covered = |r: Result<Bounds, OpError>| match r {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.code == ErrorCode::NoGeometry => Ok(None),
        Err(e) => Err(e),
    };
    let sel = match mask {
        NodeTarget::Select(sel) if sel.nth.is_none() => sel,
        one => return Ok(covered(bounds_of(one, serve))?.into_iter().collect()),
    };
    let mut all = Vec::new();
    for nth in 0..MAX_MASKED_MATCHES {
        let one = NodeTarget::Select(automation_core::Selector {
            nth: Some(nth),
            ..sel.clone()
        });
        match bounds_of(&one, serve) {
            Err(e) if e.code == ErrorCode::NotFound && nth > 0 => break,
            r => all.extend(covered(r)?),
        }
    }
    Ok(all)
}

/// Captures until `stable` captures in a row are identical outside the masks (a spinner under
/// a mask never holds still): the last capture, its PNG, the masks placed in it (`place`
/// turns the capture's scale into mask regions), and how many captures it took.
fn stable_capture(
    node: Option<&NodeTarget>,
    place: &dyn Fn(f64) -> Vec<Region>,
    stable: u32,
    budget: Duration,
    serve: &mut dyn FnMut(&Request) -> Reply,
) -> Result<(Rgba, Vec<u8>, Vec<Region>, u32), OpError> {
    let started = Instant::now();
    let request = Request::new(Op::Screenshot(Screenshot {
        node: node.cloned(),
    }));
    let (mut last, mut run, mut frames) = (None::<Rgba>, 0u32, 0u32);
    loop {
        let image = match serve(&request) {
            Reply::Image(image) => image,
            Reply::Err(e) => return Err(e),
            Reply::Ok(_) => {
                return Err(OpError::new(
                    ErrorCode::TargetFailed,
                    "the screenshot op answered data, not an image",
                ));
            }
        };
        frames += 1;
        let rgba = decode_png(&image.png).map_err(|why| {
            OpError::new(
                ErrorCode::TargetFailed,
                format!("{ASSERT_SCREENSHOT}: the capture is not a readable PNG ({why})"),
            )
            .with_hint("retry; if it persists the app's screenshot is broken")
        })?;
        let masks = place(image.scale);
        let mut hidden = rgba.clone();
        for m in &masks {
            hidden.fill(m, [255, 0, 255, 255]);
        }
        run = if last.as_ref() == Some(&hidden) {
            run + 1
        } else {
            1
        };
        if run >= stable {
            return Ok((rgba, image.png, masks, frames));
        }
        if started.elapsed() >= budget {
            return Err(OpError::new(
                ErrorCode::WaitTimeout,
                format!(
                    "{ASSERT_SCREENSHOT}: the screen did not hold still: {frames} captures in {} ms, never {stable} identical in a row",
                    started.elapsed().as_millis()
                ),
            )
            .with_hint("mask the region that keeps changing (a clock, a spinner, a pulsing progress bar), raise timeout_ms, or lower stable_frames"));
        }
        last = Some(hidden);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The baseline's bytes, `None` when there is none yet. Only a regular file is read; a
/// symlink at the path is refused.
fn read_baseline(path: &Path) -> Result<Option<Vec<u8>>, OpError> {
    use automation_wire::fsguard::{self, Follow};
    match fsguard::read_regular(path, MAX_BASELINE_BYTES, Follow::No) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(fsguard::FileError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(file_error(FileError::from(e), "reading the baseline")),
    }
}

/// Writes what the check asks for, and on a pass removes a stale capture and diff of an
/// earlier failure (regular files only).
fn write_files(
    check: &Check,
    dir: &Path,
    baseline: &Path,
    actual: &Path,
    diff: &Path,
) -> Result<(), OpError> {
    let writes = [
        (&check.write_baseline, baseline),
        (&check.write_actual, actual),
        (&check.write_diff, diff),
    ];
    if writes.iter().any(|(bytes, _)| bytes.is_some()) {
        ensure_dir(dir)?;
    }
    for (bytes, path) in writes {
        if let Some(bytes) = bytes {
            files::write_replacing(path, bytes, REPORT_FILE)
                .map_err(|e| file_error(e, "writing a snapshot file"))?;
        }
    }
    if check.verdict.passed() {
        for stale in [actual, diff] {
            if std::fs::symlink_metadata(stale).is_ok_and(|m| m.file_type().is_file()) {
                let _ = std::fs::remove_file(stale);
            }
        }
    }
    Ok(())
}

/// Creates the snapshots directory if needed; refuses one that is a symlink or not a
/// directory.
fn ensure_dir(dir: &Path) -> Result<(), OpError> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_dir() => Ok(()),
        Ok(m) => Err(OpError::bad_argument(format!(
            "{ASSERT_SCREENSHOT}: the snapshots directory {} is a {}, not a directory; nothing was written",
            dir.display(),
            automation_wire::fsguard::kind_name(&m.file_type())
        ))
        .with_hint("remove it, or point --snapshots at a directory")),
        Err(_) => std::fs::create_dir_all(dir).map_err(|e| {
            OpError::bad_argument(format!(
                "{ASSERT_SCREENSHOT}: cannot create the snapshots directory {}: {e}",
                dir.display()
            ))
            .with_hint("point --snapshots at a directory you can write")
        }),
    }
}

fn file_error(e: FileError, doing: &str) -> OpError {
    OpError::bad_argument(format!("{ASSERT_SCREENSHOT}: {doing}: {e}"))
        .with_hint("snapshot files must be regular files (symlinks are never followed); remove what is in the way")
}

#[cfg(test)]
mod tests {
    use super::*;
    use automation_core::Image;
    use automation_golden::encode_png;

    /// A fake app of one 8×4 window whose pixels the test sets, and a "Clock" node at (2, 1).
    struct Screen {
        pixels: Rgba,
        captures: u32,
    }

    impl Screen {
        fn serve(&mut self, request: &Request) -> Reply {
            match &request.op {
                Op::Screenshot(_) => {
                    self.captures += 1;
                    Reply::Image(Image::new(
                        encode_png(&self.pixels).unwrap(),
                        self.pixels.width,
                        self.pixels.height,
                        1.0,
                    ))
                }
                Op::ReadNode(_) => Reply::Ok(
                    json!({"id": "e1", "role": "Button", "bounds": {"x": 2.0, "y": 1.0, "width": 2.0, "height": 1.0}}),
                ),
                _ => Reply::error(ErrorCode::Unsupported, "no"),
            }
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn creates_matches_fails_with_files_and_masks() {
        let dir = tempfile::tempdir().unwrap();
        let snaps = Snapshots {
            dir: dir.path().join("shots"),
            update: Update::Missing,
            refuse_missing: false,
        };
        let mut screen = Screen {
            pixels: Rgba::filled(8, 4, [255, 255, 255, 255]),
            captures: 0,
        };
        let mut serve = |r: &Request| screen.serve(r);
        let first = assert_screenshot(args(json!({"name": "main"})), &snaps, &mut serve).unwrap();
        assert_eq!(first["result"], "created");
        assert_eq!(first["frames"], 2);
        assert!(snaps.dir.join("main.png").is_file());
        let again = assert_screenshot(args(json!({"name": "main"})), &snaps, &mut serve).unwrap();
        assert_eq!(
            (again["result"].as_str(), again["diff_pixels"].as_u64()),
            (Some("matched"), Some(0))
        );
        screen.pixels.set_pixel(3, 1, [0, 0, 0, 255]);
        let mut serve = |r: &Request| screen.serve(r);
        let e = assert_screenshot(args(json!({"name": "main"})), &snaps, &mut serve).unwrap_err();
        assert_eq!(e.code, ErrorCode::AssertionFailed);
        assert!(e.message.contains("1 of 32 pixels"), "{}", e.message);
        assert!(snaps.dir.join("main.diff.png").is_file());
        assert!(snaps.dir.join("main.actual.png").is_file());
        let masked = assert_screenshot(
            args(json!({"name": "main", "mask": [{"label": "Clock"}]})),
            &snaps,
            &mut serve,
        )
        .unwrap();
        assert_eq!(masked["masked_pixels"], 2);
        assert!(
            !snaps.dir.join("main.diff.png").exists(),
            "a pass clears the stale diff"
        );
        let bad = assert_screenshot(args(json!({"name": "../x"})), &snaps, &mut serve).unwrap_err();
        assert_eq!(bad.code, ErrorCode::BadArgument);
        let bad = assert_screenshot(
            args(json!({"name": "x", "treshold": 1})),
            &snaps,
            &mut serve,
        )
        .unwrap_err();
        assert!(bad.message.contains("treshold"), "{}", bad.message);
    }

    #[test]
    fn a_screen_that_never_holds_still_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let snaps = Snapshots::new(dir.path(), false);
        let mut n = 0u8;
        let mut serve = |_: &Request| {
            n = n.wrapping_add(1);
            let img = Rgba::filled(2, 2, [n, 0, 0, 255]);
            Reply::Image(Image::new(encode_png(&img).unwrap(), 2, 2, 1.0))
        };
        let e = assert_screenshot(
            args(json!({"name": "busy", "timeout_ms": 100})),
            &snaps,
            &mut serve,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::WaitTimeout);
        assert!(!dir.path().join("busy.png").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_baseline_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("main.png")).unwrap();
        let snaps = Snapshots::new(dir.path(), true);
        let img = Rgba::filled(2, 2, [1, 2, 3, 255]);
        let mut serve =
            |_: &Request| Reply::Image(Image::new(encode_png(&img).unwrap(), 2, 2, 1.0));
        let e = assert_screenshot(args(json!({"name": "main"})), &snaps, &mut serve).unwrap_err();
        assert!(e.message.contains("symlink"), "{}", e.message);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }
}
