//! The Volcano job plugins each distributed framework needs.

use crate::domain::cluster::ClusterProfile;
use crate::model::training::distributed::Framework;
use std::collections::BTreeMap;

/// The plugins and their arguments for `framework`'s master and worker tasks.
pub(super) fn framework(
    framework: Framework,
    profile: &ClusterProfile,
) -> BTreeMap<String, Vec<String>> {
    let (master, worker) = framework.task_names();
    let mut plugins = BTreeMap::new();
    // svc gives every pod a stable DNS name (<pod>.<job>) and the host lists; the webhook adds it
    // for every framework plugin, so Tephra does too.
    plugins.insert("svc".to_owned(), Vec::new());
    plugins.insert("env".to_owned(), Vec::new());
    let tasks = |master_flag: &str| {
        vec![
            format!("--{master_flag}={master}"),
            format!("--worker={worker}"),
        ]
    };
    match framework {
        Framework::PyTorch => {
            let mut args = tasks("master");
            args.push(format!("--port={}", profile.pytorch_port));
            plugins.insert("pytorch".into(), args);
        }
        Framework::Mpi => {
            let mut args = tasks("master");
            args.push("--port=22".into());
            plugins.insert("mpi".into(), args);
            plugins.insert("ssh".into(), Vec::new());
        }
        Framework::TensorFlow => {
            let mut args = tasks("chief");
            args.push("--port=2222".into());
            plugins.insert("tensorflow".into(), args);
        }
        // No Volcano plugin for XGBoost: the env and svc plugins give ranks and host names, and
        // the tracker address is set on the pods (see `pod::container`).
        Framework::XGBoost => {}
    }
    plugins
}
