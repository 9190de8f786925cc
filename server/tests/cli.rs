//! The `tephra` binary as an operator meets it: help, configuration errors, start and stop.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

fn tephra() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tephra"));
    // The developer's own settings must not leak into these tests.
    for (key, _) in std::env::vars() {
        if key.starts_with("TEPHRA_") {
            c.env_remove(key);
        }
    }
    c
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = tephra().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_documents_every_option_and_its_variable() {
    let (code, stdout, _) = run(&["serve", "--help"]);
    assert_eq!(code, 0);
    for option in [
        "--addr",
        "--data-dir",
        "--database-url",
        "--site-root",
        "--dev-login",
        "--log",
        "--log-format",
        "--shutdown-grace-seconds",
        "--max-pods-per-workload",
    ] {
        assert!(
            stdout.contains(option),
            "{option} is not in --help:\n{stdout}"
        );
        let variable = format!("TEPHRA_{}", option[2..].replace('-', "_").to_uppercase());
        assert!(
            stdout.contains(&variable),
            "{variable} is not in --help:\n{stdout}"
        );
    }
    let (code, top, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(top.contains("serve"), "{top}");
}

#[test]
fn bad_settings_exit_2_naming_the_option() {
    let cases: [(&[&str], &str); 6] = [
        (&["--addr", "localhost"], "--addr"),
        (&["--max-pods-per-workload", "0"], "--max-pods-per-workload"),
        (
            &["--max-pods-per-workload", "many"],
            "--max-pods-per-workload",
        ),
        (&["--database-url", "mysql://u:pw@db/t"], "--database-url"),
        (&["--addr", "0.0.0.0:0", "--dev-login", "on"], "--dev-login"),
        (&["--log-format", "xml"], "--log-format"),
    ];
    for (args, option) in cases {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(option),
            "{args:?} should name {option}: {stderr}"
        );
        assert!(!stderr.contains("pw@"), "the password leaked: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn an_unreachable_database_fails_with_a_redacted_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://tephra:hunter2@127.0.0.1:{port}/tephra");
    let (code, _, stderr) = run(&[
        "--addr",
        "127.0.0.1:0",
        "--database-url",
        &url,
        "--log",
        "off",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error: cannot open the database at postgres://tephra:***@"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[test]
fn an_unwritable_data_dir_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let data_dir = file.join("data");
    let (code, _, stderr) = run(&[
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data_dir.to_str().unwrap(),
        "--log",
        "off",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cannot create data directory"), "{stderr}");
}

/// Starts the server and returns it with the address from its "ready" log line.
fn start(data_dir: &Path, addr: &str) -> (Child, String, BufReader<ChildStderr>) {
    let mut child = tephra()
        .args(["--addr", addr, "--log-format", "json", "--data-dir"])
        .arg(data_dir)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        line.clear();
        if stderr.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let event: serde_json::Value = serde_json::from_str(&line).expect("log lines are JSON");
        if event["message"] == "tephra is ready" {
            return (child, event["addr"].as_str().unwrap().to_owned(), stderr);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the server did not become ready; last line: {line}");
}

#[test]
fn sigterm_stops_the_server_gracefully() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _addr, mut stderr) = start(dir.path(), "127.0.0.1:0");
    assert!(
        dir.path().join("tephra.db").exists(),
        "the SQLite file is created on first start"
    );
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("\"message\":\"stopped\""), "{rest}");
}

#[test]
fn a_port_in_use_fails_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let (mut first, addr, _stderr) = start(dir.path(), "127.0.0.1:0");
    let other = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&[
        "--addr",
        &addr,
        "--data-dir",
        other.path().to_str().unwrap(),
        "--log",
        "off",
    ]);
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
}

fn fixture(name: &str) -> String {
    format!(
        "{}/../core/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn render_stdin(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = tephra()
        .arg("render")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn render_prints_the_job_and_its_side_objects_as_yaml() {
    let profile = fixture("cluster-profile.yaml");
    let (code, stdout, stderr) = run(&[
        "render",
        &fixture("seed-003-consistent.json"),
        "--cluster-profile",
        &profile,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let docs: Vec<serde_json::Value> = stdout
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_yaml::from_str(d).unwrap())
        .collect();
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    // The S3 bucket's Secret, volume and claim come before the new PVC's claim; the second
    // Service is the exposed URL's (the profile names no ingress class).
    assert_eq!(
        kinds,
        [
            "Job",
            "Secret",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "PersistentVolumeClaim",
            "Service",
            "Service"
        ]
    );
    assert!(
        docs.iter().any(|d| d["metadata"]["name"]
            .as_str()
            .is_some_and(|n| n.ends_with("-urls"))),
        "{stdout}"
    );
    assert_eq!(docs[0]["apiVersion"], "batch.volcano.sh/v1alpha1");
    assert_eq!(docs[0]["spec"]["schedulerName"], "volcano");
}

#[test]
fn render_prints_json_on_request_and_reads_yaml_from_stdin() {
    let request = "name: ddp\nprojectId: 7\nspec:\n  image: pytorch/pytorch:2.4\n  distributedFramework: PyTorch\n  numWorkers: 3\n";
    let (code, stdout, stderr) = render_stdin(&["-", "--output", "json"], request);
    assert_eq!(code, 0, "{stderr}");
    let list: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let job = &list["items"][0];
    assert_eq!(job["spec"]["minAvailable"], 4);
    assert_eq!(job["spec"]["tasks"][1]["replicas"], 3);
}

#[test]
fn render_reports_invalid_requests_as_json_and_exits_2() {
    let (code, stdout, stderr) = run(&["render", &fixture("seed-003-request.json")]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    let body: serde_json::Value = serde_json::from_str(&stderr).unwrap();
    assert_eq!(body["code"], 400);
    assert_eq!(body["message"], "the training request is invalid");
    let errors = body["errors"].as_array().unwrap();
    assert!(errors.len() >= 4, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e["path"] == "spec.storage.git[0].repository")
    );
    // Fields without effect are not errors (they are warnings once the request is valid).
    assert!(
        !errors
            .iter()
            .any(|e| e["path"] == "spec.compute.migProfile")
    );
}

#[test]
fn render_never_panics_on_garbage() {
    for input in [
        "",
        "{",
        "[1,2]",
        "name: [unclosed",
        "\u{0}\u{1}",
        "{\"name\": 5}",
        "null",
    ] {
        let (code, _, stderr) = render_stdin(&[], input);
        assert_eq!(code, 2, "{input:?}: {stderr}");
        let body: serde_json::Value = serde_json::from_str(&stderr)
            .unwrap_or_else(|e| panic!("{input:?}: stderr is not JSON ({e}): {stderr}"));
        assert_eq!(body["code"], 400);
        assert!(!body["errors"].as_array().unwrap().is_empty() || body["message"].is_string());
        assert!(!stderr.contains("panicked"));
    }
    let (code, _, stderr) = run(&["render", "/no/such/file.json"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot read /no/such/file.json"),
        "{stderr}"
    );
}
