//! What a container asks for: GPUs (whole, or in one fractional style), CPU, memory and extended
//! resources.

use super::quantity_field;
use crate::model::training::request::{Compute, ExtendedResource, GpuRequestType};
use crate::model::validation::{self as v, Errors, index, join};
use std::collections::BTreeSet;

pub(super) fn compute(errors: &mut Errors, c: &Compute, path: &str) {
    let at = |field: &str| join(path, field);
    if let Some(n) = c.gpu_devices_request {
        errors.check(at("gpuDevicesRequest"), v::at_least(n, 0));
    }
    gpu_style(errors, c, path);
    gpu_fractions(errors, c, path);
    cpu(errors, c, path);
    if let Some(resources) = &c.extended_resources {
        extended_resources(errors, resources, &at("extendedResources"));
    }
}

fn gpu_style(errors: &mut Errors, c: &Compute, path: &str) {
    let at = |field: &str| join(path, field);
    // Exactly one way to ask for GPUs: whole devices (gpuDevicesRequest alone), or one of the
    // fractional styles, chosen by gpuRequestType.
    let styles = [
        (
            GpuRequestType::Portion,
            "gpuPortionRequest",
            c.gpu_portion_request.is_some() || c.gpu_portion_limit.is_some(),
        ),
        (
            GpuRequestType::Memory,
            "gpuMemoryRequest",
            c.gpu_memory_request.is_some() || c.gpu_memory_limit.is_some(),
        ),
        (
            GpuRequestType::MigProfile,
            "migProfile",
            c.mig_profile.is_some(),
        ),
    ];
    let used: Vec<_> = styles.iter().filter(|(_, _, set)| *set).collect();
    match c.gpu_request_type {
        None => {
            if let Some((_, field, _)) = used.first() {
                errors.add(
                    at("gpuRequestType"),
                    format!("is required when {field} is set: one of portion, memory, migProfile"),
                );
            }
        }
        Some(kind) => {
            let (_, wanted, _) = styles
                .iter()
                .find(|(k, _, _)| *k == kind)
                .expect("every type is listed");
            if !used.iter().any(|(k, _, _)| *k == kind) {
                errors.add(
                    at(wanted),
                    format!("is required with gpuRequestType {}", type_name(kind)),
                );
            }
            for (other, field, _) in used.iter().filter(|(k, _, _)| *k != kind) {
                errors.add(
                    at(field),
                    format!(
                        "must not be set with gpuRequestType {}: choose one GPU style ({} is for {})",
                        type_name(kind),
                        field,
                        type_name(*other)
                    ),
                );
            }
        }
    }
}

/// The amounts of the fractional GPU styles, whichever style is chosen.
fn gpu_fractions(errors: &mut Errors, c: &Compute, path: &str) {
    let at = |field: &str| join(path, field);
    if let Some(p) = c.gpu_portion_request
        && !(p > 0.0 && p < 1.0)
    {
        errors.add(at("gpuPortionRequest"), format!("must be between 0 and 1, exclusive, e.g. 0.5 (got {p}); use gpuDevicesRequest for whole GPUs"));
    }
    fractional_limit(
        errors,
        (&at("gpuPortionLimit"), c.gpu_portion_limit),
        ("gpuPortionRequest", c.gpu_portion_request),
        Some(1.0),
    );
    let gpu_mem_request = quantity_field(
        errors,
        c.gpu_memory_request.as_deref(),
        &at("gpuMemoryRequest"),
    );
    let gpu_mem_limit =
        quantity_field(errors, c.gpu_memory_limit.as_deref(), &at("gpuMemoryLimit"));
    limit_at_least_request(
        errors,
        gpu_mem_request,
        gpu_mem_limit,
        &at("gpuMemoryLimit"),
        "gpuMemoryRequest",
    );
    if let Some(profile) = &c.mig_profile
        && !is_mig_profile(profile)
    {
        errors.add(
            at("migProfile"),
            format!("must be a MIG profile like 1g.5gb, 2g.10gb or 3g.20gb (got {profile:?})"),
        );
    }
}

fn cpu(errors: &mut Errors, c: &Compute, path: &str) {
    let at = |field: &str| join(path, field);
    if let Some(cpu) = c.cpu_core_request
        && !(cpu > 0.0 && cpu <= CPU_CORES_MAX)
    {
        errors.add(
            at("cpuCoreRequest"),
            format!("must be greater than 0 and at most {CPU_CORES_MAX} (got {cpu})"),
        );
    }
    fractional_limit(
        errors,
        (&at("cpuCoreLimit"), c.cpu_core_limit),
        ("cpuCoreRequest", c.cpu_core_request),
        Some(CPU_CORES_MAX),
    );
    let mem_request = quantity_field(
        errors,
        c.cpu_memory_request.as_deref(),
        &at("cpuMemoryRequest"),
    );
    let mem_limit = quantity_field(errors, c.cpu_memory_limit.as_deref(), &at("cpuMemoryLimit"));
    limit_at_least_request(
        errors,
        mem_request,
        mem_limit,
        &at("cpuMemoryLimit"),
        "cpuMemoryRequest",
    );
}

fn extended_resources(errors: &mut Errors, resources: &[ExtendedResource], path: &str) {
    let mut seen = BTreeSet::new();
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
        match &r.quantity {
            None => errors.add(
                join(&item, "quantity"),
                "is required unless exclude is true",
            ),
            Some(q) => {
                if let Err(message) = extended_quantity(q) {
                    errors.add(join(&item, "quantity"), message);
                }
            }
        }
    }
}

/// Most CPU cores one container may ask for. No node comes near it; the bound keeps the
/// millicores the renderer writes (cores × 1000, an int64) exact and far from overflow.
pub const CPU_CORES_MAX: f64 = 1_000_000.0;

/// Resources a request sets through dedicated fields, so they cannot also be extended resources.
const RESERVED_RESOURCES: [&str; 4] = [
    "nvidia.com/gpu",
    "volcano.sh/vgpu-number",
    "volcano.sh/vgpu-cores",
    "volcano.sh/vgpu-memory",
];

/// Extended resources are whole units: a positive integer, as a number or a string, that fits
/// the int64 Kubernetes counts them in.
pub fn extended_quantity(q: &serde_json::Value) -> Result<u64, String> {
    let allowed = format!(
        "must be a whole number from 1 to {} (extended resources cannot be split)",
        i64::MAX
    );
    let n = match q {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n >= 1 && i64::try_from(n).is_ok() => Ok(n),
        _ => Err(format!("{allowed} (got {q})")),
    }
}

fn type_name(kind: GpuRequestType) -> &'static str {
    match kind {
        GpuRequestType::Portion => "portion",
        GpuRequestType::Memory => "memory",
        GpuRequestType::MigProfile => "migProfile",
    }
}

fn is_mig_profile(s: &str) -> bool {
    // <n>g.<m>gb, optionally with a suffix like +me: NVIDIA's profile names.
    let Some((compute, memory)) = s.split_once('.') else {
        return false;
    };
    let memory = memory.split('+').next().unwrap_or("");
    compute
        .strip_suffix('g')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && memory
            .strip_suffix("gb")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A numeric limit: greater than 0, at most `max` when given, and not below its request.
fn fractional_limit(
    errors: &mut Errors,
    (path, limit): (&str, Option<f64>),
    (request_field, request): (&str, Option<f64>),
    max: Option<f64>,
) {
    let Some(limit) = limit else { return };
    if limit <= 0.0 || max.is_some_and(|max| limit > max) {
        let range = match max {
            Some(max) => format!("greater than 0 and at most {max}"),
            None => "greater than 0".to_owned(),
        };
        errors.add(path, format!("must be {range} (got {limit})"));
    } else if let Some(request) = request
        && limit < request
    {
        errors.add(
            path,
            format!("must be at least {request_field} ({request}) (got {limit})"),
        );
    }
}

fn limit_at_least_request(
    errors: &mut Errors,
    request: Option<f64>,
    limit: Option<f64>,
    path: &str,
    request_field: &str,
) {
    if let (Some(request), Some(limit)) = (request, limit)
        && limit < request
    {
        errors.add(path, format!("must be at least {request_field}"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepts, paths, refused, refuses, request};
    use super::{extended_quantity, is_mig_profile};
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
    fn one_gpu_style_at_a_time() {
        refuses(
            compute(
                json!({ "gpuRequestType": "portion", "gpuPortionRequest": 0.5,
                            "migProfile": "1g.5gb" }),
            ),
            "spec.compute.migProfile",
            "must not be set with gpuRequestType portion: choose one GPU style \
             (migProfile is for migProfile)",
        );
        let errors = refused(request(compute(json!({ "gpuRequestType": "migProfile",
            "migProfile": "1g.5gb", "gpuPortionLimit": 0.5, "gpuMemoryRequest": "1Gi" }))));
        assert_eq!(
            paths(&errors),
            [
                "spec.compute.gpuPortionRequest",
                "spec.compute.gpuMemoryRequest"
            ]
        );
        assert_eq!(
            errors[1].message,
            "must not be set with gpuRequestType migProfile: choose one GPU style \
             (gpuMemoryRequest is for memory)"
        );
    }

    #[test]
    fn a_gpu_portion_is_strictly_between_0_and_1() {
        let portion =
            |p: f64| compute(json!({ "gpuRequestType": "portion", "gpuPortionRequest": p }));
        accepts(portion(0.01));
        accepts(portion(0.99));
        for p in [0.0, 1.0, -0.5, 2.0] {
            refuses(
                portion(p),
                "spec.compute.gpuPortionRequest",
                &format!(
                    "must be between 0 and 1, exclusive, e.g. 0.5 (got {p}); use gpuDevicesRequest"
                ),
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
        accepts(limit(1.0));
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
        accepts(memory("4Gi", "8G"));
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
    fn mig_profile_names() {
        for good in ["1g.5gb", "7g.80gb", "1g.10gb+me", "12g.100gb"] {
            assert!(is_mig_profile(good), "{good:?}");
        }
        for bad in [
            "", "1g", "g.5gb", "1g.gb", "1.5gb", "1g.5", "1g.5GB", "ag.5gb", "1g.5gb.1",
        ] {
            assert!(!is_mig_profile(bad), "{bad:?}");
        }
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

    #[test]
    fn extended_quantities_are_whole_units_that_fit_int64() {
        assert_eq!(extended_quantity(&json!(1)), Ok(1));
        assert_eq!(extended_quantity(&json!("42")), Ok(42));
        assert_eq!(extended_quantity(&json!(i64::MAX)), Ok(i64::MAX as u64));
        for bad in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!(1.0),
            json!("0"),
            json!(" 1"),
            json!("1.5"),
            json!(i64::MAX as u64 + 1),
            json!(null),
            json!(true),
            json!([1]),
        ] {
            let message = extended_quantity(&bad).unwrap_err();
            assert!(message.ends_with(&format!("(got {bad})")), "{message}");
        }
    }
}
