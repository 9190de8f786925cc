//! The watches: Volcano Jobs, PodGroups and pods labelled by Tephra, and Events about them. They
//! keep the [`Index`] current and ask the controller to look at each workload a change touched,
//! at most once per [`PUBLISH_EVERY`] per workload ([`Pacer`]).

use super::Shared;
use super::controller::pacer::Pacer;
use super::controller::{Requests, now};
use super::index::{Index, ObjectKind};
use super::objects::PodGroup;
use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tephra_core::domain::labels::MANAGED_SELECTOR;
use tephra_core::domain::volcano::Job;
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

/// One thing that happened, from any watch.
enum Change {
    Job(watcher::Event<Job>),
    PodGroup(watcher::Event<PodGroup>),
    // Pods and Events are boxed: they are large, and batches hold hundreds of changes.
    Pod(Box<watcher::Event<Pod>>),
    Event(Box<watcher::Event<Event>>),
    /// A watch failed; it retries with backoff.
    WatchFailed(&'static str, String),
}

type ChangeStream = Pin<Box<dyn Stream<Item = Change> + Send>>;

fn watch_stream<K, F>(
    api: Api<K>,
    config: watcher::Config,
    what: &'static str,
    wrap: F,
) -> ChangeStream
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
    F: Fn(watcher::Event<K>) -> Change + Send + 'static,
{
    Box::pin(
        watcher(api, config)
            .default_backoff()
            .map(move |event| match event {
                Ok(event) => wrap(event),
                Err(error) => Change::WatchFailed(what, error.to_string()),
            }),
    )
}

/// Keeps the index current; see the module docs.
pub struct Watches {
    pub(super) shared: Shared,
    /// Set once the Job and Pod watches have listed everything once.
    pub(super) synced: watch::Sender<bool>,
    pub(super) client: Client,
    /// The controller's requests.
    pub(super) requests: Requests,
    /// The pace per workload, which the controller's status writes set.
    pub(super) pacer: Arc<Mutex<Pacer>>,
}

/// At most this many changes are applied to the index before the touched workloads are derived.
const BATCH: usize = 1024;

/// A workload's status is derived (and written and broadcast) at most this often. A thousand pods starting
/// make thousands of watch events; each one would otherwise rewrite the row (with its pod list)
/// and go to every open event stream. The first change after a quiet spell goes out at once
/// ([`Pacer`]: the pace is per workload).
pub const PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// What the watch loop remembers between batches.
#[derive(Default)]
struct Seen {
    /// The kinds whose first full list has been applied.
    listed: BTreeSet<&'static str>,
    /// The last watch failure logged, so a failing watch logs once per distinct error.
    last_failure: Option<String>,
}

impl Watches {
    /// Runs until the process ends: watch changes are applied in batches (everything ready at
    /// once); the controller is asked to look at each touched workload at most once per
    /// [`PUBLISH_EVERY`].
    pub async fn run(&self) {
        let client = self.client.clone();
        let selector = watcher::Config::default().labels(MANAGED_SELECTOR);
        let streams: Vec<ChangeStream> = vec![
            watch_stream(
                Api::<Job>::all(client.clone()),
                selector.clone(),
                "Volcano Jobs",
                Change::Job,
            ),
            watch_stream(
                Api::<PodGroup>::all(client.clone()),
                selector.clone(),
                "PodGroups",
                Change::PodGroup,
            ),
            watch_stream(Api::<Pod>::all(client.clone()), selector, "pods", |e| {
                Change::Pod(Box::new(e))
            }),
            watch_stream(
                Api::<Event>::all(client),
                watcher::Config::default(),
                "events",
                |e| Change::Event(Box::new(e)),
            ),
        ];
        let mut changes = futures::stream::select_all(streams).ready_chunks(BATCH);
        let mut seen = Seen::default();
        loop {
            let next_due = self.pacer().next_due(Instant::now());
            let turn_comes = async {
                match next_due {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                batch = changes.next() => {
                    let Some(batch) = batch else { break };
                    let touched = self.apply_batch(batch, &mut seen);
                    self.pacer().touch(touched);
                }
                () = turn_comes => {}
            }
            let due = self.pacer().due(Instant::now());
            for id in due {
                let _ = self.requests.send(now(id));
            }
        }
    }

    fn pacer(&self) -> std::sync::MutexGuard<'_, Pacer> {
        self.pacer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies a batch of changes to the index; returns the workloads they touched.
    fn apply_batch(&self, batch: Vec<Change>, seen: &mut Seen) -> BTreeSet<Uuid> {
        let mut touched: BTreeSet<Uuid> = BTreeSet::new();
        {
            let mut index = self.shared.index_mut();
            for change in batch {
                match change {
                    Change::Job(e) => {
                        let done = apply(
                            &mut index,
                            ObjectKind::Job,
                            e,
                            Index::apply_job,
                            Index::delete_job,
                            &mut touched,
                        );
                        seen.listed.extend(done);
                    }
                    Change::PodGroup(e) => {
                        apply(
                            &mut index,
                            ObjectKind::PodGroup,
                            e,
                            Index::apply_pod_group,
                            Index::delete_pod_group,
                            &mut touched,
                        );
                    }
                    Change::Pod(e) => {
                        let done = apply(
                            &mut index,
                            ObjectKind::Pod,
                            *e,
                            Index::apply_pod,
                            Index::delete_pod,
                            &mut touched,
                        );
                        seen.listed.extend(done);
                    }
                    Change::Event(e) => match *e {
                        watcher::Event::Apply(ev) | watcher::Event::InitApply(ev) => {
                            touched.extend(index.apply_event(&ev));
                        }
                        watcher::Event::Delete(_)
                        | watcher::Event::Init
                        | watcher::Event::InitDone => {}
                    },
                    Change::WatchFailed(what, error) => {
                        // A watch fails every few seconds while the API server is away; say
                        // so once per distinct error.
                        if seen.last_failure.as_deref() != Some(error.as_str()) {
                            tracing::warn!(watch = what, %error, "watch failed; retrying");
                            seen.last_failure = Some(error);
                        }
                    }
                }
            }
        }
        if seen.listed.contains("Job") && seen.listed.contains("Pod") && !*self.synced.borrow() {
            tracing::info!("watches listed the cluster");
            self.synced.send_replace(true);
        }
        touched
    }
}

/// Applies one watch event of `kind` to the index. Returns the kind's name once a full list of it
/// has been applied.
fn apply<K>(
    index: &mut Index,
    kind: ObjectKind,
    event: watcher::Event<K>,
    on_apply: fn(&mut Index, &K) -> Option<Uuid>,
    on_delete: fn(&mut Index, &K) -> Option<Uuid>,
    touched: &mut BTreeSet<Uuid>,
) -> Option<&'static str> {
    match event {
        watcher::Event::Apply(obj) | watcher::Event::InitApply(obj) => {
            touched.extend(on_apply(index, &obj));
            None
        }
        watcher::Event::Delete(obj) => {
            touched.extend(on_delete(index, &obj));
            None
        }
        watcher::Event::Init => {
            index.relist_started(kind);
            None
        }
        watcher::Event::InitDone => {
            touched.extend(index.relisted(kind));
            Some(match kind {
                ObjectKind::Job => "Job",
                ObjectKind::PodGroup => "PodGroup",
                ObjectKind::Pod => "Pod",
            })
        }
    }
}
