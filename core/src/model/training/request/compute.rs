//! What a container asks for: GPUs, CPU, memory and extended resources.

use serde::{Deserialize, Serialize};

request_part! {
    pub struct Compute {
        pub gpu_devices_request: Option<i64>,
        pub gpu_request_type: Option<GpuRequestType>,
        pub gpu_portion_request: Option<f64>,
        pub gpu_portion_limit: Option<f64>,
        pub gpu_memory_request: Option<String>,
        pub gpu_memory_limit: Option<String>,
        pub mig_profile: Option<String>,
        pub cpu_core_request: Option<f64>,
        pub cpu_core_limit: Option<f64>,
        pub cpu_memory_request: Option<String>,
        pub cpu_memory_limit: Option<String>,
        pub large_shm_request: Option<bool>,
        pub extended_resources: Option<Vec<ExtendedResource>>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum GpuRequestType {
    Portion,
    Memory,
    MigProfile,
}

request_part! {
    pub struct ExtendedResource {
        pub resource: String,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
        pub quantity: Option<serde_json::Value>,
        pub exclude: Option<bool>,
    }
}
