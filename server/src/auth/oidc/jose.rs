//! A JWT's JOSE header, read before it is verified: only to choose how to verify the token (its
//! `kid` says which of the provider's keys signed it, its `typ` whether it is an access token),
//! never trusted for anything else.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
pub(super) struct Header {
    typ: Option<String>,
    kid: Option<String>,
}

impl Header {
    /// The header of `raw`, or an empty one when it has none that parses (verification then
    /// refuses the token itself).
    pub(super) fn of(raw: &str) -> Header {
        raw.split('.')
            .next()
            .and_then(|h| URL_SAFE_NO_PAD.decode(h).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Whether the token says it is an OAuth access token (RFC 9068): `at+jwt`, with or
    /// without the `application/` prefix, in any case.
    pub(super) fn is_access_token(&self) -> bool {
        self.typ.as_deref().is_some_and(|t| {
            let t = t.to_ascii_lowercase();
            t == "at+jwt" || t == "application/at+jwt"
        })
    }

    pub(super) fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(header: &str) -> String {
        format!("{}.e30.sig", URL_SAFE_NO_PAD.encode(header))
    }

    #[test]
    fn the_header_says_which_key_and_what_kind_of_token() {
        let at = Header::of(&token(r#"{"alg":"RS256","typ":"at+JWT","kid":"k1"}"#));
        assert!(at.is_access_token());
        assert_eq!(at.kid(), Some("k1"));
        assert!(Header::of(&token(r#"{"typ":"application/at+jwt"}"#)).is_access_token());
        let id = Header::of(&token(r#"{"alg":"RS256","typ":"JWT"}"#));
        assert!(!id.is_access_token());
        assert_eq!(id.kid(), None);
        assert!(!Header::of("not a token").is_access_token());
        assert!(!Header::of("").is_access_token());
    }
}
