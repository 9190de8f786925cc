//! What the dashboard's pages weigh: every file of the release bundle, and what each page
//! downloads until it is interactive, beside issue 36's targets.

use std::time::Duration;
use tephra_tests::bench::gzip_len;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

pub fn kib(n: usize) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

/// Issue 36's targets, gzip: `/trainings` must become interactive after downloading at most
/// this, and no page may download more than [`PAGE_TARGET`]. (The dashboard issue's were 215 and
/// 400 KiB; `tests/browser/page_weight.rs` holds what each page weighs today.)
const TRAININGS_TARGET: usize = 150 * 1024;
const PAGE_TARGET: usize = 300 * 1024;

pub async fn sizes(base: &str) -> anyhow::Result<()> {
    let pkg = tephra::site_root()?.join("pkg");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in std::fs::read_dir(&pkg)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(name) = name.filter(|n| n.ends_with(".wasm") || n.ends_with(".js")) {
            files.push((name, std::fs::read(&path)?));
        }
    }
    files.sort();
    println!("## Release bundle: every file the site serves\n");
    println!("| file | raw | gzip |\n|---|---|---|");
    let (mut raw, mut zipped) = (0, 0);
    for (name, bytes) in &files {
        let z = gzip_len(bytes);
        raw += bytes.len();
        zipped += z;
        println!("| {name} | {} | {} |", kib(bytes.len()), kib(z));
    }
    println!(
        "| all {} chunks (WebAssembly + JS) | {} | {} |",
        files.len(),
        kib(raw),
        kib(zipped)
    );
    let css = reqwest::get(format!("{base}/pkg/tephra.css"))
        .await?
        .bytes()
        .await?;
    let z = gzip_len(&css);
    println!("| tephra.css | {} | {} |", kib(css.len()), kib(z));
    println!(
        "| total of all files | {} | {} |",
        kib(raw + css.len()),
        kib(zipped + z)
    );
    Ok(())
}

/// What a page downloads before it is interactive: every script, WebAssembly module and
/// stylesheet Chromium fetched for it (Resource Timing), each measured gzip-compressed (the same
/// level as the figures before the split) and as it came over the wire (`encodedBodySize`, the
/// server's own compression). Chunks a lazy island fetches count: the page is interactive only
/// once every island on it is hydrated, and anything fetched in the second after that counts too.
/// Returns the gzip total.
async fn page_bytes(
    browser: &Browser,
    base: &str,
    (shown, path): (&str, &str),
) -> anyhow::Result<usize> {
    browser.client.goto("about:blank").await?;
    browser.open(&format!("{base}{path}")).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let fetched = browser
        .client
        .execute(
            "return performance.getEntriesByType('resource')
               .filter(e => /\\.(wasm|js|css)(\\?|$)/.test(e.name))
               .map(e => [e.name, e.encodedBodySize]);",
            vec![],
        )
        .await?;
    let mut names = Vec::new();
    let (mut total, mut wire) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    for entry in fetched.as_array().into_iter().flatten() {
        let Some(url) = entry[0].as_str() else {
            continue;
        };
        if !seen.insert(url.to_owned()) {
            continue;
        }
        let bytes = reqwest::get(url).await?.error_for_status()?.bytes().await?;
        total += gzip_len(&bytes);
        wire += entry[1].as_u64().unwrap_or(0) as usize;
        names.push(url.rsplit('/').next().unwrap_or(url).to_owned());
    }
    let (relation, target, met) = if path == "/trainings" {
        ("≤", TRAININGS_TARGET, total <= TRAININGS_TARGET)
    } else {
        ("≤", PAGE_TARGET, total <= PAGE_TARGET)
    };
    println!(
        "| {shown} | {} | {} | {} {} | {} | {} |",
        kib(total),
        kib(wire),
        relation,
        kib(target),
        if met { "yes" } else { "**no**" },
        names.join(", ")
    );
    Ok(total)
}

/// Prints what each page downloads until it is interactive; `id` is a stored training's.
pub async fn pages(browser: &Browser, base: &str, id: &str) -> anyhow::Result<()> {
    println!("\n## What each page downloads until it is interactive\n");
    println!(
        "gzip: each file compressed at flate2's default level, as the figures before the split; \
         wire: what the server sent (`encodedBodySize`).\n"
    );
    println!("| page | gzip | wire | target | met | files |\n|---|---|---|---|---|---|");
    let clone = format!("/trainings/new?from={id}");
    let detail = format!("/trainings/{id}");
    for page in [
        ("/", "/"),
        ("/trainings", "/trainings"),
        ("/trainings/new", "/trainings/new"),
        ("/trainings/new?from=<id>", clone.as_str()),
        ("/trainings/<id>", detail.as_str()),
        ("/projects", "/projects"),
        ("/applications", "/applications"),
        ("/organisation", "/organisation"),
        ("/admin", "/admin"),
    ] {
        page_bytes(browser, base, page).await?;
    }
    Ok(())
}
