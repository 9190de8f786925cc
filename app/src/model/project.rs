//! Projects: the unit of membership, quota and placement (one namespace and one queue each).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub id: String,
    pub name: String,
    pub namespace: String,
    pub queue: String,
    pub trainings: i64,
    /// RFC 3339.
    pub created_at: String,
}
