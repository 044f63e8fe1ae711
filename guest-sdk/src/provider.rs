//! The [`Provider`] trait: the root of a provider, exported with [`crate::export!`].

use terrarium_model::Value;

use crate::action::AnyAction;
use crate::data_source::AnyDataSource;
use crate::diag::Result;
use crate::ephemeral::AnyEphemeralResource;
use crate::function::AnyFunction;
use crate::list::AnyListResource;
use crate::resource::AnyResource;
use crate::rpc::ConfigureRequest;
use crate::schema::Schema;

/// A provider: its configuration and the resource types, data sources and functions it
/// serves.
///
/// One value of the provider type lives as long as the component instance. The host calls
/// [`configure`](Self::configure) before anything that needs a configured provider, so
/// keep whatever it produces (a client, credentials) in `self`; resources borrow it when
/// [`resources`](Self::resources) builds them.
///
/// ```
/// use terrarium_sdk::{AnyResource, Provider};
/// # use terrarium_sdk::{Resource, Result, schema::Schema};
/// # struct Thing;
/// # impl Resource for Thing {
/// #     const TYPE_NAME: &'static str = "demo_thing";
/// #     type State = ();
/// #     fn schema(&self) -> Schema { Schema::new() }
/// #     fn create(&self, planned: ()) -> Result<()> { Ok(planned) }
/// #     fn read(&self, current: ()) -> Result<Option<()>> { Ok(Some(current)) }
/// #     fn delete(&self, _prior: ()) -> Result<()> { Ok(()) }
/// # }
///
/// #[derive(Default)]
/// struct Demo;
///
/// impl Provider for Demo {
///     fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
///         vec![Box::new(Thing)]
///     }
/// }
/// ```
pub trait Provider: 'static {
    /// The schema of the `provider "<name>" { ... }` block; empty by default.
    fn schema(&self) -> Schema {
        Schema::new()
    }

    /// The schema of the `provider_meta "<name>" { ... }` block a module may write in its
    /// `terraform` block; resources and data sources read its value with
    /// [`provider_meta`](crate::provider_meta). `None` (the default): the provider takes none.
    fn meta_schema(&self) -> Option<Schema> {
        None
    }

    /// Checks the provider configuration beyond what the schema says; attributes may be
    /// unknown here.
    fn validate(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Configures the provider. Called once per component instance, before any call that
    /// needs it; the host replays the same request into every new instance.
    fn configure(&mut self, request: ConfigureRequest) -> Result<()> {
        let _ = request;
        Ok(())
    }

    /// The managed resource types, each found by its
    /// [`TYPE_NAME`](crate::Resource::TYPE_NAME). Called for every request, so keep it
    /// cheap: build small values that borrow what they need from `self`.
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        Vec::new()
    }

    /// The data sources, each found by its [`TYPE_NAME`](crate::DataSource::TYPE_NAME).
    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        Vec::new()
    }

    /// The provider functions, each found by its [`NAME`](crate::Function::NAME).
    fn functions(&self) -> Vec<Box<dyn AnyFunction + '_>> {
        Vec::new()
    }

    /// The ephemeral resource types, each found by its type name.
    fn ephemeral_resources(&self) -> Vec<Box<dyn AnyEphemeralResource + '_>> {
        Vec::new()
    }

    /// The list resources (`terraform query`), each found by the managed resource type
    /// name it lists.
    fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
        Vec::new()
    }

    /// The actions, each found by its type name.
    fn actions(&self) -> Vec<Box<dyn AnyAction + '_>> {
        Vec::new()
    }

    /// Terraform asks the provider to stop what it is doing (Ctrl-C). Components serve one
    /// call at a time, so there is nothing running to stop by default.
    fn stop(&self) -> std::result::Result<(), String> {
        Ok(())
    }
}
