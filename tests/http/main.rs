//! The server over real HTTP: probes, pages, the stylesheet and a server function, on a real port
//! with a real SQLite database.

use clap::Parser;
use server::Application;
use server::config::{Cli, Command};
use std::time::Duration;
use tokio::sync::oneshot;

mod clusters;
mod cross_site;
mod fix;
mod headers;
mod keys;
mod limits;
mod metrics;
mod nul;
mod projects;
mod queue;
mod quota;
mod workloads;

struct Running {
    base: String,
    client: reqwest::Client,
    db: server::db::Database,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
    _data: tempfile::TempDir,
}

impl Running {
    async fn start() -> Self {
        Self::start_in(tempfile::tempdir().unwrap()).await
    }

    /// Starts on the database in `data`, as a restart would.
    async fn start_in(data: tempfile::TempDir) -> Self {
        Self::start_with(data, &[]).await
    }

    /// Starts on the PostgreSQL database at `url`.
    async fn start_on(url: &str) -> Self {
        Self::start_with(tempfile::tempdir().unwrap(), &["--database-url", url]).await
    }

    async fn start_with(data: tempfile::TempDir, extra: &[&str]) -> Self {
        let args = ["tephra", "serve", "--addr", "127.0.0.1:0", "--data-dir"];
        let data_dir = data.path().to_str().unwrap().to_owned();
        let cli = Cli::try_parse_from(
            args.iter()
                .copied()
                .chain([data_dir.as_str()])
                .chain(extra.iter().copied()),
        )
        .unwrap();
        let Command::Serve(args) = cli.into_command() else {
            panic!("serve")
        };
        let app = Application::build(&args).await.expect("the server starts");
        let base = format!("http://{}", app.local_addr());
        let db = app.database().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(app.run_until(async {
            let _ = stopped.await;
        }));
        Running {
            base,
            client: tephra_tests::http(),
            db,
            stop: Some(stop),
            task,
            _data: data,
        }
    }

    /// Sends `body` as JSON to `path` with `method`.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &serde_json::Value,
    ) -> reqwest::Response {
        self.client
            .request(method, format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
    }

    /// Stops the server and starts another on the same database.
    async fn restart(self) -> Self {
        self.restart_with(&[]).await
    }

    /// Stops the server and starts another on the same data directory with `extra` flags.
    async fn restart_with(mut self, extra: &[&str]) -> Self {
        let data = tempfile::tempdir().unwrap();
        let data = std::mem::replace(&mut self._data, data);
        self.stop().await;
        Self::start_with(data, extra).await
    }

    async fn stop(mut self) {
        // The client's idle keep-alive connections would hold the graceful shutdown open until
        // its grace period ends; dropping the client closes them, so the server stops at once.
        self.client = tephra_tests::http();
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(30), &mut self.task)
            .await
            .expect("the server stops")
            .unwrap()
            .expect("the server stops cleanly");
    }
}

#[tokio::test]
async fn healthz_answers_while_the_process_runs() {
    let server = Running::start().await;
    let res = server.get("/healthz").await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.json::<serde_json::Value>().await.unwrap()["status"],
        "ok"
    );
    server.stop().await;
}

#[tokio::test]
async fn readyz_follows_the_database_on_both_listeners() {
    // `--probe-addr`: the probes also answer on a listener of their own, and only they do.
    let probes = format!("127.0.0.1:{}", tephra_tests::free_port());
    let server =
        Running::start_with(tempfile::tempdir().unwrap(), &["--probe-addr", &probes]).await;
    let on_probes = |path: &str| {
        let url = format!("http://{probes}{path}");
        let client = server.client.clone();
        async move { client.get(url).send().await.unwrap() }
    };
    for res in [server.get("/readyz").await, on_probes("/readyz").await] {
        assert_eq!(res.status(), 200);
        let body = res.json::<serde_json::Value>().await.unwrap();
        assert_eq!(body["status"], "ready");
    }
    for elsewhere in [
        "/",
        "/metrics",
        "/api/v1/workloads",
        "/api/v1/workloads/events",
    ] {
        assert_eq!(on_probes(elsewhere).await.status(), 404, "{elsewhere}");
    }

    // Without its database the process is alive but cannot serve.
    server.db.close().await;
    for res in [server.get("/readyz").await, on_probes("/readyz").await] {
        assert_eq!(res.status(), 503);
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["status"], "unavailable");
        assert_eq!(body["reason"], "database unreachable");
    }
    assert_eq!(server.get("/healthz").await.status(), 200);
    assert_eq!(on_probes("/healthz").await.status(), 200);
    server.stop().await;
    let after = reqwest::get(format!("http://{probes}/healthz")).await;
    assert!(after.is_err(), "the probes stop with the server: {after:?}");
}

#[tokio::test]
async fn the_home_page_is_rendered_on_the_server_with_counts_from_the_database() {
    let server = Running::start().await;
    let res = server.get("/").await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    for expected in [
        "<title>Overview · Tephra</title>",
        "data-testid=\"overview-stats\"",
        "Dev User",
        "dev login",
        "href=\"/trainings\"",
        "href=\"/projects\"",
        "href=\"/admin\"",
        "/pkg/tephra.css",
        "/pkg/tephra.js",
    ] {
        assert!(
            html.contains(expected),
            "missing {expected:?} in the page:\n{html}"
        );
    }
    // One project (default) and one user (the dev user) exist after the first start.
    assert!(
        html.contains(
            ">Projects</a></dt><dd class=\"mt-1 text-3xl font-semibold tabular-nums\">1<"
        ),
        "{html}"
    );
    server.stop().await;
}

#[tokio::test]
async fn every_page_renders_and_unknown_paths_get_a_404_page() {
    let server = Running::start().await;
    for (path, title) in [
        ("/trainings", "Trainings"),
        ("/projects", "Projects"),
        ("/admin", "Admin"),
    ] {
        let res = server.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        let html = res.text().await.unwrap();
        assert!(
            html.contains(&format!("<title>{title} · Tephra</title>")),
            "{path}: {html}"
        );
    }
    let res = server.get("/no/such/page").await;
    assert_eq!(res.status(), 404);
    assert!(res.text().await.unwrap().contains("There is no page here"));
    server.stop().await;
}

#[tokio::test]
async fn the_stylesheet_is_served_and_revalidated() {
    let server = Running::start().await;
    let res = server.get("/pkg/tephra.css").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/css; charset=utf-8");
    let etag = res.headers()["etag"].clone();
    assert!(res.text().await.unwrap().contains(".bg-slate-50"));
    let again = server
        .client
        .get(format!("{}/pkg/tephra.css", server.base))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    server.stop().await;
}

#[tokio::test]
async fn server_functions_answer_for_the_signed_in_principal() {
    let server = Running::start().await;
    let res = server
        .client
        .post(format!("{}/api/fn/get_overview", server.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let overview: tephra_core::model::overview::Overview = res.json().await.unwrap();
    assert_eq!(overview.projects, 1);
    assert_eq!(overview.users, 1);
    assert_eq!(overview.trainings(), 0);
    server.stop().await;
}

impl Running {
    async fn submit(&self, name: &str) -> tephra_core::model::workload::Workload {
        let res = self
            .client
            .post(format!("{}/api/v1/workloads/trainings", self.base))
            .json(&serde_json::json!({
                "name": name, "projectId": "default",
                "spec": {"image": "busybox", "command": "sleep 60", "compute": {"gpuDevicesRequest": 2}},
            }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202);
        res.json().await.unwrap()
    }

    /// A client that does not follow redirects, as a test of where they point.
    fn no_redirects() -> reqwest::Client {
        tephra_tests::http_builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
    }
}

#[tokio::test]
async fn fields_without_effect_are_accepted_and_named_in_the_answer() {
    let server = Running::start().await;
    let res = server
        .client
        .post(format!("{}/api/v1/workloads/trainings", server.base))
        .json(&serde_json::json!({
            "name": "warned", "projectId": "default",
            "spec": { "image": "busybox",
                      "security": { "uidGidSource": "fromTheImage", "runAsUid": 500 } },
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(
        body["warnings"],
        serde_json::json!([{
            "path": "spec.security.runAsUid",
            "message": "has no effect with uidGidSource fromTheImage (the image's user is used); \
                        it is used with uidGidSource custom",
        }])
    );
    // Reading it back: the spec as sent, and no warnings (they belong to the submit's answer).
    let id = body["workloadId"].as_str().unwrap();
    let read: serde_json::Value = server
        .get(&format!("/api/v1/workloads/trainings/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(read["spec"]["security"]["runAsUid"], 500);
    assert!(read.get("warnings").is_none(), "{read}");
    server.stop().await;
}

#[tokio::test]
async fn the_trainings_list_and_a_training_read_without_javascript() {
    let server = Running::start().await;
    let first = server.submit("resnet-a").await;
    server.submit("bert-b").await;

    let list = server.get("/trainings").await.text().await.unwrap();
    assert!(
        list.contains("resnet-a") && list.contains("bert-b"),
        "{list}"
    );
    assert!(list.contains(&format!("/trainings/{}", first.workload_id)));
    assert!(
        list.contains("data-phase=\"Creating\""),
        "rows carry their phase"
    );
    assert!(list.contains("1–2 of 2"), "the page says what it shows");

    let filtered = server
        .get("/trainings?name=bert")
        .await
        .text()
        .await
        .unwrap();
    assert!(filtered.contains("bert-b") && !filtered.contains("resnet-a"));
    let none = server
        .get("/trainings?phase=Running")
        .await
        .text()
        .await
        .unwrap();
    assert!(none.contains("No trainings match these filters"), "{none}");
    let sorted = server
        .get("/trainings?sortBy=name&sortOrder=asc")
        .await
        .text()
        .await
        .unwrap();
    let (a, b) = (
        sorted.find("bert-b").unwrap(),
        sorted.find("resnet-a").unwrap(),
    );
    assert!(a < b, "sorted by name, ascending");
    let paged = server
        .get("/trainings?limit=1&offset=1")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        paged.contains("2–2 of 2") && paged.contains("Previous"),
        "{paged}"
    );

    let detail = server
        .get(&format!("/trainings/{}", first.workload_id))
        .await
        .text()
        .await
        .unwrap();
    for expected in [
        "resnet-a",
        "Timeline",
        "Submitted by",
        "What was asked for",
        "batch.volcano.sh/v1alpha1",
        "no Kubernetes cluster is configured",
    ] {
        assert!(
            detail.contains(expected),
            "the detail page shows {expected:?}"
        );
    }
    let missing = server.get("/trainings/not-a-training").await;
    let missing = missing.text().await.unwrap();
    assert!(
        missing.contains("no workload with the id") && missing.contains("not-a-training"),
        "an unknown id says so"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_new_training_form_submits_without_javascript() {
    use app::draft::fields::{compute, name, project, spec};
    use app::draft::posted::{GPU_MODE, input_name, unchecked_name};
    use app::draft::{Kind, Path};
    let server = Running::start().await;
    let client = Running::no_redirects();
    let form = server.get("/trainings/new").await.text().await.unwrap();
    let field = |kind: Kind, path: &Path| format!("draft[{}]", input_name(kind, path));
    let image = spec().key("image");
    let shm = compute().key("largeShmRequest");
    for posted in [
        field(Kind::Required, &name()),
        field(Kind::Text, &image),
        format!("draft[{GPU_MODE}]"),
        "draft[distributed]".to_owned(),
        format!("draft[{}]", unchecked_name(Kind::Flag, &shm)),
        "draft[document]".to_owned(),
    ] {
        let attribute = format!("name=\"{posted}\"");
        assert!(form.contains(&attribute), "the form posts {posted}");
    }
    let post = |pairs: Vec<(String, String)>| {
        client
            .post(format!("{}/api/fn/submit_training_form", server.base))
            .header("accept", "text/html")
            .header("referer", format!("{}/trainings/new", server.base))
            .form(&pairs)
            .send()
    };
    let typed = |name_text: &str| {
        vec![
            (field(Kind::Required, &name()), name_text.to_owned()),
            (field(Kind::Text, &project()), "default".to_owned()),
            (field(Kind::Text, &image), "busybox".to_owned()),
            (format!("draft[{GPU_MODE}]"), "devices".to_owned()),
            (
                field(Kind::Number, &compute().key("gpuDevicesRequest")),
                "1".to_owned(),
            ),
            (
                format!("draft[{}]", unchecked_name(Kind::Flag, &shm)),
                String::new(),
            ),
            (field(Kind::Flag, &shm), "true".to_owned()),
        ]
    };

    let accepted = post(typed("plain-form")).await.unwrap();
    assert!(accepted.status().is_redirection(), "{}", accepted.status());
    let to = accepted.headers()["location"].to_str().unwrap().to_owned();
    assert!(to.starts_with("/trainings/"), "to the new training: {to}");
    let stored = server
        .db
        .workloads()
        .list(&Default::default())
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0].workload.spec["spec"]["compute"]["largeShmRequest"],
        true
    );

    let rejected = post(typed("Bad_Name")).await.unwrap();
    assert!(rejected.status().is_redirection());
    let back = rejected.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        back.starts_with("/trainings/new?draft="),
        "back to the form: {back}"
    );
    let page = server.get(&back).await.text().await.unwrap();
    // The inputs themselves carry what was typed, so the page reads right before (or without)
    // hydration, not only the hidden document.
    let name_field = field(Kind::Required, &name());
    assert_eq!(
        input(&page, &name_field, "value").as_deref(),
        Some("Bad_Name")
    );
    assert!(input(&page, &field(Kind::Flag, &shm), "checked").is_some());
    assert!(
        page.contains("lowercase letters, digits or"),
        "the name's message is shown"
    );
    assert!(
        page.contains("data-testid=\"from-link\"") && page.contains("runs image busybox"),
        "a form filled in from its address says so"
    );
    // Anyone can send such a link: the form names what it would mount before it is submitted.
    let crafted = serde_json::json!({"name": "x", "projectId": "default", "spec": {
        "image": "busybox", "storage": {"secretVolume": [{"secret": "db-password", "mountPath": "/s"}]}}});
    let link = format!(
        "/trainings/new?draft={}",
        tephra_core::model::url::encode(&crafted.to_string())
    );
    let page = server.get(&link).await.text().await.unwrap();
    assert!(
        page.contains("mounts Secret db-password at /s"),
        "the crafted link's Secret is named"
    );
    let plain = server.get("/trainings/new").await.text().await.unwrap();
    assert!(
        !plain.contains("from-link"),
        "a plain form has no such notice"
    );
    assert_eq!(
        server
            .db
            .workloads()
            .list(&Default::default())
            .await
            .unwrap()
            .len(),
        1,
        "nothing more was stored"
    );

    let id = to.trim_start_matches("/trainings/");
    let clone = server.get(&format!("/trainings/new?from={id}")).await;
    let clone = clone.text().await.unwrap();
    assert_eq!(
        input(&clone, &name_field, "value").as_deref(),
        Some("plain-form-copy")
    );
    assert_eq!(
        input(&clone, &field(Kind::Text, &image), "value").as_deref(),
        Some("busybox")
    );
    server.stop().await;
}

/// The value of `attribute` on the `<input>` posted as `name`, if the page has one that carries
/// it (`Some("")` for a bare boolean attribute).
fn input(page: &str, name: &str, attribute: &str) -> Option<String> {
    let named = format!("name=\"{name}\"");
    let tag = page
        .split("<input")
        .skip(1)
        .map(|rest| &rest[..rest.find('>').unwrap_or(rest.len())])
        .find(|tag| tag.contains(&named))?;
    let start = tag.find(&format!(" {attribute}"))? + attribute.len() + 1;
    Some(match tag[start..].strip_prefix("=\"") {
        Some(quoted) => quoted[..quoted.find('"')?].replace("&quot;", "\""),
        None => String::new(),
    })
}

/// Bad input is refused over HTTP with a 400 naming the field, before anything is stored.
#[tokio::test]
async fn bad_input_is_refused_with_a_400_naming_the_field() {
    let server = Running::start().await;
    let nul = "must not contain a NUL character (\\u0000)";
    let cases = [
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "command": "sleep\u{0}60" } }),
            "spec.command",
            nul,
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "probes": { "readiness": {
                    "periodSeconds": 4294967297u64, "handler": { "httpGet": { "port": 80 } } } } } }),
            "spec.probes.readiness.periodSeconds",
            "must be between 1 and 2147483647 (got 4294967297)",
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "compute": { "cpuMemoryRequest": "1e400" } } }),
            "spec.compute.cpuMemoryRequest",
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got \"1e400\")",
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "parallelism": 3000000 } }),
            "spec.parallelism",
            "asks for 3000000 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)",
        ),
        (
            "distributed",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "distributedFramework": "PyTorch",
                          "numWorkers": 5000 } }),
            "spec.numWorkers",
            "asks for 5001 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)",
        ),
    ];
    for (path, body, field, message) in cases {
        let res = server
            .client
            .post(format!("{}/api/v1/workloads/{path}", server.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let answer: serde_json::Value = res.json().await.unwrap();
        assert_eq!(
            answer["details"],
            serde_json::json!([{ "field": field, "message": message }]),
            "{answer}"
        );
    }
    let listed = server
        .db
        .workloads()
        .count(&server::db::workloads::WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(listed, 0, "nothing was stored");
    server.stop().await;
}

/// Starting a server lists the app's routes; leptos does that by rendering the app with resource
/// loading switched off for the whole process. A page rendering meanwhile in another server of
/// the process must still finish (the route list is made once per process).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_finish_while_other_servers_start_in_the_same_process() {
    let server = Running::start().await;
    let starting = tokio::spawn(async {
        for _ in 0..8 {
            Running::start().await.stop().await;
        }
    });
    loop {
        for path in ["/projects", "/admin", "/trainings"] {
            let res = tokio::time::timeout(Duration::from_secs(30), server.get(path))
                .await
                .unwrap_or_else(|_| panic!("{path} answered within 30 s"));
            let body = tokio::time::timeout(Duration::from_secs(30), res.text())
                .await
                .unwrap_or_else(|_| panic!("{path} finished its page within 30 s"));
            assert!(body.unwrap().contains("</html>"), "{path} is a whole page");
        }
        if starting.is_finished() {
            break;
        }
    }
    starting.await.unwrap();
    server.stop().await;
}
