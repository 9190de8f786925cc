//! What rendering gives: the Job and the objects that live beside it.

use super::super::volcano::Job;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim, Secret, Service};
use k8s_openapi::api::networking::v1::Ingress;
use serde::Serialize;

/// A Job and what must exist beside it. Secrets, volumes, PVCs, Services and Ingresses belong to
/// the workload, not the Job, so they outlive a suspend (which deletes the Job).
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    pub job: Job,
    /// The S3 driver's Secrets, written before the volumes that name them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub s3_secrets: Vec<S3Secret>,
    /// Static volumes (S3 buckets); cluster-wide objects, unlike everything else here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub persistent_volumes: Vec<PersistentVolume>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub persistent_volume_claims: Vec<PersistentVolumeClaim>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<Service>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ingresses: Vec<Ingress>,
    /// The workload starts suspended (generic pause mode): the Job is created only on resume.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub starts_paused: bool,
}

/// The Secret an S3 volume's driver reads. Its keys cannot be rendered: they are copied from the
/// request's secret when the Job is created, as `copy` says (the secret, and its keys holding the
/// access key id and the secret key).
#[derive(Debug, Clone, PartialEq)]
pub struct S3Secret {
    pub secret: Secret,
    pub copy: Option<(String, [String; 2])>,
}

/// As the Secret alone: the copy is an instruction to the controller, not part of an object.
impl Serialize for S3Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.secret.serialize(serializer)
    }
}

impl Rendered {
    /// Every object as the cluster gets it: the Job first, then Secrets, volumes, PVCs, Services
    /// and Ingresses.
    pub fn objects(&self) -> Result<Vec<serde_json::Value>, serde_json::Error> {
        let mut objects = vec![serde_json::to_value(&self.job)?];
        for secret in &self.s3_secrets {
            objects.push(serde_json::to_value(&secret.secret)?);
        }
        for volume in &self.persistent_volumes {
            objects.push(serde_json::to_value(volume)?);
        }
        for claim in &self.persistent_volume_claims {
            objects.push(serde_json::to_value(claim)?);
        }
        for service in &self.services {
            objects.push(serde_json::to_value(service)?);
        }
        for ingress in &self.ingresses {
            objects.push(serde_json::to_value(ingress)?);
        }
        Ok(objects)
    }

    /// [`Rendered::objects`] as one YAML stream of `---`-separated documents.
    pub fn to_yaml(&self) -> Result<String, String> {
        let mut out = String::new();
        for object in self.objects().map_err(|e| e.to_string())? {
            out.push_str("---\n");
            out.push_str(&serde_yaml::to_string(&object).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }
}

/// YAML with each warning as a comment above the objects, where a reader sees it first.
pub fn with_warnings(warnings: &[crate::model::validation::FieldError], yaml: String) -> String {
    let mut out: String = warnings
        .iter()
        .map(|w| format!("# warning: {}: {}\n", w.path, w.message.replace('\n', " ")))
        .collect();
    out.push_str(&yaml);
    out
}

#[cfg(test)]
mod tests {
    use super::with_warnings;
    use crate::model::validation::FieldError;

    #[test]
    fn warnings_come_first_as_comments() {
        let warnings = [FieldError {
            path: "spec.a".into(),
            message: "has no effect\nat all".into(),
        }];
        assert_eq!(
            with_warnings(&warnings, "kind: Job\n".into()),
            "# warning: spec.a: has no effect at all\nkind: Job\n"
        );
        assert_eq!(with_warnings(&[], "kind: Job\n".into()), "kind: Job\n");
    }
}
