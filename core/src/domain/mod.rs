//! The pure core: translation from training requests to Kubernetes objects, and who may do what
//! ([`authz`]). No I/O, no clock, no randomness (a name suffix is passed in). `tephra render`, the
//! API and the tests share it.

/// Who may do what lives in the model, since a principal carries its grants to the pages.
pub use crate::model::authz;
pub mod audit_summary;
pub mod cluster;
pub mod diagnosis;
pub mod eta;
pub mod exposed;
pub mod finish;
pub mod gpu_use;
pub mod keyring;
pub mod labels;
pub mod live_edit;
pub mod log_hints;
pub mod logs;
pub mod namespaces;
pub mod node_loss;
pub mod ownership;
pub mod pods;
pub mod policy;
pub mod preemption;
pub mod queue_order;
pub mod quota;
pub mod render;
pub mod request;
pub mod rotating_key;
pub mod status;
pub mod time_limit;
pub mod volcano;
