//! The document shell and the routes.

use crate::components::layout::Layout;
use crate::pages::{
    admin::AdminPage, applications::ApplicationsPage, gpu_use::GpuUsePage, home::HomePage,
    new_training::NewTrainingPage, not_found::NotFoundPage, organisation::OrganisationPage,
    project::ProjectPage, projects::ProjectsPage, training_detail::TrainingDetailPage,
    trainings::TrainingsPage,
};
use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    ParamSegment, SsrMode, StaticSegment,
    components::{Route, Router, Routes},
};

/// The path the server serves the generated stylesheet at.
pub const STYLESHEET_PATH: &str = "/pkg/tephra.css";

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::csp::send_with_page();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <AutoReload options=options.clone() />
                <HydrationScripts options islands=true />
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

    view! {
        <Stylesheet id="tephra" href=STYLESHEET_PATH />
        <Title formatter=|page: String| {
            if page.is_empty() { "Tephra".to_owned() } else { format!("{page} · Tephra") }
        } />
        <Router>
            <Layout>
                // Async: every page is sent whole, once its data is loaded, so it reads the same
                // with or without its islands' script (out-of-order streaming needs a script to
                // put each loaded part in place).
                <Routes fallback=NotFoundPage>
                    <Route ssr=SsrMode::Async path=StaticSegment("") view=HomePage />
                    <Route ssr=SsrMode::Async path=StaticSegment("trainings") view=TrainingsPage />
                    <Route ssr=SsrMode::Async path=(StaticSegment("trainings"), StaticSegment("new"))
                        view=NewTrainingPage
                    />
                    <Route ssr=SsrMode::Async path=(StaticSegment("trainings"), ParamSegment("id"))
                        view=TrainingDetailPage
                    />
                    <Route ssr=SsrMode::Async path=(StaticSegment("trainings"), ParamSegment("id"), StaticSegment("gpu-use"))
                        view=GpuUsePage
                    />
                    <Route ssr=SsrMode::Async path=StaticSegment("projects") view=ProjectsPage />
                    <Route ssr=SsrMode::Async path=(StaticSegment("projects"), ParamSegment("name"))
                        view=ProjectPage
                    />
                    <Route ssr=SsrMode::Async path=StaticSegment("organisation") view=OrganisationPage />
                    <Route ssr=SsrMode::Async path=StaticSegment("applications") view=ApplicationsPage />
                    <Route ssr=SsrMode::Async path=StaticSegment("admin") view=AdminPage />
                </Routes>
            </Layout>
        </Router>
    }
}
