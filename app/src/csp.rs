//! The Content-Security-Policy of every answer. A page's inline scripts (the hydration bootstrap,
//! the data of its resources) carry the nonce Leptos draws for that render, and the policy sent
//! with the page names it: no other inline script runs, so markup injected into a page cannot run
//! script. Scripts load from Tephra itself (the islands' `/pkg` chunks) and may compile
//! WebAssembly; styles may be inline (the islands set `style` attributes); the page may not be
//! framed by anyone.

/// The policy, naming `nonce` for a page's inline scripts; without one, no inline script runs.
pub fn content_security_policy(nonce: Option<&str>) -> String {
    let scripts = match nonce {
        Some(nonce) => format!("'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        None => "'self' 'wasm-unsafe-eval'".to_owned(),
    };
    format!(
        "default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
         frame-ancestors 'none'"
    )
}

/// Sends the policy with the page being rendered, naming its nonce (on the server only).
#[cfg(feature = "ssr")]
pub fn send_with_page() {
    use leptos::prelude::use_context;
    let Some(response) = use_context::<leptos_axum::ResponseOptions>() else {
        return;
    };
    let nonce = leptos::nonce::use_nonce();
    let policy = content_security_policy(nonce.as_deref());
    if let Ok(value) = http::HeaderValue::from_str(&policy) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_run_only_with_the_pages_nonce() {
        let page = content_security_policy(Some("abc"));
        assert!(page.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval';"));
        let scripts = page
            .split("script-src")
            .nth(1)
            .and_then(|s| s.split(';').next());
        assert!(
            scripts.is_some_and(|s| !s.contains("unsafe-inline")),
            "{page}"
        );
        let other = content_security_policy(None);
        assert!(other.contains("script-src 'self' 'wasm-unsafe-eval';"));
        assert!(other.contains("frame-ancestors 'none'"));
    }
}
