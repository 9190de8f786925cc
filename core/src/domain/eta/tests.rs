use super::*;

fn holder(name: &str, gpus: f64, ends_in: Option<f64>) -> Holder {
    Holder {
        name: name.to_owned(),
        gpus,
        ends_in,
    }
}

fn pools(capacity: f64, holders: Vec<Holder>, ahead: Vec<Ahead>) -> Level {
    Level {
        kind: LevelKind::Pools(vec!["a".to_owned()]),
        capacity,
        holders,
        ahead,
        reclaimable: 0.0,
    }
}

fn one_pod(gpus: f64) -> Asked {
    Asked {
        gpus,
        pods: 1,
        per_pod: gpus,
        largest_node: Some(8.0),
        node_room: None,
    }
}

#[test]
fn room_now_starts_it_now() {
    let level = pools(8.0, vec![holder("a", 4.0, None)], Vec::new());
    let eta = estimate(&one_pod(2.0), &[level], &[]);
    assert_eq!(eta.bound, EtaBound::Now);
    assert!(eta.sooner.is_empty());
}

#[test]
fn time_limits_bound_the_start_and_the_gangs_ahead_widen_the_range() {
    let level = pools(
        8.0,
        vec![
            holder("resnet", 4.0, Some(600.0)),
            holder("bert", 4.0, Some(1800.0)),
        ],
        vec![Ahead {
            gpus: 4.0,
            runs_for: Some(3600.0),
        }],
    );
    let eta = estimate(&one_pod(4.0), &[level], &[]);
    assert_eq!(eta.bound, EtaBound::Within);
    assert_eq!(
        (eta.earliest_seconds, eta.latest_seconds),
        (Some(600), Some(1800))
    );
    assert!(
        eta.summary.starts_with("it starts in 10 min to 30 min"),
        "{}",
        eta.summary
    );
    assert!(eta.rests_on.contains(&"8 GPUs in node pools a".to_owned()));
    assert!(
        eta.rests_on
            .contains(&"resnet (4 GPUs) reaches its time limit in 10 min".to_owned()),
        "{:?}",
        eta.rests_on
    );
    assert!(
        eta.rests_on
            .contains(&"1 gang ahead of it asking 4 GPUs".to_owned())
    );
    assert_eq!(eta.sooner, Vec::<String>::new());
}

#[test]
fn a_smaller_gang_ahead_that_fits_goes_first_and_a_larger_one_waits() {
    // Volcano passes over a gang that does not fit: the 6-GPU gang ahead waits, the 1-GPU one
    // takes the free GPU, and the 2-GPU gang asked starts once x ends, before the 6-GPU one.
    let level = pools(
        4.0,
        vec![holder("x", 2.0, Some(60.0)), holder("y", 1.0, Some(120.0))],
        vec![
            Ahead {
                gpus: 6.0,
                runs_for: None,
            },
            Ahead {
                gpus: 1.0,
                runs_for: None,
            },
        ],
    );
    let eta = estimate(&one_pod(2.0), &[level], &[]);
    assert_eq!(eta.bound, EtaBound::Within);
    assert_eq!(
        (eta.earliest_seconds, eta.latest_seconds),
        (Some(60), Some(60))
    );
    assert!(
        eta.summary.starts_with("it starts in 1 min, if"),
        "{}",
        eta.summary
    );
}

#[test]
fn without_time_limits_it_says_so_and_what_fits_now() {
    let level = pools(
        8.0,
        vec![
            holder("notebook", 2.0, None),
            holder("sweep", 1.0, Some(60.0)),
        ],
        Vec::new(),
    );
    let asked = Asked {
        gpus: 8.0,
        pods: 4,
        per_pod: 2.0,
        largest_node: Some(8.0),
        node_room: None,
    };
    let eta = estimate(
        &asked,
        &[level],
        &[Elsewhere {
            pool: "b".to_owned(),
            free: 8.0,
        }],
    );
    assert_eq!(eta.bound, EtaBound::Unbounded);
    assert_eq!(
        eta.summary,
        "its start cannot be bounded: notebook in its way has no time limit"
    );
    assert_eq!(
        eta.sooner,
        [
            "fits now with 2 pods instead of 4 (2 GPUs each): fewer workers",
            "node pool b has 8 GPUs free: it fits there now (edit its node pools)",
        ]
    );
    assert_eq!((eta.earliest_seconds, eta.latest_seconds), (None, None));
}

#[test]
fn reclaim_frees_what_other_projects_borrow() {
    let mut level = pools(8.0, vec![holder("borrowed", 8.0, None)], Vec::new());
    level.reclaimable = 4.0;
    let eta = estimate(&one_pod(4.0), &[level], &[]);
    assert_eq!(eta.bound, EtaBound::Now);
    assert!(
        eta.rests_on
            .iter()
            .any(|line| line.starts_with("4 GPUs that other projects borrow"))
    );
}

#[test]
fn the_project_limit_holds_it_until_its_own_workloads_end() {
    let limit = Level {
        kind: LevelKind::ProjectLimit("vision".to_owned()),
        capacity: 2.0,
        holders: vec![holder("one", 1.0, Some(300.0)), holder("two", 1.0, None)],
        ahead: Vec::new(),
        reclaimable: 0.0,
    };
    let nodes = pools(16.0, vec![holder("one", 1.0, Some(300.0))], Vec::new());
    let eta = estimate(
        &one_pod(1.0),
        &[nodes, limit],
        &[Elsewhere {
            pool: "b".to_owned(),
            free: 8.0,
        }],
    );
    assert_eq!(eta.bound, EtaBound::Within);
    assert_eq!(eta.latest_seconds, Some(300));
    assert!(
        eta.rests_on
            .contains(&"project \"vision\"'s limit of 2 GPUs".to_owned())
    );
    assert_eq!(
        eta.sooner.len(),
        1,
        "another pool does not help: {:?}",
        eta.sooner
    );
    assert!(eta.sooner[0].starts_with("project \"vision\"'s limit holds it: its workloads use 2"));
}

#[test]
fn what_can_never_start_says_why() {
    let level = pools(16.0, Vec::new(), Vec::new());
    let eta = estimate(&one_pod(12.0), std::slice::from_ref(&level), &[]);
    assert_eq!(eta.bound, EtaBound::Never);
    assert_eq!(
        eta.summary,
        "it can never start as asked: each pod asks 12 GPUs and the largest node in its pools has 8"
    );
    assert_eq!(
        eta.sooner,
        [
            "pods of at most 8 GPUs fit its largest node: fewer GPUs a pod, and more workers for the same total"
        ]
    );
    let gone = Level {
        kind: LevelKind::Pools(vec!["retired".to_owned()]),
        capacity: 0.0,
        ..level
    };
    let eta = estimate(&one_pod(1.0), &[gone], &[]);
    assert_eq!(eta.bound, EtaBound::Never);
    assert!(
        eta.summary.contains("node pools (retired) have 0"),
        "{}",
        eta.summary
    );
}

#[test]
fn a_gang_wider_than_the_nodes_never_starts_and_one_spread_out_waits() {
    // Five pods of 5 GPUs on four nodes of 8: each node holds one.
    let asked = Asked {
        gpus: 25.0,
        pods: 5,
        per_pod: 5.0,
        largest_node: Some(8.0),
        node_room: Some(NodeRoom { empty: 4, now: 4 }),
    };
    let eta = estimate(&asked, &[pools(32.0, Vec::new(), Vec::new())], &[]);
    assert_eq!(eta.bound, EtaBound::Never);
    assert!(
        eta.summary.ends_with("hold at most 4 such pods at once"),
        "{}",
        eta.summary
    );
    assert_eq!(
        eta.sooner,
        [
            "its nodes hold 4 pods of 5 GPUs at once: with 4 pods instead of 5 (fewer workers) it can start"
        ]
    );
    // Four pods of 4 fit the 16 free GPUs in all, but three are spread one to a node.
    let asked = Asked {
        gpus: 16.0,
        pods: 4,
        per_pod: 4.0,
        largest_node: Some(8.0),
        node_room: Some(NodeRoom { empty: 8, now: 3 }),
    };
    let eta = estimate(
        &asked,
        &[pools(32.0, vec![holder("x", 16.0, None)], Vec::new())],
        &[],
    );
    assert_eq!(eta.bound, EtaBound::Unbounded);
    assert!(
        eta.summary.contains("only 3 of its 4 pods fit now"),
        "{}",
        eta.summary
    );
}
