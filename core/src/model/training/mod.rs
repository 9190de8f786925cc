//! Training requests: the Run:ai-shaped types, their validation, and parsing JSON into them with
//! every problem reported by path. Shared by the server and the browser form.

#[macro_use]
mod wire;

pub mod checked;
pub mod distributed;
pub mod generic;
pub mod parse;
pub mod pods;
pub mod request;
pub mod validate;
pub mod values;

/// Longest name a training may have: pod names are `<name>-<task>-<index>` and must fit in a
/// 63-character DNS label (the longest task name is 9 characters, indices up to 4 digits).
pub const NAME_MAX: usize = 48;
/// With `useGivenNameAsPrefix`, the random suffix (`-` and 5 characters) must fit as well.
pub const PREFIX_MAX: usize = NAME_MAX - 6;
