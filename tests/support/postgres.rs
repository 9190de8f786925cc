//! A throwaway PostgreSQL cluster per test: `initdb` into a temporary directory, `pg_ctl start` on
//! a free loopback port, `pg_ctl stop` on drop. No skipping: a machine without PostgreSQL fails the
//! test with instructions, because CI must exercise both database engines.

use anyhow::{Context, bail};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct TempPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres_user: bool,
}

impl TempPostgres {
    pub fn start() -> anyhow::Result<Self> {
        let bin = find_bin_dir()?;
        // PostgreSQL refuses to run as root; CI runs as root, so the server runs as `postgres`.
        let as_postgres_user = is_root();
        let dir = tempfile::Builder::new().prefix("tephra-pg-").tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))?;
        let data = dir.path().join("data");
        let port = crate::free_port();
        let pg = TempPostgres {
            dir,
            bin,
            port,
            as_postgres_user,
        };

        pg.run(
            "initdb",
            &[
                "-D",
                path_str(&data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
        )?;
        pg.start_server()?;
        Ok(pg)
    }

    /// Stops the server the way an operator's `pg_ctl stop -m fast` does: open sessions are
    /// terminated ("admin shutdown") and new connections are refused. The data stays.
    pub fn stop(&self) -> anyhow::Result<()> {
        let data = self.dir.path().join("data");
        self.run(
            "pg_ctl",
            &["-D", path_str(&data), "-m", "fast", "-w", "stop"],
        )?;
        Ok(())
    }

    /// Starts the server again on the same data directory and port, after [`Self::stop`].
    pub fn start_again(&self) -> anyhow::Result<()> {
        self.start_server()
    }

    fn start_server(&self) -> anyhow::Result<()> {
        let data = self.dir.path().join("data");
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories={} \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            self.port,
            path_str(self.dir.path())
        );
        let log = self.dir.path().join("postgres.log");
        self.run(
            "pg_ctl",
            &[
                "-D",
                path_str(&data),
                "-o",
                &options,
                "-l",
                path_str(&log),
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
        .with_context(|| {
            format!(
                "postgres log:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )
        })?;
        Ok(())
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        self.url_for("postgres")
    }

    pub fn url_for(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates an empty database and returns its URL.
    pub async fn create_database(&self, name: &str) -> anyhow::Result<String> {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url()).await?;
        sqlx::query(&format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .await?;
        conn.close().await?;
        Ok(self.url_for(name))
    }

    fn run(&self, program: &str, args: &[&str]) -> anyhow::Result<Output> {
        let exe = self.bin.join(program);
        let mut command = if self.as_postgres_user {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let output = command
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        if !output.status.success() {
            bail!(
                "{program} failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(output)
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.run(
            "pg_ctl",
            &["-D", path_str(&data), "-m", "immediate", "-w", "stop"],
        );
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// The directory with `initdb` and `pg_ctl`: `TEPHRA_PG_BIN`, else Debian's
/// `/usr/lib/postgresql/<newest>/bin`, else `PATH`.
fn find_bin_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("TEPHRA_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    if let Ok(out) = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        && out.status.success()
    {
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if let Some(dir) = path.parent() {
            return Ok(dir.to_path_buf());
        }
    }
    bail!(
        "PostgreSQL is not installed (no initdb found); install it with \
         `apt-get install postgresql` or run scripts/setup, or set TEPHRA_PG_BIN"
    )
}
