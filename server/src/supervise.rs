//! Supervision of the background tasks (watches, controller, identity provider discovery). A task that panics or ends is
//! started again after a backoff, its restarts are counted, and while it is down `/readyz` names
//! it: HTTP answering while nothing reconciles must not look healthy.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// First and longest wait before a failed task is started again.
const FIRST_WAIT: Duration = Duration::from_millis(500);
const LONGEST_WAIT: Duration = Duration::from_secs(30);
/// A task that ran this long before failing starts again from the first wait.
const STABLE: Duration = Duration::from_secs(60);

/// One supervised task as `/readyz` reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    pub up: bool,
    pub restarts: u32,
    /// Why it stopped last (a panic's message), if it ever did.
    pub last_failure: Option<String>,
}

/// The supervised tasks by name.
#[derive(Debug, Clone, Default)]
pub struct Health(Arc<Mutex<BTreeMap<&'static str, Component>>>);

impl Health {
    fn update(&self, name: &'static str, change: impl FnOnce(&mut Component)) {
        let mut components = self.0.lock().unwrap_or_else(|e| e.into_inner());
        change(components.entry(name).or_default());
    }

    pub fn snapshot(&self) -> BTreeMap<&'static str, Component> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The tasks that are down, in words, e.g. "controller is down (restarted 2 times): boom".
    pub fn down(&self) -> Vec<String> {
        self.snapshot()
            .into_iter()
            .filter(|(_, c)| !c.up)
            .map(|(name, c)| {
                format!(
                    "{name} is down (restarted {} times): {}",
                    c.restarts,
                    c.last_failure.as_deref().unwrap_or("not started yet")
                )
            })
            .collect()
    }
}

/// Runs `task()` on its own tokio task, starting it again whenever it panics or returns.
pub fn supervise<F, Fut>(name: &'static str, health: Health, task: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    health.update(name, |c| c.up = false);
    tokio::spawn(async move {
        let mut wait = FIRST_WAIT;
        loop {
            health.update(name, |c| c.up = true);
            let started = Instant::now();
            let failure = match tokio::spawn(task()).await {
                Ok(()) => "it ended".to_owned(),
                Err(e) if e.is_panic() => panic_message(e.into_panic()),
                Err(e) => e.to_string(),
            };
            health.update(name, |c| {
                c.up = false;
                c.restarts += 1;
                c.last_failure = Some(failure.clone());
            });
            if started.elapsed() > STABLE {
                wait = FIRST_WAIT;
            }
            tracing::error!(task = name, %failure, wait_ms = wait.as_millis() as u64, "background task stopped; starting it again");
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    });
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(text) => format!("panicked: {text}"),
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(text) => format!("panicked: {text}"),
            Err(_) => "panicked".to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test(start_paused = true)]
    async fn a_task_that_panics_is_started_again_and_counted() {
        let health = Health::default();
        let runs = Arc::new(AtomicU32::new(0));
        let counted = runs.clone();
        supervise("reconciler", health.clone(), move || {
            let run = counted.fetch_add(1, Ordering::SeqCst);
            async move {
                if run < 2 {
                    panic!("boom {run}");
                }
                std::future::pending::<()>().await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        let down = health.down();
        assert_eq!(down.len(), 1, "{down:?}");
        assert!(down[0].contains("reconciler is down (restarted 1 times): panicked: boom 0"));
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        let reconciler = &health.snapshot()["reconciler"];
        assert!(reconciler.up);
        assert_eq!(reconciler.restarts, 2);
        assert!(health.down().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_that_ends_is_started_again() {
        let health = Health::default();
        let runs = Arc::new(AtomicU32::new(0));
        let counted = runs.clone();
        supervise("tracker", health.clone(), move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async {}
        });
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(runs.load(Ordering::SeqCst) >= 2);
        assert!(health.snapshot()["tracker"].last_failure.as_deref() == Some("it ended"));
    }
}
