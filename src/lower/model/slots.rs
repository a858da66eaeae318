//! The walk of a model from one kind of embedded value to another (`TreeDocument<X>` to
//! `TreeDocument<Y>`): reading a model file turns its embedded JSON into values and
//! expressions, and then into the injector's borrowed form. Each model type derives its walk
//! (`#[derive(MapSlots)]`, in `crates/model-derive`) from its own definition; this module holds
//! what the derived code calls and the walks of the containers the model uses.
//!
//! It owns only the traversal; what a slot becomes is the [`SlotMap`]'s business.

use super::Origin;

/// How a slot of the model holds its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// Plain JSON: a constant producer's value, an option's `value`.
    Literal,
    /// PN: an expression (or a lambda).
    Expression,
    /// PN of a category's value.
    Category,
}

/// What each embedded value becomes, and where the walk is.
pub trait SlotMap<X, Y> {
    type Error;
    /// The value `x`, held in a slot of kind `kind`, as a `Y`.
    fn slot(&mut self, x: X, kind: SlotKind) -> Result<Y, Self::Error>;
    /// The walk enters an object written at `origin`: its slots are there.
    fn at(&mut self, origin: &Origin);
    /// The walk enters a part no binding holds (a tree's categories).
    fn unplace(&mut self);
}

/// A model type whose embedded values can be walked from `X` to `Y`.
pub trait MapSlots<X, Y>: Sized {
    type Output;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error>;
}

impl<X, Y, T: MapSlots<X, Y>> MapSlots<X, Y> for Vec<T> {
    type Output = Vec<T::Output>;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error> {
        self.into_iter().map(|t| t.map_slots(m)).collect()
    }
}

impl<X, Y, T: MapSlots<X, Y>> MapSlots<X, Y> for Box<[T]> {
    type Output = Box<[T::Output]>;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error> {
        self.into_vec()
            .into_iter()
            .map(|t| t.map_slots(m))
            .collect()
    }
}

impl<X, Y, T: MapSlots<X, Y>> MapSlots<X, Y> for Box<T> {
    type Output = Box<T::Output>;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error> {
        (*self).map_slots(m).map(Box::new)
    }
}

/// A shared block is walked as a copy of its own where it is shared still.
impl<X, Y, T: MapSlots<X, Y> + Clone> MapSlots<X, Y> for std::sync::Arc<T> {
    type Output = std::sync::Arc<T::Output>;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error> {
        std::sync::Arc::unwrap_or_clone(self)
            .map_slots(m)
            .map(std::sync::Arc::new)
    }
}

impl<X, Y, T: MapSlots<X, Y>> MapSlots<X, Y> for Option<T> {
    type Output = Option<T::Output>;
    fn map_slots<M: SlotMap<X, Y>>(self, m: &mut M) -> Result<Self::Output, M::Error> {
        self.map(|t| t.map_slots(m)).transpose()
    }
}
