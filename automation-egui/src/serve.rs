//! [`serve`]: one request against an egui session, host ops included.
//!
//! `execute` answers every op it can; `screenshot` and `list_windows` come back as
//! `HOST_REQUIRED` and are served here, with what only the host holds: the renderer and the
//! window list. The CLI's headless target thread and the live bridge both call this.

use automation_core::{
    ErrorCode, Op, OpError, Reply, Request, Session, WindowOps, execute_request,
};
use serde_json::json;

use crate::EguiTarget;

/// Runs one request: `execute`, then the host ops on `HOST_REQUIRED`.
///
/// ```
/// use automation_core::{RecordingWindowOps, Request, Session};
/// let mut session = Session::new(automation_egui::demo_target());
/// let mut windows = RecordingWindowOps::new();
/// let req = Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
/// let reply = automation_egui::serve(&mut session, &mut windows, &req);
/// assert!(reply.is_ok());
/// ```
pub fn serve(
    session: &mut Session<EguiTarget<'_>>,
    windows: &mut dyn WindowOps,
    request: &Request,
) -> Reply {
    let reply = execute_request(session, windows, request);
    match &reply {
        Reply::Err(e) if e.code == ErrorCode::HostRequired => match &request.op {
            Op::ListWindows(_) => list_windows(windows),
            Op::Screenshot(a) => screenshot(session, a).into(),
            _ => reply,
        },
        _ => reply,
    }
}

/// The host's windows; the app's own window (the egui root viewport) is always first when the
/// host knows no window.
fn list_windows(windows: &dyn WindowOps) -> Reply {
    let list = windows.list_windows();
    let mut out =
        vec![json!({ "id": "0", "title": "main", "focused": list.iter().all(|w| !w.focused) })];
    out.extend(
        list.iter()
            .map(|w| json!({ "id": w.id, "title": w.title, "focused": w.focused })),
    );
    Reply::Ok(json!({ "windows": out }))
}

#[cfg(feature = "screenshot")]
fn screenshot(
    session: &mut Session<EguiTarget<'_>>,
    args: &automation_core::ops::Screenshot,
) -> Result<serde_json::Value, OpError> {
    let crop = match &args.node {
        Some(node) => Some(session.resolve(node)?.require_bounds()?),
        None => None,
    };
    let shot = crate::screenshot::capture(&mut session.target, crop)?;
    Ok(shot.to_json())
}

#[cfg(not(feature = "screenshot"))]
fn screenshot(
    _session: &mut Session<EguiTarget<'_>>,
    _args: &automation_core::ops::Screenshot,
) -> Result<serde_json::Value, OpError> {
    Err(OpError::new(
        ErrorCode::Unsupported,
        "screenshot: automation-egui was built without its `screenshot` feature",
    )
    .with_hint("build with `--features screenshot`"))
}
