//! "Edit and resubmit": a failed training's form opens with the fix its diagnosis found
//! (`?from=<id>&fix=memory trainer 6144`), applied here on the server, each change said at its
//! field.

use crate::draft::Draft;
use crate::draft::fields;
use serde_json::json;
use tephra_core::model::diagnosis::Fix;
use tephra_core::model::validation::FieldError;

/// Applies `fix` to `draft`; what it changed or what to change, by field.
pub(super) fn apply(draft: &mut Draft, fix: &Fix) -> Vec<FieldError> {
    match fix {
        Fix::Memory { container, mib } => {
            let path = fields::compute().key("cpuMemoryLimit");
            draft.set(&path, Some(json!(format!("{mib}Mi"))));
            vec![FieldError {
                path: "spec.compute.cpuMemoryLimit".into(),
                message: format!(
                    "raised to {mib}Mi: container {container} ran out of memory at its last \
                     limit; lower it again if this is more than it needs"
                ),
            }]
        }
        Fix::Image { image } => vec![FieldError {
            path: "spec.image".into(),
            message: format!(
                "the cluster could not pull {image:?}: correct its name or tag, or give the \
                 training a pull secret that may read it"
            ),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_fix_raises_the_limit_and_says_so() {
        let mut draft = Draft::new("default");
        let said = apply(
            &mut draft,
            &Fix::Memory {
                container: "trainer".into(),
                mib: 6144,
            },
        );
        assert_eq!(
            draft.text(&fields::compute().key("cpuMemoryLimit")),
            "6144Mi"
        );
        assert_eq!(said[0].path, "spec.compute.cpuMemoryLimit");
        let said = apply(
            &mut draft,
            &Fix::Image {
                image: "ghcr.io/acme/train:v3".into(),
            },
        );
        assert_eq!(said[0].path, "spec.image");
        assert!(said[0].message.contains("\"ghcr.io/acme/train:v3\""));
    }
}
