//! A workload's pods by name, as the watches last saw them.
//!
//! A sorted `Vec` rather than a `BTreeMap<String, PodInfo>`: the map's first insert allocates a
//! whole leaf of eleven names and pods (about 3 KiB) and keeps a second copy of each name, while
//! most workloads have one pod. The watch index holds this for every running workload, so that
//! was most of the server's memory per running training (issue 36: 7.8 KiB in the index for a
//! one-pod training, `scripts/bench index`). Lookups stay logarithmic and iteration stays in
//! name order.

use crate::model::live::PodInfo;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pods(Vec<PodInfo>);

impl Pods {
    fn position(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|p| p.name.as_str().cmp(name))
    }

    /// Adds `pod`, or replaces the one of the same name.
    pub fn insert(&mut self, pod: PodInfo) {
        match self.position(&pod.name) {
            Ok(i) => self.0[i] = pod,
            Err(i) => {
                // Most workloads have one pod: room for exactly that, not the four a Vec
                // would make.
                if self.0.capacity() == 0 {
                    self.0.reserve_exact(1);
                }
                self.0.insert(i, pod);
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<PodInfo> {
        self.position(name).ok().map(|i| self.0.remove(i))
    }

    pub fn get(&self, name: &str) -> Option<&PodInfo> {
        self.position(name).ok().map(|i| &self.0[i])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// The pods in name order.
    pub fn iter(&self) -> std::slice::Iter<'_, PodInfo> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Extend<PodInfo> for Pods {
    fn extend<I: IntoIterator<Item = PodInfo>>(&mut self, pods: I) {
        for pod in pods {
            self.insert(pod);
        }
    }
}

impl FromIterator<PodInfo> for Pods {
    fn from_iter<I: IntoIterator<Item = PodInfo>>(pods: I) -> Self {
        let mut all = Pods::default();
        all.extend(pods);
        all
    }
}

impl<'a> IntoIterator for &'a Pods {
    type Item = &'a PodInfo;
    type IntoIter = std::slice::Iter<'a, PodInfo>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, phase: &str) -> PodInfo {
        PodInfo {
            name: name.into(),
            phase: phase.into(),
            ..PodInfo::default()
        }
    }

    fn names(pods: &Pods) -> Vec<&str> {
        pods.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn pods_are_kept_by_name_in_order_and_replaced_by_name() {
        let mut pods: Pods = [pod("j-worker-1", "Pending"), pod("j-master-0", "Running")]
            .into_iter()
            .collect();
        pods.insert(pod("j-worker-0", "Pending"));
        assert_eq!(names(&pods), ["j-master-0", "j-worker-0", "j-worker-1"]);
        pods.insert(pod("j-worker-1", "Running"));
        assert_eq!(pods.len(), 3, "the same name replaces");
        assert_eq!(
            pods.get("j-worker-1").map(|p| p.phase.as_str()),
            Some("Running")
        );
        assert!(pods.contains("j-master-0") && !pods.contains("j-master-1"));
        assert_eq!(
            pods.remove("j-master-0").map(|p| p.name),
            Some("j-master-0".into())
        );
        assert_eq!(pods.remove("j-master-0"), None);
        assert_eq!(names(&pods), ["j-worker-0", "j-worker-1"]);
    }

    #[test]
    fn one_pod_takes_room_for_one() {
        let mut pods = Pods::default();
        assert!(pods.is_empty());
        pods.insert(pod("j-train-0", "Running"));
        assert_eq!(pods.0.capacity(), 1);
    }
}
