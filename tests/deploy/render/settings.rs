//! The settings the chart takes: what Tephra would refuse is refused by `helm template`, and
//! every variable the pod gets is one Tephra reads.

use super::{container, deployment};
use anyhow::{Context, ensure};
use std::collections::BTreeSet;
use tephra_tests::chart::{self, Values};

pub fn sqlite_with_several_replicas_is_refused_at_template_time() -> anyhow::Result<()> {
    for values in [
        Values::defaults().set("replicaCount=3"),
        Values::defaults()
            .set("replicaCount=2")
            .set("database.sqlite.persistence.enabled=true"),
    ] {
        let refusal = chart::template_refusal(&values)?;
        for words in ["single replica", "PostgreSQL", "database.existingSecret"] {
            ensure!(refusal.contains(words), "{values:?}: {refusal}");
        }
    }
    // The same count with PostgreSQL renders.
    chart::template(&Values::production().set("replicaCount=2"))?;
    Ok(())
}

pub fn settings_tephra_would_refuse_are_refused_at_template_time() -> anyhow::Result<()> {
    let cases = [
        (
            Values::defaults().set("oidc.issuer=https://id.example.org"),
            "oidc.clientId is required",
        ),
        (
            Values::defaults()
                .set("oidc.issuer=https://id.example.org")
                .set("oidc.clientId=tephra"),
            "set publicUrl",
        ),
        (
            Values::defaults().set("publicUrl=http://tephra.example.org"),
            "allowInsecurePublicUrl",
        ),
        (
            Values::defaults().set("ingress.enabled=true"),
            "allowInsecurePublicUrl",
        ),
        (
            Values::defaults().set("database.url=mysql://db/tephra"),
            "database.url must be a PostgreSQL URL",
        ),
        (Values::defaults().set("replicaCount=0"), "at least 1"),
    ];
    for (values, expected) in cases {
        let refusal = chart::template_refusal(&values)?;
        ensure!(refusal.contains(expected), "{values:?}: {refusal}");
    }
    chart::template(
        &Values::defaults()
            .set("publicUrl=http://tephra.internal")
            .set("allowInsecurePublicUrl=true"),
    )?;
    Ok(())
}

/// The variables Tephra's command line reads (clap's `env = "..."`), from its source.
fn variables_tephra_reads() -> anyhow::Result<BTreeSet<String>> {
    let pattern = regex::Regex::new(r#"env\s*=\s*"([A-Z_]+)""#)?;
    let mut names = BTreeSet::new();
    let config = tephra_tests::workspace::root().join("server/src/config");
    for file in std::fs::read_dir(&config)? {
        let text = std::fs::read_to_string(file?.path())?;
        names.extend(pattern.captures_iter(&text).map(|c| c[1].to_owned()));
    }
    // Read with std::env by the leader election (config::replica_identity), not by clap.
    names.insert("POD_NAME".to_owned());
    Ok(names)
}

pub fn every_variable_the_pod_gets_is_one_tephra_reads() -> anyhow::Result<()> {
    let known = variables_tephra_reads()?;
    ensure!(
        known.contains("TEPHRA_DATABASE_URL"),
        "read the config: {known:?}"
    );
    let everything = Values::production()
        .set("allowInsecurePublicUrl=true")
        .set("config.clusterId=71f69d83-ba66-4822-adf5-55ce55efd210")
        .set("config.adminUsers={ada@example.org}")
        .set("oidc.uidClaim=uid")
        .set("oidc.gidClaim=gid")
        .set("oidc.audience=tephra-api");
    for values in [Values::defaults(), everything] {
        let objects = chart::template(&values)?;
        let c = container(deployment(&objects)?)?;
        for e in c["env"].as_array().context("the container has variables")? {
            let name = e["name"].as_str().unwrap_or_default();
            ensure!(
                known.contains(name),
                "{name} is not a variable Tephra reads"
            );
        }
    }
    Ok(())
}
