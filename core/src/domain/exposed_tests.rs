use super::*;

fn key() -> PassKey {
    PassKey::from_hex(&"5e".repeat(32)).unwrap()
}

const HOST: &str = "train-8888-0a1b2c3d.apps.example.net";
const NOW: i64 = 1_800_000_000;

fn pass(user: Uuid) -> Pass {
    Pass {
        host: HOST.into(),
        user,
        groups: vec!["ml".into()],
        expires: NOW + GRANT_SECONDS,
    }
}

#[test]
fn a_label_is_the_job_the_port_and_a_hash_within_63_characters() {
    let label = host_label("tephra-vision", "train", 8888);
    assert!(label.starts_with("train-8888-"), "{label}");
    assert_eq!(label.len(), "train-8888-".len() + HASH_LEN);
    let longest = "a".repeat(48);
    assert!(host_label("tephra-vision", &longest, 65535).len() <= LABEL_MAX);
    let long = "b".repeat(70);
    let shortened = host_label("tephra-vision", &long, 65535);
    assert_eq!(shortened.len(), LABEL_MAX, "{shortened}");
    let other = host_label("tephra-vision", &format!("{}c", "b".repeat(69)), 65535);
    assert_ne!(shortened, other, "shortened names stay apart by the hash");
    let dashed = host_label("ns", &format!("{}-{}", "d".repeat(47), "e".repeat(20)), 1);
    assert!(!dashed.contains("--"), "{dashed}");
    assert_eq!(
        url_host("Apps.Example.NET", "ns", "Train", 80),
        format!("{}.apps.example.net", host_label("ns", "train", 80))
    );
}

#[test]
fn the_same_job_in_two_namespaces_gets_two_hosts() {
    assert_ne!(
        host_label("tephra-vision", "train", 8888),
        host_label("tephra-speech", "train", 8888)
    );
    assert_ne!(
        host_label("tephra-vision", "train", 8888),
        host_label("tephra-vision", "train", 8889)
    );
}

#[test]
fn hosts_are_read_back_only_under_the_ingress_host() {
    let host = url_host("apps.example.net", "tephra-vision", "my-job-2", 8888);
    let parsed = parse_host(&format!("{}:443", host.to_uppercase()), "apps.example.net").unwrap();
    assert_eq!(parsed.host, host);
    assert_eq!(parsed.job_prefix, "my-job-2");
    assert_eq!(parsed.port, 8888);
    for other in [
        "apps.example.net",
        "x.y.apps.example.net",
        "train-8888-0a1b2c3d.apps.example.net.evil.example",
        "train-8888-0a1b2c3d.evilapps.example.net",
        "train-0-0a1b2c3d.apps.example.net",
        "train-70000-0a1b2c3d.apps.example.net",
        "-8888-0a1b2c3d.apps.example.net",
        "train-8888-0a1b.apps.example.net",
        "tr_ain-8888-0a1b2c3d.apps.example.net",
        "",
    ] {
        assert_eq!(parse_host(other, "apps.example.net"), None, "{other}");
    }
}

#[test]
fn a_pass_opens_for_its_purpose_host_and_time_only() {
    let user = Uuid::new_v4();
    let sealed = key().seal(Purpose::Grant, &pass(user));
    assert_eq!(
        key().open(Purpose::Grant, &sealed, HOST, NOW),
        Ok(pass(user))
    );
    assert_eq!(
        key().open(Purpose::Cookie, &sealed, HOST, NOW),
        Err(PassError::BadSignature),
        "a grant is not a cookie"
    );
    assert_eq!(
        key().open(
            Purpose::Grant,
            &sealed,
            "other-1-0a1b2c3d.apps.example.net",
            NOW
        ),
        Err(PassError::OtherHost)
    );
    assert_eq!(
        key().open(Purpose::Grant, &sealed, HOST, NOW + GRANT_SECONDS),
        Err(PassError::Expired)
    );
    let other_key = PassKey::from_hex(&"17".repeat(32)).unwrap();
    assert_eq!(
        other_key.open(Purpose::Grant, &sealed, HOST, NOW),
        Err(PassError::BadSignature)
    );
}

#[test]
fn a_tampered_pass_is_refused() {
    let sealed = key().seal(Purpose::Cookie, &pass(Uuid::new_v4()));
    let (payload, signature) = sealed.split_once('.').unwrap();
    // Another user, more groups or a later expiry under the same signature.
    let mut forged = pass(Uuid::new_v4());
    forged.groups.push("admins".into());
    forged.expires += 3600;
    let forged_payload = B64.encode(serde_json::to_vec(&forged).unwrap());
    for bad in [
        format!("{forged_payload}.{signature}"),
        format!("{payload}.{}", B64.encode([0u8; 32])),
        format!("{payload}."),
        payload.to_owned(),
        String::new(),
        "a.b.c".into(),
    ] {
        assert!(
            key().open(Purpose::Cookie, &bad, HOST, NOW).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn the_cookie_is_host_only_secure_and_bounded() {
    let cookie = set_cookie("abc.def", COOKIE_SECONDS);
    assert!(cookie.starts_with("__Host-tephra-exposed=abc.def;"));
    for attribute in [
        "Path=/",
        "Max-Age=28800",
        "Secure",
        "HttpOnly",
        "SameSite=Lax",
    ] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Domain"), "{cookie}");
}

#[test]
fn a_pass_sealed_before_a_rotation_opens_while_the_older_key_is_listed() {
    let (old, new) = (vec![1u8; 32], vec![2u8; 32]);
    let sealed =
        PassKey::rotating(old.clone(), Vec::new()).seal(Purpose::Cookie, &pass(Uuid::new_v4()));
    let rotated = PassKey::rotating(new.clone(), vec![old]);
    assert!(rotated.open(Purpose::Cookie, &sealed, HOST, NOW).is_ok());
    assert_eq!(
        PassKey::rotating(new, Vec::new()).open(Purpose::Cookie, &sealed, HOST, NOW),
        Err(PassError::BadSignature)
    );
}
