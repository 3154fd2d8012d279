//! The JSON log line: one flat object per event, with the fields of every span the event is in
//! (`room_id`, `conn`, `client`, …) at the top level beside the event's own.
//!
//! `tracing-subscriber`'s JSON format nests span fields under `span` and `spans`, so a log
//! collector filtering on `room_id` missed every line a room wrote inside its span. Here the
//! spans' fields are merged outermost first, then the event's (an inner field wins over an outer
//! one of the same name); `span` keeps the innermost span's name.

use std::fmt;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Formats events as flat JSON objects; pair it with [`JsonFields`] as the field formatter.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlatJson;

impl<S> FormatEvent<S, JsonFields> for FlatJson
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, JsonFields>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let metadata = event.metadata();
        let mut line = Map::new();
        let now = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        line.insert("timestamp".to_owned(), Value::String(now));
        line.insert(
            "level".to_owned(),
            Value::String(metadata.level().to_string()),
        );
        line.insert(
            "target".to_owned(),
            Value::String(metadata.target().to_owned()),
        );
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                line.insert("span".to_owned(), Value::String(span.name().to_owned()));
                let extensions = span.extensions();
                let Some(fields) = extensions.get::<FormattedFields<JsonFields>>() else {
                    continue;
                };
                if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(fields) {
                    line.extend(fields);
                }
            }
        }
        event.record(&mut Fields(&mut line));
        writeln!(writer, "{}", Value::Object(line))
    }
}

/// Collects an event's fields into the line.
struct Fields<'a>(&'a mut Map<String, Value>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_owned(), Value::String(value.to_owned()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn span_fields_are_at_the_top_level_beside_the_event_fields() {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(JsonFields::new())
            .event_format(FlatJson)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let room = tracing::info_span!("room", room_id = "r1", seat = "red");
            let _room = room.enter();
            let conn = tracing::info_span!("conn", conn = 7u64, seat = "yellow");
            let _conn = conn.enter();
            tracing::warn!(code = "stale", "refused");
        });
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let line: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(line["room_id"], "r1");
        assert_eq!(line["conn"], 7);
        assert_eq!(line["seat"], "yellow", "the inner span wins");
        assert_eq!(line["code"], "stale");
        assert_eq!(line["message"], "refused");
        assert_eq!(line["level"], "WARN");
        assert_eq!(line["span"], "conn");
    }
}
