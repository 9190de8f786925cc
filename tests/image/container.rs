//! Starting the image's programs as a container runtime would, without one: in a user namespace
//! as the image's user with the unpacked layer as the root directory, or, where user namespaces
//! are not allowed, straight from the unpacked layer with the config's absolute paths rewritten.

use crate::oci::Image;
use crate::{config, env, passwd_line, strings, user};
use std::path::{Path, PathBuf};
use std::process::Command;

/// How the test starts the image's programs.
enum Runner {
    /// As the image's user, in a user namespace whose root directory is the unpacked layer.
    Namespace { uid: u32, gid: u32 },
    /// Straight from the unpacked layer, the config's absolute paths pointed into it.
    Rewritten,
}

pub struct Container<'a> {
    image: &'a Image,
    rootfs: PathBuf,
    runner: Runner,
}

impl Container<'_> {
    /// The config's Entrypoint with `args` (or its Cmd), its Env and WorkingDir, and `overrides`
    /// set the way `docker run -e` sets them.
    pub fn command(&self, args: Option<&[&str]>, overrides: &[(&str, &str)]) -> Command {
        let mut argv = strings(&config(self.image)["Entrypoint"]);
        match args {
            Some(args) => argv.extend(args.iter().map(|s| (*s).to_owned())),
            None => argv.extend(strings(&config(self.image)["Cmd"])),
        }
        let workdir = config(self.image)["WorkingDir"]
            .as_str()
            .unwrap_or("/")
            .to_owned();
        let mut env = env(self.image);
        // Runtimes set HOME from /etc/passwd when the image's Env does not.
        let (uid, _) = user(self.image);
        env.entry("HOME".into())
            .or_insert_with(|| passwd_line(self.image, uid)[5].clone());
        for (key, value) in overrides {
            env.insert((*key).to_owned(), (*value).to_owned());
        }
        let mut command = match self.runner {
            Runner::Namespace { uid, gid } => {
                // Found on the test's PATH: the child's environment is the image's.
                let mut command = Command::new(on_path("unshare"));
                command
                    .arg(format!("--map-user={uid}"))
                    .arg(format!("--map-group={gid}"))
                    .arg(format!("--root={}", self.rootfs.display()))
                    .arg(format!("--wd={workdir}"))
                    .arg("--")
                    .args(&argv);
                command
            }
            Runner::Rewritten => {
                let inside = |path: &str| self.rootfs.join(path.trim_start_matches('/'));
                for value in env.values_mut() {
                    if value.starts_with('/') && inside(value).exists() {
                        *value = inside(value).to_string_lossy().into_owned();
                    }
                }
                let mut command = Command::new(inside(&argv[0]));
                command.args(&argv[1..]).current_dir(inside(&workdir));
                command
            }
        };
        command.env_clear().envs(&env);
        command
    }
}

fn on_path(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

pub fn unpack(image: &Image) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("tephra-image-")
        .tempdir()
        .unwrap();
    let rootfs = dir.path().join("rootfs");
    image.unpack(&rootfs).unwrap();
    (dir, rootfs)
}

/// A user namespace when the host allows one, else the rewritten paths.
pub fn container<'a>(image: &'a Image, rootfs: &Path) -> Container<'a> {
    let (uid, gid) = user(image);
    let mut container = Container {
        image,
        rootfs: rootfs.to_owned(),
        runner: Runner::Namespace { uid, gid },
    };
    match container.command(Some(&["--version"]), &[]).output() {
        Ok(out) if out.status.success() => {}
        other => {
            eprintln!(
                "no user namespace here ({other:?}): running the binary from the unpacked layer with \
                 its paths rewritten instead"
            );
            container.runner = Runner::Rewritten;
        }
    }
    container
}
