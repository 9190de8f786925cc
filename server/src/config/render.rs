//! `tephra render`: what a training request becomes, printed without a cluster.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct RenderArgs {
    /// The request (JSON or YAML); `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,

    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Yaml)]
    pub output: OutputFormat,

    /// Request kind; by default a request with spec.replicaSpecs is generic, and one with
    /// spec.distributedFramework or spec.numWorkers is distributed.
    #[arg(long, value_name = "training|distributed|generic")]
    pub kind: Option<tephra_core::domain::request::WorkloadKind>,

    /// The project the training runs in (namespace and queue `tephra-<project>`).
    #[arg(long, default_value = "default")]
    pub project: String,

    /// The workload id to label the objects with.
    #[arg(long, default_value = "00000000-0000-0000-0000-000000000000")]
    pub workload_id: String,

    /// The suffix appended when the request sets useGivenNameAsPrefix.
    #[arg(long, default_value = "abcde", value_parser = parse_suffix)]
    pub name_suffix: String,

    /// Recorded as the creator.
    #[arg(long, default_value = "render@tephra.local")]
    pub created_by: String,

    /// Cluster profile (JSON or YAML): node-pool label, priority classes, git image, S3 driver.
    #[arg(long, value_name = "FILE")]
    pub cluster_profile: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Yaml,
    Json,
}

fn parse_suffix(s: &str) -> Result<String, String> {
    if s.len() == 5
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    {
        Ok(s.to_owned())
    } else {
        Err("must be 5 lowercase letters or digits".into())
    }
}
