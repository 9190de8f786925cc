//! The headers every answer carries so a browser holds Tephra's pages to what they are: never
//! framed by another site (clickjacking), never sniffed into another type, no full URL leaked to
//! other origins, scripts and connections only from Tephra itself, and, under https, never again
//! over plain http. Pages send their own content policy, naming the nonce of their inline scripts
//! (`app::csp`); every other answer gets it without one.

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// HSTS for a year, sent only when the public URL is https.
const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000";

/// `router` with the headers added to every answer that does not set its own.
pub fn with_security_headers<S>(router: Router<S>, https: bool) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let mut router = router.layer(SetResponseHeaderLayer::if_not_present(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&app::csp::content_security_policy(None))
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'")),
    ));
    let fixed: [(HeaderName, &'static str); 4] = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "same-origin"),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ];
    for (name, value) in fixed {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    if https {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(STRICT_TRANSPORT_SECURITY),
        ));
    }
    router
}
