//! Lists are where a tenant looks for a way out of its project: a cursor is client-held text and
//! a filter names projects, so both are tried as forged by a researcher of A against project B's
//! rows. Each must answer with A's rows only, and must not say that B's exist.

use super::world::{Caller, World, world};
use anyhow::{Context, ensure};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Method;
use serde_json::{Value, json};

const RESEARCHER_OF_A: usize = 2;
const MEMBER_OF_B: usize = 4;

async fn get(world: &World, caller: &Caller, path: &str) -> anyhow::Result<(u16, Value)> {
    let answer = world.send(caller, Method::GET, path, None).await?;
    let status = answer.status().as_u16();
    Ok((status, answer.json().await?))
}

/// Two trainings of B's, submitted by its member; their ids.
async fn b_rows(world: &World) -> anyhow::Result<Vec<String>> {
    rows(world, MEMBER_OF_B, "beta", ["b1", "b2"]).await
}

/// Trainings `names` in `project`, submitted by caller `who`; their ids.
async fn rows(
    world: &World,
    who: usize,
    project: &str,
    names: [&str; 2],
) -> anyhow::Result<Vec<String>> {
    let mut ids = Vec::new();
    for name in names {
        let body = json!({"name": name, "projectId": project, "spec": {"image": "busybox"}});
        let answer = world
            .send(
                &world.callers[who],
                Method::POST,
                "/api/v1/workloads/trainings",
                Some(&body),
            )
            .await?;
        ensure!(answer.status() == 202, "{}", answer.status());
        let created: Value = answer.json().await?;
        ids.push(created["workloadId"].as_str().context("workloadId")?.into());
    }
    Ok(ids)
}

/// `cursor` with its position moved to `keyset` and the row `id`, re-encoded as a client could.
fn forge(cursor: &str, keyset: Value, id: &str) -> anyhow::Result<String> {
    let mut decoded: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(cursor)?)?;
    decoded["after"]["keyset"] = keyset;
    decoded["after"]["id"] = json!(id);
    Ok(URL_SAFE_NO_PAD.encode(serde_json::to_vec(&decoded)?))
}

#[tokio::test]
async fn a_forged_cursor_pages_only_through_the_callers_projects() -> anyhow::Result<()> {
    let world = world().await?;
    let b_ids = b_rows(&world).await?;
    rows(&world, RESEARCHER_OF_A, "alpha", ["a1", "a2"]).await?;
    let rae = &world.callers[RESEARCHER_OF_A];
    let base = "/api/v1/workloads/trainings?sortBy=name&sortOrder=asc&limit=1";
    let (status, first) = get(&world, rae, base).await?;
    ensure!(status == 200, "{first}");
    let cursor = first["nextCursor"]
        .as_str()
        .context("A has more than one")?;
    // The position of B's first row, and one before every name: either would start B's rows.
    for keyset in [json!({"Name": "b1"}), json!({"Name": ""})] {
        let forged = forge(cursor, keyset.clone(), &b_ids[0])?;
        let path = format!(
            "/api/v1/workloads/trainings?sortBy=name&sortOrder=asc&limit=50&after={forged}"
        );
        let (status, page) = get(&world, rae, &path).await?;
        ensure!(status == 200, "{keyset}: {page}");
        let text = page.to_string();
        ensure!(
            !text.contains("beta") && b_ids.iter().all(|id| !text.contains(id.as_str())),
            "a cursor at {keyset} showed B's rows to a researcher of A: {text}"
        );
        ensure!(page["total"] == first["total"], "{keyset}: {page}");
    }
    world.setup.tephra.stop().await
}

#[tokio::test]
async fn a_filter_naming_another_project_finds_nothing() -> anyhow::Result<()> {
    let world = world().await?;
    let b_ids = b_rows(&world).await?;
    let rae = &world.callers[RESEARCHER_OF_A];
    for filter in [
        "projectName%3D%3Dbeta",
        "projectName%3D%40bet",
        "projectName%3D%3Dbeta%2Ctype%3D%3DTraining",
    ] {
        let path = format!("/api/v1/workloads?filterBy={filter}");
        let (status, list) = get(&world, rae, &path).await?;
        ensure!(status == 200, "{filter}: {list}");
        let text = list.to_string();
        ensure!(
            list["workloads"].as_array().is_some_and(Vec::is_empty)
                && b_ids.iter().all(|id| !text.contains(id.as_str())),
            "{filter} showed B's rows to a researcher of A: {text}"
        );
        if let Some(total) = list.get("totalCount") {
            ensure!(total == 0, "{filter} counted B's rows: {text}");
        }
    }
    // B's member finds them, so the filter itself works.
    let (_, own) = get(
        &world,
        &world.callers[MEMBER_OF_B],
        "/api/v1/workloads?filterBy=projectName%3D%3Dbeta",
    )
    .await?;
    ensure!(
        own["workloads"].as_array().map(Vec::len) == Some(2),
        "{own}"
    );
    world.setup.tephra.stop().await
}
