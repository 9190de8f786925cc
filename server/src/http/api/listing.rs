//! Run:ai's list parameters for org-unit lists: `filterBy` (repeatable, `field<op>value` with
//! `==`, `!=`, `<=`, `>=`, `=@` contains, `!@` does not contain, `=^` starts with, `=$` ends
//! with), `sortBy`, `sortOrder` (`asc` or `desc`), `offset` and `limit`. Applied to the items as
//! they serialize, so a field is filtered by the name the answer shows.

use super::ApiError;
use serde::Serialize;
use serde_json::Value;
use std::cmp::Ordering;

const OPERATORS: [&str; 8] = ["==", "!=", "<=", ">=", "=@", "!@", "=^", "=$"];

#[derive(Debug, Clone, PartialEq)]
struct Filter {
    field: String,
    op: &'static str,
    value: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListQuery {
    filters: Vec<Filter>,
    sort_by: Option<String>,
    descending: bool,
    offset: usize,
    limit: Option<usize>,
}

fn bad(parameter: &str, message: String) -> ApiError {
    ApiError::bad_request(format!("{parameter}: {message}"))
}

impl ListQuery {
    /// Parses the query's pairs; `fields` are the names filters and sorting may use.
    pub fn parse(pairs: &[(String, String)], fields: &[&str]) -> Result<ListQuery, ApiError> {
        let known = |field: &str, parameter: &str| {
            if fields.contains(&field) {
                Ok(field.to_owned())
            } else {
                Err(bad(
                    parameter,
                    format!("{field:?} is not a field; use one of {}", fields.join(", ")),
                ))
            }
        };
        let mut query = ListQuery::default();
        for (key, value) in pairs {
            match key.as_str() {
                // Repeated, or several in one value separated by commas (Run:ai's SDK joins its
                // list that way).
                "filterBy" => {
                    for value in value.split(',') {
                        let (at, op) = OPERATORS
                            .iter()
                            .filter_map(|op| value.find(op).map(|at| (at, *op)))
                            .min_by_key(|(at, _)| *at)
                            .ok_or_else(|| {
                                bad("filterBy", format!(
                                    "{value:?} has no operator; write field<op>value with one of {}",
                                    OPERATORS.join(" ")
                                ))
                            })?;
                        query.filters.push(Filter {
                            field: known(&value[..at], "filterBy")?,
                            op,
                            value: value[at + op.len()..].to_owned(),
                        });
                    }
                }
                "sortBy" => query.sort_by = Some(known(value, "sortBy")?),
                "sortOrder" => {
                    query.descending = match value.as_str() {
                        "asc" => false,
                        "desc" => true,
                        other => {
                            return Err(bad("sortOrder", format!("{other:?} is not asc or desc")));
                        }
                    }
                }
                "offset" => {
                    query.offset = value.parse().map_err(|_| {
                        bad("offset", format!("{value:?} is not a number 0 or more"))
                    })?;
                }
                "limit" => {
                    let limit: usize = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=500).contains(n))
                        .ok_or_else(|| {
                            bad("limit", format!("{value:?} is not a number from 1 to 500"))
                        })?;
                    query.limit = Some(limit);
                }
                other => {
                    return Err(bad(
                        other,
                        "is not a parameter here; use filterBy, sortBy, sortOrder, offset or limit"
                            .into(),
                    ));
                }
            }
        }
        Ok(query)
    }

    /// The field the list is sorted by, and whether from the largest down.
    pub fn sort(&self) -> (Option<&str>, bool) {
        (self.sort_by.as_deref(), self.descending)
    }

    /// How many matching items to skip, and at most how many to show.
    pub fn window(&self) -> (usize, usize) {
        (self.offset, self.limit.unwrap_or(usize::MAX))
    }

    /// The value of the first filter `field op value`, for a caller that can answer it itself
    /// (the database). The filter stays, so applying it again changes nothing.
    pub fn filter_value(&self, field: &str, op: &str) -> Option<&str> {
        self.filters
            .iter()
            .find(|f| f.field == field && f.op == op)
            .map(|f| f.value.as_str())
    }

    /// Whether every filter is one of `answered` (field and operator).
    pub fn only_filters(&self, answered: &[(&str, &str)]) -> bool {
        self.filters
            .iter()
            .all(|f| answered.contains(&(f.field.as_str(), f.op)))
    }

    /// Whether `item`, as it serializes, passes every filter.
    pub fn matches<T: Serialize>(&self, item: &T) -> bool {
        if self.filters.is_empty() {
            return true;
        }
        let value = serde_json::to_value(item).unwrap_or(Value::Null);
        self.filters.iter().all(|f| f.matches(&value))
    }

    /// The offset of the page after one that showed `shown` of `total` items, if any.
    pub fn next(&self, shown: usize, total: usize) -> Option<usize> {
        let end = self.offset.saturating_add(shown);
        (shown > 0 && end < total).then_some(end)
    }

    /// The page of `items` the query asks for, and how many matched in all.
    pub fn apply<T: Serialize>(&self, items: Vec<T>) -> (Vec<T>, usize) {
        let mut rows: Vec<(Value, T)> = items
            .into_iter()
            .map(|item| (serde_json::to_value(&item).unwrap_or(Value::Null), item))
            .filter(|(value, _)| self.filters.iter().all(|f| f.matches(value)))
            .collect();
        if let Some(field) = &self.sort_by {
            rows.sort_by(|(a, _), (b, _)| compare(&a[field.as_str()], &b[field.as_str()]));
            if self.descending {
                rows.reverse();
            }
        }
        let total = rows.len();
        let page = rows
            .into_iter()
            .skip(self.offset)
            .take(self.limit.unwrap_or(usize::MAX))
            .map(|(_, item)| item)
            .collect();
        (page, total)
    }
}

/// Numbers (and strings of numbers, as Run:ai's ids are) by value, everything else as text.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn compare(a: &Value, b: &Value) -> Ordering {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => text(a).cmp(&text(b)),
    }
}

impl Filter {
    fn matches(&self, item: &Value) -> bool {
        let field = &item[self.field.as_str()];
        let wanted = Value::String(self.value.clone());
        let text = text(field);
        match self.op {
            "==" => compare(field, &wanted) == Ordering::Equal,
            "!=" => compare(field, &wanted) != Ordering::Equal,
            "<=" => compare(field, &wanted) != Ordering::Greater,
            ">=" => compare(field, &wanted) != Ordering::Less,
            "=@" => text.contains(&self.value),
            "!@" => !text.contains(&self.value),
            "=^" => text.starts_with(&self.value),
            _ => text.ends_with(&self.value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn items() -> Vec<Value> {
        vec![
            json!({"id": "2", "name": "vision"}),
            json!({"id": "10", "name": "speech"}),
            json!({"id": "3", "name": "video"}),
        ]
    }

    fn names(query: &[(&str, &str)]) -> Vec<String> {
        let q = ListQuery::parse(&pairs(query), &["id", "name"]).unwrap();
        q.apply(items())
            .0
            .iter()
            .map(|v| v["name"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn filters_sorts_and_pages() {
        assert_eq!(names(&[("filterBy", "name=^vi")]), ["vision", "video"]);
        assert_eq!(names(&[("filterBy", "name!@e")]), ["vision"]);
        assert_eq!(
            names(&[("filterBy", "id>=3"), ("sortBy", "id")]),
            ["video", "speech"]
        );
        assert_eq!(
            names(&[("sortBy", "id"), ("sortOrder", "desc"), ("limit", "1")]),
            ["speech"]
        );
        assert_eq!(
            names(&[("sortBy", "name"), ("offset", "1")]),
            ["video", "vision"]
        );
        assert_eq!(names(&[("filterBy", "name==speech")]), ["speech"]);
        // Run:ai's SDK sends its list of filters as one value, joined by commas.
        assert_eq!(names(&[("filterBy", "name=^v,id>=3")]), ["video"]);
    }

    #[test]
    fn the_next_page_starts_after_the_shown_one() {
        let query = ListQuery::parse(&pairs(&[("offset", "2"), ("limit", "2")]), &["id"]).unwrap();
        assert_eq!(query.next(2, 5), Some(4));
        assert_eq!(query.next(2, 4), None);
        assert_eq!(query.next(0, 1), None);
    }

    #[test]
    fn bad_parameters_name_what_is_allowed() {
        let err = |query: &[(&str, &str)]| {
            ListQuery::parse(&pairs(query), &["id", "name"])
                .unwrap_err()
                .message()
                .to_owned()
        };
        assert!(
            err(&[("filterBy", "owner==x")])
                .contains("\"owner\" is not a field; use one of id, name")
        );
        assert!(err(&[("filterBy", "name")]).contains("has no operator"));
        assert!(err(&[("sortOrder", "up")]).contains("sortOrder"));
        assert!(err(&[("limit", "0")]).contains("from 1 to 500"));
        assert!(err(&[("page", "2")]).contains("page: is not a parameter"));
    }
}
