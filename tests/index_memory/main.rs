//! The watch index's heap per running training is held to a budget, as page weight is: the
//! bytes are deterministic for a build (counted by this binary's global allocator), so a change
//! that makes every running training cost more fails here instead of in a benchmark nobody
//! reads. `scripts/bench index` prints the figures per kind of object (issue 36).

use tephra_tests::counting::{Counting, live};
use tephra_tests::index_load::{STAGES, Trainings};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes per running one-pod training: 2,437 measured at stop 56 (4,173 at stop 55, 7,804
/// before it), plus room.
const BUDGET: f64 = 2_600.0;

#[test]
fn the_index_holds_a_running_training_within_its_budget() {
    // One test in this binary, so nothing else allocates while it counts.
    let trainings = Trainings::new(10_000);
    let start = live().0;
    let mut index = trainings.index();
    for stage in 0..STAGES.len() {
        trainings.apply(&mut index, stage);
    }
    let per = (live().0 - start) as f64 / trainings.count() as f64;
    assert_eq!(
        index.jobs().count(),
        trainings.count(),
        "every Job verified"
    );
    let (id, _) = index.jobs().next().expect("a Job");
    let entry = index.observed(id).expect("its entry");
    assert_eq!(
        (entry.observed.pods.len(), entry.events.len()),
        (1, 3),
        "its pod and events are held"
    );
    assert!(
        per <= BUDGET,
        "the watch index holds {per:.0} bytes per running training, over its budget of \
         {BUDGET:.0}: run `scripts/bench index` to see which kind of object grew"
    );
    eprintln!("the watch index holds {per:.0} bytes per running training (budget {BUDGET:.0})");
}
