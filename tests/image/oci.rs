//! Reads an OCI image layout the way a container runtime does: `index.json` → manifest → config
//! and layers, each blob checked against its digest, and the layers' tar entries (a small ustar
//! reader, so the test sees every header as written: owners, modes, times).

use anyhow::{Context, bail, ensure};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

pub const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const LAYER: &str = "application/vnd.oci.image.layer.v1.tar+gzip";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// Any other type flag (links, devices): the image has none, and unpacking refuses them.
    Other(u8),
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// Relative to the image's root, without a trailing slash.
    pub path: String,
    pub kind: Kind,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub mtime: u64,
    pub data: Vec<u8>,
}

pub struct Image {
    pub dir: PathBuf,
    pub index: Value,
    pub manifest: Value,
    /// The manifest's digest, as `index.json` names it.
    pub manifest_digest: String,
    pub config: Value,
    /// Every layer's entries, in order.
    pub entries: Vec<Entry>,
}

impl Image {
    pub fn open(dir: &Path) -> anyhow::Result<Image> {
        ensure!(
            dir.join("index.json").is_file(),
            "{} holds no OCI image layout: build it with scripts/image (scripts/test does)",
            dir.display()
        );
        let layout: Value = serde_json::from_slice(&std::fs::read(dir.join("oci-layout"))?)?;
        ensure!(
            layout["imageLayoutVersion"] == "1.0.0",
            "oci-layout: {layout}"
        );
        let index: Value = serde_json::from_slice(&std::fs::read(dir.join("index.json"))?)?;
        let manifests = index["manifests"].as_array().context("index.manifests")?;
        ensure!(
            manifests.len() == 1,
            "one image in the layout, found {}",
            manifests.len()
        );
        let descriptor = &manifests[0];
        ensure!(descriptor["mediaType"] == MANIFEST, "{descriptor}");
        ensure!(
            descriptor["platform"]["os"] == "linux"
                && descriptor["platform"]["architecture"] == "amd64",
            "{descriptor}"
        );
        let manifest: Value = serde_json::from_slice(&read_blob(dir, descriptor)?)?;
        ensure!(manifest["schemaVersion"] == 2, "{manifest}");
        ensure!(manifest["config"]["mediaType"] == CONFIG, "{manifest}");
        let config: Value = serde_json::from_slice(&read_blob(dir, &manifest["config"])?)?;
        let diff_ids = config["rootfs"]["diff_ids"]
            .as_array()
            .context("config.rootfs.diff_ids")?;
        let layers = manifest["layers"].as_array().context("manifest.layers")?;
        ensure!(
            layers.len() == diff_ids.len(),
            "{} layers, {} diff_ids",
            layers.len(),
            diff_ids.len()
        );
        let mut entries = Vec::new();
        for (layer, diff_id) in layers.iter().zip(diff_ids) {
            ensure!(layer["mediaType"] == LAYER, "{layer}");
            let mut tar = Vec::new();
            flate2::read::GzDecoder::new(&read_blob(dir, layer)?[..])
                .read_to_end(&mut tar)
                .context("the layer is not gzip")?;
            ensure!(
                diff_id.as_str() == Some(&sha256(&tar)?),
                "the layer's uncompressed digest is not its diff_id {diff_id}"
            );
            entries.extend(read_tar(&tar)?);
        }
        Ok(Image {
            dir: dir.to_owned(),
            manifest_digest: descriptor["digest"].as_str().unwrap_or_default().to_owned(),
            index,
            manifest,
            config,
            entries,
        })
    }

    pub fn entry(&self, path: &str) -> Option<&Entry> {
        let path = path.trim_matches('/');
        self.entries.iter().rev().find(|e| e.path == path)
    }

    /// Writes the layers into `root` as the current user: file and directory modes as in the
    /// image (owners cannot be set without privileges; the tests check them in the headers).
    pub fn unpack(&self, root: &Path) -> anyhow::Result<()> {
        let mut dirs = Vec::new();
        for entry in &self.entries {
            let target = root.join(safe_relative(&entry.path)?);
            match entry.kind {
                Kind::Dir => {
                    std::fs::create_dir_all(&target)?;
                    dirs.push((target, entry.mode));
                }
                Kind::File => {
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(&target, &entry.data)?;
                    set_mode(&target, entry.mode)?;
                }
                Kind::Other(flag) => bail!("{}: unexpected tar entry type {flag:?}", entry.path),
            }
        }
        // Directories last, deepest first: a read-only one would refuse the files inside it.
        for (dir, mode) in dirs.iter().rev() {
            set_mode(dir, *mode)?;
        }
        Ok(())
    }
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// A tar path that stays inside the directory it is unpacked into.
fn safe_relative(path: &str) -> anyhow::Result<&Path> {
    let p = Path::new(path);
    ensure!(
        !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_))),
        "tar entry {path:?} would leave the root"
    );
    Ok(p)
}

/// A blob named by `descriptor`, checked against its size and digest.
pub fn read_blob(dir: &Path, descriptor: &Value) -> anyhow::Result<Vec<u8>> {
    let digest = descriptor["digest"].as_str().context("descriptor.digest")?;
    let hex = digest
        .strip_prefix("sha256:")
        .with_context(|| format!("{digest} is not a sha256 digest"))?;
    let path = dir.join("blobs/sha256").join(hex);
    let data = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    ensure!(
        descriptor["size"].as_u64() == Some(data.len() as u64),
        "{digest}: {} bytes, the descriptor says {}",
        data.len(),
        descriptor["size"]
    );
    ensure!(
        sha256(&data)? == digest,
        "{digest}: the content does not match"
    );
    Ok(data)
}

/// `sha256:<hex>` of `data`, by coreutils' sha256sum (the tests have no hashing crate).
pub fn sha256(data: &[u8]) -> anyhow::Result<String> {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot run sha256sum")?;
    let mut stdin = child.stdin.take().context("stdin is piped")?;
    // Written from a thread: sha256sum answers only at the end, so the pipe never fills both ways.
    let data = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output()?;
    writer.join().expect("the writer thread")?;
    ensure!(out.status.success(), "sha256sum failed");
    let text = String::from_utf8(out.stdout)?;
    let hex = text.split_whitespace().next().context("sha256sum output")?;
    Ok(format!("sha256:{hex}"))
}

/// The entries of an uncompressed ustar archive.
pub fn read_tar(tar: &[u8]) -> anyhow::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut offset = 0;
    loop {
        let header = tar
            .get(offset..offset + 512)
            .context("the archive ends without its end-of-archive blocks")?;
        if header.iter().all(|&b| b == 0) {
            return Ok(entries);
        }
        let checksum: u64 = header
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u64::from(b)
                }
            })
            .sum();
        ensure!(
            octal(&header[148..156])? == checksum,
            "bad header checksum at byte {offset}"
        );
        ensure!(
            &header[257..262] == b"ustar",
            "not a ustar header at byte {offset}"
        );
        let name = text(&header[0..100])?;
        let prefix = text(&header[345..500])?;
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let size = usize::try_from(octal(&header[124..136])?)?;
        let kind = match header[156] {
            b'0' | 0 => Kind::File,
            b'5' => Kind::Dir,
            other => Kind::Other(other),
        };
        let start = offset + 512;
        let data = tar
            .get(start..start + size)
            .with_context(|| format!("{path}: the archive is cut short"))?
            .to_vec();
        entries.push(Entry {
            path: path.trim_end_matches('/').to_owned(),
            kind,
            mode: u32::try_from(octal(&header[100..108])?)?,
            uid: u32::try_from(octal(&header[108..116])?)?,
            gid: u32::try_from(octal(&header[116..124])?)?,
            mtime: octal(&header[136..148])?,
            data,
        });
        offset = start + size.div_ceil(512) * 512;
    }
}

fn text(field: &[u8]) -> anyhow::Result<String> {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    Ok(std::str::from_utf8(&field[..end])?.to_owned())
}

fn octal(field: &[u8]) -> anyhow::Result<u64> {
    let digits = text(field)?;
    let digits = digits.trim_matches(|c: char| c == ' ' || c == '\0');
    if digits.is_empty() {
        return Ok(0);
    }
    u64::from_str_radix(digits, 8).with_context(|| format!("{digits:?} is not an octal number"))
}
