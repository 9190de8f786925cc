//! What would make a waiting gang start sooner: fewer workers or GPUs that fit the room there is
//! now, another node pool with free GPUs, or a larger project limit.

use super::{Asked, EPSILON, Elsewhere, Level, LevelKind, gpus_word};

/// The GPUs free under `level` now, once the gangs ahead that fit have taken theirs.
fn room(level: &Level) -> f64 {
    let held: f64 = level.holders.iter().map(|h| h.gpus).sum();
    let mut free = level.capacity + level.reclaimable - held;
    for gang in &level.ahead {
        if gang.gpus <= free + EPSILON {
            free -= gang.gpus;
        }
    }
    free.max(0.0)
}

/// Suggestions, the most direct first.
pub(super) fn sooner(asked: &Asked, levels: &[Level], elsewhere: &[Elsewhere]) -> Vec<String> {
    let room_now = levels.iter().map(room).fold(f64::INFINITY, f64::min);
    if !room_now.is_finite() || asked.gpus <= room_now + EPSILON {
        return Vec::new();
    }
    let mut lines = Vec::new();
    if asked.pods > 1 && asked.per_pod > EPSILON {
        let fit = (room_now / asked.per_pod + EPSILON).floor() as u32;
        // Pods, not workers: a distributed training's master is one of them.
        if fit >= 1 {
            let noun = if fit == 1 { "pod" } else { "pods" };
            lines.push(format!(
                "fits now with {fit} {noun} instead of {} ({} each): fewer workers",
                asked.pods,
                gpus_word(asked.per_pod)
            ));
        }
    } else if asked.pods == 1 && asked.gpus.fract() == 0.0 && room_now >= 1.0 {
        lines.push(format!(
            "fits now with {} instead of {}",
            gpus_word(room_now.floor()),
            gpus_word(asked.gpus)
        ));
    }
    let mut project_holds = false;
    for level in levels {
        let LevelKind::ProjectLimit(project) = &level.kind else {
            continue;
        };
        let free = room(level);
        if asked.gpus > free + EPSILON {
            project_holds = true;
            let held: f64 = level.holders.iter().map(|h| h.gpus).sum();
            lines.push(format!(
                "project {project:?}'s limit holds it: its workloads use {} of {} and it lacks \
                 {}; a larger limit, or stopping one of them, lets it start",
                held,
                gpus_word(level.capacity),
                gpus_word(asked.gpus - free)
            ));
        }
    }
    if !project_holds {
        for pool in elsewhere.iter().filter(|p| p.free + EPSILON >= asked.gpus) {
            lines.push(format!(
                "node pool {} has {} free: it fits there now (edit its node pools)",
                pool.pool,
                gpus_word(pool.free)
            ));
        }
    }
    lines
}
