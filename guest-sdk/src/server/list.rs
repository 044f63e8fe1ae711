//! [`Server`]'s routing of the list-resource calls, by type name.

use terrarium_model::{Diagnostic, Value};

use super::Server;
use crate::kind::find_type;
use crate::list::{AnyListResource, ListItem, ListRequest};
use crate::provider::Provider;

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

pub(crate) fn find_list<'a, 'p>(
    lists: &'a [Box<dyn AnyListResource + 'p>],
    type_name: &str,
) -> std::result::Result<&'a (dyn AnyListResource + 'p), Diagnostic> {
    find_type("list resource", lists, type_name, |l| l.type_name())
}
