//! What of a running Volcano Job may change, after seeds/001: the gang (`minAvailable`), each
//! task's `replicas` and `minAvailable`, and the priority class. Volcano's controller follows such
//! a change (it creates or deletes pods and updates the PodGroup); anything else in a Job is fixed
//! once it is created, and Tephra never changes it.
//!
//! Scaling down needs one step more. Volcano 1.14 deletes the pods past a task's new replica
//! count without marking them, so their deletion reads as an eviction, and the `PodEvicted →
//! RestartJob` policy every Tephra Job carries would restart the whole training and spend one
//! of its retries. Tephra first stamps those pods with a Job version older than the Job's
//! (`labels::OUTDATED_VERSION`): Volcano takes any event of such a pod, their deletion
//! included, for one of a discarded Job and only syncs. Volcano's own out-of-sync mark would not
//! do: a controller that syncs the old spec before it sees the new one deletes marked pods and
//! creates them again, unmarked.

use super::volcano::JobSpec;
use serde_json::{Value, json};

/// The Job annotation holding the generation Tephra's own last change produced: a generation
/// beyond it is someone else's change (drift).
pub const GENERATION_ANNOTATION: &str = "tephra.dev/generation";

/// The changeable part of a Job's spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    pub min_available: Option<i32>,
    pub priority_class: Option<String>,
    pub tasks: Vec<TaskShape>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskShape {
    pub name: String,
    pub replicas: i32,
    pub min_available: Option<i32>,
}

impl Shape {
    pub fn of(spec: &JobSpec) -> Shape {
        Shape {
            min_available: spec.min_available,
            priority_class: spec.priority_class_name.clone(),
            tasks: spec
                .tasks
                .iter()
                .map(|t| TaskShape {
                    name: t.name.clone(),
                    replicas: t.replicas,
                    min_available: t.min_available,
                })
                .collect(),
        }
    }

    /// A JSON Patch (RFC 6902) taking a Job of this shape, read at `generation`, to `desired`:
    /// it fails as a whole if the Job changed since (the generation is tested) or its tasks are
    /// not the ones read, and it records the generation it produces. `None` when nothing
    /// differs, or when the tasks differ by name or number, which no edit does.
    pub fn patch_to(&self, desired: &Shape, generation: i64) -> Option<Value> {
        if self == desired
            || self.tasks.len() != desired.tasks.len()
            || self
                .tasks
                .iter()
                .zip(&desired.tasks)
                .any(|(a, b)| a.name != b.name)
        {
            return None;
        }
        let mut ops =
            vec![json!({ "op": "test", "path": "/metadata/generation", "value": generation })];
        if self.min_available != desired.min_available {
            ops.push(set("/spec/minAvailable", desired.min_available));
        }
        if self.priority_class != desired.priority_class {
            ops.push(set(
                "/spec/priorityClassName",
                desired.priority_class.clone(),
            ));
        }
        for (i, (now, want)) in self.tasks.iter().zip(&desired.tasks).enumerate() {
            let at = format!("/spec/tasks/{i}");
            ops.push(json!({ "op": "test", "path": format!("{at}/name"), "value": now.name }));
            if now.replicas != want.replicas {
                ops.push(set(&format!("{at}/replicas"), Some(want.replicas)));
            }
            if now.min_available != want.min_available {
                ops.push(set(&format!("{at}/minAvailable"), want.min_available));
            }
        }
        // A spec change bumps the generation by exactly one; that one is Tephra's. Tephra's
        // Jobs always carry annotations (the owner's signature), so the map exists.
        let key = GENERATION_ANNOTATION.replace('~', "~0").replace('/', "~1");
        ops.push(
            json!({ "op": "add", "path": format!("/metadata/annotations/{key}"),
                         "value": (generation + 1).to_string() }),
        );
        Some(Value::Array(ops))
    }
}

impl Shape {
    /// The pods an edit from this shape to `desired` removes: for each task whose replicas
    /// shrink, its name and the first index that goes (pods with that index or higher).
    pub fn removed_by(&self, desired: &Shape) -> Vec<(String, i32)> {
        self.tasks
            .iter()
            .zip(&desired.tasks)
            .filter(|(now, want)| now.name == want.name && want.replicas < now.replicas)
            .map(|(_, want)| (want.name.clone(), want.replicas))
            .collect()
    }
}

/// Whether a pod of `task` at `index` goes with an edit that removes `removed`.
pub fn is_removed(removed: &[(String, i32)], task: &str, index: i32) -> bool {
    removed
        .iter()
        .any(|(name, first)| name == task && index >= *first)
}

/// `add` replaces a present member and creates a missing one; a value to unset is removed.
fn set<T: serde::Serialize>(path: &str, value: Option<T>) -> Value {
    match value {
        Some(value) => json!({ "op": "add", "path": path, "value": value }),
        None => json!({ "op": "remove", "path": path }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(workers: i32, gang: i32, priority: &str) -> Shape {
        Shape {
            min_available: Some(gang),
            priority_class: Some(priority.into()),
            tasks: vec![
                TaskShape {
                    name: "master".into(),
                    replicas: 1,
                    min_available: Some(1),
                },
                TaskShape {
                    name: "worker".into(),
                    replicas: workers,
                    min_available: Some(gang - 1),
                },
            ],
        }
    }

    #[test]
    fn the_same_shape_needs_no_patch() {
        assert_eq!(
            shape(2, 3, "train").patch_to(&shape(2, 3, "train"), 1),
            None
        );
    }

    #[test]
    fn a_scale_patches_only_what_changed_guarded_by_generation_and_task_names() {
        let patch = shape(2, 3, "train")
            .patch_to(&shape(4, 4, "train"), 1)
            .unwrap();
        assert_eq!(
            patch,
            json!([
                { "op": "test", "path": "/metadata/generation", "value": 1 },
                { "op": "add", "path": "/spec/minAvailable", "value": 4 },
                { "op": "test", "path": "/spec/tasks/0/name", "value": "master" },
                { "op": "test", "path": "/spec/tasks/1/name", "value": "worker" },
                { "op": "add", "path": "/spec/tasks/1/replicas", "value": 4 },
                { "op": "add", "path": "/spec/tasks/1/minAvailable", "value": 3 },
                { "op": "add", "path": "/metadata/annotations/tephra.dev~1generation",
                  "value": "2" },
            ])
        );
    }

    #[test]
    fn a_priority_change_sets_the_class() {
        let patch = shape(2, 3, "tephra-train")
            .patch_to(&shape(2, 3, "tephra-build"), 5)
            .unwrap();
        let ops = patch.as_array().unwrap();
        assert!(ops.contains(
            &json!({ "op": "add", "path": "/spec/priorityClassName", "value": "tephra-build" })
        ));
        assert_eq!(
            ops.last().unwrap()["value"],
            "6",
            "the generation the patch produces"
        );
    }

    #[test]
    fn a_scale_down_removes_the_highest_indexes_of_the_shrinking_task_only() {
        let removed = shape(4, 5, "train").removed_by(&shape(1, 2, "train"));
        assert_eq!(removed, vec![("worker".to_owned(), 1)]);
        assert!(!is_removed(&removed, "worker", 0));
        assert!(is_removed(&removed, "worker", 1));
        assert!(is_removed(&removed, "worker", 3));
        assert!(!is_removed(&removed, "master", 1));
    }

    #[test]
    fn a_scale_up_or_a_gang_change_removes_no_pod() {
        assert!(
            shape(2, 3, "train")
                .removed_by(&shape(4, 5, "train"))
                .is_empty()
        );
        assert!(
            shape(2, 3, "train")
                .removed_by(&shape(2, 2, "build"))
                .is_empty()
        );
    }

    #[test]
    fn other_tasks_are_not_an_edit() {
        let mut renamed = shape(2, 3, "train");
        renamed.tasks[1].name = "workers".into();
        assert_eq!(shape(2, 3, "train").patch_to(&renamed, 1), None);
    }
}
