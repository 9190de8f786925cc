//! `tephra render`: a training request in, the Volcano Job and its side objects out, exactly as
//! the server would create them. Invalid input prints `{code, message, errors}` and exits 2.

use crate::config::{OutputFormat, RenderArgs};
use serde::Serialize;
use std::io::Read;
use std::process::ExitCode;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::request::{Placement, Request, WorkloadKind};
use tephra_core::model::validation::FieldError;

#[derive(Debug, Serialize)]
pub struct ErrorBody {
    pub code: u16,
    pub message: String,
    pub errors: Vec<FieldError>,
}

/// Runs the command; what it prints goes to the given writers so tests can capture it.
pub fn run(
    args: &RenderArgs,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> ExitCode {
    match render(args) {
        Ok(text) => {
            let _ = stdout.write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(body) => {
            let json = serde_json::to_string_pretty(&body).unwrap_or_else(|_| body.message.clone());
            let _ = writeln!(stderr, "{json}");
            ExitCode::from(2)
        }
    }
}

fn fail(message: impl Into<String>, errors: Vec<FieldError>) -> ErrorBody {
    ErrorBody {
        code: 400,
        message: message.into(),
        errors,
    }
}

pub fn render(args: &RenderArgs) -> Result<String, ErrorBody> {
    let input = read_input(args.file.as_deref())?;
    let value = parse_document(&input)?;
    let profile = match &args.cluster_profile {
        None => ClusterProfile::default(),
        Some(path) => load_profile(path).map_err(|message| fail(message, vec![]))?,
    };
    let kind = args.kind.unwrap_or_else(|| WorkloadKind::detect(&value));
    let request = Request::parse(&value, kind)
        .map_err(|errors| fail(format!("the {} request is invalid", kind.as_str()), errors))?;
    let workload = request.owner(&Placement {
        workload_id: &args.workload_id,
        project: &args.project,
        queue: None,
        created_by: &args.created_by,
        name_suffix: &args.name_suffix,
        token_uid_gid: None,
    });
    let rendered = request.render(&workload, &profile).map_err(|errors| {
        fail(
            format!("the {} request cannot run on this cluster", kind.as_str()),
            errors,
        )
    })?;
    match args.output {
        OutputFormat::Yaml => rendered
            .to_yaml()
            .map(|yaml| tephra_core::domain::render::with_warnings(request.warnings(), yaml))
            .map_err(|e| fail(e, vec![])),
        OutputFormat::Json => {
            let objects = rendered
                .objects()
                .map_err(|e| fail(e.to_string(), vec![]))?;
            let list = serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": objects });
            let mut out =
                serde_json::to_string_pretty(&list).map_err(|e| fail(e.to_string(), vec![]))?;
            out.push('\n');
            Ok(out)
        }
    }
}

/// Reads a cluster profile (JSON or YAML); the error says what is wrong with which file.
pub fn load_profile(path: &std::path::Path) -> Result<ClusterProfile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the cluster profile {}: {e}", path.display()))?;
    let value = parse_document(&text).map_err(|e| e.message)?;
    serde_json::from_value(value)
        .map_err(|e| format!("the cluster profile {} is invalid: {e}", path.display()))
}

fn read_input(file: Option<&std::path::Path>) -> Result<String, ErrorBody> {
    match file {
        None => read_stdin(),
        Some(path) if path.as_os_str() == "-" => read_stdin(),
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display()), vec![])),
    }
}

fn read_stdin() -> Result<String, ErrorBody> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| fail(format!("cannot read standard input: {e}"), vec![]))?;
    Ok(input)
}

/// JSON, or YAML (a superset for this purpose).
fn parse_document(text: &str) -> Result<serde_json::Value, ErrorBody> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    serde_yaml::from_str::<serde_json::Value>(text).map_err(|e| {
        fail(
            "the input is neither valid JSON nor valid YAML",
            vec![FieldError {
                path: ".".into(),
                message: e.to_string(),
            }],
        )
    })
}
