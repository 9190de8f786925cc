//! Departments and projects on the real scheduler: each project's queue is a leaf under its
//! department's, with the quota as `deserved` and the limit as `capability`; a queue deleted by
//! hand comes back; what can never run is refused at submit with the numbers, and what fits the
//! limit on its own but not beside what runs is queued and starts when room frees.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use kube::api::{Api, DeleteParams, DynamicObject};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::{Testbed, queue_resource};

fn gpus(deserved: f64, limit: f64) -> Value {
    json!([{ "nodePool": { "name": "default" },
             "gpu": { "deserved": deserved, "limit": limit, "overQuotaWeight": 1 } }])
}

/// The queue's spec once it exists with `accept` true.
async fn queue_where(
    queues: &Api<DynamicObject>,
    name: &str,
    accept: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    tephra_tests::wait_for(
        &format!("queue {name}"),
        Duration::from_secs(30),
        || async {
            let queue = queues.get_opt(name).await.ok()??;
            let spec = queue.data.get("spec").cloned()?;
            accept(&spec).then_some(spec)
        },
    )
    .await
}

pub async fn projects_are_leaf_queues_under_their_department_and_come_back(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let (status, department) = t
            .post(
                "/api/v1/org-unit/departments",
                &json!({ "name": "lab", "resources": gpus(4.0, 8.0) }),
            )
            .await?;
        ensure!(status == 201, "department: {status} {department}");
        let (status, project) = t
            .post(
                "/api/v1/org-unit/projects",
                &json!({ "name": "vis", "parentId": department["id"], "resources": gpus(2.0, 4.0) }),
            )
            .await?;
        ensure!(status == 201, "project: {status} {project}");
        let queues: Api<DynamicObject> = Api::all_with(t.kube.clone(), &queue_resource());
        let parent = format!("{}lab.department", t.prefix);
        let leaf = format!("{}vis", t.prefix);
        let spec = queue_where(&queues, &leaf, |s| s["parent"] == parent.as_str()).await?;
        assert_eq!(spec["deserved"]["nvidia.com/gpu"], "2", "{spec}");
        assert_eq!(spec["capability"]["nvidia.com/gpu"], "4", "{spec}");
        assert_eq!(spec["reclaimable"], true);
        let dept = queue_where(&queues, &parent, |_| true).await?;
        assert_eq!(dept["capability"]["nvidia.com/gpu"], "8", "{dept}");
        // Drift: deleted by hand, the project's queue comes back with the next pass.
        queues.delete(&leaf, &DeleteParams::default()).await?;
        queue_where(&queues, &leaf, |s| s["parent"] == parent.as_str()).await?;
        // A training larger than the project's limit can never run: refused, naming the numbers.
        let mut big = training("big", 5);
        big["projectId"] = project["id"].clone();
        let (status, body) = t.post(TRAININGS, &big).await?;
        assert_eq!(status, 400, "{body}");
        assert!(
            body.to_string()
                .contains("asks 5 GPUs in total; project \\\"vis\\\" may use at most 4 GPUs"),
            "{body}"
        );
        // Within the limit it runs, in the project's own queue.
        let mut small = training("small", 1);
        small["projectId"] = json!("vis");
        let id = id_of(&t.submit(TRAININGS, &small).await?)?;
        let running = t.wait_phase(TRAININGS, &id, "Running").await?;
        assert_eq!(running["projectId"], project["id"]);
        assert_eq!(running["departmentId"], department["id"]);
        queues_what_fits_the_limit_alone(&t).await?;
        // A project with a live training cannot be deleted; once it is gone, it can.
        let path = format!("/api/v1/org-unit/projects/{}", project["id"].as_str().context("id")?);
        let (status, body) = t.delete(&path).await?;
        assert_eq!(status, 409, "{body}");
        assert!(body.to_string().contains("still has workloads"), "{body}");
        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(TRAININGS, &id).await?;
        let (status, body) = t.delete(&path).await?;
        assert_eq!(status, 204, "{body}");
        tephra_tests::wait_for("the project's queue to go", Duration::from_secs(30), || async {
            queues.get_opt(&leaf).await.ok()?.is_none().then_some(())
        })
        .await?;
        // What the deleted project left in its namespace is not handed to a new project of
        // its name, in this department or another.
        let again = json!({ "name": "vis", "parentId": department["id"] });
        let (status, body) = t.post("/api/v1/org-unit/projects", &again).await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["details"][0]["field"], "name", "{body}");
        let said = format!("namespace \"{}vis\" was made for project \"vis\"", t.prefix);
        let message = body["details"][0]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(&said), "{body}");
        let _ = Api::<k8s_openapi::api::core::v1::Namespace>::all(t.kube.clone())
            .delete(&format!("{}vis", t.prefix), &DeleteParams::default())
            .await;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Project `vis` (limit 4 GPUs) runs 1: a training of 3 fills it, and one more of 1 is accepted
/// into the queue (its history says so) and held back by the queue's capability while the others
/// run; when the 3 are deleted it starts.
async fn queues_what_fits_the_limit_alone(t: &Tephra) -> anyhow::Result<()> {
    let submit = |name: &'static str, gpus: u32| async move {
        let mut body = training(name, gpus);
        body["projectId"] = json!("vis");
        id_of(&t.submit(TRAININGS, &body).await?)
    };
    let more = submit("more", 3).await?;
    t.wait_phase(TRAININGS, &more, "Running").await?;
    let queued = submit("queued", 1).await?;
    let (status, history) = t
        .get(&format!("/api/v1/workloads/{queued}/history"))
        .await?;
    ensure!(status == 200, "{history}");
    ensure!(
        history.to_string().contains(
            "queued: project \\\"vis\\\" may use at most 4 GPUs (its limit) and its workloads ask \
             for 4; it starts when 1 GPU is free"
        ),
        "{history}"
    );
    // The scheduler considered it and left it waiting: Pending with its reason, not Running.
    let held = t
        .wait_until(TRAININGS, &queued, "the scheduler's reason", |b| {
            b["actualPhase"] == "Pending"
                && b["phaseMessage"].as_str().is_some_and(|m| !m.is_empty())
        })
        .await?;
    let (_, others) = t.get(&format!("{TRAININGS}/{more}")).await?;
    ensure!(others["actualPhase"] == "Running", "{others}");
    ensure!(held["actualPhase"] == "Pending", "{held}");
    let (status, _) = t.delete(&format!("{TRAININGS}/{more}")).await?;
    ensure!(status == 202);
    t.wait_phase(TRAININGS, &queued, "Running").await?;
    let (status, _) = t.delete(&format!("{TRAININGS}/{queued}")).await?;
    ensure!(status == 202);
    t.wait_gone(TRAININGS, &more).await?;
    t.wait_gone(TRAININGS, &queued).await
}
