//! `pbc compile` as a library call, once a tree is read: the check's verdict, the model lowered
//! once and judged, and the model handed to a [`ModelSink`] (a file, standard output, a cache,
//! a test's string), which may take it as a draft while the layers are still judged. It reads
//! no file (the loader does) and prints nothing.

use super::{load_judged, CheckReport, LoadedTree, SourceInput};
use crate::options::Options;
use crate::{diag, lower, reclaim, span, validate};

/// What `pbc compile` found, and how writing its model went.
pub struct CompileReport {
    /// Every finding of the check, the composition's included.
    pub check: CheckReport,
    /// How many `bindings` blocks the model holds (files mode; a tree's site counts too).
    pub bindings_blocks: usize,
    /// What the sink made of the model; `None` when the check found errors and the sink was
    /// not called.
    pub written: Option<std::io::Result<()>>,
}

impl CompileReport {
    pub(super) fn refused(check: CheckReport, bindings_blocks: usize) -> CompileReport {
        CompileReport {
            check,
            bindings_blocks,
            written: None,
        }
    }
}

/// Where `pbc compile` puts the model. [`accept`](ModelSink::accept) is called once, and only
/// when the check found no errors, with the check's report (warnings, the number of files), the
/// number of `bindings` blocks, and the model: the model exists only for the call, which is
/// what lets a tree be lowered once for both its check and its model. A closure of those three
/// arguments is a sink.
pub trait ModelSink {
    /// Somewhere the model may be written before the check has its last word: a tree's layers
    /// are judged on the model that is written, and the two then run side by side, on two
    /// cores. What is written there must not be seen by anyone unless `accept` is called (a
    /// temporary file, a buffer). `None`, the default, writes the model in `accept` only.
    fn draft(&mut self) -> Option<&mut (dyn std::io::Write + Send)> {
        None
    }

    /// Takes the checked model (see [`ModelWriter::write_to`] for a model already drafted).
    fn accept(
        self,
        check: &CheckReport,
        bindings_blocks: usize,
        model: ModelWriter,
    ) -> std::io::Result<()>;
}

impl<F: FnOnce(&CheckReport, usize, ModelWriter) -> std::io::Result<()>> ModelSink for F {
    fn accept(
        self,
        check: &CheckReport,
        bindings_blocks: usize,
        model: ModelWriter,
    ) -> std::io::Result<()> {
        self(check, bindings_blocks, model)
    }
}

/// A [`ModelSink`] that keeps the model's JSON text in `text` (for a caller that wants it in
/// memory: tests, benchmarks). The text is drafted while the layers are judged, and kept only
/// if the check passes.
pub fn keep_text(text: &mut Option<String>) -> impl ModelSink + '_ {
    KeepText {
        text,
        draft: Vec::new(),
    }
}

struct KeepText<'t> {
    text: &'t mut Option<String>,
    draft: Vec<u8>,
}

impl ModelSink for KeepText<'_> {
    fn draft(&mut self) -> Option<&mut (dyn std::io::Write + Send)> {
        Some(&mut self.draft)
    }

    fn accept(mut self, _: &CheckReport, _: usize, model: ModelWriter) -> std::io::Result<()> {
        model.write_to(&mut self.draft)?;
        let text = String::from_utf8(self.draft)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        *self.text = Some(text);
        Ok(())
    }
}

/// A checked tree's model, handed to [`ModelSink::accept`]: its JSON goes straight to what it
/// is written to and is never held whole in memory (57 MB of text for 110,000 bindings).
pub struct ModelWriter<'m> {
    state: ModelState<'m>,
}

enum ModelState<'m> {
    ToWrite(Box<WriteModel<'m>>),
    /// Written to the sink's draft while the layers were judged: how that went.
    Drafted(std::io::Result<()>),
}

/// What writes a model's JSON (and frees the model) to what it is given.
type WriteModel<'m> = dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + 'm;

impl ModelWriter<'_> {
    /// Writes the model's JSON, with a final newline, to `out` (buffered here). A model the
    /// sink's [`draft`](ModelSink::draft) already holds is not written again: `out` must then
    /// be that draft, and this says how writing it went.
    pub fn write_to<W: std::io::Write>(self, mut out: W) -> std::io::Result<()> {
        match self.state {
            ModelState::ToWrite(write) => write(&mut out),
            ModelState::Drafted(written) => written,
        }
    }

    /// Whether the model is already in the sink's draft.
    fn is_drafted(&self) -> bool {
        matches!(self.state, ModelState::Drafted(_))
    }

    /// The model's JSON as text, with a final newline (for a sink without a draft).
    pub fn into_text(self) -> std::io::Result<String> {
        if self.is_drafted() {
            return Err(std::io::Error::other(
                "the model was written to the sink's draft",
            ));
        }
        let mut bytes = Vec::new();
        self.write_to(&mut bytes)?;
        String::from_utf8(bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// Writes `model` as `layout` lays it out, then a newline. Indented, the serializer's many
/// small writes go through a buffer, not through `out`'s dynamic dispatch; compact, the model
/// is spelled by [`lower::model::compact`] on `cores`, which gathers its own text.
fn write_model<D: serde::Serialize + lower::model::compact::WriteCompact + ?Sized>(
    out: &mut dyn std::io::Write,
    layout: JsonLayout,
    model: &D,
    cores: lower::model::compact::Cores,
) -> std::io::Result<()> {
    use std::io::Write;
    match layout {
        JsonLayout::Indented => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
            crate::indented_json::to_writer(&mut out, model)?;
            out.write_all(b"\n")?;
            out.flush()
        }
        JsonLayout::Compact => {
            lower::model::compact::write(out, model, cores)?;
            out.write_all(b"\n")?;
            out.flush()
        }
    }
}

/// What to compile: a whole tree (layers, categories, environments) or bindings files alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileMode {
    Tree,
    Files,
}

/// How the model's JSON is laid out: indented for people and diffs, or on one line
/// (`pbc compile --compact`) for machines: smaller and faster to write and read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JsonLayout {
    #[default]
    Indented,
    Compact,
}

/// Checks the files and, when the check finds no errors, lowers them to the bindings model and
/// hands it to `sink`. `origins` are the file names the model records (relative to the tree
/// root), one per input.
pub fn compile_sources(
    inputs: Vec<SourceInput>,
    origins: Vec<String>,
    mode: CompileMode,
    layout: JsonLayout,
    sink: impl ModelSink,
    options: &Options,
) -> CompileReport {
    compile_loaded(
        load_judged(inputs, origins, mode.judge(), options),
        mode,
        layout,
        sink,
        options,
    )
}

impl CompileMode {
    /// How the check judges composition for this mode: a tree's layers are judged on the model
    /// that is written, lowered once for both; bindings files alone are judged by the check.
    pub(super) fn judge(self) -> validate::Composition {
        match self {
            CompileMode::Tree => validate::Composition::OnTheWrittenModel,
            CompileMode::Files => validate::Composition::ForEveryRequest,
        }
    }
}

pub(super) fn compile_loaded(
    loaded: LoadedTree,
    mode: CompileMode,
    layout: JsonLayout,
    mut sink: impl ModelSink,
    options: &Options,
) -> CompileReport {
    let bindings_blocks = loaded
        .parsed
        .iter()
        .map(|(_, p)| p.bindings_blocks().count())
        .sum();
    let LoadedTree {
        mut check,
        parsed,
        lowered,
        origins,
        environment,
        hiera,
        model_judgement,
    } = loaded;
    let inputs: Vec<lower::LowerInput> = parsed
        .iter()
        .map(|(role, program)| lower::LowerInput { role, program })
        .collect();
    // The model, when the check lets it be written.
    let model: Option<ModelState> = match mode {
        CompileMode::Files if check.has_errors() => None,
        CompileMode::Files => {
            let files = &check.files;
            let (origins, inputs) = (&origins, &inputs);
            Some(ModelState::ToWrite(Box::new(
                move |out: &mut dyn std::io::Write| {
                    let model = lower::compile_files(files, origins, inputs, lower::PnJson);
                    let written =
                        write_model(out, layout, &model, lower::model::compact::Cores::Every);
                    reclaim::release(model, options);
                    written
                },
            )))
        }
        CompileMode::Tree => {
            // One lowering serves the judgement of the layers and the model written. The
            // layers are judged whatever else the check found, as `pbc check` judges them.
            // Each block is shared with the model, not copied into it.
            let mut model = lower::compile_tree_from(
                &check.files,
                &origins,
                &inputs,
                lowered,
                crate::eval::code::ForInjection,
            );
            model.environment = environment;
            model.hiera = hiera;
            let mut drafted = None;
            if let Some(judgement) = &model_judgement {
                // Writing a model the check has already refused would be work thrown away.
                let draft = if check.has_errors() {
                    None
                } else {
                    sink.draft()
                };
                let (found, written) =
                    judge_while_drafting(&check.files, &model, judgement, draft, layout, options);
                check.diagnostics.extend(found);
                diag::sort(&mut check.diagnostics);
                drafted = written;
            }
            if check.has_errors() {
                reclaim::release_tree(model, options);
                None
            } else if let Some(written) = drafted {
                reclaim::release_tree(model, options);
                Some(ModelState::Drafted(written))
            } else {
                Some(ModelState::ToWrite(Box::new(
                    move |out: &mut dyn std::io::Write| {
                        let written =
                            write_model(out, layout, &model, lower::model::compact::Cores::Every);
                        reclaim::release_tree(model, options);
                        written
                    },
                )))
            }
        }
    };
    let written = model.map(|state| sink.accept(&check, bindings_blocks, ModelWriter { state }));
    reclaim::release(inputs, options);
    reclaim::release(parsed, options);
    CompileReport {
        check,
        bindings_blocks,
        written,
    }
}

/// Judges a tree's layers on its model ([`validate::judge_written_model`]) and, when there is a
/// draft, writes the model to it meanwhile on this thread: the two read the same model, and
/// each takes about as long as the other. The judgement's findings, and how the draft went.
pub(super) fn judge_while_drafting(
    files: &span::SourceMap,
    model: &lower::model::TreeDocument<crate::eval::code::Code>,
    judgement: &validate::ModelJudgement,
    draft: Option<&mut (dyn std::io::Write + Send)>,
    layout: JsonLayout,
    options: &Options,
) -> (Vec<diag::Diagnostic>, Option<std::io::Result<()>>) {
    let Some(draft) = draft else {
        return (
            validate::judge_written_model(files, model, judgement, options),
            None,
        );
    };
    std::thread::scope(|scope| {
        let judging =
            scope.spawn(|| validate::judge_written_model(files, model, judgement, options));
        // The judgement has the other cores.
        let written = write_model(draft, layout, model, lower::model::compact::Cores::Own);
        match judging.join() {
            Ok(found) => (found, Some(written)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
