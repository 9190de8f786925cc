//! What the form shows of a project's policies, field by field: worked out where the policies are
//! read (the server), so the form's script carries a few strings per ruled field instead of the
//! rules and the code that combines and words them. The validator, in its own lazily loaded
//! chunk, still checks the whole policy, which travels with the hints as JSON text.

use super::{FieldRule, FormPolicy};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One ruled field's line beside it and what the form may not let a user do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    /// "Locked by the system policy.", "At most 2 (project \"vision\"'s policy)."...
    pub text: String,
    /// The field may not be changed from its default.
    pub locked: bool,
    /// No entries may be added to the list.
    pub closed: bool,
}

/// The hints for each kind of request, by path below `spec`, and the policy they came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FormHints {
    pub trainings: BTreeMap<String, Hint>,
    pub distributed: BTreeMap<String, Hint>,
    /// The [`FormPolicy`] as JSON, for the validator.
    pub policy: String,
}

impl FormHints {
    pub fn of(policy: &FormPolicy) -> FormHints {
        let hints = |distributed: bool| {
            let layers = policy.layers(distributed);
            layers
                .iter()
                .flat_map(|layer| layer.rules.iter().map(|(path, _)| path))
                .filter_map(|path| {
                    let rule = FieldRule::of(layers, path)?;
                    let hint = Hint {
                        text: rule.describe(),
                        locked: rule.locked(),
                        closed: rule.rule.can_add == Some(false),
                    };
                    Some((path.clone(), hint))
                })
                .collect()
        };
        FormHints {
            trainings: hints(false),
            distributed: hints(true),
            policy: serde_json::to_string(policy).unwrap_or_default(),
        }
    }

    /// The hint for the field at `path` below `spec`, for a distributed draft or not.
    pub fn get(&self, distributed: bool, path: &str) -> Option<&Hint> {
        if distributed {
            self.distributed.get(path)
        } else {
            self.trainings.get(path)
        }
    }

    /// The policy back, for the validator; none when the text is not one (no hints then either).
    pub fn policy(&self) -> FormPolicy {
        serde_json::from_str(&self.policy).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::Policy;
    use serde_json::json;

    #[test]
    fn each_ruled_field_gets_the_combined_rules_line_and_flags() {
        let system = Policy::parse(
            "the system policy",
            &json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": 4 } },
                                "imagePullPolicy": { "canEdit": false },
                                "tolerations": { "canAdd": false } } }),
        )
        .unwrap();
        let project = Policy::parse(
            "project \"vision\"'s policy",
            &json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": 2 } } } }),
        )
        .unwrap();
        let policy = FormPolicy {
            trainings: vec![system.clone(), project],
            distributed: vec![system],
        };
        let hints = FormHints::of(&policy);
        let gpus = hints.get(false, "compute.gpuDevicesRequest").unwrap();
        assert_eq!(
            gpus.text,
            FieldRule::of(policy.layers(false), "compute.gpuDevicesRequest")
                .unwrap()
                .describe()
        );
        assert!(
            gpus.text.contains('2'),
            "the inner scope narrows: {}",
            gpus.text
        );
        assert!(!gpus.locked && !gpus.closed);
        assert!(hints.get(false, "imagePullPolicy").unwrap().locked);
        assert!(hints.get(true, "tolerations").unwrap().closed);
        assert!(
            hints
                .get(true, "compute.gpuDevicesRequest")
                .unwrap()
                .text
                .contains('4'),
            "a distributed draft has its own layers"
        );
        assert_eq!(hints.get(false, "image"), None);
        assert_eq!(
            hints.policy(),
            policy,
            "the validator gets the whole policy back"
        );
    }
}
