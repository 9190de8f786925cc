//! Wire types shared by the browser and the server: plain serde, no I/O.

pub mod access;
pub mod action;
pub mod authz;
pub mod cluster;
pub mod diagnosis;
pub mod edit;
pub mod fit;
pub mod gpu_use;
pub mod history;
pub mod kind;
pub mod live;
pub mod org;
pub mod org_form;
pub mod overview;
pub mod phase;
pub mod policy;
pub mod principal;
pub mod project;
pub mod queue;
pub mod system;
pub mod training;
pub mod url;
pub mod usage;
pub mod validation;
pub mod waits;
pub mod workload;
