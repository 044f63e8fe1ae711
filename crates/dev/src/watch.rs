//! Noticing new builds: the component file (written in place or renamed over) and, with a
//! build command, the provider's sources.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{LiveProvider, Reloader, build_failed_warning};

/// How long the component file must stay quiet before it is loaded: the burst of events one
/// write makes (cargo links the new build into place: create, then attributes) is one reload.
/// It is short because it is paid on every reload (a release build of examples/null reloads in
/// about 100 ms in all, BENCHMARKS.md): a tool that writes the file in place and pauses longer
/// than this is caught half way, and `load_settled` reads the file again once it has settled.
pub const COMPONENT_QUIET: Duration = Duration::from_millis(20);

/// How long sources must stay quiet before the build runs: an editor's "save all" or a
/// formatter touching several files starts one build, not one per file.
pub const SOURCES_QUIET: Duration = Duration::from_millis(200);

/// How long the sources of a runtime that loads them itself (the Python development runtime)
/// must stay quiet before new instances start: no build to save, so the reload is paid on
/// every save, and an editor writes one file in well under this.
pub const MODULE_QUIET: Duration = Duration::from_millis(50);

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    // The cause is the source: anyhow's chain prints it once.
    #[error("cannot watch {path}")]
    Watch {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
    #[error("{path} has no parent directory to watch")]
    NoParent { path: PathBuf },
}

/// A running watch; dropping it stops watching.
pub struct Watch {
    _watcher: RecommendedWatcher,
    task: JoinHandle<()>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Watches the reloader's component file and reloads it each time it has changed and then
/// stayed quiet for `quiet`.
///
/// The directory is watched, not the file: a build that renames a new file over the old one
/// (or deletes and recreates it, as cargo does) replaces the inode a file watch would follow.
pub fn watch_component(reloader: Arc<Reloader>, quiet: Duration) -> Result<Watch, WatchError> {
    let path = reloader.path().to_path_buf();
    let dir = match path.parent() {
        Some(d) if d.as_os_str().is_empty() => PathBuf::from("."),
        Some(d) => d.to_path_buf(),
        None => return Err(WatchError::NoParent { path }),
    };
    let Some(file_name) = path.file_name().map(|n| n.to_os_string()) else {
        return Err(WatchError::NoParent { path });
    };
    let (sender, mut changes) = mpsc::unbounded_channel::<()>();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event)
                if changes_contents(&event.kind)
                    && event.paths.iter().any(|p| p.file_name() == Some(&file_name)) =>
            {
                // Fails only once the watch task is gone, when nobody wants the news.
                let _ = sender.send(());
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "watching the component file failed"),
        })
        .map_err(|source| WatchError::Watch { path: dir.clone(), source })?;
    watcher
        .watch(&dir, RecursiveMode::NonRecursive)
        .map_err(|source| WatchError::Watch { path: dir.clone(), source })?;

    let task = tokio::spawn(async move {
        while changes.recv().await.is_some() {
            if !settle(&mut changes, quiet, &mut Vec::new()).await {
                return;
            }
            reloader.reload_and_report().await;
        }
    });
    Ok(Watch { _watcher: watcher, task })
}

/// Runs `command` (through `sh -c`) whenever a file under one of `dirs` changes and then stays
/// quiet for `quiet`, and reloads after each successful build. Without a command, each change
/// starts new instances of the component serving ([`Reloader::reinstantiate`]): for a runtime
/// that reads the provider's sources when it starts. Build output goes to stderr; a
/// failed build is logged and left as a warning for the next call, and the old build keeps
/// serving. Changes made while a build runs start another build once it is done.
///
/// Build outputs and tool state are ignored (any path through a `target`, `.git`,
/// `__pycache__`, `.venv`, `node_modules` or `.terraform` directory, Terraform's state files,
/// editor swap and backup files), so the build does not trigger itself and a `terraform plan`
/// in a watched directory does not either. Only contents count: a file opened for writing and
/// closed unchanged is no change.
pub fn watch_sources(
    dirs: &[PathBuf],
    command: Option<String>,
    reloader: Arc<Reloader>,
    quiet: Duration,
) -> Result<Watch, WatchError> {
    let (sender, mut changes) = mpsc::unbounded_channel::<PathBuf>();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event) if changes_contents(&event.kind) => {
                for path in event.paths.into_iter().filter(|p| is_source(p)) {
                    let _ = sender.send(path);
                }
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "watching the sources failed"),
        })
        .map_err(|source| WatchError::Watch {
            path: dirs.first().cloned().unwrap_or_default(),
            source,
        })?;
    for dir in dirs {
        watcher
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|source| WatchError::Watch { path: dir.clone(), source })?;
    }

    let mut contents = Contents::of(dirs);
    let task = tokio::spawn(async move {
        while let Some(first) = changes.recv().await {
            let mut touched = vec![first];
            if !settle(&mut changes, quiet, &mut touched).await {
                return;
            }
            let Some(changed) = contents.changed(&touched) else {
                tracing::debug!("sources touched, contents unchanged");
                continue;
            };
            match &command {
                Some(command) => {
                    tracing::info!(changed = %changed.display(), "sources changed; running `{command}`");
                    if build(command, reloader.live()).await {
                        reloader.reload_and_report().await;
                    }
                }
                None => {
                    tracing::info!(changed = %changed.display(), "sources changed; starting new instances");
                    reloader.reinstantiate_and_report().await;
                }
            }
        }
    });
    Ok(Watch { _watcher: watcher, task })
}

/// Runs the build command once, with its output on stderr. Returns whether it succeeded; a
/// failure is logged and queued as a warning for the next call (the old build keeps serving).
pub async fn build(command: &str, live: &LiveProvider) -> bool {
    match run_build(command).await {
        Ok(took) => {
            live.clear_warning(super::BUILD_FAILED);
            tracing::info!(took_ms = took.as_millis() as u64, "build succeeded");
            true
        }
        Err(failure) => {
            tracing::error!(
                "build `{command}` failed: {failure} (its output is above); the previous build \
                 keeps serving"
            );
            live.warn(build_failed_warning(command, &failure));
            false
        }
    }
}

/// Runs `command` through `sh -c` in the current directory, its output on our stderr. Returns
/// how long it took, or why it failed.
pub async fn run_build(command: &str) -> Result<Duration, String> {
    let started = std::time::Instant::now();
    let mut child = tokio::process::Command::new("sh");
    child.arg("-c").arg(command).stdin(Stdio::null()).kill_on_drop(true);
    // stdout belongs to the TF_REATTACH_PROVIDERS line a script may be reading; the build's
    // output is for the person watching, like our logs.
    child.stdout(stderr_for_child());
    match child.status().await {
        Ok(status) if status.success() => Ok(started.elapsed()),
        Ok(status) => Err(match status.code() {
            Some(code) => format!("it exited with status {code}"),
            None => format!("it was stopped by a signal ({status})"),
        }),
        Err(error) => Err(format!("it could not be started: {error}")),
    }
}

/// Waits until nothing arrives on `changes` for `quiet`, adding what does to `arrived`.
/// Returns false when the sender is gone (the watch was stopped).
async fn settle<T>(
    changes: &mut mpsc::UnboundedReceiver<T>,
    quiet: Duration,
    arrived: &mut Vec<T>,
) -> bool {
    loop {
        match tokio::time::timeout(quiet, changes.recv()).await {
            Ok(Some(item)) => arrived.push(item),
            Ok(None) => return false,
            Err(_elapsed) => return true,
        }
    }
}

/// Events that may mean new contents: creation, writes, renames, and the close after a write.
/// Reads, opens and metadata changes (which the build itself causes) are not.
fn changes_contents(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// Whether a changed path is a source a build should react to (and, for the Python
/// development runtime, one of the files each version copies).
pub fn is_source(path: &Path) -> bool {
    let in_build_output = path.components().any(|c| match c {
        // Python's bytecode (componentize-py writes it beside the module it builds), its
        // virtualenv and npm's packages are tool state too.
        Component::Normal(name) => {
            ["target", ".git", "__pycache__", ".venv", "node_modules", ".terraform"]
                .iter()
                .any(|d| name == *d)
        }
        _ => false,
    });
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return !in_build_output;
    };
    // Editor temporaries: vim's swap files and its "4913" write test, emacs's backups and
    // lock files, hidden files generally; Terraform's state and its backup, and its plan
    // files by their usual names (any other name is caught by its contents, `content_hash`).
    let temporary = name.starts_with('.')
        || name.ends_with(".tfstate")
        || name.ends_with(".tfstate.backup")
        || name.ends_with(".tfplan")
        || name == "tfplan"
        || name.starts_with('#')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name == "4913";
    !in_build_output && !temporary
}

/// The contents of the sources last seen (their SHA-256; `None` for a path that was no file),
/// so that only a change of contents starts a build.
struct Contents(HashMap<PathBuf, Option<[u8; 32]>>);

impl Contents {
    /// The sources under `dirs` as they are now.
    fn of(dirs: &[PathBuf]) -> Contents {
        let mut seen = HashMap::new();
        let mut pending: Vec<PathBuf> = dirs.to_vec();
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() {
                    if is_source(&path.join("x")) {
                        pending.push(path);
                    }
                } else if is_source(&path) {
                    seen.insert(path.clone(), content_hash(&path));
                }
            }
        }
        Contents(seen)
    }

    /// The first of `paths` whose contents differ from those last seen, every one of them
    /// recorded as it is now; `None` when none changed.
    fn changed(&mut self, paths: &[PathBuf]) -> Option<PathBuf> {
        let mut first = None;
        for path in paths {
            let now = content_hash(path);
            let before = self.0.insert(path.clone(), now);
            // A path never seen that is no file now (a directory made, a temporary file come
            // and gone) is no change either.
            let changed = match before {
                Some(before) => before != now,
                None => now.is_some(),
            };
            if changed && first.is_none() {
                first = Some(path.clone());
            }
        }
        first
    }
}

/// The SHA-256 of a file's bytes, `None` when it cannot be read (gone, or a directory).
/// A Terraform plan file (`terraform plan -out FILE`, whatever its name) counts as no file:
/// it is Terraform's output, new on every plan.
fn content_hash(path: &Path) -> Option<[u8; 32]> {
    use sha2::Digest as _;
    let bytes = std::fs::read(path).ok()?;
    if is_terraform_plan(&bytes) {
        return None;
    }
    Some(sha2::Sha256::digest(&bytes).into())
}

/// Whether `bytes` are a Terraform plan file: a zip archive with a `tfplan` entry.
fn is_terraform_plan(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") && bytes.windows(6).any(|w| w == b"tfplan")
}

/// A duplicate of our stderr for a child's stdout (or nothing, if it cannot be duplicated).
fn stderr_for_child() -> Stdio {
    use std::os::fd::AsFd as _;
    std::io::stderr().as_fd().try_clone_to_owned().map_or_else(|_| Stdio::null(), Stdio::from)
}

#[cfg(test)]
mod tests {
    use notify::event::{CreateKind, DataChange, MetadataKind, RenameMode};

    use super::*;

    #[test]
    fn build_outputs_and_editor_temporaries_are_not_sources() {
        assert!(is_source(Path::new("/p/src/lib.rs")));
        assert!(is_source(Path::new("/p/Cargo.toml")));
        assert!(!is_source(Path::new("/p/target/wasm32-wasip2/debug/p.wasm")));
        assert!(!is_source(Path::new("/p/.git/index")));
        assert!(!is_source(Path::new("/p/src/.lib.rs.swp")));
        assert!(!is_source(Path::new("/p/src/lib.rs~")));
        assert!(!is_source(Path::new("/p/src/4913")));
    }

    #[test]
    fn python_and_node_tool_state_is_not_a_source() {
        // componentize-py writes the provider module's bytecode beside it while it builds:
        // counting it would rebuild for ever.
        assert!(is_source(Path::new("/p/provider.py")));
        assert!(!is_source(Path::new("/p/__pycache__/provider.cpython-314.pyc")));
        assert!(!is_source(Path::new("/p/.venv/lib/python3.11/site-packages/x.py")));
        assert!(!is_source(Path::new("/p/node_modules/typescript/lib/tsc.js")));
    }

    #[test]
    fn only_content_changes_count() {
        assert!(changes_contents(&EventKind::Create(CreateKind::File)));
        assert!(changes_contents(&EventKind::Modify(ModifyKind::Data(DataChange::Any))));
        assert!(changes_contents(&EventKind::Modify(ModifyKind::Name(RenameMode::To))));
        assert!(changes_contents(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(!changes_contents(&EventKind::Access(AccessKind::Read)));
        assert!(!changes_contents(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
    }

    #[tokio::test]
    async fn settle_waits_for_quiet_and_stops_when_the_sender_goes() {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        sender.send(()).unwrap();
        sender.send(()).unwrap();
        let mut arrived = Vec::new();
        assert!(settle(&mut receiver, Duration::from_millis(20), &mut arrived).await);
        assert_eq!(arrived.len(), 2, "the events that arrived are kept");
        assert!(receiver.try_recv().is_err(), "events during the quiet period are consumed");
        drop(sender);
        assert!(!settle(&mut receiver, Duration::from_millis(20), &mut Vec::new()).await);
    }

    #[test]
    fn terraform_s_own_files_are_not_sources() {
        // A `terraform plan` in a watched directory writes these: no rebuild for them.
        assert!(!is_source(Path::new("/p/.terraform/providers/x/terraform-provider-x")));
        assert!(!is_source(Path::new("/p/.terraform/terraform.tfstate")));
        assert!(!is_source(Path::new("/p/terraform.tfstate")));
        assert!(!is_source(Path::new("/p/terraform.tfstate.backup")));
        assert!(!is_source(Path::new("/p/.terraform.lock.hcl")));
        assert!(!is_source(Path::new("/p/.terraform.tfstate.lock.info")));
        assert!(!is_source(Path::new("/p/tfplan")));
        assert!(!is_source(Path::new("/p/shown.tfplan")));
        assert!(is_source(Path::new("/p/main.tf")));
    }

    #[test]
    fn a_terraform_plan_file_under_any_name_is_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("my-plan");
        let mut contents = Contents::of(&[dir.path().to_path_buf()]);
        // What `terraform plan -out my-plan` writes: a zip archive with a `tfplan` entry.
        std::fs::write(&plan, b"PK\x03\x04\x14\x00\x08\x00tfplan...").unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&plan)), None);
        std::fs::write(&plan, b"PK\x03\x04\x14\x00\x08\x00tfplan,,,").unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&plan)), None);
    }

    #[test]
    fn a_file_opened_for_writing_and_left_unchanged_is_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("provider.py");
        std::fs::write(&source, "x = 1\n").unwrap();
        let mut contents = Contents::of(&[dir.path().to_path_buf()]);
        // Opened for writing and closed without a write: the event a rebuild used to follow.
        drop(std::fs::OpenOptions::new().write(true).open(&source).unwrap());
        assert_eq!(contents.changed(std::slice::from_ref(&source)), None);
        // Written with the same bytes: still no change.
        std::fs::write(&source, "x = 1\n").unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&source)), None);
        std::fs::write(&source, "x = 2\n").unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&source)), Some(source.clone()));
        // A new file is a change; so is a deleted one.
        let added = dir.path().join("helpers.py");
        std::fs::write(&added, "y = 1\n").unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&added)), Some(added.clone()));
        std::fs::remove_file(&added).unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&added)), Some(added));
        // A directory made, or a file that came and went before it was looked at: no change.
        let made = dir.path().join("package");
        std::fs::create_dir(&made).unwrap();
        assert_eq!(contents.changed(std::slice::from_ref(&made)), None);
        assert_eq!(contents.changed(&[dir.path().join("gone.py")]), None);
    }

    #[tokio::test]
    async fn a_failed_build_does_not_point_terraform_s_reader_above() {
        // Terraform shows the warning in its own terminal; the build's output is in the one
        // running `terrarium dev`.
        let failure = run_build("exit 3").await.unwrap_err();
        assert_eq!(failure, "it exited with status 3");
        let warning = format!("{:?}", build_failed_warning("make build", &failure));
        assert!(!warning.contains("above"), "{warning}");
        assert!(warning.contains("the terminal running `terrarium dev`"), "{warning}");
    }
}
