//! A Server-Sent Events client for tests: reads `event:`/`data:` frames off a streaming response.

use anyhow::{Context, bail};
use futures::StreamExt;
use std::time::Duration;

/// One event: its name (`message` when unnamed) and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

pub struct SseStream {
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl SseStream {
    /// Opens `url` and checks that it answers with an event stream.
    pub async fn open(url: &str) -> anyhow::Result<Self> {
        Self::send(reqwest::Client::new().get(url)).await
    }

    /// Sends `request` (with its client's cookies or a bearer token) and checks that it answers
    /// with an event stream.
    pub async fn send(request: reqwest::RequestBuilder) -> anyhow::Result<Self> {
        let response = request
            .header("accept", "text/event-stream")
            .send()
            .await
            .context("opening an event stream")?;
        if !response.status().is_success() {
            bail!(
                "{} answered {}: {}",
                response.url().clone(),
                response.status(),
                response.text().await.unwrap_or_default()
            );
        }
        Self::of(response)
    }

    /// The events of an answer already checked to be a stream.
    pub fn of(response: reqwest::Response) -> anyhow::Result<Self> {
        Ok(SseStream {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        })
    }

    /// The next event (keep-alive comments skipped), or an error after `timeout`.
    pub async fn next(&mut self, timeout: Duration) -> anyhow::Result<SseEvent> {
        self.within(timeout)
            .await?
            .context("timed out waiting for an event")
    }

    /// The next event, or `None` when none came within `timeout` and the stream is still open;
    /// an error when it ended.
    pub async fn within(&mut self, timeout: Duration) -> anyhow::Result<Option<SseEvent>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let mut event = SseEvent {
                    event: "message".into(),
                    data: String::new(),
                };
                let mut has_data = false;
                for line in frame.lines() {
                    if let Some(name) = line.strip_prefix("event:") {
                        event.event = name.trim().to_owned();
                    } else if let Some(data) = line.strip_prefix("data:") {
                        if has_data {
                            event.data.push('\n');
                        }
                        event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                        has_data = true;
                    }
                }
                if has_data {
                    return Ok(Some(event));
                }
                continue;
            }
            let Ok(chunk) = tokio::time::timeout_at(deadline, self.body.next()).await else {
                return Ok(None);
            };
            let chunk = chunk.context("the event stream ended")??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}
