//! Kubernetes quantities (`512Mi`, `1.5Gi`, `1e3`) for memory, GPU memory and storage sizes.

/// Kubernetes turns quantities into int64 base units (the scheduler sums them), so anything from
/// 2^63 up would overflow there: the bound is 8Ei, exclusive.
pub const QUANTITY_LIMIT: f64 = 9_223_372_036_854_775_808.0;

const MEBIBYTE: f64 = 1024.0 * 1024.0;

/// A quantity greater than 0: the text as Kubernetes gets it and the base units it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    text: String,
    units: f64,
}

impl Quantity {
    /// Parses a quantity that must be more than nothing (a size, a memory request).
    pub fn positive(s: &str) -> Result<Quantity, String> {
        let units = base_units(s)?;
        if units > 0.0 {
            Ok(Quantity {
                text: s.trim().to_owned(),
                units,
            })
        } else {
            Err(format!("must be greater than 0 (got {s:?})"))
        }
    }

    /// The quantity as written, without surrounding spaces.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How many base units (bytes, for memory) it stands for.
    pub fn units(&self) -> f64 {
        self.units
    }

    /// Whole mebibytes, rounded up so a request never shrinks (Volcano's vGPU memory is in MiB).
    pub fn mebibytes(&self) -> i64 {
        // Below 8Ei, so the quotient fits an i64.
        ((self.units / MEBIBYTE).ceil() as i64).max(1)
    }
}

/// A Kubernetes quantity (`500m`, `2`, `1.5Gi`, `10M`, `1e3`), as a number of base units.
fn base_units(s: &str) -> Result<f64, String> {
    let allowed = "must be a Kubernetes quantity: a number with an optional suffix (m, k, M, G, T, \
                   P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 2, 1.5Gi";
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let multiplier = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exp if exp.starts_with(['e', 'E']) => {
            let power: i32 = exp[1..]
                .parse()
                .map_err(|_| format!("{allowed} (got {s:?})"))?;
            10f64.powi(power)
        }
        _ => return Err(format!("{allowed} (got {s:?})")),
    };
    let digits_ok = !number.is_empty()
        && number
            .trim_start_matches(['+', '-'])
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
        && number.matches('.').count() <= 1
        && number.chars().any(|c| c.is_ascii_digit());
    if !digits_ok {
        return Err(format!("{allowed} (got {s:?})"));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{allowed} (got {s:?})"))?;
    if value < 0.0 {
        return Err(format!("must not be negative (got {s:?})"));
    }
    let total = value * multiplier;
    // An exponent like 1e400 or 400 digits make the value infinite, which f64 carries silently.
    if !total.is_finite() || total >= QUANTITY_LIMIT {
        return Err(format!(
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got {s:?})"
        ));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> f64 {
        Quantity::positive(s).map(|q| q.units()).unwrap()
    }

    #[test]
    fn suffixes_and_exponents_scale_the_number() {
        assert_eq!(units("500m"), 0.5);
        assert_eq!(units("2"), 2.0);
        assert_eq!(units("1Gi"), 1073741824.0);
        assert_eq!(units("10M"), 1e7);
        assert_eq!(units("1e3"), 1000.0);
        assert_eq!(units("1.5"), 1.5);
    }

    #[test]
    fn the_text_is_kept_without_surrounding_spaces() {
        assert_eq!(Quantity::positive(" 512Mi ").unwrap().as_str(), "512Mi");
    }

    #[test]
    fn what_is_not_a_quantity_is_refused() {
        for bad in ["", "G", "1.2.3", "12x", "1 Gi", "."] {
            let message = Quantity::positive(bad).unwrap_err();
            assert!(
                message.starts_with("must be a Kubernetes quantity"),
                "{bad:?}"
            );
        }
        assert_eq!(
            Quantity::positive("-1").unwrap_err(),
            "must not be negative (got \"-1\")"
        );
    }

    #[test]
    fn nothing_is_not_a_positive_quantity() {
        for zero in ["0", "0Gi", "1e-400"] {
            assert_eq!(
                Quantity::positive(zero).unwrap_err(),
                format!("must be greater than 0 (got {zero:?})")
            );
        }
    }

    #[test]
    fn quantities_kubernetes_cannot_count_are_refused_with_the_bound() {
        assert!(Quantity::positive("7Ei").is_ok());
        assert!(Quantity::positive("9223372036854775").is_ok());
        for bad in [
            "1e400",
            "8Ei",
            "1e19",
            "9223372036854775808",
            &"9".repeat(400),
            "1000000Ei",
        ] {
            let message = Quantity::positive(bad).unwrap_err();
            assert!(message.contains("must be below 8Ei"), "{bad:?}: {message}");
        }
    }

    #[test]
    fn mebibytes_round_up_and_are_at_least_one() {
        assert_eq!(Quantity::positive("4Gi").unwrap().mebibytes(), 4096);
        assert_eq!(Quantity::positive("1.5Mi").unwrap().mebibytes(), 2);
        assert_eq!(Quantity::positive("1").unwrap().mebibytes(), 1);
    }
}
