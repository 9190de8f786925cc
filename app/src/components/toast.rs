//! Short messages about what just happened (submitted, suspended, failed). They are announced to
//! screen readers through a live region, say in words whether they are good or bad news, and
//! leave on their own after a while or when closed.
//!
//! The region is an island of its own in the page frame. Islands do not share Leptos context, but
//! they share the WebAssembly instance, so the region registers its toasts in a process-wide cell
//! that every other island reaches with [`use_toasts`]. A toast meant for the next page (an action
//! that navigates) waits in the tab's session storage until that page's region shows it.

use leptos::prelude::*;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Success,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Toast {
    id: u64,
    tone: Tone,
    text: String,
}

/// The page's toasts; take it with [`use_toasts`].
#[derive(Clone, Copy)]
pub struct Toasts {
    list: RwSignal<Vec<Toast>>,
    next: RwSignal<u64>,
}

const SHOWN_FOR: Duration = Duration::from_secs(8);

impl Toasts {
    pub fn success(&self, text: impl Into<String>) {
        self.push(Tone::Success, text.into());
    }

    pub fn error(&self, text: impl Into<String>) {
        self.push(Tone::Error, text.into());
    }

    fn push(&self, tone: Tone, text: String) {
        let id = self.next.get_untracked();
        self.next.set(id + 1);
        self.list.update(|l| l.push(Toast { id, tone, text }));
        let list = self.list;
        set_timeout(move || list.update(|l| l.retain(|t| t.id != id)), SHOWN_FOR);
    }

    fn dismiss(&self, id: u64) {
        self.list.update(|l| l.retain(|t| t.id != id));
    }
}

impl Toasts {
    fn new() -> Self {
        Toasts {
            list: RwSignal::new(Vec::new()),
            next: RwSignal::new(0),
        }
    }
}

#[cfg(feature = "hydrate")]
static REGION: std::sync::OnceLock<Toasts> = std::sync::OnceLock::new();

/// The page's toasts, the same for every island of the page. On the server nothing is ever shown,
/// so each caller gets an empty list of its own.
pub fn use_toasts() -> Toasts {
    #[cfg(feature = "hydrate")]
    {
        // Owned by a root that lives as long as the page, not by whichever island asked first.
        *REGION.get_or_init(|| {
            let root = Owner::new_root(None);
            let toasts = root.with(Toasts::new);
            std::mem::forget(root);
            toasts
        })
    }
    #[cfg(not(feature = "hydrate"))]
    Toasts::new()
}

/// The session-storage key of the toast the next page shows.
#[cfg(feature = "hydrate")]
const NEXT_PAGE_KEY: &str = "tephra.toast";

impl Toasts {
    /// Shows `text` on the page the browser goes to next (the current page is about to go).
    pub fn success_on_next_page(&self, text: &str) {
        #[cfg(feature = "hydrate")]
        if let Some(storage) = web_sys::window().and_then(|w| w.session_storage().ok().flatten()) {
            let _ = storage.set_item(NEXT_PAGE_KEY, text);
            return;
        }
        self.success(text);
    }

    /// Shows what the previous page left for this one.
    fn show_left_over(&self) {
        #[cfg(feature = "hydrate")]
        if let Some(storage) = web_sys::window().and_then(|w| w.session_storage().ok().flatten())
            && let Ok(Some(text)) = storage.get_item(NEXT_PAGE_KEY)
        {
            let _ = storage.remove_item(NEXT_PAGE_KEY);
            self.success(text);
        }
    }
}

/// Where toasts appear: bottom right, above the content.
#[island]
pub fn ToastRegion() -> impl IntoView {
    crate::components::hydrated::island_ready();
    let toasts = use_toasts();
    Effect::new(move |_| toasts.show_left_over());
    view! {
        <div
            role="status"
            aria-live="polite"
            class="pointer-events-none fixed bottom-4 right-4 z-50 flex w-96 max-w-full flex-col gap-2"
            data-testid="toasts"
        >
            <For each=move || toasts.list.get() key=|t| t.id let:toast>
                {
                    let (class, label) = match toast.tone {
                        Tone::Success => (
                            "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-100",
                            "Done",
                        ),
                        Tone::Error => (
                            "border-red-300 bg-red-50 text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-100",
                            "Failed",
                        ),
                    };
                    let id = toast.id;
                    view! {
                        <div
                            class=format!(
                                "pointer-events-auto flex items-start gap-3 rounded-lg border p-3 text-sm shadow-md {class}",
                            )
                            data-tone=match toast.tone {
                                Tone::Success => "success",
                                Tone::Error => "error",
                            }
                        >
                            <p class="flex-1">
                                <span class="font-semibold">{label} ": "</span>
                                {toast.text}
                            </p>
                            <button
                                type="button"
                                class="rounded-md px-1 font-semibold focus-visible:outline-2 focus-visible:outline-indigo-500"
                                aria-label="Dismiss"
                                on:click=move |_| toasts.dismiss(id)
                            >
                                "×"
                            </button>
                        </div>
                    }
                }
            </For>
        </div>
    }
}
