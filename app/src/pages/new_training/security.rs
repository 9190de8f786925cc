//! Security: whose ids the container runs with and what it may do.

use super::{GRID_CLASS, Section};
use crate::components::form::{CheckboxField, SelectField, TextField};
use crate::draft::Kind;
use crate::draft::fields::security;
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::request::Security;

#[component]
pub fn SecuritySection() -> impl IntoView {
    let at = |key: String| security().key(key);
    view! {
        <Section title="Security">
            <div class=GRID_CLASS>
                <SelectField label="User and group IDs" path=at(key!(Security.uid_gid_source))
                    options=&[("", "Cluster default"), ("fromTheImage", "From the image"), ("custom", "Custom"), ("fromIdpToken", "From my identity")] />
                <TextField label="Run as UID" path=at(key!(Security.run_as_uid)) kind=Kind::Number />
                <TextField label="Run as GID" path=at(key!(Security.run_as_gid)) kind=Kind::Number />
                <TextField label="Supplemental groups" path=at(key!(Security.supplemental_groups))
                    placeholder="2,3,5" hint="Comma-separated group IDs." />
                <TextField label="Capabilities" path=at(key!(Security.capabilities)) kind=Kind::List
                    placeholder="SYS_PTRACE, NET_ADMIN" hint="Linux capabilities to add, comma-separated." />
                <SelectField label="Seccomp profile" path=at(key!(Security.seccomp_profile_type))
                    options=&[("", "Cluster default"), ("RuntimeDefault", "Runtime default"), ("Unconfined", "Unconfined"), ("Localhost", "Localhost")] />
                <SelectField label="Privilege escalation" path=at(key!(Security.allow_privilege_escalation)) kind=Kind::Choice
                    options=&[("", "Kubernetes default"), ("false", "Not allowed"), ("true", "Allowed")] />
                <CheckboxField label="Run as non-root" path=at(key!(Security.run_as_non_root)) />
                <CheckboxField label="Read-only root filesystem" path=at(key!(Security.read_only_root_filesystem)) />
                <CheckboxField label="Host IPC" path=at(key!(Security.host_ipc)) />
                <CheckboxField label="Host network" path=at(key!(Security.host_network)) />
            </div>
        </Section>
    }
}
