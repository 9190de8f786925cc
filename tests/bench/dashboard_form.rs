//! The new-training form's round trip: what a pause in typing costs. The form is drawn by the
//! server, so each pause posts it (`/api/fn/training_form`) and puts the answer in place. Before,
//! the browser drew the form and asked only "will it fit now?" (`/api/fn/fit_training`) after
//! each pause; that call is the baseline, timed beside it in the same run.

use std::time::Instant;
use tephra_tests::bench::{gzip_len, percentiles};

/// The draft the page was drawn with: its hidden `draft[document]` field, unescaped.
fn drawn_document(page: &str) -> anyhow::Result<String> {
    const NAME: &str = r#"name="draft[document]" value=""#;
    let start = page
        .find(NAME)
        .ok_or_else(|| anyhow::anyhow!("/trainings/new has no draft[document] field"))?
        + NAME.len();
    let end = page[start..]
        .find('"')
        .ok_or_else(|| anyhow::anyhow!("draft[document] is not closed"))?;
    Ok(page[start..start + end]
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&"))
}

/// Times `samples` posts of `send`, each a name typed one letter further; p50, p99 and the
/// last answer.
async fn timed(
    samples: usize,
    send: impl AsyncFn(String) -> anyhow::Result<reqwest::Response>,
) -> anyhow::Result<(f64, f64, String)> {
    let (mut took, mut last) = (Vec::new(), String::new());
    for i in 0..samples {
        let name = format!("typed-{i}");
        let started = Instant::now();
        let answer = send(name).await?;
        let status = answer.status();
        let body = answer.bytes().await?;
        took.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(
            status.is_success(),
            "{status}: {}",
            String::from_utf8_lossy(&body)
        );
        last = String::from_utf8_lossy(&body).into_owned();
    }
    let (p50, p99) = percentiles(&mut took);
    Ok((p50, p99, last))
}

/// Prints the form's round trip beside the fit call the browser-drawn form made per pause.
pub async fn round_trip(http: &reqwest::Client, base: &str, samples: usize) -> anyhow::Result<()> {
    let page = http
        .get(format!("{base}/trainings/new"))
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?;
    // The form as the page draws it, with an image typed: a draft the fit can answer.
    let mut draft: serde_json::Value = serde_json::from_str(&drawn_document(&page)?)?;
    draft["spec"]["image"] = "busybox".into();
    let document = draft.to_string();
    let form = format!("{base}/api/fn/training_form");
    let fit = format!("{base}/api/fn/fit_training");
    let drawn = timed(samples, async |name: String| {
        let fields = [
            ("draft[document]", document.as_str()),
            ("draft[r:name]", name.as_str()),
            ("draft[~touched]", "r:name"),
        ];
        let post = http.post(&form).header("accept", "application/json");
        Ok(post.form(&fields).send().await?)
    })
    .await?;
    let typed = format!("typed-{}", samples.saturating_sub(1));
    anyhow::ensure!(
        drawn.2.contains(&typed),
        "the form was drawn again with what was typed: {}",
        drawn.2
    );
    let baseline = timed(samples, async |name: String| {
        let mut draft = draft.clone();
        draft["name"] = name.into();
        let body = serde_json::json!({ "draft": draft });
        Ok(http.post(&fit).json(&body).send().await?)
    })
    .await?;
    println!("\n## The new-training form: a pause in typing ({samples} posts each)\n");
    println!("A name typed one letter further each time, one connection.\n");
    println!("| call | p50 / p99 | answer, raw / gzip |\n|---|---|---|");
    for (call, (p50, p99, answer)) in [
        ("`training_form`: the form drawn again (now)", drawn),
        (
            "`fit_training`: the fit alone (the browser-drawn form, baseline)",
            baseline,
        ),
    ] {
        println!(
            "| {call} | {p50:.1} / {p99:.1} ms | {:.1} / {:.1} KiB |",
            answer.len() as f64 / 1024.0,
            gzip_len(answer.as_bytes()) as f64 / 1024.0
        );
    }
    Ok(())
}
