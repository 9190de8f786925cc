//! The new-training form as the page posts it (`/api/fn/training_form`, url-encoded, asking for
//! JSON) and as a browser without scripts posts its buttons (`/api/fn/edit_training_form`). Each
//! caller who may not submit into a project tries to through the form: anonymous is refused
//! with 401, the others with a 4xx naming the rule, and nothing is created. A member of B who
//! has the form drawn for project A is shown nothing of A.

use super::Browser;
use super::world::{Caller, World, world};
use anyhow::ensure;
use reqwest::Method;
use reqwest::header::{ACCEPT, REFERER};

const ADMIN: usize = 0;
const RESEARCHER_OF_A: usize = 2;
const VIEWER_OF_A: usize = 3;
const MEMBER_OF_B: usize = 4;

/// What the administrator sees stored, every kind.
async fn stored(world: &World) -> anyhow::Result<String> {
    let answer = world
        .send(
            &world.callers[ADMIN],
            Method::GET,
            "/api/v1/workloads",
            None,
        )
        .await?;
    ensure!(answer.status() == 200, "{}", answer.status());
    Ok(answer.text().await?)
}

fn draft(project: &str) -> String {
    serde_json::json!({"name": "through-the-form", "projectId": project,
                       "spec": {"image": "busybox"}})
    .to_string()
}

async fn post(
    world: &World,
    client: &reqwest::Client,
    function: &str,
    fields: &[(&str, &str)],
) -> anyhow::Result<(reqwest::StatusCode, String)> {
    let answer = client
        .post(world.url(&format!("/api/fn/{function}")))
        .header(ACCEPT, "application/json")
        .header(REFERER, world.url("/trainings/new"))
        .form(fields)
        .send()
        .await?;
    Ok((answer.status(), answer.text().await?))
}

fn session(world: &World, caller: usize) -> anyhow::Result<&reqwest::Client> {
    match &world.callers[caller] {
        Caller::Session(signed_in) => Ok(&signed_in.http),
        _ => anyhow::bail!("caller {caller} signs in"),
    }
}

#[tokio::test]
async fn nobody_submits_through_the_form_where_the_api_would_refuse() -> anyhow::Result<()> {
    let world = world().await?;
    let before = stored(&world).await?;
    let anonymous = Browser::default();
    let tries = [
        ("anonymous", &anonymous.http, "alpha"),
        (
            "researcher of A, into B",
            session(&world, RESEARCHER_OF_A)?,
            "beta",
        ),
        ("viewer of A", session(&world, VIEWER_OF_A)?, "alpha"),
        (
            "member of B, into A",
            session(&world, MEMBER_OF_B)?,
            "alpha",
        ),
    ];
    for (who, client, project) in tries {
        let document = draft(project);
        let fields = [
            ("draft[document]", document.as_str()),
            ("draft[~submit]", "on"),
        ];
        let (status, text) = post(&world, client, "training_form", &fields).await?;
        if who == "anonymous" {
            ensure!(status == 401, "{who}: {status} {text}");
        } else if who.starts_with("viewer") {
            ensure!(
                status == 403 && text.contains("missing permission"),
                "{who} is told the rule: {status} {text}"
            );
        } else {
            // A project they hold nothing in is, to them, one that does not exist: the form
            // comes back with that as the project field's error, as for any other field.
            ensure!(
                text.contains("no project you can see has the id or name"),
                "{who} is told no such project: {status} {text}"
            );
        }
    }
    let document = draft("alpha");
    let fields = [
        ("draft[document]", document.as_str()),
        ("draft[~op]", "preview on"),
    ];
    let (status, _) = post(&world, &anonymous.http, "edit_training_form", &fields).await?;
    ensure!(status == 401, "anonymous editing the form: {status}");
    ensure!(stored(&world).await? == before, "nothing was created");
    world.setup.tephra.stop().await
}

#[tokio::test]
async fn the_form_drawn_for_another_project_shows_nothing_of_it() -> anyhow::Result<()> {
    let world = world().await?;
    let member_of_b = session(&world, MEMBER_OF_B)?;
    let document = draft("alpha");
    let fields = [
        ("draft[document]", document.as_str()),
        ("draft[~op]", "preview on"),
    ];
    let (status, text) = post(&world, member_of_b, "training_form", &fields).await?;
    ensure!(status == 200, "{status} {text}");
    ensure!(
        text.contains("beta (queue"),
        "offers the member's own project: {text}"
    );
    ensure!(
        !text.contains("alpha (queue"),
        "offers no other project: {text}"
    );
    ensure!(!text.contains("kind: Job"), "previews nothing in A: {text}");
    ensure!(
        !text.contains("Fits now"),
        "answers nothing about A's room: {text}"
    );
    world.setup.tephra.stop().await
}
