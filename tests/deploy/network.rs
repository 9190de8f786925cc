//! The chart's NetworkPolicy for Tephra's own pods, as rendered: Tephra's port reachable only
//! from the namespaces the values name, egress only to DNS and the ports Tephra connects to.
//! (The testbed has no CNI that enforces NetworkPolicy; `cluster` has the API server validate the
//! object, and nothing here can show the traffic.)

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use tephra_tests::chart::{self, RELEASE, Values, find};

fn policy(values: &Values) -> anyhow::Result<Option<Value>> {
    let objects = chart::template(values)?;
    Ok(find(&objects, "NetworkPolicy", RELEASE).cloned())
}

pub fn tephras_pods_accept_only_the_named_namespaces_and_reach_only_their_ports()
-> anyhow::Result<()> {
    let alone = policy(&Values::defaults())?.context("on by default")?;
    let spec = &alone["spec"];
    assert_eq!(
        spec["podSelector"]["matchLabels"]["app.kubernetes.io/instance"],
        RELEASE
    );
    assert_eq!(spec["policyTypes"], json!(["Ingress", "Egress"]));
    // No rule at all, not a rule without peers (which would admit everyone).
    assert_eq!(spec["ingress"], json!([]), "{spec}");
    let egress = spec["egress"].as_array().context("egress rules")?;
    assert_eq!(
        egress[0]["to"][0]["podSelector"]["matchLabels"]["k8s-app"],
        "kube-dns"
    );
    let ports: Vec<i64> = egress
        .iter()
        .flat_map(|rule| rule["ports"].as_array().cloned().unwrap_or_default())
        .filter_map(|port| port["port"].as_i64())
        .collect();
    for port in [53, 443, 6443, 5432, 9090] {
        ensure!(ports.contains(&port), "no egress to port {port}: {ports:?}");
    }
    let production =
        policy(&Values::production().set("networkPolicy.egress.database.cidrs={10.0.0.0/8}"))?
            .context("on in production")?;
    let ingress = production["spec"]["ingress"]
        .as_array()
        .context("ingress rules")?;
    ensure!(ingress.len() == 1, "{ingress:?}");
    let from: Vec<&Value> = ingress[0]["from"]
        .as_array()
        .context("peers")?
        .iter()
        .collect();
    let namespaces: Vec<&Value> = from
        .iter()
        .map(|peer| &peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"])
        .collect();
    ensure!(
        namespaces == [&json!("ingress-nginx"), &json!("monitoring")],
        "{from:?}"
    );
    assert_eq!(
        ingress[0]["ports"],
        json!([{ "port": 3000, "protocol": "TCP" }])
    );
    let database = production["spec"]["egress"]
        .as_array()
        .context("egress rules")?
        .iter()
        .find(|rule| rule["ports"][0]["port"] == 5432)
        .context("a database rule")?;
    assert_eq!(
        database["to"],
        json!([{ "ipBlock": { "cidr": "10.0.0.0/8" } }])
    );
    ensure!(
        policy(&Values::defaults().set("networkPolicy.enabled=false"))?.is_none(),
        "networkPolicy.enabled=false still renders one"
    );
    Ok(())
}
