//! JSON indented by two spaces, byte for byte as `serde_json::to_writer_pretty` lays it out,
//! for the large documents pbc writes (the model of `pbc compile`, the AST of
//! `pbc parse --format json`).
//!
//! serde_json's own pretty layout writes each level of indentation with a call of its own:
//! on a model of a hundred megabytes that is tens of millions of two-byte writes, and most of
//! the time spent writing. Here a line break and its whole indentation are one write. Only the
//! layout is owned here: what is written, and in which order, is serde's.

use serde_json::ser::Formatter;
use std::io::{self, Write};

/// `value` as indented JSON, as `serde_json::to_writer_pretty` writes it.
pub fn to_writer<W: Write, T: ?Sized + serde::Serialize>(
    out: W,
    value: &T,
) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Indented::default());
    value.serialize(&mut serializer)
}

/// `value` as indented JSON text.
pub fn to_string<T: ?Sized + serde::Serialize>(value: &T) -> serde_json::Result<String> {
    let mut bytes = Vec::new();
    to_writer(&mut bytes, value)?;
    // The serializer writes only UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A comma, a line break and this much indentation, at most: deeper lines take several writes.
const BREAK: [u8; 2 + 128] = {
    let mut b = [b' '; 2 + 128];
    b[0] = b',';
    b[1] = b'\n';
    b
};

#[derive(Default)]
struct Indented {
    depth: usize,
    /// Whether the innermost open array or object has a value: one flag, not one per level,
    /// exactly as serde_json keeps it (the layout must not differ in any byte).
    has_value: bool,
}

impl Indented {
    /// A line break (after a comma unless `first`), then the indentation of this depth.
    fn line<W: ?Sized + Write>(&self, out: &mut W, comma: bool) -> io::Result<()> {
        let mut spaces = self.depth * 2;
        let start = usize::from(!comma);
        let room = BREAK.len() - 2;
        let now = spaces.min(room);
        out.write_all(&BREAK[start..2 + now])?;
        spaces -= now;
        while spaces > 0 {
            let now = spaces.min(room);
            out.write_all(&BREAK[2..2 + now])?;
            spaces -= now;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            self.line(out, false)?;
        }
        out.write_all(bracket)
    }
}

impl Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.line(out, !first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.line(out, !first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn both(value: &impl serde::Serialize) -> (String, String) {
        let ours = to_string(value).expect("writes");
        let theirs = serde_json::to_string_pretty(value).expect("writes");
        (ours, theirs)
    }

    /// Every shape the layout distinguishes: empty and full arrays and objects at every depth,
    /// an empty one after a full one (serde_json keeps one flag for all levels), embedded raw
    /// JSON, and nesting deeper than one write of indentation.
    #[test]
    fn lays_out_as_serde_json_does() {
        let values = [
            json!(null),
            json!([]),
            json!({}),
            json!([[]]),
            json!([{}, []]),
            json!({"a": [], "b": {}}),
            json!({"a": [1, [2, []], {"c": {}}], "d": {"e": [{}]}, "f": "x\ny"}),
            json!([[1, 2], [], [3], {}]),
            json!({"k": {"k": {"k": [1.5, -2, true, false, null, "\u{1F600}"]}}, "z": []}),
        ];
        for v in &values {
            let (ours, theirs) = both(v);
            assert_eq!(ours, theirs);
        }
        let mut deep = json!([1, {"last": []}]);
        for i in 0..200 {
            deep = if i % 2 == 0 {
                json!([deep, i])
            } else {
                json!({"down": deep, "i": i})
            };
        }
        let (ours, theirs) = both(&deep);
        assert_eq!(ours, theirs);
        let raw = serde_json::value::RawValue::from_string(r#"{"^":["var","x"]}"#.into())
            .expect("raw JSON");
        let (ours, theirs) = both(&vec![Some(raw.clone()), None, Some(raw)]);
        assert_eq!(ours, theirs);
    }
}
