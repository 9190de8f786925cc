//! Values of a training request that have been checked. Each type is built only by parsing the
//! request's text or number, and keeps what the renderer needs (the text as Kubernetes takes it,
//! the number it stands for), so a value is parsed once and the renderer cannot meet one that is
//! wrong.
//!
//! Constructors return the message of a refusal; the validator adds the field's path, because
//! the same value type serves many fields.

mod names;
mod numbers;
mod paths;
mod quantity;
mod words;

pub use names::{MigProfile, ObjectName};
pub use numbers::{CPU_CORES_MAX, CpuCores, ExtendedQuantity, GpuPortion, int32};
pub use paths::{AbsolutePath, MountPath};
pub use quantity::{QUANTITY_LIMIT, Quantity};
pub use words::{SupplementalGroups, Words};
