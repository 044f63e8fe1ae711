//! [`Server`]'s routing of the ephemeral-resource calls, by type name.

use terrarium_model::{Diagnostic, Value};

use super::Server;
use crate::ephemeral::{
    AnyEphemeralResource, CloseRequest, OpenRequest, OpenResponse, RenewRequest, RenewResponse,
};
use crate::kind::find_type;
use crate::provider::Provider;

/// The ephemeral-resource calls of the protocol, routed by type name.
impl<P: Provider> Server<P> {
    /// `ValidateEphemeralResourceConfig`.
    pub fn validate_ephemeral_resource_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        with_ephemeral(self.provider(), type_name, |e| e.validate_config(config))
            .unwrap_or_else(|d| vec![d])
    }

    /// `OpenEphemeralResource`.
    pub fn open_ephemeral_resource(&self, request: OpenRequest) -> OpenResponse {
        let type_name = request.type_name.clone();
        with_ephemeral(self.provider(), &type_name, |e| {
            let block = e.ephemeral_resource_schema().to_model().block;
            let config = crate::value::dynamic_blocks_as_collections(request.config, &block);
            let mut response = e.open_resource(OpenRequest { config, ..request });
            response.result =
                super::as_terraform_types(response.result, &block, &mut response.diagnostics);
            response
        })
        .unwrap_or_else(|d| OpenResponse {
            result: Value::Null,
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: vec![d],
        })
    }

    /// `RenewEphemeralResource`.
    pub fn renew_ephemeral_resource(&self, request: RenewRequest) -> RenewResponse {
        let (type_name, private) = (request.type_name.clone(), request.private.clone());
        with_ephemeral(self.provider(), &type_name, |e| e.renew_resource(request))
            .unwrap_or_else(|d| RenewResponse { private, renew_at: None, diagnostics: vec![d] })
    }

    /// `CloseEphemeralResource`.
    pub fn close_ephemeral_resource(&self, request: CloseRequest) -> Vec<Diagnostic> {
        let type_name = request.type_name.clone();
        with_ephemeral(self.provider(), &type_name, |e| e.close_resource(request))
            .unwrap_or_else(|d| vec![d])
    }
}

pub(crate) fn with_ephemeral<P: Provider, T>(
    provider: &P,
    type_name: &str,
    f: impl FnOnce(&dyn AnyEphemeralResource) -> T,
) -> std::result::Result<T, Diagnostic> {
    let all = provider.ephemeral_resources();
    find_type("ephemeral resource", &all, type_name, |e| e.type_name()).map(f)
}
