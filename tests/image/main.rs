//! The container image `scripts/image` writes (an OCI image layout, by default under
//! `<target>/image/tephra-oci`; `TEPHRA_IMAGE_DIR` names another): what its config declares, what
//! its layer holds, and that the server in it starts from the image's own files (no cluster, no
//! kubeconfig) and serves its pages and site.
//!
//! The server runs from the unpacked layer as a container runtime would start it, without one:
//! `unshare` puts it in a user namespace as the image's user with the unpacked layer as its root
//! directory (no privileges needed), with the config's Entrypoint, Cmd, Env and WorkingDir. Only
//! the listening address is overridden, to a free port on 127.0.0.1. Where user namespaces are
//! not allowed, the binary runs from the unpacked layer with the config's absolute paths pointed
//! into it, and the test says so.

mod container;
mod layer;
mod oci;

use container::{container, unpack};
use oci::{Entry, Image, Kind};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tephra_tests::process::Guarded;
use tephra_tests::workspace;

fn layout_dir() -> PathBuf {
    match std::env::var_os("TEPHRA_IMAGE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => workspace::target_dir().join("image/tephra-oci"),
    }
}

fn open() -> Image {
    Image::open(&layout_dir()).unwrap_or_else(|e| panic!("{e:#}"))
}

fn config(image: &Image) -> &serde_json::Value {
    &image.config["config"]
}

fn env(image: &Image) -> BTreeMap<String, String> {
    config(image)["Env"]
        .as_array()
        .expect("config.Env")
        .iter()
        .filter_map(|v| v.as_str()?.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| Some(v.as_str()?.to_owned()))
        .collect()
}

/// The numeric user and group the config runs as.
fn user(image: &Image) -> (u32, u32) {
    let user = config(image)["User"].as_str().expect("config.User is set");
    let (uid, gid) = user
        .split_once(':')
        .unwrap_or_else(|| panic!("User {user:?} names no group"));
    let parse = |s: &str| {
        s.parse::<u32>()
            // A name cannot be checked for root by a runtime (runAsNonRoot refuses it).
            .unwrap_or_else(|_| panic!("User {user:?} is not numeric"))
    };
    (parse(uid), parse(gid))
}

/// `/etc/passwd`'s line for `uid`, split into its fields.
fn passwd_line(image: &Image, uid: u32) -> Vec<String> {
    let passwd = image
        .entry("etc/passwd")
        .expect("/etc/passwd is in the image");
    String::from_utf8_lossy(&passwd.data)
        .lines()
        .map(|l| l.split(':').map(str::to_owned).collect::<Vec<_>>())
        .find(|f| f.len() == 7 && f[2] == uid.to_string())
        .unwrap_or_else(|| panic!("/etc/passwd has no user {uid}"))
}

#[test]
fn the_layout_and_its_archive_name_the_same_image() {
    let image = open();
    assert_eq!(
        image.index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"],
        config(&image)["Labels"]["org.opencontainers.image.version"],
        "the tag is the version"
    );
    // One tarball for `docker load` (manifest.json) and for `podman load` / skopeo (the layout).
    let archive_path = image.dir.with_extension("tar");
    let archive = std::fs::read(&archive_path)
        .unwrap_or_else(|e| panic!("{}: {e} (scripts/image writes it)", archive_path.display()));
    let files: BTreeMap<String, Entry> = oci::read_tar(&archive)
        .unwrap()
        .into_iter()
        .map(|e| (e.path.clone(), e))
        .collect();
    let layout_file = |name: &str| std::fs::read(image.dir.join(name)).unwrap();
    for name in ["oci-layout", "index.json"] {
        assert_eq!(files[name].data, layout_file(name), "{name} in the archive");
    }
    let docker: serde_json::Value = serde_json::from_slice(&files["manifest.json"].data).unwrap();
    let blob_path = |desc: &serde_json::Value| {
        format!("blobs/sha256/{}", &desc["digest"].as_str().unwrap()[7..])
    };
    assert_eq!(docker[0]["Config"], blob_path(&image.manifest["config"]));
    assert_eq!(
        strings(&docker[0]["Layers"]),
        image.manifest["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(blob_path)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        strings(&docker[0]["RepoTags"]),
        [format!(
            "tephra:{}",
            config(&image)["Labels"]["org.opencontainers.image.version"]
                .as_str()
                .unwrap()
        )]
    );
    let manifest_path = format!("blobs/sha256/{}", &image.manifest_digest[7..]);
    for path in [
        manifest_path,
        docker[0]["Config"].as_str().unwrap().to_owned(),
    ] {
        assert_eq!(
            files[&path].data,
            layout_file(&path),
            "{path} in the archive"
        );
    }
}

#[test]
fn the_config_runs_tephra_unprivileged_with_its_settings_in_the_environment() {
    let image = open();
    let (uid, gid) = user(&image);
    assert_ne!(uid, 0, "the image must not run as root");
    assert_ne!(gid, 0, "the image must not run in group root");
    let account = passwd_line(&image, uid);
    assert_eq!(account[3], gid.to_string(), "{account:?}");
    let group = image
        .entry("etc/group")
        .expect("/etc/group is in the image");
    assert!(
        String::from_utf8_lossy(&group.data)
            .lines()
            .any(|l| l.split(':').nth(2) == Some(&gid.to_string())),
        "/etc/group has no group {gid}"
    );

    let entrypoint = strings(&config(&image)["Entrypoint"]);
    assert_eq!(entrypoint, ["/usr/local/bin/tephra"]);
    let binary = image
        .entry(&entrypoint[0])
        .expect("the entrypoint is in the image");
    assert_eq!((binary.kind, binary.mode), (Kind::File, 0o755));
    assert_eq!(strings(&config(&image)["Cmd"]), ["serve"]);

    let env = env(&image);
    let site = &env["TEPHRA_SITE_ROOT"];
    assert!(
        image.entry(&format!("{site}/pkg/tephra.wasm")).is_some(),
        "TEPHRA_SITE_ROOT={site} holds no pkg/tephra.wasm"
    );
    let data = &env["TEPHRA_DATA_DIR"];
    let data_dir = image.entry(data).expect("TEPHRA_DATA_DIR is in the image");
    assert_eq!(
        (data_dir.kind, data_dir.uid, data_dir.gid, data_dir.mode),
        (Kind::Dir, uid, gid, 0o700),
        "{data}: the user's own, private"
    );
    assert_eq!(
        config(&image)["WorkingDir"].as_str(),
        Some(data.as_str()),
        "relative paths land in the data directory"
    );
    let addr: std::net::SocketAddr = env["TEPHRA_ADDR"].parse().unwrap();
    assert!(
        addr.ip().is_unspecified(),
        "reachable from outside the container"
    );
    assert!(
        config(&image)["ExposedPorts"]
            .get(format!("{}/tcp", addr.port()))
            .is_some(),
        "port {} is exposed: {}",
        addr.port(),
        config(&image)["ExposedPorts"]
    );
    assert!(
        image.entry(&env["SSL_CERT_FILE"]).is_some(),
        "SSL_CERT_FILE is in the image"
    );
    for unwanted in ["KUBECONFIG", "TEPHRA_KUBECONFIG", "TEPHRA_DATABASE_URL"] {
        assert!(
            !env.contains_key(unwanted),
            "{unwanted} is the deployment's to set"
        );
    }

    let labels = &config(&image)["Labels"];
    for key in ["title", "version", "licenses", "created", "description"] {
        assert!(
            labels[format!("org.opencontainers.image.{key}")].is_string(),
            "label org.opencontainers.image.{key}: {labels}"
        );
    }
    assert_eq!(
        labels["org.opencontainers.image.version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(image.config["os"], "linux");
    assert_eq!(image.config["architecture"], "amd64");
}

#[tokio::test]
async fn the_server_in_the_image_starts_without_a_cluster_and_serves_its_site() {
    let image = open();
    let (_dir, rootfs) = unpack(&image);
    let container = container(&image, &rootfs);

    let version = container
        .command(Some(&["--version"]), &[])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("tephra {}", env!("CARGO_PKG_VERSION"))
    );

    let mut child = container
        .command(None, &[("TEPHRA_ADDR", "127.0.0.1:0")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the image's entrypoint starts");
    let stderr = child.stderr.take().unwrap();
    let mut process = Guarded::new("tephra (image)", child);
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut log = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let addr = loop {
        assert!(
            Instant::now() < deadline,
            "not ready within 60 s; its log:\n{}",
            log.join("\n")
        );
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                // JSON lines: TEPHRA_LOG_FORMAT=json comes from the image's Env.
                let event: Option<serde_json::Value> = serde_json::from_str(&line).ok();
                log.push(line);
                if let Some(event) = event
                    && event["message"] == "tephra is ready"
                {
                    break event["addr"].as_str().unwrap().to_owned();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("the server exited; its log:\n{}", log.join("\n"))
            }
        }
    };
    assert!(
        log.iter().any(|l| l.contains(server::cluster::NO_CLUSTER)),
        "started without a cluster, and said so:\n{}",
        log.join("\n")
    );

    let base = format!("http://{addr}");
    let http = tephra_tests::http();
    let get = |path: &str| http.get(format!("{base}{path}")).send();
    let health = get("/healthz").await.unwrap();
    assert_eq!(health.status(), 200);
    let ready = get("/readyz").await.unwrap();
    assert_eq!(ready.status(), 200, "{}", ready.text().await.unwrap());

    let page = get("/trainings").await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("<title>Trainings · Tephra</title>"), "{html}");

    // What the page asks the browser for is what the image's site holds, byte for byte.
    let site = rootfs.join(env(&image)["TEPHRA_SITE_ROOT"].trim_start_matches('/'));
    let linked = regex::Regex::new(r#"(?:href|src)="(/pkg/[^"?#]+)""#).unwrap();
    let mut served = Vec::new();
    for path in linked.captures_iter(&html).map(|c| c[1].to_owned()) {
        let res = get(&path).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        // The stylesheet is built into the binary; the bundle is the site's.
        if !(path.ends_with(".js") || path.ends_with(".wasm")) {
            continue;
        }
        let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
        let body = res.bytes().await.unwrap();
        let file = std::fs::read(site.join(path.trim_start_matches('/')))
            .unwrap_or_else(|e| panic!("{path} is linked but not in the image's site: {e}"));
        assert!(body == file, "{path}: not the image's file");
        if path.ends_with(".wasm") {
            assert_eq!(
                content_type, "application/wasm",
                "streaming compilation needs it"
            );
        }
        served.push(path);
    }
    for ending in [".js", ".wasm"] {
        assert!(
            served.iter().any(|p| p.ends_with(ending)),
            "the page links no {ending} file of the site ({served:?}):\n{html}"
        );
    }

    let status = process
        .terminate(Duration::from_secs(30))
        .expect("stops on SIGTERM");
    assert!(status.success(), "{status}");
    let data = rootfs.join(env(&image)["TEPHRA_DATA_DIR"].trim_start_matches('/'));
    assert!(
        data.join("tephra.db").exists(),
        "the database lives in the data directory"
    );
}
