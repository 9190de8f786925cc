//! Pure translation from training requests to Kubernetes objects: no I/O, no clock, no randomness
//! (a name suffix is passed in). `tephra render`, the API and the tests share it.

pub mod cluster;
pub mod labels;
pub mod ownership;
pub mod render;
pub mod request;
pub mod status;
pub mod volcano;
