//! automation-core input → egui events.
//!
//! - Mouse: `PointerMoved` + `PointerButton`.
//! - Touch and pen: `Event::Touch` (egui's multi-touch gestures) and, for the first contact
//!   down, the emulated mouse egui-winit sends (`PointerMoved`/`PointerButton` primary, and
//!   `PointerGone` at the end) — so a tap clicks, exactly as in a real eframe app.
//! - Keys: `Event::Key`, plus `Event::Text` for what a press types (printable characters only,
//!   and not while Ctrl/⌘ is held, as egui-winit does). Ctrl/⌘+C/X/V become egui's
//!   `Copy`/`Cut`/`Paste` (paste inserts what the app last copied).
//! - Scroll: `MouseWheel` in points or lines, with modifiers.
//! - IME: `Ime(Preedit)` / `Ime(Commit)`.

use automation_core::input::{
    ImeEvent, Key, KeyEvent, NamedKey, PointerEvent, PointerPhase, ScrollEvent, ScrollUnit,
};
use automation_core::{Modifiers, Platform, Point, PointerButton, PointerKind};
use egui::{Event, Pos2, TouchDeviceId, TouchId, TouchPhase};

/// Device id egui sees for synthetic touches and pens.
const TOUCH_DEVICE: TouchDeviceId = TouchDeviceId(0xA070);

/// A core point (logical px) as an egui position (points).
pub(crate) fn pos(p: Point) -> Pos2 {
    Pos2::new(p.x as f32, p.y as f32)
}

/// A core mouse button as egui's.
pub(crate) fn button(b: PointerButton) -> egui::PointerButton {
    match b {
        PointerButton::Primary => egui::PointerButton::Primary,
        PointerButton::Secondary => egui::PointerButton::Secondary,
        PointerButton::Middle => egui::PointerButton::Middle,
        PointerButton::Back => egui::PointerButton::Extra1,
        PointerButton::Forward => egui::PointerButton::Extra2,
    }
}

/// Core modifiers as egui's, for `platform`.
pub(crate) fn modifiers(m: Modifiers, platform: Platform) -> egui::Modifiers {
    let command = match platform {
        Platform::MacOs => m.meta,
        Platform::Other => m.ctrl,
    };
    egui::Modifiers {
        alt: m.alt,
        ctrl: m.ctrl,
        shift: m.shift,
        mac_cmd: platform == Platform::MacOs && m.meta,
        command,
    }
}

/// Which touch/pen contact drives egui's emulated mouse.
#[derive(Debug, Default)]
pub(crate) struct PointerState {
    emulating: Option<u64>,
}

impl PointerState {
    /// The egui events for one sample, and whether it is discrete (a frame must follow).
    pub(crate) fn translate(&mut self, e: &PointerEvent, platform: Platform) -> (Vec<Event>, bool) {
        let at = pos(e.position);
        let mods = modifiers(e.modifiers, platform);
        let discrete = e.phase != PointerPhase::Move;
        if e.kind == PointerKind::Mouse {
            let mut out = vec![Event::PointerMoved(at)];
            match (e.phase, e.button) {
                (PointerPhase::Down, Some(b)) => {
                    out.push(Event::PointerButton {
                        pos: at,
                        button: button(b),
                        pressed: true,
                        modifiers: mods,
                    });
                }
                (PointerPhase::Up, Some(b)) => {
                    out.push(Event::PointerButton {
                        pos: at,
                        button: button(b),
                        pressed: false,
                        modifiers: mods,
                    });
                }
                (PointerPhase::Cancel, _) => out.push(Event::PointerGone),
                _ => {}
            }
            return (out, discrete);
        }
        let phase = match e.phase {
            PointerPhase::Down => TouchPhase::Start,
            PointerPhase::Move => TouchPhase::Move,
            PointerPhase::Up => TouchPhase::End,
            PointerPhase::Cancel => TouchPhase::Cancel,
        };
        let force = match e.kind {
            PointerKind::Pen => Some(e.pressure.unwrap_or(0.5)),
            _ => None,
        };
        let mut out = vec![Event::Touch {
            device_id: TOUCH_DEVICE,
            id: TouchId(e.pointer_id),
            phase,
            pos: at,
            force,
        }];
        if self.emulating.is_none() && e.phase == PointerPhase::Down {
            self.emulating = Some(e.pointer_id);
        }
        if self.emulating == Some(e.pointer_id) {
            let primary = egui::PointerButton::Primary;
            match e.phase {
                PointerPhase::Down => {
                    out.push(Event::PointerMoved(at));
                    out.push(Event::PointerButton {
                        pos: at,
                        button: primary,
                        pressed: true,
                        modifiers: mods,
                    });
                }
                PointerPhase::Move => out.push(Event::PointerMoved(at)),
                PointerPhase::Up => {
                    self.emulating = None;
                    out.push(Event::PointerButton {
                        pos: at,
                        button: primary,
                        pressed: false,
                        modifiers: mods,
                    });
                    out.push(Event::PointerGone);
                }
                PointerPhase::Cancel => {
                    self.emulating = None;
                    out.push(Event::PointerGone);
                }
            }
        }
        (out, discrete)
    }
}

/// A touch `Cancel` for a contact that never existed: makes egui register the touch device.
pub(crate) fn touch_device_probe() -> Event {
    Event::Touch {
        device_id: TOUCH_DEVICE,
        id: TouchId(u64::MAX),
        phase: TouchPhase::Cancel,
        pos: Pos2::ZERO,
        force: None,
    }
}

/// egui's key for a core key, if egui has one.
pub(crate) fn key(k: Key) -> Option<egui::Key> {
    use egui::Key as E;
    Some(match k {
        Key::Named(n) => match n {
            NamedKey::Enter => E::Enter,
            NamedKey::Tab => E::Tab,
            NamedKey::Space => E::Space,
            NamedKey::Backspace => E::Backspace,
            NamedKey::Escape => E::Escape,
            NamedKey::Delete => E::Delete,
            NamedKey::Insert => E::Insert,
            NamedKey::Home => E::Home,
            NamedKey::End => E::End,
            NamedKey::PageUp => E::PageUp,
            NamedKey::PageDown => E::PageDown,
            NamedKey::ArrowUp => E::ArrowUp,
            NamedKey::ArrowDown => E::ArrowDown,
            NamedKey::ArrowLeft => E::ArrowLeft,
            NamedKey::ArrowRight => E::ArrowRight,
            NamedKey::F(n) => return E::from_name(&format!("F{n}")),
            // Modifier keys are state, not keys, in egui (see `ModifiersChanged`).
            NamedKey::ContextMenu
            | NamedKey::Shift
            | NamedKey::Control
            | NamedKey::Alt
            | NamedKey::Meta => return None,
        },
        Key::Character(c) => return E::from_name(&c.to_ascii_uppercase().to_string()),
    })
}

fn printable(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| !c.is_control())
}

/// egui events for one key transition.
pub(crate) fn key_events(e: &KeyEvent, platform: Platform, clipboard: &str) -> Vec<Event> {
    let mods = modifiers(e.modifiers, platform);
    let mut out = vec![Event::ModifiersChanged(mods)];
    let Some(k) = key(e.key) else {
        // A character with no key of its own on egui's keyboard (ë, Å, é, 漢, an emoji)
        // still arrives, as text: what an input method or a compose key delivers.
        if e.pressed
            && !(mods.command || mods.ctrl || mods.mac_cmd)
            && let Some(text) = e.text.as_deref().filter(|t| printable(t))
        {
            out.push(Event::Text(text.to_string()));
        }
        return out;
    };
    if e.pressed && mods.command && !mods.alt && !mods.shift {
        match k {
            egui::Key::C => out.push(Event::Copy),
            egui::Key::X => out.push(Event::Cut),
            egui::Key::V => out.push(Event::Paste(clipboard.to_string())),
            _ => {}
        }
    }
    out.push(Event::Key {
        key: k,
        physical_key: Some(k),
        pressed: e.pressed,
        repeat: false,
        modifiers: mods,
    });
    if e.pressed
        && !(mods.command || mods.ctrl || mods.mac_cmd)
        && let Some(text) = e.text.as_deref().filter(|t| printable(t))
    {
        out.push(Event::Text(text.to_string()));
    }
    out
}

/// egui events for one wheel turn (the pointer moves there first).
pub(crate) fn scroll_events(e: &ScrollEvent, platform: Platform) -> Vec<Event> {
    let (unit, source) = match e.unit {
        ScrollUnit::Pixels => (egui::MouseWheelUnit::Point, egui::MouseWheelSource::Unknown),
        ScrollUnit::Lines => (egui::MouseWheelUnit::Line, egui::MouseWheelSource::Wheel),
    };
    // Core: positive dy scrolls content down (the wheel turned towards the user). egui: the
    // delta is how far the content moves, so scrolling down is a negative y.
    let delta = egui::vec2(-e.dx as f32, -e.dy as f32);
    vec![
        Event::PointerMoved(pos(e.position)),
        Event::MouseWheel {
            unit,
            delta,
            phase: TouchPhase::Move,
            source,
            modifiers: modifiers(e.modifiers, platform),
        },
    ]
}

/// The egui event for an IME step.
pub(crate) fn ime_event(e: &ImeEvent) -> Event {
    match e {
        ImeEvent::Preedit(text) => Event::Ime(egui::ImeEvent::Preedit {
            text: text.clone(),
            active_range_chars: None,
        }),
        ImeEvent::Commit(text) => Event::Ime(egui::ImeEvent::Commit(text.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_only_for_printable_presses_without_accelerator() {
        let press = |text: &str, ctrl: bool| KeyEvent {
            key: Key::for_char('a'),
            pressed: true,
            text: Some(text.into()),
            modifiers: Modifiers {
                ctrl,
                ..Modifiers::default()
            },
        };
        let has_text = |ev: &[Event]| ev.iter().any(|e| matches!(e, Event::Text(_)));
        assert!(has_text(&key_events(
            &press("a", false),
            Platform::Other,
            ""
        )));
        assert!(!has_text(&key_events(
            &press("a", true),
            Platform::Other,
            ""
        )));
        assert!(!has_text(&key_events(
            &press("\r", false),
            Platform::Other,
            ""
        )));
    }

    #[test]
    fn command_v_pastes_the_clipboard() {
        let e = KeyEvent {
            key: Key::for_char('v'),
            pressed: true,
            text: None,
            modifiers: Modifiers {
                ctrl: true,
                command: true,
                ..Modifiers::default()
            },
        };
        let ev = key_events(&e, Platform::Other, "clip");
        assert!(ev.contains(&Event::Paste("clip".into())));
    }

    #[test]
    fn first_touch_emulates_the_mouse_second_does_not() {
        let mut s = PointerState::default();
        let down = |id| PointerEvent {
            pointer_id: id,
            kind: PointerKind::Touch,
            phase: PointerPhase::Down,
            position: Point::new(1.0, 2.0),
            button: None,
            buttons_held: vec![],
            primary: id == 1,
            pressure: None,
            tilt: None,
            modifiers: Modifiers::default(),
        };
        let (a, discrete) = s.translate(&down(1), Platform::Other);
        assert!(discrete);
        assert!(
            a.iter()
                .any(|e| matches!(e, Event::PointerButton { pressed: true, .. }))
        );
        let (b, _) = s.translate(&down(2), Platform::Other);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn every_named_key_maps_or_is_a_modifier() {
        for n in 1..=35 {
            assert!(key(Key::Named(NamedKey::F(n))).is_some(), "F{n}");
        }
        assert_eq!(key(Key::for_char('s')), Some(egui::Key::S));
        assert_eq!(key(Key::for_char('1')), Some(egui::Key::Num1));
        assert_eq!(key(Key::Named(NamedKey::Shift)), None);
    }
}
