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
mod no_script;
mod nul;
mod projects;
mod queue;
mod quota;
mod refusals;
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
