//! The change that fixes why a training failed, where one exists: carried with its live status
//! and offered as "Edit and resubmit" (`crate::domain::diagnosis` finds it).

use serde_with::{DeserializeFromStr, SerializeDisplay};
use std::fmt;

/// A change to the request, spelled as one string on the wire and in the form's address
/// (`memory trainer 6144`, `image pytorch/pytorch:2.4.0`), so the browser decodes a string.
#[derive(Debug, Clone, PartialEq, Eq, SerializeDisplay, DeserializeFromStr)]
pub enum Fix {
    /// Give container `container` this many MiB of memory (`compute.cpuMemoryLimit`).
    Memory { container: String, mib: u64 },
    /// The image could not be pulled: correct it, or its pull secret.
    Image { image: String },
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fix::Memory { container, mib } => write!(f, "memory {container} {mib}"),
            Fix::Image { image } => write!(f, "image {image}"),
        }
    }
}

impl std::str::FromStr for Fix {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut words = text.split(' ');
        match (words.next(), words.next(), words.next(), words.next()) {
            (Some("memory"), Some(container), Some(mib), None) => Ok(Fix::Memory {
                container: container.to_owned(),
                mib: mib
                    .parse()
                    .map_err(|_| format!("not a number of MiB: {mib:?}"))?,
            }),
            (Some("image"), Some(image), None, None) => Ok(Fix::Image {
                image: image.to_owned(),
            }),
            _ => Err(format!("not a fix: {text:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_reads_back_as_written() {
        for fix in [
            Fix::Memory {
                container: "trainer".into(),
                mib: 6144,
            },
            Fix::Image {
                image: "pytorch/pytorch:2.4.0".into(),
            },
        ] {
            assert_eq!(fix.to_string().parse::<Fix>(), Ok(fix));
        }
        assert!("memory trainer lots".parse::<Fix>().is_err());
        assert!("reboot".parse::<Fix>().is_err());
    }
}

/// What the kubelet reports of a pod beyond its phase, as the watchers last saw it: what a
/// diagnosis reads. Never stored or shown (`domain::status::live_status` leaves it out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodState {
    /// `status.reason` and `status.message` (`Evicted`, `NodeLost`...).
    pub reason: Option<String>,
    pub message: Option<String>,
    /// The pull secrets its spec names.
    pub pull_secrets: Vec<String>,
    pub containers: Vec<ContainerState>,
}

/// One container (init containers too) of a pod.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerState {
    pub name: String,
    pub image: String,
    /// `state.waiting`: its reason and message.
    pub waiting: Option<(String, String)>,
    /// `state.terminated`, or else `lastState.terminated`: how its last run ended.
    pub terminated: Option<Termination>,
    pub restarts: i32,
    /// Its memory limit in MiB, if it has one.
    pub memory_limit_mib: Option<u64>,
}

/// How a container's run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Termination {
    /// `OOMKilled`, `Error`, `Completed`...
    pub reason: String,
    pub exit_code: i32,
    pub message: Option<String>,
}
