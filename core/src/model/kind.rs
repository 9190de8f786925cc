//! The kinds of workload: one spelling for the wire, the store, the port, the configuration and
//! the pages.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which of the API's collections a workload belongs to (`/workloads/trainings`,
/// `/workloads/distributed` or `/workloads/generic`), as stored with it; each has its own
/// request schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    Training,
    Distributed,
    Generic,
}

impl WorkloadKind {
    pub const ALL: [WorkloadKind; 3] = [
        WorkloadKind::Training,
        WorkloadKind::Distributed,
        WorkloadKind::Generic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Training => "training",
            WorkloadKind::Distributed => "distributed",
            WorkloadKind::Generic => "generic",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == s)
    }

    /// What the API calls one of these in messages.
    pub fn noun(self) -> &'static str {
        match self {
            WorkloadKind::Training => "training",
            WorkloadKind::Distributed => "distributed training",
            WorkloadKind::Generic => "generic job",
        }
    }

    /// What a page calls one of these at the start of a sentence.
    pub fn title(self) -> &'static str {
        match self {
            WorkloadKind::Training => "Training",
            WorkloadKind::Distributed => "Distributed training",
            WorkloadKind::Generic => "Generic job",
        }
    }

    /// The schema a document follows, for `tephra render` without `--kind`: one with
    /// `spec.replicaSpecs` is generic; one with `spec.distributedFramework` or `spec.numWorkers`
    /// is distributed.
    pub fn detect(value: &Value) -> WorkloadKind {
        let spec = value.get("spec");
        if spec.and_then(|s| s.get("replicaSpecs")).is_some() {
            return WorkloadKind::Generic;
        }
        let distributed = ["distributedFramework", "numWorkers"]
            .iter()
            .any(|key| spec.and_then(|s| s.get(key)).is_some());
        if distributed {
            WorkloadKind::Distributed
        } else {
            WorkloadKind::Training
        }
    }
}

impl std::fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for WorkloadKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| "must be training, distributed or generic".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_text_the_store_text_and_the_parse_agree() {
        for kind in WorkloadKind::ALL {
            let wire = serde_json::to_value(kind).unwrap();
            assert_eq!(wire, kind.as_str());
            assert_eq!(kind.as_str().parse::<WorkloadKind>(), Ok(kind));
            assert_eq!(serde_json::from_value::<WorkloadKind>(wire).unwrap(), kind);
        }
        assert!("Training".parse::<WorkloadKind>().is_err());
    }
}
