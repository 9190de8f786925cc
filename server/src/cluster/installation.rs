//! What identifies this installation, kept in the database at the first start: the key that signs
//! what Tephra creates (unless a keys file holds it), and the cluster's id that Run:ai clients
//! send back.

use crate::db::Database;
use anyhow::Context;
use tephra_core::domain::keyring::KeyRing;
use tephra_core::domain::ownership::OwnerKey;
use uuid::Uuid;

/// The settings key of the key that signs Tephra's Jobs.
const OWNER_KEY_SETTING: &str = "owner-key";

/// The installation's owner key: the keys file's ring when one is given (the database's key is
/// then neither read nor created), else created at the first start and read from the database
/// after.
pub async fn owner_key(db: &Database, ring: Option<&KeyRing>) -> anyhow::Result<OwnerKey> {
    if let Some(ring) = ring {
        return Ok(OwnerKey::from_ring(ring));
    }
    let stored = db
        .settings()
        .get_or_create(OWNER_KEY_SETTING, || {
            let bytes: [u8; 32] = rand::random();
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        })
        .await
        .context("cannot read or create the key that signs Tephra's Jobs")?;
    OwnerKey::from_hex(&stored).context("the stored owner key is not a key; it was changed by hand")
}

/// The settings key of the cluster's id.
const CLUSTER_ID_SETTING: &str = "cluster-id";
/// The settings key of when the cluster was first seen (RFC 3339).
pub const CLUSTER_CREATED_AT_SETTING: &str = "cluster-created-at";
/// The `clusterId` workloads recorded before the id became a stored UUID.
const LEGACY_CLUSTER_ID: &str = "default";

/// The cluster's id: `flag` (`--cluster-id`, already checked to be a UUID) or a UUID created at
/// the first start and stored, so Run:ai scripts that send it back keep working across restarts.
/// Workloads recorded under the old placeholder id take it.
pub async fn cluster_id(db: &Database, flag: Option<&str>) -> anyhow::Result<String> {
    let id = match flag {
        Some(id) => id.to_owned(),
        None => db
            .settings()
            .get_or_create(CLUSTER_ID_SETTING, || Uuid::new_v4().to_string())
            .await
            .context("cannot read or create the cluster's id")?,
    };
    db.settings()
        .get_or_create(CLUSTER_CREATED_AT_SETTING, || {
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
        .await
        .context("cannot record when the cluster was first seen")?;
    db.workloads()
        .move_to_cluster(LEGACY_CLUSTER_ID, &id)
        .await
        .context("cannot give older workloads the cluster's id")?;
    Ok(id)
}
