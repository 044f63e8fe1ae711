//! List resources: `terraform query` lists the existing objects of a managed resource type,
//! each named by its identity, so that they can be imported (or have configuration
//! generated for them).
//!
//! A list resource lists the objects of one managed resource type, which must have an
//! identity: [`ListResource`] is implemented by the resource type itself, beside
//! [`Resource`] and [`ResourceIdentity`]. Its own schema is that of the
//! `config` block of a `list` block in a `.tfquery.hcl` file. [`ListResource::list`] pushes
//! the objects into [`ListResults`] one by one; Terraform receives each as it is pushed,
//! and `push` returns false once it wants no more.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
//! use terrarium_sdk::list::{ListResource, ListResults};
//! use terrarium_sdk::{Model, Resource, Result};
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct Pet {
//!     name: String,
//!     legs: i64,
//! }
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct PetIdentity {
//!     #[tf(required_for_import)]
//!     name: String,
//! }
//!
//! struct PetResource;
//!
//! impl Resource for PetResource {
//!     const TYPE_NAME: &'static str = "demo_pet";
//!     type State = Pet;
//!     fn create(&self, planned: Pet) -> Result<Pet> {
//!         Ok(planned)
//!     }
//!     fn identity(&self) -> Option<&dyn AnyIdentity<Pet>> {
//!         Some(self)
//!     }
//! }
//!
//! impl ResourceIdentity for PetResource {
//!     type Identity = PetIdentity;
//!     fn identity_of(&self, pet: &Pet) -> Option<PetIdentity> {
//!         Some(PetIdentity { name: pet.name.clone() })
//!     }
//! }
//!
//! /// Which pets to list.
//! #[derive(Deserialize, Model)]
//! struct PetFilter {
//!     /// Only pets whose name starts with this.
//!     prefix: Option<String>,
//! }
//!
//! impl ListResource for PetResource {
//!     type Config = PetFilter;
//!
//!     fn list(&self, filter: PetFilter, results: &mut ListResults<Self>) -> Result<()> {
//!         let prefix = filter.prefix.unwrap_or_default();
//!         for (name, legs) in [("rex", 4), ("tweety", 2)] {
//!             if !name.starts_with(&prefix) {
//!                 continue;
//!             }
//!             let identity = PetIdentity { name: name.to_string() };
//!             // The state is only built when Terraform asked for resource objects.
//!             if !results.push(identity, name, || Ok(Pet { name: name.to_string(), legs })) {
//!                 break; // Terraform has all it wants.
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//! ```
//!
//! Register it with [`Provider::list_resources`]:
//! `vec![Box::new(PetResource)]`.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::identity::ResourceIdentity;
use crate::kind::{find_type, known_state, validate_config};
use crate::plan::{Shape, clear_write_only};
use crate::provider::Provider;
use crate::resource::Resource;
use crate::schema::Schema;
use crate::server::Server;
use crate::testing::{Failure, Harness, fit, split};
use crate::typed::Model;
use crate::value::{conform, from_value, to_value};

/// A managed resource type whose objects can be listed (`terraform query`). Implemented by
/// the resource type itself: the list has its type name, and its items are its identities
/// and states.
pub trait ListResource: ResourceIdentity {
    /// The Rust form of the list block's `config` block; with `#[derive(Model)]` it is the
    /// schema too.
    type Config: DeserializeOwned + Model;

    /// The schema of the `config` block; by default the one derived from
    /// [`Config`](Self::Config).
    fn list_schema(&self) -> Schema {
        <Self::Config as Model>::schema()
    }

    /// Checks a `config` block beyond what the schema says; attributes may be unknown here.
    fn validate_list(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Lists the objects `config` selects, pushing each into `results`, in a stable order
    /// (Terraform shows them as they come). Stop when [`ListResults::push`] returns false.
    /// An error ends the listing; the items pushed before it have been sent.
    fn list(&self, config: Self::Config, results: &mut ListResults<'_, Self>) -> Result<()>;
}

/// One listed object, as it travels to Terraform.
#[derive(Clone, Debug, PartialEq)]
pub struct ListItem {
    /// An object of the identity schema's type.
    pub identity: Value,
    /// A short name for people (a file name, say).
    pub display_name: String,
    /// The object's state, when the request asked for resource objects.
    pub resource_object: Option<Value>,
    /// Problems with this item; an error ends the listing in Terraform.
    pub diagnostics: Vec<Diagnostic>,
}

/// Where [`ListResource::list`] sends the objects it finds.
pub struct ListResults<'a, R: ?Sized> {
    sink: &'a mut dyn FnMut(ListItem) -> bool,
    include_resource_object: bool,
    /// Items still wanted; `None` for no limit.
    remaining: Option<u64>,
    identity_type: Type,
    object_schema: Schema,
    object_type: Type,
    finished: bool,
    _resource: PhantomData<fn(&R)>,
}

impl<R: ResourceIdentity + ?Sized> ListResults<'_, R> {
    /// Sends one object: its identity, a short name for people, and a function that makes
    /// its state, called only when Terraform asked for resource objects.
    ///
    /// Returns false once Terraform wants no more (it has `limit` items, or an item carried
    /// an error): stop listing and return `Ok(())`. Later pushes are ignored.
    #[must_use = "stop listing when push returns false"]
    pub fn push(
        &mut self,
        identity: R::Identity,
        display_name: impl Into<String>,
        state: impl FnOnce() -> Result<R::State>,
    ) -> bool {
        if self.finished {
            return false;
        }
        let display_name = display_name.into();
        let mut diagnostics = Vec::new();
        let identity = match to_value(&identity).and_then(|v| conform(v, &self.identity_type)) {
            Ok(identity) => identity,
            Err(e) => {
                diagnostics.extend(about_item(&display_name, "identity", e.into()));
                Value::Null
            }
        };
        let resource_object = if self.include_resource_object {
            match state().and_then(|s| known_state(&s, &self.object_type, "list")) {
                // Write-only values are never read back, whatever the code returned.
                Ok(object) => Some(clear_write_only(Shape::of(&self.object_schema), object)),
                Err(d) => {
                    diagnostics.extend(about_item(&display_name, "state", d));
                    None
                }
            }
        } else {
            None
        };
        let failed = diagnostics.iter().any(Diagnostic::is_error);
        let more = (self.sink)(ListItem { identity, display_name, resource_object, diagnostics });
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.saturating_sub(1);
        }
        self.finished = !more || failed || self.remaining == Some(0);
        !self.finished
    }

    /// Whether Terraform asked for each object's state (`push` calls the state function
    /// only then).
    pub fn includes_resource_objects(&self) -> bool {
        self.include_resource_object
    }

    /// Whether Terraform wants no more items.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Says which item a problem is about; the listing has no attribute to point at.
fn about_item(display_name: &str, part: &str, diagnostics: Diagnostics) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .map(|mut d| {
            let at = if d.attribute.is_root() {
                String::new()
            } else {
                format!(" (at {})", d.attribute)
            };
            d.detail = format!("Listing {display_name:?}, its {part}{at}: {}", d.detail);
            d.attribute = AttributePath::root();
            d
        })
        .collect()
}

/// `ListResource`.
#[derive(Clone, Debug, PartialEq)]
pub struct ListRequest {
    /// Which list resource (the managed resource type it lists).
    pub type_name: String,
    /// The contents of the list block's `config` block.
    pub config: Value,
    /// Whether each item should carry the object's state.
    pub include_resource_object: bool,
    /// Terraform stops reading after this many items.
    pub limit: i64,
}

/// A list resource as the provider lists it: every [`ListResource`] is one, so
/// `Box::new(MyResource)` is all a provider writes. Its type name is that of the managed
/// resource type it lists.
pub trait AnyListResource {
    /// The managed resource type name it lists.
    fn type_name(&self) -> &str;
    /// The schema of the list block's `config` contents.
    fn list_resource_schema(&self) -> Schema;
    /// `ValidateListResourceConfig`: each attribute's validators, then the list's own checks.
    fn validate_config(&self, config: &Value) -> Vec<Diagnostic>;
    /// `ListResource`: lists into `sink`, which returns false once no more items are
    /// wanted; returns the diagnostics about the listing as a whole.
    fn list_into(
        &self,
        request: ListRequest,
        sink: &mut dyn FnMut(ListItem) -> bool,
    ) -> Vec<Diagnostic>;
}

impl<L: ListResource> AnyListResource for L {
    fn type_name(&self) -> &str {
        L::TYPE_NAME
    }

    fn list_resource_schema(&self) -> Schema {
        ListResource::list_schema(self)
    }

    fn validate_config(&self, config: &Value) -> Vec<Diagnostic> {
        validate_config(&ListResource::list_schema(self), config, || {
            ListResource::validate_list(self, config)
        })
    }

    fn list_into(
        &self,
        request: ListRequest,
        sink: &mut dyn FnMut(ListItem) -> bool,
    ) -> Vec<Diagnostic> {
        let schema = ListResource::list_schema(self);
        let config = crate::plan::fill_defaults(Shape::of(&schema), request.config);
        let object_schema = Resource::schema(self);
        let mut results = ListResults::<L> {
            sink,
            include_resource_object: request.include_resource_object,
            remaining: u64::try_from(request.limit).ok().filter(|&l| l > 0),
            identity_type: ResourceIdentity::identity_schema(self).implied_type(),
            object_type: object_schema.implied_type(),
            object_schema,
            finished: false,
            _resource: PhantomData,
        };
        from_value(&config)
            .map_err(Diagnostics::from)
            .and_then(|config| ListResource::list(self, config, &mut results))
            .err()
            .map(Diagnostics::into_vec)
            .unwrap_or_default()
    }
}

/// The list-resource calls of the protocol, routed by type name.
impl<P: Provider> Server<P> {
    /// `ValidateListResourceConfig`.
    pub fn validate_list_resource_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        let lists = self.provider().list_resources();
        match find_list(&lists, type_name) {
            Ok(l) => l.validate_config(config),
            Err(d) => vec![d],
        }
    }

    /// `ListResource`: each item goes to `sink` as it is found; `sink` returns false once
    /// no more are wanted. Returns the diagnostics about the listing as a whole.
    pub fn list_resource(
        &self,
        request: ListRequest,
        sink: &mut dyn FnMut(ListItem) -> bool,
    ) -> Vec<Diagnostic> {
        let lists = self.provider().list_resources();
        match find_list(&lists, &request.type_name) {
            Ok(l) => l.list_into(request, sink),
            Err(d) => vec![d],
        }
    }
}

fn find_list<'a, 'p>(
    lists: &'a [Box<dyn AnyListResource + 'p>],
    type_name: &str,
) -> std::result::Result<&'a (dyn AnyListResource + 'p), Diagnostic> {
    find_type("list resource", lists, type_name, |l| l.type_name())
}

/// What [`Harness::list`] produced.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// The items, in the order they were pushed.
    pub items: Vec<ListItem>,
    /// Warnings, about the listing and its items (errors make the step fail).
    pub warnings: Vec<Diagnostic>,
}

impl Listing {
    /// The display names, in order.
    pub fn display_names(&self) -> Vec<&str> {
        self.items.iter().map(|i| i.display_name.as_str()).collect()
    }
}

/// List resources in unit tests.
impl<P: Provider> Harness<P> {
    /// Validates and runs a listing with a JSON `config` block, as `terraform query` does,
    /// with resource objects and no limit.
    pub fn list(&self, type_name: &str, config: Json) -> std::result::Result<Listing, Failure> {
        self.list_with(type_name, config, true, 0)
    }

    /// [`list`](Self::list), saying whether items carry resource objects and how many
    /// Terraform reads (`limit`; 0 for no limit).
    pub fn list_with(
        &self,
        type_name: &str,
        config: Json,
        include_resource_object: bool,
        limit: i64,
    ) -> std::result::Result<Listing, Failure> {
        let server = self.server();
        let schema = {
            let lists = server.provider().list_resources();
            find_list(&lists, type_name)
                .map(|l| l.list_resource_schema())
                .map_err(|d| Failure { step: "config", diagnostics: vec![d] })?
        };
        let config = fit(&schema, &config)?;
        let mut warnings =
            split("validate", server.validate_list_resource_config(type_name, &config))?;
        let request = ListRequest {
            type_name: type_name.to_string(),
            config,
            include_resource_object,
            limit,
        };
        let mut items = Vec::new();
        let diagnostics = server.list_resource(request, &mut |item| {
            items.push(item);
            true
        });
        let item_diagnostics = items.iter_mut().flat_map(|i| std::mem::take(&mut i.diagnostics));
        warnings.extend(split("list", diagnostics.into_iter().chain(item_diagnostics).collect())?);
        Ok(Listing { items, warnings })
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;
    use crate::identity::AnyIdentity;
    use crate::{AnyResource, Attr, Model};

    /// Counts how many states the listing built, to show they are built only on request.
    #[derive(Default)]
    struct Shelf {
        states_built: Cell<usize>,
    }

    impl Provider for Shelf {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
        fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
    }

    struct BookResource<'a> {
        states_built: &'a Cell<usize>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct Book {
        title: String,
        pages: i64,
        #[tf(write_only)]
        secret_note: Option<String>,
        #[tf(computed)]
        isbn: Attr<String>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct BookIdentity {
        #[tf(required_for_import)]
        isbn: String,
    }

    #[derive(Deserialize, Model)]
    struct BookFilter {
        #[tf(validate = range(0.0, 10000.0))]
        min_pages: Option<i64>,
        /// Lists a broken book after this many good ones.
        broken_after: Option<i64>,
    }

    impl Resource for BookResource<'_> {
        const TYPE_NAME: &'static str = "t_book";
        type State = Book;
        fn create(&self, planned: Book) -> Result<Book> {
            Ok(planned)
        }
        fn identity(&self) -> Option<&dyn AnyIdentity<Book>> {
            Some(self)
        }
    }

    impl ResourceIdentity for BookResource<'_> {
        type Identity = BookIdentity;
        fn identity_of(&self, book: &Book) -> Option<BookIdentity> {
            book.isbn.known().map(|isbn| BookIdentity { isbn: isbn.clone() })
        }
    }

    impl ListResource for BookResource<'_> {
        type Config = BookFilter;

        fn list(&self, filter: BookFilter, results: &mut ListResults<Self>) -> Result<()> {
            let books = [("Dune", 412), ("Emma", 474), ("Ubik", 202)];
            for (i, (title, pages)) in books.into_iter().enumerate() {
                if filter.broken_after == Some(i as i64) {
                    let _ = results.push(BookIdentity { isbn: "bad".into() }, "broken", || {
                        Err(Diagnostics::error("Unreadable", "the spine is broken"))
                    });
                    return Ok(());
                }
                if filter.min_pages.is_some_and(|min| pages < min) {
                    continue;
                }
                let identity = BookIdentity { isbn: format!("isbn-{title}") };
                let more = results.push(identity, title, || {
                    self.states_built.set(self.states_built.get() + 1);
                    let isbn = format!("isbn-{title}").into();
                    Ok(Book {
                        title: title.to_string(),
                        pages,
                        secret_note: Some("shh".into()),
                        isbn,
                    })
                });
                if !more {
                    break;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn items_carry_identity_name_and_the_state_without_write_only_values() {
        let h = Harness::new(Shelf::default());
        let listing = h.list("t_book", json!({"min_pages": 300})).unwrap();
        assert_eq!(listing.display_names(), ["Dune", "Emma"]);
        let dune = &listing.items[0];
        assert_eq!(dune.identity.attr("isbn"), Some(&Value::string("isbn-Dune")));
        let object = dune.resource_object.as_ref().expect("objects were asked for");
        assert_eq!(object.attr("pages"), Some(&Value::Number(412.into())));
        assert_eq!(object.attr("secret_note"), Some(&Value::Null));
        assert!(h.server().get_schema().0.list_resources.contains_key("t_book"));
    }

    #[test]
    fn states_are_built_only_when_asked_for_and_the_limit_stops_the_listing() {
        let h = Harness::new(Shelf::default());
        let listing = h.list_with("t_book", json!({}), false, 0).unwrap();
        assert_eq!(listing.items.len(), 3);
        assert!(listing.items.iter().all(|i| i.resource_object.is_none()));
        assert_eq!(h.server().provider().states_built.get(), 0);

        let limited = h.list_with("t_book", json!({}), true, 2).unwrap();
        assert_eq!(limited.display_names(), ["Dune", "Emma"]);
        assert_eq!(h.server().provider().states_built.get(), 2, "the third state was never built");
    }

    #[test]
    fn a_sink_that_wants_no_more_ends_the_listing() {
        let h = Harness::new(Shelf::default());
        let config =
            fit(&BookResource { states_built: &Cell::new(0) }.list_schema(), &json!({})).unwrap();
        let mut seen = Vec::new();
        let request = ListRequest {
            type_name: "t_book".into(),
            config,
            include_resource_object: false,
            limit: 100,
        };
        let diagnostics = h.server().list_resource(request, &mut |item| {
            seen.push(item.display_name);
            false
        });
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(seen, ["Dune"]);
    }

    #[test]
    fn an_item_error_names_the_item_and_fails_the_listing() {
        let h = Harness::new(Shelf::default());
        let failed = h.list("t_book", json!({"broken_after": 1})).unwrap_err();
        assert_eq!(failed.step, "list");
        assert!(failed.mentions("Listing \"broken\", its state: the spine is broken"), "{failed}");
        assert_eq!(h.list("t_book", json!({"min_pages": -1})).unwrap_err().step, "validate");
        assert!(h.list("t_nope", json!({})).unwrap_err().mentions("It has: t_book."));
    }

    /// Lists `t_book` without registering the resource type.
    #[derive(Default)]
    struct Unregistered {
        states_built: Cell<usize>,
    }

    impl Provider for Unregistered {
        fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
    }

    #[test]
    fn a_list_resource_needs_its_resource_type_registered() {
        let (_, diagnostics) = Server::new(Unregistered::default()).get_schema();
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(
            diagnostics[0].detail.contains("List it in Provider::resources too"),
            "{diagnostics:?}"
        );
        assert!(Server::new(Shelf::default()).get_schema().1.is_empty());
    }
}
