//! Tephra's Helm chart (deploy/helm/tephra), linted and rendered by the `helm` that
//! testbed/build makes from the Go module proxy, and its objects applied to a cluster with
//! server-side apply, so the API server itself validates them.

use anyhow::{Context, bail};
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::GroupVersionKind;
use kube::discovery::{self, Scope};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The release the tests install, as an operator would name it.
pub const RELEASE: &str = "tephra";
/// The namespace the tests install the release into.
pub const RELEASE_NAMESPACE: &str = "tephra-system";
/// The Kubernetes version helm renders and lints for: the testbed's, the cluster the rendered
/// objects are then checked against (helm would otherwise assume its client-go's).
pub const KUBE_VERSION: &str = "1.34.1";
/// The field manager of what the tests apply.
const FIELD_MANAGER: &str = "tephra-tests";

pub fn chart_dir() -> PathBuf {
    crate::workspace::root().join("deploy/helm/tephra")
}

/// The production-like values the chart ships for CI: PostgreSQL, OpenID Connect, an Ingress
/// with TLS, three replicas.
pub fn production_values() -> PathBuf {
    chart_dir().join("ci/production-values.yaml")
}

/// The `helm` binary, built (once per process) by testbed/build when it is missing.
pub fn helm() -> anyhow::Result<PathBuf> {
    static HELM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    HELM.get_or_init(|| build_helm().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

fn build_helm() -> anyhow::Result<PathBuf> {
    let build = crate::workspace::root().join("testbed/build");
    let out = Command::new(&build)
        .output()
        .with_context(|| format!("cannot run {}", build.display()))?;
    if !out.status.success() {
        bail!(
            "testbed/build failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let bin = stdout.lines().last().unwrap_or_default().trim();
    let helm = Path::new(bin).join("helm");
    if !helm.exists() {
        bail!(
            "testbed/build did not provide {} (is the helm line in its tools?)",
            helm.display()
        );
    }
    Ok(helm)
}

/// How to render the chart: values files and `--set` assignments, in helm's order of precedence.
#[derive(Debug, Clone, Default)]
pub struct Values {
    files: Vec<PathBuf>,
    set: Vec<String>,
}

impl Values {
    pub fn defaults() -> Self {
        Values::default()
    }

    pub fn production() -> Self {
        Values::default().file(production_values())
    }

    pub fn file(mut self, file: impl Into<PathBuf>) -> Self {
        self.files.push(file.into());
        self
    }

    pub fn set(mut self, assignment: impl Into<String>) -> Self {
        self.set.push(assignment.into());
        self
    }

    fn args(&self) -> Vec<String> {
        let files = self
            .files
            .iter()
            .flat_map(|f| ["--values".to_owned(), f.display().to_string()]);
        let set = self
            .set
            .iter()
            .flat_map(|s| ["--set".to_owned(), s.clone()]);
        files.chain(set).collect()
    }
}

fn run_helm(args: &[String]) -> anyhow::Result<std::process::Output> {
    Command::new(helm()?)
        .args(args)
        // Never read an operator's or another test's helm settings and caches.
        .env(
            "HELM_CONFIG_HOME",
            std::env::temp_dir().join("tephra-helm/config"),
        )
        .env(
            "HELM_CACHE_HOME",
            std::env::temp_dir().join("tephra-helm/cache"),
        )
        .env(
            "HELM_DATA_HOME",
            std::env::temp_dir().join("tephra-helm/data"),
        )
        .output()
        .context("cannot run helm")
}

/// `helm lint --strict` of the chart with `values`; its output when it passes.
pub fn lint(values: &Values) -> anyhow::Result<String> {
    let mut args = vec!["lint".to_owned(), "--strict".to_owned()];
    args.extend(["--kube-version".to_owned(), KUBE_VERSION.to_owned()]);
    args.extend(values.args());
    args.push(chart_dir().display().to_string());
    let out = run_helm(&args)?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        bail!("helm lint failed ({}):\n{text}", out.status);
    }
    Ok(text)
}

fn template_args(values: &Values) -> Vec<String> {
    let mut args = vec!["template".to_owned(), RELEASE.to_owned()];
    args.push(chart_dir().display().to_string());
    args.extend(["--namespace".to_owned(), RELEASE_NAMESPACE.to_owned()]);
    args.extend(["--kube-version".to_owned(), KUBE_VERSION.to_owned()]);
    args.extend(values.args());
    args
}

/// The objects `helm template` renders with `values`, in helm's install order.
pub fn template(values: &Values) -> anyhow::Result<Vec<Value>> {
    let out = run_helm(&template_args(values))?;
    if !out.status.success() {
        bail!(
            "helm template failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8(out.stdout).context("helm printed non-UTF-8")?;
    let mut objects = Vec::new();
    for document in serde_yaml::Deserializer::from_str(&text) {
        let object = Value::deserialize(document).context("helm printed invalid YAML")?;
        if !object.is_null() {
            objects.push(object);
        }
    }
    Ok(objects)
}

/// What helm says when it refuses to render with `values`; an error when it renders.
pub fn template_refusal(values: &Values) -> anyhow::Result<String> {
    let out = run_helm(&template_args(values))?;
    if out.status.success() {
        bail!("helm template rendered values it should refuse: {values:?}");
    }
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The release the NOTES are rendered for: helm's dry run refuses to render over objects of the
/// same names that another release (or [`crate::service_account`]) made.
pub const NOTES_RELEASE: &str = "notes";

/// The NOTES.txt helm prints after installing with `values` as [`NOTES_RELEASE`], from a
/// client-side dry run (helm asks the cluster behind `kubeconfig` for its version and for objects
/// in the way, and changes nothing).
pub fn notes(values: &Values, kubeconfig: &Path) -> anyhow::Result<String> {
    let mut args = vec!["install".to_owned(), "--dry-run=client".to_owned()];
    args.extend([NOTES_RELEASE.to_owned(), chart_dir().display().to_string()]);
    args.extend(["--namespace".to_owned(), format!("{NOTES_RELEASE}-system")]);
    args.extend(["--kubeconfig".to_owned(), kubeconfig.display().to_string()]);
    args.extend(values.args());
    let out = run_helm(&args)?;
    if !out.status.success() {
        bail!(
            "helm install --dry-run=client failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let (_, notes) = text.split_once("NOTES:").context("helm printed no NOTES")?;
    Ok(notes.to_owned())
}

/// The rendered object of `kind` named `name`.
pub fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> Option<&'a Value> {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
}

/// Every rendered object of `kind`.
pub fn of_kind<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

/// Applies `object` with server-side apply: for real, or with `dry_run` only validated and
/// admitted by the API server (strict field validation: a misplaced field is an error, not
/// dropped).
pub async fn apply(client: &kube::Client, object: &Value, dry_run: bool) -> anyhow::Result<()> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, kind);
    let (resource, capabilities) = discovery::pinned_kind(client, &gvk)
        .await
        .with_context(|| format!("the API server does not serve {api_version} {kind}"))?;
    let api: Api<DynamicObject> = match capabilities.scope {
        Scope::Cluster => Api::all_with(client.clone(), &resource),
        Scope::Namespaced => {
            let namespace = object["metadata"]["namespace"]
                .as_str()
                .unwrap_or(RELEASE_NAMESPACE);
            Api::namespaced_with(client.clone(), namespace, &resource)
        }
    };
    let mut params = PatchParams::apply(FIELD_MANAGER)
        .force()
        .validation_strict();
    if dry_run {
        params = params.dry_run();
    }
    api.patch(name, &params, &Patch::Apply(object))
        .await
        .with_context(|| format!("applying {kind} {name}"))?;
    Ok(())
}
