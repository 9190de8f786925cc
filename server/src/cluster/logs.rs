//! A workload's pod logs, read through the Kubernetes logs API (the kubelet serves them; the API
//! server relays), line by line so a follower sees each line as the container writes it.

use futures::{AsyncBufRead, AsyncBufReadExt, Stream, StreamExt};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, LogParams};
use tephra_core::domain::logs::{LogRequest, MAX_BYTES, Tail};

/// A pod of the Job named `job`, with its containers: its own in order, then its init
/// containers (a git clone runs in one). `None` when no such pod is in `namespace`, or it
/// belongs to another Job: a workload's reader sees that workload's pods only.
pub async fn pod_of_job(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    job: &str,
) -> Result<Option<Vec<String>>, kube::Error> {
    let Some(found) = Api::<Pod>::namespaced(client.clone(), namespace)
        .get_opt(pod)
        .await?
    else {
        return Ok(None);
    };
    // The Job's controller reference, not a label anyone creating a pod could copy.
    let owned = found.metadata.owner_references.iter().flatten().any(|r| {
        r.controller == Some(true)
            && r.kind == "Job"
            && r.api_version.starts_with("batch.volcano.sh/")
            && r.name == job
    });
    if !owned {
        return Ok(None);
    }
    let spec = found.spec.unwrap_or_default();
    Ok(Some(
        spec.containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .map(|c| c.name.clone())
            .collect(),
    ))
}

/// The lines `request` asks for, each without its line break; the stream ends when the
/// container's log does (at once without `follow`; when the container stops with it).
pub async fn lines(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    request: &LogRequest,
) -> Result<impl Stream<Item = std::io::Result<String>> + Send + use<>, kube::Error> {
    let params = LogParams {
        container: Some(request.container.clone()),
        follow: request.follow,
        // A follower's answer is open-ended by design; a one-off answer is bounded.
        limit_bytes: (!request.follow).then_some(MAX_BYTES),
        previous: request.previous,
        since_seconds: request.since_seconds,
        tail_lines: match request.tail {
            Tail::Lines(n) => Some(n),
            Tail::All => None,
        },
        timestamps: request.timestamps,
        ..LogParams::default()
    };
    let reader = Api::<Pod>::namespaced(client.clone(), namespace)
        .log_stream(pod, &params)
        .await?;
    Ok(bounded_lines(Box::pin(reader)).boxed())
}

/// The longest line passed on whole. A longer one is cut there, marked and passed on at once,
/// and the rest of it skipped up to its newline: a container printing without end and without a
/// newline must neither grow Tephra's memory nor keep its reader waiting for a line that never
/// comes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// What ends a cut line.
pub const CUT_MARK: &str = " [cut: the line is longer than 64 KiB]";

/// Where the reader is: inside a line it passes on, or skipping the rest of one it cut.
struct Lines<R> {
    reader: R,
    skipping: bool,
}

/// `reader`'s lines, each without its line break and at most [`MAX_LINE_BYTES`] (then marked
/// with [`CUT_MARK`]); bytes that are not UTF-8 become U+FFFD.
fn bounded_lines<R>(reader: R) -> impl Stream<Item = std::io::Result<String>> + Send
where
    R: AsyncBufRead + Unpin + Send,
{
    let start = Lines {
        reader,
        skipping: false,
    };
    futures::stream::unfold(Some(start), |state| async move {
        let Lines {
            mut reader,
            mut skipping,
        } = state?;
        let mut line = Vec::new();
        loop {
            let buf = match reader.fill_buf().await {
                Ok(buf) => buf,
                Err(error) => return Some((Err(error), None)),
            };
            if buf.is_empty() {
                return (!line.is_empty()).then(|| (Ok(finish(line, false)), None));
            }
            let end = buf.iter().position(|b| *b == b'\n');
            let used = end.map_or(buf.len(), |i| i + 1);
            if skipping {
                reader.consume_unpin(used);
                skipping = end.is_none();
                continue;
            }
            let chunk = &buf[..end.unwrap_or(buf.len())];
            let room = MAX_LINE_BYTES - line.len();
            if chunk.len() > room {
                line.extend_from_slice(&chunk[..room]);
                reader.consume_unpin(room);
                let next = Lines {
                    reader,
                    skipping: true,
                };
                return Some((Ok(finish(line, true)), Some(next)));
            }
            line.extend_from_slice(chunk);
            reader.consume_unpin(used);
            if end.is_some() {
                let next = Lines {
                    reader,
                    skipping: false,
                };
                return Some((Ok(finish(line, false)), Some(next)));
            }
        }
    })
}

fn finish(mut line: Vec<u8>, cut: bool) -> String {
    if !cut && line.last() == Some(&b'\r') {
        line.pop();
    }
    let mut text = String::from_utf8_lossy(&line).into_owned();
    if cut {
        text.push_str(CUT_MARK);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::io::{BufReader, Cursor};

    async fn read(bytes: Vec<u8>) -> Vec<String> {
        // A small buffer, so lines span many reads as they do from the API server.
        let reader = BufReader::with_capacity(1000, Cursor::new(bytes));
        bounded_lines(reader)
            .map(|l| l.expect("a line"))
            .collect()
            .await
    }

    /// A reader that never ends and never sends a newline.
    struct Endless;

    impl futures::io::AsyncRead for Endless {
        fn poll_read(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut [u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            buf.fill(b'e');
            std::task::Poll::Ready(Ok(buf.len()))
        }
    }

    #[tokio::test]
    async fn a_line_without_end_is_passed_on_cut_at_once() {
        let mut lines = Box::pin(bounded_lines(BufReader::new(Endless)));
        let first = lines.next().await.expect("a line").expect("read");
        assert_eq!(first.len(), MAX_LINE_BYTES + CUT_MARK.len());
        assert!(first.ends_with(CUT_MARK));
    }

    #[tokio::test]
    async fn lines_are_bounded_and_cut_lines_are_marked() {
        assert_eq!(
            read(b"a\r\nb\n\nlast".to_vec()).await,
            ["a", "b", "", "last"]
        );
        let mut long = vec![b'x'; MAX_LINE_BYTES * 3];
        long.extend_from_slice(b"\nafter\n");
        let lines = read(long).await;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + CUT_MARK.len());
        assert!(lines[0].ends_with(CUT_MARK));
        assert_eq!(lines[1], "after");
        let endless = read(vec![b'y'; MAX_LINE_BYTES + 1]).await;
        assert_eq!(endless.len(), 1);
        assert!(endless[0].ends_with(CUT_MARK));
        // Exactly at the limit is whole; the newline right after a cut ends the skipping.
        let mut exact = vec![b'z'; MAX_LINE_BYTES];
        exact.extend_from_slice(b"\nnext\n");
        assert_eq!(read(exact).await[1], "next");
        assert_eq!(read(vec![0xff, b'\n']).await, ["\u{fffd}"]);
    }
}
