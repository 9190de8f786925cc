//! Accessibility checks with axe-core (from npm, installed by `scripts/setup`), run inside the
//! page the browser shows.

use anyhow::{Context, bail};
use fantoccini::Client;
use serde::Deserialize;

/// One rule a page breaks, with the elements that break it.
#[derive(Debug, Deserialize)]
pub struct Violation {
    pub id: String,
    pub impact: Option<String>,
    pub help: String,
    pub targets: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {} at {}",
            self.id,
            self.impact.as_deref().unwrap_or("?"),
            self.help,
            self.targets.join(", ")
        )
    }
}

fn axe_source() -> anyhow::Result<String> {
    let path = std::env::var("TEPHRA_AXE").unwrap_or_else(|_| {
        let cache = std::env::var("TEPHRA_CACHE").unwrap_or_else(|_| {
            format!(
                "{}/.cache/tephra",
                std::env::var("HOME").unwrap_or_default()
            )
        });
        format!("{cache}/node/node_modules/axe-core/axe.min.js")
    });
    std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read axe-core at {path} (run scripts/setup)"))
}

/// Runs every axe rule on the current page; returns the serious and critical violations.
pub async fn serious_violations(client: &Client) -> anyhow::Result<Vec<Violation>> {
    client
        .execute(&axe_source()?, vec![])
        .await
        .context("cannot load axe-core into the page")?;
    let answer = client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               axe.run(document, { resultTypes: ["violations"] })
                 .then(r => done(JSON.stringify(r.violations.map(v => ({
                   id: v.id, impact: v.impact, help: v.help,
                   targets: v.nodes.map(n => n.target.join(" ")) })))))
                 .catch(e => done("error: " + e));"#,
            vec![],
        )
        .await
        .context("axe.run did not answer")?;
    let Some(text) = answer.as_str() else {
        bail!("axe.run answered {answer}");
    };
    if let Some(error) = text.strip_prefix("error: ") {
        bail!("axe.run failed: {error}");
    }
    let all: Vec<Violation> = serde_json::from_str(text)?;
    Ok(all
        .into_iter()
        .filter(|v| matches!(v.impact.as_deref(), Some("serious" | "critical")))
        .collect())
}
