//! The orders a workload list may take, and where a keyset page of one starts.

use super::StoredWorkload;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tephra_core::model::phase::Phase;
use uuid::Uuid;

/// What a list is ordered by; ties are broken by id so pages never overlap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortKey {
    #[default]
    CreatedAt,
    Name,
    ActualPhase,
    UpdatedAt,
}

impl SortKey {
    /// The columns of the order, most significant first; the last is always the id.
    pub(super) fn columns(self) -> &'static [&'static str] {
        match self {
            SortKey::CreatedAt => &["w.created_at", "w.id"],
            SortKey::Name => &["w.name", "w.id"],
            SortKey::ActualPhase => &["w.actual_phase", "w.created_at", "w.id"],
            SortKey::UpdatedAt => &["w.updated_at", "w.id"],
        }
    }
}

/// The sort values of a row, in its order's columns (without the id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Keyset {
    CreatedAt(DateTime<Utc>),
    Name(String),
    ActualPhase(Phase, DateTime<Utc>),
    UpdatedAt(DateTime<Utc>),
}

impl Keyset {
    /// What `row` sorts by in `sort`.
    pub fn of(sort: SortKey, row: &StoredWorkload) -> Keyset {
        match sort {
            SortKey::CreatedAt => Keyset::CreatedAt(row.created_at),
            SortKey::Name => Keyset::Name(row.name.clone()),
            SortKey::ActualPhase => Keyset::ActualPhase(row.actual_phase, row.created_at),
            SortKey::UpdatedAt => Keyset::UpdatedAt(row.updated_at),
        }
    }

    pub fn sort(&self) -> SortKey {
        match self {
            Keyset::CreatedAt(_) => SortKey::CreatedAt,
            Keyset::Name(_) => SortKey::Name,
            Keyset::ActualPhase(..) => SortKey::ActualPhase,
            Keyset::UpdatedAt(_) => SortKey::UpdatedAt,
        }
    }
}

/// The last row of the page before: the next page holds the rows strictly past it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct After {
    pub keyset: Keyset,
    pub id: Uuid,
}

impl After {
    pub fn of(sort: SortKey, row: &StoredWorkload) -> After {
        After {
            keyset: Keyset::of(sort, row),
            id: row.id,
        }
    }
}
