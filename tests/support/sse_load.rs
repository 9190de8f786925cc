//! Many raw event-stream clients at once, for load drills: each sends a hand-written HTTP/1.1
//! request over a plain `TcpStream` and counts `event:` lines and bytes, at a fraction of what a
//! full HTTP client costs per connection. Some clients never read, to show what the server does
//! with a consumer that stalls.

use futures::StreamExt;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// Connections opened at once: well under the server's listen backlog (1,024 with tokio's `bind`),
/// which drops SYNs beyond it and costs the dropped clients a one-second retransmit.
const CONNECTING: usize = 64;

const OPEN: u8 = 0;
const CLOSED: u8 = 1;
const FAILED: u8 = 2;

/// What one reading client received.
#[derive(Default)]
pub struct Tally {
    /// `event: workload` lines.
    pub events: AtomicU64,
    /// `event: resync` lines after the first (which only says the stream has started).
    pub resyncs: AtomicU64,
    /// Everything read off the socket, headers and chunk framing included.
    pub bytes: AtomicU64,
    /// `OPEN`, `CLOSED` (the server ended the stream) or `FAILED` (a read error or a refusal).
    end: AtomicU8,
}

/// Every reading client's tally, and how many of them have seen their stream start.
pub struct Clients {
    tallies: Vec<Arc<Tally>>,
    started: Arc<AtomicUsize>,
}

/// A count over the reading clients: the sum, and the least, median and most of one client.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spread {
    pub total: u64,
    pub min: u64,
    pub median: u64,
    pub max: u64,
}

/// How the reading clients' streams stand.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ends {
    pub open: usize,
    /// Ended by the server (end of file).
    pub closed: usize,
    /// A read error, or an answer other than 200.
    pub failed: usize,
}

impl Clients {
    pub fn sum(&self, field: fn(&Tally) -> &AtomicU64) -> u64 {
        self.tallies
            .iter()
            .map(|t| field(t).load(Ordering::Relaxed))
            .sum()
    }

    pub fn spread(&self, field: fn(&Tally) -> &AtomicU64) -> Spread {
        let mut values: Vec<u64> = self
            .tallies
            .iter()
            .map(|t| field(t).load(Ordering::Relaxed))
            .collect();
        values.sort_unstable();
        match (values.first(), values.last()) {
            (Some(&min), Some(&max)) => Spread {
                total: values.iter().sum(),
                min,
                median: values[values.len() / 2],
                max,
            },
            _ => Spread::default(),
        }
    }

    pub fn ends(&self) -> Ends {
        let count = |end| {
            self.tallies
                .iter()
                .filter(|t| t.end.load(Ordering::Relaxed) == end)
                .count()
        };
        Ends {
            open: count(OPEN),
            closed: count(CLOSED),
            failed: count(FAILED),
        }
    }
}

/// The receive buffer of a client that never reads: small, so the server's writes to it wait
/// once a few events are sent (with the kernel's default, loopback's autotuned window takes
/// megabytes and the server never notices), as for a client far away that stopped reading.
const STALLED_RECEIVE_BUFFER: u32 = 4096;

/// Connects and sends the request by hand: a bare socket costs the drill little per connection,
/// and a client that never reads then leaves every unread byte in the kernel's queues, where
/// [`stalled_fate`] can see them.
async fn open_stream(
    addr: SocketAddr,
    path: &str,
    receive_buffer: Option<u32>,
) -> anyhow::Result<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    if let Some(size) = receive_buffer {
        socket.set_recv_buffer_size(size)?;
    }
    let socket = socket.connect(addr).await?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    let mut rest = request.as_bytes();
    while !rest.is_empty() {
        socket.writable().await?;
        match socket.try_write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(socket)
}

/// Recognises the lines of one response from their first bytes.
#[derive(Default)]
struct Lines {
    /// The start of the unfinished line: enough to tell an `event:` line.
    head: Vec<u8>,
    answered: bool,
    streaming: bool,
}

impl Lines {
    fn extend(&mut self, bytes: &[u8]) {
        let room = 32usize.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Counts the finished line; false when the server refused the stream.
    fn finish(&mut self, tally: &Tally, started: &AtomicUsize) -> bool {
        let head = std::mem::take(&mut self.head);
        if !self.answered {
            // A refused stream (401, 404) must not pass for a quiet one.
            self.answered = true;
            return head.starts_with(b"HTTP/1.1 200");
        }
        let Some(name) = head.strip_prefix(b"event:") else {
            return true;
        };
        match name.trim_ascii() {
            b"workload" => {
                tally.events.fetch_add(1, Ordering::Relaxed);
            }
            // The first resync only says the stream has started.
            b"resync" if !self.streaming => {
                self.streaming = true;
                started.fetch_add(1, Ordering::Relaxed);
            }
            b"resync" => {
                tally.resyncs.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
        true
    }
}

/// Reads the stream to its end, counting `event:` lines. Data lines are skipped unparsed (they
/// carry every pod's status, so they are most of the bytes, and JSON has no raw newlines, so
/// memchr skips them fast); chunk-size lines never start with `event:`, so the chunked encoding
/// needs no decoding.
async fn read_stream(socket: TcpStream, tally: Arc<Tally>, started: Arc<AtomicUsize>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = Lines::default();
    let end = 'read: loop {
        if socket.readable().await.is_err() {
            break FAILED;
        }
        let n = match socket.try_read(&mut buf) {
            Ok(0) => break CLOSED,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => break FAILED,
        };
        tally.bytes.fetch_add(n as u64, Ordering::Relaxed);
        let chunk = &buf[..n];
        let mut from = 0;
        for newline in memchr::memchr_iter(b'\n', chunk) {
            lines.extend(&chunk[from..newline]);
            if !lines.finish(&tally, &started) {
                break 'read FAILED;
            }
            from = newline + 1;
        }
        lines.extend(&chunk[from..]);
    };
    tally.end.store(end, Ordering::Relaxed);
}

/// Opens `count` reading clients and `stalled` clients that never read on `path` (a stream
/// that starts with `event: resync`), and waits until every reading client has seen its stream
/// start.
pub async fn open(
    addr: SocketAddr,
    path: &str,
    count: usize,
    stalled: usize,
) -> anyhow::Result<(Clients, Vec<TcpStream>)> {
    // In order, so the last `stalled` are the ones that never read.
    let sockets: Vec<anyhow::Result<TcpStream>> = futures::stream::iter(0..count + stalled)
        .map(|i| open_stream(addr, path, (i >= count).then_some(STALLED_RECEIVE_BUFFER)))
        .buffered(CONNECTING)
        .collect()
        .await;
    let mut sockets = sockets.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let stalled = sockets.split_off(count);
    let started = Arc::new(AtomicUsize::new(0));
    let mut tallies = Vec::with_capacity(count);
    for socket in sockets {
        let tally = Arc::new(Tally::default());
        tokio::spawn(read_stream(socket, tally.clone(), started.clone()));
        tallies.push(tally);
    }
    let clients = Clients { tallies, started };
    let deadline = Instant::now() + Duration::from_secs(120);
    while clients.started.load(Ordering::Relaxed) < count {
        if Instant::now() > deadline {
            let ends = clients.ends();
            anyhow::bail!(
                "only {} of {count} event streams started within 2 minutes ({} closed, {} failed)",
                clients.started.load(Ordering::Relaxed),
                ends.closed,
                ends.failed
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok((clients, stalled))
}

/// TCP state and send/receive queues of loopback IPv4 sockets, by (local port, remote port).
fn tcp_sockets() -> HashMap<(u16, u16), (u8, u64, u64)> {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let port = |field: &str| u16::from_str_radix(field.rsplit(':').next()?, 16).ok();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (tx, rx) = fields.get(4)?.split_once(':')?;
            Some((
                (port(fields.get(1)?)?, port(fields.get(2)?)?),
                (
                    u8::from_str_radix(fields.get(3)?, 16).ok()?,
                    u64::from_str_radix(tx, 16).ok()?,
                    u64::from_str_radix(rx, 16).ok()?,
                ),
            ))
        })
        .collect()
}

/// What became of the clients that never read, seen from both ends of each connection without
/// reading (which would unblock the server).
#[derive(Debug, Clone, Copy, Default)]
pub struct StalledFate {
    pub open: usize,
    pub closed: usize,
    /// Bytes the server has written but could not send (its send queues).
    pub server_queued: u64,
    /// Bytes that reached the clients' receive queues.
    pub client_queued: u64,
}

pub fn stalled_fate(server: SocketAddr, stalled: &[TcpStream]) -> StalledFate {
    const ESTABLISHED: u8 = 1;
    let sockets = tcp_sockets();
    let mut fate = StalledFate::default();
    for client in stalled.iter().filter_map(|s| s.local_addr().ok()) {
        let server_end = sockets.get(&(server.port(), client.port()));
        if let Some((_, _, rx)) = sockets.get(&(client.port(), server.port())) {
            fate.client_queued += rx;
        }
        match server_end {
            Some((ESTABLISHED, tx, _)) => {
                fate.open += 1;
                fate.server_queued += tx;
            }
            _ => fate.closed += 1,
        }
    }
    fate
}
