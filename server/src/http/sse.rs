//! Server-Sent Events sent as frames built once. A status change is one frame, shared by every
//! stream that shows it ([`crate::cluster::Published`]): a stream passes on a reference, where
//! axum's `Sse` copied each event into a buffer of its own, once per open stream. (A log follow
//! keeps axum's `Sse`: its lines are arbitrary text, which `Sse` splits into data lines where a
//! carriage return would end one; this stream's data is JSON, one line by construction.)

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::Stream;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tephra_core::model::event_stream::StreamEvent;
use tokio::time::{Instant, Sleep};

/// How long a stream may send nothing before a comment keeps proxies from closing it (axum's
/// `KeepAlive` default).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `event` with `data` as its one data line ([`StreamEvent::frame`]).
pub fn frame(event: StreamEvent, data: &str) -> Bytes {
    Bytes::from(event.frame(data))
}

/// [`frame`] with `data` as JSON; a resync, should it not serialize.
pub fn json_frame(event: StreamEvent, data: &impl serde::Serialize) -> Bytes {
    match serde_json::to_string(data) {
        Ok(json) => frame(event, &json),
        Err(_) => frame(StreamEvent::Resync, "{}"),
    }
}

/// The response for a stream of frames, with a comment after each [`KEEP_ALIVE`] of silence.
pub fn response(frames: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    let body = Body::from_stream(KeepAlive {
        frames: Box::pin(frames),
        quiet: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

struct KeepAlive<S> {
    frames: Pin<Box<S>>,
    /// Ends [`KEEP_ALIVE`] after the last frame.
    quiet: Pin<Box<Sleep>>,
}

impl<S: Stream<Item = Bytes>> Stream for KeepAlive<S> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let frame = match self.frames.as_mut().poll_next(cx) {
            Poll::Ready(Some(frame)) => frame,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => match self.quiet.as_mut().poll(cx) {
                Poll::Ready(()) => Bytes::from_static(b":\n\n"),
                Poll::Pending => return Poll::Pending,
            },
        };
        self.quiet.as_mut().reset(Instant::now() + KEEP_ALIVE);
        Poll::Ready(Some(Ok(frame)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[test]
    fn json_data_with_a_newline_stays_on_one_line() {
        let json = json_frame(
            StreamEvent::Closed,
            &serde_json::json!({ "reason": "a\nb" }),
        );
        assert_eq!(
            json,
            Bytes::from_static(b"event: closed\ndata: {\"reason\":\"a\\nb\"}\n\n")
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_gets_a_comment_and_a_finished_one_ends() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(1);
        let frames = tokio_stream::wrappers::ReceiverStream::new(rx);
        let mut body = KeepAlive {
            frames: Box::pin(frames),
            quiet: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        };
        tx.send(frame(StreamEvent::Resync, "{}")).await.unwrap();
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            frame(StreamEvent::Resync, "{}")
        );
        let started = Instant::now();
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            Bytes::from_static(b":\n\n")
        );
        assert_eq!(
            started.elapsed(),
            KEEP_ALIVE,
            "the comment comes after the quiet time"
        );
        drop(tx);
        assert!(
            body.next().await.is_none(),
            "the stream ends with its frames"
        );
    }
}
