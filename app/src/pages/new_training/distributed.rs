//! Distributed: a master and workers of one framework, started together.

use super::{GRID_CLASS, Section};
use crate::components::form::{CheckboxField, SelectField, TextField, Toggle, use_form};
use crate::draft::Kind;
use crate::draft::fields::{master, spec};
use crate::draft::posted::DISTRIBUTED;
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::distributed::DistributedSpec;
use tephra_core::model::training::request::{Compute, TrainingSpec};

#[component]
pub fn Distributed() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let on = Signal::derive(move || draft.with(|d| d.is_distributed()));
    let at = |key: String| spec().key(key);
    let same = at(key!(DistributedSpec.master_spec_same_as_worker));
    let own = {
        let same = same.clone();
        Signal::derive(move || draft.with(|d| !d.is_true(&same)))
    };
    let master_compute = |key: String| master().key(key!(TrainingSpec.compute)).key(key);
    view! {
        <Section title="Distributed">
            <div class=GRID_CLASS>
                <Toggle label="Distributed training (a master and workers, started together)"
                    id="f-distributed".to_owned() name=DISTRIBUTED checked=on.get_untracked() />
            </div>
            <Show when=move || on.get()>
                <div class=GRID_CLASS>
                    <SelectField label="Framework" path=at(key!(DistributedSpec.distributed_framework))
                        options=&[("PyTorch", "PyTorch"), ("MPI", "MPI"), ("TF", "TensorFlow"), ("XGBoost", "XGBoost")] />
                    <TextField label="Workers" path=at(key!(DistributedSpec.num_workers)) kind=Kind::Number
                        hint="Besides the master; all pods start together or not at all." />
                    <CheckboxField label="The master is the same as a worker" path=same.clone() kind=Kind::Bool
                        hint="Otherwise it asks for its own GPUs, CPU and memory." />
                </div>
                <Show when=move || own.get()>
                    <div class=GRID_CLASS>
                        <TextField label="Master GPUs" path=master_compute(key!(Compute.gpu_devices_request)) kind=Kind::Number />
                        <TextField label="Master CPU request (cores)" path=master_compute(key!(Compute.cpu_core_request)) kind=Kind::Number decimal=true />
                        <TextField label="Master memory request" path=master_compute(key!(Compute.cpu_memory_request)) placeholder="8Gi" />
                    </div>
                </Show>
            </Show>
        </Section>
    }
}
