//! Where a project and its department stand against their GPU quota and limit, for a training's
//! page: what a pending training waits on besides the scheduler.

use serde::{Deserialize, Serialize};

/// A unit's GPUs in use (its live workloads' requests, this one included) against its quota
/// and limit, summed over node pools; `None`: no quota, or no limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitGpus {
    pub name: String,
    pub in_use: f64,
    pub quota: Option<f64>,
    pub limit: Option<f64>,
}

impl UnitGpus {
    /// It uses more than its quota: what is beyond it runs on lent GPUs.
    pub fn over_quota(&self) -> bool {
        self.quota.is_some_and(|q| self.in_use > q)
    }

    /// "project "vision": 6 GPU(s) in use; quota 4, limit 8"
    pub fn describe(&self, kind: &str) -> String {
        let show = |n: Option<f64>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
        let mut line = format!(
            "{kind} {:?}: {} GPU(s) in use; quota {}, limit {}",
            self.name,
            self.in_use,
            show(self.quota),
            show(self.limit)
        );
        if self.over_quota() {
            line.push_str(
                " (over quota: what is beyond it runs on idle GPUs and may be preempted)",
            );
        }
        line
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub project: UnitGpus,
    pub department: UnitGpus,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_says_its_use_against_quota_and_limit() {
        let unit = |in_use, quota, limit| UnitGpus {
            name: "vision".into(),
            in_use,
            quota,
            limit,
        };
        assert_eq!(
            unit(2.0, Some(4.0), None).describe("Project"),
            "Project \"vision\": 2 GPU(s) in use; quota 4, limit none"
        );
        assert_eq!(
            unit(6.0, Some(4.0), Some(8.0)).describe("Project"),
            "Project \"vision\": 6 GPU(s) in use; quota 4, limit 8 (over quota: what is beyond it \
             runs on idle GPUs and may be preempted)"
        );
    }
}
