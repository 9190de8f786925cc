//! Members: who may do what where, as Run:ai's access rules. The table lists the rules on scopes
//! the administrator may see; the form gives a user, a group or an application a role on a
//! project or the whole system. The server refuses a role wider than the administrator's own,
//! naming the field.

use super::form::{CELL, FIELD, LABEL, Outcome, ROW, ServerForm};
use crate::api::{AddMember, RemoveMember};
use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS, ROW_DANGER_BUTTON_CLASS};
use crate::components::table::{Column, Table};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use tephra_core::model::org::Organisation;

/// The table and the projects a role can be given on, read again after each save.
pub(super) const MEMBERS_ID: &str = "org-members";
pub(super) const MEMBER_SCOPE_ID: &str = "member-scope";

/// The role the form offers first: it may run trainings in the project, nothing more.
const RESEARCHER: i64 = 4;

const COLUMNS: [Column; 5] = [
    Column::text("Who"),
    Column::text("Kind"),
    Column::text("Role"),
    Column::text("Where"),
    Column::text(""),
];

#[component]
pub(super) fn Members(org: Organisation) -> impl IntoView {
    let projects: Vec<String> = org.projects.iter().map(|p| p.name.clone()).collect();
    let roles = org.roles.clone();
    view! {
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="members-heading">
            <h2 id="members-heading" class="mb-1 font-semibold">"Members"</h2>
            <p class="mb-3 text-sm text-slate-600 dark:text-slate-400">
                "A role for a user (an e-mail or the identity provider's subject), a group (from the provider's groups claim) or an application, on one project or the whole system."
            </p>
            <div id=MEMBERS_ID><MemberTable org /></div>
            <Outcome id="member-remove-outcome" />
            <h3 class="mt-4 text-sm font-semibold">"Add a member"</h3>
            <ServerForm action=AddMember::PATH outcome="member-outcome" done="Added." testid="member-form" class="mt-2 grid gap-3 sm:grid-cols-5 sm:items-end">
                <label class=LABEL>
                    "Who"
                    <input id="member-subject" name="subject_id" required placeholder="ada@example.com" class=FIELD />
                </label>
                <label class=LABEL>
                    "Kind"
                    <select id="member-kind" name="subject_type" class=FIELD>
                        <option value="user">"User"</option>
                        <option value="group">"Group"</option>
                        <option value="app">"Application"</option>
                    </select>
                </label>
                <label class=LABEL>
                    "Role"
                    <select id="member-role" name="role_id" class=FIELD>
                        {roles.into_iter().map(|r| view! {
                            // Preselect a role that can do little harm, not the widest.
                            <option value=r.id.to_string() selected=r.id == RESEARCHER>{r.name}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>
                    "Where"
                    <select id=MEMBER_SCOPE_ID name="scope" class=FIELD>
                        {projects.into_iter().map(|name| view! {
                            <option value=name.clone()>{format!("Project {name}")}</option>
                        }).collect_view()}
                        <option value="system">"The whole system"</option>
                    </select>
                </label>
                <button type="submit" class=PRIMARY_BUTTON_CLASS>"Add member"</button>
            </ServerForm>
            <Outcome id="member-outcome" />
        </section>
    }
}

#[component]
fn MemberTable(org: Organisation) -> impl IntoView {
    view! {
        <Table testid="members-table" columns=&COLUMNS>
            {org.members.into_iter().map(|m| {
                let scope = if m.scope_type == "system" {
                    "the whole system".to_owned()
                } else {
                    format!("{} {}", m.scope_type, m.scope_name)
                };
                view! {
                    <tr class=ROW>
                        <td class=format!("{CELL} font-medium")>{m.subject_id.clone()}</td>
                        <td class=CELL>{m.subject_type}</td>
                        <td class=CELL>{m.role_name}</td>
                        <td class=CELL>{scope}</td>
                        <td class=CELL>
                            <ServerForm action=RemoveMember::PATH outcome="member-remove-outcome" done="Removed.">
                                <input type="hidden" name="id" value=m.id.to_string() />
                                <button type="submit" data-testid=format!("remove-member-{}", m.subject_id) class=ROW_DANGER_BUTTON_CLASS>
                                    "Remove"
                                </button>
                            </ServerForm>
                        </td>
                    </tr>
                }
            }).collect_view()}
        </Table>
    }
}
