//! What the image's one layer holds: a static binary, its user, the data directory and CA
//! certificates, and nothing privileged.

use super::{env, open, user};
use crate::oci::Kind;

#[test]
fn the_layer_holds_a_static_binary_and_nothing_privileged() {
    let image = open();
    let (uid, _) = user(&image);
    let data_dir = env(&image)["TEPHRA_DATA_DIR"].trim_matches('/').to_owned();
    let paths: Vec<&str> = image.entries.iter().map(|e| e.path.as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(paths, sorted, "entries sorted, each once (reproducible)");
    let created = &image.config["created"];
    let mtimes: std::collections::BTreeSet<u64> = image.entries.iter().map(|e| e.mtime).collect();
    assert_eq!(
        mtimes.len(),
        1,
        "one fixed time for every entry: {mtimes:?}"
    );
    assert!(created.is_string(), "config.created: {created}");

    for entry in &image.entries {
        assert!(
            matches!(entry.kind, Kind::File | Kind::Dir),
            "{}: only files and directories",
            entry.path
        );
        assert_eq!(
            entry.mode & 0o6000,
            0,
            "{}: setuid or setgid ({:o})",
            entry.path,
            entry.mode
        );
        let top = entry.path.split('/').next().unwrap();
        assert!(
            ["etc", "tmp", "usr", "var"].contains(&top),
            "{}: unexpected in the image",
            entry.path
        );
        if entry.path == data_dir {
            continue;
        }
        assert_eq!(
            (entry.uid, entry.gid),
            (0, 0),
            "{}: owned by root, so the user {uid} cannot change it",
            entry.path
        );
        if entry.path == "tmp" {
            assert_eq!(entry.mode, 0o1777, "/tmp: everyone's, sticky");
        } else {
            assert_eq!(entry.mode & 0o022, 0, "{}: writable by others", entry.path);
        }
    }

    let binary = image.entry("usr/local/bin/tephra").unwrap();
    let elf = &binary.data;
    assert_eq!(&elf[..4], b"\x7fELF", "an ELF executable");
    assert_eq!(elf[4], 2, "64-bit");
    assert_eq!(
        u16::from_le_bytes([elf[18], elf[19]]),
        62,
        "built for x86-64"
    );
    assert!(
        !program_header_types(elf).contains(&3),
        "the binary names a dynamic loader (PT_INTERP); the image has none"
    );

    let certs = image
        .entry("etc/ssl/certs/ca-certificates.crt")
        .expect("CA certificates for HTTPS");
    let count = String::from_utf8_lossy(&certs.data)
        .matches("-----BEGIN CERTIFICATE-----")
        .count();
    assert!(count > 50, "only {count} CA certificates");
}

/// The `p_type` of each ELF64 program header.
fn program_header_types(elf: &[u8]) -> Vec<u32> {
    let word = |at: usize, len: usize| {
        let mut bytes = [0u8; 8];
        bytes[..len].copy_from_slice(&elf[at..at + len]);
        u64::from_le_bytes(bytes) as usize
    };
    let (offset, size, count) = (word(32, 8), word(54, 2), word(56, 2));
    (0..count)
        .map(|i| word(offset + i * size, 4) as u32)
        .collect()
}
