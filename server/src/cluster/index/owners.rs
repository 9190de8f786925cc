//! Which workload each tracked object belongs to, by namespace, kind and name: how deletes and
//! events, which name an object but carry no workload, find their workload.
//!
//! One entry per tracked object, so three per running one-pod training. A namespace is shared
//! by every object of a project: it is stored once and handed out as an `Arc`, rather than
//! copied into every key.

use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

use super::ObjectKind;

/// (kind, namespace, name) of one object.
pub type Key = (ObjectKind, String, String);

#[derive(Debug, Default)]
pub struct Owners {
    by_namespace: HashMap<Arc<str>, Names>,
}

/// One namespace's objects, by kind, then by name.
#[derive(Debug, Default)]
struct Names([HashMap<String, Uuid>; 3]);

impl Names {
    fn of(&self, kind: ObjectKind) -> &HashMap<String, Uuid> {
        &self.0[kind as usize]
    }

    fn of_mut(&mut self, kind: ObjectKind) -> &mut HashMap<String, Uuid> {
        &mut self.0[kind as usize]
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(HashMap::is_empty)
    }
}

impl Owners {
    /// Records that `key` belongs to `id`; returns the namespace as stored, to share.
    pub fn insert(&mut self, key: &Key, id: Uuid) -> Arc<str> {
        let (kind, namespace, name) = key;
        let shared = match self.by_namespace.get_key_value(namespace.as_str()) {
            Some((shared, _)) => shared.clone(),
            None => Arc::from(namespace.as_str()),
        };
        self.by_namespace
            .entry(shared.clone())
            .or_default()
            .of_mut(*kind)
            .insert(name.clone(), id);
        shared
    }

    pub fn get(&self, key: &Key) -> Option<Uuid> {
        let (kind, namespace, name) = key;
        self.by_namespace
            .get(namespace.as_str())?
            .of(*kind)
            .get(name)
            .copied()
    }

    pub fn remove(&mut self, key: &Key) -> Option<Uuid> {
        let (kind, namespace, name) = key;
        let names = self.by_namespace.get_mut(namespace.as_str())?;
        let id = names.of_mut(*kind).remove(name)?;
        if names.is_empty() {
            self.by_namespace.remove(namespace.as_str());
        }
        Some(id)
    }

    /// Every object of `kind`.
    pub fn keys_of(&self, kind: ObjectKind) -> impl Iterator<Item = Key> + '_ {
        self.by_namespace
            .iter()
            .flat_map(move |(namespace, names)| {
                names
                    .of(kind)
                    .keys()
                    .map(move |name| (kind, namespace.to_string(), name.clone()))
            })
    }

    /// Forgets every object of workload `id`.
    pub fn forget_workload(&mut self, id: Uuid) {
        for names in self.by_namespace.values_mut() {
            for objects in &mut names.0 {
                objects.retain(|_, owner| *owner != id);
            }
        }
        self.by_namespace.retain(|_, names| !names.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: ObjectKind, namespace: &str, name: &str) -> Key {
        (kind, namespace.into(), name.into())
    }

    #[test]
    fn objects_of_one_namespace_share_its_name() {
        let mut owners = Owners::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let first = owners.insert(&key(ObjectKind::Job, "team-a", "train"), a);
        let second = owners.insert(&key(ObjectKind::Pod, "team-a", "train-0"), b);
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(
            owners.get(&key(ObjectKind::Job, "team-a", "train")),
            Some(a)
        );
        // The same name in another kind or namespace is another object.
        assert_eq!(owners.get(&key(ObjectKind::Pod, "team-a", "train")), None);
        assert_eq!(owners.get(&key(ObjectKind::Job, "team-b", "train")), None);
    }

    #[test]
    fn a_namespace_goes_with_its_last_object() {
        let mut owners = Owners::default();
        let id = Uuid::new_v4();
        owners.insert(&key(ObjectKind::Job, "team-a", "train"), id);
        owners.insert(&key(ObjectKind::Pod, "team-a", "train-0"), id);
        assert_eq!(
            owners.remove(&key(ObjectKind::Job, "team-a", "train")),
            Some(id)
        );
        assert_eq!(owners.by_namespace.len(), 1);
        owners.remove(&key(ObjectKind::Pod, "team-a", "train-0"));
        assert!(owners.by_namespace.is_empty());
        assert_eq!(
            owners.remove(&key(ObjectKind::Pod, "team-a", "train-0")),
            None
        );
    }

    #[test]
    fn keys_of_a_kind_and_forgetting_a_workload() {
        let mut owners = Owners::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        owners.insert(&key(ObjectKind::Job, "team-a", "one"), a);
        owners.insert(&key(ObjectKind::Job, "team-b", "two"), b);
        owners.insert(&key(ObjectKind::Pod, "team-b", "two-0"), b);
        let mut jobs: Vec<Key> = owners.keys_of(ObjectKind::Job).collect();
        jobs.sort_by(|x, y| x.1.cmp(&y.1));
        assert_eq!(
            jobs,
            vec![
                key(ObjectKind::Job, "team-a", "one"),
                key(ObjectKind::Job, "team-b", "two")
            ]
        );
        owners.forget_workload(b);
        assert_eq!(owners.keys_of(ObjectKind::Pod).count(), 0);
        assert_eq!(owners.by_namespace.len(), 1);
        assert_eq!(owners.get(&key(ObjectKind::Job, "team-a", "one")), Some(a));
    }
}
