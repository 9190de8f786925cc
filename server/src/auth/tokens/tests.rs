use super::*;

fn tokens() -> AppTokens {
    AppTokens::new(&new_key()).unwrap()
}

#[test]
fn a_token_verifies_until_it_expires() {
    let tokens = tokens();
    let token = tokens.issue("ci-bot", 1_000);
    assert!(is_tephra_token(&token));
    let claims = tokens.verify(&token, 1_000 + TOKEN_SECONDS - 1).unwrap();
    assert_eq!(claims.sub, "ci-bot");
    assert_eq!(
        tokens.verify(&token, 1_000 + TOKEN_SECONDS),
        Err(TokenError::Expired)
    );
}

/// Run:ai's SDK reads `exp` by decoding the claims with Python's `base64.b64decode`, which
/// drops the URL-safe `-` and `_` instead of decoding them. ASCII JSON only encodes to those
/// where a byte `>`, `?` or `~` ends a 3-byte group, which application names never hold; this
/// keeps it so.
#[test]
fn the_claims_decode_with_the_standard_base64_alphabet_too() {
    use base64::Engine;
    let tokens = tokens();
    for app in [
        "ci-bot",
        "sdk",
        "nightly-runs.team-a",
        "a",
        "ab",
        "abc",
        "x9_y",
    ] {
        for now in [0, 1_000, 1_764_000_000, 1_999_999_999] {
            let token = tokens.issue(app, now);
            let claims = token.split('.').nth(1).unwrap();
            assert!(!claims.contains(['-', '_']), "{app} at {now}: {claims}");
            let padded = format!("{claims}{}", "=".repeat((4 - claims.len() % 4) % 4));
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(padded)
                .unwrap();
            let json: serde_json::Value = serde_json::from_slice(&decoded).unwrap();
            assert_eq!(json["exp"], now + TOKEN_SECONDS);
        }
    }
}

#[test]
fn another_installation_or_a_changed_claim_does_not_verify() {
    let token = tokens().issue("ci-bot", 1_000);
    assert_eq!(
        tokens().verify(&token, 1_000),
        Err(TokenError::BadSignature)
    );
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    let mut claims: serde_json::Value =
        serde_json::from_slice(&B64.decode(&parts[1]).unwrap()).unwrap();
    claims["sub"] = "root-bot".into();
    parts[1] = B64.encode(serde_json::to_vec(&claims).unwrap());
    let issuer = tokens();
    let forged = issuer.issue("ci-bot", 1_000);
    let mut forged_parts: Vec<&str> = forged.split('.').collect();
    forged_parts[1] = &parts[1];
    assert_eq!(
        issuer.verify(&forged_parts.join("."), 1_000),
        Err(TokenError::BadSignature)
    );
}

#[test]
fn garbage_is_malformed_not_a_panic() {
    let tokens = tokens();
    for token in ["", "a.b", "a.b.c.d", "...", "e30.e30.e30", "\u{0}.x.y"] {
        assert_eq!(
            tokens.verify(token, 0),
            Err(TokenError::Malformed),
            "{token}"
        );
        assert!(!is_tephra_token(token));
    }
}

/// A ring from the keys file: `current` signs, `older` still verify. Each key is one byte
/// repeated.
fn ring(current: (&str, u8), older: &[(&str, u8)]) -> AppTokens {
    let mut keys = String::new();
    for (kid, byte) in std::iter::once(&current).chain(older) {
        keys.push_str(&format!(
            "    - {{kid: {kid}, key: {}}}\n",
            hex::encode([*byte; 32])
        ));
    }
    let text = format!(
        "tokens:\n  current: {}\n  keys:\n{keys}owner:\n  current: o\n  keys:\n    - \
             {{kid: o, key: {}}}\n",
        current.0,
        hex::encode([0xeeu8; 32])
    );
    let keyring = tephra_core::domain::keyring::Keyring::parse(&text).unwrap();
    AppTokens::from_ring(keyring.tokens)
}

fn header_of(token: &str) -> serde_json::Value {
    let header = token.split('.').next().unwrap();
    serde_json::from_slice(&B64.decode(header).unwrap()).unwrap()
}

#[test]
fn a_token_carries_the_kid_of_the_key_that_signed_it() {
    let token = ring(("2026-11", 1), &[]).issue("ci-bot", 1_000);
    assert_eq!(header_of(&token)["kid"], "tephra-app:2026-11");
    assert!(is_tephra_token(&token));
    let legacy = tokens().issue("ci-bot", 1_000);
    assert_eq!(
        header_of(&legacy)["kid"],
        KEY_ID,
        "the database key's form is unchanged"
    );
}

#[test]
fn after_a_rotation_a_token_of_the_older_key_verifies_while_it_is_listed() {
    let token = ring(("k1", 1), &[]).issue("ci-bot", 1_000);
    let rotated = ring(("k2", 2), &[("k1", 1)]);
    assert_eq!(rotated.verify(&token, 1_001).unwrap().sub, "ci-bot");
    let fresh = rotated.issue("ci-bot", 1_001);
    assert_eq!(header_of(&fresh)["kid"], "tephra-app:k2");
    assert_eq!(rotated.verify(&fresh, 1_002).unwrap().sub, "ci-bot");
}

#[test]
fn a_token_of_a_removed_key_is_refused_naming_the_kid() {
    let token = ring(("k1", 1), &[]).issue("ci-bot", 1_000);
    let error = ring(("k2", 2), &[]).verify(&token, 1_001).unwrap_err();
    assert_eq!(error, TokenError::UnknownKey("k1".into()));
    assert!(error.to_string().contains("no longer accepts"), "{error}");
}

#[test]
fn a_listed_kid_with_another_keys_signature_does_not_verify() {
    let forged = ring(("k1", 9), &[]).issue("ci-bot", 1_000);
    assert_eq!(
        ring(("k2", 2), &[("k1", 1)]).verify(&forged, 1_001),
        Err(TokenError::BadSignature)
    );
}

#[test]
fn a_token_from_before_rotation_verifies_when_the_file_lists_the_database_key() {
    let hex_key = hex::encode([7u8; 32]);
    let before = AppTokens::new(&hex_key).unwrap().issue("ci-bot", 1_000);
    let migrated = ring(("k2", 2), &[("database", 7)]);
    assert_eq!(migrated.verify(&before, 1_001).unwrap().sub, "ci-bot");
    assert_eq!(
        ring(("k2", 2), &[]).verify(&before, 1_001),
        Err(TokenError::UnknownKey("database".into()))
    );
}

#[test]
fn a_kid_that_is_not_one_is_malformed() {
    let issuer = ring(("k1", 1), &[]);
    let token = issuer.issue("ci-bot", 1_000);
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    parts[0] = B64.encode(br#"{"alg":"HS256","typ":"JWT","kid":"tephra-app:a b"}"#);
    assert_eq!(
        issuer.verify(&parts.join("."), 1_000),
        Err(TokenError::Malformed)
    );
}

#[test]
fn derived_keys_sign_with_the_current_key_and_include_every_older_one() {
    let old = ring(("k1", 1), &[]).derived_key("pending-login");
    let rotated = ring(("k2", 2), &[("k1", 1)]);
    let (current, older) = rotated.derived_keys("pending-login");
    assert_eq!(current, rotated.derived_key("pending-login"));
    assert_ne!(current, old);
    assert_eq!(older, [old]);
}

#[test]
fn secrets_are_random_and_hashed() {
    let (a, b) = (new_secret(), new_secret());
    assert_ne!(a, b);
    assert!(a.len() >= 43);
    assert_eq!(hash_secret(&a), hash_secret(&a));
    assert_ne!(hash_secret(&a), hash_secret(&b));
    assert!(!hash_secret(&a).contains(&a));
}
