//! List resource RPCs (protocol 6.10, `terraform query`): validate and list. ListResource
//! streams: each item the guest pushes is checked (identity against the identity schema, the
//! resource object against the resource schema), encoded and sent on at once; the guest waits
//! while the consumer is behind, so memory stays bounded however many items there are.

use futures::FutureExt;
use terrarium_model::{Diagnostic, Type, Value};
use tokio::sync::mpsc;
use wasmtime::Store;

use super::types::*;
use super::{Dispatcher, Knownness, Subject, checked_from_guest, known_type};
use terrarium_runtime::guest_text::{self, Lines};
use terrarium_runtime::{self as runtime, HostState, ListSink, guest, wit_streams};

const KIND: &str = "list resource";
const RPC: &str = "ListResource";

impl Dispatcher {
    /// The configuration type of list resource type `name`, or the diagnostic that lists the
    /// provider's types.
    pub fn list_resource_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(KIND, name, self.schemas.list_resource(name), self.schemas.list_resource_names())
    }

    pub async fn validate_list_resource_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateListResourceConfig", kind: KIND, name: type_name };
        self.validate_config(
            subject,
            self.list_resource_type(type_name),
            self.schema().list_resources.get(type_name).map(|s| &s.block),
            config,
            async |g, s, config| g.call_validate_list_resource_config(s, type_name, config).await,
        )
        .await
    }

    /// Lists into `events`: one event per item the guest pushes, sent as it is pushed, then one
    /// event carrying the listing's own diagnostics if it has any (a failure of the whole call
    /// is such an event too, never a gRPC error).
    pub async fn list_resource(
        &self,
        request: &ListResourceRequest,
        events: mpsc::Sender<ListEvent>,
    ) {
        let subject = Subject { rpc: RPC, kind: KIND, name: &request.type_name };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            self.list_resource_type(&request.type_name)?;
            let config = self.configuration_with_defaults(subject, &request.config).await?;
            // Schemas::new made sure a list resource has a resource type and an identity.
            let item_types = ItemTypes {
                type_name: request.type_name.clone(),
                identity: self
                    .schemas
                    .identity(&request.type_name)
                    .cloned()
                    .unwrap_or(Type::Dynamic),
                resource: self
                    .schemas
                    .resource(&request.type_name)
                    .cloned()
                    .unwrap_or(Type::Dynamic),
                include_resource_object: request.include_resource_object,
            };
            let push = item_pusher(item_types, request.limit, events.clone());
            let wit_request = guest::ListResourceRequest {
                type_name: request.type_name.clone(),
                config,
                include_resource_object: request.include_resource_object,
                limit: request.limit,
            };
            let diags = self
                .call_streaming(
                    subject,
                    events.closed(),
                    async |g: &guest::Guest, s: &mut Store<HostState>| {
                        let sink = s.data_mut().lend_list_sink(ListSink::new(push))?;
                        let rep = sink.rep();
                        let diags = g.call_list_resource(&mut *s, &wit_request, sink).await?;
                        s.data_mut().take_list_sink(wasmtime::component::Resource::new_own(rep))?;
                        Ok(diags)
                    },
                )
                .await?;
            Ok(runtime::diagnostics_from_wit(diags))
        };
        let diagnostics = run().await.unwrap_or_else(|d| d);
        if !diagnostics.is_empty() {
            let _ = events.send(ListEvent { diagnostics, ..Default::default() }).await;
        }
    }
}

/// What every item of one listing is checked against.
struct ItemTypes {
    type_name: String,
    identity: Type,
    resource: Type,
    include_resource_object: bool,
}

/// The sink's push: checks each item, sends it, and says whether the guest should go on.
/// That is false once `limit` items were sent (Terraform reads no more), after an item with
/// an error (Terraform ends the listing there), and once the consumer has gone away.
fn item_pusher(types: ItemTypes, limit: i64, events: mpsc::Sender<ListEvent>) -> runtime::PushItem {
    let mut sent: i64 = 0;
    Box::new(move |item: wit_streams::ListItem| {
        let event = list_event(&types, item);
        let failed = terrarium_model::has_errors(&event.diagnostics);
        sent += 1;
        let below_limit = limit <= 0 || sent < limit;
        let events = events.clone();
        async move { events.send(event).await.is_ok() && below_limit && !failed }.boxed()
    })
}

fn list_event(types: &ItemTypes, item: wit_streams::ListItem) -> ListEvent {
    let subject = Subject { rpc: RPC, kind: KIND, name: &types.type_name };
    let mut diagnostics = runtime::diagnostics_from_wit(item.diagnostics);
    let identity = checked_from_guest(
        subject,
        "item identity",
        item.identity,
        &types.identity,
        Knownness::WhollyKnown,
    )
    .map_err(|d| diagnostics.extend(d))
    .ok();
    let resource_object = match item.resource_object {
        // Asked for or not, an object is checked; one that was not asked for is not sent.
        Some(object) => checked_from_guest(
            subject,
            "item resource object",
            object,
            &types.resource,
            Knownness::WhollyKnown,
        )
        .map_err(|d| diagnostics.extend(d))
        .ok()
        .filter(|_| types.include_resource_object),
        None => None,
    };
    let display_name = guest_text::for_people(
        &item.display_name,
        Lines::Single,
        guest_text::MAX_DISPLAY_NAME_BYTES,
    );
    ListEvent { identity, display_name, resource_object, diagnostics }
}
