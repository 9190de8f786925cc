//! Class strings that several pages share, so a card or a button looks the same everywhere.

/// A white card with a border: a section of a page.
pub const CARD_CLASS: &str =
    "rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";

/// A button's shape without its colors.
pub const BUTTON_CLASS: &str = "inline-flex items-center rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500";
/// The one action a page is for.
pub const PRIMARY_BUTTON_CLASS: &str = "inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50";
/// Any other action.
pub const SECONDARY_BUTTON_CLASS: &str = "inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800";
/// An action that destroys something.
pub const DANGER_BUTTON_CLASS: &str = "inline-flex items-center rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-500 disabled:cursor-not-allowed disabled:opacity-50";

/// A small destructive button in a table row (Delete, Remove, Revoke).
pub const ROW_DANGER_BUTTON_CLASS: &str = "rounded-md border border-red-300 px-2 py-1 text-xs font-semibold text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950";

/// A link in running text or a table cell.
pub const LINK_CLASS: &str = "text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300";
