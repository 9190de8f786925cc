//! Storage: every kind of volume the API takes, one list per kind, as the request holds them.

use super::{GRID_CLASS, Section, blank_row};
use crate::components::form::{CheckboxField, INPUT_CLASS, OpButton, RowList, TextField, use_form};
use crate::draft::fields::storage;
use crate::draft::op::Op;
use crate::draft::posted::VOLUME;
use crate::draft::{Kind, Path};
use crate::key;
use leptos::prelude::*;
use serde_json::Value;
use tephra_core::model::training::request::{
    AccessModes, ClaimInfo, ConfigMapVolume, DataVolume, Git, HostPath, Nfs, Pvc, S3, SecretVolume,
    Storage,
};

/// One kind of volume: its list under `spec.storage`, what a new one starts as, and its fields.
struct VolumeKind {
    label: &'static str,
    list: fn() -> String,
    template: fn() -> Value,
    fields: fn(Path) -> AnyView,
}

static KINDS: [VolumeKind; 8] = [
    VolumeKind {
        label: "PVC",
        list: || key!(Storage.pvc),
        template: pvc_row,
        fields: pvc_fields,
    },
    VolumeKind {
        label: "NFS",
        list: || key!(Storage.nfs),
        template: || blank_row(&[key!(Nfs.server), key!(Nfs.path), key!(Nfs.mount_path)]),
        fields: nfs_fields,
    },
    VolumeKind {
        label: "Host path",
        list: || key!(Storage.host_path),
        template: || blank_row(&[key!(HostPath.path), key!(HostPath.mount_path)]),
        fields: host_path_fields,
    },
    VolumeKind {
        label: "Config map",
        list: || key!(Storage.config_map_volume),
        template: || {
            blank_row(&[
                key!(ConfigMapVolume.config_map),
                key!(ConfigMapVolume.mount_path),
            ])
        },
        fields: config_map_fields,
    },
    VolumeKind {
        label: "Secret",
        list: || key!(Storage.secret_volume),
        template: || blank_row(&[key!(SecretVolume.secret), key!(SecretVolume.mount_path)]),
        fields: secret_fields,
    },
    VolumeKind {
        label: "Git repository",
        list: || key!(Storage.git),
        template: || blank_row(&[key!(Git.repository), key!(Git.path)]),
        fields: git_fields,
    },
    VolumeKind {
        label: "S3 bucket",
        list: || key!(Storage.s3),
        template: || blank_row(&[key!(S3.bucket), key!(S3.path)]),
        fields: s3_fields,
    },
    VolumeKind {
        label: "Data volume",
        list: || key!(Storage.data_volume),
        template: || blank_row(&[key!(DataVolume.id), key!(DataVolume.mount_path)]),
        fields: data_volume_fields,
    },
];

#[cfg(feature = "ssr")]
/// Adds a volume of the kind whose list is `kind` (`pvc`, `nfs`...), as "+ Add a volume" does.
pub fn add_volume(draft: &mut crate::draft::Draft, kind: &str) {
    if let Some(k) = KINDS.iter().find(|k| (k.list)() == kind) {
        draft.push_row(&storage().key(kind), (k.template)());
    }
}

#[component]
pub fn StorageSection() -> impl IntoView {
    let form = use_form();
    let list = |kind: &VolumeKind| storage().key((kind.list)());
    let policy = KINDS
        .iter()
        .filter_map(|k| {
            let hint = form.hint(&list(k).to_string())?;
            Some(format!("{}: {}", k.label, hint.text))
        })
        .collect::<Vec<_>>()
        .join(" ");
    // Every kind may be closed by the policy; then there is nothing to add.
    let all_closed = KINDS
        .iter()
        .all(|k| form.adding_closed(&list(k).to_string()));
    view! {
        <Section title="Storage">
            {KINDS
                .iter()
                .filter(|kind| form.draft.with(|d| d.rows(&list(kind)) > 0))
                .map(|kind| view! {
                    <RowList title=kind.label path=list(kind) what="volume"
                        template=kind.template row=kind.fields />
                })
                .collect_view()}
            <div class="mt-4 flex flex-wrap items-end gap-3">
                <div class="flex flex-col gap-1">
                    <label for="f-new-volume-kind" class="text-sm font-medium">"Kind of volume"</label>
                    // Choosing changes nothing until "Add" is pressed (`data-quiet`).
                    <select id="f-new-volume-kind" name=format!("draft[{VOLUME}]") class=INPUT_CLASS data-quiet="">
                        {KINDS
                            .iter()
                            .map(|k| {
                                let closed = form.adding_closed(&list(k).to_string());
                                let chosen = form.volume.with(|v| v.as_deref() == Some((k.list)().as_str()));
                                view! { <option value=(k.list)() disabled=closed selected=chosen>{k.label}</option> }
                            })
                            .collect_view()}
                    </select>
                </div>
                <OpButton op=Op::AddVolume label="+ Add a volume".to_owned() disabled=all_closed />
            </div>
            <p id="storage-policy" class="mt-1 text-xs text-slate-600 dark:text-slate-400" data-testid="storage-policy" data-live="">
                {policy}
            </p>
        </Section>
    }
}

fn mount(row: &Path, key: String) -> AnyView {
    view! {
        <TextField label="Mount path in the container" path=row.key(key) kind=Kind::Required placeholder="/data" />
    }
    .into_any()
}

fn read_only(row: &Path, key: String) -> AnyView {
    view! { <CheckboxField label="Read only" path=row.key(key) /> }.into_any()
}

fn pvc_row() -> Value {
    let mut row = blank_row(&[key!(Pvc.claim_name), key!(Pvc.path)]);
    row[key!(Pvc.existing_pvc)] = Value::Bool(true);
    row
}

/// A claim that exists, or one made for the training (size, class and access modes).
fn pvc_fields(row: Path) -> AnyView {
    let form = use_form();
    let existing = row.key(key!(Pvc.existing_pvc));
    let info = row.key(key!(Pvc.claim_info));
    let modes = info.key(key!(ClaimInfo.access_modes));
    let new_claim = !form.draft.with(|d| d.is_true(&existing));
    view! {
        <TextField label="Claim name" path=row.key(key!(Pvc.claim_name))
            hint="Optional for a new claim: one is named after the training." />
        <CheckboxField label="The claim exists already" path=row.key(key!(Pvc.existing_pvc)) kind=Kind::Bool />
        {mount(&row, key!(Pvc.path))}
        {read_only(&row, key!(Pvc.read_only))}
        {new_claim.then(|| view! {
            <div class=GRID_CLASS>
                <TextField label="Size" path=info.key(key!(ClaimInfo.size)) placeholder="100Gi" />
                <TextField label="Storage class" path=info.key(key!(ClaimInfo.storage_class)) />
                <CheckboxField label="Read-write, one node" path=modes.key(key!(AccessModes.read_write_once)) />
                <CheckboxField label="Read-only, many nodes" path=modes.key(key!(AccessModes.read_only_many)) />
                <CheckboxField label="Read-write, many nodes" path=modes.key(key!(AccessModes.read_write_many)) />
            </div>
        })}
    }
    .into_any()
}

fn nfs_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Server" path=row.key(key!(Nfs.server)) kind=Kind::Required />
        <TextField label="Exported path" path=row.key(key!(Nfs.path)) kind=Kind::Required />
        {mount(&row, key!(Nfs.mount_path))}
        {read_only(&row, key!(Nfs.read_only))}
    }
    .into_any()
}

fn host_path_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Path on the node" path=row.key(key!(HostPath.path)) kind=Kind::Required />
        {mount(&row, key!(HostPath.mount_path))}
        {read_only(&row, key!(HostPath.read_only))}
    }
    .into_any()
}

fn config_map_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Config map" path=row.key(key!(ConfigMapVolume.config_map)) kind=Kind::Required />
        {mount(&row, key!(ConfigMapVolume.mount_path))}
    }
    .into_any()
}

fn secret_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Secret" path=row.key(key!(SecretVolume.secret)) kind=Kind::Required />
        {mount(&row, key!(SecretVolume.mount_path))}
    }
    .into_any()
}

fn git_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Repository URL" path=row.key(key!(Git.repository)) kind=Kind::Required />
        <TextField label="Branch" path=row.key(key!(Git.branch)) />
        {mount(&row, key!(Git.path))}
        <TextField label="Password secret" path=row.key(key!(Git.password_secret)) />
    }
    .into_any()
}

fn s3_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Bucket" path=row.key(key!(S3.bucket)) kind=Kind::Required />
        <TextField label="Endpoint URL" path=row.key(key!(S3.url)) />
        {mount(&row, key!(S3.path))}
        <TextField label="Access key secret" path=row.key(key!(S3.access_key_secret)) />
    }
    .into_any()
}

fn data_volume_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Data volume" path=row.key(key!(DataVolume.id)) kind=Kind::Required />
        {mount(&row, key!(DataVolume.mount_path))}
    }
    .into_any()
}
