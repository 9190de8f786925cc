//! What Tephra keeps of a training's pods once it fails: the last lines of each container's log,
//! with what they hint at, so its page still explains what happened after the Job and its pods
//! are collected (the events are kept with its status).

use serde::{Deserialize, Serialize};

/// What a hint is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HintKind {
    /// A GPU fault (an NVIDIA Xid line, an ECC error).
    Gpu,
    /// CUDA ran out of GPU memory.
    GpuMemory,
    /// NCCL, the GPUs' communication library: an error or a collective's timeout.
    Nccl,
}

/// A log line that hints at a cause, with what such a line usually means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LogHint {
    pub kind: HintKind,
    /// The line, cut to 300 characters.
    pub line: String,
    pub meaning: String,
}

/// The last lines of one container's log, as Tephra read them when the training failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct KeptLog {
    pub pod: String,
    pub container: String,
    /// Read from the container's previous run (it had restarted).
    pub previous: bool,
    pub lines: Vec<String>,
    /// When they were read, RFC 3339.
    pub taken_at: String,
    pub hints: Vec<LogHint>,
}
