//! Logging: `tracing` to stderr, JSON lines when stderr is not a terminal (so log collectors get
//! structure) and readable text when it is.

use crate::config::LogFormat;
use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `filter` has been checked by `ServeArgs::validate`.
pub fn init(filter: &str, format: LogFormat) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let json = match format {
        LogFormat::Json => true,
        LogFormat::Text => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second init (tests start several servers in one process) keeps the first subscriber.
    let _ = if json {
        builder
            .json()
            .flatten_event(true)
            // Every span the line is in, outermost first: the request's id and path, or the
            // workload being reconciled, on every line (the innermost alone may be a library's).
            .with_current_span(false)
            .with_span_list(true)
            .try_init()
    } else {
        builder.try_init()
    };
}
