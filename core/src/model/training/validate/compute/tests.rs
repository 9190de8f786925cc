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
    let portion = |p: f64| compute(json!({ "gpuRequestType": "portion", "gpuPortionRequest": p }));
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
