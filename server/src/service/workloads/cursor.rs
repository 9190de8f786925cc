//! The `nextCursor` of a workload list: where the next page of the same order starts, as opaque
//! text a client sends back as `after`. It names a position, not a permission: the page after
//! it is still filtered to what the caller may read.

use crate::db::workloads::{After, SortKey};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    pub after: After,
    pub ascending: bool,
}

impl Cursor {
    pub fn encode(&self) -> String {
        // Serializing plain data cannot fail; an empty cursor would only restart the list.
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// The cursor `text` encodes, when it is one this list gave for `sort` and `ascending`; the
    /// error says what is wrong with it, for the `after` parameter.
    pub fn decode(text: &str, sort: SortKey, ascending: bool) -> Result<After, String> {
        let cursor: Cursor = URL_SAFE_NO_PAD
            .decode(text)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or("is not a nextCursor this list gave; start again without it")?;
        if cursor.after.keyset.sort() != sort || cursor.ascending != ascending {
            return Err(
                "was given for another sortBy or sortOrder; send the same ones, or start \
                        again without it"
                    .into(),
            );
        }
        Ok(cursor.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::workloads::Keyset;
    use chrono::{TimeZone, Utc};

    fn cursor() -> Cursor {
        Cursor {
            after: After {
                keyset: Keyset::Name("train-7".into()),
                id: uuid::Uuid::from_u128(7),
            },
            ascending: true,
        }
    }

    #[test]
    fn a_cursor_reads_back_for_its_own_order_only() {
        let text = cursor().encode();
        assert_eq!(
            Cursor::decode(&text, SortKey::Name, true),
            Ok(cursor().after)
        );
        for (sort, ascending) in [(SortKey::Name, false), (SortKey::CreatedAt, true)] {
            let error = Cursor::decode(&text, sort, ascending).unwrap_err();
            assert!(error.contains("another sortBy or sortOrder"), "{error}");
        }
    }

    #[test]
    fn text_that_is_no_cursor_is_refused() {
        let at = Utc.with_ymd_and_hms(2026, 11, 28, 0, 0, 0).unwrap();
        let other = Cursor {
            after: After {
                keyset: Keyset::CreatedAt(at),
                id: uuid::Uuid::nil(),
            },
            ascending: false,
        };
        assert!(Cursor::decode(&other.encode(), SortKey::CreatedAt, false).is_ok());
        for text in ["", "not base64!", &URL_SAFE_NO_PAD.encode(b"{\"after\":1}")] {
            let error = Cursor::decode(text, SortKey::CreatedAt, false).unwrap_err();
            assert!(error.contains("not a nextCursor"), "{text}: {error}");
        }
    }
}
