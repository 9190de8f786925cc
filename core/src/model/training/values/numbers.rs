//! Numbers with a range: CPU cores, GPU portions, whole extended resources and the int32 fields
//! of Kubernetes objects.

/// Most CPU cores one container may ask for. No node comes near it; the bound keeps the
/// millicores the renderer writes (cores × 1000, an int64) exact and far from overflow.
pub const CPU_CORES_MAX: f64 = 1_000_000.0;

/// CPU cores, more than 0 and at most [`CPU_CORES_MAX`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuCores(f64);

impl CpuCores {
    /// Refuses nothing, negatives and more than [`CPU_CORES_MAX`].
    pub fn new(cores: f64) -> Result<CpuCores, String> {
        if cores > 0.0 && cores <= CPU_CORES_MAX {
            Ok(CpuCores(cores))
        } else {
            Err(format!(
                "must be greater than 0 and at most {CPU_CORES_MAX} (got {cores})"
            ))
        }
    }

    /// The cores.
    pub fn get(self) -> f64 {
        self.0
    }

    /// As Kubernetes writes it: whole cores as `2`, fractions in millicores (`500m`).
    pub fn quantity(self) -> String {
        // At most 10^9 millicores: exact in an i64.
        let milli = (self.0 * 1000.0).round() as i64;
        if milli % 1000 == 0 {
            (milli / 1000).to_string()
        } else {
            format!("{milli}m")
        }
    }
}

/// A part of one GPU, strictly between 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPortion(f64);

impl GpuPortion {
    /// From above 0 to 1, as Run:ai allows (1 is a whole GPU, shared through the plugin).
    pub fn new(portion: f64) -> Result<GpuPortion, String> {
        if portion > 0.0 && portion <= 1.0 {
            Ok(GpuPortion(portion))
        } else {
            Err(format!(
                "must be greater than 0 and at most 1, e.g. 0.5 (got {portion})"
            ))
        }
    }

    /// The portion.
    pub fn get(self) -> f64 {
        self.0
    }

    /// This share of a GPU with `total` MiB of memory, in whole MiB: at least 1.
    pub fn of_mebibytes(self, total: u32) -> u64 {
        ((self.0 * f64::from(total)).floor() as u64).max(1)
    }
}

/// How many units of an extended resource: whole, from 1, within the int64 Kubernetes counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedQuantity(u64);

impl ExtendedQuantity {
    /// From the request's number or string.
    pub fn new(q: &serde_json::Value) -> Result<ExtendedQuantity, String> {
        let n = match q {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.parse::<u64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n >= 1 && i64::try_from(n).is_ok() => Ok(ExtendedQuantity(n)),
            _ => Err(format!(
                "must be a whole number from 1 to {} (extended resources cannot be split) (got {q})",
                i64::MAX
            )),
        }
    }

    /// The units.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// A request's number for an int32 field of a Kubernetes object (replicas, probe periods, TTLs),
/// from `min` up.
pub fn int32(n: i64, min: i32) -> Result<i32, String> {
    match i32::try_from(n) {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!("must be between {min} and {} (got {n})", i32::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cpu_cores_are_positive_and_bounded() {
        assert_eq!(CpuCores::new(0.1).unwrap().get(), 0.1);
        assert!(CpuCores::new(CPU_CORES_MAX).is_ok());
        for bad in [0.0, -1.0, 1000000.5, f64::NAN] {
            assert_eq!(
                CpuCores::new(bad).unwrap_err(),
                format!("must be greater than 0 and at most 1000000 (got {bad})")
            );
        }
    }

    #[test]
    fn cpu_cores_are_written_whole_or_in_millicores() {
        let q = |cores: f64| CpuCores::new(cores).unwrap().quantity();
        assert_eq!(q(2.0), "2");
        assert_eq!(q(0.5), "500m");
        assert_eq!(q(1.25), "1250m");
        assert_eq!(q(1000000.0), "1000000");
    }

    #[test]
    fn a_gpu_portion_is_above_0_and_at_most_1() {
        let mib = |p: f64| GpuPortion::new(p).unwrap().of_mebibytes(81920);
        assert_eq!(mib(0.5), 40960);
        assert_eq!(mib(0.000001), 1);
        assert_eq!(mib(0.3), 24576);
        assert_eq!(mib(1.0), 81920);
        for bad in [0.0, 1.5, -0.5, 2.0] {
            assert!(
                GpuPortion::new(bad).unwrap_err().starts_with(&format!(
                    "must be greater than 0 and at most 1, e.g. 0.5 (got {bad})"
                )),
                "{bad}"
            );
        }
    }

    #[test]
    fn extended_quantities_are_whole_units_that_fit_int64() {
        let n = |q| ExtendedQuantity::new(&q).map(ExtendedQuantity::get);
        assert_eq!(n(json!(1)), Ok(1));
        assert_eq!(n(json!("42")), Ok(42));
        assert_eq!(n(json!(i64::MAX)), Ok(i64::MAX as u64));
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
            let message = ExtendedQuantity::new(&bad).unwrap_err();
            assert!(message.ends_with(&format!("(got {bad})")), "{message}");
        }
    }

    #[test]
    fn int32_fields_name_their_range() {
        assert_eq!(int32(5, 1), Ok(5));
        assert_eq!(int32(0, 0), Ok(0));
        assert_eq!(int32(i64::from(i32::MAX), 1), Ok(i32::MAX));
        assert_eq!(
            int32(4_294_967_297, 1).unwrap_err(),
            "must be between 1 and 2147483647 (got 4294967297)"
        );
        assert_eq!(
            int32(-1, 0).unwrap_err(),
            "must be between 0 and 2147483647 (got -1)"
        );
    }
}
