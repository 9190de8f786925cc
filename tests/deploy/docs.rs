//! docs/DEPLOY.md tables the permissions the chart grants, with why Tephra needs each; the table
//! and the chart's rules must not drift apart.

use anyhow::{Context, bail, ensure};
use serde_json::Value;
use std::collections::BTreeSet;
use tephra_tests::chart::{self, RELEASE, Values, of_kind};

/// Where a permission holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Cluster,
    ReleaseNamespace,
    /// In each namespace Tephra creates, through the RoleBinding it makes there.
    ProjectNamespaces,
}

/// One permission: a verb on `resource[/subresource][.group]`, on the object `name` only when
/// the rule names objects.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Permission {
    pub resource: String,
    pub verb: String,
    pub scope: Scope,
    pub name: Option<String>,
}

/// The ClusterRole Tephra binds in each project namespace (the chart's `<release>-project`).
pub fn project_role() -> String {
    format!("{RELEASE}-project")
}

/// The RBAC table of docs/DEPLOY.md, one permission per verb.
pub fn rbac_table() -> anyhow::Result<BTreeSet<Permission>> {
    let path = tephra_tests::workspace::root().join("docs/DEPLOY.md");
    let text = std::fs::read_to_string(&path).context("docs/DEPLOY.md exists")?;
    let mut rows = text
        .lines()
        .skip_while(|l| !l.starts_with("| resource | verbs | where | why |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .peekable();
    ensure!(rows.peek().is_some(), "docs/DEPLOY.md has the RBAC table");
    let mut table = BTreeSet::new();
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let [resource, verbs, scope, _why] = cells[..] else {
            bail!("an RBAC row has four cells: {row}");
        };
        let scope = match scope {
            "cluster" => Scope::Cluster,
            "release namespace" => Scope::ReleaseNamespace,
            "project namespaces" => Scope::ProjectNamespaces,
            other => bail!("unknown scope {other:?} in {row}"),
        };
        // `resource` or `resource` named `object`.
        let (resource, name) = match resource.split_once(" named ") {
            Some((resource, name)) => (resource, Some(name.trim_matches('`').to_owned())),
            None => (resource, None),
        };
        for verb in verbs.split(',') {
            table.insert(Permission {
                resource: resource.trim_matches('`').to_owned(),
                verb: verb.trim().to_owned(),
                scope,
                name: name.clone(),
            });
        }
    }
    Ok(table)
}

/// The permissions the chart's ClusterRoles and Role grant, one per verb.
pub fn chart_rules() -> anyhow::Result<BTreeSet<Permission>> {
    let objects = chart::template(&Values::defaults())?;
    let mut granted = BTreeSet::new();
    for (kind, scope) in [
        ("ClusterRole", Scope::Cluster),
        ("Role", Scope::ReleaseNamespace),
    ] {
        for role in of_kind(&objects, kind) {
            let scope = if role["metadata"]["name"] == project_role().as_str() {
                Scope::ProjectNamespaces
            } else {
                scope
            };
            for rule in role["rules"].as_array().context("a role has rules")? {
                let strings = |v: &Value| -> Vec<String> {
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                };
                let names: Vec<Option<String>> = match strings(&rule["resourceNames"]) {
                    names if names.is_empty() => vec![None],
                    names => names.into_iter().map(Some).collect(),
                };
                for group in strings(&rule["apiGroups"]) {
                    for resource in strings(&rule["resources"]) {
                        for (verb, name) in strings(&rule["verbs"])
                            .into_iter()
                            .flat_map(|v| names.iter().map(move |n| (v.clone(), n.clone())))
                        {
                            ensure!(verb != "*" && resource != "*", "a wildcard rule: {rule}");
                            let resource = if group.is_empty() {
                                resource.clone()
                            } else {
                                format!("{resource}.{group}")
                            };
                            granted.insert(Permission {
                                resource,
                                verb,
                                scope,
                                name,
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(granted)
}

pub fn the_rbac_table_in_deploy_md_is_the_charts_rules() -> anyhow::Result<()> {
    let table = rbac_table()?;
    let granted = chart_rules()?;
    let undocumented: Vec<_> = granted.difference(&table).collect();
    let not_granted: Vec<_> = table.difference(&granted).collect();
    ensure!(
        undocumented.is_empty() && not_granted.is_empty(),
        "granted but not in docs/DEPLOY.md: {undocumented:?}\nin docs/DEPLOY.md but not granted: {not_granted:?}"
    );
    Ok(())
}
