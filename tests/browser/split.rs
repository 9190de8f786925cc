//! The split bundle (`cargo leptos build --split`): every route hydrates with the chunks it
//! needs and no more, and a lazy island whose chunk does not arrive leaves the server-rendered
//! page readable and says that its live parts stopped, instead of a blank or silently dead page.

use fantoccini::Locator;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra::{self, Launch, TephraServer};

const WAIT: Duration = Duration::from_secs(30);

pub(crate) async fn submit(server: &TephraServer, name: &str) -> String {
    let res = tephra_tests::http()
        .post(format!("{}/api/v1/workloads/trainings", server.base_url()))
        .json(&serde_json::json!({
            "name": name, "projectId": "default",
            "spec": {"image": "busybox", "command": "sleep 60", "compute": {"gpuDevicesRequest": 1}},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let body: Value = res.json().await.unwrap();
    body["workloadId"].as_str().unwrap().to_owned()
}

/// The lazy chunks: every WebAssembly file of the site but the main one.
fn lazy_chunks(site: &Path) -> Vec<String> {
    let mut chunks: Vec<String> = std::fs::read_dir(site.join("pkg"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".wasm") && name != "tephra.wasm")
        .collect();
    chunks.sort();
    chunks
}

/// The WebAssembly files the page has fetched so far.
async fn wasm_fetched(browser: &Browser) -> BTreeSet<String> {
    let names = browser
        .client
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)
               .filter(n => /\\.wasm(\\?|$)/.test(n)).map(n => n.split('/').pop());",
            vec![],
        )
        .await
        .unwrap();
    names
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

pub(crate) async fn readable(browser: &Browser, path: &str, css: &str, expected: &str) {
    let text = browser
        .text_of(css, WAIT)
        .await
        .unwrap_or_else(|e| panic!("{path} shows {css}: {e}"));
    assert!(
        text.to_lowercase().contains(&expected.to_lowercase()),
        "{path} shows {expected:?} in {css}:\n{text}"
    );
}

/// Every route hydrates whole (its lazy islands included) without reporting a failure; the list
/// needs only the main chunk, and the pages with lazy islands fetch chunks the list never does.
#[tokio::test]
async fn every_route_hydrates_with_the_chunks_it_needs() {
    let site = tephra::site_root().expect("the site is built");
    let chunks = lazy_chunks(&site);
    assert!(
        !chunks.is_empty(),
        "the site has no lazy chunks: was it built with --split?"
    );
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let id = submit(&server, "split-check").await;
    let browser = Browser::start().await.expect("Chromium starts");
    let mut report = Vec::new();
    for (path, css, expected) in crate::every_route(&id, "split-check") {
        browser.client.goto("about:blank").await.unwrap();
        browser.open(&format!("{base}{path}")).await.unwrap();
        readable(&browser, &path, css, expected).await;
        let failed = browser
            .client
            .find(Locator::Css("body[data-hydration-failed]"))
            .await
            .is_ok();
        assert!(!failed, "{path} reports a failure after hydrating");
        let notice = browser
            .client
            .find(Locator::Id("live-failed"))
            .await
            .unwrap();
        assert!(
            !notice.is_displayed().await.unwrap(),
            "{path} shows the failure notice after hydrating"
        );
        let lazy: Vec<String> = wasm_fetched(&browser)
            .await
            .into_iter()
            .filter(|name| name != "tephra.wasm")
            .collect();
        report.push((path, lazy));
    }
    let lazy_of = |path: &str| {
        report
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, lazy)| lazy.clone())
            .unwrap()
    };
    eprintln!("lazy chunks per page: {report:#?}");
    assert_eq!(
        lazy_of("/trainings"),
        Vec::<String>::new(),
        "the list's islands are all in the main chunk"
    );
    for path in ["/", "/trainings/new", "/applications"] {
        assert!(
            !lazy_of(path).is_empty(),
            "{path} has lazy islands, so it fetches a chunk of its own"
        );
    }
    assert!(!lazy_of(&format!("/trainings/{id}")).is_empty());
    browser.close().await.unwrap();
}

/// A copy of the built site in which every lazy chunk is missing (404) or corrupt: each page
/// with a lazy island still reads as the server rendered it, shows the notice that its live
/// parts did not load, and never claims to be interactive; the list, whose islands are in the
/// main chunk, still hydrates.
#[tokio::test]
async fn a_lazy_chunk_that_fails_to_load_leaves_the_page_readable() {
    let site = tephra::site_root().expect("the site is built");
    let chunks = lazy_chunks(&site);
    assert!(!chunks.is_empty(), "the site has no lazy chunks");
    let browser = Browser::start().await.expect("Chromium starts");
    for broken in ["missing", "corrupt"] {
        let copy = tempfile::Builder::new()
            .prefix("tephra-site-")
            .tempdir()
            .unwrap();
        copy_dir(&site, copy.path());
        for chunk in &chunks {
            let file = copy.path().join("pkg").join(chunk);
            match broken {
                "missing" => std::fs::remove_file(&file).unwrap(),
                _ => std::fs::write(&file, b"\0asm but not really").unwrap(),
            }
        }
        let server = Launch::default()
            .site_root(copy.path())
            .start()
            .expect("the release server starts");
        let base = server.base_url();
        let id = submit(&server, "split-check").await;
        for (path, css, expected) in crate::every_route(&id, "split-check") {
            browser.client.goto("about:blank").await.unwrap();
            browser.client.goto(&format!("{base}{path}")).await.unwrap();
            let lazy = !(matches!(
                path.as_str(),
                "/trainings" | "/projects" | "/projects/default" | "/admin"
            ) || path.ends_with("/gpu-use"));
            if lazy {
                browser
                    .wait_for("body[data-hydration-failed=true]", WAIT)
                    .await
                    .unwrap_or_else(|e| panic!("{broken} chunks: {path} reports the failure: {e}"));
                let notice = browser
                    .wait_text("#live-failed", "Reload the page", WAIT)
                    .await
                    .unwrap();
                assert!(notice.contains("did not load"), "{notice}");
                let hydrated = browser
                    .client
                    .find(Locator::Css("body[data-hydrated]"))
                    .await
                    .is_ok();
                assert!(
                    !hydrated,
                    "{broken} chunks: {path} claims to be interactive"
                );
            } else {
                browser.hydrated().await.unwrap_or_else(|e| {
                    panic!("{broken} chunks: {path} needs none of them, yet: {e}")
                });
            }
            readable(&browser, &path, css, expected).await;
        }
    }
    browser.close().await.unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
