use super::*;
use crate::model::org::PoolRef;

fn pool(name: &str, gpu: Share) -> PoolResources {
    PoolResources {
        node_pool: PoolRef {
            id: None,
            name: name.into(),
        },
        gpu,
        cpu: Share::default(),
        memory: Share::default(),
    }
}

fn gpus(deserved: Option<f64>, limit: Option<f64>) -> Share {
    Share {
        deserved,
        limit,
        over_quota_weight: None,
    }
}

fn unit<'a>(kind: &'static str, name: &'a str, allowance: Allowance, used: f64) -> Unit<'a> {
    Unit {
        kind,
        name,
        allowance,
        used: Amount {
            gpus: used,
            ..Amount::default()
        },
        reclaimable: Amount::default(),
    }
}

fn demand(total: f64, per_pod: f64, pools: &[&str]) -> Demand {
    Demand {
        total: Amount {
            gpus: total,
            ..Amount::default()
        },
        largest_pod: Amount {
            gpus: per_pod,
            ..Amount::default()
        },
        pools: pools.iter().map(|p| p.to_string()).collect(),
        field: "spec.compute".into(),
        non_preemptible: false,
    }
}

fn node(pool: &str, gpus: f64) -> (String, Amount) {
    (
        pool.into(),
        Amount {
            gpus,
            cpu_millis: 64_000,
            memory_mib: 512 * 1024,
        },
    )
}

#[test]
fn the_allowance_sums_the_pools_and_null_means_none() {
    let a = Allowance::of(&[
        pool("a", gpus(Some(2.0), Some(4.0))),
        pool("b", gpus(Some(1.0), Some(2.0))),
    ]);
    assert_eq!(a.deserved.gpus, Some(3.0));
    assert_eq!(a.limit.gpus, Some(6.0));
    assert_eq!(a.deserved.cpu_millis, None);
    let open = Allowance::of(&[
        pool("a", gpus(Some(2.0), Some(4.0))),
        pool("b", gpus(None, None)),
    ]);
    assert_eq!(
        open.limit.gpus, None,
        "an unlimited pool leaves the sum unlimited"
    );
    assert_eq!(Allowance::of(&[]), Allowance::default());
}

#[test]
fn within_quota_over_quota_and_over_the_limit() {
    let project = Allowance::of(&[pool("a", gpus(Some(2.0), Some(4.0)))]);
    let none = Allowance::default();
    let dept = unit("department", "research", none, 0.0);
    let p = unit("project", "vision", project, 1.0);
    assert_eq!(
        admit(&demand(1.0, 1.0, &[]), &p, &dept, &[]),
        Ok(Standing::WithinQuota)
    );
    let Ok(Standing::OverQuota(why)) = admit(&demand(2.0, 1.0, &[]), &p, &dept, &[]) else {
        panic!("expected over quota");
    };
    assert!(why.contains("3 GPUs with this one, quota 2"), "{why}");
    // Within the limit on its own, not beside what runs: it queues.
    assert_eq!(
        admit(&demand(4.0, 1.0, &[]), &p, &dept, &[]),
        Ok(Standing::Queued(
            "queued: project \"vision\" may use at most 4 GPUs (its limit) and its workloads \
             ask for 1; it starts when 1 GPU is free"
                .into()
        ))
    );
    let refused = admit(&demand(5.0, 1.0, &[]), &p, &dept, &[]).unwrap_err();
    assert_eq!(refused[0].path, "spec.compute");
    assert_eq!(
        refused[0].message,
        "asks 5 GPUs in total; project \"vision\" may use at most 4 GPUs (its limit)"
    );
}

#[test]
fn a_non_preemptible_request_must_stay_within_quota() {
    let project = Allowance::of(&[pool("a", gpus(Some(2.0), Some(4.0)))]);
    let dept = unit("department", "research", Allowance::default(), 0.0);
    let p = unit("project", "vision", project, 1.0);
    let steady = Demand {
        non_preemptible: true,
        ..demand(1.0, 1.0, &[])
    };
    assert_eq!(admit(&steady, &p, &dept, &[]), Ok(Standing::WithinQuota));
    let beyond = Demand {
        non_preemptible: true,
        ..demand(2.0, 1.0, &[])
    };
    let refused = admit(&beyond, &p, &dept, &[]).unwrap_err();
    assert_eq!(refused[0].path, "spec.compute");
    assert!(
        refused[0].message.starts_with(
            "is non-preemptible, so it may run only within project \"vision\"'s quota"
        ),
        "{refused:?}"
    );
    assert!(
        refused[0].message.contains("3 GPUs with this one, quota 2"),
        "{refused:?}"
    );
}

#[test]
fn a_request_larger_than_the_limit_says_so_alone() {
    let p = unit(
        "project",
        "vision",
        Allowance::of(&[pool("a", gpus(None, Some(8.0)))]),
        0.0,
    );
    let dept = unit("department", "research", Allowance::default(), 0.0);
    let refused = admit(&demand(16.0, 1.0, &[]), &p, &dept, &[]).unwrap_err();
    assert_eq!(
        refused[0].message,
        "asks 16 GPUs in total; project \"vision\" may use at most 8 GPUs (its limit)"
    );
}

#[test]
fn the_department_caps_its_projects_together() {
    let p = unit("project", "vision", Allowance::default(), 0.0);
    let dept = unit(
        "department",
        "research",
        Allowance::of(&[pool("a", gpus(Some(4.0), Some(6.0)))]),
        5.0,
    );
    let Ok(Standing::Queued(why)) = admit(&demand(2.0, 1.0, &[]), &p, &dept, &[]) else {
        panic!("expected to queue behind the department's work");
    };
    assert!(
        why.contains("department \"research\" may use at most 6 GPUs (its limit)")
            && why.contains("it starts when 1 GPU is free"),
        "{why}"
    );
    let Ok(Standing::Queued(why)) = admit(&demand(3.0, 1.0, &[]), &p, &dept, &[]) else {
        panic!("expected to queue behind the department's work");
    };
    assert!(why.ends_with("it starts when 2 GPUs are free"), "{why}");
    let refused = admit(&demand(7.0, 1.0, &[]), &p, &dept, &[]).unwrap_err();
    assert!(
        refused[0].message.contains("department \"research\""),
        "{refused:?}"
    );
}

#[test]
fn a_pod_larger_than_every_node_of_its_pools_is_refused() {
    let p = unit("project", "vision", Allowance::default(), 0.0);
    let dept = unit("department", "research", Allowance::default(), 0.0);
    let nodes = [node("a", 8.0), node("b", 16.0)];
    let refused = admit(&demand(16.0, 16.0, &["a"]), &p, &dept, &nodes).unwrap_err();
    assert_eq!(
        refused[0].message,
        "asks 16 GPUs per pod; the largest node in pool a has 8"
    );
    assert!(
        admit(&demand(16.0, 16.0, &[]), &p, &dept, &nodes).is_ok(),
        "pool b holds it"
    );
    let unknown = admit(&demand(1.0, 1.0, &["z"]), &p, &dept, &nodes).unwrap_err();
    assert_eq!(
        unknown[0].message,
        "asks for node pools z; this cluster has a, b"
    );
    assert!(
        admit(&demand(99.0, 99.0, &[]), &p, &dept, &[]).is_ok(),
        "no nodes known"
    );
}

#[test]
fn shares_are_checked_by_field() {
    let errors = check_resources(&[
        pool("a", gpus(Some(4.0), Some(2.0))),
        pool("a", gpus(Some(-1.0), None)),
    ]);
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "resources[0].gpu.limit",
            "resources[1].nodePool.name",
            "resources[1].gpu.deserved"
        ]
    );
}

#[test]
fn other_projects_quotas_sum_per_resource_and_unset_stays_unset() {
    let a = [
        pool("a", gpus(Some(3.0), None)),
        pool("b", gpus(Some(0.5), None)),
    ];
    let b = [pool("a", gpus(None, Some(2.0)))];
    let c = [pool("a", gpus(Some(1.0), None))];
    let sum = deserved_sum([&a[..], &b[..], &c[..]]);
    assert_eq!(sum.gpus, Some(4.5));
    assert_eq!((sum.cpu_millis, sum.memory_mib), (None, None));
    assert_eq!(deserved_sum([&b[..]]), Bound::default());
}

#[test]
fn projects_share_their_department_quota() {
    let dept = Allowance::of(&[pool("a", gpus(Some(4.0), Some(6.0)))]);
    let others = Bound {
        gpus: Some(3.0),
        ..Bound::default()
    };
    let fits = Allowance::of(&[pool("a", gpus(Some(1.0), Some(6.0)))]);
    assert!(within_department("research", &dept, &others, &fits).is_empty());
    let too_much = Allowance::of(&[pool("a", gpus(Some(2.0), Some(8.0)))]);
    let errors = within_department("research", &dept, &others, &too_much);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(
        errors[0].message,
        "the quotas of department \"research\"'s projects would total 5 GPUs; its quota is 4 \
         GPUs (other projects hold 3)"
    );
    assert_eq!(
        errors[1].message,
        "a limit of 8 GPUs is above department \"research\"'s limit of 6 GPUs"
    );
}

#[test]
fn what_other_projects_borrowed_does_not_block_a_request_within_quota() {
    let p = unit(
        "project",
        "lender",
        Allowance::of(&[pool("default", gpus(Some(24.0), Some(24.0)))]),
        0.0,
    );
    let mut dept = unit(
        "department",
        "share",
        Allowance::of(&[pool("default", gpus(Some(32.0), Some(32.0)))]),
        32.0,
    );
    // The borrower runs 32 GPUs on a quota of 8: 24 of them are lent.
    dept.reclaimable = lent(
        Amount {
            gpus: 32.0,
            ..Amount::default()
        },
        &Allowance::of(&[pool("default", gpus(Some(8.0), Some(32.0)))]),
    );
    assert_eq!(dept.reclaimable.gpus, 24.0);
    assert_eq!(
        admit(&demand(8.0, 8.0, &[]), &p, &dept, &[]),
        Ok(Standing::WithinQuota)
    );
    // Beyond its own quota it may not borrow what is already lent: the department is full.
    let busy = Unit {
        used: Amount {
            gpus: 24.0,
            ..Amount::default()
        },
        ..p.clone()
    };
    let Ok(Standing::Queued(why)) = admit(&demand(8.0, 8.0, &[]), &busy, &dept, &[]) else {
        panic!("over quota in a full department waits in the queue");
    };
    assert!(
        why.contains("department \"share\" may use at most 32 GPUs"),
        "{why}"
    );
    // A resource without a quota is all lent.
    assert_eq!(
        lent(
            Amount {
                gpus: 3.0,
                ..Amount::default()
            },
            &Allowance::default()
        )
        .gpus,
        3.0
    );
}

#[test]
fn what_a_queue_holds_back_beyond_its_limit() {
    let allowance = Allowance::of(&[pool("a", gpus(Some(2.0), Some(4.0)))]);
    let asks = |gpus| Amount {
        gpus,
        ..Amount::default()
    };
    assert_eq!(beyond_limit(asks(7.0), &allowance).gpus, 3.0);
    assert_eq!(beyond_limit(asks(3.0), &allowance).gpus, 0.0);
    assert_eq!(
        beyond_limit(asks(7.0), &Allowance::default()).gpus,
        0.0,
        "no limit holds nothing back"
    );
}

#[test]
fn a_project_may_have_only_so_many_waiting() {
    assert!(waiting_room("vision", 0, 2).is_ok());
    assert!(waiting_room("vision", 1, 2).is_ok());
    let refused = waiting_room("vision", 2, 2).unwrap_err();
    assert_eq!(refused.path, "projectId");
    assert!(refused.message.contains("already has 2 workloads waiting"));
    assert!(refused.message.contains("at most 2 waiting at once"));
    assert!(refused.message.contains("maxWaitingPerProject"));
    // A cluster that allows none refuses the first.
    assert!(waiting_room("vision", 0, 0).is_err());
}
