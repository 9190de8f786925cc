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
mod tests {
    use super::super::tests::{accepts, refuses, request, warns};
    use crate::model::training::checked::Gpu;
    use crate::model::training::parse;
    use crate::model::training::values::MigProfile;
    use serde_json::{Value, json};

    fn compute(compute: Value) -> Value {
        json!({ "compute": compute })
    }

    #[test]
    fn gpu_devices_are_not_negative() {
        accepts(compute(json!({ "gpuDevicesRequest": 0 })));
        accepts(compute(json!({ "gpuDevicesRequest": 8 })));
        refuses(
            compute(json!({ "gpuDevicesRequest": -1 })),
            "spec.compute.gpuDevicesRequest",
            "must be at least 0 (got -1)",
        );
    }

    #[test]
    fn a_fractional_gpu_style_needs_its_request_type() {
        accepts(compute(json!({ "gpuDevicesRequest": 2 })));
        for (field, value) in [
            ("gpuPortionRequest", json!({ "gpuPortionRequest": 0.5 })),
            ("gpuPortionRequest", json!({ "gpuPortionLimit": 0.5 })),
            ("gpuMemoryRequest", json!({ "gpuMemoryRequest": "4Gi" })),
            ("gpuMemoryRequest", json!({ "gpuMemoryLimit": "4Gi" })),
            ("migProfile", json!({ "migProfile": "1g.5gb" })),
        ] {
            refuses(
                compute(value),
                "spec.compute.gpuRequestType",
                &format!("is required when {field} is set: one of portion, memory, migProfile"),
            );
        }
    }

    #[test]
    fn a_request_type_needs_its_amount() {
        accepts(compute(
            json!({ "gpuRequestType": "portion", "gpuPortionRequest": 0.5 }),
        ));
        accepts(compute(
            json!({ "gpuRequestType": "memory", "gpuMemoryRequest": "4Gi" }),
        ));
        accepts(compute(
            json!({ "gpuRequestType": "migProfile", "migProfile": "1g.5gb" }),
        ));
        for (kind, field) in [
            ("portion", "gpuPortionRequest"),
            ("memory", "gpuMemoryRequest"),
            ("migProfile", "migProfile"),
        ] {
            refuses(
                compute(json!({ "gpuRequestType": kind })),
                &format!("spec.compute.{field}"),
                &format!("is required with gpuRequestType {kind}"),
            );
        }
    }

    #[test]
    fn a_limit_alone_does_not_ask_for_a_fractional_gpu() {
        refuses(
            compute(json!({ "gpuRequestType": "portion", "gpuPortionLimit": 0.5 })),
            "spec.compute.gpuPortionRequest",
            "is required with gpuRequestType portion",
        );
        refuses(
            compute(json!({ "gpuRequestType": "memory", "gpuMemoryLimit": "4Gi" })),
            "spec.compute.gpuMemoryRequest",
            "is required with gpuRequestType memory",
        );
    }

    #[test]
    fn only_the_chosen_gpu_styles_fields_are_used() {
        warns(
            compute(
                json!({ "gpuRequestType": "portion", "gpuPortionRequest": 0.5,
                            "migProfile": "1g.5gb" }),
            ),
            "spec.compute.migProfile",
            "has no effect with gpuRequestType portion: only gpuPortionRequest and \
             gpuPortionLimit are used",
        );
        let request = request(compute(json!({ "gpuRequestType": "migProfile",
            "migProfile": "1g.5gb", "gpuPortionLimit": 0.5, "gpuMemoryRequest": "1Gi" })));
        let training = parse::training(&request).unwrap();
        let warned: Vec<_> = training
            .warnings()
            .iter()
            .map(|w| w.path.as_str())
            .collect();
        assert_eq!(
            warned,
            [
                "spec.compute.gpuPortionLimit",
                "spec.compute.gpuMemoryRequest"
            ]
        );
        assert_eq!(
            training.warnings()[1].message,
            "has no effect with gpuRequestType migProfile: only migProfile is used"
        );
        assert_eq!(
            training.spec().compute.as_ref().map(|c| &c.gpu),
            Some(&Gpu::Mig {
                devices: 0,
                profile: MigProfile::new("1g.5gb").unwrap()
            })
        );
    }

    #[test]
    fn a_gpu_portion_is_above_0_and_at_most_1() {
        let portion =
            |p: f64| compute(json!({ "gpuRequestType": "portion", "gpuPortionRequest": p }));
        accepts(portion(0.01));
        accepts(portion(0.99));
        // Run:ai's SDK example asks for a portion of 1: a whole GPU through the sharing plugin.
        accepts(portion(1.0));
        for p in [0.0, -0.5, 1.01, 2.0] {
            refuses(
                portion(p),
                "spec.compute.gpuPortionRequest",
                &format!("must be greater than 0 and at most 1, e.g. 0.5 (got {p})"),
            );
        }
    }

    #[test]
    fn a_gpu_portion_limit_is_at_most_1_and_not_below_the_request() {
        let limit = |l: f64| {
            compute(
                json!({ "gpuRequestType": "portion", "gpuPortionRequest": 0.5,
                            "gpuPortionLimit": l }),
            )
        };
        accepts(limit(0.5));
        refuses(
            limit(1.0),
            "spec.compute.gpuPortionLimit",
            "cannot be above the request: Volcano's GPU sharing gives a pod exactly the share it \
             requests, with no burst up to a limit: set it to gpuPortionRequest (0.5) or leave it out",
        );
        for l in [0.0, 1.5] {
            refuses(
                limit(l),
                "spec.compute.gpuPortionLimit",
                &format!("must be greater than 0 and at most 1 (got {l})"),
            );
        }
        refuses(
            limit(0.25),
            "spec.compute.gpuPortionLimit",
            "must be at least gpuPortionRequest (0.5) (got 0.25)",
        );
    }

    #[test]
    fn gpu_memory_is_a_positive_quantity_with_the_limit_not_below_the_request() {
        let memory = |request: &str, limit: &str| {
            compute(
                json!({ "gpuRequestType": "memory", "gpuMemoryRequest": request,
                            "gpuMemoryLimit": limit }),
            )
        };
        accepts(memory("4Gi", "4Gi"));
        refuses(
            memory("4Gi", "8G"),
            "spec.compute.gpuMemoryLimit",
            "cannot be above the request: Volcano's GPU sharing gives a pod exactly the share it \
             requests, with no burst up to a limit: set it to gpuMemoryRequest (4Gi) or leave it out",
        );
        refuses(
            memory("0", "4Gi"),
            "spec.compute.gpuMemoryRequest",
            "must be greater than 0 (got \"0\")",
        );
        refuses(
            memory("4Gi", "lots"),
            "spec.compute.gpuMemoryLimit",
            "must be a Kubernetes quantity",
        );
        refuses(
            memory("4Gi", "2Gi"),
            "spec.compute.gpuMemoryLimit",
            "must be at least gpuMemoryRequest",
        );
    }

    #[test]
    fn mig_profiles_follow_nvidias_names() {
        for profile in ["1g.5gb", "3g.20gb", "1g.10gb+me"] {
            accepts(compute(
                json!({ "gpuRequestType": "migProfile", "migProfile": profile }),
            ));
        }
        refuses(
            compute(json!({ "gpuRequestType": "migProfile", "migProfile": "large" })),
            "spec.compute.migProfile",
            "must be a MIG profile like 1g.5gb, 2g.10gb or 3g.20gb (got \"large\")",
        );
    }

    #[test]
    fn cpu_cores_are_positive_and_bounded() {
        accepts(compute(json!({ "cpuCoreRequest": 0.1 })));
        accepts(compute(json!({ "cpuCoreRequest": 1000000 })));
        for cpu in [0.0, -1.0, 1000000.5] {
            refuses(
                compute(json!({ "cpuCoreRequest": cpu })),
                "spec.compute.cpuCoreRequest",
                &format!("must be greater than 0 and at most 1000000 (got {cpu})"),
            );
        }
    }

    #[test]
    fn a_cpu_limit_is_bounded_and_not_below_the_request() {
        accepts(compute(json!({ "cpuCoreLimit": 0.5 })));
        accepts(compute(json!({ "cpuCoreRequest": 2, "cpuCoreLimit": 2 })));
        for limit in [0.0, 1000001.0] {
            refuses(
                compute(json!({ "cpuCoreLimit": limit })),
                "spec.compute.cpuCoreLimit",
                &format!("must be greater than 0 and at most 1000000 (got {limit})"),
            );
        }
        refuses(
            compute(json!({ "cpuCoreRequest": 2, "cpuCoreLimit": 1.5 })),
            "spec.compute.cpuCoreLimit",
            "must be at least cpuCoreRequest (2) (got 1.5)",
        );
    }

    #[test]
    fn cpu_memory_is_a_positive_quantity_with_the_limit_not_below_the_request() {
        accepts(compute(
            json!({ "cpuMemoryRequest": "512Mi", "cpuMemoryLimit": "1Gi" }),
        ));
        accepts(compute(json!({ "cpuMemoryLimit": "1Gi" })));
        refuses(
            compute(json!({ "cpuMemoryRequest": "0Gi" })),
            "spec.compute.cpuMemoryRequest",
            "must be greater than 0 (got \"0Gi\")",
        );
        refuses(
            compute(json!({ "cpuMemoryLimit": "-1Gi" })),
            "spec.compute.cpuMemoryLimit",
            "must not be negative",
        );
        refuses(
            compute(json!({ "cpuMemoryRequest": "2Gi", "cpuMemoryLimit": "1Gi" })),
            "spec.compute.cpuMemoryLimit",
            "must be at least cpuMemoryRequest",
        );
    }

    fn extended(resources: Value) -> Value {
        compute(json!({ "extendedResources": resources }))
    }

    #[test]
    fn extended_resources_are_vendor_resources() {
        accepts(extended(
            json!([{ "resource": "example.com/fpga", "quantity": 1 }]),
        ));
        refuses(
            extended(json!([{ "resource": "example.com/a b", "quantity": 1 }])),
            "spec.compute.extendedResources[0].resource",
            "must be a name of at most 63 letters",
        );
        refuses(
            extended(json!([{ "resource": "fpga", "quantity": 1 }])),
            "spec.compute.extendedResources[0].resource",
            "must be a vendor resource with a domain, e.g. example.com/foo (got \"fpga\")",
        );
    }

    #[test]
    fn resources_with_their_own_compute_field_are_not_extended_resources() {
        for resource in [
            "nvidia.com/gpu",
            "volcano.sh/vgpu-number",
            "volcano.sh/vgpu-cores",
            "volcano.sh/vgpu-memory",
            "kubernetes.io/batteries",
        ] {
            refuses(
                extended(json!([{ "resource": resource, "quantity": 1 }])),
                "spec.compute.extendedResources[0].resource",
                &format!("{resource:?} is set through its own compute field"),
            );
        }
        accepts(extended(
            json!([{ "resource": "nvidia.com/mig-1g.5gb", "quantity": 1 }]),
        ));
    }

    #[test]
    fn an_extended_resource_is_listed_once() {
        accepts(extended(json!([
            { "resource": "example.com/a", "quantity": 1 },
            { "resource": "example.com/b", "quantity": 1 }])));
        refuses(
            extended(json!([
                { "resource": "example.com/a", "quantity": 1 },
                { "resource": "example.com/a", "exclude": true }])),
            "spec.compute.extendedResources[1].resource",
            "\"example.com/a\" is listed twice",
        );
    }

    #[test]
    fn an_extended_resource_has_a_whole_quantity_unless_excluded() {
        accepts(extended(
            json!([{ "resource": "example.com/a", "exclude": true }]),
        ));
        accepts(extended(
            json!([{ "resource": "example.com/a", "quantity": "2" }]),
        ));
        refuses(
            extended(json!([{ "resource": "example.com/a" }])),
            "spec.compute.extendedResources[0].quantity",
            "is required unless exclude is true",
        );
        refuses(
            extended(json!([{ "resource": "example.com/a", "quantity": 0.5 }])),
            "spec.compute.extendedResources[0].quantity",
            "must be a whole number from 1 to 9223372036854775807 (extended resources cannot \
             be split) (got 0.5)",
        );
    }
}
