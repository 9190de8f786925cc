//! The world the authorization stories act in: project A with a training, a distributed training
//! and a generic job, an application and its token, and a caller of every kind, signed in with
//! the real provider or holding the application's token.

use super::{Browser, Setup, ada, user};
use anyhow::{Context, bail, ensure};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How a caller authenticates.
pub(super) enum Caller {
    Session(Browser),
    Bearer(String),
    Anonymous,
}

pub(super) struct World {
    pub(super) setup: Setup,
    pub(super) callers: Vec<Caller>,
    admin: reqwest::Client,
    app_secret: String,
    app_id: String,
    viewer_rule: i64,
    training: String,
    distributed: String,
    generic: String,
    counter: AtomicUsize,
}

impl World {
    fn next(&self) -> usize {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }

    pub(super) fn url(&self, path: &str) -> String {
        self.setup.tephra.url(path)
    }

    pub(super) async fn send(
        &self,
        caller: &Caller,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<reqwest::Response> {
        let plain = tephra_tests::http();
        let mut request = match caller {
            Caller::Session(browser) => browser.http.request(method, self.url(path)),
            Caller::Bearer(token) => plain.request(method, self.url(path)).bearer_auth(token),
            Caller::Anonymous => plain.request(method, self.url(path)),
        }
        .header("accept", "application/json");
        if let Some(body) = body {
            request = request.json(body);
        }
        Ok(request.send().await?)
    }

    /// As the system administrator; fails unless the answer is `expected`.
    async fn as_admin(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        expected: u16,
    ) -> anyhow::Result<Value> {
        let mut request = self.admin.request(method.clone(), self.url(path));
        if let Some(body) = &body {
            request = request.json(body);
        }
        let answer = request.send().await?;
        let status = answer.status();
        let text = answer.text().await?;
        ensure!(
            status.as_u16() == expected,
            "{method} {path} as admin: {status} {text}"
        );
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// A request for the collection `kind` (`trainings`, `distributed` or `generic`).
    fn training_body(&self, kind: &str) -> Value {
        let name = format!("m{}", self.next());
        match kind {
            "distributed" => json!({"name": name, "projectId": "alpha", "spec": {
                "image": "busybox", "distributedFramework": "PyTorch", "numWorkers": 1}}),
            "generic" => json!({"name": name, "projectId": "alpha", "spec": {"replicaSpecs": [
                {"type": "worker", "spec": {"image": "busybox", "command": "sleep 60"}}]}}),
            _ => json!({"name": name, "projectId": "alpha", "spec": {"image": "busybox",
                   "command": "sleep 60"}}),
        }
    }

    /// A fresh workload of the collection `kind` in A, suspended when `suspended`.
    async fn workload(&self, kind: &str, suspended: bool) -> anyhow::Result<String> {
        let body = self.training_body(kind);
        let created = self
            .as_admin(
                Method::POST,
                &format!("/api/v1/workloads/{kind}"),
                Some(body),
                202,
            )
            .await?;
        let id = created["workloadId"]
            .as_str()
            .context("workloadId")?
            .to_owned();
        if suspended {
            let path = format!("/api/v1/workloads/{kind}/{id}/suspend");
            self.as_admin(Method::POST, &path, None, 202).await?;
        }
        Ok(id)
    }

    /// The concrete request for a route: its path with ids filled in, and its body.
    pub(super) async fn request_for(
        &self,
        method: &Method,
        route: &str,
    ) -> anyhow::Result<(String, Option<Value>)> {
        let kind = ["distributed", "generic"]
            .into_iter()
            .find(|k| route.starts_with(&format!("/api/v1/workloads/{k}")))
            .unwrap_or("trainings");
        let fill = |id: &str| route.replace("{id}", id);
        Ok(match (method.as_str(), route) {
            (
                "POST",
                "/api/v1/workloads/trainings"
                | "/api/v1/workloads/distributed"
                | "/api/v1/workloads/generic"
                | "/api/v1/workloads/trainings/fit"
                | "/api/v1/workloads/distributed/fit",
            ) => (route.to_owned(), Some(self.training_body(kind))),
            ("POST", r) if r.ends_with("/resume") => {
                (fill(&self.workload(kind, true).await?), None)
            }
            ("POST" | "DELETE", r) if r.starts_with("/api/v1/workloads/") => {
                (fill(&self.workload(kind, false).await?), None)
            }
            ("PATCH", r) if r.starts_with("/api/v1/workloads/") => (
                fill(&self.workload(kind, false).await?),
                Some(json!({ "priorityClass": "build" })),
            ),
            ("GET", "/api/v1/workloads/events") => {
                (format!("{route}?workloadId={}", self.training), None)
            }
            ("GET", r) if r.starts_with("/api/v1/workloads/distributed/") => {
                (fill(&self.distributed), None)
            }
            ("GET", r) if r.starts_with("/api/v1/workloads/generic/") => {
                (fill(&self.generic), None)
            }
            ("GET", "/api/v1/workloads/{id}/metrics") => (
                format!("{}?metricType=GPU_UTILIZATION", fill(&self.training)),
                None,
            ),
            ("GET", "/api/v1/workloads/{id}/pods/{pod}/logs") => {
                (fill(&self.training).replace("{pod}", "alpha-train-0"), None)
            }
            ("GET", r) if r.starts_with("/api/v1/workloads/") => (fill(&self.training), None),
            ("POST", "/api/v1/authorization/access-rules") => (
                route.to_owned(),
                Some(
                    json!({"subjectId": format!("new{}@example.org", self.next()),
                            "subjectType": "user", "roleId": 5, "scopeType": "project",
                            "scopeId": "alpha"}),
                ),
            ),
            ("GET", "/api/v1/authorization/access-rules/{id}") => {
                (fill(&self.viewer_rule.to_string()), None)
            }
            ("DELETE", "/api/v1/authorization/access-rules/{id}") => {
                let body = json!({"subjectId": format!("gone{}@example.org", self.next()),
                                  "subjectType": "user", "roleId": 5, "scopeType": "project",
                                  "scopeId": "alpha"});
                let rule = self
                    .as_admin(
                        Method::POST,
                        "/api/v1/authorization/access-rules",
                        Some(body),
                        201,
                    )
                    .await?;
                (fill(&rule["id"].to_string()), None)
            }
            ("POST", "/api/v1/apps") => (
                route.to_owned(),
                Some(json!({"name": format!("app{}", self.next())})),
            ),
            ("GET", "/api/v1/apps/{id}") => (fill(&self.app_id), None),
            // Each on an application of its own: a new secret ends the old one's tokens.
            ("POST", "/api/v1/apps/{id}/secret") | ("DELETE", "/api/v1/apps/{id}") => {
                let body = json!({"name": format!("doomed{}", self.next())});
                let app = self
                    .as_admin(Method::POST, "/api/v1/apps", Some(body), 201)
                    .await?;
                let body = (*method == Method::POST).then(|| json!({}));
                (fill(app["id"].as_str().context("app id")?), body)
            }
            ("POST", "/api/v1/token") => (
                route.to_owned(),
                Some(json!({"grantType": "app_token", "AppId": "alpha-bot",
                            "AppSecret": self.app_secret})),
            ),
            ("POST", "/api/v1/org-unit/departments" | "/api/v1/org-unit/projects") => (
                route.to_owned(),
                Some(json!({"name": format!("unit{}", self.next())})),
            ),
            ("GET", "/api/v1/org-unit/departments/{id}") => (fill("default"), None),
            ("PUT", "/api/v1/org-unit/departments/{id}") => {
                (fill("default"), Some(json!({"name": "default"})))
            }
            ("GET", "/api/v1/org-unit/projects/{id}") => (fill("alpha"), None),
            ("PUT", "/api/v1/org-unit/projects/{id}") => {
                (fill("alpha"), Some(json!({"name": "alpha"})))
            }
            ("DELETE", "/api/v1/org-unit/departments/{id}" | "/api/v1/org-unit/projects/{id}") => {
                let collection = route.trim_end_matches("/{id}");
                let body = json!({"name": format!("gone{}", self.next())});
                let unit = self
                    .as_admin(Method::POST, collection, Some(body), 201)
                    .await?;
                (fill(unit["id"].as_str().context("org-unit id")?), None)
            }
            ("GET", "/api/v2/policy/{kind}") => (
                format!(
                    "{}?scope=project&projectId=alpha",
                    route.replace("{kind}", "trainings")
                ),
                None,
            ),
            ("PUT", "/api/v2/policy/{kind}") => (
                route.replace("{kind}", "trainings"),
                Some(json!({"meta": {"scope": "project", "projectId": "alpha"},
                            "policy": {"rules": {"compute": {"gpuDevicesRequest": {"max": 8}}}}})),
            ),
            ("DELETE", "/api/v2/policy/{kind}") => {
                let path = route.replace("{kind}", "trainings");
                let body = json!({"meta": {"scope": "project", "projectId": "alpha"},
                                  "policy": {"defaults": {"compute": {"gpuDevicesRequest": 1}}}});
                self.as_admin(Method::PUT, &path, Some(body), 200).await?;
                (format!("{path}?scope=project&projectId=alpha"), None)
            }
            ("GET", "/api/v1/clusters/{uuid}") => {
                let clusters = self
                    .as_admin(Method::GET, "/api/v1/clusters", None, 200)
                    .await?;
                let uuid = clusters[0]["uuid"].as_str().context("the cluster's uuid")?;
                (route.replace("{uuid}", uuid), None)
            }
            ("GET", _) => (route.to_owned(), None),
            _ => bail!("no request is defined for {method} {route}"),
        })
    }
}

pub(super) async fn world() -> anyhow::Result<World> {
    let people = [
        ada(),
        user("pat", &[]),
        user("rae", &["alpha-researchers"]),
        user("vic", &[]),
        user("bea", &[]),
    ];
    let setup = Setup::start_for(&people, &[]).await?;
    for name in ["alpha", "beta"] {
        setup
            .tephra
            .db
            .projects()
            .create(&server::db::projects::NewProject::named(name), None)
            .await?;
    }
    let mut browsers = Vec::new();
    for person in &people {
        browsers.push(setup.sign_in(&person.login).await?);
    }
    let admin = browsers[0].http.clone();
    let mut world = World {
        setup,
        callers: Vec::new(),
        admin,
        app_secret: String::new(),
        app_id: String::new(),
        viewer_rule: 0,
        training: String::new(),
        distributed: String::new(),
        generic: String::new(),
        counter: AtomicUsize::new(0),
    };
    // Rules by e-mail, by group and by the provider's subject: each way a subject is named.
    let rules = [
        ("user", "pat@example.org", 3, "alpha"),
        ("group", "alpha-researchers", 4, "alpha"),
        ("user", "vic-sub", 5, "alpha"),
        ("user", "bea@example.org", 4, "beta"),
    ];
    for (kind, subject, role, project) in rules {
        let body = json!({"subjectType": kind, "subjectId": subject, "roleId": role,
                          "scopeType": "project", "scopeId": project});
        let rule = world
            .as_admin(
                Method::POST,
                "/api/v1/authorization/access-rules",
                Some(body),
                201,
            )
            .await?;
        if subject == "vic-sub" {
            world.viewer_rule = rule["id"].as_i64().context("rule id")?;
        }
    }
    let app = world
        .as_admin(
            Method::POST,
            "/api/v1/apps",
            Some(json!({"name": "alpha-bot", "roles": [{"roleId": 4, "scopeType": "project", "scopeId": "alpha"}]})),
            201,
        )
        .await?;
    world.app_id = app["id"].as_str().context("app id")?.to_owned();
    world.app_secret = app["clientSecret"].as_str().context("secret")?.to_owned();
    let token = world
        .as_admin(
            Method::POST,
            "/api/v1/token",
            Some(
                json!({"grantType": "client_credentials", "clientId": "alpha-bot",
                        "clientSecret": world.app_secret}),
            ),
            200,
        )
        .await?;
    let token = token["accessToken"]
        .as_str()
        .context("accessToken")?
        .to_owned();
    world.training = world.workload("trainings", false).await?;
    world.distributed = world.workload("distributed", false).await?;
    world.generic = world.workload("generic", false).await?;
    world.callers = browsers
        .into_iter()
        .map(Caller::Session)
        .chain([Caller::Bearer(token), Caller::Anonymous])
        .collect();
    Ok(world)
}
