//! Accepted connections: one whose client takes no bytes for [`STALLED_WRITE`] is closed.
//!
//! An event stream's client that stops reading costs the server its socket and what the kernel
//! buffers for it; nothing queues in the process (the stream is not polled while hyper cannot
//! write, and a stream that falls behind the broadcast is told to resync). Without a bound in
//! time, such a client would hold its connection, its slot among its streams and the kernel's
//! buffers for as long as it stays connected. Closing it makes a browser's `EventSource`
//! reconnect and resync, which is what a client that fell behind must do anyway.

use axum::serve::Listener;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;

/// How long a write may wait for the client to take any bytes before the connection is closed.
/// A slow client that takes some bytes in that time is kept; one that takes none has stopped
/// reading (or its network has gone).
pub const STALLED_WRITE: Duration = Duration::from_secs(30);

/// A [`TcpListener`] whose connections have a [`WriteDeadline`].
pub struct Connections {
    listener: TcpListener,
    stalled: Duration,
}

impl Connections {
    pub fn new(listener: TcpListener, stalled: Duration) -> Self {
        Connections { listener, stalled }
    }
}

impl Listener for Connections {
    type Io = WriteDeadline<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (tcp, addr) = Listener::accept(&mut self.listener).await;
        (WriteDeadline::new(tcp, self.stalled), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.listener.local_addr()
    }
}

/// An IO whose writes fail with `TimedOut` once one has waited `limit` with no byte taken. The
/// timer exists only while a write waits, so an idle or flowing connection carries none.
pub struct WriteDeadline<T> {
    io: T,
    limit: Duration,
    waiting: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    pub fn new(io: T, limit: Duration) -> Self {
        WriteDeadline {
            io,
            limit,
            waiting: None,
        }
    }

    pub fn get_ref(&self) -> &T {
        &self.io
    }

    /// What a write that got `poll` from the IO answers: progress clears the timer; waiting
    /// starts it, or fails once it has run out (its wake-up polls the write again).
    fn watch<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.waiting = None;
            return poll;
        }
        let limit = self.limit;
        let timer = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client took no bytes for {} s", limit.as_secs()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_flush(cx);
        self.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_shutdown(cx);
        self.watch(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const LIMIT: Duration = Duration::from_secs(30);

    #[tokio::test(start_paused = true)]
    async fn a_client_that_takes_no_bytes_is_cut_off_after_the_limit() {
        // A pipe that holds 64 bytes: the 65th waits for the other end to read.
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut guarded = WriteDeadline::new(ours, LIMIT);
        guarded.write_all(&[b'x'; 64]).await.unwrap();
        let started = tokio::time::Instant::now();
        let error = guarded.write_all(b"more").await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), LIMIT);
        let mut taken = [0; 64];
        theirs.read_exact(&mut taken).await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_client_that_keeps_taking_bytes_is_kept() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut guarded = WriteDeadline::new(ours, LIMIT);
        let reader = tokio::spawn(async move {
            let mut total = 0;
            let mut chunk = [0; 16];
            // 16 bytes every 20 s: each wait is under the limit, all of them far over it.
            while total < 640 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                total += theirs.read(&mut chunk).await.unwrap();
            }
            total
        });
        guarded.write_all(&[b'x'; 640]).await.unwrap();
        assert_eq!(reader.await.unwrap(), 640);
    }
}
