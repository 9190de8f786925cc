//! The organisation page's forms posted as a browser without scripts posts them: a plain
//! url-encoded POST to the server function, asking for HTML, from the page. A researcher of A and
//! an anonymous client try each form; each is refused under a 4xx (not sent back to the page as
//! if saved), the researcher's with a page naming the rule, and nothing stored changes.

use super::Browser;
use super::world::{Caller, World, world};
use anyhow::ensure;
use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, REFERER};

const ADMIN: usize = 0;
const RESEARCHER_OF_A: usize = 2;

/// Each form of the page with what a tenant trying to widen its reach would type.
const FORMS: [(&str, &str); 5] = [
    (
        "save_department",
        "name=evil&quota[pool]=default&quota[gpu_quota]=100&quota[gpu_limit]=&quota[over_quota_weight]=",
    ),
    (
        "save_project",
        "name=alpha&department=default&quota[pool]=default&quota[gpu_quota]=100&quota[gpu_limit]=&quota[over_quota_weight]=&idle_minutes=",
    ),
    ("delete_project", "name=alpha"),
    (
        "add_member",
        "subject_id=rae%40example.org&subject_type=user&role_id=1&scope=system",
    ),
    ("remove_member", "id=1"),
];

/// What the organisation holds, as the administrator reads it.
async fn stored(world: &World) -> anyhow::Result<Vec<String>> {
    let mut texts = Vec::new();
    for path in [
        "/api/v1/org-unit/departments",
        "/api/v1/org-unit/projects",
        "/api/v1/authorization/access-rules",
    ] {
        let answer = world
            .send(&world.callers[ADMIN], Method::GET, path, None)
            .await?;
        ensure!(answer.status() == 200, "{path}: {}", answer.status());
        texts.push(answer.text().await?);
    }
    Ok(texts)
}

#[tokio::test]
async fn plain_posts_of_the_organisation_forms_change_nothing() -> anyhow::Result<()> {
    let world = world().await?;
    let before = stored(&world).await?;
    let anonymous = Browser::default();
    let Caller::Session(researcher) = &world.callers[RESEARCHER_OF_A] else {
        anyhow::bail!("the researcher signs in")
    };
    for (who, client) in [
        ("researcher", &researcher.http),
        ("anonymous", &anonymous.http),
    ] {
        for (function, body) in FORMS {
            let answer = client
                .post(world.url(&format!("/api/fn/{function}")))
                .header(ACCEPT, "text/html,application/xhtml+xml")
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header(REFERER, world.url("/organisation"))
                .body(body)
                .send()
                .await?;
            let status = answer.status();
            let text = answer.text().await?;
            ensure!(
                status.is_client_error(),
                "{who} posting {function}: {status} {text}"
            );
            if who == "researcher" {
                ensure!(
                    text.contains("The form was not accepted") && text.contains("not allowed"),
                    "{who} posting {function} is told the rule: {text}"
                );
            }
        }
    }
    ensure!(stored(&world).await? == before, "nothing stored changed");
    world.setup.tephra.stop().await
}
