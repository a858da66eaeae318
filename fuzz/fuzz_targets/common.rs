//! A small tree from one input: a site manifest and a bindings file, split at the first NUL
//! byte (without one, the whole input is the bindings file and the site is a fixed one).

use puppet_bindings::tree::FileRole;
use puppet_bindings::SourceInput;

pub const SITE: &str = "site {\n  categories { dc => $::dc, role => $facts['role'] }\n  bindings => [layer { 'site': include => 'confdir:/default' }, layer { 'modules': include => 'module:/*::default' }]\n}\n";

pub fn tree(data: &[u8]) -> Vec<SourceInput> {
    let (site, bindings) = match data.iter().position(|&b| b == 0) {
        Some(i) => (data[..i].to_vec(), data[i + 1..].to_vec()),
        None => (SITE.as_bytes().to_vec(), data.to_vec()),
    };
    vec![
        SourceInput {
            name: "manifests/site.pp".into(),
            role: FileRole::Manifest,
            bytes: site.into(),
        },
        SourceInput {
            name: "bindings/default.pp".into(),
            role: FileRole::Bindings {
                expected_name: "default".into(),
                module: None,
            },
            bytes: bindings.into(),
        },
    ]
}
