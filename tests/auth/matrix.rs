//! The authorization matrix: every route of the REST API (read from its OpenAPI document, so a
//! new route without an entry here fails) against every kind of caller, on a training in project
//! A, with the status each must get. Callers sign in with the real provider (sessions) or use an
//! application's token, as people and scripts do.

use super::world::{Caller, world};
use anyhow::{Context, bail, ensure};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The callers, in the order of each row's statuses.
const CALLERS: [&str; 7] = [
    "system admin",
    "project admin of A",
    "researcher of A",
    "viewer of A",
    "member of B only",
    "application of A",
    "anonymous",
];

/// Expected statuses per route, in [`CALLERS`] order.
fn expectations() -> BTreeMap<&'static str, [u16; 7]> {
    // A member of B holds nothing in A, so to them A and what it holds do not exist: a 404 for
    // a path, a 400 naming the field for a body's `projectId`, as for a key that names nothing.
    let read_a = [200, 200, 200, 200, 404, 200, 401];
    let change_a = [202, 202, 202, 403, 404, 202, 401];
    let submit_a = [202, 202, 202, 403, 400, 202, 401];
    let anyone = [200, 200, 200, 200, 200, 200, 401];
    let admin_only = [200, 404, 404, 404, 404, 404, 401];
    let system_only = |ok: u16| [ok, 403, 403, 403, 403, 403, 401];
    // What only system administrators change, on something in A.
    let system_only_in_a = |ok: u16, stranger: u16| [ok, 403, 403, 403, stranger, 403, 401];
    // Asking whether a training fits is asking to submit it: the same permission.
    let fit_a = [200, 200, 200, 403, 400, 200, 401];
    BTreeMap::from([
        ("GET /api/v1/workloads/trainings", anyone),
        ("POST /api/v1/workloads/trainings", submit_a),
        ("POST /api/v1/workloads/trainings/fit", fit_a),
        ("POST /api/v1/workloads/distributed/fit", fit_a),
        ("GET /api/v1/workloads/trainings/{id}", read_a),
        ("DELETE /api/v1/workloads/trainings/{id}", change_a),
        ("PATCH /api/v1/workloads/trainings/{id}", change_a),
        ("POST /api/v1/workloads/trainings/{id}/suspend", change_a),
        ("POST /api/v1/workloads/trainings/{id}/resume", change_a),
        ("GET /api/v1/workloads/distributed", anyone),
        ("POST /api/v1/workloads/distributed", submit_a),
        ("GET /api/v1/workloads/distributed/{id}", read_a),
        ("DELETE /api/v1/workloads/distributed/{id}", change_a),
        ("PATCH /api/v1/workloads/distributed/{id}", change_a),
        ("POST /api/v1/workloads/distributed/{id}/suspend", change_a),
        ("POST /api/v1/workloads/distributed/{id}/resume", change_a),
        ("GET /api/v1/workloads/generic", anyone),
        ("POST /api/v1/workloads/generic", submit_a),
        ("GET /api/v1/workloads/generic/{id}", read_a),
        ("DELETE /api/v1/workloads/generic/{id}", change_a),
        ("POST /api/v1/workloads/generic/{id}/suspend", change_a),
        ("POST /api/v1/workloads/generic/{id}/resume", change_a),
        ("GET /api/v1/workloads/{id}/history", read_a),
        // Run:ai's list of every kind: each caller sees what its projects hold.
        ("GET /api/v1/workloads", anyone),
        ("GET /api/v1/workloads/{id}", read_a),
        // Allowed callers pass the checks and learn that this server has no cluster to ask.
        (
            "GET /api/v1/workloads/{id}/pods/{pod}/logs",
            [503, 503, 503, 503, 404, 503, 401],
        ),
        // What was kept of its logs is read as its logs are, from the store: no cluster needed.
        (
            "GET /api/v1/workloads/{id}/kept-logs",
            [200, 200, 200, 200, 404, 200, 401],
        ),
        // The same, without a Prometheus to ask.
        (
            "GET /api/v1/workloads/{id}/metrics",
            [503, 503, 503, 503, 404, 503, 401],
        ),
        // A member of B cannot tell a workload of A from one that does not exist.
        (
            "GET /api/v1/workloads/events",
            [200, 200, 200, 200, 404, 200, 401],
        ),
        ("GET /api/v1/org-unit/projects", anyone),
        ("POST /api/v1/org-unit/projects", system_only(201)),
        ("GET /api/v1/org-unit/projects/{id}", read_a),
        (
            "PUT /api/v1/org-unit/projects/{id}",
            system_only_in_a(200, 404),
        ),
        (
            // A fresh project, outside A: nobody but the administrator holds anything in it.
            "DELETE /api/v1/org-unit/projects/{id}",
            [204, 404, 404, 404, 404, 404, 401],
        ),
        // Everyone sees the departments they may; project roles reach none, though members
        // know their project's department is there.
        ("GET /api/v1/org-unit/departments", anyone),
        ("POST /api/v1/org-unit/departments", system_only(201)),
        ("GET /api/v1/org-unit/departments/{id}", system_only(200)),
        ("PUT /api/v1/org-unit/departments/{id}", system_only(200)),
        ("DELETE /api/v1/org-unit/departments/{id}", system_only(204)),
        ("GET /api/v1/node-pools", anyone),
        // Scripts read the cluster's id to send it back: anyone signed in.
        ("GET /api/v1/clusters", anyone),
        ("GET /api/v1/clusters/{uuid}", anyone),
        (
            "GET /api/v2/policy/{kind}",
            [200, 200, 200, 200, 400, 200, 401],
        ),
        ("PUT /api/v2/policy/{kind}", system_only_in_a(200, 400)),
        ("DELETE /api/v2/policy/{kind}", system_only_in_a(204, 400)),
        ("GET /api/v1/cluster", anyone),
        ("GET /api/v1/authorization/roles", anyone),
        ("GET /api/v1/authorization/access-rules", anyone),
        (
            "POST /api/v1/authorization/access-rules",
            [201, 201, 403, 403, 400, 403, 401],
        ),
        (
            "GET /api/v1/authorization/access-rules/{id}",
            [200, 200, 200, 200, 404, 200, 401],
        ),
        (
            "DELETE /api/v1/authorization/access-rules/{id}",
            [204, 204, 403, 403, 404, 403, 401],
        ),
        ("GET /api/v1/apps", anyone),
        ("POST /api/v1/apps", [201, 201, 201, 201, 201, 403, 401]),
        ("GET /api/v1/apps/{id}", admin_only),
        ("DELETE /api/v1/apps/{id}", admin_only),
        // Only the creator (here the administrator) or a system administrator.
        ("POST /api/v1/apps/{id}/secret", admin_only),
        // Public: the credentials in the body decide.
        ("POST /api/v1/token", [200; 7]),
        ("GET /api/v1/audit", [200, 403, 403, 403, 403, 403, 401]),
    ])
}

fn routes(document: &Value) -> anyhow::Result<Vec<(Method, String)>> {
    let mut routes = Vec::new();
    for (path, item) in document["paths"].as_object().context("paths")? {
        for method in item.as_object().context("a path item")?.keys() {
            routes.push((method.to_uppercase().parse()?, path.clone()));
        }
    }
    Ok(routes)
}

#[tokio::test]
async fn every_route_answers_every_caller_as_the_matrix_says() -> anyhow::Result<()> {
    let world = world().await?;
    let document: Value = reqwest::get(world.url("/api/openapi.json"))
        .await?
        .json()
        .await?;
    let expected = expectations();
    let mut failures = Vec::new();
    let mut covered = 0;
    for (method, route) in routes(&document)? {
        let key = format!("{method} {route}");
        let Some(statuses) = expected.get(key.as_str()) else {
            failures.push(format!(
                "{key}: a route with no entry in the authorization matrix"
            ));
            continue;
        };
        covered += 1;
        for (who, (caller, want)) in CALLERS.iter().zip(world.callers.iter().zip(statuses)) {
            let (path, body) = world.request_for(&method, &route).await?;
            let answer = world
                .send(caller, method.clone(), &path, body.as_ref())
                .await?;
            let got = answer.status();
            if got != StatusCode::from_u16(*want)? {
                // An event stream never ends; read the body only of what is not one.
                let text = if got == StatusCode::OK {
                    String::new()
                } else {
                    answer.text().await?
                };
                failures.push(format!("{key} as {who}: {got}, expected {want} {text}"));
            }
        }
    }
    ensure!(
        covered == expected.len(),
        "{} matrix entries name no route of the API",
        expected.len() - covered
    );
    ensure!(failures.is_empty(), "{}", failures.join("\n"));
    world.setup.tephra.stop().await
}

#[tokio::test]
async fn a_member_of_b_sees_no_name_or_count_of_a() -> anyhow::Result<()> {
    let world = world().await?;
    let bea = &world.callers[4];
    // Something of B's, so the lists are not empty for want of anything.
    let body = json!({"name": "b1", "projectId": "beta", "spec": {"image": "busybox"}});
    let mine = world
        .send(
            bea,
            Method::POST,
            "/api/v1/workloads/trainings",
            Some(&body),
        )
        .await?;
    ensure!(mine.status() == 202, "{}", mine.status());
    for path in [
        "/api/v1/workloads/trainings",
        "/api/v1/org-unit/projects",
        "/api/v1/authorization/access-rules",
    ] {
        let text = world
            .send(bea, Method::GET, path, None)
            .await?
            .text()
            .await?;
        ensure!(
            !text.contains("alpha"),
            "{path} shows project A to a member of B: {text}"
        );
        ensure!(
            text.contains("beta") || path.contains("access-rules"),
            "{path}: {text}"
        );
    }
    let list: Value = world
        .send(bea, Method::GET, "/api/v1/workloads/trainings", None)
        .await?
        .json()
        .await?;
    ensure!(list["total"] == 1, "{list}");
    // The server functions behind the pages answer the same.
    let Caller::Session(browser) = bea else {
        bail!("bea signs in")
    };
    let overview: Value = browser
        .http
        .post(world.url("/api/fn/get_overview"))
        .header("accept", "application/json")
        .send()
        .await?
        .json()
        .await?;
    ensure!(overview["projects"] == 1, "{overview}");
    // Naming project A in a filter is answered as naming a project that does not exist.
    let mut answers = Vec::new();
    for key in ["alpha", "gamma"] {
        let path = format!("/api/v1/workloads/trainings?projectId={key}");
        let refused = world.send(bea, Method::GET, &path, None).await?;
        let status = refused.status();
        answers.push((status, refused.text().await?.replace(key, "KEY")));
    }
    ensure!(answers[0] == answers[1], "{answers:?}");
    ensure!(
        answers[0].0 == 400 && answers[0].1.contains("no project you can see"),
        "{answers:?}"
    );
    world.setup.tephra.stop().await
}
