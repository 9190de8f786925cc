//! The structural checks of one value against its schema, as the apiserver makes them, stricter
//! where the module's doc says so.

use super::{AdditionalProperties, ListType, Schema, SchemaError};
use regex::Regex;
use serde_json::{Map, Number, Value};
use std::sync::LazyLock;

pub(super) fn check(schema: &Schema, value: &Value, path: &str, errors: &mut Vec<SchemaError>) {
    if value.is_null() {
        if !schema.nullable {
            push(
                errors,
                path,
                "null is not allowed here (kube-apiserver would drop the field or put its default there)",
            );
        }
        return;
    }
    // Stop after a type mismatch: the keywords below assume the right type, and their
    // errors would only repeat this one.
    if schema.int_or_string {
        if !(is_integer(value) || value.is_string()) {
            push(
                errors,
                path,
                format!("expected an integer or a string, got {}", describe(value)),
            );
            return;
        }
    } else if let Some(ty) = schema.ty
        && !ty.admits(value)
    {
        push(
            errors,
            path,
            format!("expected {}, got {}", ty.name(), describe(value)),
        );
        return;
    }
    if !schema.any_of.is_empty()
        && !schema.any_of.iter().any(|branch| {
            let mut scratch = Vec::new();
            check(branch, value, path, &mut scratch);
            scratch.is_empty()
        })
    {
        push(
            errors,
            path,
            format!("{} matches none of the anyOf alternatives", describe(value)),
        );
    }
    if let Some(allowed) = &schema.allowed
        && !allowed.contains(value)
    {
        let allowed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        push(
            errors,
            path,
            format!("{value} is not one of [{}]", allowed.join(", ")),
        );
    }
    match value {
        Value::Object(fields) => check_object(schema, fields, path, errors),
        Value::Array(items) => check_array(schema, items, path, errors),
        Value::String(text) => check_string(schema, text, path, errors),
        Value::Number(number) => check_number(schema, number, path, errors),
        Value::Bool(_) | Value::Null => {}
    }
}

fn check_object(
    schema: &Schema,
    fields: &Map<String, Value>,
    path: &str,
    errors: &mut Vec<SchemaError>,
) {
    for (key, value) in fields {
        let child = field_path(path, key);
        if let Some(property) = schema.properties.get(key) {
            check(property, value, &child, errors);
        } else if let Some(AdditionalProperties::Schema(values)) = &schema.additional_properties {
            check(values, value, &child, errors);
        } else if schema.preserve_unknown_fields
            || matches!(
                schema.additional_properties,
                Some(AdditionalProperties::Allowed(true))
            )
        {
            // The apiserver keeps this field as it is and does not check it.
        } else {
            push(
                errors,
                &child,
                "unknown field (kube-apiserver would silently prune it)",
            );
        }
    }
    for name in &schema.required {
        // The apiserver fills defaults before it checks `required`. A present null is
        // already reported above, so do not report it a second time here.
        let defaulted = schema
            .properties
            .get(name)
            .is_some_and(|p| p.default.is_some());
        if !fields.contains_key(name) && !defaulted {
            push(errors, &field_path(path, name), "required field is missing");
        }
    }
}

fn check_array(schema: &Schema, items: &[Value], path: &str, errors: &mut Vec<SchemaError>) {
    if let Some(min) = schema.min_items
        && items.len() < min
    {
        push(
            errors,
            path,
            format!("has {} item(s), fewer than minItems {min}", items.len()),
        );
    }
    if let Some(max) = schema.max_items
        && items.len() > max
    {
        push(
            errors,
            path,
            format!("has {} item(s), more than maxItems {max}", items.len()),
        );
    }
    if let Some(item_schema) = &schema.items {
        for (index, item) in items.iter().enumerate() {
            check(item_schema, item, &index_path(path, index), errors);
        }
    }
    // Uniqueness is checked only for lists declared as sets or maps, as the apiserver does.
    // The comparison is quadratic, but rendered lists are short.
    match schema.list_type {
        Some(ListType::Set) => {
            for (index, item) in items.iter().enumerate() {
                if let Some(first) = items[..index].iter().position(|other| other == item) {
                    push(
                        errors,
                        &index_path(path, index),
                        format!(
                            "duplicate of [{first}] in a list with x-kubernetes-list-type: set"
                        ),
                    );
                }
            }
        }
        Some(ListType::Map) => {
            let keys: Vec<Option<Vec<Option<Value>>>> = items
                .iter()
                .map(|item| map_list_key(schema, item))
                .collect();
            for (index, key) in keys.iter().enumerate() {
                let Some(key) = key else { continue };
                if let Some(first) = keys[..index]
                    .iter()
                    .position(|other| other.as_ref() == Some(key))
                {
                    let shown: Vec<String> = schema
                        .list_map_keys
                        .iter()
                        .zip(key)
                        .map(|(name, value)| match value {
                            Some(value) => format!("{name}={value}"),
                            None => format!("{name}=<unset>"),
                        })
                        .collect();
                    push(
                        errors,
                        &index_path(path, index),
                        format!(
                            "duplicate key ({}) of [{first}] in a list with x-kubernetes-list-type: map",
                            shown.join(", ")
                        ),
                    );
                }
            }
        }
        Some(ListType::Atomic) | None => {}
    }
}

/// The key of a map-list item. A missing key takes its default, because the apiserver
/// fills defaults first (for example, a container port's `protocol` defaults to TCP).
fn map_list_key(schema: &Schema, item: &Value) -> Option<Vec<Option<Value>>> {
    let fields = item.as_object()?;
    let item_schema = schema.items.as_deref();
    Some(
        schema
            .list_map_keys
            .iter()
            .map(|name| {
                fields.get(name).cloned().or_else(|| {
                    item_schema
                        .and_then(|s| s.properties.get(name))
                        .and_then(|p| p.default.clone())
                })
            })
            .collect(),
    )
}

fn check_string(schema: &Schema, text: &str, path: &str, errors: &mut Vec<SchemaError>) {
    // The apiserver counts characters (runes), not bytes.
    let length = text.chars().count();
    if let Some(min) = schema.min_length
        && length < min
    {
        push(
            errors,
            path,
            format!("is {length} character(s) long, shorter than minLength {min}"),
        );
    }
    if let Some(max) = schema.max_length
        && length > max
    {
        push(
            errors,
            path,
            format!("is {length} character(s) long, longer than maxLength {max}"),
        );
    }
    if let Some(pattern) = &schema.pattern
        && !pattern.is_match(text)
    {
        push(
            errors,
            path,
            format!("{text:?} does not match the pattern {}", pattern.as_str()),
        );
    }
    if schema.format.as_deref() == Some("date-time") && !DATE_TIME.is_match(text) {
        push(
            errors,
            path,
            format!("{text:?} is not an RFC 3339 date-time"),
        );
    }
    // Other string formats are ignored. The apiserver also ignores formats it does not know, and
    // this CRD uses no others.
}

static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
        .expect("the date-time pattern is a valid regex")
});

fn check_number(schema: &Schema, number: &Number, path: &str, errors: &mut Vec<SchemaError>) {
    let in_range = match schema.format.as_deref() {
        Some("int32") => number.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        Some("int64") => number.as_i64().is_some(),
        _ => true,
    };
    if !in_range {
        // `format` is present here, because `in_range` is true when it is absent.
        let format = schema.format.as_deref().unwrap_or_default();
        push(
            errors,
            path,
            format!("{number} is out of range for {format}"),
        );
    }
    // f64 holds every bound and value a CRD realistically uses. Precision is lost only beyond
    // 2^53.
    let Some(value) = number.as_f64() else { return };
    if let Some(min) = schema.minimum
        && value < min
    {
        push(
            errors,
            path,
            format!("{number} is less than the minimum {min}"),
        );
    }
    if let Some(max) = schema.maximum
        && value > max
    {
        push(
            errors,
            path,
            format!("{number} is greater than the maximum {max}"),
        );
    }
}

/// Only integer literals count. This is stricter than the apiserver, which also accepts `3.0`
/// (see the module docs).
pub(super) fn is_integer(value: &Value) -> bool {
    value.as_i64().is_some() || value.as_u64().is_some()
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if is_integer(value) => format!("integer {n}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("string {head:?}…")
        }
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

pub(super) fn push(errors: &mut Vec<SchemaError>, path: &str, message: impl Into<String>) {
    errors.push(SchemaError {
        path: if path.is_empty() {
            ".".to_owned()
        } else {
            path.to_owned()
        },
        message: message.into(),
    });
}

pub(super) fn field_path(parent: &str, key: &str) -> String {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        format!("{parent}.{key}")
    } else {
        // A JSON string is always a valid and unambiguous jq key.
        let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"));
        format!("{parent}[{quoted}]")
    }
}

fn index_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}
