use super::*;

fn hex_key(byte: u8) -> String {
    hex::encode([byte; 32])
}

fn file(tokens: &str, owner: &str) -> String {
    format!("tokens:\n{tokens}\nowner:\n{owner}\n")
}

fn ring_text(current: &str, keys: &[(&str, String)]) -> String {
    let mut text = format!("  current: {current}\n  keys:\n");
    for (kid, key) in keys {
        text.push_str(&format!("    - kid: {kid}\n      key: {key}\n"));
    }
    text
}

fn owner_ring() -> String {
    ring_text("o1", &[("o1", hex_key(0x0f))])
}

fn refused(text: &str) -> KeyFileError {
    Keyring::parse(text).expect_err("the file is refused")
}

#[test]
fn a_file_with_a_current_and_an_older_key_parses_with_the_current_first() {
    let tokens = ring_text("new", &[("old", hex_key(1)), ("new", hex_key(2))]);
    let keyring = Keyring::parse(&file(&tokens, &owner_ring())).unwrap();
    let (kid, key) = keyring.tokens.current();
    assert_eq!(kid.as_str(), "new");
    assert_eq!(key.bytes(), [2; 32]);
    assert_eq!(
        keyring.tokens.get("old").map(SecretKey::bytes),
        Some(&[1; 32][..])
    );
    let kids: Vec<&str> = keyring.tokens.all().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kids, ["new", "old"]);
    assert_eq!(keyring.owner.current().0.as_str(), "o1");
    assert!(keyring.tokens.get("gone").is_none());
}

#[test]
fn json_is_accepted_too() {
    let text = format!(
        r#"{{"tokens": {{"current": "a", "keys": [{{"kid": "a", "key": "{}"}}]}},
            "owner": {{"current": "b", "keys": [{{"kid": "b", "key": "{}"}}]}}}}"#,
        hex_key(3),
        hex_key(4)
    );
    assert!(Keyring::parse(&text).is_ok());
}

#[test]
fn a_key_that_is_not_hex_is_refused_by_its_field_without_quoting_it() {
    let secret = format!("{}zz", hex_key(7));
    let tokens = ring_text("a", &[("a", hex_key(1)), ("b", secret.clone())]);
    let error = refused(&file(&tokens, &owner_ring()));
    assert_eq!(error.field, "tokens.keys[1].key");
    assert!(error.message.contains("hexadecimal"), "{error}");
    assert!(!error.to_string().contains(&secret));
}

#[test]
fn a_short_key_is_refused() {
    let owner = ring_text("o", &[("o", "abcd".into())]);
    let error = refused(&file(&ring_text("a", &[("a", hex_key(1))]), &owner));
    assert_eq!(error.field, "owner.keys[0].key");
    assert!(error.message.contains("at least 32"), "{error}");
}

#[test]
fn a_kid_listed_twice_is_refused() {
    let tokens = ring_text("a", &[("a", hex_key(1)), ("a", hex_key(2))]);
    let error = refused(&file(&tokens, &owner_ring()));
    assert_eq!(error.field, "tokens.keys[1].kid");
    assert!(error.message.contains("twice"), "{error}");
}

#[test]
fn a_kid_outside_the_alphabet_is_refused() {
    let tokens = ring_text("\"a b\"", &[("\"a b\"", hex_key(1))]);
    assert_eq!(
        refused(&file(&tokens, &owner_ring())).field,
        "tokens.keys[0].kid"
    );
    assert!(Kid::parse(&"k".repeat(65)).is_err());
    assert!(Kid::parse("").is_err());
    assert!(Kid::parse("2026-11_a.b").is_ok());
}

#[test]
fn no_current_key_is_refused() {
    let tokens = "  keys:\n    - kid: a\n      key: ".to_owned() + &hex_key(1);
    let error = refused(&file(&tokens, &owner_ring()));
    assert_eq!(error.field, "tokens.current");
    let tokens = ring_text("gone", &[("a", hex_key(1))]);
    let error = refused(&file(&tokens, &owner_ring()));
    assert_eq!(error.field, "tokens.current");
    assert!(error.message.contains("names no key"), "{error}");
}

#[test]
fn a_missing_or_empty_ring_is_refused() {
    let only_tokens = format!("tokens:\n{}", ring_text("a", &[("a", hex_key(1))]));
    assert_eq!(refused(&only_tokens).field, "owner");
    let empty = file("  current: a\n  keys: []", &owner_ring());
    assert_eq!(refused(&empty).field, "tokens.keys");
}

#[test]
fn the_same_key_for_both_purposes_is_refused() {
    let tokens = ring_text("a", &[("a", hex_key(0x0f))]);
    let error = refused(&file(&tokens, &owner_ring()));
    assert!(error.field.starts_with("owner.keys"), "{error}");
}

#[test]
fn unknown_fields_and_garbage_are_errors_not_panics() {
    let typo = file(
        &format!("  curent: a\n{}", ring_text("a", &[("a", hex_key(1))])),
        &owner_ring(),
    );
    assert!(refused(&typo).message.contains("curent"));
    for text in ["", "[]", "tokens: 3", "\u{0}", "tokens: {keys: [{kid: a}]}"] {
        let _ = refused(text);
    }
}

#[test]
fn a_key_written_where_a_list_belongs_is_not_repeated_in_the_error() {
    let secret = hex_key(0xab);
    let error = refused(&format!("tokens:\n  current: a\n  keys: {secret}\n"));
    assert!(!error.to_string().contains(&secret), "{error}");
}

#[test]
fn keys_do_not_print() {
    let key = SecretKey::from_hex(&hex_key(5)).unwrap();
    assert_eq!(format!("{key:?}"), "SecretKey(..)");
}
