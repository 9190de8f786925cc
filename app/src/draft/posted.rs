//! The form as an HTML form posts it without JavaScript.
//!
//! Every input is named after its field, `draft[<kind code>:<dotted path>]`, so the server
//! converts each posted text exactly as the field does in the browser. Beside them the page posts
//! the request it was rendered from (`draft[document]`: whatever no input shows rides along), one
//! `draft[off:<kind code>:<dotted path>]` per checkbox (an unchecked box posts nothing, so this is
//! how the server learns it was shown and left unchecked), and the choices that are not request
//! fields: `draft[distributed]`, `draft[generic]` and `draft[gpuMode]`.

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
const OFF: &str = "off:";

/// The name (inside `draft[...]`) an input of `kind` at `path` posts under.
pub fn input_name(kind: Kind, path: &Path) -> String {
    format!("{}:{}", kind.code(), path.dotted())
}

/// The name of the hidden input that says a checkbox was shown.
pub fn unchecked_name(kind: Kind, path: &Path) -> String {
    format!("{OFF}{}", input_name(kind, path))
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
        if let Some(mode) = posted.get(GPU_MODE) {
            draft.set_gpu_mode(GpuMode::parse(mode));
        }
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
        // Last: the page shows the distributed fields it was rendered with, checked or not.
        draft.set_distributed(posted.contains_key(DISTRIBUTED));
        draft.set_generic(posted.contains_key(GENERIC));
        draft
    }
}
