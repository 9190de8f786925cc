//! The new-training form: every part of the request model in sections, checked as you type by the
//! same validator the API runs, with the exact Volcano Job YAML one click away. "Clone" opens it
//! prefilled (`?from=<id>`); a submit without JavaScript comes back here with what was typed and
//! the server's answer (`?draft=...&error=...`).

use crate::api::{clone_workload, list_projects, preview_training, submit_training};
use crate::components::form::{
    CheckboxField, FormState, GroupMessage, SelectField, TextField, field_id, use_form,
};
use crate::components::loaded::loaded;
use crate::components::toast::use_toasts;
use crate::error::AppError;
use crate::model::project::ProjectSummary;
use crate::model::training::NAME_MAX;
use crate::model::training::draft::{
    EnvRow, GpuMode, KeyValueRow, TolerationRow, TrainingDraft, VolumeKind, VolumeRow,
};
use crate::pages::trainings::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::{bind, bind_row};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use std::time::Duration;

const FIELDSET_CLASS: &str =
    "rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";
const LEGEND_CLASS: &str = "px-1 text-lg font-semibold";
const GRID_CLASS: &str = "mt-2 grid gap-4 md:grid-cols-2";
const ROW_CLASS: &str = "grid items-start gap-3 rounded-md border border-slate-200 p-3 md:grid-cols-3 dark:border-slate-700";
const LINK_BUTTON_CLASS: &str = "self-start rounded-md px-2 py-1 text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300";

/// Where the form starts from.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Start {
    draft: TrainingDraft,
    errors: Vec<crate::model::validation::FieldError>,
    /// An error from a submit without JavaScript that no field can show.
    problem: Option<String>,
    cloned_from: Option<String>,
}

async fn start(
    from: Option<String>,
    posted: Option<String>,
    error: Option<String>,
    project: Option<String>,
) -> Result<(Start, Vec<ProjectSummary>), AppError> {
    let projects = list_projects().await?;
    let default_project = project
        .or_else(|| {
            projects
                .iter()
                .find(|p| p.name == "default")
                .map(|p| p.name.clone())
        })
        .or_else(|| projects.first().map(|p| p.name.clone()))
        .unwrap_or_default();
    if let Some(posted) = posted {
        let draft =
            serde_json::from_str(&posted).unwrap_or_else(|_| TrainingDraft::new(&default_project));
        let error: Option<AppError> = error.and_then(|e| serde_json::from_str(&e).ok());
        let errors = error
            .as_ref()
            .map(AppError::field_errors)
            .unwrap_or_default();
        let problem = error
            .filter(|e| e.field_errors().is_empty())
            .map(|e| e.to_string());
        return Ok((
            Start {
                draft,
                errors,
                problem,
                cloned_from: None,
            },
            projects,
        ));
    }
    if let Some(id) = from {
        let mut draft = clone_workload(id).await?;
        let original = draft.name.clone();
        let copy = format!("{original}-copy");
        if copy.len() <= NAME_MAX {
            draft.name = copy;
        }
        return Ok((
            Start {
                draft,
                errors: Vec::new(),
                problem: None,
                cloned_from: Some(original),
            },
            projects,
        ));
    }
    Ok((
        Start {
            draft: TrainingDraft::new(&default_project),
            errors: Vec::new(),
            problem: None,
            cloned_from: None,
        },
        projects,
    ))
}

#[component]
pub fn NewTrainingPage() -> impl IntoView {
    let params = use_query_map();
    let start = Resource::new(
        move || {
            params.with(|p| {
                (
                    p.get("from"),
                    p.get("draft"),
                    p.get("error"),
                    p.get("project"),
                )
            })
        },
        |(from, posted, error, project)| start(from, posted, error, project),
    );
    view! {
        <Title text="New training" />
        <h1 class="mb-2 text-2xl font-semibold tracking-tight">"New training"</h1>
        <p class="mb-6 text-sm text-slate-600 dark:text-slate-300">
            "Fields marked * are required. Each field is checked as you type, with the same rules the API applies."
        </p>
        {loaded(start, |(start, projects)| view! { <TrainingForm start projects /> })}
    }
}

/// The whole form is one island: every section reads and writes the same draft, and the
/// validator runs in the browser as you type.
#[island(lazy)]
fn TrainingForm(start: Start, projects: Vec<ProjectSummary>) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let bounced = !start.errors.is_empty() || start.problem.is_some();
    let form = FormState::new(start.draft, start.errors, bounced);
    provide_context(form);
    let toasts = use_toasts();
    let summary_ref = NodeRef::<leptos::html::Div>::new();

    let submit = Action::new(|draft: &TrainingDraft| submit_training(draft.clone()));
    Effect::new(move |_| match submit.value().get() {
        Some(Ok(workload)) => {
            toasts.success_on_next_page(&format!("submitted {}", workload.name));
            crate::components::navigate::to(&format!("/trainings/{}", workload.workload_id));
        }
        Some(Err(error)) => {
            form.server_errors.set(error.field_errors());
            toasts.error(format!("the training was not submitted: {error}"));
        }
        None => {}
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        form.submitted.set(true);
        if form.errors.with_untracked(|e| !e.is_empty()) {
            if let Some(summary) = summary_ref.get_untracked() {
                let _ = summary.focus();
            }
            return;
        }
        submit.dispatch(form.draft.get_untracked());
    };
    let submitting = submit.pending();

    view! {
        {start.cloned_from.map(|name| view! {
            <p class="mb-4 rounded-md border border-sky-300 bg-sky-50 p-3 text-sm dark:border-sky-700 dark:bg-sky-950" data-testid="cloned-from">
                "A copy of " <span class="font-medium">{name}</span> ". Change what you need and submit."
                {move || {
                    let keys = form.draft.with(TrainingDraft::carried_keys);
                    (!keys.is_empty()).then(|| format!(" It also keeps settings this form does not show: {}.", keys.join(", ")))
                }}
            </p>
        })}
        {start.problem.map(|problem| view! {
            <p role="alert" class="mb-4 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
                {problem}
            </p>
        })}
        <div class="grid gap-6 xl:grid-cols-[minmax(0,1fr)_28rem]">
            <form
                method="post"
                action="/api/fn/submit_training_form"
                novalidate=true
                class="flex flex-col gap-6"
                on:submit=on_submit
                data-testid="training-form"
            >
                <ErrorSummary summary_ref />
                <General projects />
                <Compute />
                <Storage />
                <Security />
                <Scheduling />
                <Distributed />
                <Lifecycle />
                <input type="hidden" name="draft[carried]" prop:value=move || form.draft.with(|d| d.carried.clone()) />
                <div class="flex items-center gap-3">
                    <button type="submit" class=PRIMARY_BUTTON_CLASS disabled=move || submitting.get() data-testid="submit">
                        {move || if submitting.get() { "Submitting…" } else { "Submit training" }}
                    </button>
                    <a href="/trainings" class=SECONDARY_BUTTON_CLASS>"Cancel"</a>
                </div>
            </form>
            <Preview />
        </div>
    }
    .into_any()
}

/// The list of every problem, shown after a submit attempt, with links to the fields.
#[component]
fn ErrorSummary(summary_ref: NodeRef<leptos::html::Div>) -> impl IntoView {
    let form = use_form();
    let errors = move || {
        if form.submitted.get() {
            form.all_errors()
        } else {
            form.server_errors.get()
        }
    };
    view! {
        <div
            node_ref=summary_ref
            tabindex="-1"
            role="alert"
            class=move || if errors().is_empty() {
                "hidden"
            } else {
                "rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-900 focus-visible:outline-2 focus-visible:outline-red-500 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
            }
            data-testid="error-summary"
        >
            <p class="font-semibold">
                {move || {
                    let n = errors().len();
                    format!("{n} field{} to fix before submitting", if n == 1 { "" } else { "s" })
                }}
            </p>
            <ul class="mt-2 list-disc pl-5">
                {move || {
                    errors()
                        .into_iter()
                        .map(|e| view! {
                            <li>
                                <a href=format!("#{}", field_id(&e.path)) class="underline">
                                    <code>{e.path.clone()}</code>
                                </a>
                                ": " {e.message}
                            </li>
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
    .into_any()
}

fn s(text: &str) -> String {
    text.to_owned()
}

#[component]
fn General(projects: Vec<ProjectSummary>) -> impl IntoView {
    let form = use_form();
    let (name, set_name) = bind!(form, name);
    let (project, set_project) = bind!(form, project);
    let (image, set_image) = bind!(form, image);
    let (pull, set_pull) = bind!(form, image_pull_policy);
    let (command, set_command) = bind!(form, command);
    let (args, set_args) = bind!(form, args);
    let (workdir, set_workdir) = bind!(form, working_dir);
    let project_id = field_id("projectId");
    let project_touch = s("projectId");
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"General"</legend>
            <div class=GRID_CLASS>
                <TextField label="Name" path=s("name") name=s("draft[name]") value=name set=set_name required=true
                    hint="Lowercase letters, digits and '-', starting with a letter; up to 48 characters." />
                <div class="flex flex-col gap-1">
                    <label for=project_id.clone() class="text-sm font-medium">"Project"</label>
                    <select
                        id=project_id.clone()
                        name="draft[project]"
                        class=crate::components::form::INPUT_CLASS
                        on:change=move |ev| {
                            form.touch(&project_touch);
                            set_project.run(event_target_value(&ev));
                        }
                    >
                        {projects
                            .into_iter()
                            .map(|p| {
                                let value = p.name.clone();
                                let is = p.name.clone();
                                view! {
                                    <option value=value selected=move || project.get() == is>
                                        {format!("{} (queue {})", p.name, p.queue)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                    <GroupMessage path=s("projectId") />
                </div>
                <TextField label="Image" path=s("spec.image") name=s("draft[image]") value=image set=set_image required=true
                    placeholder="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime" />
                <SelectField label="Image pull policy" path=s("spec.imagePullPolicy") name=s("draft[image_pull_policy]")
                    value=pull set=set_pull
                    options=&[("", "Cluster default"), ("Always", "Always"), ("IfNotPresent", "If not present"), ("Never", "Never")] />
                <TextField label="Command" path=s("spec.command") name=s("draft[command]") value=command set=set_command
                    placeholder="python train.py" hint="Replaces the image's entrypoint; shell words, quotes allowed." />
                <TextField label="Arguments" path=s("spec.args") name=s("draft[args]") value=args set=set_args
                    placeholder="--epochs 10 --lr 0.001" />
                <TextField label="Working directory" path=s("spec.workingDir") name=s("draft[working_dir]")
                    value=workdir set=set_workdir placeholder="/workspace" />
            </div>
            <EnvEditor />
            <KeyValueEditor title="Labels" list=KvList::Labels />
            <KeyValueEditor title="Annotations" list=KvList::Annotations />
        </fieldset>
    }
    .into_any()
}

#[component]
fn EnvEditor() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    view! {
        <fieldset class="mt-4">
            <legend class="text-sm font-semibold">"Environment variables"</legend>
            <div class="mt-2 flex flex-col gap-3">
                <For each=move || 0..draft.with(|d| d.env.len()) key=|i| *i let:i>
                    {
                        let path = format!("spec.environmentVariables[{i}]");
                        let (name, set_name) = bind_row!(form, env, i, name);
                        let (from_secret, set_from_secret) = bind_row!(form, env, i, from_secret);
                        let (value, set_value) = bind_row!(form, env, i, value);
                        let (secret, set_secret) = bind_row!(form, env, i, secret_name);
                        let (key, set_key) = bind_row!(form, env, i, secret_key);
                        let (value_path, secret_path, key_path) = (
                            format!("{path}.value"),
                            format!("{path}.secret.name"),
                            format!("{path}.secret.key"),
                        );
                        view! {
                            <div class=ROW_CLASS data-row=path.clone()>
                                <TextField label="Name" path=format!("{path}.name") name=format!("draft[env][{i}][name]") value=name set=set_name />
                                <CheckboxField label="From a secret" path=format!("{path}.secret") name=format!("draft[env][{i}][from_secret]")
                                    value=from_secret set=set_from_secret />
                                <Show when=move || !from_secret.get()>
                                    <TextField label="Value" path=value_path.clone() name=format!("draft[env][{i}][value]") value=value set=set_value />
                                </Show>
                                <Show when=move || from_secret.get()>
                                    <TextField label="Secret" path=secret_path.clone() name=format!("draft[env][{i}][secret_name]") value=secret set=set_secret />
                                    <TextField label="Key in the secret" path=key_path.clone() name=format!("draft[env][{i}][secret_key]") value=key set=set_key />
                                </Show>
                                <RemoveRow on_remove=move || draft.update(|d| { if i < d.env.len() { d.env.remove(i); } }) what="variable" />
                                <GroupMessage path=path.clone() />
                            </div>
                        }
                    }
                </For>
                <button type="button" class=LINK_BUTTON_CLASS on:click=move |_| draft.update(|d| d.env.push(EnvRow::default()))>
                    "+ Add a variable"
                </button>
            </div>
        </fieldset>
    }
    .into_any()
}

#[component]
fn RemoveRow(on_remove: impl Fn() + Send + Sync + 'static, what: &'static str) -> impl IntoView {
    view! {
        <button type="button" class=format!("{LINK_BUTTON_CLASS} md:mt-6") on:click=move |_| on_remove()>
            {format!("Remove this {what}")}
        </button>
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KvList {
    Labels,
    Annotations,
    Extended,
}

impl KvList {
    fn rows(self, d: &mut TrainingDraft) -> &mut Vec<KeyValueRow> {
        match self {
            KvList::Labels => &mut d.labels,
            KvList::Annotations => &mut d.annotations,
            KvList::Extended => &mut d.extended_resources,
        }
    }

    fn len(self, d: &TrainingDraft) -> usize {
        match self {
            KvList::Labels => d.labels.len(),
            KvList::Annotations => d.annotations.len(),
            KvList::Extended => d.extended_resources.len(),
        }
    }

    /// JSON path of the list, form name of the list, and the two columns' JSON keys and labels.
    fn describe(
        self,
    ) -> (
        &'static str,
        &'static str,
        (&'static str, &'static str),
        (&'static str, &'static str),
    ) {
        match self {
            KvList::Labels => ("spec.labels", "labels", ("name", "Key"), ("value", "Value")),
            KvList::Annotations => (
                "spec.annotations",
                "annotations",
                ("name", "Key"),
                ("value", "Value"),
            ),
            KvList::Extended => (
                "spec.compute.extendedResources",
                "extended_resources",
                ("resource", "Resource"),
                ("quantity", "Quantity"),
            ),
        }
    }
}

#[component]
fn KeyValueEditor(title: &'static str, list: KvList) -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let (json, form_name, (key_json, key_label), (value_json, value_label)) = list.describe();
    view! {
        <fieldset class="mt-4">
            <legend class="text-sm font-semibold">{title}</legend>
            <div class="mt-2 flex flex-col gap-3">
                <For each=move || 0..draft.with(|d| list.len(d)) key=|i| *i let:i>
                    {
                        let path = format!("{json}[{i}]");
                        let key = Signal::derive(move || draft.with(|d| {
                            let mut d = d.clone();
                            list.rows(&mut d).get(i).map(|r| r.name.clone()).unwrap_or_default()
                        }));
                        let value = Signal::derive(move || draft.with(|d| {
                            let mut d = d.clone();
                            list.rows(&mut d).get(i).map(|r| r.value.clone()).unwrap_or_default()
                        }));
                        let set_key = Callback::new(move |v: String| draft.update(|d| {
                            if let Some(r) = list.rows(d).get_mut(i) { r.name = v; }
                        }));
                        let set_value = Callback::new(move |v: String| draft.update(|d| {
                            if let Some(r) = list.rows(d).get_mut(i) { r.value = v; }
                        }));
                        view! {
                            <div class=ROW_CLASS data-row=path.clone()>
                                <TextField label=key_label path=format!("{path}.{key_json}") name=format!("draft[{form_name}][{i}][name]") value=key set=set_key />
                                <TextField label=value_label path=format!("{path}.{value_json}") name=format!("draft[{form_name}][{i}][value]") value=value set=set_value />
                                <RemoveRow on_remove=move || draft.update(|d| { let rows = list.rows(d); if i < rows.len() { rows.remove(i); } }) what="entry" />
                                <GroupMessage path=path.clone() />
                            </div>
                        }
                    }
                </For>
                <button type="button" class=LINK_BUTTON_CLASS on:click=move |_| draft.update(|d| list.rows(d).push(KeyValueRow::default()))>
                    {format!("+ Add to {}", title.to_lowercase())}
                </button>
            </div>
        </fieldset>
    }
    .into_any()
}

fn gpu_mode_value(mode: GpuMode) -> &'static str {
    match mode {
        GpuMode::None => "none",
        GpuMode::Devices => "devices",
        GpuMode::Portion => "portion",
        GpuMode::Memory => "memory",
        GpuMode::Mig => "mig",
    }
}

fn parse_enum<T: serde::de::DeserializeOwned + Default>(value: &str) -> T {
    serde_json::from_value(serde_json::Value::String(value.to_owned())).unwrap_or_default()
}

#[component]
fn Compute() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let mode = Signal::derive(move || draft.with(|d| d.gpu_mode));
    let (gpus, set_gpus) = bind!(form, gpu_devices);
    let (portion, set_portion) = bind!(form, gpu_portion);
    let (memory, set_memory) = bind!(form, gpu_memory);
    let (mig, set_mig) = bind!(form, mig_profile);
    let (cpu, set_cpu) = bind!(form, cpu_request);
    let (cpu_limit, set_cpu_limit) = bind!(form, cpu_limit);
    let (mem, set_mem) = bind!(form, memory_request);
    let (mem_limit, set_mem_limit) = bind!(form, memory_limit);
    let (shm, set_shm) = bind!(form, large_shm);
    let modes: [(GpuMode, &str); 5] = [
        (GpuMode::None, "No GPU"),
        (GpuMode::Devices, "Whole GPUs"),
        (GpuMode::Portion, "A portion of one GPU"),
        (GpuMode::Memory, "GPU memory"),
        (GpuMode::Mig, "A MIG profile"),
    ];
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Compute (per pod)"</legend>
            <fieldset class="mt-2">
                <legend class="text-sm font-semibold">"GPUs"</legend>
                <div class="mt-1 flex flex-wrap gap-4" role="radiogroup">
                    {modes
                        .into_iter()
                        .map(|(m, label)| {
                            let id = format!("gpu-mode-{}", gpu_mode_value(m));
                            view! {
                                <span class="flex items-center gap-2">
                                    <input
                                        type="radio"
                                        id=id.clone()
                                        name="draft[gpu_mode]"
                                        value=gpu_mode_value(m)
                                        prop:checked=move || mode.get() == m
                                        on:change=move |_| draft.update(|d| d.gpu_mode = m)
                                    />
                                    <label for=id class="text-sm">{label}</label>
                                </span>
                            }
                        })
                        .collect_view()}
                </div>
                <div class=GRID_CLASS>
                    <Show when=move || mode.get() == GpuMode::Devices>
                        <TextField label="GPUs" kind="number" path=s("spec.compute.gpuDevicesRequest") name=s("draft[gpu_devices]") value=gpus set=set_gpus />
                    </Show>
                    <Show when=move || mode.get() == GpuMode::Portion>
                        <TextField label="GPU portion" kind="number" step="0.05" path=s("spec.compute.gpuPortionRequest") name=s("draft[gpu_portion]")
                            value=portion set=set_portion hint="A fraction of one GPU, between 0 and 1, e.g. 0.5." />
                    </Show>
                    <Show when=move || mode.get() == GpuMode::Memory>
                        <TextField label="GPU memory" path=s("spec.compute.gpuMemoryRequest") name=s("draft[gpu_memory]") value=memory set=set_memory
                            placeholder="20Gi" />
                    </Show>
                    <Show when=move || mode.get() == GpuMode::Mig>
                        <TextField label="MIG profile" path=s("spec.compute.migProfile") name=s("draft[mig_profile]") value=mig set=set_mig
                            placeholder="1g.10gb" />
                    </Show>
                </div>
                <GroupMessage path=s("spec.compute") />
            </fieldset>
            <div class=GRID_CLASS>
                <TextField label="CPU request (cores)" kind="number" step="0.1" path=s("spec.compute.cpuCoreRequest") name=s("draft[cpu_request]") value=cpu set=set_cpu />
                <TextField label="CPU limit (cores)" kind="number" step="0.1" path=s("spec.compute.cpuCoreLimit") name=s("draft[cpu_limit]") value=cpu_limit set=set_cpu_limit />
                <TextField label="Memory request" path=s("spec.compute.cpuMemoryRequest") name=s("draft[memory_request]") value=mem set=set_mem placeholder="16Gi" />
                <TextField label="Memory limit" path=s("spec.compute.cpuMemoryLimit") name=s("draft[memory_limit]") value=mem_limit set=set_mem_limit placeholder="32Gi" />
                <CheckboxField label="Large shared memory (/dev/shm)" path=s("spec.compute.largeShmRequest") name=s("draft[large_shm]") value=shm set=set_shm
                    hint="For data loaders that share tensors between processes." />
            </div>
            <KeyValueEditor title="Extended resources" list=KvList::Extended />
        </fieldset>
    }
    .into_any()
}

const VOLUME_KINDS: &[(&str, &str)] = &[
    ("existing-pvc", "Existing PVC"),
    ("new-pvc", "New PVC"),
    ("nfs", "NFS"),
    ("host-path", "Host path"),
    ("config-map", "Config map"),
    ("secret", "Secret"),
    ("git", "Git repository"),
    ("s3", "S3 bucket"),
];

fn kind_value(kind: VolumeKind) -> &'static str {
    match kind {
        VolumeKind::ExistingPvc => "existing-pvc",
        VolumeKind::NewPvc => "new-pvc",
        VolumeKind::Nfs => "nfs",
        VolumeKind::HostPath => "host-path",
        VolumeKind::ConfigMap => "config-map",
        VolumeKind::Secret => "secret",
        VolumeKind::Git => "git",
        VolumeKind::S3 => "s3",
    }
}

/// For each kind: (source label and key, mount key, endpoint, revision, secret, read-only).
struct VolumeFields {
    source: (&'static str, &'static str),
    mount: &'static str,
    endpoint: Option<(&'static str, &'static str)>,
    revision: Option<(&'static str, &'static str)>,
    secret: Option<(&'static str, &'static str)>,
    read_only: bool,
}

fn volume_fields(kind: VolumeKind) -> VolumeFields {
    let base = |source, mount| VolumeFields {
        source,
        mount,
        endpoint: None,
        revision: None,
        secret: None,
        read_only: false,
    };
    match kind {
        VolumeKind::ExistingPvc => VolumeFields {
            read_only: true,
            ..base(("Claim name", "claimName"), "path")
        },
        VolumeKind::NewPvc => VolumeFields {
            read_only: true,
            ..base(("Claim name (optional)", "claimName"), "path")
        },
        VolumeKind::Nfs => VolumeFields {
            endpoint: Some(("Server", "server")),
            read_only: true,
            ..base(("Exported path", "path"), "mountPath")
        },
        VolumeKind::HostPath => VolumeFields {
            read_only: true,
            ..base(("Path on the node", "path"), "mountPath")
        },
        VolumeKind::ConfigMap => base(("Config map", "configMap"), "mountPath"),
        VolumeKind::Secret => base(("Secret", "secret"), "mountPath"),
        VolumeKind::Git => VolumeFields {
            revision: Some(("Branch", "branch")),
            secret: Some(("Password secret", "passwordSecret")),
            ..base(("Repository URL", "repository"), "path")
        },
        VolumeKind::S3 => VolumeFields {
            endpoint: Some(("Endpoint URL", "url")),
            secret: Some(("Access key secret", "accessKeySecret")),
            ..base(("Bucket", "bucket"), "path")
        },
    }
}

#[component]
fn Storage() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Storage"</legend>
            <div class="mt-2 flex flex-col gap-3">
                <For each=move || 0..draft.with(|d| d.volumes.len()) key=|i| *i let:i>
                    <VolumeEditor i />
                </For>
                <button type="button" class=LINK_BUTTON_CLASS on:click=move |_| draft.update(|d| d.volumes.push(VolumeRow::default()))>
                    "+ Add a volume"
                </button>
            </div>
        </fieldset>
    }
    .into_any()
}

#[component]
fn VolumeEditor(i: usize) -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let kind = Signal::derive(move || {
        draft.with(|d| d.volumes.get(i).map(|v| v.kind).unwrap_or_default())
    });
    let set_kind = Callback::new(move |v: String| {
        draft.update(|d| {
            if let Some(r) = d.volumes.get_mut(i) {
                r.kind = parse_enum(&v);
            }
        })
    });
    let kind_text = Signal::derive(move || kind_value(kind.get()).to_owned());
    view! {
        <div class=ROW_CLASS data-row=move || draft.with(|d| d.volume_path(i))>
            <SelectField label="Kind" path=format!("volumes[{i}].kind") name=format!("draft[volumes][{i}][kind]") value=kind_text set=set_kind options=VOLUME_KINDS />
            {move || {
                let k = kind.get();
                let fields = volume_fields(k);
                let path = draft.with_untracked(|d| d.volume_path(i));
                let (source, set_source) = bind_row!(form, volumes, i, source);
                let (mount, set_mount) = bind_row!(form, volumes, i, mount_path);
                let (endpoint, set_endpoint) = bind_row!(form, volumes, i, endpoint);
                let (revision, set_revision) = bind_row!(form, volumes, i, revision);
                let (secret, set_secret) = bind_row!(form, volumes, i, secret);
                let (read_only, set_read_only) = bind_row!(form, volumes, i, read_only);
                let (size, set_size) = bind_row!(form, volumes, i, size);
                let (class, set_class) = bind_row!(form, volumes, i, storage_class);
                let (mode, set_mode) = bind_row!(form, volumes, i, access_mode);
                let name = |field: &str| format!("draft[volumes][{i}][{field}]");
                view! {
                    <TextField label=fields.source.0 path=format!("{path}.{}", fields.source.1) name=name("source") value=source set=set_source />
                    {fields.endpoint.map(|(label, key)| view! {
                        <TextField label=label path=format!("{path}.{key}") name=name("endpoint") value=endpoint set=set_endpoint />
                    })}
                    {fields.revision.map(|(label, key)| view! {
                        <TextField label=label path=format!("{path}.{key}") name=name("revision") value=revision set=set_revision />
                    })}
                    {fields.secret.map(|(label, key)| view! {
                        <TextField label=label path=format!("{path}.{key}") name=name("secret") value=secret set=set_secret />
                    })}
                    {(k == VolumeKind::NewPvc).then(|| view! {
                        <TextField label="Size" path=format!("{path}.claimInfo.size") name=name("size") value=size set=set_size placeholder="100Gi" />
                        <TextField label="Storage class" path=format!("{path}.claimInfo.storageClass") name=name("storage_class") value=class set=set_class />
                        <SelectField label="Access mode" path=format!("{path}.claimInfo.accessModes") name=name("access_mode") value=mode set=set_mode
                            options=&[("", "Default"), ("ReadWriteOnce", "Read-write, one node"), ("ReadOnlyMany", "Read-only, many nodes"), ("ReadWriteMany", "Read-write, many nodes")] />
                    })}
                    <TextField label="Mount path in the container" path=format!("{path}.{}", fields.mount) name=name("mount_path") value=mount set=set_mount placeholder="/data" />
                    {fields.read_only.then(|| view! {
                        <CheckboxField label="Read only" path=format!("{path}.readOnly") name=name("read_only") value=read_only set=set_read_only />
                    })}
                    <GroupMessage path=path.clone() />
                }
            }}
            <RemoveRow on_remove=move || draft.update(|d| { if i < d.volumes.len() { d.volumes.remove(i); } }) what="volume" />
        </div>
    }
    .into_any()
}

#[component]
fn Security() -> impl IntoView {
    let form = use_form();
    let (source, set_source) = bind!(form, uid_gid_source);
    let (uid, set_uid) = bind!(form, run_as_uid);
    let (gid, set_gid) = bind!(form, run_as_gid);
    let (groups, set_groups) = bind!(form, supplemental_groups);
    let (non_root, set_non_root) = bind!(form, run_as_non_root);
    let (caps, set_caps) = bind!(form, capabilities);
    let (seccomp, set_seccomp) = bind!(form, seccomp_profile);
    let (ro, set_ro) = bind!(form, read_only_root_filesystem);
    let (escalation, set_escalation) = bind!(form, allow_privilege_escalation);
    let (ipc, set_ipc) = bind!(form, host_ipc);
    let (net, set_net) = bind!(form, host_network);
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Security"</legend>
            <div class=GRID_CLASS>
                <SelectField label="User and group IDs" path=s("spec.security.uidGidSource") name=s("draft[uid_gid_source]") value=source set=set_source
                    options=&[("", "Cluster default"), ("fromTheImage", "From the image"), ("custom", "Custom"), ("fromIdpToken", "From my identity")] />
                <TextField label="Run as UID" kind="number" path=s("spec.security.runAsUid") name=s("draft[run_as_uid]") value=uid set=set_uid />
                <TextField label="Run as GID" kind="number" path=s("spec.security.runAsGid") name=s("draft[run_as_gid]") value=gid set=set_gid />
                <TextField label="Supplemental groups" path=s("spec.security.supplementalGroups") name=s("draft[supplemental_groups]") value=groups set=set_groups
                    placeholder="2,3,5" hint="Comma-separated group IDs." />
                <TextField label="Capabilities" path=s("spec.security.capabilities") name=s("draft[capabilities]") value=caps set=set_caps
                    placeholder="SYS_PTRACE, NET_ADMIN" hint="Linux capabilities to add, comma-separated." />
                <SelectField label="Seccomp profile" path=s("spec.security.seccompProfileType") name=s("draft[seccomp_profile]") value=seccomp set=set_seccomp
                    options=&[("", "Cluster default"), ("RuntimeDefault", "Runtime default"), ("Unconfined", "Unconfined"), ("Localhost", "Localhost")] />
                <SelectField label="Privilege escalation" path=s("spec.security.allowPrivilegeEscalation") name=s("draft[allow_privilege_escalation]")
                    value=escalation set=set_escalation options=&[("", "Kubernetes default"), ("false", "Not allowed"), ("true", "Allowed")] />
                <CheckboxField label="Run as non-root" path=s("spec.security.runAsNonRoot") name=s("draft[run_as_non_root]") value=non_root set=set_non_root />
                <CheckboxField label="Read-only root filesystem" path=s("spec.security.readOnlyRootFilesystem") name=s("draft[read_only_root_filesystem]") value=ro set=set_ro />
                <CheckboxField label="Host IPC" path=s("spec.security.hostIpc") name=s("draft[host_ipc]") value=ipc set=set_ipc />
                <CheckboxField label="Host network" path=s("spec.security.hostNetwork") name=s("draft[host_network]") value=net set=set_net />
            </div>
        </fieldset>
    }
    .into_any()
}

#[component]
fn Scheduling() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let (pools, set_pools) = bind!(form, node_pools);
    let (node_type, set_node_type) = bind!(form, node_type);
    let (affinity, set_affinity) = bind!(form, pod_affinity);
    let (affinity_key, set_affinity_key) = bind!(form, pod_affinity_key);
    let (priority, set_priority) = bind!(form, priority_class);
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Scheduling"</legend>
            <div class=GRID_CLASS>
                <TextField label="Node pools" path=s("spec.nodePools") name=s("draft[node_pools]") value=pools set=set_pools
                    hint="Comma-separated, in order of preference." />
                <TextField label="Node type" path=s("spec.nodeType") name=s("draft[node_type]") value=node_type set=set_node_type />
                <SelectField label="Pod affinity" path=s("spec.podAffinity.type") name=s("draft[pod_affinity]") value=affinity set=set_affinity
                    options=&[("", "None"), ("Required", "Required"), ("Preferred", "Preferred")] />
                <TextField label="Pod affinity topology key" path=s("spec.podAffinity.key") name=s("draft[pod_affinity_key]") value=affinity_key set=set_affinity_key
                    placeholder="kubernetes.io/hostname" />
                <TextField label="Priority class" path=s("spec.priorityClass") name=s("draft[priority_class]") value=priority set=set_priority />
            </div>
            <fieldset class="mt-4">
                <legend class="text-sm font-semibold">"Tolerations"</legend>
                <div class="mt-2 flex flex-col gap-3">
                    <For each=move || 0..draft.with(|d| d.tolerations.len()) key=|i| *i let:i>
                        {
                            let path = format!("spec.tolerations[{i}]");
                            let (key, set_key) = bind_row!(form, tolerations, i, key);
                            let (op, set_op) = bind_row!(form, tolerations, i, operator);
                            let (value, set_value) = bind_row!(form, tolerations, i, value);
                            let (effect, set_effect) = bind_row!(form, tolerations, i, effect);
                            let (seconds, set_seconds) = bind_row!(form, tolerations, i, seconds);
                            let name = move |field: &str| format!("draft[tolerations][{i}][{field}]");
                            view! {
                                <div class=ROW_CLASS data-row=path.clone()>
                                    <TextField label="Taint key" path=format!("{path}.key") name=name("key") value=key set=set_key />
                                    <SelectField label="Operator" path=format!("{path}.operator") name=name("operator") value=op set=set_op
                                        options=&[("", "Equal (default)"), ("Equal", "Equal"), ("Exists", "Exists")] />
                                    <TextField label="Value" path=format!("{path}.value") name=name("value") value=value set=set_value />
                                    <SelectField label="Effect" path=format!("{path}.effect") name=name("effect") value=effect set=set_effect
                                        options=&[("", "Any"), ("NoSchedule", "NoSchedule"), ("PreferNoSchedule", "PreferNoSchedule"), ("NoExecute", "NoExecute")] />
                                    <TextField label="Seconds (NoExecute)" kind="number" path=format!("{path}.seconds") name=name("seconds") value=seconds set=set_seconds />
                                    <RemoveRow on_remove=move || draft.update(|d| { if i < d.tolerations.len() { d.tolerations.remove(i); } }) what="toleration" />
                                    <GroupMessage path=path.clone() />
                                </div>
                            }
                        }
                    </For>
                    <button type="button" class=LINK_BUTTON_CLASS on:click=move |_| draft.update(|d| d.tolerations.push(TolerationRow::default()))>
                        "+ Add a toleration"
                    </button>
                </div>
            </fieldset>
        </fieldset>
    }
    .into_any()
}

#[component]
fn Distributed() -> impl IntoView {
    let form = use_form();
    let (on, set_on) = bind!(form, distributed);
    let (framework, set_framework) = bind!(form, framework);
    let (workers, set_workers) = bind!(form, num_workers);
    let (own, set_own) = bind!(form, master_own_resources);
    let (gpus, set_gpus) = bind!(form, master_gpu_devices);
    let (cpu, set_cpu) = bind!(form, master_cpu_request);
    let (mem, set_mem) = bind!(form, master_memory_request);
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Distributed"</legend>
            <div class=GRID_CLASS>
                <CheckboxField label="Distributed training (a master and workers, started together)" path=s("distributed") name=s("draft[distributed]") value=on set=set_on />
            </div>
            <Show when=move || on.get()>
                <div class=GRID_CLASS>
                    <SelectField label="Framework" path=s("spec.distributedFramework") name=s("draft[framework]") value=framework set=set_framework
                        options=&[("PyTorch", "PyTorch"), ("MPI", "MPI"), ("TF", "TensorFlow"), ("XGBoost", "XGBoost")] />
                    <TextField label="Workers" kind="number" path=s("spec.numWorkers") name=s("draft[num_workers]") value=workers set=set_workers
                        hint="Besides the master; all pods start together or not at all." />
                    <CheckboxField label="The master asks for its own resources" path=s("spec.masterSpecSameAsWorker") name=s("draft[master_own_resources]") value=own set=set_own
                        hint="Otherwise the master is the same as a worker." />
                </div>
                <Show when=move || own.get()>
                    <div class=GRID_CLASS>
                        <TextField label="Master GPUs" kind="number" path=s("spec.master.compute.gpuDevicesRequest") name=s("draft[master_gpu_devices]") value=gpus set=set_gpus />
                        <TextField label="Master CPU request (cores)" kind="number" step="0.1" path=s("spec.master.compute.cpuCoreRequest") name=s("draft[master_cpu_request]") value=cpu set=set_cpu />
                        <TextField label="Master memory request" path=s("spec.master.compute.cpuMemoryRequest") name=s("draft[master_memory_request]") value=mem set=set_mem placeholder="8Gi" />
                    </div>
                </Show>
            </Show>
        </fieldset>
    }
    .into_any()
}

#[component]
fn Lifecycle() -> impl IntoView {
    let form = use_form();
    let distributed = Signal::derive(move || form.draft.with(|d| d.distributed));
    let (completions, set_completions) = bind!(form, completions);
    let (parallelism, set_parallelism) = bind!(form, parallelism);
    let (backoff, set_backoff) = bind!(form, backoff_limit);
    let (ttl, set_ttl) = bind!(form, auto_deletion_seconds);
    let (preempt, set_preempt) = bind!(form, terminate_after_preemption);
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>"Lifecycle"</legend>
            <div class=GRID_CLASS>
                <Show when=move || !distributed.get()>
                    <TextField label="Completions" kind="number" path=s("spec.completions") name=s("draft[completions]") value=completions set=set_completions
                        hint="How many pods must succeed." />
                    <TextField label="Parallelism" kind="number" path=s("spec.parallelism") name=s("draft[parallelism]") value=parallelism set=set_parallelism
                        hint="How many pods run at once." />
                </Show>
                <TextField label="Backoff limit" kind="number" path=s("spec.backoffLimit") name=s("draft[backoff_limit]") value=backoff set=set_backoff
                    hint="How often a failed training is restarted." />
                <TextField label="Delete after completion (seconds)" kind="number" path=s("spec.autoDeletionTimeAfterCompletionSeconds") name=s("draft[auto_deletion_seconds]") value=ttl set=set_ttl />
                <CheckboxField label="Terminate after preemption" path=s("spec.terminateAfterPreemption") name=s("draft[terminate_after_preemption]") value=preempt set=set_preempt
                    hint="Otherwise a preempted training waits to be scheduled again." />
            </div>
        </fieldset>
    }
    .into_any()
}

/// How long the preview waits after the last keystroke before asking the server again.
const PREVIEW_DEBOUNCE: Duration = Duration::from_millis(400);

/// The Volcano Job (and any PVCs and Services) exactly as submitting would create them, rendered
/// by the server. Once opened it follows the form.
#[component]
fn Preview() -> impl IntoView {
    let form = use_form();
    let open = RwSignal::new(false);
    let preview = Action::new(|draft: &TrainingDraft| preview_training(draft.clone()));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let draft = form.draft.get();
        if !open.get() {
            return;
        }
        let mine = generation.get_value() + 1;
        generation.set_value(mine);
        set_timeout(
            move || {
                if generation.get_value() == mine {
                    preview.dispatch(draft);
                }
            },
            PREVIEW_DEBOUNCE,
        );
    });
    view! {
        <aside aria-labelledby="preview-heading" class="flex flex-col gap-3 self-start xl:sticky xl:top-4">
            <div class="flex items-center justify-between gap-3">
                <h2 id="preview-heading" class="text-lg font-semibold">"Volcano Job preview"</h2>
                <button
                    type="button"
                    class=SECONDARY_BUTTON_CLASS
                    aria-expanded=move || open.get().to_string()
                    aria-controls="yaml-preview"
                    data-testid="preview-toggle"
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    {move || if open.get() { "Hide YAML" } else { "Preview YAML" }}
                </button>
            </div>
            <Show
                when=move || open.get()
                fallback=|| view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">
                        "See the exact Job, volumes and services Tephra will create before you submit."
                    </p>
                }
            >
                <div id="yaml-preview" aria-live="polite" aria-busy=move || preview.pending().get().to_string()>
                    {move || match preview.value().get() {
                        None => view! { <p class="text-sm text-slate-500">"Rendering…"</p> }.into_any(),
                        Some(Ok(yaml)) => view! {
                            <pre
                                class="max-h-[75vh] overflow-auto rounded-lg border border-slate-200 bg-white p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-800 dark:bg-slate-900"
                                data-testid="yaml-preview"
                                tabindex="0"
                            >
                                {yaml}
                            </pre>
                        }
                            .into_any(),
                        Some(Err(error)) => view! {
                            <div class="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100" data-testid="yaml-preview-error">
                                <p class="font-semibold">"Nothing to preview until the form is valid"</p>
                                {
                                    let fields = error.field_errors();
                                    if fields.is_empty() {
                                        view! { <p>{error.to_string()}</p> }.into_any()
                                    } else {
                                        view! {
                                            <ul class="mt-1 list-disc pl-5">
                                                {fields.into_iter().map(|e| view! {
                                                    <li><code>{e.path}</code>": "{e.message}</li>
                                                }).collect_view()}
                                            </ul>
                                        }.into_any()
                                    }
                                }
                            </div>
                        }
                            .into_any(),
                    }}
                </div>
            </Show>
        </aside>
    }
    .into_any()
}
