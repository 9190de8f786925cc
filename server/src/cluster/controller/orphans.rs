//! Tidying up after rows that are gone: Jobs of deleted workloads are deleted; Jobs with Tephra's
//! labels and no live workload are reported as orphans, never deleted (they may be someone's work).

use super::Controller;
use crate::cluster::{Orphan, apply};
use std::collections::HashSet;
use uuid::Uuid;

impl Controller {
    /// Deletes the Jobs of workloads whose rows are deleted (a delete that finished before the
    /// Job was seen, in an earlier version) and reports Jobs whose rows do not exist at all.
    pub(super) async fn tidy(&self, known: &HashSet<Uuid>) {
        let namespaces: HashSet<String> = match self.db.projects().list().await {
            Ok(projects) => projects.into_iter().map(|p| p.project.namespace).collect(),
            Err(_) => return,
        };
        let (unknown, mut orphans) = {
            let index = self.shared.index();
            let unknown: Vec<(Uuid, String, String)> = index
                .jobs()
                .filter(|(id, ns)| namespaces.contains(*ns) && !known.contains(id))
                .map(|(id, ns)| {
                    let name = index
                        .observed(id)
                        .and_then(|e| e.observed.job.as_ref())
                        .map(|j| j.name.clone())
                        .unwrap_or_default();
                    (id, ns.to_owned(), name)
                })
                .collect();
            let unsigned: Vec<Orphan> = index
                .unsigned_jobs()
                .filter(|(ns, _, _)| namespaces.contains(*ns))
                .map(|(ns, name, id)| Orphan {
                    namespace: ns.to_owned(),
                    name: name.to_owned(),
                    workload_id: id.to_string(),
                    signed: false,
                })
                .collect();
            (unknown, unsigned)
        };
        for (id, namespace, name) in unknown {
            match self.db.workloads().get(id).await {
                Ok(row) if row.deleted_at.is_some() => {
                    tracing::warn!(workload = %id, job = %row.name, "a deleted workload's Job is still there; deleting it");
                    if let Err(error) =
                        apply::delete_job(&self.client, &namespace, &row.name, id, &self.key).await
                    {
                        tracing::warn!(workload = %id, %error, "cannot delete a deleted workload's Job");
                    }
                }
                Ok(_) => {}
                Err(_) => orphans.push(Orphan {
                    namespace,
                    name,
                    workload_id: id.to_string(),
                    signed: true,
                }),
            }
        }
        orphans.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let mut stored = self
            .shared
            .orphans
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for orphan in orphans.iter().filter(|o| !stored.contains(o)) {
            tracing::warn!(
                namespace = %orphan.namespace,
                workload = %orphan.workload_id,
                job = %orphan.name,
                signed = orphan.signed,
                "a Volcano Job carries Tephra's labels but is no live workload's; leaving it alone"
            );
        }
        *stored = orphans;
    }
}
