//! What Run:ai's current schema sets on the pod around the container: how it restarts, whether
//! it may be preempted, the nodes it requires, the registry secrets it pulls with, and links to
//! related services.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

request_choice! {
    /// The pod's restart policy.
    pub enum RestartPolicy {
        Always,
        Never,
        OnFailure,
    }
}

/// Whether the scheduler may take the training's GPUs back for in-quota work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Preemptibility {
    #[serde(rename = "preemptible")]
    Preemptible,
    #[serde(rename = "non-preemptible")]
    NonPreemptible,
}

request_part! {
    /// Kubernetes' required node affinity: the pod runs on a node matching any term.
    pub struct NodeAffinityRequired {
        pub node_selector_terms: Option<Vec<NodeSelectorTerm>>,
    }
}

request_part! {
    /// Requirements that all hold on a matching node.
    pub struct NodeSelectorTerm {
        pub match_expressions: Option<Vec<MatchExpression>>,
    }
}

request_part! {
    pub struct MatchExpression {
        pub key: String,
        pub operator: Option<MatchOperator>,
        pub values: Option<Vec<String>>,
    }
}

request_choice! {
    pub enum MatchOperator {
        In,
        NotIn,
        Exists,
        DoesNotExist,
        Gt,
        Lt,
    }
}

request_part! {
    /// A link to a service related to the training (for example its Weights & Biases run).
    pub struct RelatedUrl {
        pub url: Option<String>,
        #[serde(rename = "type")]
        pub kind: Option<String>,
        pub name: Option<String>,
        pub exclude: Option<bool>,
    }
}

/// A registry secret: Run:ai's object, or the secret's name alone (Tephra's shorthand, which
/// its form writes).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum ImagePullSecret {
    Name(String),
    Secret(PullSecret),
}

request_part! {
    pub struct PullSecret {
        /// The Kubernetes secret in the project's namespace.
        pub name: Option<String>,
        /// A secret only its creator may use (a Run:ai user credential).
        pub user_credential: Option<bool>,
        /// Leaves out a secret a policy's defaults add.
        pub exclude: Option<bool>,
    }
}

impl ImagePullSecret {
    pub fn name(&self) -> Option<&str> {
        match self {
            ImagePullSecret::Name(name) => Some(name),
            ImagePullSecret::Secret(secret) => secret.name.as_deref(),
        }
    }
}

/// By hand rather than `untagged`: an untagged enum buffers the object, and the unknown-field
/// check would no longer see a misspelt key inside it.
impl<'de> Deserialize<'de> for ImagePullSecret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = ImagePullSecret;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a secret's name or an object with name")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<ImagePullSecret, E> {
                Ok(ImagePullSecret::Name(name.to_owned()))
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<ImagePullSecret, M::Error> {
                PullSecret::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ImagePullSecret::Secret)
            }
        }
        deserializer.deserialize_any(Either)
    }
}
