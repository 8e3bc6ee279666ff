//! The live terminal view: `exec`'s display over the run's stream (a progress line on a
//! terminal, plain lines otherwise; everything on stderr).

use automation_wire::events::{Event, PipeItem, iso8601_now};

use crate::exec::display::Display;
use crate::runner::events::{RunEvent, Sink};
use crate::runner::report::RunReport;

/// Shows events as they come.
pub struct DisplaySink {
    display: Display,
}

impl DisplaySink {
    /// A progress bar when `tty`, plain lines otherwise.
    pub fn new(tty: bool) -> Self {
        Self {
            display: Display::new(tty),
        }
    }

    /// Plain lines, each starting with `prefix` (`automation run --jobs N`: the flow's name).
    pub fn prefixed(prefix: impl Into<String>) -> Self {
        Self {
            display: Display::prefixed(prefix),
        }
    }
}

impl Sink for DisplaySink {
    fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Event(kind) => self.display.show(&PipeItem::Event(Event {
                timestamp: iso8601_now(),
                kind: kind.clone(),
            })),
            RunEvent::Log(record) => self.display.show(&PipeItem::Log(record.clone())),
            RunEvent::Call(_) | RunEvent::Image(_) | RunEvent::Poll(_) => {}
        }
    }

    fn finish(&mut self, _report: &RunReport) -> Result<(), String> {
        self.display.finish();
        Ok(())
    }
}
