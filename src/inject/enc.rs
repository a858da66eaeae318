//! An external node classifier's output (read by [`crate::load::enc`]), as ARM-8 "Integration with existing ENC" and
//! "Enc Bindings Provider" use it: `environments.pp` sees `$environment`, `$classes` and the
//! parameters as variables, and every layer that includes an `enc:` URI gets the ENC's data as
//! bindings under the node's category: `enc:/classes` the classes (contributions to
//! `included_classes`), `enc:/parameters` the class parameters (`/param/Class[c]/p`),
//! `enc:/variables` the parameters (`/var/NAME`); `enc:` (or `enc:/`, `enc:/*`) all three.

use super::Code;
use crate::eval::Value;
use crate::load::enc::Enc;
use crate::lower::model::{
    AbstractBinding, Binding, BindingExtras, Category, NamedBindings, Origin, ProducerDescriptor,
    TreeDocument, TypeModel,
};
use crate::span::Span;

/// What one `enc:` URI selects, or `None` for a URI that is not the ENC's.
fn parts(uri: &str) -> Option<(bool, bool, bool)> {
    let path = uri.strip_prefix("enc:")?;
    Some(match path.trim_start_matches('/') {
        "" | "*" => (true, true, true),
        "classes" => (true, false, false),
        "parameters" => (false, true, false),
        "variables" => (false, false, true),
        _ => return None,
    })
}

/// Adds the ENC's bindings to every layer that includes an `enc:` URI, under the node's
/// category (the same expression the site gives `node`).
pub fn add_to_model<'a>(model: &mut TreeDocument<Code<'a>>, enc: &Enc) {
    let node = model
        .categories
        .categories
        .iter()
        .find(|c| c.categorization == "node")
        .map(|c| c.value.clone());
    let origin = Origin {
        file: enc.file.as_str().into(),
        line: 1,
        column: 1,
        span: Span::NONE,
    };
    for layer in &mut model.layers.layers {
        let (mut classes, mut parameters, mut variables) = (false, false, false);
        for uri in &layer.providers {
            if let Some((c, p, v)) = parts(uri) {
                classes |= c;
                parameters |= p;
                variables |= v;
            }
        }
        if !(classes || parameters || variables) {
            continue;
        }
        let binding = |name: Option<String>, multibind_id: Option<&str>, value: Value| {
            AbstractBinding::Binding(Binding {
                type_: TypeModel::PDataType,
                name: name.map(String::into_boxed_str),
                override_: false,
                abstract_: false,
                producer: Some(Box::new(ProducerDescriptor::ConstantProducerDescriptor {
                    value: Code::Value(value),
                })),
                extras: BindingExtras::of(multibind_id.map(Box::from), Box::default()),
                origin: origin.clone(),
            })
        };
        let mut bindings = Vec::new();
        for (class, params) in &enc.classes {
            if classes {
                bindings.push(binding(
                    None,
                    Some("included_classes"),
                    Value::string(class.trim_start_matches("::")),
                ));
            }
            if parameters {
                for (p, v) in params.iter() {
                    let target = class.trim_start_matches("::").to_lowercase();
                    bindings.push(binding(
                        Some(format!("/param/Class[{target}]/{}", p.to_display_string())),
                        None,
                        v.clone(),
                    ));
                }
            }
        }
        if variables {
            for (name, v) in enc.parameters.iter() {
                bindings.push(binding(
                    Some(format!("/var/{}", name.to_display_string())),
                    None,
                    v.clone(),
                ));
            }
        }
        let items = match &node {
            Some(value) => vec![AbstractBinding::CategorizedBindings {
                predicates: vec![Category {
                    categorization: "node".into(),
                    value: value.clone(),
                }]
                .into(),
                path: None,
                bindings,
                origin: origin.clone(),
            }],
            None => bindings,
        };
        layer.bindings.push(std::sync::Arc::new(NamedBindings {
            name: "enc".into(),
            bindings: items,
            origin: origin.clone(),
            summary: Default::default(),
        }));
    }
}
