//! The document shell and the routes.

use crate::components::layout::Layout;
use crate::components::toast::{ToastRegion, provide_toasts};
use crate::pages::{
    admin::AdminPage, applications::ApplicationsPage, home::HomePage,
    new_training::NewTrainingPage, not_found::NotFoundPage, projects::ProjectsPage,
    training_detail::TrainingDetailPage, trainings::TrainingsPage,
};
use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    ParamSegment, StaticSegment,
    components::{Route, Router, Routes},
};

/// The path the server serves the generated stylesheet at.
pub const STYLESHEET_PATH: &str = "/pkg/tephra.css";

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body class="min-h-screen bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    provide_toasts();
    mark_hydrated();

    view! {
        <Stylesheet id="tephra" href=STYLESHEET_PATH />
        <Title formatter=|page: String| {
            if page.is_empty() { "Tephra".to_owned() } else { format!("{page} · Tephra") }
        } />
        <Router>
            <Layout>
                <Routes fallback=NotFoundPage>
                    <Route path=StaticSegment("") view=HomePage />
                    <Route path=StaticSegment("trainings") view=TrainingsPage />
                    <Route
                        path=(StaticSegment("trainings"), StaticSegment("new"))
                        view=NewTrainingPage
                    />
                    <Route
                        path=(StaticSegment("trainings"), ParamSegment("id"))
                        view=TrainingDetailPage
                    />
                    <Route path=StaticSegment("projects") view=ProjectsPage />
                    <Route path=StaticSegment("applications") view=ApplicationsPage />
                    <Route path=StaticSegment("admin") view=AdminPage />
                </Routes>
            </Layout>
            <ToastRegion />
        </Router>
    }
}

/// Sets `data-hydrated` on `<body>` once the WebAssembly app has taken over the server-rendered
/// page. Effects never run during server rendering, so the attribute proves hydration (the browser
/// tests wait for it), and `data-hydrated-at` says when it happened.
fn mark_hydrated() {
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
            // Milliseconds since navigation started: the time to interactive the benchmark reads.
            #[cfg(feature = "hydrate")]
            if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
                let _ =
                    body.set_attribute("data-hydrated-at", &format!("{:.1}", performance.now()));
            }
        }
    });
}
