//! Which contributions of a multibind survive a repeated name (D14 as amended by D18): the
//! rule both the injector (which then combines the values) and the check (which reports what
//! fails for some request) apply. Contributions come in D14 order, highest rank first, so the
//! first of a name is the one a higher rank makes win.

use super::Precedence;
use crate::eval::code::Code;
use crate::eval::Value;
use crate::lower::model::{Multibinding, NamedArgument};

/// One contribution as the rules see it.
pub struct Entry<'a> {
    /// `None` or `''`: unnamed.
    pub name: Option<&'a str>,
    pub layer: usize,
    pub precedence: &'a Precedence,
}

/// What happens to one contribution, given those before it (`first`: the index of the first
/// contribution of the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Kept,
    /// A repeated name whose first has a higher rank and wins.
    Dropped {
        first: usize,
    },
    /// A repeated name of the same rank as its first: nothing can choose (an error).
    Duplicate {
        first: usize,
    },
    /// Hash `ignore`: the earlier value stays.
    Ignored {
        first: usize,
    },
    /// Hash `append` or `merge`: combined with the earlier value.
    Combined {
        first: usize,
    },
}

/// How a multibind treats repeated names, from its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    Array { on_named: bool, on_unnamed: bool },
    Hash(Resolution),
}

/// A Hash multibind's `conflict_resolution`, or its `combinator`, which gets every
/// contribution (so repeated names never clash).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Priority,
    Ignore,
    Error,
    Append,
    Merge,
    Combinator,
}

impl Rules {
    /// The rules of `m` (an Array or a Hash multibind), from its literal options; the check
    /// has made sure each option given has the right shape.
    pub fn of(m: &Multibinding<Code>, is_hash: bool) -> Rules {
        if is_hash {
            if matches!(
                option(&m.producer_args, "combinator"),
                Some(Code::Lambda(_))
            ) {
                return Rules::Hash(Resolution::Combinator);
            }
            let resolution = match option(&m.producer_args, "conflict_resolution") {
                Some(Code::Value(Value::String(s))) => match s.as_str() {
                    "ignore" => Resolution::Ignore,
                    "error" => Resolution::Error,
                    "append" => Resolution::Append,
                    "merge" => Resolution::Merge,
                    _ => Resolution::Priority,
                },
                _ => Resolution::Priority,
            };
            return Rules::Hash(resolution);
        }
        Rules::Array {
            on_named: flag(&m.producer_args, "priority_on_named", true),
            on_unnamed: flag(&m.producer_args, "priority_on_unnamed", false),
        }
    }

    /// The fate of each entry (in D14 order).
    pub fn fates(&self, entries: &[Entry]) -> Vec<Fate> {
        let mut first_of: foldhash::HashMap<Option<&str>, usize> =
            foldhash::HashMap::with_capacity_and_hasher(entries.len(), Default::default());
        let mut out = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let name = e.name.filter(|n| !n.is_empty());
            let first = *first_of.entry(name).or_insert(i);
            if first == i {
                out.push(Fate::Kept);
                continue;
            }
            let f = &entries[first];
            let same_rank = f.layer == e.layer && f.precedence == e.precedence;
            let by_rank = if same_rank {
                Fate::Duplicate { first }
            } else {
                Fate::Dropped { first }
            };
            out.push(match self {
                Rules::Array { on_named, .. } if name.is_some() && *on_named => by_rank,
                Rules::Array { on_unnamed, .. } if name.is_none() && *on_unnamed => by_rank,
                Rules::Array { .. } => Fate::Kept,
                Rules::Hash(Resolution::Priority) => by_rank,
                Rules::Hash(Resolution::Ignore) => Fate::Ignored { first },
                Rules::Hash(Resolution::Error) => Fate::Duplicate { first },
                Rules::Hash(Resolution::Append | Resolution::Merge | Resolution::Combinator) => {
                    Fate::Combined { first }
                }
            });
        }
        out
    }
}

/// A named option's embedded code (its literal value or its expression).
pub fn option<'a, 'm>(args: &'a [NamedArgument<Code<'m>>], name: &str) -> Option<&'a Code<'m>> {
    args.iter()
        .find(|a| a.name == name)
        .and_then(|a| a.value.as_ref().or(a.expression.as_ref()))
}

/// A Boolean option (the check has made sure it is one when given).
pub fn flag(args: &[NamedArgument<Code>], name: &str, default: bool) -> bool {
    match option(args, name) {
        Some(Code::Value(Value::Boolean(b))) => *b,
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn entries<'a>(spec: &'a [(Option<&'a str>, usize, &'a Precedence)]) -> Vec<Entry<'a>> {
        spec.iter()
            .map(|(name, layer, precedence)| Entry {
                name: *name,
                layer: *layer,
                precedence,
            })
            .collect()
    }

    #[test]
    fn repeated_names_follow_d18() {
        let high: Precedence = Rc::from(vec![2]);
        let low: Precedence = Rc::from(vec![0]);
        let same = [(Some("n"), 0, &low), (Some("n"), 0, &low)];
        let ranked = [(Some("n"), 0, &high), (Some("n"), 0, &low)];
        let unnamed = [(None, 0, &low), (Some(""), 0, &low)];
        let array = |on_named, on_unnamed| Rules::Array {
            on_named,
            on_unnamed,
        };
        assert_eq!(
            array(true, false).fates(&entries(&same)),
            [Fate::Kept, Fate::Duplicate { first: 0 }]
        );
        assert_eq!(
            array(true, false).fates(&entries(&ranked)),
            [Fate::Kept, Fate::Dropped { first: 0 }]
        );
        assert_eq!(
            array(false, false).fates(&entries(&same)),
            [Fate::Kept, Fate::Kept]
        );
        assert_eq!(
            array(true, false).fates(&entries(&unnamed)),
            [Fate::Kept, Fate::Kept]
        );
        assert_eq!(
            array(true, true).fates(&entries(&unnamed)),
            [Fate::Kept, Fate::Duplicate { first: 0 }]
        );
        let hash = |r| Rules::Hash(r);
        assert_eq!(
            hash(Resolution::Priority).fates(&entries(&ranked)),
            [Fate::Kept, Fate::Dropped { first: 0 }]
        );
        assert_eq!(
            hash(Resolution::Error).fates(&entries(&ranked)),
            [Fate::Kept, Fate::Duplicate { first: 0 }]
        );
        assert_eq!(
            hash(Resolution::Append).fates(&entries(&same)),
            [Fate::Kept, Fate::Combined { first: 0 }]
        );
        // A different layer is a different rank, whatever the precedence.
        let layers = [(Some("n"), 0, &low), (Some("n"), 1, &low)];
        assert_eq!(
            hash(Resolution::Priority).fates(&entries(&layers)),
            [Fate::Kept, Fate::Dropped { first: 0 }]
        );
    }
}
