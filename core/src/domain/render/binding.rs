//! What a checked request needs from the cluster and its creator, looked up before rendering: the
//! priority class the cluster calls it, the claims of the data volumes it mounts, and the ids
//! from the creator's token. These are the only reasons a checked request cannot run.

use crate::domain::cluster::ClusterProfile;
use crate::model::training::checked::{Spec, UidGid};
use crate::model::validation::{Errors, FieldError, index, join};
use std::collections::BTreeMap;

/// Every lookup a request's render makes, done. Built only by [`Binding::new`], so a render
/// finds whatever it looks up here.
#[derive(Debug, Clone, Default)]
pub struct Binding {
    priority_class: Option<String>,
    data_volumes: BTreeMap<String, String>,
    token_uid_gid: Option<(i64, i64)>,
}

impl Binding {
    /// Looks up what `job_spec` and each distinct task spec (with its path in the request) need,
    /// and refuses by path what this cluster or the creator cannot give.
    pub fn new(
        job_spec: &Spec,
        tasks: &[(&str, &Spec)],
        profile: &ClusterProfile,
        token_uid_gid: Option<(i64, i64)>,
    ) -> Result<Binding, Vec<FieldError>> {
        let mut errors = Errors::default();
        let mut binding = Binding {
            priority_class: priority_class(job_spec, profile, &mut errors),
            data_volumes: BTreeMap::new(),
            token_uid_gid,
        };
        for (path, spec) in tasks {
            for (i, d) in spec.storage.data_volumes.iter().enumerate() {
                match profile.data_volumes.get(&d.id) {
                    Some(claim) => {
                        binding.data_volumes.insert(d.id.clone(), claim.clone());
                    }
                    None => errors.add(
                        join(&index(&join(path, "storage.dataVolume"), i), "id"),
                        format!("{} is not a data volume registered in this cluster", d.id),
                    ),
                }
            }
            // Without an Ingress only the cluster reaches the URL, which is at least as narrow;
            // with forward auth Tephra checks the lists on every request.
            if profile.serves_exposed_urls() && profile.forward_auth.is_none() {
                for (i, url) in spec.exposed_urls.iter().enumerate() {
                    if let Some(field) = url.restricted_by {
                        errors.add(
                            join(&index(&join(path, "exposedUrls"), i), field),
                            "cannot be enforced on this cluster: its exposed URLs are served by \
                             an ingress without Tephra's forward auth, so anyone who reaches it \
                             could open the URL; leave it out to expose the URL to everyone, or \
                             leave out the URL",
                        );
                    }
                }
            }
            let from_token = spec
                .security
                .as_ref()
                .is_some_and(|s| s.uid_gid == UidGid::FromIdpToken);
            if from_token && token_uid_gid.is_none() {
                errors.add(
                    join(path, "security.uidGidSource"),
                    "fromIdpToken needs uid and gid claims in the signed-in user's token, and it has none; use custom or fromTheImage",
                );
            }
        }
        errors.into_result().map(|()| binding)
    }

    /// The cluster's PriorityClass for the request's (or the default) priority class.
    pub fn priority_class(&self) -> Option<&str> {
        self.priority_class.as_deref()
    }

    /// The claim holding data volume `id`; every id the request mounts has one.
    pub fn data_volume(&self, id: &str) -> Option<&str> {
        self.data_volumes.get(id).map(String::as_str)
    }

    /// The creator's uid and gid, which every `fromIdpToken` spec has.
    pub fn token_uid_gid(&self) -> Option<(i64, i64)> {
        self.token_uid_gid
    }
}

fn priority_class(spec: &Spec, profile: &ClusterProfile, errors: &mut Errors) -> Option<String> {
    let requested = spec
        .priority_class
        .as_ref()
        .map(|class| class.as_str())
        .or(profile.default_training_priority.as_deref())?;
    match profile.priority_classes.get(requested) {
        Some(class) => Some(class.clone()),
        None => {
            let allowed: Vec<&str> = profile
                .priority_classes
                .keys()
                .map(String::as_str)
                .collect();
            errors.add(
                "spec.priorityClass",
                format!(
                    "{requested:?} is not a priority class of this cluster; use one of {}",
                    allowed.join(", ")
                ),
            );
            None
        }
    }
}
