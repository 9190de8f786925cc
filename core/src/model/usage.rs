//! Where a project and its department stand against their GPU quota and limit, for a training's
//! page: what a pending training waits on besides the scheduler.

use serde::{Deserialize, Serialize};

/// A unit's GPUs in use (the requests of its workloads that have started) and those its
/// workloads waiting to start ask, against its quota and limit, summed over node pools; `None`:
/// no quota, or no limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitGpus {
    pub name: String,
    pub in_use: f64,
    #[serde(default)]
    pub waiting: f64,
    pub quota: Option<f64>,
    pub limit: Option<f64>,
}

impl UnitGpus {
    /// It uses more than its quota: what is beyond it runs on lent GPUs.
    pub fn over_quota(&self) -> bool {
        self.quota.is_some_and(|q| self.in_use > q)
    }

    /// "project "vision": 6 GPU(s) in use, 2 more asked by workloads waiting to start; quota 4,
    /// limit 8"
    pub fn describe(&self, kind: &str) -> String {
        let show = |n: Option<f64>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
        let waiting = if self.waiting > 0.0 {
            format!(
                ", {} more asked by workloads waiting to start",
                (self.waiting * 100.0).round() / 100.0
            )
        } else {
            String::new()
        };
        let mut line = format!(
            "{kind} {:?}: {} GPU(s) in use{waiting}; quota {}, limit {}",
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
            waiting: 0.0,
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
        let queued = UnitGpus {
            waiting: 1.0,
            ..unit(2.0, Some(2.0), Some(2.0))
        };
        assert_eq!(
            queued.describe("Project"),
            "Project \"vision\": 2 GPU(s) in use, 1 more asked by workloads waiting to start; \
             quota 2, limit 2"
        );
        assert!(!queued.over_quota(), "what waits is not over quota");
    }
}
