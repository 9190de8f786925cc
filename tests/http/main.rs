//! The server over real HTTP: probes, pages, the stylesheet and a server function, on a real port
//! with a real SQLite database.

use clap::Parser;
use server::Application;
use server::config::{Cli, Command};
use std::time::Duration;
use tokio::sync::oneshot;

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
        let data = tempfile::tempdir().unwrap();
        let args = ["tephra", "serve", "--addr", "127.0.0.1:0", "--data-dir"];
        let cli = Cli::try_parse_from(args.iter().copied().chain([data.path().to_str().unwrap()]))
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
            client: reqwest::Client::new(),
            db,
            stop: Some(stop),
            task,
            _data: data,
        }
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
    }

    async fn stop(mut self) {
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
async fn readyz_follows_the_database() {
    let server = Running::start().await;
    let res = server.get("/readyz").await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );

    // Without its database the process is alive but cannot serve.
    server.db.close().await;
    let res = server.get("/readyz").await;
    assert_eq!(res.status(), 503);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["status"], "unavailable");
    assert_eq!(body["reason"], "database unreachable");
    assert_eq!(server.get("/healthz").await.status(), 200);
    server.stop().await;
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
        html.contains(">Projects</dt><dd class=\"mt-1 text-3xl font-semibold tabular-nums\">1<"),
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
    let overview: app::model::overview::Overview = res.json().await.unwrap();
    assert_eq!(overview.projects, 1);
    assert_eq!(overview.users, 1);
    assert_eq!(overview.trainings(), 0);
    server.stop().await;
}
