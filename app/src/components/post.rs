//! Posting a form from the page as the browser would, URL-encoded, asking for a server
//! function's own answer (JSON) rather than the redirect a browser without scripts gets.

use crate::error::AppError;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{FormData, RequestInit, Response, UrlSearchParams};

/// Posts `fields` to `url`; the answer's text, or the error the server answered with.
pub async fn post(url: &str, fields: FormData) -> Result<String, AppError> {
    let sent = async {
        let fields: JsValue = fields.into();
        let body = UrlSearchParams::new_with_str_sequence_sequence(&fields)?;
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_body(&body);
        let headers = web_sys::Headers::new()?;
        headers.set("Accept", "application/json")?;
        init.set_headers(&headers);
        let window = web_sys::window().ok_or("no window")?;
        let response: Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
            .await?
            .dyn_into()?;
        let text = JsFuture::from(response.text()?).await?;
        Ok::<_, JsValue>((response.ok(), response.status(), text.as_string()))
    };
    match sent.await {
        Ok((true, _, text)) => Ok(text.unwrap_or_default()),
        Ok((false, status, text)) => Err(text
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| AppError::Transport(format!("the server answered {status}")))),
        Err(error) => Err(AppError::Transport(format!("{error:?}"))),
    }
}
