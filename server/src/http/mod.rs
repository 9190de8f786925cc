//! HTTP: one router for the pages, server functions, probes and static files. Tests build the
//! same router through [`crate::Application`].

pub mod api;
pub mod health;
pub mod server_fn_status;
pub mod stylesheet;

use crate::control::Control;
use app::app::{App, STYLESHEET_PATH, shell};
use app::backend::SharedBackend;
use axum::Router;
use axum::extract::FromRef;
use axum::routing::get;
use leptos::prelude::{LeptosOptions, provide_context};
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub backend: SharedBackend,
    /// The database, the reconciler's trigger and the status broadcast.
    pub control: Control,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

pub fn build_router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let backend = state.backend.clone();
    let context = move || provide_context(backend.clone());
    let options = state.leptos_options.clone();

    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route(STYLESHEET_PATH, get(stylesheet::serve))
        .merge(api::router())
        .leptos_routes_with_context(&state, routes, context.clone(), move || {
            shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(context, shell))
        .layer(axum::middleware::from_fn(server_fn_status::restore))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
