//! How a pod's GPUs are asked for: whole devices, a portion, memory or a MIG profile. The style
//! is no request field of its own; the draft reads and writes it through the compute fields.

use super::{Draft, fields, json};
use crate::key;
use serde::{Deserialize, Serialize};
use tephra_core::model::training::request::{Compute, GpuRequestType};

/// How the GPUs of one pod are asked for. Not a request field of its own: it is read from, and
/// written to, `compute.gpuRequestType` and the fields that style uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuMode {
    #[default]
    None,
    /// Whole GPUs: `gpuDevicesRequest`.
    Devices,
    /// A fraction of one GPU: `gpuRequestType: portion`.
    Portion,
    /// GPU memory: `gpuRequestType: memory`.
    Memory,
    /// A MIG profile: `gpuRequestType: migProfile`.
    Mig,
}

impl GpuMode {
    pub const ALL: [GpuMode; 5] = [
        GpuMode::None,
        GpuMode::Devices,
        GpuMode::Portion,
        GpuMode::Memory,
        GpuMode::Mig,
    ];

    /// The value the mode's radio button posts.
    pub fn as_str(self) -> &'static str {
        match self {
            GpuMode::None => "none",
            GpuMode::Devices => "devices",
            GpuMode::Portion => "portion",
            GpuMode::Memory => "memory",
            GpuMode::Mig => "mig",
        }
    }

    pub fn parse(text: &str) -> GpuMode {
        GpuMode::ALL
            .into_iter()
            .find(|m| m.as_str() == text)
            .unwrap_or_default()
    }

    fn request_type(self) -> Option<GpuRequestType> {
        match self {
            GpuMode::Portion => Some(GpuRequestType::Portion),
            GpuMode::Memory => Some(GpuRequestType::Memory),
            GpuMode::Mig => Some(GpuRequestType::MigProfile),
            GpuMode::None | GpuMode::Devices => None,
        }
    }

    /// The compute keys this style asks with.
    fn keys(self) -> Vec<String> {
        match self {
            GpuMode::None => vec![],
            GpuMode::Devices => vec![key!(Compute.gpu_devices_request)],
            GpuMode::Portion => vec![
                key!(Compute.gpu_portion_request),
                key!(Compute.gpu_portion_limit),
            ],
            GpuMode::Memory => vec![
                key!(Compute.gpu_memory_request),
                key!(Compute.gpu_memory_limit),
            ],
            GpuMode::Mig => vec![key!(Compute.mig_profile)],
        }
    }
}

impl Draft {
    pub fn gpu_mode(&self) -> GpuMode {
        let compute = fields::compute();
        let requested = self.get(&compute.key(key!(Compute.gpu_request_type)));
        GpuMode::ALL
            .into_iter()
            .find(|m| m.request_type().is_some() && requested == Some(&json(m.request_type())))
            .unwrap_or_else(|| {
                if self
                    .get(&compute.key(key!(Compute.gpu_devices_request)))
                    .is_some()
                {
                    GpuMode::Devices
                } else {
                    GpuMode::None
                }
            })
    }

    /// Switches the GPU style: sets `gpuRequestType` and drops the fields of the other styles,
    /// which the validator would refuse beside it. Whole GPUs start at one, so the choice shows.
    /// With fractions, `gpuDevicesRequest` counts them and stays, unless it was whole GPUs.
    pub fn set_gpu_mode(&mut self, mode: GpuMode) {
        let before = self.gpu_mode();
        if mode == before {
            return;
        }
        let compute = fields::compute();
        for other in GpuMode::ALL.into_iter().filter(|m| *m != mode) {
            for key in other.keys() {
                let devices = key == key!(Compute.gpu_devices_request);
                if !devices || before == GpuMode::Devices || mode == GpuMode::None {
                    self.set(&compute.key(key), None);
                }
            }
        }
        self.set(
            &compute.key(key!(Compute.gpu_request_type)),
            mode.request_type().map(json),
        );
        let devices = compute.key(key!(Compute.gpu_devices_request));
        if mode == GpuMode::Devices && self.get(&devices).is_none() {
            self.set(&devices, Some(json(1)));
        }
    }
}
