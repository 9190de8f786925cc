//! Applications: credentials for scripts. A user creates one with a role no wider than their
//! own, copies its secret (shown once), replaces the secret before it expires, and revokes the
//! application when it is no longer needed.

use crate::api::{
    CreateApplication, RevokeApplication, RotateApplicationSecret, list_applications, list_projects,
};
use crate::components::loaded::loaded;
use crate::components::style::CARD_CLASS;
use crate::components::style::ROW_DANGER_BUTTON_CLASS;
use crate::components::table::{Column, Table};
use crate::components::{error_panel::ErrorPanel, relative_time::Timestamp};
use crate::error::AppError;
use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;
use leptos_meta::Title;
use tephra_core::model::access::{ApplicationView, CreatedApplication};
use tephra_core::model::project::ProjectSummary;

const FIELD: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950";
const BUTTON: &str = "rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500";

#[component]
pub fn ApplicationsPage() -> impl IntoView {
    let both = Resource::new(
        || (),
        |_| async { Ok::<_, AppError>((list_applications().await?, list_projects().await?)) },
    );
    view! {
        <Title text="Applications" />
        {loaded(both, |(apps, projects)| view! { <Applications apps projects /> })}
    }
}

/// The form and the table: a new application's secret appears in place, and the table follows
/// every create and revoke.
#[island(lazy)]
fn Applications(apps: Vec<ApplicationView>, projects: Vec<ProjectSummary>) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let create = ServerAction::<CreateApplication>::new();
    let revoke = ServerAction::<RevokeApplication>::new();
    let rotate = ServerAction::<RotateApplicationSecret>::new();
    let apps = RwSignal::new(Ok::<_, AppError>(apps));
    Effect::new(move |_| {
        if create.version().get() + revoke.version().get() + rotate.version().get() > 0 {
            leptos::task::spawn_local(async move { apps.set(list_applications().await) });
        }
    });
    view! {
        <h1 class="mb-2 text-2xl font-semibold tracking-tight">"Applications"</h1>
        <p class="mb-6 max-w-3xl text-sm text-slate-600 dark:text-slate-400">
            "Credentials for scripts. "
            <code>"POST /api/v1/token"</code>
            " with an application's client id and secret answers an access token to send as "
            <code>"Authorization: Bearer …"</code>
            "; it lasts an hour. An application acts with the role you give it here, which can be no wider than yours, and never with more than you hold yourself: when you lose a role, it loses it too. "
            "Its secret expires; "
            <strong>"New secret"</strong>
            " replaces it, and the old secret and its tokens stop working at once."
        </p>
        <section class=format!("mb-6 {CARD_CLASS}")>
            <h2 class="mb-3 font-semibold">"New application"</h2>
            <ActionForm action=create attr:class="grid gap-3 sm:grid-cols-4 sm:items-end">
                <label class="text-sm font-medium">
                    "Name"
                    <input id="app-name" name="name" required maxlength="63" pattern="[a-z0-9]([\\-a-z0-9]*[a-z0-9])?" placeholder="nightly-eval" class=FIELD />
                </label>
                <label class="text-sm font-medium">
                    "Role"
                    <select id="app-role" name="role_id" class=FIELD>
                        <option value="4">"Researcher"</option>
                        <option value="5">"Viewer"</option>
                        <option value="3">"Project administrator"</option>
                    </select>
                </label>
                <label class="text-sm font-medium">
                    "In project"
                    <select id="app-project" name="project" class=FIELD>
                        <option value="">"No role yet"</option>
                        {projects
                            .into_iter()
                            .map(|p| view! { <option value=p.name.clone()>{p.name.clone()}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label class="text-sm font-medium">
                    "Secret expires in"
                    <ExpiryChoice id="app-expires" />
                </label>
                <button type="submit" class=BUTTON data-testid="create-app">"Create"</button>
            </ActionForm>
            {move || {
                create
                    .value()
                    .get()
                    .map(|outcome| match outcome {
                        Ok(created) => Either::Left(view! { <Secret created /> }),
                        Err(error) => Either::Right(view! { <ErrorPanel error /> }),
                    })
            }}
            {move || {
                rotate
                    .value()
                    .get()
                    .map(|outcome| match outcome {
                        Ok(created) => Either::Left(view! { <Secret created /> }),
                        Err(error) => Either::Right(view! { <ErrorPanel error /> }),
                    })
            }}
        </section>
        {move || match apps.get() {
            Ok(list) => Either::Left(view! { <AppTable list revoke rotate /> }),
            Err(error) => Either::Right(view! { <ErrorPanel error /> }),
        }}
    }
}

/// How long a new secret works; 90 days unless chosen otherwise.
#[component]
fn ExpiryChoice(id: &'static str) -> impl IntoView {
    view! {
        <select id=id name="expires_days" class=FIELD>
            <option value="30">"30 days"</option>
            <option value="90" selected>"90 days"</option>
            <option value="180">"180 days"</option>
            <option value="365">"365 days"</option>
        </select>
    }
}

/// The new application's credentials: the only time the secret is on screen.
#[component]
fn Secret(created: CreatedApplication) -> impl IntoView {
    view! {
        <div role="status" class="mt-4 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950" data-testid="new-secret">
            <p class="font-semibold">"Copy the secret now: it is not shown again."</p>
            <dl class="mt-2 grid grid-cols-[8rem_1fr] gap-1">
                <dt>"Client id"</dt>
                <dd class="font-mono">{created.application.client_id}</dd>
                <dt>"Client secret"</dt>
                <dd class="font-mono break-all">{created.client_secret}</dd>
            </dl>
        </div>
    }
}

const COLUMNS: [Column; 6] = [
    Column::text("Name (client id)"),
    Column::text("Roles"),
    Column::text("Created"),
    Column::text("Last used"),
    Column::text("Secret expires"),
    Column::text("Status"),
];

#[component]
fn AppTable(
    list: Vec<ApplicationView>,
    revoke: ServerAction<RevokeApplication>,
    rotate: ServerAction<RotateApplicationSecret>,
) -> impl IntoView {
    if list.is_empty() {
        return Either::Left(
            view! { <p class="text-sm text-slate-600 dark:text-slate-400">"No applications yet."</p> },
        );
    }
    Either::Right(view! {
        <Table testid="applications-table" columns=&COLUMNS>
            {list
                .into_iter()
                .map(|app| {
                    let id = app.id.clone();
                    let rotate_id = app.id.clone();
                    let name = app.name.clone();
                    let rotate_name = app.name.clone();
                    view! {
                        <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                            <td class="px-4 py-2 font-mono">{app.name}</td>
                            <td class="px-4 py-2">{app.roles.join(", ")}</td>
                            <td class="px-4 py-2">
                                <Timestamp rfc3339=app.created_at />" by "{app.created_by}
                            </td>
                            <td class="px-4 py-2">
                                {match app.last_used_at {
                                    Some(at) => Either::Left(view! { <Timestamp rfc3339=at /> }),
                                    None => Either::Right("never"),
                                }}
                            </td>
                            <td class="px-4 py-2">
                                {match app.expires_at {
                                    Some(at) if app.expired => EitherOf3::A(view! { "expired " <Timestamp rfc3339=at /> }),
                                    Some(at) => EitherOf3::B(view! { <Timestamp rfc3339=at /> }),
                                    None => EitherOf3::C("never"),
                                }}
                            </td>
                            <td class="px-4 py-2">
                                {if app.enabled {
                                    Either::Left(view! {
                                        <ActionForm action=rotate attr:class="mb-1">
                                            <input type="hidden" name="id" value=rotate_id />
                                            <input type="hidden" name="expires_days" value="90" />
                                            <button type="submit" data-testid=format!("rotate-{}", rotate_name) class=ROW_DANGER_BUTTON_CLASS>
                                                "New secret"
                                            </button>
                                        </ActionForm>
                                        <ActionForm action=revoke>
                                            <input type="hidden" name="id" value=id />
                                            <button type="submit" data-testid=format!("revoke-{}", name) class=ROW_DANGER_BUTTON_CLASS>
                                                "Revoke"
                                            </button>
                                        </ActionForm>
                                    })
                                } else {
                                    Either::Right("revoked")
                                }}
                            </td>
                        </tr>
                    }
                })
                .collect_view()}
        </Table>
    })
}
