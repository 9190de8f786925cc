//! The organisation page's quota fields, as a browser posts them (text), turned into the
//! org-unit API's resources for one node pool, and a project's idle-GPU timeout in minutes into
//! its scheduling rules. An empty quota, limit or timeout is `null`: none, as in Run:ai.

use super::org::{IDLE_SECONDS, PoolRef, PoolResources, SchedulingRules, Share};
use super::validation::FieldError;
use serde::{Deserialize, Serialize};

/// The GPU share of one node pool, as typed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuotaFields {
    /// The node pool; `default` when empty.
    pub pool: String,
    pub gpu_quota: String,
    pub gpu_limit: String,
    pub over_quota_weight: String,
}

fn amount(field: &str, text: &str) -> Result<Option<f64>, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(FieldError {
            path: field.to_owned(),
            message: format!(
                "must be a number of GPUs, 0 or more, or empty for none (got {text:?})"
            ),
        }),
    }
}

impl QuotaFields {
    /// The pool's resources: the GPU share typed here, CPU and memory without quota or limit.
    pub fn resources(&self) -> Result<PoolResources, Vec<FieldError>> {
        let quota = amount("gpu_quota", &self.gpu_quota);
        let limit = amount("gpu_limit", &self.gpu_limit);
        let weight = match self.over_quota_weight.trim() {
            "" => Ok(None),
            text => text.parse::<u32>().map(Some).map_err(|_| FieldError {
                path: "over_quota_weight".into(),
                message: format!("must be a whole number, 0 or more (got {text:?})"),
            }),
        };
        let mut errors = Vec::new();
        let mut take =
            |r: Result<Option<f64>, FieldError>| r.map_err(|e| errors.push(e)).ok().flatten();
        let (deserved, limit) = (take(quota), take(limit));
        let over_quota_weight = weight.map_err(|e| errors.push(e)).ok().flatten();
        if let (Some(q), Some(l)) = (deserved, limit)
            && l < q
        {
            errors.push(FieldError {
                path: "gpu_limit".into(),
                message: format!("must be at least the quota ({q}), or empty for no limit"),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let pool = match self.pool.trim() {
            "" => "default".to_owned(),
            pool => pool.to_owned(),
        };
        Ok(PoolResources {
            node_pool: PoolRef {
                id: Some(pool.clone()),
                name: pool,
            },
            gpu: Share {
                deserved,
                limit,
                over_quota_weight,
            },
            cpu: Share::default(),
            memory: Share::default(),
        })
    }
}

/// The project's idle-GPU rule from the minutes typed (`idle_minutes`); empty is no rule.
pub fn idle_rule(minutes: &str) -> Result<Option<SchedulingRules>, FieldError> {
    let text = minutes.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let (least, most) = (IDLE_SECONDS.start() / 60, IDLE_SECONDS.end() / 60);
    match text.parse::<u64>() {
        Ok(m) if (least..=most).contains(&m) => Ok(Some(SchedulingRules {
            training_job_max_idle_duration_seconds: Some(m * 60),
        })),
        _ => Err(FieldError {
            path: "idle_minutes".into(),
            message: format!(
                "must be a whole number of minutes from {least} to {most} (30 days), or empty \
                 for no timeout (got {text:?})"
            ),
        }),
    }
}

/// `resources` with `pool`'s entry replaced by (or joined with) `entry`; other pools keep theirs.
pub fn with_pool(mut resources: Vec<PoolResources>, entry: PoolResources) -> Vec<PoolResources> {
    match resources
        .iter_mut()
        .find(|r| r.node_pool.name == entry.node_pool.name)
    {
        Some(existing) => {
            existing.gpu = entry.gpu;
        }
        None => resources.push(entry),
    }
    resources
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(quota: &str, limit: &str, weight: &str) -> QuotaFields {
        QuotaFields {
            pool: String::new(),
            gpu_quota: quota.into(),
            gpu_limit: limit.into(),
            over_quota_weight: weight.into(),
        }
    }

    #[test]
    fn empty_means_none_and_numbers_are_kept() {
        let r = fields("4", "", "2").resources().unwrap();
        assert_eq!(r.node_pool.name, "default");
        assert_eq!(
            (r.gpu.deserved, r.gpu.limit, r.gpu.over_quota_weight),
            (Some(4.0), None, Some(2))
        );
        assert_eq!(r.cpu, Share::default());
    }

    #[test]
    fn bad_input_names_each_field() {
        let errors = fields("-1", "x", "1.5").resources().unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["gpu_quota", "gpu_limit", "over_quota_weight"]);
        let below = fields("4", "2", "").resources().unwrap_err();
        assert_eq!(
            below[0].message,
            "must be at least the quota (4), or empty for no limit"
        );
    }

    #[test]
    fn idle_minutes_become_seconds_and_empty_is_no_rule() {
        assert_eq!(idle_rule(" "), Ok(None));
        let rule = idle_rule("30").unwrap().unwrap();
        assert_eq!(rule.training_job_max_idle_duration_seconds, Some(1800));
        assert!(idle_rule("43200").is_ok());
        for bad in ["0", "43201", "1.5", "-5", "soon"] {
            let error = idle_rule(bad).unwrap_err();
            assert_eq!(error.path, "idle_minutes", "{bad}");
            assert!(
                error.message.contains("from 1 to 43200"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn another_pools_entry_is_kept() {
        let a = fields("1", "", "").resources().unwrap();
        let mut b = fields("2", "", "").resources().unwrap();
        b.node_pool.name = "a100".into();
        let both = with_pool(
            vec![a.clone(), b.clone()],
            fields("3", "", "").resources().unwrap(),
        );
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].gpu.deserved, Some(3.0));
        assert_eq!(both[1], b);
    }
}
