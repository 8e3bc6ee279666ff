//! WCAG 1.4.3 on pixels: the contrast of a text's colour against its background, measured on
//! the window's screenshot inside the node's bounds. A finding only when the measure is sure
//! (one background colour, enough ink); otherwise the node is to review.

use automation_core::catalog::Op;
use automation_core::ops::Screenshot;
use automation_core::{Reply, Request, SemanticNode};

use crate::checks::Tally;
use crate::driver::Driver;
use crate::error::AuditError;
use crate::rules;
use crate::tree::{Tree, named};

/// Roles whose own bounds hold their text on one background.
const TEXT_ROLES: &[&str] = &["Label", "Paragraph", "Heading", "Link", "Button"];
/// The share of a node's pixels its background colour must cover to count as one colour.
const ONE_BACKGROUND: f64 = 0.45;
/// Colours this close to the background's (as a contrast ratio) are background too.
const NEAR_BACKGROUND: f64 = 1.15;
/// Text that may be large (WCAG: 18 pt, or 14 pt bold) has a line this high or more.
const MAYBE_LARGE_PX: f64 = 28.0;

/// An RGBA image, decoded.
struct Pixels {
    width: usize,
    height: usize,
    rgba: Vec<u8>,
    scale: f64,
}

fn decode(png_bytes: &[u8], scale: f64) -> Option<Pixels> {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        _ => return None,
    };
    if info.bit_depth != png::BitDepth::Eight {
        return None;
    }
    let (width, height) = (info.width as usize, info.height as usize);
    let rgba = if channels == 4 {
        buf.truncate(width * height * 4);
        buf
    } else {
        buf.chunks_exact(3)
            .take(width * height)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    Some(Pixels {
        width,
        height,
        rgba,
        scale,
    })
}

/// WCAG's relative luminance of an sRGB colour.
fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG's contrast ratio of two colours (1 to 21).
#[must_use]
pub fn ratio(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// What the pixels inside one node say.
#[derive(Debug, PartialEq)]
enum Measure {
    /// Text colour, background colour, their ratio.
    Sure([u8; 3], [u8; 3], f64),
    /// The background is not one colour (share of the most common one).
    MixedBackground(f64),
    /// Too little drawn to be text.
    NoInk,
}

fn measure(px: &Pixels, bounds: &automation_core::Bounds) -> Option<Measure> {
    let s = px.scale.max(0.01);
    // Truncation is meant: pixel edges.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let clip = |v: f64, max: usize| ((v * s).round().max(0.0) as usize).min(max);
    let (x0, y0) = (clip(bounds.x, px.width), clip(bounds.y, px.height));
    let (x1, y1) = (
        clip(bounds.x + bounds.width, px.width),
        clip(bounds.y + bounds.height, px.height),
    );
    if x1 <= x0 + 3 || y1 <= y0 + 3 {
        return None;
    }
    let colours: Vec<[u8; 3]> = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (y * px.width + x) * 4))
        .filter_map(|i| px.rgba.get(i..i + 3).map(|p| [p[0], p[1], p[2]]))
        .collect();
    let mut counts: std::collections::HashMap<[u8; 3], usize> = std::collections::HashMap::new();
    for c in &colours {
        *counts.entry(*c).or_default() += 1;
    }
    let background = counts.iter().max_by_key(|(_, n)| **n).map(|(c, _)| *c)?;
    // A theme's gentle gradient (a button's face) is still one background.
    let near = colours
        .iter()
        .filter(|c| ratio(**c, background) < NEAR_BACKGROUND)
        .count();
    #[allow(clippy::cast_precision_loss)]
    let share = near as f64 / colours.len() as f64;
    if share < ONE_BACKGROUND {
        return Some(Measure::MixedBackground(share));
    }
    // Ink: what stands out from the background. Anti-aliased edges contrast less than a
    // glyph's core, so the text's colour is read among its most contrasting pixels (the
    // top 2%): a finding then holds for the darkest of the text, never for its edges.
    let mut ink: Vec<(f64, [u8; 3])> = colours
        .iter()
        .map(|c| (ratio(*c, background), *c))
        .filter(|(r, _)| *r >= 1.25)
        .collect();
    if ink.len() < 12.max(colours.len() / 100) {
        return Some(Measure::NoInk);
    }
    ink.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (r, text) = ink[ink.len() / 50];
    Some(Measure::Sure(text, background, r))
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Whether a node carries text of its own to measure: a text role, named, shown, enabled
/// (disabled text is exempt), with no child that carries text.
fn measurable(tree: &Tree, node: &SemanticNode) -> bool {
    TEXT_ROLES.contains(&node.role.as_str())
        && (named(node.label.as_deref()) || named(node.value.as_deref()))
        && tree.operable(node)
        && !tree
            .descendants(&node.id)
            .iter()
            .any(|d| named(d.label.as_deref()) || named(d.value.as_deref()))
}

/// Measures every text in the main window against its background.
pub fn run(driver: &mut dyn Driver, tree: &Tree, tally: &mut Tally) -> Result<(), AuditError> {
    let rule = &rules::CONTRAST;
    tally.checked.push((rule, 0));
    let image = match driver.call(Request::new(Op::Screenshot(Screenshot { node: None }))) {
        Reply::Image(image) => image,
        // No pixels here (a host without screenshots): the rule checks nothing.
        _ => return Ok(()),
    };
    let Some(px) = decode(&image.png, image.scale) else {
        return Ok(());
    };
    // Only nodes of the window the screenshot shows: the one whose frame starts at the
    // origin the bounds are relative to.
    let main = tree.nodes.iter().find(|n| {
        matches!(n.role.as_str(), "Window" | "Dialog")
            && n.bounds.is_some_and(|b| b.x.abs() < 1.0 && b.y.abs() < 1.0)
    });
    for node in &tree.nodes {
        if !measurable(tree, node) {
            continue;
        }
        if let Some(main) = main
            && tree.window_of(node) != &main.id
        {
            continue;
        }
        let Some(bounds) = node.bounds else { continue };
        let Some(m) = measure(&px, &bounds) else {
            continue;
        };
        if m == Measure::NoInk {
            continue;
        }
        if let Some((_, n)) = tally.checked.iter_mut().find(|(r, _)| r.id == rule.id) {
            *n += 1;
        }
        match m {
            Measure::Sure(text, back, r) if r < 4.5 => {
                let said = format!(
                    "its text ({}) on {} contrasts {r:.2}:1, under 4.5:1",
                    hex(text),
                    hex(back)
                );
                if r >= 3.0 && bounds.height >= MAYBE_LARGE_PX {
                    tally.review.push((
                        rule,
                        node.clone(),
                        format!("{said}; large text needs only 3:1, and its size is not known"),
                    ));
                } else {
                    tally.findings.push((rule, node.clone(), format!("{said}: hard to read for a person with low vision")));
                }
            }
            Measure::MixedBackground(share) => tally.review.push((
                rule,
                node.clone(),
                format!(
                    "its background is not one colour (the most common covers {:.0}%): a gradient or an image, measure by eye",
                    share * 100.0
                ),
            )),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_match_wcag_examples() {
        assert!((ratio([0, 0, 0], [255, 255, 255]) - 21.0).abs() < 0.01);
        assert!((ratio([0x77, 0x77, 0x77], [255, 255, 255]) - 4.48).abs() < 0.01);
        assert!((ratio([0x59, 0x59, 0x59], [255, 255, 255]) - 7.0).abs() < 0.02);
    }

    fn image(
        w: usize,
        h: usize,
        back: [u8; 3],
        ink: [u8; 3],
        ink_rows: std::ops::Range<usize>,
    ) -> Pixels {
        let mut rgba = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let c = if ink_rows.contains(&y) && x % 3 == 0 {
                    ink
                } else {
                    back
                };
                rgba.extend([c[0], c[1], c[2], 255]);
            }
        }
        Pixels {
            width: w,
            height: h,
            rgba,
            scale: 1.0,
        }
    }

    #[test]
    fn grey_on_white_is_measured_as_drawn() {
        let b = automation_core::Bounds {
            x: 0.0,
            y: 0.0,
            width: 60.0,
            height: 20.0,
        };
        let px = image(60, 20, [255, 255, 255], [0xa0, 0xa0, 0xa0], 5..15);
        match measure(&px, &b) {
            Some(Measure::Sure(text, back, r)) => {
                assert_eq!((text, back), ([0xa0; 3], [255; 3]));
                assert!((r - 2.63).abs() < 0.05, "{r}");
            }
            other => panic!("{other:?}"),
        }
        let blank = image(60, 20, [255, 255, 255], [255, 255, 255], 0..0);
        assert_eq!(measure(&blank, &b), Some(Measure::NoInk));
    }
}
