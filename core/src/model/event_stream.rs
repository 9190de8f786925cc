//! The workload event stream's wire form (`GET /api/v1/workloads/events`): the events it sends,
//! by the names the browser listens for, and how one is framed.

/// An event the stream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEvent {
    /// A workload's status changed; the data is a `WorkloadEvent`.
    Workload,
    /// The client may have missed changes: fetch the state again.
    Resync,
    /// The stream ends; the data says why (`{"reason"}`).
    Closed,
}

impl StreamEvent {
    pub fn name(self) -> &'static str {
        match self {
            StreamEvent::Workload => "workload",
            StreamEvent::Resync => "resync",
            StreamEvent::Closed => "closed",
        }
    }

    /// This event as Server-Sent Events send it, with `data` as its one data line. `data` must
    /// hold no newline; JSON from serde_json holds none (one inside a string is escaped).
    pub fn frame(self, data: &str) -> String {
        debug_assert!(!data.contains('\n'), "an SSE data line holds no newline");
        format!("event: {}\ndata: {data}\n\n", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_names_its_event_and_ends_with_a_blank_line() {
        assert_eq!(
            StreamEvent::Workload.frame(r#"{"a":1}"#),
            "event: workload\ndata: {\"a\":1}\n\n"
        );
        assert_eq!(
            StreamEvent::Closed.frame("{}"),
            "event: closed\ndata: {}\n\n"
        );
    }
}
