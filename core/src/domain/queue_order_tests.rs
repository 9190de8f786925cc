use super::*;

fn gang<'a>(
    id: &'a str,
    queue: &'a str,
    pools: &'a [String],
    priority: i32,
    at: i64,
) -> Waiting<'a> {
    Waiting {
        id,
        queue,
        pools,
        priority,
        created_ms: at,
        gpus: 1.0,
    }
}

fn ids<'a>(waiting: &[Waiting<'a>], order: &[usize]) -> Vec<&'a str> {
    order.iter().map(|&i| waiting[i].id).collect()
}

#[test]
fn one_queue_takes_priority_then_age() {
    let any: Vec<String> = Vec::new();
    let waiting = [
        gang("old-train", "q", &any, priority_rank("train"), 1),
        gang("new-build", "q", &any, priority_rank("build"), 3),
        gang("new-train", "q", &any, priority_rank("train"), 2),
        gang("unknown", "q", &any, priority_rank("nightly"), 0),
    ];
    let order = order(&waiting, &BTreeMap::new());
    assert_eq!(
        ids(&waiting, &order),
        ["new-build", "old-train", "new-train", "unknown"]
    );
    let places = places(&waiting, &order);
    assert_eq!(places[1].in_queue, 1);
    assert_eq!(places[0].in_queue, 2);
    assert_eq!(places[3].in_queue, 4);
    assert!(places.iter().all(|p| p.queue_waiting == 4));
}

#[test]
fn queues_take_turns_by_share() {
    let any: Vec<String> = Vec::new();
    // Queue a already holds 4 of its 4 deserved GPUs; b holds none of its 4: b's gangs go
    // first until b's share reaches a's, then they alternate.
    let waiting = [
        gang("a1", "a", &any, 1, 1),
        gang("a2", "a", &any, 1, 2),
        gang("b1", "b", &any, 1, 3),
        gang("b2", "b", &any, 1, 4),
        gang("b3", "b", &any, 1, 5),
        gang("b4", "b", &any, 1, 6),
        gang("b5", "b", &any, 1, 7),
    ];
    let shares = BTreeMap::from([
        (
            "a",
            QueueShare {
                allocated: 4.0,
                deserved: Some(4.0),
            },
        ),
        (
            "b",
            QueueShare {
                allocated: 0.0,
                deserved: Some(4.0),
            },
        ),
    ]);
    let order = order(&waiting, &shares);
    assert_eq!(
        ids(&waiting, &order),
        ["b1", "b2", "b3", "b4", "a1", "b5", "a2"]
    );
    let places = places(&waiting, &order);
    assert_eq!((places[0].in_queue, places[0].in_pools), (1, 5));
    assert_eq!((places[6].in_queue, places[6].queue_waiting), (5, 5));
    assert!(places.iter().all(|p| p.pools_waiting == 7));
}

#[test]
fn a_best_effort_queue_keeps_share_zero_and_yields_at_a_tie() {
    let any: Vec<String> = Vec::new();
    let waiting = [
        gang("free-1", "none", &any, 1, 1),
        gang("free-2", "none", &any, 1, 2),
        gang("owed", "quota", &any, 1, 3),
    ];
    let best_effort = QueueShare {
        allocated: 5.0,
        deserved: None,
    };
    let owed = QueueShare {
        allocated: 0.0,
        deserved: Some(2.0),
    };
    let order = order(
        &waiting,
        &BTreeMap::from([("none", best_effort), ("quota", owed)]),
    );
    // Both at share 0: the queue with a quota first; then it holds 1 of 2 (0.5) and the
    // best-effort queue, still at 0 whatever it holds, takes every turn.
    assert_eq!(ids(&waiting, &order), ["owed", "free-1", "free-2"]);
}

#[test]
fn only_gangs_that_compete_for_a_pool_are_ahead() {
    let a = vec!["a".to_owned()];
    let b = vec!["b".to_owned()];
    let both = vec!["a".to_owned(), "b".to_owned()];
    let any: Vec<String> = Vec::new();
    let waiting = [
        gang("in-a", "q", &a, 1, 1),
        gang("in-b", "q", &b, 1, 2),
        gang("in-both", "q", &both, 1, 3),
        gang("anywhere", "q", &any, 1, 4),
        gang("in-b-too", "q", &b, 1, 5),
    ];
    let order = order(&waiting, &BTreeMap::new());
    let places = places(&waiting, &order);
    let in_pools: Vec<u32> = places.iter().map(|p| p.in_pools).collect();
    // in-b-too competes with in-b, in-both and anywhere, not with in-a.
    assert_eq!(in_pools, [1, 1, 3, 4, 4]);
    let of: Vec<u32> = places.iter().map(|p| p.pools_waiting).collect();
    assert_eq!(of, [3, 4, 5, 5, 4]);
    assert!(!overlap(&a, &b) && overlap(&a, &both) && overlap(&any, &b));
}

#[test]
fn nothing_waiting_orders_nothing() {
    assert!(order(&[], &BTreeMap::new()).is_empty());
    assert!(places(&[], &[]).is_empty());
}
