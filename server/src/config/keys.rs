//! Where the signing keys come from: a keys file (`--keys-file`) an operator keeps outside the
//! database, or, without one, the keys Tephra created in the database at its first start.

use super::ConfigError;
use clap::Args;
use std::path::PathBuf;
use tephra_core::domain::keyring::Keyring;

const OPTION: &str = "--keys-file (TEPHRA_KEYS_FILE)";

#[derive(Debug, Clone, Default, Args)]
pub struct KeyArgs {
    /// A YAML or JSON file with the keys that sign application tokens and Tephra's objects in the
    /// cluster, each a list of `kid` and hex `key` with one named `current` (e.g. a mounted
    /// Kubernetes Secret; docs/DEPLOY.md shows the format and how to rotate). Without it the
    /// keys are kept in the database.
    #[arg(long, env = "TEPHRA_KEYS_FILE", value_name = "FILE")]
    pub keys_file: Option<PathBuf>,
}

impl KeyArgs {
    /// The keys in the file, or `None` when no file is given; a file that cannot be read or
    /// parsed is an error naming it and the field.
    pub fn keyring(&self) -> Result<Option<Keyring>, ConfigError> {
        let Some(path) = &self.keys_file else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            option: OPTION,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        Keyring::parse(&text).map(Some).map_err(|e| ConfigError {
            option: OPTION,
            message: format!("{}: {e}", path.display()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(path: &std::path::Path) -> KeyArgs {
        KeyArgs {
            keys_file: Some(path.to_owned()),
        }
    }

    #[test]
    fn no_file_means_the_database_keys() {
        assert!(KeyArgs::default().keyring().unwrap().is_none());
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.yaml");
        let error = args(&path).keyring().unwrap_err().to_string();
        assert!(error.starts_with(OPTION), "{error}");
        assert!(error.contains("keys.yaml"), "{error}");
    }

    #[test]
    fn a_bad_file_is_an_error_naming_it_and_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.yaml");
        std::fs::write(&path, "tokens:\n  current: a\n  keys: []\n").unwrap();
        let error = args(&path).keyring().unwrap_err().to_string();
        assert!(
            error.contains("keys.yaml: tokens.keys: lists no key"),
            "{error}"
        );
    }
}
