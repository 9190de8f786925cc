//! Absolute paths: directories on a node or an NFS server, and where volumes appear in a
//! container.

/// An absolute path without `..`, NUL or newlines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbsolutePath(String);

impl AbsolutePath {
    /// Refuses relative paths, `..` and control characters a path cannot hold.
    pub fn new(s: &str) -> Result<AbsolutePath, String> {
        if !s.starts_with('/') {
            return Err(format!(
                "must be an absolute path starting with '/' (got {s:?})"
            ));
        }
        if s.split('/').any(|part| part == "..") {
            return Err(format!("must not contain '..' (got {s:?})"));
        }
        if s.contains(['\0', '\n']) {
            return Err("must not contain NUL or newline characters".into());
        }
        Ok(AbsolutePath(s.to_owned()))
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where a volume is mounted: an absolute path other than the root and `/dev/shm` (which the
/// large shared memory option owns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountPath(AbsolutePath);

impl MountPath {
    /// Refuses what [`AbsolutePath::new`] refuses, the root and `/dev/shm`, however written.
    pub fn new(s: &str) -> Result<MountPath, String> {
        let path = AbsolutePath::new(s)?;
        // Compared without trailing slashes: `/dev/shm/` and `//` are `/dev/shm` and `/`.
        let bare = path.bare();
        if bare.is_empty() || bare == "/dev/shm" {
            return Err(format!("must not be {s:?}"));
        }
        Ok(MountPath(path))
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The path without trailing slashes, for telling whether two mounts are the same place.
    pub fn bare(&self) -> &str {
        self.0.bare()
    }
}

impl AbsolutePath {
    fn bare(&self) -> &str {
        self.0.trim_end_matches('/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_start_at_the_root_and_never_climb() {
        assert_eq!(
            AbsolutePath::new("/mnt/data").unwrap().as_str(),
            "/mnt/data"
        );
        assert!(AbsolutePath::new("/").is_ok());
        assert_eq!(
            AbsolutePath::new("string").unwrap_err(),
            "must be an absolute path starting with '/' (got \"string\")"
        );
        assert_eq!(
            AbsolutePath::new("/a/../etc").unwrap_err(),
            "must not contain '..' (got \"/a/../etc\")"
        );
        assert!(AbsolutePath::new("/a\nb").is_err());
    }

    #[test]
    fn nothing_is_mounted_over_the_root_or_shared_memory_however_written() {
        assert_eq!(MountPath::new("/data/").unwrap().bare(), "/data");
        assert!(MountPath::new("/dev/shm2").is_ok());
        for bad in ["/", "//", "/dev/shm", "/dev/shm/", "/dev/shm//"] {
            assert_eq!(
                MountPath::new(bad).unwrap_err(),
                format!("must not be {bad:?}")
            );
        }
        assert!(
            MountPath::new("data")
                .unwrap_err()
                .starts_with("must be an absolute path")
        );
    }
}
