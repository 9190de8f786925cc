//! The walking skeleton's numbers: what a browser downloads, what the server costs at rest, and how
//! fast it is ready. Run with `scripts/bench` after `cargo leptos build --release`.

use flate2::{Compression, write::GzEncoder};
use std::io::Write;
use std::time::{Duration, Instant};
use tephra_tests::tephra;

const STARTS: usize = 20;
const PAGE_LOADS: usize = 200;

fn gzip_len(bytes: &[u8]) -> usize {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).expect("in-memory write");
    encoder.finish().expect("in-memory write").len()
}

fn kib(n: usize) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = tephra::site_root()?;
    let client = reqwest::Client::new();

    println!("## Bundle (release build)\n");
    println!("| file | raw | gzip |\n|---|---|---|");
    for name in ["tephra.wasm", "tephra.js"] {
        let bytes = std::fs::read(site.join("pkg").join(name))?;
        println!(
            "| {name} | {} | {} |",
            kib(bytes.len()),
            kib(gzip_len(&bytes))
        );
    }

    let mut ready = Vec::new();
    let mut rss_ready = Vec::new();
    let mut server = None;
    for _ in 0..STARTS {
        let started = Instant::now();
        let s = tephra::start_release()?;
        let url = format!("{}/readyz", s.base_url());
        loop {
            if let Ok(res) = client.get(&url).send().await
                && res.status() == 200
            {
                break;
            }
            anyhow::ensure!(
                started.elapsed() < Duration::from_secs(30),
                "not ready in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        ready.push(started.elapsed());
        rss_ready.push(rss_kib(s.process.id()));
        server = Some(s);
    }
    let server = server.expect("at least one start");

    let css = client
        .get(format!("{}/pkg/tephra.css", server.base_url()))
        .send()
        .await?
        .bytes()
        .await?;
    println!(
        "| tephra.css | {} | {} |",
        kib(css.len()),
        kib(gzip_len(&css))
    );

    let mut page = Vec::new();
    for _ in 0..PAGE_LOADS {
        let started = Instant::now();
        let res = client.get(server.base_url()).send().await?;
        anyhow::ensure!(res.status() == 200, "home page answered {}", res.status());
        res.bytes().await?;
        page.push(started.elapsed());
    }
    let rss_after_pages = rss_kib(server.process.id());

    ready.sort();
    page.sort();
    rss_ready.sort();
    println!("\n## Server (release build, SQLite, {STARTS} starts)\n");
    println!("| measure | p50 | p99 |\n|---|---|---|");
    println!(
        "| process start to /readyz = 200 | {} | {} |",
        ms(percentile(&ready, 0.5)),
        ms(percentile(&ready, 0.99))
    );
    println!(
        "| home page SSR, {PAGE_LOADS} sequential loads | {} | {} |",
        ms(percentile(&page, 0.5)),
        ms(percentile(&page, 0.99))
    );
    println!("\n| memory | RSS |\n|---|---|");
    println!(
        "| after start (median of {STARTS}) | {} MiB |",
        rss_ready[STARTS / 2] / 1024
    );
    println!(
        "| after {PAGE_LOADS} page loads | {} MiB |",
        rss_after_pages / 1024
    );
    Ok(())
}
