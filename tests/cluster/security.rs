//! Tenants stay inside their project, tried as the people who would try: a department
//! administrator and a researcher, each an application holding only that role, send every
//! escape issue 33 lists through the REST API of a Tephra that runs as the chart's account on
//! the testbed, on SQLite and on PostgreSQL. Each attempt must get a 400 naming the field; after
//! all of them, nothing is in the cluster (no Job, no namespace, kube-system's labels as they
//! were) and nothing stored changed (the projects, the policies, no workload).

use crate::api::{DISTRIBUTED, TRAININGS, Tephra, launch, prefix_for, pytorch, training};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PostParams};
use serde_json::{Value, json};
use std::sync::Arc;
use tephra_tests::postgres::TempPostgres;
use tephra_tests::testbed::{Testbed, job_resource};

pub async fn tenant_escapes_are_refused_and_reach_nothing_on_sqlite(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = escapes(&t).await;
    t.cleanup().await;
    result
}

pub async fn tenant_escapes_are_refused_and_reach_nothing_on_postgres(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let pg = TempPostgres::start()?;
    let url = pg.create_database("escapes").await?;
    let prefix = prefix_for(&ns);
    let server = launch(crate::tephra_kubeconfig(), &prefix).arg(format!("--database-url={url}"));
    let t = Tephra::start_with(&tb, server, prefix).await?;
    let result = escapes(&t).await;
    t.cleanup().await;
    result
}

/// One attempt: who sends what where, and the field the refusal must name.
struct Attempt {
    what: &'static str,
    method: reqwest::Method,
    path: String,
    body: Value,
    field: &'static str,
}

async fn escapes(t: &Tephra) -> anyhow::Result<()> {
    let kube_system = Api::<Namespace>::all(t.kube.clone())
        .get("kube-system")
        .await?;
    // A namespace someone made by hand, under Tephra's prefix: no project may take it.
    let handmade = format!("{}handmade", t.prefix);
    let made: Namespace = serde_json::from_value(json!({ "metadata": { "name": handmade } }))?;
    Api::<Namespace>::all(t.kube.clone())
        .create(&PostParams::default(), &made)
        .await?;
    let result = async {
        let department = token(t, "dept-admin", 2, "department", "default").await?;
        let researcher = token(t, "researcher", 4, "project", "default").await?;
        let before = stored(t).await?;
        for (who, attempts) in [
            (Some(department.as_str()), department_attempts(&handmade)),
            (Some(researcher.as_str()), researcher_attempts()),
            (None, admin_attempts(&handmade)),
        ] {
            for a in attempts {
                let (status, body) = send(t, who, &a).await?;
                let fields: Vec<&str> = body["details"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d["field"].as_str())
                    .collect();
                ensure!(
                    status == 400 && fields.iter().any(|f| f.starts_with(a.field)),
                    "{}: expected a 400 naming {}, got {status} {body}",
                    a.what,
                    a.field
                );
            }
        }
        ensure!(stored(t).await? == before, "something stored changed");
        // This server's namespaces only: other tests' Jobs may still be on their way out.
        let jobs = Api::<DynamicObject>::all_with(t.kube.clone(), &job_resource())
            .list(&ListParams::default().labels("app.kubernetes.io/managed-by=tephra"))
            .await?;
        let ours: Vec<_> = jobs
            .items
            .iter()
            .filter(|j| {
                j.metadata
                    .namespace
                    .as_deref()
                    .is_some_and(|n| n.starts_with(&t.prefix))
            })
            .map(|j| j.metadata.name.clone())
            .collect();
        ensure!(ours.is_empty(), "a Job was created: {ours:?}");
        let now = Api::<Namespace>::all(t.kube.clone())
            .get("kube-system")
            .await?;
        ensure!(
            now.metadata.labels == kube_system.metadata.labels
                && now.metadata.annotations == kube_system.metadata.annotations,
            "kube-system changed: {:?}",
            now.metadata
        );
        let handmade_now = Api::<Namespace>::all(t.kube.clone()).get(&handmade).await?;
        ensure!(
            handmade_now.metadata.labels
                == Some([("kubernetes.io/metadata.name".to_owned(), handmade.clone())].into()),
            "{handmade} was labelled: {:?}",
            handmade_now.metadata.labels
        );
        Ok(())
    }
    .await;
    let _ = Api::<Namespace>::all(t.kube.clone())
        .delete(&handmade, &DeleteParams::default())
        .await;
    result
}

fn attempt(what: &'static str, path: &str, body: Value, field: &'static str) -> Attempt {
    Attempt {
        what,
        method: reqwest::Method::POST,
        path: path.to_owned(),
        body,
        field,
    }
}

const PROJECTS: &str = "/api/v1/org-unit/projects";

fn department_attempts(handmade: &str) -> Vec<Attempt> {
    let project = |extra: Value| {
        let mut body = json!({ "name": "escape", "parentId": "default" });
        body.as_object_mut()
            .into_iter()
            .for_each(|b| b.extend(extra.as_object().cloned().unwrap_or_default()));
        body
    };
    let policy = |policy: Value| Attempt {
        what: "a project policy",
        method: reqwest::Method::PUT,
        path: "/api/v2/policy/trainings".into(),
        body: json!({ "meta": { "scope": "project", "projectId": "default" }, "policy": policy }),
        field: "policy.",
    };
    vec![
        attempt(
            "a project in kube-system",
            PROJECTS,
            project(json!({ "requestedNamespace": "kube-system" })),
            "requestedNamespace",
        ),
        attempt(
            "a project in a namespace made by hand",
            PROJECTS,
            project(json!({ "requestedNamespace": handmade })),
            "requestedNamespace",
        ),
        attempt(
            "a project named with digits",
            PROJECTS,
            json!({ "name": "123", "parentId": "default" }),
            "name",
        ),
        policy(
            json!({ "defaults": { "security": { "hostNetwork": true, "hostIpc": true },
                                     "storage": { "hostPath": [{ "name": "root", "path": "/", "mountPath": "/host" }] } } }),
        ),
        policy(json!({ "rules": { "security": { "hostNetwrk": { "canEdit": false } } } })),
    ]
}

fn researcher_attempts() -> Vec<Attempt> {
    let with = |spec: Value| {
        let mut body = training("escape", 0);
        for (k, v) in spec.as_object().cloned().unwrap_or_default() {
            body["spec"][k] = v;
        }
        body
    };
    let mut master = pytorch("escape", 1, 0);
    master["masterSpecSameAsWorker"] = json!(false);
    master["masterSpec"] = json!({ "image": "x", "security": {
        "hostNetwork": true, "hostIpc": true, "capabilities": ["SYS_MODULE"],
        "seccompProfileType": "Unconfined", "runAsUid": 0 } });
    vec![
        attempt(
            "host access in masterSpec",
            DISTRIBUTED,
            master,
            "masterSpec.security",
        ),
        attempt(
            "hostPath / in spec",
            TRAININGS,
            with(
                json!({ "storage": { "hostPath": [{ "name": "r", "path": "/", "mountPath": "/h" }] } }),
            ),
            "spec.storage.hostPath",
        ),
        attempt(
            "volcano.sh/preemptable",
            TRAININGS,
            with(
                json!({ "annotations": [{ "name": "volcano.sh/preemptable", "value": "false" }] }),
            ),
            "spec.annotations",
        ),
        attempt(
            "a CNI network in kube-system",
            TRAININGS,
            with(
                json!({ "annotations": [{ "name": "k8s.v1.cni.cncf.io/networks", "value": "kube-system/x" }] }),
            ),
            "spec.annotations",
        ),
        attempt(
            "a toleration of everything",
            TRAININGS,
            with(json!({ "tolerations": [{ "operator": "Exists" }] })),
            "spec.tolerations",
        ),
        attempt(
            "NFS from anywhere",
            TRAININGS,
            with(
                json!({ "storage": { "nfs": [{ "name": "n", "server": "10.0.0.1", "path": "/", "mountPath": "/n" }] } }),
            ),
            "spec.storage.nfs",
        ),
        attempt(
            "a LoadBalancer",
            TRAININGS,
            with(json!({ "ports": [{ "container": 80, "serviceType": "LoadBalancer" }] })),
            "spec.ports",
        ),
        attempt(
            "S3 at the metadata address",
            TRAININGS,
            with(
                json!({ "storage": { "s3": [{ "name": "b", "bucket": "b", "path": "/b", "url": "http://169.254.169.254" }] } }),
            ),
            "spec.storage.s3",
        ),
    ]
}

/// What even a system administrator may not do.
fn admin_attempts(handmade: &str) -> Vec<Attempt> {
    vec![
        attempt(
            "a project whose namespace was made by hand",
            PROJECTS,
            json!({ "name": handmade.rsplit('-').next().unwrap_or("handmade"), "parentId": "default" }),
            "name",
        ),
        attempt(
            "a project asking for a namespace made by hand",
            PROJECTS,
            json!({ "name": "other", "parentId": "default", "requestedNamespace": handmade }),
            "requestedNamespace",
        ),
    ]
}

/// An application holding one role, and its token.
pub(crate) async fn token(
    t: &Tephra,
    name: &str,
    role: u8,
    scope: &str,
    id: &str,
) -> anyhow::Result<String> {
    let app =
        json!({ "name": name, "roles": [{ "roleId": role, "scopeType": scope, "scopeId": id }] });
    let (status, created) = t.post("/api/v1/apps", &app).await?;
    ensure!(status == 201, "{name}: {status} {created}");
    let secret = created["clientSecret"].as_str().context("its secret")?;
    let sdk = json!({ "grantType": "app_token", "AppId": name, "AppSecret": secret });
    let (status, token) = t.post("/api/v1/token", &sdk).await?;
    ensure!(status == 200, "{name}'s token: {status} {token}");
    Ok(token["accessToken"].as_str().context("a token")?.to_owned())
}

async fn send(t: &Tephra, bearer: Option<&str>, a: &Attempt) -> anyhow::Result<(u16, Value)> {
    let mut request = t
        .http
        .request(a.method.clone(), t.url(&a.path))
        .json(&a.body);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.with_context(|| a.what)?;
    let status = response.status().as_u16();
    let text = response.text().await?;
    Ok((
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

/// What the attempts must leave as it was: the projects, the policies, the workloads.
async fn stored(t: &Tephra) -> anyhow::Result<Vec<Value>> {
    let mut all = Vec::new();
    for path in [
        PROJECTS,
        "/api/v1/workloads",
        "/api/v2/policy/trainings?scope=project&projectId=default",
        "/api/v2/policy/trainings?scope=system",
    ] {
        let (status, body) = t.get(path).await?;
        ensure!(status == 200, "{path}: {status} {body}");
        all.push(strip_times(body));
    }
    Ok(all)
}

/// The projects' live figures (use, updated times) may move while the attempts run.
fn strip_times(mut body: Value) -> Value {
    if let Some(projects) = body["projects"].as_array_mut() {
        for p in projects {
            for k in ["updatedAt", "status", "resources"] {
                if let Some(o) = p.as_object_mut() {
                    o.remove(k);
                }
            }
        }
    }
    body
}
