//! Members: who may do what where, as Run:ai's access rules. The table lists the rules on scopes
//! the administrator may see; the form gives a user, a group or an application a role on a
//! project or the whole system. The server refuses a role wider than the administrator's own,
//! naming the field.

use super::Refusal;
use super::form::{CELL, FIELD, LABEL, ROW, outcome};
use crate::api::{AddMember, RemoveMember};
use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS, ROW_DANGER_BUTTON_CLASS};
use crate::components::table::{Column, Table};
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::org::Organisation;

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
pub(super) fn Members(
    org: RwSignal<Result<Organisation, AppError>>,
    add: ServerAction<AddMember>,
    remove: ServerAction<RemoveMember>,
) -> impl IntoView {
    view! {
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="members-heading">
            <h2 id="members-heading" class="mb-1 font-semibold">"Members"</h2>
            <p class="mb-3 text-sm text-slate-600 dark:text-slate-400">
                "A role for a user (an e-mail or the identity provider's subject), a group (from the provider's groups claim) or an application, on one project or the whole system."
            </p>
            {move || match org.get() {
                Ok(org) => Either::Left(view! { <MemberTable org remove /> }),
                Err(error) => Either::Right(view! { <Refusal error /> }),
            }}
            {outcome(move || remove.value().get(), "Removed.")}
            <h3 class="mt-4 text-sm font-semibold">"Add a member"</h3>
            <ActionForm action=add attr:class="mt-2 grid gap-3 sm:grid-cols-5 sm:items-end" attr:data-testid="member-form">
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
                        {move || org.with(|o| {
                            o.as_ref().map(|o| o.roles.clone()).unwrap_or_default()
                        }).into_iter().map(|r| view! {
                            // Preselect a role that can do little harm, not the widest.
                            <option value=r.id.to_string() selected=r.id == RESEARCHER>{r.name}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>
                    "Where"
                    <select id="member-scope" name="scope" class=FIELD>
                        {move || org.with(|o| {
                            o.as_ref().map(|o| o.projects.iter().map(|p| p.name.clone()).collect::<Vec<_>>()).unwrap_or_default()
                        }).into_iter().map(|name| view! {
                            <option value=name.clone()>{format!("Project {name}")}</option>
                        }).collect_view()}
                        <option value="system">"The whole system"</option>
                    </select>
                </label>
                <button type="submit" class=PRIMARY_BUTTON_CLASS>"Add member"</button>
            </ActionForm>
            {outcome(move || add.value().get(), "Added.")}
        </section>
    }
}

#[component]
fn MemberTable(org: Organisation, remove: ServerAction<RemoveMember>) -> impl IntoView {
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
                            <ActionForm action=remove>
                                <input type="hidden" name="id" value=m.id.to_string() />
                                <button type="submit" data-testid=format!("remove-member-{}", m.subject_id) class=ROW_DANGER_BUTTON_CLASS>
                                    "Remove"
                                </button>
                            </ActionForm>
                        </td>
                    </tr>
                }
            }).collect_view()}
        </Table>
    }
}
