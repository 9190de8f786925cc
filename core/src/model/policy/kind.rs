//! The kinds of workload with a policy of their own: one spelling for the API's path
//! (`/api/v2/policy/<kind>`), the store's `kind` column, the port and the organisation page.

use crate::model::kind::WorkloadKind;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    #[default]
    Trainings,
    Distributed,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 2] = [PolicyKind::Trainings, PolicyKind::Distributed];

    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::Trainings => "trainings",
            PolicyKind::Distributed => "distributed",
        }
    }

    /// The kind named `text`, or an error naming the kinds there are.
    pub fn parse(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| format!("must be trainings or distributed, not {text:?}"))
    }

    /// The policy a workload is checked against. A generic job's replica specs are training
    /// specs, so the trainings policy applies to each of them.
    pub fn of(kind: WorkloadKind) -> Self {
        match kind {
            WorkloadKind::Distributed => PolicyKind::Distributed,
            WorkloadKind::Training | WorkloadKind::Generic => PolicyKind::Trainings,
        }
    }
}

/// One `T` for each kind, such as the policy layers a scope has of each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerKind<T> {
    pub trainings: T,
    pub distributed: T,
}

impl<T> PerKind<T> {
    /// `value(kind)` for each kind, in [`PolicyKind::ALL`]'s order.
    pub fn from_fn(mut value: impl FnMut(PolicyKind) -> T) -> Self {
        let trainings = value(PolicyKind::Trainings);
        PerKind {
            trainings,
            distributed: value(PolicyKind::Distributed),
        }
    }

    pub fn get(&self, kind: PolicyKind) -> &T {
        match kind {
            PolicyKind::Trainings => &self.trainings,
            PolicyKind::Distributed => &self.distributed,
        }
    }

    /// The value of `kind`, dropping the others.
    pub fn take(self, kind: PolicyKind) -> T {
        match kind {
            PolicyKind::Trainings => self.trainings,
            PolicyKind::Distributed => self.distributed,
        }
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        PolicyKind::ALL.into_iter().map(|kind| self.get(kind))
    }
}

impl std::fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PolicyKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_back_from_its_spelling_and_serde_agrees() {
        for kind in PolicyKind::ALL {
            assert_eq!(PolicyKind::parse(kind.as_str()), Ok(kind));
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
        }
        let refused = PolicyKind::parse("training").unwrap_err();
        assert!(refused.contains("trainings or distributed"), "{refused}");
    }

    #[test]
    fn per_kind_holds_each_kind_s_value_under_its_kind() {
        let per = PerKind::from_fn(|kind| kind.as_str().len());
        assert_eq!(per.get(PolicyKind::Trainings), &"trainings".len());
        assert_eq!(per.values().copied().collect::<Vec<_>>(), vec![9, 11]);
        assert_eq!(per.take(PolicyKind::Distributed), 11);
    }

    #[test]
    fn a_generic_job_is_held_to_the_trainings_policy() {
        assert_eq!(PolicyKind::of(WorkloadKind::Generic), PolicyKind::Trainings);
        assert_eq!(
            PolicyKind::of(WorkloadKind::Training),
            PolicyKind::Trainings
        );
        assert_eq!(
            PolicyKind::of(WorkloadKind::Distributed),
            PolicyKind::Distributed
        );
    }
}
