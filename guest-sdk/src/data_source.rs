//! Data sources: the [`DataSource`] trait an author implements, and [`AnyDataSource`], the
//! object-safe form the provider lists them in.

use serde::Serialize;
use serde::de::DeserializeOwned;
use terrarium_model::{Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::kind::known_state;
use crate::rpc::{ReadDataSourceRequest, ReadDataSourceResponse};
use crate::schema::Schema;
use crate::value::from_value;

/// A data source: reads something and returns it as a state.
///
/// `State` is the Rust form of the schema, as for a [`Resource`](crate::Resource). Terraform
/// reads a data source only once its configuration is wholly known, so only null needs
/// handling: computed attributes are null in the configuration it receives.
pub trait DataSource {
    /// The data source type name as written in configurations: `"<provider>_<name>"`.
    const TYPE_NAME: &'static str;

    /// The Rust form of the data source's state.
    type State: Serialize + DeserializeOwned + crate::typed::Model;

    /// The schema Terraform sees; by default the one derived from
    /// [`State`](Self::State).
    fn schema(&self) -> Schema {
        <Self::State as crate::typed::Model>::schema()
    }

    /// Checks a configuration beyond what the schema says; attributes may be unknown here.
    fn validate(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Reads the data: `config` is the configuration, the result is the state with every
    /// computed attribute set. [`Diagnostics::deferred`] defers it (when Terraform allows).
    fn read(&self, config: Self::State) -> Result<Self::State>;
}

/// A data source as the provider lists it: every [`DataSource`] is one, so
/// `Box::new(MyDataSource)` is all a provider writes.
pub trait AnyDataSource {
    /// The type name, as in [`DataSource::TYPE_NAME`].
    fn type_name(&self) -> &str;
    /// The schema, as in [`DataSource::schema`].
    fn data_source_schema(&self) -> Schema;
    /// `ValidateDataResourceConfig`: the data source's own checks.
    fn validate_config(&self, config: &Value) -> Vec<Diagnostic>;
    /// `ReadDataSource`: decodes the configuration, reads, and fits the result to the schema.
    fn read_data(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse;
}

impl<D: DataSource> AnyDataSource for D {
    fn type_name(&self) -> &str {
        D::TYPE_NAME
    }

    fn data_source_schema(&self) -> Schema {
        DataSource::schema(self)
    }

    fn validate_config(&self, config: &Value) -> Vec<Diagnostic> {
        crate::kind::validate_config(&DataSource::schema(self), config, || {
            DataSource::validate(self, config)
        })
    }

    fn read_data(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let ty = DataSource::schema(self).implied_type();
        let result = from_value::<D::State>(&request.config)
            .map_err(Diagnostics::from)
            .and_then(|config| DataSource::read(self, config))
            .and_then(|state| known_state(&state, &ty, "read"));
        match result {
            Ok(state) => ReadDataSourceResponse { state, deferred: None, diagnostics: Vec::new() },
            Err(d) => {
                let call = format!("DataSource::read of {}", D::TYPE_NAME);
                let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
                // Deferred, the data is not known yet: the configuration, computed values unknown.
                let state = match deferred {
                    Some(_) => {
                        let schema = DataSource::schema(self);
                        terrarium_framework::plan::mark_unknown(
                            terrarium_framework::plan::Shape::of(&schema),
                            request.config,
                        )
                    }
                    None => Value::Null,
                };
                ReadDataSourceResponse { state, deferred, diagnostics }
            }
        }
    }
}
