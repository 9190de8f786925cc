//! "Edit and resubmit": a failed training's form opens with the fix its diagnosis found
//! (`?from=<id>&fix=memory trainer 6144`), applied here on the server, each change said above
//! the form with a link to its field. A fix is news, not a problem with the draft: it is not
//! shown as an error.

use crate::components::form::field_id;
use crate::draft::Draft;
use crate::draft::fields;
use leptos::prelude::*;
use serde_json::json;
use tephra_core::model::diagnosis::Fix;

/// A change the fix made to a field, or asks the user to make there.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Applied {
    /// The field's request path, e.g. `spec.image`.
    pub path: String,
    pub said: String,
}

/// Applies `fix` to `draft`; what it changed or what to change, by field.
pub(super) fn apply(draft: &mut Draft, fix: &Fix) -> Vec<Applied> {
    match fix {
        Fix::Memory { container, mib } => {
            let path = fields::compute().key("cpuMemoryLimit");
            draft.set(&path, Some(json!(format!("{mib}Mi"))));
            vec![Applied {
                path: "spec.compute.cpuMemoryLimit".into(),
                said: format!(
                    "memory limit raised to {mib}Mi: container {container} ran out of memory \
                     at its last limit; lower it again if this is more than it needs"
                ),
            }]
        }
        Fix::Image { image } => vec![Applied {
            path: "spec.image".into(),
            said: format!(
                "image: the cluster could not pull {image:?}; correct its name or tag, or give \
                 the training a pull secret that may read it"
            ),
        }],
    }
}

/// What the fix changed, above the form; each line links to its field.
#[component]
pub(super) fn FixApplied(applied: Vec<Applied>) -> impl IntoView {
    (!applied.is_empty()).then(|| {
        view! {
            <section aria-label="What the fix changed" class="mb-4 rounded-md border border-sky-300 bg-sky-50 p-3 text-sm dark:border-sky-700 dark:bg-sky-950" data-testid="fix-applied">
                <p class="font-medium">"Edit and resubmit: from the failure's diagnosis"</p>
                <ul class="mt-1 list-disc pl-5">
                    {applied.into_iter().map(|a| view! {
                        <li><a class="underline" href=format!("#{}", field_id(&a.path))>{a.said}</a></li>
                    }).collect_view()}
                </ul>
            </section>
        }
    })
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
        assert!(said[0].said.starts_with("memory limit raised to 6144Mi"));
        let said = apply(
            &mut draft,
            &Fix::Image {
                image: "ghcr.io/acme/train:v3".into(),
            },
        );
        assert_eq!(said[0].path, "spec.image");
        assert!(said[0].said.contains("\"ghcr.io/acme/train:v3\""));
    }
}
