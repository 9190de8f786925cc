//! Writing one value into the request document at a path: the objects on the way are made, and
//! a removal takes the objects it leaves empty with it, so a cleared section is absent.

use super::path;
use serde_json::{Map, Value};

pub(super) fn set_in(node: &mut Value, steps: &[path::Step], value: Option<Value>) {
    let Some((step, rest)) = steps.split_first() else {
        if let Some(value) = value {
            *node = value;
        }
        return;
    };
    match step {
        path::Step::Key(key) => {
            if !node.is_object() {
                if value.is_none() {
                    return;
                }
                *node = Value::Object(Map::new());
            }
            let Value::Object(map) = node else { return };
            if rest.is_empty() {
                match value {
                    Some(value) => {
                        map.insert(key.clone(), value);
                    }
                    None => {
                        map.remove(key);
                    }
                }
                return;
            }
            let removing = value.is_none();
            // Nothing to remove; and a row is never made here, so neither is its list.
            let into_row = matches!(rest.first(), Some(path::Step::Index(_)));
            if !map.contains_key(key) && (removing || into_row) {
                return;
            }
            let child = map.entry(key.clone()).or_insert(Value::Null);
            set_in(child, rest, value);
            // An object emptied by a removal goes too, so a cleared section is absent rather than
            // `{}`; rows are kept by the array step below.
            if removing && matches!(child, Value::Object(m) if m.is_empty()) {
                map.remove(key);
            }
        }
        path::Step::Index(i) => {
            let Some(child) = node.as_array_mut().and_then(|items| items.get_mut(*i)) else {
                return;
            };
            if rest.is_empty() {
                if let Some(value) = value {
                    *child = value;
                }
                return;
            }
            // A row keeps its place even when its last field is cleared.
            if value.is_none() && !child.is_object() {
                return;
            }
            set_in(child, rest, value);
            if child.is_null() {
                *child = Value::Object(Map::new());
            }
        }
    }
}
