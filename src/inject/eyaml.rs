//! The injector's key ring for hiera-eyaml: which private key opens an eyaml level's values
//! (`--eyaml-private-key FILE`, else what the level's `options` name, chosen as hiera-eyaml
//! chooses), each key read and parsed once per process, and each encrypted string opened once
//! per key (a `--nodes` run asks for the same values for every node).
//!
//! It reads key files and the environment; the format and the cryptography are
//! [`crate::data::eyaml`]'s. It never prints, logs or explains a plaintext: it returns it to
//! the lookup that asked, which interpolates it as Puppet does.

use crate::data::eyaml::{self, DecryptError, PrivateKey};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A level's key options, interpolated for the request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyOptions {
    /// `--eyaml-private-key FILE`: the key of every eyaml level, whatever the level names.
    pub flag: Option<PathBuf>,
    pub private_key: Option<String>,
    pub private_key_env_var: Option<String>,
}

/// Where a key comes from, as a message names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeySource {
    /// `--eyaml-private-key FILE`.
    Flag(PathBuf),
    /// The PEM text in an environment variable (`pkcs7_private_key_env_var`).
    Environment(String),
    /// A file the level names (`pkcs7_private_key`), relative to the current directory as
    /// hiera-eyaml reads it.
    File(PathBuf),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Flag(p) => write!(f, "`--eyaml-private-key {}`", p.display()),
            KeySource::Environment(v) => write!(f, "the environment variable `{v}`"),
            KeySource::File(p) => write!(f, "`{}`", p.display()),
        }
    }
}

/// Why a level's values cannot be opened on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// No key here: the level names none, or its file or variable is absent (a machine that
    /// is not the server). `EYAML_VALUE_ENCRYPTED`.
    Absent(String),
    /// The key is there and cannot be used (unreadable, not a private key).
    /// `EYAML_KEY_UNREADABLE`.
    Unreadable(String),
}

/// Which key opens a level's values, as hiera-eyaml's PKCS7 encryptor picks one: the
/// variable when it is named and set, else the file.
pub fn choose(options: &KeyOptions) -> Result<KeySource, KeyError> {
    if let Some(flag) = &options.flag {
        return Ok(KeySource::Flag(flag.clone()));
    }
    if let Some(var) = &options.private_key_env_var {
        if std::env::var_os(var).is_some() {
            return Ok(KeySource::Environment(var.clone()));
        }
    }
    match (&options.private_key, &options.private_key_env_var) {
        (Some(file), _) => Ok(KeySource::File(PathBuf::from(file))),
        (None, Some(var)) => Err(KeyError::Absent(format!(
            "the environment variable `{var}` its `pkcs7_private_key_env_var` names is not set"
        ))),
        (None, None) => Err(KeyError::Absent(
            "the level's `options` name no `pkcs7_private_key`".into(),
        )),
    }
}

type Loaded = Result<Arc<PrivateKey>, KeyError>;

static KEYS: Mutex<BTreeMap<KeySource, Loaded>> = Mutex::new(BTreeMap::new());

/// The key from `source`, read and parsed once per process.
pub fn load(source: &KeySource) -> Loaded {
    if let Some(known) = KEYS.lock().ok().and_then(|k| k.get(source).cloned()) {
        return known;
    }
    let loaded = read(source);
    if let Ok(mut keys) = KEYS.lock() {
        keys.insert(source.clone(), loaded.clone());
    }
    loaded
}

fn read(source: &KeySource) -> Loaded {
    let text = match source {
        KeySource::Environment(var) => match std::env::var(var) {
            Ok(text) => text,
            Err(_) => {
                return Err(KeyError::Unreadable(format!(
                    "{source} does not hold UTF-8 text"
                )))
            }
        },
        KeySource::Flag(path) | KeySource::File(path) => match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(KeyError::Absent(format!(
                    "the level's private key {source} is not on this machine"
                )))
            }
            Err(e) => {
                return Err(KeyError::Unreadable(format!(
                    "{source} cannot be read: {e}"
                )))
            }
        },
    };
    PrivateKey::from_pem(&text)
        .map(Arc::new)
        .map_err(|why| KeyError::Unreadable(format!("{source}: {why}")))
}

type Opened = Result<String, DecryptError>;

static OPENED: Mutex<Option<HashMap<(KeySource, String), Opened>>> = Mutex::new(None);

/// `text` with its encrypted blocks opened by the key from `source` (chomped, not yet
/// interpolated), once per key and text.
pub fn decrypt(source: &KeySource, key: &PrivateKey, text: &str) -> Opened {
    let id = (source.clone(), text.to_string());
    if let Some(known) = OPENED
        .lock()
        .ok()
        .and_then(|o| o.as_ref().and_then(|m| m.get(&id).cloned()))
    {
        return known;
    }
    let opened = eyaml::decrypt_string(text, key);
    if let Ok(mut slot) = OPENED.lock() {
        slot.get_or_insert_with(HashMap::new)
            .insert(id, opened.clone());
    }
    opened
}
