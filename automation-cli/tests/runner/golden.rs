//! Golden screenshots (`assert_screenshot`, the JS client's `expect(app).toMatchScreenshot`)
//! through the real binary: TypeScript flows under `automation run` on the headless demo and
//! on gtk3-widget-factory launched twice on fresh virtual displays, and the MCP tool with
//! `--snapshots`. Pixels are judged here by decoding the PNGs with the `png` crate and
//! comparing bytes, not by the kit's own compare.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use crate::support::mcp as common;

use std::path::Path;
use std::process::{Output, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{on_path, require, require_tools};
use serde_json::{Value, json};

/// One flow run at a time: each starts a demo (or an app) and node.
fn one_at_a_time() -> Heavy {
    automation_testkit::heavy::heavy()
}

/// `automation run FLOW ARGS…` in the flow's directory, records off.
fn run(flow: &Path, args: &[&str]) -> Output {
    let _serial = one_at_a_time();
    crate::support::automation()
        .arg("run")
        .arg(flow.file_name().unwrap())
        .args(args)
        .current_dir(flow.parent().unwrap())
        .env("AUTOMATION_RECORDS", "off")
        .env_remove("AUTOMATION_UPDATE_SNAPSHOTS")
        // These first runs create their baselines; on CI a missing one fails instead
        // (tests/runner/first_hour.rs).
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// What the run printed (the live view writes to stderr when it is no terminal).
fn output(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn text(out: &Output) -> String {
    format!(
        "{:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The JSON line the flow printed (its `toMatchScreenshot` reply).
fn reply(out: &Output) -> Value {
    output(out)
        .lines()
        .find_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON reply printed: {}", text(out)))
}

/// A PNG decoded to RGBA8 with the `png` crate: (width, height, pixels).
fn pixels(path: &Path) -> (u32, u32, Vec<[u8; 4]>) {
    let mut decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| match channels {
            4 => [c[0], c[1], c[2], c[3]],
            3 => [c[0], c[1], c[2], 255],
            _ => panic!("unexpected PNG colour type {:?}", info.color_type),
        })
        .collect();
    (info.width, info.height, px)
}

const FLOW_HEAD: &str = "import { connect, expect } from '@automation-kit/client';\n\
const app = await connect({ settle: { settle_timeout_ms: 5000 } });\n";

fn write_flow(path: &Path, body: &str) {
    std::fs::write(
        path,
        format!("{FLOW_HEAD}{body}\nconsole.log(JSON.stringify(r));\napp.close();\n"),
    )
    .unwrap();
}

/// Must-show 3 on the headless demo: two runs in a row pass with 0 differing pixels; a
/// changed field fails with a diff image whose red pixels are exactly the pixels that changed
/// (all inside the field); a mask over the field passes (and clears the stale diff);
/// `--update-snapshots` makes the change the baseline.
#[test]
fn demo_baselines_match_then_a_change_fails_with_a_diff_of_just_that() {
    if !hostile::node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("demo.ts");
    let snaps = dir.path().join("demo.ts-snapshots");
    write_flow(
        &flow,
        "const r = await expect(app).toMatchScreenshot('main', { threshold: 0 });",
    );
    let first = run(&flow, &[]);
    assert!(first.status.success(), "{}", text(&first));
    assert_eq!(reply(&first)["result"], "created", "{}", text(&first));
    let baseline = snaps.join("main.png");
    assert!(baseline.is_file());
    let second = run(&flow, &[]);
    assert!(second.status.success(), "{}", text(&second));
    let r = reply(&second);
    assert_eq!(
        (r["result"].as_str(), r["diff_pixels"].as_u64()),
        (Some("matched"), Some(0)),
        "{r}"
    );
    assert_eq!(
        r["compared_pixels"],
        json!(r["width"].as_u64().unwrap() * r["height"].as_u64().unwrap())
    );

    // One character in the Name field.
    let field = "{ role: 'TextInput', name: 'Name' }";
    write_flow(
        &flow,
        &format!(
            "await app.find({field}).setValue('x');\n\
             const bounds = (await app.find({field}).read()).bounds;\n\
             console.log(JSON.stringify({{ bounds }}));\n\
             const r = await expect(app).toMatchScreenshot('main', {{ threshold: 0 }});"
        ),
    );
    let changed = run(&flow, &["--report", "report"]);
    assert!(!changed.status.success(), "{}", text(&changed));
    // The report shows the baseline, the capture and the diff side by side.
    let page = std::fs::read_to_string(dir.path().join("report/index.html")).unwrap();
    let at = page
        .find("\"golden\":{")
        .expect("the report carries the golden images");
    let golden: Value = serde_json::Deserializer::from_str(&page[at + 9..])
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap();
    for kind in ["expected", "actual", "diff"] {
        let rel = golden[kind]
            .as_str()
            .unwrap_or_else(|| panic!("{kind}: {golden}"));
        assert!(
            dir.path().join("report").join(rel).is_file(),
            "{kind}: {rel}"
        );
    }
    let out = output(&changed);
    assert!(out.contains("ASSERTION_FAILED"), "{out}");
    assert!(out.contains("differs from its baseline"), "{out}");
    assert!(
        out.contains("demo.ts:6"),
        "the failure points at the flow's line: {out}\n{}",
        std::fs::read_to_string(&flow).unwrap()
    );
    let bounds = reply(&changed)["bounds"].clone();
    let (actual, diff) = (snaps.join("main.actual.png"), snaps.join("main.diff.png"));
    let (w, h, want) = pixels(&baseline);
    let (aw, ah, got) = pixels(&actual);
    let (dw, dh, marks) = pixels(&diff);
    assert_eq!((w, h), (aw, ah));
    assert_eq!((w, h), (dw, dh));
    let changed_px: Vec<usize> = (0..want.len()).filter(|&i| want[i] != got[i]).collect();
    let red: Vec<usize> = (0..marks.len())
        .filter(|&i| marks[i] == [255, 0, 0, 255])
        .collect();
    assert!(!changed_px.is_empty(), "the field's text changed no pixel");
    assert_eq!(red, changed_px, "the diff marks exactly the changed pixels");
    let (x0, y0) = (bounds["x"].as_f64().unwrap(), bounds["y"].as_f64().unwrap());
    let (x1, y1) = (
        x0 + bounds["width"].as_f64().unwrap(),
        y0 + bounds["height"].as_f64().unwrap(),
    );
    for &i in &changed_px {
        let (x, y) = ((i % w as usize) as f64, (i / w as usize) as f64);
        assert!(
            x >= x0.floor() && x < x1.ceil() && y >= y0.floor() && y < y1.ceil(),
            "pixel ({x}, {y}) changed outside the field {bounds}"
        );
    }
    assert_eq!(
        pixels(&baseline).2,
        want,
        "a failed check leaves the baseline alone"
    );

    // The same change under a mask passes, and the stale capture and diff go.
    write_flow(
        &flow,
        &format!(
            "await app.find({field}).setValue('x');\n\
             const r = await expect(app).toMatchScreenshot('main', {{ threshold: 0, mask: [app.find({field})] }});"
        ),
    );
    let masked = run(&flow, &[]);
    assert!(masked.status.success(), "{}", text(&masked));
    let r = reply(&masked);
    assert_eq!(
        (r["result"].as_str(), r["diff_pixels"].as_u64()),
        (Some("matched"), Some(0)),
        "{r}"
    );
    assert!(r["masked_pixels"].as_u64().unwrap() > 0, "{r}");
    assert!(
        !diff.exists() && !actual.exists(),
        "a pass clears the stale files"
    );

    // --update-snapshots: the change becomes the baseline; then it matches without the flag.
    write_flow(
        &flow,
        &format!(
            "await app.find({field}).setValue('x');\n\
             const r = await expect(app).toMatchScreenshot('main', {{ threshold: 0 }});"
        ),
    );
    let updated = run(&flow, &["--update-snapshots"]);
    assert!(updated.status.success(), "{}", text(&updated));
    assert_eq!(reply(&updated)["result"], "updated");
    assert_eq!(
        pixels(&baseline).2,
        got,
        "the baseline is now the changed capture"
    );
    let after = run(&flow, &[]);
    assert!(after.status.success(), "{}", text(&after));
    assert_eq!(reply(&after)["result"], "matched");
}

/// The MCP tool: listed with a strict schema, baselines in `--snapshots DIR`, typed refusals
/// that name the field, and a symlink planted at the baseline's path never followed.
#[test]
fn mcp_assert_screenshot_keeps_baselines_in_the_snapshots_dir() {
    let dir = tempfile::tempdir().unwrap();
    let snaps = dir.path().join("shots");
    // Not CI (an empty CI is none): the first call creates the baseline.
    let mut server = common::Server::start_env(
        &["--headless", "--snapshots", snaps.to_str().unwrap()],
        &std::env::temp_dir(),
        &[("CI", "")],
    );
    let listed = server.call(
        1,
        "assert_screenshot",
        json!({"name": "main", "stable_frames": 1}),
    );
    let first = &listed["result"]["structuredContent"];
    assert_eq!(first["result"], "created", "{listed}");
    assert_eq!(
        first["baseline"],
        json!(snaps.join("main.png").display().to_string())
    );
    let again = server.call(
        2,
        "assert_screenshot",
        json!({"name": "main", "node": {"role": "Button", "label": "Save"}}),
    );
    let e = &again["result"]["structuredContent"];
    assert_eq!(
        again["result"]["isError"],
        json!(true),
        "a node capture is another size: {again}"
    );
    assert_eq!(e["code"], "ASSERTION_FAILED", "{again}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("px but its baseline is"),
        "{again}"
    );
    let node = server.call(
        3,
        "assert_screenshot",
        json!({"name": "save-button", "node": {"role": "Button", "label": "Save"}}),
    );
    assert_eq!(
        node["result"]["structuredContent"]["result"], "created",
        "{node}"
    );
    for (id, args, field) in [
        (4, json!({"name": "../escape"}), "name"),
        (5, json!({"name": "x", "treshold": 0.2}), "treshold"),
        (6, json!({"name": "x", "threshold": 2}), "threshold"),
        (7, json!({"name": "x", "stable_frames": 0}), "stable_frames"),
        (
            8,
            json!({"name": "x", "mask": [{"label": "No such thing"}]}),
            "No such thing",
        ),
    ] {
        let r = server.call(id, "assert_screenshot", args);
        assert_eq!(r["result"]["isError"], json!(true), "{r}");
        let e = &r["result"]["structuredContent"];
        assert!(
            e["message"].as_str().unwrap().contains(field),
            "{field}: {r}"
        );
        assert!(e["code"].is_string() && e["hint"].is_string(), "{r}");
    }
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    std::os::unix::fs::symlink(&victim, snaps.join("linked.png")).unwrap();
    let r = server.call(9, "assert_screenshot", json!({"name": "linked"}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    server.assert_serving(10);
    assert!(!dir.path().join("escape.png").exists());
}

/// Must-show 3 on a real GTK3 app: gtk3-widget-factory launched twice, each on a fresh
/// virtual display, matches its own baseline with a threshold; its spinners and pulsing
/// progress bars never hold still, so they are masked (a selector masks every match).
#[test]
fn gtk3_widget_factory_matches_its_own_baseline_on_a_fresh_launch() {
    if !hostile::node_present()
        || !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            on_path("gtk3-widget-factory"),
            "gtk3-widget-factory is missing (Debian: gtk-3-examples)",
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("factory.ts");
    write_flow(
        &flow,
        "const r = await expect(app).toMatchScreenshot('factory', {\n\
           threshold: 0.1,\n\
           mask: [{ label: 'Spinner' }, { role: 'ProgressIndicator' }],\n\
         });",
    );
    let launch = ["--launch", "gtk3-widget-factory", "--virtual-display"];
    let first = run(&flow, &launch);
    assert!(first.status.success(), "{}", text(&first));
    assert_eq!(reply(&first)["result"], "created", "{}", text(&first));
    let second = run(&flow, &launch);
    assert!(second.status.success(), "{}", text(&second));
    let r = reply(&second);
    assert_eq!(r["result"], "matched", "{r}");
    assert!(r["masked_pixels"].as_u64().unwrap() > 0, "{r}");
    let (w, h, _) = pixels(&dir.path().join("factory.ts-snapshots/factory.png"));
    assert_eq!(
        (u64::from(w), u64::from(h)),
        (r["width"].as_u64().unwrap(), r["height"].as_u64().unwrap())
    );
}
