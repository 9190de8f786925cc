//! Page weight, held by a test because it is deterministic: every route of the release site is
//! opened in Chromium, and everything it fetched until it was interactive (every script,
//! WebAssembly module and stylesheet, lazy islands' chunks included) is summed gzip-compressed.
//! A page over its budget fails, naming the page, its bytes and the files that grew since the
//! sizes recorded in `page_weight.tsv` (`TEPHRA_PAGE_WEIGHT_RECORD=1` rewrites that file).
//!
//! The budgets hold today's weights so no change adds to them unnoticed. Every one is within
//! issue 36's targets (every page ≤ 300 KiB, the trainings list ≤ 150 KiB), and a page over its
//! target fails here too ([`TARGET`], [`LIST_TARGET`]).

use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;
use tephra_tests::bench::gzip_len;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

/// The most each page may fetch until it is interactive, gzip, in KiB: measured on 2026-11-30
/// (see `page_weight.tsv`) plus 2 KiB, so only growth fails. That measure is the first with the
/// read-only data split between chunks (`--no-merge-data-segments` in `.cargo/config.toml`):
/// before it, wasm-split kept every page's strings in the main chunk, and every page's budget
/// came down by 9 to 29 KiB with it. A timestamp's seconds are parsed without `f64::from_str`
/// (`components/relative_time.rs`), which took the float parser out of the main chunk: 13.6 KiB
/// off every page but the form, whose own number inputs still need it (1.5 KiB more there, as
/// a chunk of its own compresses less well). Server functions' answers are decoded from text as
/// island props are (`app/src/api/codec.rs`), so each type's decoder is in the WebAssembly once:
/// 2.9 KiB off the list, 14.3 KiB off a training's page. The applications island chooses its
/// views with `Either` instead of erasing them (`.into_any()`, which compiles an asynchronous
/// hydration of the whole erased tree): 8.3 KiB off its page, now under issue 36's 300 KiB. The
/// same for a training's live page, the organisation's and the form's preview: 66.5, 6.6 and
/// 6.1 KiB off them. (The form's row functions stay erased: generic rows measured larger.) The
/// trainings list is rendered by the server only, and its island patches the rows in place and
/// reads the page again as HTML when a training comes or goes (`pages/trainings/live.rs`): the
/// table's view code and the page's decoders left the main chunk, 48.8 KiB off the list (now
/// under issue 36's 150) and 22 to 31 KiB off every other page. A training's GPU charts are
/// drawn by the server (`pages/gpu_use.rs`) and read again as HTML: 17.6 KiB off its page (the
/// shared reading of a page's part put 0.3 to 0.5 KiB on the others). Its reason, timeline,
/// tasks, pods and events are the server's too, read again as HTML when the training changes
/// (`training_detail/parts.rs`): 27.4 KiB more off it, now under issue 36's 300. The
/// organisation's tables and forms are the server's: plain forms the policy editor's island posts
/// in place, reading the tables again as HTML (`pages/organisation/follow.rs`): 144.2 KiB off
/// it (339.4 to 195.2), 0.5 to 2.0 KiB on the others as wasm-split cut its shared chunks anew.
/// The new-training form is drawn by the server and its island only posts it and puts the
/// drawing in place (`pages/new_training/follow.rs`): 229.6 KiB off it (378.0 to 148.4), and 0.1
/// to 7.3 KiB off the others, as the form's types left the chunks they shared. Every page is now
/// within issue 36's targets.
const BUDGETS: &[(&str, usize)] = &[
    ("/", 190),
    ("/trainings", 130),
    ("/trainings/new", 151),
    ("/trainings/new?from=<id>", 151),
    ("/trainings/<id>", 282),
    ("/trainings/<id>/gpu-use", 130),
    ("/projects", 130),
    ("/projects/default", 130),
    ("/applications", 264),
    ("/organisation", 196),
    ("/admin", 130),
];

/// Issue 36's targets, KiB: every page, and the trainings list.
const TARGET: usize = 300;
const LIST_TARGET: usize = 150;

/// A budget above its target would let a page pass over it.
#[test]
fn every_budget_is_within_issue_36s_targets() {
    for (page, budget) in BUDGETS {
        let target = if *page == "/trainings" {
            LIST_TARGET
        } else {
            TARGET
        };
        assert!(
            *budget <= target,
            "{page}: budget {budget} KiB, target {target} KiB"
        );
    }
}

const RECORD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/browser/page_weight.tsv");

/// The file's name without the build's hash, so a rebuild compares with the same file.
fn stem(url: &str) -> String {
    let name = url.rsplit('/').next().unwrap_or(url);
    let name = name.split('?').next().unwrap_or(name);
    let (name, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    let stem = name
        .split('_')
        .filter(|part| !part.chars().all(|c| c.is_ascii_digit() || c == '.') || part.len() < 8)
        .collect::<Vec<_>>()
        .join("_");
    format!("{stem}.{extension}")
}

/// Every script, module and stylesheet the open page fetched, by stem, gzip bytes.
async fn fetched(browser: &Browser) -> anyhow::Result<BTreeMap<String, usize>> {
    let urls = browser
        .client
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)
               .filter(n => /\\.(wasm|js|css)(\\?|$)/.test(n));",
            vec![],
        )
        .await?;
    let mut files = BTreeMap::new();
    for url in urls
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let bytes = reqwest::get(url).await?.error_for_status()?.bytes().await?;
        files.insert(stem(url), gzip_len(&bytes));
    }
    Ok(files)
}

/// The sizes recorded last, as (page, file) → gzip bytes.
fn recorded() -> BTreeMap<(String, String), usize> {
    let text = std::fs::read_to_string(RECORD).unwrap_or_default();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let page = fields.next()?.to_owned();
            let file = fields.next()?.to_owned();
            Some(((page, file), fields.next()?.parse().ok()?))
        })
        .collect()
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

#[tokio::test]
async fn every_page_stays_within_its_weight_budget() {
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let id = crate::split::submit(&server, "weighed").await;
    let browser = Browser::start().await.expect("Chromium starts");
    let before = recorded();
    let (mut over, mut record) = (Vec::new(), String::from("# page\tfile\tgzip bytes\n"));
    let routes = crate::every_route(&id, "weighed");
    assert_eq!(
        routes.len(),
        BUDGETS.len(),
        "every route has a budget, in the same order"
    );
    for ((path, css, expected), (page, budget)) in routes.into_iter().zip(BUDGETS) {
        browser.client.goto("about:blank").await.unwrap();
        browser.open(&format!("{base}{path}")).await.unwrap();
        crate::split::readable(&browser, &path, css, expected).await;
        // `open` waited until it hydrated; what is fetched a moment later counts too.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let files = fetched(&browser).await.unwrap();
        let total: usize = files.values().sum();
        eprintln!("{page}: {} (budget {budget} KiB)", kib(total));
        for (file, bytes) in &files {
            record.push_str(&format!("{page}\t{file}\t{bytes}\n"));
        }
        if total > budget * 1024 {
            let grew: Vec<String> = files
                .iter()
                .filter_map(|(file, bytes)| {
                    let was = before.get(&(page.to_string(), file.clone())).copied();
                    (was.is_none_or(|was| *bytes > was)).then(|| match was {
                        Some(was) => format!("{file} {} (was {})", kib(*bytes), kib(was)),
                        None => format!("{file} {} (new)", kib(*bytes)),
                    })
                })
                .collect();
            over.push(format!(
                "{page} fetches {} until interactive, over its budget of {budget} KiB; grew: {}",
                kib(total),
                if grew.is_empty() {
                    "nothing recorded grew".into()
                } else {
                    grew.join(", ")
                }
            ));
        }
    }
    browser.close().await.unwrap();
    if std::env::var_os("TEPHRA_PAGE_WEIGHT_RECORD").is_some() {
        std::fs::write(RECORD, record).expect("page_weight.tsv is written");
    }
    assert!(
        over.is_empty(),
        "pages over their weight budget:\n{}",
        over.join("\n")
    );
}
