//! The table of a list page (applications, projects, the audit trail): headed columns over rows
//! that the page renders itself.

use leptos::prelude::*;

/// A column's heading.
pub struct Column {
    label: &'static str,
    numeric: bool,
}

impl Column {
    /// A column of words, aligned left.
    pub const fn text(label: &'static str) -> Self {
        Self {
            label,
            numeric: false,
        }
    }

    /// A column of numbers, aligned right so their digits line up.
    pub const fn number(label: &'static str) -> Self {
        Self {
            label,
            numeric: true,
        }
    }
}

/// The table `testid` with `columns`, whose rows are `children`. On a page of its own it sits in
/// a card; `in_card` it is already inside one, and its columns are narrower.
#[component]
pub fn Table(
    testid: &'static str,
    columns: &'static [Column],
    #[prop(optional)] in_card: bool,
    children: Children,
) -> impl IntoView {
    let (frame, padding) = if in_card {
        ("overflow-x-auto", "px-2 py-2")
    } else {
        (
            "overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900",
            "px-4 py-2",
        )
    };
    view! {
        <div class=frame>
            <table class="w-full text-left text-sm" data-testid=testid>
                <thead class="border-b border-slate-200 text-slate-500 dark:border-slate-800 dark:text-slate-400">
                    <tr>
                        {columns
                            .iter()
                            .map(|c| {
                                let align = if c.numeric { " text-right" } else { "" };
                                view! { <th scope="col" class=format!("{padding}{align} font-medium")>{c.label}</th> }
                            })
                            .collect_view()}
                    </tr>
                </thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}
