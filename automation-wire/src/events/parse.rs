//! The line parser. It never panics: every line is either an [`Event`] or a [`LogRecord`].
//!
//! Fast path: a line that does not start with `{` is plain output without touching a JSON
//! parser. Otherwise the line is deserialised into one flat borrowed
//! struct (strings borrowed where unescaped, unknown fields skipped), so the ingest rate beats
//! parsing every line into a `serde_json::Value`.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{Event, EventKind, LogLevel, LogRecord, LogSource};

/// One parsed line.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedLine {
    /// A typed event.
    Event(Event),
    /// Anything else, kept as a log record.
    Log(LogRecord),
}

/// `__mcp_event__`: only JSON `true` counts.
#[derive(Default)]
struct Tag(bool);

impl<'de> Deserialize<'de> for Tag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Tag, E> {
                Ok(Tag(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Tag, E> {
                Ok(Tag(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Tag, E> {
                Ok(Tag(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Tag, E> {
                Ok(Tag(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<Tag, E> {
                Ok(Tag(false))
            }
            fn visit_unit<E>(self) -> Result<Tag, E> {
                Ok(Tag(false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Tag, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Tag(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Tag, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Tag(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// A lenient number: JSON numbers (any sign, fractions) and numeric strings; anything else is
/// treated as absent rather than rejecting the line.
#[derive(Default, Clone, Copy)]
struct Num(Option<f64>);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v.is_finite().then_some(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Num, E> {
                Ok(Num(v.trim().parse::<f64>().ok().filter(|x| x.is_finite())))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Num, E> {
                Ok(Num(None))
            }
            fn visit_unit<E>(self) -> Result<Num, E> {
                Ok(Num(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Num, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Num(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Num, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Num(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A lenient string: a JSON string (borrowed when unescaped); numbers and booleans as their
/// text; objects and arrays as compact JSON; `null` as absent.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_unit<E>(self) -> Result<Text<'a>, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Text<'a>, A::Error> {
                let v = Value::deserialize(de::value::SeqAccessDeserializer::new(a))?;
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Text<'a>, A::Error> {
                let v = Value::deserialize(de::value::MapAccessDeserializer::new(a))?;
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'a> Text<'a> {
    fn owned(self) -> Option<String> {
        self.0.map(Cow::into_owned)
    }
}

/// Every field any event may carry, flat; unknown fields are skipped.
#[derive(Default)]
struct Raw<'a> {
    tag: Tag,
    ty: Text<'a>,
    timestamp: Text<'a>,
    current: Num,
    total: Num,
    message: Text<'a>,
    step_id: Text<'a>,
    step_name: Text<'a>,
    step_index: Num,
    total_steps: Num,
    duration: Num,
    error: Text<'a>,
    path: Text<'a>,
    base64: Text<'a>,
    annotation: Text<'a>,
    element: Text<'a>,
    key: Text<'a>,
    value: Option<Value>,
    level: Text<'a>,
    data: Option<Value>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Raw<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Raw<'a>, A::Error> {
                let mut r = Raw::default();
                // Keys are dispatched on their length first: one integer switch, then at most
                // two string comparisons, instead of a chain of twenty.
                while let Some(Text(Some(k))) = m.next_key::<Text<'de>>()? {
                    let k: &str = &k;
                    match (k.len(), k) {
                        (13, "__mcp_event__") => r.tag = m.next_value()?,
                        (4, "type") => r.ty = m.next_value()?,
                        (9, "timestamp") => r.timestamp = m.next_value()?,
                        (7, "current") => r.current = m.next_value()?,
                        (5, "total") => r.total = m.next_value()?,
                        (7, "message") => r.message = m.next_value()?,
                        (6, "stepId") => r.step_id = m.next_value()?,
                        (8, "stepName") => r.step_name = m.next_value()?,
                        (9, "stepIndex") => r.step_index = m.next_value()?,
                        (10, "totalSteps") => r.total_steps = m.next_value()?,
                        (8, "duration") => r.duration = m.next_value()?,
                        (5, "error") => r.error = m.next_value()?,
                        (4, "path") => r.path = m.next_value()?,
                        (6, "base64") => r.base64 = m.next_value()?,
                        (10, "annotation") => r.annotation = m.next_value()?,
                        (7, "element") => r.element = m.next_value()?,
                        (3, "key") => r.key = m.next_value()?,
                        (5, "value") => r.value = m.next_value()?,
                        (5, "level") => r.level = m.next_value()?,
                        (4, "data") => r.data = m.next_value()?,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn int(n: Num) -> Option<i64> {
    // Fractions truncate toward zero; out-of-range saturates (`as` on f64 does both).
    n.0.map(|x| x as i64)
}

fn strip_data_url(b: String) -> String {
    match b.find(";base64,") {
        Some(i) if b.starts_with("data:") => b
            .get(i + ";base64,".len()..)
            .unwrap_or_default()
            .to_string(),
        _ => b,
    }
}

fn plain(line: &str, rejected: Option<String>) -> ParsedLine {
    ParsedLine::Log(LogRecord {
        level: LogLevel::Info,
        message: line.to_string(),
        data: None,
        timestamp: None,
        source: LogSource::EventChannel,
        rejected,
    })
}

/// Parse one line from the event channel (without its newline; a trailing `\r` is ignored).
pub fn parse_line(line: &str) -> ParsedLine {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    let body = trimmed.trim_start();
    if !body.starts_with('{') {
        return plain(trimmed, None);
    }
    let raw: Raw<'_> = match serde_json::from_str(body) {
        Ok(r) => r,
        Err(_) => return plain(trimmed, None),
    };
    if !raw.tag.0 {
        return plain(trimmed, None);
    }
    match to_event(raw) {
        Ok(e) => ParsedLine::Event(e),
        Err(why) => plain(trimmed, Some(why)),
    }
}

fn need(field: &'static str, v: Text<'_>, ty: &str) -> Result<String, String> {
    v.owned()
        .ok_or_else(|| format!("{ty} event without required field `{field}`"))
}

fn to_event(raw: Raw<'_>) -> Result<Event, String> {
    let ty = raw.ty.0.ok_or("tagged line without a `type`")?;
    let timestamp = raw
        .timestamp
        .owned()
        .ok_or("event without a `timestamp` (ISO-8601 string)")?;
    let kind = match ty.as_ref() {
        "progress" => EventKind::Progress {
            current: raw
                .current
                .0
                .ok_or("progress event without a numeric `current`")?,
            total: raw.total.0,
            message: raw.message.owned(),
        },
        "step_started" => EventKind::StepStarted {
            step_id: need("stepId", raw.step_id, &ty)?,
            step_name: need("stepName", raw.step_name, &ty)?,
            step_index: int(raw.step_index),
            total_steps: int(raw.total_steps),
        },
        "step_completed" => EventKind::StepCompleted {
            step_id: need("stepId", raw.step_id, &ty)?,
            step_name: need("stepName", raw.step_name, &ty)?,
            duration: raw.duration.0,
            step_index: int(raw.step_index),
            total_steps: int(raw.total_steps),
        },
        "step_failed" => EventKind::StepFailed {
            step_id: need("stepId", raw.step_id, &ty)?,
            step_name: need("stepName", raw.step_name, &ty)?,
            error: raw.error.owned(),
            duration: raw.duration.0,
        },
        "screenshot" => EventKind::Screenshot {
            path: raw.path.owned(),
            base64: raw.base64.owned().map(strip_data_url),
            annotation: raw.annotation.owned(),
            element: raw.element.owned(),
        },
        "data" => EventKind::Data {
            key: need("key", raw.key, &ty)?,
            value: raw.value.unwrap_or(Value::Null),
        },
        "status" => EventKind::Status {
            message: need("message", raw.message, &ty)?,
            duration: raw.duration.0,
            element: raw.element.owned(),
        },
        "log" => EventKind::Log {
            level: raw
                .level
                .0
                .as_deref()
                .map(LogLevel::parse)
                .unwrap_or(LogLevel::Info),
            message: need("message", raw.message, &ty)?,
            data: raw.data.filter(|d| !d.is_null()),
        },
        other => return Err(format!("unknown event type `{other}`")),
    };
    Ok(Event { timestamp, kind })
}

/// Parse one line from the log channel: `{level, message, data?, timestamp}`; anything else
/// becomes an `info` record with the line as its message.
pub fn parse_log_line(line: &str) -> LogRecord {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    let fallback = || LogRecord {
        level: LogLevel::Info,
        message: trimmed.to_string(),
        data: None,
        timestamp: None,
        source: LogSource::LogChannel,
        rejected: None,
    };
    if !trimmed.trim_start().starts_with('{') {
        return fallback();
    }
    let Ok(raw) = serde_json::from_str::<Raw<'_>>(trimmed) else {
        return fallback();
    };
    let Some(message) = raw.message.owned() else {
        return fallback();
    };
    LogRecord {
        level: raw
            .level
            .0
            .as_deref()
            .map(LogLevel::parse)
            .unwrap_or(LogLevel::Info),
        message,
        data: raw.data.filter(|d| !d.is_null()),
        timestamp: raw.timestamp.owned(),
        source: LogSource::LogChannel,
        rejected: None,
    }
}
