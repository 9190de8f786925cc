//! Which Volcano Jobs are Tephra's. The workload-id label alone proves nothing: anyone who may
//! create a Job can copy it by hand. Tephra also writes an owner annotation, an HMAC-SHA256 of the
//! workload id, namespace and Job name under a key only Tephra holds (created once and kept in the
//! database). A Job whose annotation does not verify is never adopted, tracked or deleted as a
//! workload's, and since the name is in the signature, copying a real Job's labels and annotations
//! onto another Job does not pass either. Requests cannot set either key: labels and annotations
//! under `tephra.dev/` are refused by the validator.
//!
//! With a keys file the key can be rotated: Tephra signs with the current key and accepts a
//! signature under any key listed. The annotation does not name its key: trying each of a
//! handful of keys costs a few HMACs, and a second annotation would be one more thing that can
//! drift from the signature it describes.

use super::rotating_key::RotatingKey;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use uuid::Uuid;

use super::keyring::KeyRing;
use super::labels::WORKLOAD_ID;

/// The annotation carrying the owner signature.
pub const OWNER: &str = "tephra.dev/owner";

/// The keys Tephra signs its Jobs with: the current one, and older ones whose signatures are
/// still Tephra's.
#[derive(Clone, Debug)]
pub struct OwnerKey(RotatingKey);

impl OwnerKey {
    /// A key from its stored form (hex); `None` when it is not hex or too short to be a key.
    pub fn from_hex(stored: &str) -> Option<Self> {
        RotatingKey::from_hex(stored).map(OwnerKey)
    }

    /// The keys file's owner ring: its current key signs, every key verifies.
    pub fn from_ring(ring: &KeyRing) -> Self {
        OwnerKey(RotatingKey::new(
            ring.current().1.bytes().to_vec(),
            ring.keys()
                .skip(1)
                .map(|key| key.bytes().to_vec())
                .collect(),
        ))
    }

    /// What is signed: separators that cannot occur in a UUID or a Kubernetes name keep the
    /// fields apart.
    fn parts<'a>(id: &'a str, namespace: &'a str, name: &'a str) -> [&'a str; 5] {
        [id, "\n", namespace, "\n", name]
    }

    /// Whether `signature` is any listed key's of `id`, `namespace` and `name`.
    fn signed(&self, signature: &[u8], id: &str, namespace: &str, name: &str) -> bool {
        self.0
            .verifies(&Self::parts(id, namespace, name), signature)
    }

    /// The owner annotation's value for a workload's Job, under the current key.
    pub fn sign(&self, id: &str, namespace: &str, name: &str) -> String {
        hex::encode(self.0.sign(&Self::parts(id, namespace, name)))
    }

    /// The workload that owns an object with this metadata, if its label and signature agree.
    pub fn owner(&self, meta: &ObjectMeta) -> Option<Uuid> {
        let id_text = meta.labels.as_ref()?.get(WORKLOAD_ID)?;
        let id: Uuid = id_text.parse().ok()?;
        let signature = hex::decode(meta.annotations.as_ref()?.get(OWNER)?).ok()?;
        // A cluster-wide object (an S3 volume) is signed with an empty namespace.
        let namespace = meta.namespace.as_deref().unwrap_or_default();
        let name = meta.name.as_deref()?;
        self.signed(&signature, id_text, namespace, name)
            .then_some(id)
    }

    /// The owner annotation's value for an object this installation keeps for its organisation
    /// (a department's or project's queue): cluster-scoped, and no workload's.
    pub fn sign_org(&self, name: &str) -> String {
        self.sign(ORG_OWNER, "", name)
    }

    /// Whether this installation signed the object with [`Self::sign_org`]: only those are
    /// deleted when their department or project is, never another installation's.
    pub fn owns_org(&self, meta: &ObjectMeta) -> bool {
        self.verifies(ORG_OWNER, "", meta)
    }

    /// The owner annotation's value for what this installation keeps for a project's namespace:
    /// the namespace itself (cluster-wide: `namespace` is empty), and the RoleBinding and
    /// NetworkPolicy in it. No workload's, and distinct from a queue's of the same name.
    pub fn sign_installation(&self, namespace: &str, name: &str) -> String {
        self.sign(INSTALLATION_OWNER, namespace, name)
    }

    /// Whether this installation signed the object with [`Self::sign_installation`]: a
    /// namespace without it (kube-system, another installation's, one made by hand) is never
    /// labelled or used.
    pub fn owns_installation(&self, meta: &ObjectMeta) -> bool {
        let namespace = meta.namespace.as_deref().unwrap_or_default();
        self.verifies(INSTALLATION_OWNER, namespace, meta)
    }

    /// Whether the object's owner annotation is this key's signature of `owner`, `namespace`
    /// and the object's name.
    fn verifies(&self, owner: &str, namespace: &str, meta: &ObjectMeta) -> bool {
        let signature = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(OWNER))
            .and_then(|s| hex::decode(s).ok());
        match (signature, meta.name.as_deref()) {
            (Some(signature), Some(name)) => self.signed(&signature, owner, namespace, name),
            _ => false,
        }
    }
}

/// What org objects are signed for, in place of a workload id.
const ORG_OWNER: &str = "organisation";
/// What a project namespace and the objects Tephra keeps in it for the project are signed for.
const INSTALLATION_OWNER: &str = "installation";

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> OwnerKey {
        OwnerKey::from_hex(&"5e".repeat(32)).unwrap()
    }

    #[test]
    fn org_objects_are_owned_only_by_the_key_that_signed_them() {
        let signed = ObjectMeta {
            name: Some("tephra-vision".into()),
            annotations: Some([(OWNER.to_owned(), key().sign_org("tephra-vision"))].into()),
            ..ObjectMeta::default()
        };
        assert!(key().owns_org(&signed));
        let other = OwnerKey::from_hex(&"17".repeat(32)).unwrap();
        assert!(!other.owns_org(&signed), "another installation's queue");
        let renamed = ObjectMeta {
            name: Some("tephra-speech".into()),
            ..signed.clone()
        };
        assert!(!key().owns_org(&renamed));
        assert!(!key().owns_org(&ObjectMeta::default()));
    }

    #[test]
    fn namespaces_are_owned_only_by_the_installation_that_signed_them() {
        let signed = ObjectMeta {
            name: Some("tephra-vision".into()),
            annotations: Some(
                [(
                    OWNER.to_owned(),
                    key().sign_installation("", "tephra-vision"),
                )]
                .into(),
            ),
            ..ObjectMeta::default()
        };
        assert!(key().owns_installation(&signed));
        let other = OwnerKey::from_hex(&"17".repeat(32)).unwrap();
        assert!(!other.owns_installation(&signed), "another installation's");
        assert!(
            !key().owns_org(&signed),
            "a queue's signature is not a namespace's"
        );
        let queue = ObjectMeta {
            annotations: Some([(OWNER.to_owned(), key().sign_org("tephra-vision"))].into()),
            ..signed.clone()
        };
        assert!(
            !key().owns_installation(&queue),
            "a namespace's is not a queue's"
        );
        let kube_system = ObjectMeta {
            name: Some("kube-system".into()),
            ..signed.clone()
        };
        assert!(
            !key().owns_installation(&kube_system),
            "copied onto another namespace"
        );
        assert!(!key().owns_installation(&ObjectMeta::default()));
        let inside = ObjectMeta {
            name: Some("tephra".into()),
            namespace: Some("tephra-vision".into()),
            annotations: Some(
                [(
                    OWNER.to_owned(),
                    key().sign_installation("tephra-vision", "tephra"),
                )]
                .into(),
            ),
            ..ObjectMeta::default()
        };
        assert!(key().owns_installation(&inside));
        let moved = ObjectMeta {
            namespace: Some("tephra-speech".into()),
            ..inside
        };
        assert!(
            !key().owns_installation(&moved),
            "copied into another namespace"
        );
    }

    fn meta(id: &str, namespace: &str, name: &str, signature: Option<String>) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            labels: Some([(WORKLOAD_ID.to_owned(), id.to_owned())].into()),
            annotations: signature.map(|s| [(OWNER.to_owned(), s)].into()),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn a_signed_job_belongs_to_its_workload() {
        let key = key();
        let id = Uuid::new_v4().to_string();
        let signed = meta(
            &id,
            "tephra-a",
            "train",
            Some(key.sign(&id, "tephra-a", "train")),
        );
        assert_eq!(key.owner(&signed), id.parse().ok());
    }

    #[test]
    fn a_signed_cluster_wide_volume_belongs_to_its_workload_and_only_there() {
        let key = key();
        let id = Uuid::new_v4().to_string();
        let volume = ObjectMeta {
            namespace: None,
            ..meta(
                &id,
                "",
                "tephra-s3-0",
                Some(key.sign(&id, "", "tephra-s3-0")),
            )
        };
        assert_eq!(key.owner(&volume), id.parse().ok());
        let namespaced = meta(
            &id,
            "tephra-a",
            "tephra-s3-0",
            volume
                .annotations
                .as_ref()
                .and_then(|a| a.get(OWNER).cloned()),
        );
        assert_eq!(key.owner(&namespaced), None, "not in a namespace");
    }

    #[test]
    fn copied_labels_without_the_signature_are_not_ownership() {
        let key = key();
        let id = Uuid::new_v4().to_string();
        assert_eq!(key.owner(&meta(&id, "tephra-a", "train", None)), None);
        let garbage = meta(&id, "tephra-a", "train", Some("not hex".into()));
        assert_eq!(key.owner(&garbage), None);
    }

    #[test]
    fn a_signature_copied_to_another_job_or_namespace_does_not_verify() {
        let key = key();
        let id = Uuid::new_v4().to_string();
        let signature = key.sign(&id, "tephra-a", "train");
        assert_eq!(
            key.owner(&meta(&id, "tephra-a", "copy", Some(signature.clone()))),
            None
        );
        assert_eq!(
            key.owner(&meta(&id, "tephra-b", "train", Some(signature.clone()))),
            None
        );
        let other = Uuid::new_v4().to_string();
        assert_eq!(
            key.owner(&meta(&other, "tephra-a", "train", Some(signature))),
            None
        );
    }

    #[test]
    fn another_installations_key_does_not_verify() {
        let id = Uuid::new_v4().to_string();
        let theirs = OwnerKey::from_hex(&"a7".repeat(32))
            .unwrap()
            .sign(&id, "tephra-a", "train");
        assert_eq!(
            key().owner(&meta(&id, "tephra-a", "train", Some(theirs))),
            None
        );
    }

    /// The keys file's owner ring with `current` signing and `older` still accepted.
    fn ring(current: u8, older: &[u8]) -> OwnerKey {
        let mut keys = String::new();
        for (i, byte) in std::iter::once(&current).chain(older).enumerate() {
            let key = hex::encode([*byte; 32]);
            keys.push_str(&format!("    - {{kid: k{i}, key: {key}}}\n"));
        }
        let text = format!(
            "owner:\n  current: k0\n  keys:\n{keys}tokens:\n  current: t\n  keys:\n    - \
             {{kid: t, key: {}}}\n",
            hex::encode([0xeeu8; 32])
        );
        OwnerKey::from_ring(&crate::domain::keyring::Keyring::parse(&text).unwrap().owner)
    }

    #[test]
    fn after_a_rotation_what_the_older_key_signed_is_still_owned_while_it_is_listed() {
        let id = Uuid::new_v4().to_string();
        let before = ring(1, &[]);
        let job = meta(
            &id,
            "tephra-a",
            "train",
            Some(before.sign(&id, "tephra-a", "train")),
        );
        let namespace = ObjectMeta {
            name: Some("tephra-a".into()),
            annotations: Some(
                [(OWNER.to_owned(), before.sign_installation("", "tephra-a"))].into(),
            ),
            ..ObjectMeta::default()
        };
        let rotated = ring(2, &[1]);
        assert_eq!(rotated.owner(&job), id.parse().ok());
        assert!(rotated.owns_installation(&namespace));
        assert_ne!(
            rotated.sign(&id, "tephra-a", "train"),
            before.sign(&id, "tephra-a", "train"),
            "the current key signs"
        );
        let dropped = ring(2, &[]);
        assert_eq!(dropped.owner(&job), None);
        assert!(!dropped.owns_installation(&namespace));
    }

    #[test]
    fn the_database_key_in_a_ring_verifies_what_it_signed_before() {
        let id = Uuid::new_v4().to_string();
        let database = OwnerKey::from_hex(&"01".repeat(32)).unwrap();
        let job = meta(
            &id,
            "tephra-a",
            "train",
            Some(database.sign(&id, "tephra-a", "train")),
        );
        assert_eq!(ring(2, &[1]).owner(&job), id.parse().ok());
    }

    #[test]
    fn keys_must_be_hex_and_long_enough() {
        assert!(OwnerKey::from_hex("abcd").is_none(), "too short");
        assert!(OwnerKey::from_hex("zz").is_none());
        assert!(OwnerKey::from_hex(&"00".repeat(32)).is_some());
    }
}
