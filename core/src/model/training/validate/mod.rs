//! What a training request may contain. Each rule names the field's JSON path and what is allowed;
//! all problems are collected, so a form or a script sees every mistake at once.
//!
//! The rules are split by section of the request, each file with tests of what it accepts and
//! refuses. The order in which rules run is the order of the errors a client sees, so a rule that
//! moves between files keeps its place in the sequence (`spec`'s tests check it).

mod compute;
mod container;
mod distributed;
mod generic;
mod header;
mod pod;
mod scheduling;
mod security;
mod spec;
mod storage;

pub use distributed::distributed;
pub use generic::generic;

use super::checked::Training;
use super::request::TrainingRequest;
use crate::model::validation::{Errors, FieldError};

/// Checks a training request; every problem is reported, by path.
pub fn training(req: TrainingRequest) -> Result<Training, Vec<FieldError>> {
    let mut errors = Errors::default();
    header::header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    let spec = spec::spec(&mut errors, &req.spec, "spec");
    let size = spec::job_size(&mut errors, &req.spec);
    let checked = spec.zip(size).map(|(spec, (parallelism, completions))| {
        Training::new(req, spec, parallelism, completions)
    });
    errors
        .finish_warned(checked)
        .map(|(training, warnings)| training.warned(warnings))
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Shared by every section's tests: requests are parsed from JSON the way the API receives them,
/// so each test also proves the path a client sees.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::training::parse;
    use serde_json::{Value, json};

    /// A valid training request around `spec`, with an image unless `spec` names one, so a test
    /// states only the fields it is about.
    pub(super) fn request(mut spec: Value) -> Value {
        if let Value::Object(fields) = &mut spec {
            fields.entry("image").or_insert_with(|| json!("x"));
        }
        json!({ "name": "job", "projectId": "p", "spec": spec })
    }

    /// The errors `parse` (one of the `parse` module's entry points) gives a request that must
    /// be refused.
    pub(super) fn refused_by<T>(
        parse: fn(&Value) -> Result<T, Vec<FieldError>>,
        request: Value,
    ) -> Vec<FieldError> {
        match parse(&request) {
            Ok(_) => panic!("accepted, but should be refused: {request}"),
            Err(errors) => errors,
        }
    }

    /// Asserts `parse` accepts the request.
    pub(super) fn accepted_by<T>(parse: fn(&Value) -> Result<T, Vec<FieldError>>, request: Value) {
        if let Err(errors) = parse(&request) {
            panic!("refused {request}: {errors:?}");
        }
    }

    /// The errors of a training request that must be refused.
    pub(super) fn refused(request: Value) -> Vec<FieldError> {
        refused_by(parse::training, request)
    }

    pub(super) fn accepted(request: Value) {
        accepted_by(parse::training, request);
    }

    /// Asserts exactly one error, at `path`, with `part` in its message: a rule that fires must
    /// not drag others along.
    pub(super) fn assert_one(errors: &[FieldError], path: &str, part: &str) {
        assert!(
            errors.len() == 1 && errors[0].path == path && errors[0].message.contains(part),
            "expected one error at {path} containing {part:?}, got {errors:#?}"
        );
    }

    /// A training with `spec` must be refused with one error at `path` mentioning `part`.
    pub(super) fn refuses(spec: Value, path: &str, part: &str) {
        assert_one(&refused(request(spec)), path, part);
    }

    /// A training with `spec` must be accepted.
    pub(super) fn accepts(spec: Value) {
        accepted(request(spec));
    }

    /// A training with `spec` must be accepted with exactly one warning, at `path`, whose
    /// message is `message`.
    pub(super) fn warns(spec: Value, path: &str, message: &str) {
        let request = request(spec);
        let training = parse::training(&request)
            .unwrap_or_else(|errors| panic!("refused {request}: {errors:#?}"));
        let warnings = training.warnings();
        assert!(
            warnings.len() == 1 && warnings[0].path == path && warnings[0].message == message,
            "expected one warning at {path}: {message:?}, got {warnings:#?}"
        );
    }

    pub(super) fn paths(errors: &[FieldError]) -> Vec<&str> {
        errors.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn uuids_are_five_groups_of_hex_digits() {
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_uuid("123E4567-E89B-12D3-A456-426614174000"));
        for bad in [
            "",
            "123e4567e89b12d3a456426614174000",
            "123e4567-e89b-12d3-a456-42661417400",
            "123e4567-e89b-12d3-a456-4266141740000",
            "123e4567-e89b-12d3-a456-42661417400g",
            "123e4567-e89b-12d3-a456-426614174000-0",
        ] {
            assert!(!is_uuid(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_training_runs_the_header_then_the_spec_then_its_job_size() {
        let errors = refused(json!({
            "name": "Bad_Name", "projectId": "p",
            "spec": { "completions": 0, "workingDir": "w" }
        }));
        assert_eq!(
            paths(&errors),
            ["name", "spec.image", "spec.workingDir", "spec.completions"]
        );
        accepted(request(json!({})));
    }
}
