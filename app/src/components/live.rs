//! The workload event stream (`GET /api/v1/workloads/events`, Server-Sent Events) in the browser.
//! A page subscribes while it is shown; the browser's `EventSource` reconnects on its own, and the
//! server opens every (re)connection with a resync or the workload's current state, so a page
//! that refetches on resync never misses a change.

use serde::de::DeserializeOwned;

/// What the stream says. `E` is how much of a change the page reads: the full
/// [`tephra_core::model::workload::WorkloadEvent`], or a part of it such as
/// [`tephra_core::model::workload::RowChange`] (a page decodes only what it shows, which keeps the
/// decoders of the rest out of its WebAssembly).
#[derive(Debug, Clone)]
pub enum LiveMessage<E> {
    /// A workload changed (or appeared, or was deleted).
    Workload(Box<E>),
    /// Changes may have been missed (a new connection, or this client fell behind): reload.
    Resync,
}

/// Subscribes to the stream at `url` until the calling component is disposed. Does nothing
/// during server rendering.
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn subscribe<E: DeserializeOwned + 'static>(
    url: String,
    on_message: impl Fn(LiveMessage<E>) + 'static,
) {
    #[cfg(feature = "hydrate")]
    browser::subscribe(url, on_message);
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::LiveMessage;
    use send_wrapper::SendWrapper;
    use serde::de::DeserializeOwned;
    use std::rc::Rc;
    use tephra_core::model::event_stream::StreamEvent;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{EventSource, MessageEvent, PageTransitionEvent};

    pub fn subscribe<E: DeserializeOwned + 'static>(
        url: String,
        on_message: impl Fn(LiveMessage<E>) + 'static,
    ) {
        let Ok(source) = EventSource::new(&url) else {
            leptos::logging::warn!("cannot open the event stream at {url}");
            return;
        };
        let on_message = Rc::new(on_message);
        let workload = {
            let on_message = on_message.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
                let Some(data) = event.data().as_string() else {
                    return;
                };
                match serde_json::from_str(&data) {
                    Ok(event) => on_message(LiveMessage::Workload(Box::new(event))),
                    Err(error) => leptos::logging::warn!("unreadable workload event: {error}"),
                }
            })
        };
        let resync = Closure::<dyn Fn(MessageEvent)>::new(move |_: MessageEvent| {
            on_message(LiveMessage::Resync)
        });
        let _ = source.add_event_listener_with_callback(
            StreamEvent::Workload.name(),
            workload.as_ref().unchecked_ref(),
        );
        let _ = source.add_event_listener_with_callback(
            StreamEvent::Resync.name(),
            resync.as_ref().unchecked_ref(),
        );
        // A page the browser keeps for "back" (the back/forward cache) would keep its stream, and
        // HTTP/1.1 allows only six connections per host: close it when the page is hidden, and
        // load the page afresh if it is ever shown again from that cache.
        let hide = {
            let source = source.clone();
            Closure::<dyn Fn()>::new(move || source.close())
        };
        let show = Closure::<dyn Fn(PageTransitionEvent)>::new(|event: PageTransitionEvent| {
            if event.persisted()
                && let Some(window) = web_sys::window()
            {
                let _ = window.location().reload();
            }
        });
        let window = web_sys::window();
        if let Some(window) = &window {
            let _ =
                window.add_event_listener_with_callback("pagehide", hide.as_ref().unchecked_ref());
            let _ =
                window.add_event_listener_with_callback("pageshow", show.as_ref().unchecked_ref());
        }
        // The closures must live as long as the source; all go when the component does.
        let held = SendWrapper::new((source, workload, resync, hide, show, window));
        leptos::prelude::on_cleanup(move || {
            let (source, _, _, hide, show, window) = held.take();
            source.close();
            if let Some(window) = window {
                let _ = window
                    .remove_event_listener_with_callback("pagehide", hide.as_ref().unchecked_ref());
                let _ = window
                    .remove_event_listener_with_callback("pageshow", show.as_ref().unchecked_ref());
            }
        });
    }
}
