//! What a container asks for: GPUs (whole, or in one fractional style), CPU, memory and extended
//! resources.

use crate::model::training::checked::{Compute, Gpu};
use crate::model::training::request::{
    Compute as RequestCompute, ExtendedResource, GpuRequestType,
};
use crate::model::training::values::{
    CpuCores, ExtendedQuantity, GpuPortion, MigProfile, Quantity,
};
use crate::model::validation::{self as v, Errors, all, index, join};
use std::collections::BTreeSet;

pub(super) fn compute(errors: &mut Errors, c: &RequestCompute, path: &str) -> Option<Compute> {
    let at = |field: &str| join(path, field);
    let devices = errors.take_some(at("gpuDevicesRequest"), c.gpu_devices_request, |n| {
        v::at_least(n, 0).map(|()| n.unsigned_abs())
    });
    let style_ok = gpu_style(errors, c, path);
    let fractions = gpu_fractions(errors, c, path);
    let cpu = cpu(errors, c, path);
    let extended = extended_resources(
        errors,
        c.extended_resources.as_deref().unwrap_or_default(),
        &at("extendedResources"),
    );
    let devices = devices?.unwrap_or(0);
    let (portion, gpu_memory, mig) = fractions?;
    let gpu = match c.gpu_request_type {
        None if devices > 0 => Gpu::Devices(devices),
        None => Gpu::None,
        Some(GpuRequestType::Portion) => Gpu::Portion {
            devices,
            portion: portion?,
        },
        Some(GpuRequestType::Memory) => Gpu::Memory {
            devices,
            memory: gpu_memory?,
        },
        Some(GpuRequestType::MigProfile) => Gpu::Mig {
            devices,
            profile: mig?,
        },
    };
    let (cpu_request, cpu_limit, memory_request, memory_limit) = cpu?;
    style_ok.then_some(Compute {
        gpu,
        cpu_request,
        cpu_limit,
        memory_request,
        memory_limit,
        large_shm: c.large_shm_request == Some(true),
        extended: extended?,
    })
}

/// Whether the request uses exactly one GPU style, and asks for an amount in it.
fn gpu_style(errors: &mut Errors, c: &RequestCompute, path: &str) -> bool {
    let before = errors.count();
    let at = |field: &str| join(path, field);
    // Exactly one way to ask for GPUs: whole devices (gpuDevicesRequest alone), or one of the
    // fractional styles, chosen by gpuRequestType. A style is used when any of its fields is set,
    // and asked for only when its request is: a limit alone would leave nothing to schedule by.
    let styles = [
        (
            GpuRequestType::Portion,
            "gpuPortionRequest",
            c.gpu_portion_request.is_some() || c.gpu_portion_limit.is_some(),
            c.gpu_portion_request.is_some(),
        ),
        (
            GpuRequestType::Memory,
            "gpuMemoryRequest",
            c.gpu_memory_request.is_some() || c.gpu_memory_limit.is_some(),
            c.gpu_memory_request.is_some(),
        ),
        (
            GpuRequestType::MigProfile,
            "migProfile",
            c.mig_profile.is_some(),
            c.mig_profile.is_some(),
        ),
    ];
    let used: Vec<_> = styles.iter().filter(|(_, _, set, _)| *set).collect();
    match c.gpu_request_type {
        None => {
            if let Some((_, field, _, _)) = used.first() {
                errors.add(
                    at("gpuRequestType"),
                    format!("is required when {field} is set: one of portion, memory, migProfile"),
                );
            }
        }
        Some(kind) => {
            for (_, wanted, _, requested) in styles.iter().filter(|(k, ..)| *k == kind) {
                if !requested {
                    errors.add(
                        at(wanted),
                        format!("is required with gpuRequestType {}", type_name(kind)),
                    );
                }
            }
            // Run:ai reads only the chosen style's fields; the others are accepted and ignored.
            for field in other_style_fields(c, kind) {
                errors.warn(
                    at(field),
                    format!(
                        "has no effect with gpuRequestType {}: only {} {} used",
                        type_name(kind),
                        style_fields(kind),
                        if kind == GpuRequestType::MigProfile {
                            "is"
                        } else {
                            "are"
                        },
                    ),
                );
            }
        }
    }
    errors.count() == before
}

/// The fields of each fractional style, as a client sees them.
fn style_fields(kind: GpuRequestType) -> &'static str {
    match kind {
        GpuRequestType::Portion => "gpuPortionRequest and gpuPortionLimit",
        GpuRequestType::Memory => "gpuMemoryRequest and gpuMemoryLimit",
        GpuRequestType::MigProfile => "migProfile",
    }
}

/// The fields the request sets of styles other than `kind`.
fn other_style_fields(c: &RequestCompute, kind: GpuRequestType) -> Vec<&'static str> {
    let set = [
        (
            GpuRequestType::Portion,
            "gpuPortionRequest",
            c.gpu_portion_request.is_some(),
        ),
        (
            GpuRequestType::Portion,
            "gpuPortionLimit",
            c.gpu_portion_limit.is_some(),
        ),
        (
            GpuRequestType::Memory,
            "gpuMemoryRequest",
            c.gpu_memory_request.is_some(),
        ),
        (
            GpuRequestType::Memory,
            "gpuMemoryLimit",
            c.gpu_memory_limit.is_some(),
        ),
        (
            GpuRequestType::MigProfile,
            "migProfile",
            c.mig_profile.is_some(),
        ),
    ];
    set.iter()
        .filter(|(style, _, is_set)| *style != kind && *is_set)
        .map(|(_, field, _)| *field)
        .collect()
}

/// The amounts of the fractional GPU styles, whichever style is chosen: the portion, the memory
/// and the MIG profile, each when set.
type Fractions = (Option<GpuPortion>, Option<Quantity>, Option<MigProfile>);

/// Why a GPU limit above its request is refused: Run:ai lets a fraction burst up to its limit,
/// Volcano's vGPU device (like every extended resource) gives a pod exactly what it requests.
const NO_BURST: &str = "cannot be above the request: Volcano's GPU sharing gives a pod exactly \
                        the share it requests, with no burst up to a limit";

fn gpu_fractions(errors: &mut Errors, c: &RequestCompute, path: &str) -> Option<Fractions> {
    let at = |field: &str| join(path, field);
    let portion = errors.take_some(
        at("gpuPortionRequest"),
        c.gpu_portion_request,
        GpuPortion::new,
    );
    if let Some(limit) = c.gpu_portion_limit {
        if !(limit > 0.0 && limit <= 1.0) {
            errors.add(
                at("gpuPortionLimit"),
                format!("must be greater than 0 and at most 1 (got {limit})"),
            );
        } else if let Some(request) = c.gpu_portion_request
            && limit < request
        {
            errors.add(
                at("gpuPortionLimit"),
                format!("must be at least gpuPortionRequest ({request}) (got {limit})"),
            );
        } else if let Some(request) = c.gpu_portion_request
            && limit > request
        {
            errors.add(
                at("gpuPortionLimit"),
                format!("{NO_BURST}: set it to gpuPortionRequest ({request}) or leave it out"),
            );
        }
    }
    let memory = memory_pair(
        errors,
        (c.gpu_memory_request.as_deref(), &at("gpuMemoryRequest")),
        (c.gpu_memory_limit.as_deref(), &at("gpuMemoryLimit")),
        "gpuMemoryRequest",
    );
    if let Some((Some(request), Some(limit))) = &memory
        && limit.units() > request.units()
    {
        errors.add(
            at("gpuMemoryLimit"),
            format!(
                "{NO_BURST}: set it to gpuMemoryRequest ({}) or leave it out",
                request.as_str()
            ),
        );
    }
    let mig = errors.take_some(at("migProfile"), c.mig_profile.as_deref(), MigProfile::new);
    Some((portion?, memory?.0, mig?))
}

/// CPU cores and memory: each request and its limit.
type Cpu = (
    Option<CpuCores>,
    Option<CpuCores>,
    Option<Quantity>,
    Option<Quantity>,
);

fn cpu(errors: &mut Errors, c: &RequestCompute, path: &str) -> Option<Cpu> {
    let at = |field: &str| join(path, field);
    let request = errors.take_some(at("cpuCoreRequest"), c.cpu_core_request, CpuCores::new);
    let limit = errors.take_some(at("cpuCoreLimit"), c.cpu_core_limit, |limit| {
        let cores = CpuCores::new(limit)?;
        match c.cpu_core_request {
            Some(request) if limit < request => Err(format!(
                "must be at least cpuCoreRequest ({request}) (got {limit})"
            )),
            _ => Ok(cores),
        }
    });
    let memory = memory_pair(
        errors,
        (c.cpu_memory_request.as_deref(), &at("cpuMemoryRequest")),
        (c.cpu_memory_limit.as_deref(), &at("cpuMemoryLimit")),
        "cpuMemoryRequest",
    );
    let (memory_request, memory_limit) = memory?;
    Some((request?, limit?, memory_request, memory_limit))
}

/// A memory request and its limit, which must not be below it.
fn memory_pair(
    errors: &mut Errors,
    (request, request_path): (Option<&str>, &str),
    (limit, limit_path): (Option<&str>, &str),
    request_field: &str,
) -> Option<(Option<Quantity>, Option<Quantity>)> {
    let request = errors.take_some(request_path, request, Quantity::positive);
    let limit = errors.take_some(limit_path, limit, Quantity::positive);
    if let (Some(Some(request)), Some(Some(limit))) = (&request, &limit)
        && limit.units() < request.units()
    {
        errors.add(limit_path, format!("must be at least {request_field}"));
        return None;
    }
    Some((request?, limit?))
}

/// The extended resources to request, without the excluded ones.
fn extended_resources(
    errors: &mut Errors,
    resources: &[ExtendedResource],
    path: &str,
) -> Option<Vec<(String, ExtendedQuantity)>> {
    let before = errors.count();
    let mut seen = BTreeSet::new();
    let mut requested = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        let item = index(path, i);
        match v::qualified_name(&r.resource) {
            Err(message) => errors.add(join(&item, "resource"), message),
            Ok(()) if !r.resource.contains('/') => errors.add(
                join(&item, "resource"),
                format!(
                    "must be a vendor resource with a domain, e.g. example.com/foo (got {:?})",
                    r.resource
                ),
            ),
            Ok(())
                if r.resource.starts_with("kubernetes.io/")
                    || RESERVED_RESOURCES.contains(&r.resource.as_str()) =>
            {
                errors.add(
                    join(&item, "resource"),
                    format!("{:?} is set through its own compute field", r.resource),
                )
            }
            Ok(()) => {}
        }
        if !seen.insert(r.resource.as_str()) {
            errors.add(
                join(&item, "resource"),
                format!("{:?} is listed twice", r.resource),
            );
        }
        if r.exclude == Some(true) {
            continue;
        }
        let quantity = match &r.quantity {
            None => Err("is required unless exclude is true".to_owned()),
            Some(q) => ExtendedQuantity::new(q),
        };
        requested.push(
            errors
                .take(join(&item, "quantity"), quantity)
                .map(|q| (r.resource.clone(), q)),
        );
    }
    all(requested).filter(|_| errors.count() == before)
}

/// Resources a request sets through dedicated fields, so they cannot also be extended resources.
const RESERVED_RESOURCES: [&str; 4] = [
    "nvidia.com/gpu",
    "volcano.sh/vgpu-number",
    "volcano.sh/vgpu-cores",
    "volcano.sh/vgpu-memory",
];

fn type_name(kind: GpuRequestType) -> &'static str {
    match kind {
        GpuRequestType::Portion => "portion",
        GpuRequestType::Memory => "memory",
        GpuRequestType::MigProfile => "migProfile",
    }
}

#[cfg(test)]
mod tests;
