//! Which replica reconciles: the holder of a Kubernetes Lease (coordination.k8s.io/v1), as
//! client-go's leader election does it. The holder renews the Lease every third of its duration;
//! another replica takes it over once it has seen the Lease unchanged for a whole duration by its
//! own clock (so clocks that disagree between machines do not matter), with the version it read
//! as a precondition, so two replicas taking over at once cannot both win.
//!
//! A follower looks every second (`look_every`), not every third of the duration: it then sees
//! the dead holder's last renewal within a second of it and takes over within a second of the
//! Lease having stood still a whole duration, so at most the duration and two seconds after the
//! holder died. A look is one GET; only the holder writes, and only every third.
//!
//! Only a shared database has several replicas: with SQLite there is one process and no Lease.

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// What a replica does with the Lease as it finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nobody has made it yet.
    Create,
    /// It is ours: renew it.
    Renew,
    /// Its holder stopped renewing (or let it go): take it.
    TakeOver,
    /// Another replica holds it.
    Follow,
}

/// The step for `lease` (None: absent), held by `holder`, unchanged for `unchanged` as this
/// replica has watched it. Pure, so every case is tested without a cluster.
pub fn decide(
    lease: Option<&LeaseSpec>,
    me: &str,
    unchanged: Duration,
    duration: Duration,
) -> Step {
    let Some(spec) = lease else {
        return Step::Create;
    };
    match spec.holder_identity.as_deref() {
        Some(holder) if holder == me => Step::Renew,
        None | Some("") => Step::TakeOver,
        Some(_) if unchanged >= duration => Step::TakeOver,
        Some(_) => Step::Follow,
    }
}

/// How often a replica looks at the Lease: every second, or every third of a shorter duration.
pub fn look_every(duration: Duration) -> Duration {
    (duration / 3).min(Duration::from_secs(1))
}

/// Whether a look reads the Lease: always for a follower; for the holder, once a third of the
/// duration has passed since its last renewal (`renewed_ago`), so it writes no more than before.
pub fn due(renewed_ago: Option<Duration>, duration: Duration) -> bool {
    renewed_ago.is_none_or(|ago| ago >= duration / 3)
}

/// Takes part in the election for `name` in `namespace` until the process ends, telling
/// `leading` whether this replica holds the Lease now.
pub struct Election {
    pub api: Api<Lease>,
    pub name: String,
    pub me: String,
    pub duration: Duration,
}

impl Election {
    pub fn new(client: Client, namespace: &str, name: &str, me: &str, duration: Duration) -> Self {
        Election {
            api: Api::namespaced(client, namespace),
            name: name.to_owned(),
            me: me.to_owned(),
            duration,
        }
    }

    pub async fn run(&self, leading: &watch::Sender<bool>) {
        // The version last read, and since when (by this replica's clock) it has not changed.
        let mut seen: Option<(String, Instant)> = None;
        // When this replica last renewed, counted from before it asked (so before any other
        // replica can have seen the renewal): it stops leading when renewing has failed for the
        // whole duration, before another replica may take over.
        let mut renewed: Option<Instant> = None;
        let mut tick = tokio::time::interval(look_every(self.duration));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if !due(renewed.map(|at| at.elapsed()), self.duration) {
                continue;
            }
            let asked = Instant::now();
            match self.attempt(&mut seen).await {
                Ok(true) => renewed = Some(asked),
                Ok(false) => renewed = None,
                Err(error) => {
                    tracing::warn!(%error, lease = %self.name, "cannot read or renew the leader Lease");
                }
            }
            let leads = renewed.is_some_and(|at| at.elapsed() < self.duration);
            if leading.send_replace(leads) != leads {
                if leads {
                    tracing::info!(lease = %self.name, identity = %self.me, "leading: this replica reconciles");
                } else {
                    tracing::warn!(lease = %self.name, identity = %self.me, "not leading: another replica reconciles");
                }
            }
        }
    }

    /// One look at the Lease and the step it calls for; whether this replica holds it after.
    async fn attempt(&self, seen: &mut Option<(String, Instant)>) -> Result<bool, kube::Error> {
        let current = self.api.get_opt(&self.name).await?;
        let version = current
            .as_ref()
            .and_then(|l| l.metadata.resource_version.clone())
            .unwrap_or_default();
        let unchanged = match seen {
            Some((v, since)) if *v == version => since.elapsed(),
            _ => {
                *seen = Some((version, Instant::now()));
                Duration::ZERO
            }
        };
        let spec = current.as_ref().and_then(|l| l.spec.as_ref());
        let step = decide(spec, &self.me, unchanged, self.duration);
        let now = MicroTime(Timestamp::now());
        let held = |transitions: i32, acquired: Option<MicroTime>| LeaseSpec {
            holder_identity: Some(self.me.clone()),
            lease_duration_seconds: Some(i32::try_from(self.duration.as_secs()).unwrap_or(15)),
            acquire_time: acquired.or_else(|| Some(now.clone())),
            renew_time: Some(now.clone()),
            lease_transitions: Some(transitions),
            ..LeaseSpec::default()
        };
        let result = match (step, current) {
            (Step::Follow, _) => return Ok(false),
            (Step::Create, _) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.name.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(held(0, None)),
                };
                self.api.create(&PostParams::default(), &lease).await
            }
            (Step::Renew | Step::TakeOver, Some(mut lease)) => {
                let old = lease.spec.take().unwrap_or_default();
                let transitions = old.lease_transitions.unwrap_or(0);
                lease.spec = Some(if step == Step::Renew {
                    held(transitions, old.acquire_time)
                } else {
                    held(transitions.saturating_add(1), None)
                });
                // The version read is the precondition: a replace after someone else's fails.
                self.api
                    .replace(&self.name, &PostParams::default(), &lease)
                    .await
            }
            (Step::Renew | Step::TakeOver, None) => return Ok(false),
        };
        match result {
            Ok(_) => {
                if step == Step::TakeOver {
                    tracing::info!(lease = %self.name, identity = %self.me, "took over the leader Lease");
                }
                Ok(true)
            }
            // Another replica got there first (created it, or changed it since it was read).
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Lets the Lease go on shutdown, so another replica takes over at once rather than after
    /// a whole duration.
    pub async fn release(&self) {
        let Ok(Some(mut lease)) = self.api.get_opt(&self.name).await else {
            return;
        };
        let Some(spec) = lease.spec.as_mut() else {
            return;
        };
        if spec.holder_identity.as_deref() != Some(self.me.as_str()) {
            return;
        }
        spec.holder_identity = None;
        spec.renew_time = None;
        let _ = self
            .api
            .replace(&self.name, &PostParams::default(), &lease)
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DURATION: Duration = Duration::from_secs(15);

    fn held_by(holder: Option<&str>) -> LeaseSpec {
        LeaseSpec {
            holder_identity: holder.map(str::to_owned),
            ..LeaseSpec::default()
        }
    }

    #[test]
    fn a_missing_lease_is_created_and_ours_is_renewed() {
        assert_eq!(decide(None, "a", Duration::ZERO, DURATION), Step::Create);
        let ours = held_by(Some("a"));
        assert_eq!(
            decide(Some(&ours), "a", DURATION * 2, DURATION),
            Step::Renew
        );
    }

    #[test]
    fn another_holder_is_followed_until_its_lease_has_stood_still_a_whole_duration() {
        let theirs = held_by(Some("b"));
        assert_eq!(
            decide(Some(&theirs), "a", Duration::ZERO, DURATION),
            Step::Follow
        );
        let almost = DURATION - Duration::from_millis(1);
        assert_eq!(decide(Some(&theirs), "a", almost, DURATION), Step::Follow);
        assert_eq!(
            decide(Some(&theirs), "a", DURATION, DURATION),
            Step::TakeOver
        );
    }

    #[test]
    fn a_follower_looks_every_second_and_the_holder_writes_every_third() {
        assert_eq!(look_every(DURATION), Duration::from_secs(1));
        assert_eq!(look_every(Duration::from_secs(3)), Duration::from_secs(1));
        assert_eq!(
            look_every(Duration::from_millis(1500)),
            Duration::from_millis(500)
        );
        assert!(due(None, DURATION), "a follower reads at every look");
        assert!(!due(Some(Duration::from_secs(4)), DURATION));
        assert!(due(Some(Duration::from_secs(5)), DURATION));
    }

    #[test]
    fn a_released_lease_is_taken_at_once() {
        for released in [held_by(None), held_by(Some(""))] {
            assert_eq!(
                decide(Some(&released), "a", Duration::ZERO, DURATION),
                Step::TakeOver
            );
        }
    }
}
