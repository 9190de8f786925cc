//! HTTP: one router for the pages, server functions, probes and static files. Tests build the
//! same router through [`crate::Application`].

pub mod api;
pub mod connection;
pub mod cross_site;
pub mod error;
pub mod exposed;
mod headers;
pub mod health;
pub mod limits;
mod nul;
pub mod probes;
pub mod server_fn_status;
pub mod sign_in;
pub mod sse;
pub mod streams;
pub mod stylesheet;

use crate::auth::sessions::SessionSettings;
use crate::service::Services;
use app::app::{App, STYLESHEET_PATH, shell};
use app::backend::SharedBackend;
use axum::Router;
use axum::extract::FromRef;
use axum::routing::get;
use leptos::prelude::{LeptosOptions, provide_context};
use leptos_axum::{AxumRouteListing, LeptosRoutes, generate_route_list};
use std::sync::{Arc, LazyLock};
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::request_id::{
    MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;

/// The largest request body any route reads (axum's default for the REST API's extractors).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// What handlers get: what only HTTP has (the site, sessions, limits, streams, the key of exposed
/// URLs' passes) and the one [`Services`] that REST handlers and server functions both call.
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    /// Workloads, the organisation, access and what may be observed, and who sent a request.
    pub services: Services,
    /// Which origins and hosts may make requests (`cross_site`).
    pub site: cross_site::SitePolicy,
    pub sessions: SessionSettings,
    /// Signs the passes of exposed URLs' hosts (`exposed`).
    pub exposed_key: tephra_core::domain::exposed::PassKey,
    /// Requests per minute and client address on sign-in, tokens and writes.
    pub limits: limits::RateLimiter,
    /// Open event and log streams per principal, and how long they may run.
    pub streams: streams::Streams,
}

impl FromRef<AppState> for Services {
    fn from_ref(state: &AppState) -> Self {
        state.services.clone()
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// The app's routes, listed once per process. Listing them renders the app with resource loading
/// suppressed through a process-wide flag (leptos_server's `SuppressResourceLoad`), so a page
/// rendering in another server of the same process at that moment would wait forever for its
/// data (leptos issue 4773); tests start many servers in one process.
static ROUTES: LazyLock<Vec<AxumRouteListing>> = LazyLock::new(|| generate_route_list(App));

pub fn build_router(state: AppState) -> Router {
    let routes = ROUTES.clone();
    // Server functions reach the same services through the UI's port.
    let backend: SharedBackend = Arc::new(state.services.clone());
    let context = move || provide_context(backend.clone());
    let options = state.leptos_options.clone();
    let site = state.site.clone();
    let sessions = state.sessions.layer();
    let https = state.sessions.secure;
    let metrics = Arc::clone(state.services.metrics());

    let router = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route(STYLESHEET_PATH, get(stylesheet::serve))
        .merge(api::router())
        .merge(sign_in::router())
        .merge(exposed::router())
        .leptos_routes_with_context(&state, routes, context.clone(), move || {
            shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(context, shell))
        .layer(axum::middleware::from_fn(server_fn_status::restore))
        // Inside the router, so each request is counted under its route's pattern.
        .layer(axum::middleware::from_fn_with_state(
            metrics,
            crate::metrics::track,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            sign_in::require_sign_in,
        ))
        .layer(sessions)
        .layer(axum::middleware::from_fn(nul::refuse_nul))
        .layer(axum::middleware::from_fn_with_state(
            state.limits.clone(),
            limits::limit,
        ))
        // Server functions read their bodies themselves: the same limit as the REST API's.
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            site,
            cross_site::guard,
        ))
        .layer(CompressionLayer::new());
    headers::with_security_headers(router, https)
        // Every request's log lines carry its id, which the answer also names (`x-request-id`;
        // one the client sent is kept), so a user's report can be found in the logs.
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .with_state(state)
}

/// The span of one request: method, path and the request's id.
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = request
        .extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or_default();
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        request_id = %id,
    )
}
