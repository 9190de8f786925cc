//! A pod's log in the browser (`GET …/pods/{pod}/logs` as Server-Sent Events): each `line` as it
//! comes, then `end` or `failure`. The stream is closed at its end, and on any error, so the
//! browser never reconnects on its own: a reconnection would send the newest lines again.

/// What the log stream says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogMessage {
    Line(String),
    /// The log ended (the container stopped, or the lines asked for were sent).
    End,
    /// It broke off, or could not be opened; the text says what is known.
    Failure(String),
}

/// Reads the log at `url` until the calling component is disposed. Does nothing during server
/// rendering.
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn read(url: String, on_message: impl Fn(LogMessage) + 'static) {
    #[cfg(feature = "hydrate")]
    browser::read(url, on_message);
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::LogMessage;
    use send_wrapper::SendWrapper;
    use std::rc::Rc;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{Event, EventSource, MessageEvent};

    pub fn read(url: String, on_message: impl Fn(LogMessage) + 'static) {
        let Ok(source) = EventSource::new(&url) else {
            on_message(LogMessage::Failure(
                "the browser could not open the log".into(),
            ));
            return;
        };
        let on_message = Rc::new(on_message);
        let text = |event: &MessageEvent| event.data().as_string().unwrap_or_default();
        let line = {
            let on_message = on_message.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
                on_message(LogMessage::Line(text(&e)))
            })
        };
        let end = {
            let (on_message, source) = (on_message.clone(), source.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |_: MessageEvent| {
                source.close();
                on_message(LogMessage::End)
            })
        };
        let failure = {
            let (on_message, source) = (on_message.clone(), source.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
                source.close();
                on_message(LogMessage::Failure(text(&e)))
            })
        };
        // An answer that is not a stream (the pod is gone, the container has not started) or a
        // dropped connection: EventSource tells nothing more than that.
        let broken = {
            let source = source.clone();
            Closure::<dyn Fn(Event)>::new(move |_: Event| {
                source.close();
                on_message(LogMessage::Failure(
                    "the log could not be read: the pod or container may not have started, or \
                     the connection dropped"
                        .into(),
                ))
            })
        };
        for (name, callback) in [
            ("line", line.as_ref()),
            ("end", end.as_ref()),
            ("failure", failure.as_ref()),
        ] {
            let _ = source.add_event_listener_with_callback(name, callback.unchecked_ref());
        }
        source.set_onerror(Some(broken.as_ref().unchecked_ref()));
        // The closures must live as long as the source; all go when the component does.
        let held = SendWrapper::new((source, line, end, failure, broken));
        leptos::prelude::on_cleanup(move || {
            let (source, ..) = held.take();
            source.set_onerror(None);
            source.close();
        });
    }
}
