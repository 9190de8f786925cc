//! General: the name, the project, the image and how it runs, its variables, labels and
//! annotations.

use super::{GRID_CLASS, Section, blank_row};
use crate::components::form::{
    GroupMessage, INPUT_CLASS, RowList, SelectField, TextField, Toggle, field_id, use_form,
};
use crate::draft::fields::{name, project, spec};
use crate::draft::{Kind, Path};
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::request::{
    EnvironmentVariable, NameValue, SecretKeyRef, TrainingSpec,
};

#[component]
/// `projects`: each one's name and how the choice reads.
pub fn General(projects: Vec<(String, String)>) -> impl IntoView {
    let at = |key: String| spec().key(key);
    view! {
        <Section title="General">
            <div class=GRID_CLASS>
                <TextField label="Name" path=name() kind=Kind::Required required=true
                    hint="Lowercase letters, digits and '-', starting with a letter; up to 48 characters." />
                <ProjectField projects />
                <TextField label="Image" path=at(key!(TrainingSpec.image)) required=true
                    placeholder="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime" />
                <SelectField label="Image pull policy" path=at(key!(TrainingSpec.image_pull_policy))
                    options=&[("", "Cluster default"), ("Always", "Always"), ("IfNotPresent", "If not present"), ("Never", "Never")] />
                <TextField label="Image pull secrets" path=at(key!(TrainingSpec.image_pull_secrets)) kind=Kind::List
                    hint="Comma-separated names of secrets in the project's namespace, for a private registry." />
                <TextField label="Command" path=at(key!(TrainingSpec.command))
                    placeholder="python train.py" hint="Replaces the image's entrypoint; shell words, quotes allowed." />
                <TextField label="Arguments" path=at(key!(TrainingSpec.args)) placeholder="--epochs 10 --lr 0.001" />
                <TextField label="Working directory" path=at(key!(TrainingSpec.working_dir)) placeholder="/workspace" />
            </div>
            <RowList title="Environment variables" path=at(key!(TrainingSpec.environment_variables))
                add="Add a variable" what="variable" template=env_row row=env_fields />
            <RowList title="Labels" path=at(key!(TrainingSpec.labels))
                add="Add to labels" what="entry" template=name_value_row row=label_fields />
            <RowList title="Annotations" path=at(key!(TrainingSpec.annotations))
                add="Add to annotations" what="entry" template=name_value_row row=annotation_fields />
        </Section>
    }
}

/// The project, chosen among those the user may submit to.
#[component]
fn ProjectField(projects: Vec<(String, String)>) -> impl IntoView {
    let form = use_form();
    let path = project();
    let value = form.text(&path);
    let name = format!(
        "draft[{}]",
        crate::draft::posted::input_name(Kind::Text, &path)
    );
    let path = path.to_string();
    let id = field_id(&path);
    view! {
        <div class="flex flex-col gap-1">
            <label for=id.clone() class="text-sm font-medium">"Project"</label>
            <select id=id.clone() name=name class=INPUT_CLASS>
                {projects
                    .into_iter()
                    .map(|(name, label)| {
                        let selected = value == name;
                        view! { <option value=name selected=selected>{label}</option> }
                    })
                    .collect_view()}
            </select>
            <GroupMessage path />
        </div>
    }
}

fn env_row() -> serde_json::Value {
    blank_row(&[
        key!(EnvironmentVariable.name),
        key!(EnvironmentVariable.value),
    ])
}

fn name_value_row() -> serde_json::Value {
    blank_row(&[key!(NameValue.name), key!(NameValue.value)])
}

/// A variable's value is typed, or taken from a key of a secret.
fn env_fields(row: Path) -> AnyView {
    let form = use_form();
    let from_secret = form.draft.with(|d| d.from_secret(&row));
    let secret = row.key(key!(EnvironmentVariable.secret));
    let name = view! { <TextField label="Name" path=row.key(key!(EnvironmentVariable.name)) kind=Kind::Required /> };
    let toggle = view! {
        <Toggle label="From a secret" id=format!("{}-from-secret", field_id(&row.to_string()))
            checked=from_secret op=format!("secret {}", row.dotted()) />
    };
    if from_secret {
        view! {
            {name}
            {toggle}
            <TextField label="Secret" path=secret.key(key!(SecretKeyRef.name)) kind=Kind::Required />
            <TextField label="Key in the secret" path=secret.key(key!(SecretKeyRef.key)) kind=Kind::Required />
        }
        .into_any()
    } else {
        view! {
            {name}
            {toggle}
            <TextField label="Value" path=row.key(key!(EnvironmentVariable.value)) kind=Kind::Verbatim />
        }
        .into_any()
    }
}

fn label_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Key" path=row.key(key!(NameValue.name)) kind=Kind::Required />
        <TextField label="Value" path=row.key(key!(NameValue.value)) kind=Kind::Required />
    }
    .into_any()
}

fn annotation_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Key" path=row.key(key!(NameValue.name)) kind=Kind::Required />
        <TextField label="Value" path=row.key(key!(NameValue.value)) kind=Kind::Verbatim />
    }
    .into_any()
}
