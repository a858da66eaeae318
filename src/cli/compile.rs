//! `pbc compile`: the tree or files compiled by the library into a sink that writes the model
//! to its output file (atomically, [`super::atomic`]), standard output, or the model's cache.

use super::all_exist;
use super::atomic::AtomicFile;
use super::output::Output;
use puppet_bindings::{JsonLayout, Options};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn compile_command(
    out: Output,
    output: Option<&std::path::Path>,
    environment: Option<&str>,
    cache: bool,
    layout: JsonLayout,
    paths: &[PathBuf],
    options: &Options,
) -> ExitCode {
    use puppet_bindings::CompileMode;
    if let Err(code) = all_exist(paths) {
        return code;
    }
    let files_mode = !matches!(paths, [dir] if dir.is_dir());
    if cache && files_mode {
        eprintln!("pbc: --cache indexes a tree's model: give the tree's directory");
        return ExitCode::from(2);
    }
    let mut declined = None;
    let mut reported = false;
    let sink = CompileSink {
        out: &out,
        output,
        cache,
        files_mode,
        declined: &mut declined,
        reported: &mut reported,
        draft: None,
    };
    let compiled = match paths {
        [dir] if dir.is_dir() => {
            puppet_bindings::compile_dir(dir, environment, layout, sink, options)
        }
        _ if paths.iter().all(|p| p.is_file()) && environment.is_none() => {
            puppet_bindings::tree::discover(paths, options).and_then(|tree| {
                puppet_bindings::compile_tree_files(
                    &tree,
                    None,
                    CompileMode::Files,
                    layout,
                    sink,
                    options,
                )
            })
        }
        _ => {
            eprintln!(
                "pbc: compile takes one tree directory (with --env, a site), or bindings files"
            );
            return ExitCode::from(2);
        }
    };
    let report = match compiled {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    match declined {
        Some(Declined::NothingToCompile) => {
            eprintln!(
                "pbc: {} hold{} no `bindings` blocks, so there is nothing to compile\npbc: to compile a site (its categories, layers and every environment's bindings), give its directory: `pbc compile DIR`",
                paths
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(", "),
                if paths.len() == 1 { "s" } else { "" }
            );
            return ExitCode::from(2);
        }
        Some(Declined::CannotIndex(e)) => {
            eprintln!("pbc: cannot index the model: {e}");
            return ExitCode::from(2);
        }
        None => {}
    }
    if !reported {
        let check = &report.check;
        let text = out.diagnostics(&check.files, &check.diagnostics, Some(check.file_count));
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    match report.written {
        None => ExitCode::from(1),
        Some(Ok(())) => ExitCode::SUCCESS,
        Some(Err(e)) => {
            eprintln!("pbc: cannot write the model: {e}");
            ExitCode::from(2)
        }
    }
}

/// What `pbc compile` declined to write, said once compiling is over.
pub(crate) enum Declined {
    NothingToCompile,
    CannotIndex(String),
}

/// Where `pbc compile` puts the model: its output file, standard output, or the model's cache
/// format. Its draft is the temporary file that becomes the output (or, for the cache, the
/// JSON text the cache is made from), so a tree's model is written while its layers are still
/// judged; the draft is dropped, the output untouched, if the check finds errors.
pub(crate) struct CompileSink<'a> {
    pub(crate) out: &'a Output,
    pub(crate) output: Option<&'a std::path::Path>,
    pub(crate) cache: bool,
    pub(crate) files_mode: bool,
    pub(crate) declined: &'a mut Option<Declined>,
    /// Whether the check's findings were printed here (before the model is written).
    pub(crate) reported: &'a mut bool,
    pub(crate) draft: Option<Draft>,
}

pub(crate) enum Draft {
    /// The output file, or why it could not be made (said if the check passes).
    File(std::io::Result<AtomicFile>),
    Text(Vec<u8>),
}

impl puppet_bindings::ModelSink for CompileSink<'_> {
    fn draft(&mut self) -> Option<&mut (dyn Write + Send)> {
        let draft = match (self.cache, self.output) {
            (true, _) => Draft::Text(Vec::new()),
            (false, Some(path)) => Draft::File(AtomicFile::create(path)),
            // Standard output cannot take back what it was given.
            (false, None) => return None,
        };
        match self.draft.insert(draft) {
            Draft::File(Ok(file)) => Some(file),
            Draft::File(Err(_)) => None,
            Draft::Text(text) => Some(text),
        }
    }

    fn accept(
        self,
        check: &puppet_bindings::CheckReport,
        bindings_blocks: usize,
        model: puppet_bindings::ModelWriter,
    ) -> std::io::Result<()> {
        if self.files_mode && bindings_blocks == 0 {
            *self.declined = Some(Declined::NothingToCompile);
            return Ok(());
        }
        let text = self.out.diagnostics(&check.files, &check.diagnostics, None);
        let _ = std::io::stderr().write_all(text.as_bytes());
        *self.reported = true;
        if self.cache {
            let text = match self.draft {
                Some(Draft::Text(mut text)) => {
                    model.write_to(&mut text)?;
                    String::from_utf8(text).map_err(std::io::Error::other)?
                }
                _ => model.into_text()?,
            };
            return match puppet_bindings::lower::cache::write(&text) {
                Ok(bytes) => match self.output {
                    Some(path) => {
                        let mut file = AtomicFile::create(path)?;
                        file.write_all(&bytes)?;
                        file.commit()
                    }
                    None => std::io::stdout()
                        .lock()
                        .write_all(&bytes)
                        .and_then(|()| std::io::stdout().flush()),
                },
                Err(e) => {
                    *self.declined = Some(Declined::CannotIndex(e.to_string()));
                    Ok(())
                }
            };
        }
        // Written as JSON straight to its output: no text in memory.
        match (self.output, self.draft) {
            (Some(path), draft) => {
                let mut file = match draft {
                    Some(Draft::File(file)) => file?,
                    _ => AtomicFile::create(path)?,
                };
                model.write_to(&mut file)?;
                file.commit()
            }
            (None, _) => model.write_to(model_output()?),
        }
    }
}

/// Standard output for a model, which is written a chunk at a time. `Stdout` is line-buffered:
/// it searches each write for its last newline, and compact JSON has none, so every byte of a
/// 57 MB model was searched (2% of a compile's instructions). On Unix the chunks go to a
/// duplicate of the descriptor instead, after whatever `Stdout` still holds.
pub(crate) fn model_output() -> std::io::Result<Box<dyn Write>> {
    let stdout = std::io::stdout();
    stdout.lock().flush()?;
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = stdout.as_fd().try_clone_to_owned() {
            return Ok(Box::new(std::fs::File::from(fd)));
        }
    }
    Ok(Box::new(stdout.lock()))
}
