//! The form as an HTML form posts it without JavaScript.
//!
//! Every input is named after its field, `draft[<kind code>:<dotted path>]`, so the server
//! converts each posted text exactly as the field does in the browser. Beside them the page posts
//! the request it was rendered from (`draft[document]`: whatever no input shows rides along), one
//! `draft[off:<kind code>:<dotted path>]` per checkbox (an unchecked box posts nothing, so this is
//! how the server learns it was shown and left unchecked), and the choices that are not request
//! fields: `draft[distributed]`, `draft[generic]` and `draft[gpuMode]`.
//!
//! How the form is shown rides along under names that start with `~` (no field's name does):
//! the button pressed ([`OP`]), the fields edited so far ([`TOUCHED`]), whether a submit was
//! tried ([`SUBMITTED`]) or is asked for ([`SUBMIT`]), whether the preview is open
//! ([`PREVIEW`]), the volume kind chosen ([`VOLUME`]) and what the server said about the last
//! submit without scripts ([`SERVED`]).

use super::path::Path;
use super::text::Kind;
use super::{Draft, GpuMode};
use std::collections::BTreeMap;

/// The posted name of the request the page was rendered from.
pub const DOCUMENT: &str = "document";
/// The posted name of the distributed checkbox.
pub const DISTRIBUTED: &str = "distributed";
/// The posted name of the generic job checkbox.
pub const GENERIC: &str = "generic";
/// The posted name of the GPU style radio buttons.
pub const GPU_MODE: &str = "gpuMode";
/// The posted name of the operation a button asks for ([`super::op::Op`]).
pub const OP: &str = "~op";
/// The posted names of the fields edited so far, one per line.
pub const TOUCHED: &str = "~touched";
/// Posted once a submit has been tried: every field shows its error from then on.
pub const SUBMITTED: &str = "~submitted";
/// Posted by the submit button itself: submit the draft if it is valid.
pub const SUBMIT: &str = "~submit";
/// Posted while the preview is open.
pub const PREVIEW: &str = "~preview";
/// The posted name of the volume kind chooser (its values are `Add` operations).
pub const VOLUME: &str = "~volume";
/// The posted name of the server's refusal of the last submit without scripts, as JSON.
pub const SERVED: &str = "~served";
const OFF: &str = "off:";

/// The name (inside `draft[...]`) an input of `kind` at `path` posts under.
pub fn input_name(kind: Kind, path: &Path) -> String {
    format!("{}:{}", kind.code(), path.dotted())
}

/// The name of the hidden input that says a checkbox was shown.
pub fn unchecked_name(kind: Kind, path: &Path) -> String {
    format!("{OFF}{}", input_name(kind, path))
}

/// The field a posted name (`t:spec.image`, or `draft[t:spec.image]` as the page names it)
/// belongs to.
pub fn path_of(name: &str) -> Option<Path> {
    let inner = name
        .strip_prefix("draft[")
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    field(inner.strip_prefix(OFF).unwrap_or(inner)).map(|(_, path)| path)
}

fn field(name: &str) -> Option<(Kind, Path)> {
    let (code, path) = name.split_once(':')?;
    let mut chars = code.chars();
    let kind = Kind::from_code(chars.next()?)?;
    chars
        .next()
        .is_none()
        .then(|| (kind, Path::from_dotted(path)))
}

impl Draft {
    /// The draft a posted form describes. Names that are no field are ignored.
    pub fn from_posted(posted: &BTreeMap<String, String>) -> Draft {
        let mut draft: Draft = posted
            .get(DOCUMENT)
            .and_then(|d| serde_json::from_str(d).ok())
            .unwrap_or_default();
        for name in posted.keys() {
            if let Some((kind, path)) = name.strip_prefix(OFF).and_then(field) {
                draft.set(&path, kind.unchecked());
            }
        }
        for (name, text) in posted {
            if let Some((kind, path)) = field(name) {
                draft.set_text(&path, kind, text);
            }
        }
        // After the fields: a style chosen since the page was drawn drops the fields of the
        // style it replaces, which were posted as they were shown.
        if let Some(mode) = posted.get(GPU_MODE) {
            draft.set_gpu_mode(GpuMode::parse(mode));
        }
        // Last: the page shows the distributed fields it was rendered with, checked or not.
        draft.set_distributed(posted.contains_key(DISTRIBUTED));
        draft.set_generic(posted.contains_key(GENERIC));
        draft
    }
}
