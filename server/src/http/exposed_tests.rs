use super::*;
use tephra_core::domain::exposed::url_host;

const APPS: &str = "apps.example.net";

fn host() -> String {
    url_host(APPS, "tephra-vision", "notebook", 8888)
}

#[test]
fn rd_is_an_exposed_url_of_this_installation_or_refused() {
    let url = ReturnUrl::parse(&format!("https://{}/lab?x=1#cell", host()), APPS).unwrap();
    assert_eq!(url.label.host, host());
    assert_eq!(url.label.port, 8888);
    assert_eq!(
        url.with_grant("G"),
        format!("https://{}/lab?x=1&tephra-grant=G", host())
    );
    let bare = ReturnUrl::parse(&format!("https://{}", host()), APPS).unwrap();
    assert_eq!(
        bare.with_grant("G"),
        format!("https://{}/?tephra-grant=G", host())
    );
    for bad in [
        format!("http://{}/", host()),
        format!("https://user@{}/", host()),
        format!("https://{}.evil.example/", host()),
        format!("//{}/", host()),
        format!("https://{}\\@evil.example/", host()),
        format!("https://{} /", host()),
        "https://evil.example/".to_owned(),
        "https://apps.example.net/".to_owned(),
        "/trainings".to_owned(),
        String::new(),
    ] {
        let refused = ReturnUrl::parse(&bad, APPS).unwrap_err();
        assert!(refused.starts_with("rd: "), "{bad}: {refused}");
    }
}

#[test]
fn a_stale_grant_is_dropped_from_rd() {
    let url = ReturnUrl::parse(
        &format!(
            "https://{}/tree?tephra-grant=old&a=b&tephra-grant=older",
            host()
        ),
        APPS,
    )
    .unwrap();
    assert_eq!(
        url.with_grant("new"),
        format!("https://{}/tree?a=b&tephra-grant=new", host())
    );
}

fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, value.parse().unwrap());
    }
    map
}

#[test]
fn the_original_request_is_read_from_either_ingress() {
    let nginx = headers(&[(
        "x-original-url",
        "https://a-1-0a1b2c3d.apps.example.net/x?y=1",
    )]);
    assert_eq!(
        original_request(&nginx),
        Some(("a-1-0a1b2c3d.apps.example.net".into(), "/x?y=1".into()))
    );
    let traefik = headers(&[
        ("x-forwarded-host", "a-1-0a1b2c3d.apps.example.net"),
        ("x-forwarded-uri", "/x"),
    ]);
    assert_eq!(
        original_request(&traefik),
        Some(("a-1-0a1b2c3d.apps.example.net".into(), "/x".into()))
    );
    assert_eq!(original_request(&headers(&[])), None);
    assert_eq!(grant_in("/x?a=b&tephra-grant=G"), Some("G"));
    assert_eq!(grant_in("/x?tephra-grantx=G"), None);
    assert_eq!(grant_in("/tephra-grant=G"), None);
}

#[test]
fn the_hosts_cookie_is_found_among_others() {
    let sent = headers(&[
        ("cookie", "a=1; __Host-tephra-exposed=P.S"),
        ("cookie", "b=2"),
    ]);
    assert_eq!(cookie_in(&sent), Some("P.S"));
    assert_eq!(
        cookie_in(&headers(&[("cookie", "tephra-exposed=P.S")])),
        None
    );
}
