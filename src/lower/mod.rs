//! Lowering: from checked ASTs to the bindings model, and the composition facts the model needs
//! (which files form each layer, which key each binding defines).
//!
//! It reads ASTs that `validate` has judged and must not report rule violations itself: where a
//! construct cannot be lowered it is skipped, because the validator has already said why.
//! [`layers`] resolves the site's layers against the tree; [`keys`] derives binding keys (D12 and
//! the ARM-8 naming scheme). `validate` reuses both for the rules that need the composed tree.

pub mod keys;
pub mod layers;
