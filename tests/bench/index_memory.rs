//! What the watch index holds per running training (issue 36's memory target: at most 5 KiB per
//! running training beyond the idle process). Feeds `server::cluster::index::Index` the objects
//! one running single-pod training has on the testbed (`tephra_tests::index_load`) for
//! `BENCH_TRAININGS` trainings (default 10,000), and prints the heap the index holds after each
//! kind: live bytes and live allocations, counted by this binary's global allocator. No cluster,
//! no timing: the figures are deterministic for a build. `scripts/bench index` runs it; the
//! `index_memory` test holds the total to a budget.

use tephra_tests::bench::env_usize;
use tephra_tests::counting::{Counting, live};
use tephra_tests::index_load::{STAGES, Trainings};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let trainings = Trainings::new(env_usize("BENCH_TRAININGS", 10_000));
    let n = trainings.count().max(1) as f64;
    println!(
        "# What the watch index holds per running training ({} trainings)\n",
        trainings.count()
    );
    println!("Heap held by the index after each kind is applied, per training, cumulative:\n");
    println!("| after | live bytes | live allocations |\n|---|---|---|");
    let start = live();
    let mut index = trainings.index();
    for (stage, name) in STAGES.iter().enumerate() {
        trainings.apply(&mut index, stage);
        let (bytes, blocks) = live();
        println!(
            "| {name} | {:.0} B | {:.1} |",
            (bytes - start.0) as f64 / n,
            (blocks - start.1) as f64 / n
        );
    }
    println!(
        "\ninline sizes: an index entry {} B, a pod {} B, an event {} B, a Job {} B, a PodGroup {} B, \
         the observed objects {} B",
        std::mem::size_of::<server::cluster::index::Entry>(),
        std::mem::size_of::<tephra_core::model::workload::PodInfo>(),
        std::mem::size_of::<tephra_core::model::workload::EventInfo>(),
        std::mem::size_of::<tephra_core::domain::status::JobObservation>(),
        std::mem::size_of::<tephra_core::domain::status::PodGroupObservation>(),
        std::mem::size_of::<tephra_core::domain::status::Observed>(),
    );
    let total = live().0 - start.0;
    println!(
        "\nindex total: {:.1} MiB for {} trainings, {:.2} KiB each",
        total as f64 / 1024.0 / 1024.0,
        trainings.count(),
        total as f64 / 1024.0 / n
    );
    drop(index);
}
