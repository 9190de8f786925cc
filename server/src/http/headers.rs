//! The headers every answer carries so a browser holds Tephra's pages to what they are: never
//! framed by another site (clickjacking), never sniffed into another type, no full URL leaked to
//! other origins, scripts and connections only from Tephra itself, and, under https, never again
//! over plain http.

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// The pages' content policy. The islands hydrate from Tephra's own `/pkg` with an inline
/// bootstrap script and compile WebAssembly, hence `'unsafe-inline'` and `'wasm-unsafe-eval'` for
/// scripts; everything else (styles, images, the event stream, server functions) is Tephra's own.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; \
     script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// HSTS for a year, sent only when the public URL is https.
const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000";

/// `router` with the headers added to every answer that does not set its own.
pub fn with_security_headers<S>(router: Router<S>, https: bool) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let fixed: [(HeaderName, &'static str); 5] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "same-origin"),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ];
    let mut router = router;
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
