//! Compute, per pod: GPUs in one of four styles, CPU, memory, shared memory and extended
//! resources.

use super::{GRID_CLASS, Section, blank_row};
use crate::components::form::{CheckboxField, GroupMessage, RowList, TextField, use_form};
use crate::draft::fields::compute;
use crate::draft::posted::GPU_MODE;
use crate::draft::{GpuMode, Kind, Path};
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::request::{Compute, ExtendedResource};

fn label(mode: GpuMode) -> &'static str {
    match mode {
        GpuMode::None => "No GPU",
        GpuMode::Devices => "Whole GPUs",
        GpuMode::Portion => "A portion of one GPU",
        GpuMode::Memory => "GPU memory",
        GpuMode::Mig => "A MIG profile",
    }
}

#[component]
pub fn ComputeSection() -> impl IntoView {
    let at = |key: String| compute().key(key);
    view! {
        <Section title="Compute (per pod)">
            <Gpus />
            <div class=GRID_CLASS>
                <TextField label="CPU request (cores)" path=at(key!(Compute.cpu_core_request)) kind=Kind::Number decimal=true />
                <TextField label="CPU limit (cores)" path=at(key!(Compute.cpu_core_limit)) kind=Kind::Number decimal=true />
                <TextField label="Memory request" path=at(key!(Compute.cpu_memory_request)) placeholder="16Gi" />
                <TextField label="Memory limit" path=at(key!(Compute.cpu_memory_limit)) placeholder="32Gi" />
                <CheckboxField label="Large shared memory (/dev/shm)" path=at(key!(Compute.large_shm_request))
                    hint="For data loaders that share tensors between processes." />
            </div>
            <RowList title="Extended resources" path=at(key!(Compute.extended_resources))
                add="Add to extended resources" what="entry" template=resource_row row=resource_fields />
        </Section>
    }
}

/// The GPU style as radio buttons, and the fields of the chosen style.
#[component]
fn Gpus() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let mode = Signal::derive(move || draft.with(|d| d.gpu_mode()));
    let at = |key: String| compute().key(key);
    let shows = move |m: GpuMode| move || mode.get() == m;
    view! {
        <fieldset class="mt-2">
            <legend class="text-sm font-semibold">"GPUs"</legend>
            <div class="mt-1 flex flex-wrap gap-4" role="radiogroup">
                {GpuMode::ALL
                    .into_iter()
                    .map(|m| {
                        let id = format!("gpu-mode-{}", m.as_str());
                        view! {
                            <span class="flex items-center gap-2">
                                <input
                                    type="radio"
                                    id=id.clone()
                                    name=format!("draft[{GPU_MODE}]")
                                    value=m.as_str()
                                    checked=mode.get_untracked() == m
                                />
                                <label for=id class="text-sm">{label(m)}</label>
                            </span>
                        }
                    })
                    .collect_view()}
            </div>
            <div class=GRID_CLASS>
                <Show when=shows(GpuMode::Devices)>
                    <TextField label="GPUs" path=at(key!(Compute.gpu_devices_request)) kind=Kind::Number />
                </Show>
                <Show when=shows(GpuMode::Portion)>
                    <TextField label="GPU portion" path=at(key!(Compute.gpu_portion_request)) kind=Kind::Number decimal=true
                        hint="A fraction of one GPU, between 0 and 1, e.g. 0.5." />
                    <TextField label="GPU portion limit" path=at(key!(Compute.gpu_portion_limit)) kind=Kind::Number decimal=true
                        hint="The most it may use when the GPU is idle; at least the portion." />
                </Show>
                <Show when=shows(GpuMode::Memory)>
                    <TextField label="GPU memory" path=at(key!(Compute.gpu_memory_request)) placeholder="20Gi" />
                    <TextField label="GPU memory limit" path=at(key!(Compute.gpu_memory_limit)) placeholder="40Gi" />
                </Show>
                <Show when=shows(GpuMode::Mig)>
                    <TextField label="MIG profile" path=at(key!(Compute.mig_profile)) placeholder="1g.10gb" />
                </Show>
            </div>
            <GroupMessage path=compute().to_string() />
        </fieldset>
    }
}

fn resource_row() -> serde_json::Value {
    blank_row(&[key!(ExtendedResource.resource)])
}

fn resource_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Resource" path=row.key(key!(ExtendedResource.resource)) kind=Kind::Required />
        <TextField label="Quantity" path=row.key(key!(ExtendedResource.quantity)) kind=Kind::Number />
    }
    .into_any()
}
