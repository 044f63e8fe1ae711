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
//!
//!     fn read(&self, current: Pet) -> Result<Option<Pet>> {
//!         // Nothing outside Terraform's state to look at: keep the state as it is.
//!         Ok(Some(current))
//!     }
//!
//!     fn delete(&self, _prior: Pet) -> Result<()> {
//!         // Nothing outside Terraform's state to delete: Terraform forgets it.
//!         Ok(())
//!     }
//! }
//!
//! impl ResourceIdentity for PetResource {
//!     type Identity = PetIdentity;
//!     type Source = PetIdentity;
//!     fn identity_of(&self, source: PetIdentity) -> Option<PetIdentity> {
//!         Some(source)
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
//! Register it with [`Provider::list_resources`](crate::Provider::list_resources):
//! `vec![Box::new(PetResource)]`.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::identity::ResourceIdentity;
use crate::kind::{known_state, validate_config};
use crate::resource::Resource;
use crate::schema::Schema;
use crate::typed::Model;
use crate::value::{conform, from_value, to_value};
use terrarium_framework::plan::{Shape, clear_write_only};

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
        let config = terrarium_framework::plan::fill_defaults(Shape::of(&schema), request.config);
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

/// What [`Harness::list`](crate::testing::Harness::list) produced.
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
