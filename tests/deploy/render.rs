//! The chart rendered by `helm template`: what an installation relies on is in the objects, and
//! what would break one is refused before anything reaches a cluster.

use anyhow::{Context, ensure};
use serde_json::Value;
use tephra_tests::chart::{self, RELEASE, RELEASE_NAMESPACE, Values, find, of_kind};

mod settings;
pub use settings::{
    every_variable_the_pod_gets_is_one_tephra_reads,
    settings_tephra_would_refuse_are_refused_at_template_time,
    sqlite_with_several_replicas_is_refused_at_template_time,
};

fn deployment(objects: &[Value]) -> anyhow::Result<&Value> {
    find(objects, "Deployment", RELEASE).context("the chart renders the Deployment")
}

fn container(deployment: &Value) -> anyhow::Result<&Value> {
    deployment["spec"]["template"]["spec"]["containers"]
        .get(0)
        .context("the Deployment has a container")
}

fn env<'a>(container: &'a Value, name: &str) -> Option<&'a Value> {
    container["env"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
}

fn volume<'a>(deployment: &'a Value, name: &str) -> Option<&'a Value> {
    deployment["spec"]["template"]["spec"]["volumes"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == name)
}

fn mount_path<'a>(container: &'a Value, volume: &str) -> Option<&'a str> {
    container["volumeMounts"]
        .as_array()?
        .iter()
        .find(|m| m["name"] == volume)?["mountPath"]
        .as_str()
}

pub fn the_chart_lints_with_default_and_production_values() -> anyhow::Result<()> {
    for values in [Values::defaults(), Values::production()] {
        let output = chart::lint(&values)?;
        ensure!(
            output.contains("0 chart(s) failed"),
            "helm lint with {values:?}:\n{output}"
        );
    }
    Ok(())
}

/// The restricted Pod Security Standard and then some: a numeric non-root user, no privilege
/// escalation, no capabilities, the runtime's seccomp profile, and a read-only root.
fn check_hardened(deployment: &Value) -> anyhow::Result<()> {
    let pod = &deployment["spec"]["template"]["spec"];
    let c = container(deployment)?;
    let sc = &c["securityContext"];
    assert_eq!(sc["runAsNonRoot"], true);
    let uid = sc["runAsUser"].as_i64().context("a numeric runAsUser")?;
    ensure!(uid > 0, "runs as uid {uid}");
    assert_eq!(sc["allowPrivilegeEscalation"], false);
    assert_eq!(sc["readOnlyRootFilesystem"], true);
    assert_eq!(sc["capabilities"]["drop"], serde_json::json!(["ALL"]));
    assert!(sc["capabilities"]["add"].is_null(), "{sc}");
    assert_eq!(sc["seccompProfile"]["type"], "RuntimeDefault");
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(
        pod["securityContext"]["seccompProfile"]["type"],
        "RuntimeDefault"
    );
    for forbidden in ["hostNetwork", "hostPID", "hostIPC"] {
        ensure!(pod[forbidden] != true, "{forbidden} is set");
    }
    // The probes Tephra answers: alive while it serves HTTP, ready when its dependencies answer.
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    // ... on the port whose thread serves nothing else (`--probe-addr`).
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        assert_eq!(c[probe]["httpGet"]["port"], "probes", "{probe}");
    }
    let probes = env(c, "TEPHRA_PROBE_ADDR").context("TEPHRA_PROBE_ADDR is set")?;
    assert_eq!(probes["value"], "0.0.0.0:8081");
    ensure!(
        c["ports"].as_array().is_some_and(|ports| ports
            .iter()
            .any(|p| p["name"] == "probes" && p["containerPort"] == 8081)),
        "the probes' port is declared: {}",
        c["ports"]
    );
    ensure!(
        c["resources"]["requests"]["memory"].is_string()
            && c["resources"]["limits"]["memory"].is_string(),
        "memory is requested and limited: {}",
        c["resources"]
    );
    // The leader election reads both from the downward API.
    for (variable, field) in [
        ("POD_NAME", "metadata.name"),
        ("POD_NAMESPACE", "metadata.namespace"),
    ] {
        let e = env(c, variable).with_context(|| format!("{variable} is set"))?;
        assert_eq!(e["valueFrom"]["fieldRef"]["fieldPath"], field);
    }
    assert_eq!(
        env(c, "TEPHRA_DEV_LOGIN").map(|e| &e["value"]),
        Some(&"off".into())
    );
    // With a read-only root, every directory Tephra writes is a volume.
    let data = env(c, "TEPHRA_DATA_DIR").context("the data directory is set")?["value"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(mount_path(c, "data"), Some(data));
    assert_eq!(mount_path(c, "tmp"), Some("/tmp"));
    assert_eq!(
        pod["serviceAccountName"], RELEASE,
        "the pod runs as the chart's service account"
    );
    Ok(())
}

pub fn defaults_run_one_hardened_replica_on_sqlite_in_an_empty_dir() -> anyhow::Result<()> {
    let objects = chart::template(&Values::defaults())?;
    let d = deployment(&objects)?;
    check_hardened(d)?;
    assert_eq!(d["spec"]["replicas"], 1);
    // Two processes on one SQLite database, even for a moment, would both reconcile.
    assert_eq!(d["spec"]["strategy"]["type"], "Recreate");
    let c = container(d)?;
    ensure!(
        env(c, "TEPHRA_DATABASE_URL").is_none(),
        "SQLite needs no URL"
    );
    ensure!(
        env(c, "TEPHRA_TRUST_FORWARDED_FOR").is_none(),
        "without the Ingress and its namespaces, a forwarded address is anyone's to claim"
    );
    ensure!(env(c, "TEPHRA_METRICS_TOKEN_FILE").is_none());
    ensure!(
        volume(d, "data").is_some_and(|v| v["emptyDir"].is_object()),
        "the data directory is an emptyDir"
    );
    ensure!(
        of_kind(&objects, "PodDisruptionBudget").is_empty(),
        "one replica gets no PodDisruptionBudget: it could only block a drain"
    );
    for absent in ["Ingress", "Secret", "ConfigMap", "PersistentVolumeClaim"] {
        ensure!(
            of_kind(&objects, absent).is_empty(),
            "no {absent} by default"
        );
    }
    for kind in [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "Service",
    ] {
        ensure!(!of_kind(&objects, kind).is_empty(), "a {kind} is rendered");
    }
    let role = &of_kind(&objects, "Role")[0];
    assert_eq!(role["metadata"]["namespace"], RELEASE_NAMESPACE);
    let rules = role["rules"].as_array().context("the Role has rules")?;
    ensure!(
        rules
            .iter()
            .all(|r| r["resources"] == serde_json::json!(["leases"])),
        "the namespaced Role is for the leader Lease only: {role}"
    );
    Ok(())
}

pub fn production_values_reference_secrets_and_spread_three_replicas() -> anyhow::Result<()> {
    let objects = chart::template(&Values::production())?;
    let d = deployment(&objects)?;
    check_hardened(d)?;
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["spec"]["strategy"]["type"], "RollingUpdate");
    let c = container(d)?;
    let url = env(c, "TEPHRA_DATABASE_URL").context("PostgreSQL's URL is passed")?;
    assert_eq!(url["valueFrom"]["secretKeyRef"]["name"], "tephra-database");
    assert_eq!(url["valueFrom"]["secretKeyRef"]["key"], "url");
    ensure!(url["value"].is_null(), "the URL is referenced, not inlined");
    // The client secret is a file from the existing Secret, never a variable.
    ensure!(env(c, "TEPHRA_OIDC_CLIENT_SECRET").is_none());
    let file = env(c, "TEPHRA_OIDC_CLIENT_SECRET_FILE").context("the secret file is named")?;
    let file = file["value"].as_str().unwrap_or_default();
    let oidc = volume(d, "oidc").context("the OIDC secret is a volume")?;
    assert_eq!(oidc["secret"]["secretName"], "tephra-oidc");
    ensure!(file.starts_with(mount_path(c, "oidc").unwrap_or("?")));
    ensure!(
        of_kind(&objects, "Secret").is_empty(),
        "existing Secrets are used, none is made"
    );
    assert_eq!(
        env(c, "TEPHRA_PUBLIC_URL").map(|e| &e["value"]),
        Some(&"https://tephra.example.org".into())
    );
    // Behind the Ingress, with only its namespaces let in, clients count by the address it saw.
    assert_eq!(
        env(c, "TEPHRA_TRUST_FORWARDED_FOR").map(|e| &e["value"]),
        Some(&"true".into())
    );
    let token = env(c, "TEPHRA_METRICS_TOKEN_FILE").context("the scraper's token file")?;
    let metrics = volume(d, "metrics-token").context("the token is a volume")?;
    assert_eq!(metrics["secret"]["secretName"], "tephra-metrics");
    ensure!(
        token["value"]
            .as_str()
            .unwrap_or_default()
            .starts_with(mount_path(c, "metrics-token").unwrap_or("?"))
    );

    let pdb = of_kind(&objects, "PodDisruptionBudget");
    ensure!(pdb.len() == 1, "three replicas get a PodDisruptionBudget");
    let pod_labels = &d["spec"]["template"]["metadata"]["labels"];
    let selector = pdb[0]["spec"]["selector"]["matchLabels"]
        .as_object()
        .context("the PDB selects by labels")?;
    for (key, value) in selector {
        assert_eq!(&pod_labels[key], value, "the PDB selects Tephra's pods");
    }

    let ingress = find(&objects, "Ingress", RELEASE).context("the Ingress is rendered")?;
    assert_eq!(ingress["spec"]["ingressClassName"], "nginx");
    assert_eq!(ingress["spec"]["rules"][0]["host"], "tephra.example.org");
    assert_eq!(ingress["spec"]["tls"][0]["secretName"], "tephra-tls");
    assert_eq!(
        ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["name"],
        RELEASE
    );

    // The cluster profile is the values' object, as a file Tephra is pointed at.
    let profile = of_kind(&objects, "ConfigMap");
    let text = profile
        .first()
        .and_then(|m| m["data"]["profile.yaml"].as_str())
        .context("the profile ConfigMap has profile.yaml")?;
    let parsed: Value = serde_yaml::from_str(text)?;
    let values: Value =
        serde_yaml::from_str(&std::fs::read_to_string(chart::production_values())?)?;
    assert_eq!(parsed, values["clusterProfile"]);
    let path = env(c, "TEPHRA_CLUSTER_PROFILE").context("the profile is passed")?["value"]
        .as_str()
        .unwrap_or_default();
    ensure!(path.starts_with(mount_path(c, "profile").unwrap_or("?")));
    Ok(())
}

pub fn secrets_given_as_values_go_into_secrets_not_the_pod_spec() -> anyhow::Result<()> {
    let (password, client_secret) = ("pw-4b1d9e", "cs-8f7a2c");
    let values = Values::production()
        .set("database.existingSecret=")
        .set(format!(
            "database.url=postgres://tephra:{password}@db:5432/tephra"
        ))
        .set("oidc.existingSecret=")
        .set(format!("oidc.clientSecret={client_secret}"));
    let objects = chart::template(&values)?;
    let secrets = of_kind(&objects, "Secret");
    ensure!(
        secrets.len() == 2,
        "a Secret each for the URL and the client secret"
    );
    let d = deployment(&objects)?;
    let spec = serde_json::to_string(d)?;
    for secret in [password, client_secret] {
        ensure!(!spec.contains(secret), "{secret} is in the Deployment");
    }
    let c = container(d)?;
    let url = env(c, "TEPHRA_DATABASE_URL").context("the URL is passed")?;
    let name = url["valueFrom"]["secretKeyRef"]["name"].as_str();
    let key = url["valueFrom"]["secretKeyRef"]["key"]
        .as_str()
        .unwrap_or_default();
    let secret = find(&objects, "Secret", name.unwrap_or_default())
        .context("the URL's Secret is the chart's")?;
    ensure!(secret["data"][key].is_string(), "{secret}");
    let oidc = volume(d, "oidc").context("the client secret is mounted")?;
    let name = oidc["secret"]["secretName"].as_str().unwrap_or_default();
    ensure!(find(&objects, "Secret", name).is_some());
    Ok(())
}

pub fn a_keys_secret_is_mounted_read_only_and_passed_as_the_keys_file() -> anyhow::Result<()> {
    let objects = chart::template(&Values::production())?;
    let d = deployment(&objects)?;
    let c = container(d)?;
    let keys = volume(d, "keys").context("the keys Secret is a volume")?;
    assert_eq!(keys["secret"]["secretName"], "tephra-keys");
    assert_eq!(keys["secret"]["items"][0]["key"], "keys.yaml");
    assert_eq!(keys["secret"]["defaultMode"], 288);
    let file = env(c, "TEPHRA_KEYS_FILE").context("the keys file is named")?["value"]
        .as_str()
        .unwrap_or_default();
    let mount = mount_path(c, "keys").context("the keys are mounted")?;
    ensure!(file.starts_with(mount), "{file} under {mount}");
    let mounted = c["volumeMounts"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == "keys"))
        .context("the keys mount")?;
    assert_eq!(mounted["readOnly"], true);
    // Another key name in the Secret is still the file Tephra reads.
    let objects = chart::template(&Values::production().set("keys.existingSecretKey=signing"))?;
    let d = deployment(&objects)?;
    let keys = volume(d, "keys").context("the keys Secret is a volume")?;
    assert_eq!(keys["secret"]["items"][0]["key"], "signing");
    assert_eq!(keys["secret"]["items"][0]["path"], "keys.yaml");
    // Without the value the keys stay in the database: no variable, no volume.
    let objects = chart::template(&Values::defaults())?;
    let d = deployment(&objects)?;
    ensure!(env(container(d)?, "TEPHRA_KEYS_FILE").is_none());
    ensure!(volume(d, "keys").is_none());
    Ok(())
}

pub fn a_persistent_sqlite_volume_is_a_kept_claim() -> anyhow::Result<()> {
    let objects =
        chart::template(&Values::defaults().set("database.sqlite.persistence.enabled=true"))?;
    let claims = of_kind(&objects, "PersistentVolumeClaim");
    ensure!(claims.len() == 1, "one claim for the database");
    let claim = claims[0];
    assert_eq!(
        claim["metadata"]["annotations"]["helm.sh/resource-policy"], "keep",
        "uninstalling keeps the database"
    );
    let d = deployment(&objects)?;
    assert_eq!(
        volume(d, "data").context("a data volume")?["persistentVolumeClaim"]["claimName"],
        claim["metadata"]["name"]
    );
    // PostgreSQL needs no volume of its own, whatever persistence says.
    let objects =
        chart::template(&Values::production().set("database.sqlite.persistence.enabled=true"))?;
    ensure!(of_kind(&objects, "PersistentVolumeClaim").is_empty());
    Ok(())
}
