//! Diagnostics: how provider code reports errors (and warnings) to Terraform.

use std::fmt;

use serde::Serialize;
use terrarium_model::{AttributePath, Diagnostic, Value};

use crate::rpc::{ClientCapabilities, DeferredReason};

/// What provider code returns when it fails: one or more diagnostics, each with a summary,
/// a detail and optionally the attribute it is about. Terraform shows the attribute's line
/// in the configuration when a path is given.
///
/// ```
/// use terrarium_sdk::{Diagnostics, Result};
///
/// fn check_port(port: i64) -> Result<()> {
///     if !(1..=65535).contains(&port) {
///         return Err(Diagnostics::attribute_error(
///             "port",
///             "Invalid port",
///             format!("{port} is not between 1 and 65535."),
///         ));
///     }
///     Ok(())
/// }
/// assert!(check_port(0).is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diagnostics {
    diagnostics: Vec<Diagnostic>,
    deferral: Option<DeferredReason>,
    /// What a failed create or update left behind (see [`Diagnostics::with_state`]); boxed
    /// to keep `Result`'s error small.
    state: Option<Box<Value>>,
}

/// `Result` with [`Diagnostics`] as the error: the return type of provider code.
pub type Result<T, E = Diagnostics> = std::result::Result<T, E>;

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Self {
        Diagnostics::default()
    }

    fn of(diagnostics: Vec<Diagnostic>) -> Self {
        Diagnostics { diagnostics, ..Diagnostics::default() }
    }

    /// "Not yet": asks Terraform to defer this resource to a later plan and apply round,
    /// for `reason`. Returned from [`Resource::read`](crate::Resource::read),
    /// [`Resource::plan`](crate::Resource::plan), [`Resource::import`](crate::Resource::import)
    /// or [`DataSource::read`](crate::DataSource::read). Terraform must have said it accepts
    /// deferrals (`-allow-deferral`, stacks); otherwise the SDK turns it into an error that
    /// says why the provider could not go on.
    ///
    /// ```
    /// use terrarium_sdk::{Diagnostics, rpc::DeferredReason};
    /// let d = Diagnostics::deferred(DeferredReason::AbsentPrerequisite);
    /// assert_eq!(d.deferral(), Some(DeferredReason::AbsentPrerequisite));
    /// assert!(!d.has_errors());
    /// ```
    pub fn deferred(reason: DeferredReason) -> Self {
        Diagnostics { deferral: Some(reason), ..Diagnostics::default() }
    }

    /// The deferral asked for with [`deferred`](Self::deferred), if any.
    pub fn deferral(&self) -> Option<DeferredReason> {
        self.deferral
    }

    /// Keeps `state` as the resource's state although the call failed, for a
    /// [`Resource::create`](crate::Resource::create) or
    /// [`update`](crate::Resource::update) that got part of the way: the object exists in
    /// the real world but is not finished. Terraform records it (after a failed create,
    /// marked tainted, so the next apply replaces it) instead of losing track of it.
    /// Attributes still unknown in `state` are recorded as null. Ignored elsewhere.
    ///
    /// ```
    /// use terrarium_sdk::{Diagnostics, Result};
    /// # #[derive(Debug, serde::Serialize)] struct Server { id: String }
    /// fn boot(server: Server) -> Result<Server> {
    ///     // The server exists, but it did not come up.
    ///     Err(Diagnostics::error("Server failed to boot", "It did not answer in 5 minutes.")
    ///         .with_state(&server))
    /// }
    /// # assert!(boot(Server { id: "s-1".into() }).unwrap_err().state().is_some());
    /// ```
    pub fn with_state<S: Serialize + ?Sized>(mut self, state: &S) -> Self {
        match crate::value::to_value(state) {
            Ok(value) => self.state = Some(Box::new(value)),
            Err(e) => self.diagnostics.push(Diagnostic::error(
                "Provider could not keep the state of a failed change",
                format!(
                    "The state passed to Diagnostics::with_state could not be converted, so it is not recorded: {e}"
                ),
            )),
        }
        self
    }

    /// The state kept with [`with_state`](Self::with_state), if any.
    pub fn state(&self) -> Option<&Value> {
        self.state.as_deref()
    }

    /// Takes the state kept with [`with_state`](Self::with_state) out.
    pub(crate) fn take_state(&mut self) -> Option<Value> {
        self.state.take().map(|state| *state)
    }

    /// One error about the whole object.
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Diagnostics::of(vec![Diagnostic::error(summary, detail)])
    }

    /// One error about one attribute (`"name"`, or an [`AttributePath`] for nested ones).
    pub fn attribute_error(
        path: impl IntoPath,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Diagnostics::of(vec![Diagnostic::error(summary, detail).at(path.into_path())])
    }

    /// One warning about the whole object.
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Diagnostics::of(vec![Diagnostic::warning(summary, detail)])
    }

    /// Adds a diagnostic.
    pub fn push(&mut self, diagnostic: impl Into<Diagnostic>) {
        self.diagnostics.push(diagnostic.into());
    }

    /// Adds an error about one attribute; handy when checking several attributes before
    /// returning them all at once.
    pub fn push_attribute_error(
        &mut self,
        path: impl IntoPath,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) {
        self.diagnostics.push(Diagnostic::error(summary, detail).at(path.into_path()));
    }

    /// Adds a diagnostic, builder style (a warning beside a deferral, say).
    pub fn with(mut self, diagnostic: impl Into<Diagnostic>) -> Self {
        self.diagnostics.push(diagnostic.into());
        self
    }

    /// Adds several diagnostics.
    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.extend(other);
    }

    /// Whether there are no diagnostics at all.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// Whether any diagnostic is an error (warnings alone do not fail a call).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.diagnostics.iter()
    }

    /// The diagnostics, as a `Vec`.
    /// A deferral where none can be honoured (say, from `create`) becomes an error here.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        let Diagnostics { mut diagnostics, deferral, .. } = self;
        if let Some(reason) = deferral {
            diagnostics.push(Diagnostic::error(
                "Provider asked to defer a call that cannot be deferred",
                format!(
                    "The provider answered \"not yet\" ({}) where Terraform has no deferral: only read, plan and import can be deferred. This is a bug in the provider.",
                    reason.describe()
                ),
            ));
        }
        diagnostics
    }

    /// `Ok(())` when there are no errors (warnings alone do not fail) and no deferral, else
    /// `Err(self)`: ends a function that collected diagnostics with `push`.
    pub fn into_result(self) -> Result<()> {
        if self.has_errors() || self.deferral.is_some() { Err(self) } else { Ok(()) }
    }

    /// What a call answers for these diagnostics: the deferral, when one was asked for and
    /// Terraform allows it; otherwise an error in its place that says why the provider
    /// could not go on. `call` names what was deferred ("Resource::read of files_file").
    pub fn into_deferral(
        self,
        client: &ClientCapabilities,
        call: &str,
    ) -> (Option<DeferredReason>, Vec<Diagnostic>) {
        let Diagnostics { mut diagnostics, deferral, .. } = self;
        match deferral {
            Some(reason) if client.deferral_allowed => (Some(reason), diagnostics),
            Some(reason) => {
                diagnostics.push(Diagnostic::error(
                    "Provider cannot proceed yet",
                    format!(
                        "{call} asked to defer this change ({}), but Terraform did not say it accepts deferred changes. \
                         Apply the resources it depends on first (for example with -target), or run a Terraform that \
                         supports deferral (-allow-deferral).",
                        reason.describe()
                    ),
                ));
                (None, diagnostics)
            }
            None => (None, diagnostics),
        }
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics::of(vec![d])
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(v: Vec<Diagnostic>) -> Self {
        Diagnostics::of(v)
    }
}

impl From<crate::value::Error> for Diagnostics {
    fn from(e: crate::value::Error) -> Self {
        Diagnostics::of(vec![e.to_diagnostic()])
    }
}

impl From<Diagnostics> for Vec<Diagnostic> {
    fn from(d: Diagnostics) -> Self {
        d.into_vec()
    }
}

impl FromIterator<Diagnostic> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(iter: I) -> Self {
        Diagnostics::of(iter.into_iter().collect())
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    /// The diagnostics, as in [`Diagnostics::into_vec`].
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Turns any error into [`Diagnostics`] with a summary of what was being done, like
/// `anyhow::Context`:
///
/// ```
/// use terrarium_sdk::{Result, ResultExt};
///
/// fn parse_port(text: &str) -> Result<u16> {
///     text.parse::<u16>().context("Invalid port")
/// }
/// let err = parse_port("http").unwrap_err();
/// assert_eq!(err.iter().next().unwrap().summary, "Invalid port");
/// ```
pub trait ResultExt<T> {
    /// On error: an error diagnostic with this summary and the error's text as detail.
    fn context(self, summary: impl Into<String>) -> Result<T>;
    /// The same, about one attribute.
    fn attribute_context(self, path: impl IntoPath, summary: impl Into<String>) -> Result<T>;
}

impl<T, E: fmt::Display> ResultExt<T> for std::result::Result<T, E> {
    fn context(self, summary: impl Into<String>) -> Result<T> {
        self.map_err(|e| Diagnostics::error(summary, e.to_string()))
    }

    fn attribute_context(self, path: impl IntoPath, summary: impl Into<String>) -> Result<T> {
        self.map_err(|e| Diagnostics::attribute_error(path, summary, e.to_string()))
    }
}

/// Something that names an attribute: a top-level attribute name, or a full path.
pub trait IntoPath {
    /// The path this names.
    fn into_path(self) -> AttributePath;
}

impl IntoPath for AttributePath {
    fn into_path(self) -> AttributePath {
        self
    }
}

impl IntoPath for &AttributePath {
    fn into_path(self) -> AttributePath {
        self.clone()
    }
}

impl IntoPath for &str {
    fn into_path(self) -> AttributePath {
        AttributePath::attribute(self)
    }
}

impl IntoPath for String {
    fn into_path(self) -> AttributePath {
        AttributePath::attribute(self)
    }
}
