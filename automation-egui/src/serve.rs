//! [`EguiHost`]: what the host beside an egui target serves — the window list and the pixels —
//! and [`serve`], one request against an egui session with that host.
//!
//! `execute` answers every op it can; the ops the catalog marks as served by the host
//! (`screenshot`, `list_windows`) go to [`EguiHost`]. The CLI's headless target thread and
//! the live bridge both call [`serve`].

use automation_core::{
    Bounds, Host, Image, OpResult, Reply, Request, Session, WindowId, WindowInfo, WindowOps,
};

use crate::EguiTarget;

/// The host of an egui target: its root viewport plus the windows the app opened, and
/// (feature `screenshot`) offscreen renders of the last frame.
#[derive(Debug, Default, Clone, Copy)]
pub struct EguiHost;

impl Host<EguiTarget<'_>> for EguiHost {
    fn list_windows(&mut self, target: &mut EguiTarget<'_>) -> OpResult<Vec<WindowInfo>> {
        let opened = target.windows().list_windows();
        let root = target
            .latest_tree()
            .and_then(|u| u.tree.as_ref())
            .map(|t| t.root.into());
        let mut out = vec![WindowInfo {
            id: WindowId(0),
            title: "main".into(),
            focused: opened.iter().all(|w| !w.focused),
            node: root,
        }];
        out.extend(opened);
        Ok(out)
    }

    fn screenshot(&mut self, target: &mut EguiTarget<'_>, crop: Option<Bounds>) -> OpResult<Image> {
        screenshot(target, crop)
    }
}

/// Runs one request: `execute`, then the host ops through [`EguiHost`].
///
/// ```
/// use automation_core::{Request, Session};
/// let mut session = Session::new(automation_egui::demo_target());
/// let req = Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
/// let reply = automation_egui::serve(&mut session, &req);
/// assert!(reply.is_ok());
/// ```
pub fn serve(session: &mut Session<EguiTarget<'_>>, request: &Request) -> Reply {
    automation_core::serve(session, &mut EguiHost, request)
}

#[cfg(feature = "screenshot")]
fn screenshot(target: &mut EguiTarget<'_>, crop: Option<Bounds>) -> OpResult<Image> {
    Ok(crate::screenshot::capture(target, crop)?.into_image())
}

#[cfg(not(feature = "screenshot"))]
fn screenshot(_target: &mut EguiTarget<'_>, _crop: Option<Bounds>) -> OpResult<Image> {
    Err(automation_core::OpError::new(
        automation_core::ErrorCode::Unsupported,
        "screenshot: automation-egui was built without its `screenshot` feature",
    )
    .with_hint("build with `--features screenshot`"))
}
