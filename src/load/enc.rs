//! An external node classifier's output (`--enc FILE`: the YAML or JSON an ENC prints, with
//! `environment`, `classes` and `parameters`), read into an [`Enc`]. `environments.pp` sees it
//! while choosing the environment; the injector turns it into bindings
//! (`crate::inject::enc`).

use super::facts::{read_data, ReadError};
use crate::diag::{codes, Diagnostic};
use crate::eval::{Map, Value};
use crate::span::Span;
use std::path::Path;

#[derive(Clone, Debug, Default)]
pub struct Enc {
    pub environment: Option<String>,
    /// Class name and its parameters (a class listed without parameters has none).
    pub classes: Vec<(String, Map)>,
    pub parameters: Map,
    /// The file, as origins name it.
    pub file: String,
}

pub fn load(path: &Path, access: &crate::source::FileAccess) -> Result<Enc, ReadError> {
    let bad = |message: String| Diagnostic::error(codes::INVALID_ENC, Span::NONE, message);
    let Value::Hash(doc) = read_data(path, "ENC output", codes::INVALID_ENC, access)? else {
        return Err(ReadError::Invalid(bad(format!(
            "{}: ENC output must be a hash with `environment`, `classes`, `parameters`",
            super::facts::shown(path)
        ))));
    };
    let mut enc = Enc {
        file: super::facts::shown(path),
        ..Enc::default()
    };
    for (k, v) in doc.iter() {
        match (k.to_display_string().as_str(), v) {
            ("environment", Value::String(e)) => enc.environment = Some(e.to_string()),
            ("classes", Value::Array(names)) => {
                for n in names.iter() {
                    enc.classes.push((n.to_display_string(), Map::new()));
                }
            }
            ("classes", Value::Hash(classes)) => {
                for (name, params) in classes.iter() {
                    let params = match params {
                        Value::Hash(p) => (**p).clone(),
                        _ => Map::new(),
                    };
                    enc.classes.push((name.to_display_string(), params));
                }
            }
            ("parameters", Value::Hash(p)) => enc.parameters = (**p).clone(),
            ("environment" | "classes" | "parameters", Value::Undef) => {}
            (key @ ("environment" | "classes" | "parameters"), other) => {
                return Err(ReadError::Invalid(bad(format!(
                    "{}: the ENC's `{key}` is {}, not what an ENC prints",
                    super::facts::shown(path),
                    other.type_name()
                ))))
            }
            // Other keys (Puppet ENCs may print more) are not ARM-8's concern.
            _ => {}
        }
    }
    Ok(enc)
}
