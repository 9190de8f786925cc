//! What a checked container asks for.

use crate::model::training::values::{
    CpuCores, ExtendedQuantity, GpuPortion, MigProfile, Quantity,
};

#[derive(Debug, Clone, PartialEq)]
pub struct Compute {
    pub gpu: Gpu,
    pub cpu_request: Option<CpuCores>,
    pub cpu_limit: Option<CpuCores>,
    pub memory_request: Option<Quantity>,
    pub memory_limit: Option<Quantity>,
    /// A memory-backed `/dev/shm`.
    pub large_shm: bool,
    /// Extended resources to request, without the excluded ones.
    pub extended: Vec<(String, ExtendedQuantity)>,
}

/// The one way a container asks for GPUs. `devices` is how many GPUs (or vGPUs, or MIG slices)
/// the request names; the fractional styles ask for at least one.
#[derive(Debug, Clone, PartialEq)]
pub enum Gpu {
    /// No GPU style and no devices.
    None,
    /// Whole GPUs.
    Devices(u64),
    Portion {
        devices: u64,
        portion: GpuPortion,
    },
    Memory {
        devices: u64,
        memory: Quantity,
    },
    Mig {
        devices: u64,
        profile: MigProfile,
    },
}
