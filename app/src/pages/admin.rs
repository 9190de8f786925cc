//! Administration: the state of this Tephra server.

use crate::api::get_system_info;
use crate::components::loaded::loaded;
use crate::components::relative_time::Timestamp;
use crate::components::style::CARD_CLASS;
use crate::pages::audit::AuditTrail;
use leptos::prelude::*;
use leptos_meta::Title;
use tephra_core::model::system::SystemInfo;

#[component]
pub fn AdminPage() -> impl IntoView {
    let info = Resource::new(|| (), |_| get_system_info());
    view! {
        <Title text="Admin" />
        <h1 class="mb-6 text-2xl font-semibold tracking-tight">"Admin"</h1>
        {loaded(info, |info| view! { <System info /> })}
        <AuditTrail />
    }
}

#[component]
fn System(info: SystemInfo) -> impl IntoView {
    view! {
        <div class="grid gap-6 md:grid-cols-2">
            <section class=CARD_CLASS>
                <h2 class="mb-3 font-semibold">"Server"</h2>
                <dl class="grid grid-cols-2 gap-2 text-sm">
                    <dt class="text-slate-500 dark:text-slate-400">"Version"</dt>
                    <dd>{info.version}</dd>
                    <dt class="text-slate-500 dark:text-slate-400">"Database"</dt>
                    <dd>{info.database}</dd>
                    <dt class="text-slate-500 dark:text-slate-400">"Started"</dt>
                    <dd><Timestamp rfc3339=info.started_at /></dd>
                </dl>
            </section>
            <section class=CARD_CLASS>
                <h2 class="mb-3 font-semibold">"Users"</h2>
                <ul class="divide-y divide-slate-100 text-sm dark:divide-slate-800">
                    {info
                        .users
                        .into_iter()
                        .map(|u| {
                            view! {
                                <li class="flex justify-between gap-4 py-2">
                                    <span>
                                        <span class="font-medium">{u.display_name}</span>
                                        {u.email.map(|e| view! { <span class="ml-2 text-slate-600 dark:text-slate-400">{e}</span> })}
                                    </span>
                                    <span class="text-slate-600 dark:text-slate-400">
                                        "last seen " <Timestamp rfc3339=u.last_seen_at />
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </section>
        </div>
    }
}
