//! Child processes that are stopped when their guard is dropped.

use std::process::Child;
use std::time::{Duration, Instant};

/// Owns a child process; dropping it sends SIGTERM, waits briefly, then kills.
pub struct Guarded {
    pub name: &'static str,
    child: Option<Child>,
}

impl Guarded {
    pub fn new(name: &'static str, child: Child) -> Self {
        Guarded {
            name,
            child: Some(child),
        }
    }

    pub fn id(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Sends SIGTERM and waits up to `timeout` for the exit status.
    pub fn terminate(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let mut child = self.child.take()?;
        signal_term(child.id());
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// Kills the process with SIGKILL (no chance to clean up) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.terminate(Duration::from_secs(10));
    }
}

pub fn signal_term(pid: u32) {
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
}

/// Kills (SIGKILL) every process whose command line contains `needle`, e.g. a unique directory
/// it was started with: for processes that outlive the parent the test started.
pub fn kill_all_with(needle: &str) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// A process's resident memory in MiB (0 when it cannot be read).
pub fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// CPU time the process has used so far (user and system), from `/proc/<pid>/stat`.
pub fn cpu_seconds(pid: u32) -> f64 {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and
    // stime are the 14th and 15th fields of the line, in clock ticks (100 a second on Linux).
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let ticks: f64 =
                fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or_default()
}
