//! The tfplugin5 `Provider` service: any tfplugin6 service spoken over protocol 5.
//!
//! Protocol 5 is protocol 6 with older names and a smaller schema language: almost every
//! message has the same fields under the same numbers. So each call is transcoded through
//! its protobuf bytes (encode as one protocol, decode as the other) and answered by the
//! tfplugin6 service; only the messages whose fields differ are converted field by field:
//!
//! * the schema (`GetSchema`): `Schema.Attribute` has no `nested_type` in protocol 5, so
//!   `write_only` and `deprecation_message` have other numbers, and `Schema.Block` has no
//!   `computed`. A schema using nested attributes (or computed blocks) cannot be expressed:
//!   `GetSchema` then answers error diagnostics naming each one instead of a schema;
//! * `GetMetadata`: protocol 5 has no state stores, so `actions` has another number;
//! * `PrepareProviderConfig` is `ValidateProviderConfig` plus `prepared_config`, which is
//!   the configuration as given (Terrarium providers never rewrite it).
//!
//! Transcoding drops what only one side has (prost keeps no unknown fields): protocol 6's
//! `ClientCapabilities` fields 3 and 4 and `PlanResourceChange.Request.planned_private`
//! are simply absent when the request came over protocol 5, which is what they mean.

use std::pin::Pin;

use futures::{Stream, StreamExt as _};
use prost::Message;
use tonic::{Request, Response, Status};

use crate::plugin::MAX_MESSAGE_SIZE;
use terrarium_proto::tfplugin5 as v5;
use terrarium_proto::tfplugin6 as v6;
use v5::provider_server::{Provider as Provider5, ProviderServer as ProviderServer5};
use v6::provider_server::Provider as Provider6;

type Reply<T> = Result<Response<T>, Status>;
type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// The tfplugin5 service in front of the tfplugin6 service `P`.
#[derive(Clone)]
pub struct Protocol5<P> {
    protocol6: P,
}

impl<P: Provider6> Protocol5<P> {
    pub fn new(protocol6: P) -> Self {
        Protocol5 { protocol6 }
    }

    /// The tonic service with the same message limits as protocol 6's.
    pub fn into_server(self) -> ProviderServer5<Protocol5<P>> {
        ProviderServer5::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }
}

/// Re-encodes `from` as the message `To` of the other protocol. Only for message pairs whose
/// fields have the same numbers and types on both sides; a failure is a bug in that pairing.
fn transcode<From: Message, To: Message + Default>(from: From) -> Result<To, Status> {
    To::decode(from.encode_to_vec().as_slice()).map_err(|error| {
        Status::internal(format!(
            "cannot transcode {} to {}: {error}",
            std::any::type_name::<From>(),
            std::any::type_name::<To>()
        ))
    })
}

fn transcode_all<From: Message, To: Message + Default>(from: Vec<From>) -> Result<Vec<To>, Status> {
    from.into_iter().map(transcode).collect()
}

/// A request of one protocol as the other's, keeping its metadata and extensions.
fn transcode_request<From: Message, To: Message + Default>(
    request: Request<From>,
) -> Result<Request<To>, Status> {
    let (metadata, extensions, message) = request.into_parts();
    Ok(Request::from_parts(metadata, extensions, transcode(message)?))
}

/// A response of one protocol converted to the other's by `convert`, keeping its metadata.
fn convert_response<From, To>(
    response: Response<From>,
    convert: impl FnOnce(From) -> Result<To, Status>,
) -> Reply<To> {
    let (metadata, message, extensions) = response.into_parts();
    Ok(Response::from_parts(metadata, convert(message)?, extensions))
}

/// A server stream of one protocol's events as the other's, event by event.
fn transcode_stream<From, To, S>(response: Response<S>) -> Reply<EventStream<To>>
where
    From: Message + 'static,
    To: Message + Default + 'static,
    S: Stream<Item = Result<From, Status>> + Send + 'static,
{
    convert_response(response, |events| {
        let events: EventStream<To> = Box::pin(events.map(|event| event.and_then(transcode)));
        Ok(events)
    })
}

/// Writes the [`Provider5`] impl: the calls listed are transcoded both ways and answered by
/// the protocol 6 call named beside them; the rest are written out below the list.
macro_rules! protocol5_provider {
    (
        unary { $( $v5_call:ident ( $v5_msg:ident ) => $v6_call:ident ( $v6_msg:ident ) ; )* }
        streams { $( $v5_stream:ident ( $v5_stream_msg:ident ) => $v6_stream:ident, $stream_ty:ident ; )* }
    ) => {
        #[tonic::async_trait]
        impl<P: Provider6> Provider5 for Protocol5<P> {
            $(
                async fn $v5_call(&self, request: Request<v5::$v5_msg::Request>) -> Reply<v5::$v5_msg::Response> {
                    let request = transcode_request::<_, v6::$v6_msg::Request>(request)?;
                    convert_response(Provider6::$v6_call(&self.protocol6, request).await?, transcode)
                }
            )*
            $(
                type $stream_ty = EventStream<v5::$v5_stream_msg::Event>;

                async fn $v5_stream(&self, request: Request<v5::$v5_stream_msg::Request>) -> Reply<Self::$stream_ty> {
                    let request = transcode_request::<_, v6::$v5_stream_msg::Request>(request)?;
                    transcode_stream(Provider6::$v6_stream(&self.protocol6, request).await?)
                }
            )*

            async fn get_metadata(&self, request: Request<v5::get_metadata::Request>) -> Reply<v5::get_metadata::Response> {
                let request = transcode_request(request)?;
                convert_response(Provider6::get_metadata(&self.protocol6, request).await?, metadata_to_v5)
            }

            async fn get_schema(
                &self,
                request: Request<v5::get_provider_schema::Request>,
            ) -> Reply<v5::get_provider_schema::Response> {
                let request = transcode_request(request)?;
                convert_response(Provider6::get_provider_schema(&self.protocol6, request).await?, provider_schema_to_v5)
            }

            async fn prepare_provider_config(
                &self,
                request: Request<v5::prepare_provider_config::Request>,
            ) -> Reply<v5::prepare_provider_config::Response> {
                let prepared_config = request.get_ref().config.clone();
                let request = transcode_request(request)?;
                let response = Provider6::validate_provider_config(&self.protocol6, request).await?;
                convert_response(response, |validated: v6::validate_provider_config::Response| {
                    Ok(v5::prepare_provider_config::Response {
                        prepared_config,
                        diagnostics: transcode_all(validated.diagnostics)?,
                    })
                })
            }
        }
    };
}

protocol5_provider! {
    unary {
        validate_resource_type_config(validate_resource_type_config) => validate_resource_config(validate_resource_config);
        validate_data_source_config(validate_data_source_config) => validate_data_resource_config(validate_data_resource_config);
        upgrade_resource_state(upgrade_resource_state) => upgrade_resource_state(upgrade_resource_state);
        get_resource_identity_schemas(get_resource_identity_schemas) => get_resource_identity_schemas(get_resource_identity_schemas);
        upgrade_resource_identity(upgrade_resource_identity) => upgrade_resource_identity(upgrade_resource_identity);
        configure(configure) => configure_provider(configure_provider);
        read_resource(read_resource) => read_resource(read_resource);
        plan_resource_change(plan_resource_change) => plan_resource_change(plan_resource_change);
        apply_resource_change(apply_resource_change) => apply_resource_change(apply_resource_change);
        import_resource_state(import_resource_state) => import_resource_state(import_resource_state);
        move_resource_state(move_resource_state) => move_resource_state(move_resource_state);
        read_data_source(read_data_source) => read_data_source(read_data_source);
        generate_resource_config(generate_resource_config) => generate_resource_config(generate_resource_config);
        validate_ephemeral_resource_config(validate_ephemeral_resource_config) => validate_ephemeral_resource_config(validate_ephemeral_resource_config);
        open_ephemeral_resource(open_ephemeral_resource) => open_ephemeral_resource(open_ephemeral_resource);
        renew_ephemeral_resource(renew_ephemeral_resource) => renew_ephemeral_resource(renew_ephemeral_resource);
        close_ephemeral_resource(close_ephemeral_resource) => close_ephemeral_resource(close_ephemeral_resource);
        validate_list_resource_config(validate_list_resource_config) => validate_list_resource_config(validate_list_resource_config);
        get_functions(get_functions) => get_functions(get_functions);
        call_function(call_function) => call_function(call_function);
        plan_action(plan_action) => plan_action(plan_action);
        validate_action_config(validate_action_config) => validate_action_config(validate_action_config);
        stop(stop) => stop_provider(stop_provider);
    }
    streams {
        list_resource(list_resource) => list_resource, ListResourceStream;
        invoke_action(invoke_action) => invoke_action, InvokeActionStream;
    }
}

/// GetMetadata: protocol 5 has no state stores, and its `actions` is field 8 (9 in 6).
fn metadata_to_v5(
    metadata: v6::get_metadata::Response,
) -> Result<v5::get_metadata::Response, Status> {
    use v5::get_metadata as m5;
    Ok(m5::Response {
        server_capabilities: metadata.server_capabilities.map(transcode).transpose()?,
        diagnostics: transcode_all(metadata.diagnostics)?,
        data_sources: metadata
            .data_sources
            .into_iter()
            .map(|d| m5::DataSourceMetadata { type_name: d.type_name })
            .collect(),
        resources: metadata
            .resources
            .into_iter()
            .map(|r| m5::ResourceMetadata { type_name: r.type_name })
            .collect(),
        functions: metadata
            .functions
            .into_iter()
            .map(|f| m5::FunctionMetadata { name: f.name })
            .collect(),
        ephemeral_resources: metadata
            .ephemeral_resources
            .into_iter()
            .map(|e| m5::EphemeralMetadata { type_name: e.type_name })
            .collect(),
        list_resources: metadata
            .list_resources
            .into_iter()
            .map(|l| m5::ListResourceMetadata { type_name: l.type_name })
            .collect(),
        actions: metadata
            .actions
            .into_iter()
            .map(|a| m5::ActionMetadata { type_name: a.type_name })
            .collect(),
    })
}

/// What a schema belongs to, as error messages name it.
#[derive(Clone, Copy)]
enum SchemaOwner<'a> {
    Provider,
    ProviderMeta,
    /// A named schema of some kind: `resource type "files_file"`.
    Named {
        kind: &'static str,
        name: &'a str,
    },
}

impl std::fmt::Display for SchemaOwner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaOwner::Provider => write!(f, "the provider configuration"),
            SchemaOwner::ProviderMeta => write!(f, "the provider_meta schema"),
            SchemaOwner::Named { kind, name } => write!(f, "{kind} \"{name}\""),
        }
    }
}

/// What a user does to get protocol 6, for the diagnostics about what protocol 5 cannot express.
/// Protocol 5 is only spoken when forced or when Terraform offers nothing newer.
const USE_PROTOCOL_6: &str = "Use protocol 6, which Terraform 1.0 and later offer: remove TERRARIUM_PROTOCOL=5 \
     from Terraform's environment or `--protocol 5` from `terrarium serve`, whichever forces protocol 5, \
     or upgrade an older Terraform.";

/// Converts schemas to protocol 5, collecting an error diagnostic for everything protocol 5
/// cannot express.
#[derive(Default)]
struct SchemaConverter {
    inexpressible: Vec<v5::Diagnostic>,
}

impl SchemaConverter {
    fn schema(&mut self, owner: SchemaOwner<'_>, schema: v6::Schema) -> v5::Schema {
        v5::Schema {
            version: schema.version,
            block: schema.block.map(|block| self.block(owner, "", block)),
        }
    }

    /// `path` is where the block is, as dotted names ("" for the schema's own block).
    fn block(
        &mut self,
        owner: SchemaOwner<'_>,
        path: &str,
        block: v6::schema::Block,
    ) -> v5::schema::Block {
        if block.computed {
            let block_name = if path.is_empty() {
                "The root block".to_owned()
            } else {
                format!("The block \"{path}\"")
            };
            self.inexpressible(
                "Computed blocks need plugin protocol 6",
                format!(
                    "{block_name} of {owner} is computed, which Terraform's plugin protocol 5 cannot express, \
                     but this provider is being served over protocol 5. {USE_PROTOCOL_6} (Computed blocks need \
                     Terraform 1.16 or later.)"
                ),
            );
        }
        v5::schema::Block {
            version: block.version,
            attributes: block
                .attributes
                .into_iter()
                .map(|a| self.attribute(owner, path, a))
                .collect(),
            block_types: block
                .block_types
                .into_iter()
                .map(|b| self.nested_block(owner, path, b))
                .collect(),
            description: block.description,
            description_kind: block.description_kind,
            deprecated: block.deprecated,
            deprecation_message: block.deprecation_message,
        }
    }

    fn nested_block(
        &mut self,
        owner: SchemaOwner<'_>,
        parent: &str,
        nested: v6::schema::NestedBlock,
    ) -> v5::schema::NestedBlock {
        let path = join_path(parent, &nested.type_name);
        v5::schema::NestedBlock {
            block: nested.block.map(|block| self.block(owner, &path, block)),
            type_name: nested.type_name,
            // Same enum values in both protocols (protocol 5 has GROUP too).
            nesting: nested.nesting,
            min_items: nested.min_items,
            max_items: nested.max_items,
        }
    }

    fn attribute(
        &mut self,
        owner: SchemaOwner<'_>,
        parent: &str,
        attribute: v6::schema::Attribute,
    ) -> v5::schema::Attribute {
        if attribute.nested_type.is_some() {
            let path = join_path(parent, &attribute.name);
            self.inexpressible(
                "Nested attributes need plugin protocol 6",
                format!(
                    "The attribute \"{path}\" of {owner} is a nested attribute, which Terraform's plugin \
                     protocol 5 cannot express, but this provider is being served over protocol 5. \
                     {USE_PROTOCOL_6} (Or, as the provider's author, declare \"{path}\" as a nested block \
                     instead of a nested attribute.)"
                ),
            );
        }
        v5::schema::Attribute {
            name: attribute.name,
            r#type: attribute.r#type,
            description: attribute.description,
            required: attribute.required,
            optional: attribute.optional,
            computed: attribute.computed,
            sensitive: attribute.sensitive,
            description_kind: attribute.description_kind,
            deprecated: attribute.deprecated,
            write_only: attribute.write_only,
            deprecation_message: attribute.deprecation_message,
        }
    }

    fn inexpressible(&mut self, summary: &str, detail: String) {
        self.inexpressible.push(v5::Diagnostic {
            severity: v5::diagnostic::Severity::Error as i32,
            summary: summary.to_owned(),
            detail,
            attribute: None,
        });
    }

    /// Converts a map of schemas of one `kind` in name order (so the diagnostics come in a
    /// stable order).
    fn schemas<V6, V5>(
        &mut self,
        schemas: std::collections::HashMap<String, V6>,
        kind: &'static str,
        mut convert: impl FnMut(&mut Self, SchemaOwner<'_>, V6) -> V5,
    ) -> std::collections::HashMap<String, V5> {
        let mut schemas: Vec<(String, V6)> = schemas.into_iter().collect();
        schemas.sort_by(|(a, _), (b, _)| a.cmp(b));
        schemas
            .into_iter()
            .map(|(name, schema)| {
                let converted = convert(self, SchemaOwner::Named { kind, name: &name }, schema);
                (name, converted)
            })
            .collect()
    }
}

fn join_path(parent: &str, name: &str) -> String {
    if parent.is_empty() { name.to_owned() } else { format!("{parent}.{name}") }
}

/// GetProviderSchema as protocol 5's GetSchema. A schema protocol 5 cannot express is answered
/// with error diagnostics naming every attribute at fault (and the provider's own
/// diagnostics), and no schemas: Terraform stops at the errors, and a schema with parts
/// missing would only confuse what it says.
fn provider_schema_to_v5(
    schema: v6::get_provider_schema::Response,
) -> Result<v5::get_provider_schema::Response, Status> {
    let mut converter = SchemaConverter::default();
    let provider = schema.provider.map(|s| converter.schema(SchemaOwner::Provider, s));
    let provider_meta =
        schema.provider_meta.map(|s| converter.schema(SchemaOwner::ProviderMeta, s));
    let resource_schemas =
        converter.schemas(schema.resource_schemas, "resource type", SchemaConverter::schema);
    let data_source_schemas =
        converter.schemas(schema.data_source_schemas, "data source", SchemaConverter::schema);
    let ephemeral_resource_schemas = converter.schemas(
        schema.ephemeral_resource_schemas,
        "ephemeral resource type",
        SchemaConverter::schema,
    );
    let list_resource_schemas = converter.schemas(
        schema.list_resource_schemas,
        "list resource type",
        SchemaConverter::schema,
    );
    let action_schemas =
        converter.schemas(schema.action_schemas, "action", |converter, owner, action| {
            v5::ActionSchema { schema: action.schema.map(|s| converter.schema(owner, s)) }
        });
    // Protocol 6's state_store_schemas have no counterpart; Terrarium providers have none.

    let mut diagnostics: Vec<v5::Diagnostic> = transcode_all(schema.diagnostics)?;
    if !converter.inexpressible.is_empty() {
        diagnostics.extend(converter.inexpressible);
        return Ok(v5::get_provider_schema::Response { diagnostics, ..Default::default() });
    }
    Ok(v5::get_provider_schema::Response {
        provider,
        resource_schemas,
        data_source_schemas,
        functions: schema
            .functions
            .into_iter()
            .map(|(name, function)| Ok((name, transcode(function)?)))
            .collect::<Result<_, Status>>()?,
        ephemeral_resource_schemas,
        list_resource_schemas,
        action_schemas,
        diagnostics,
        provider_meta,
        server_capabilities: schema.server_capabilities.map(transcode).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use super::*;

    fn v6_attribute(name: &str, ty: &str) -> v6::schema::Attribute {
        v6::schema::Attribute {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            ..Default::default()
        }
    }

    fn v6_nested_attribute(name: &str) -> v6::schema::Attribute {
        v6::schema::Attribute {
            name: name.into(),
            nested_type: Some(v6::schema::Object {
                attributes: vec![v6_attribute("inner", "\"string\"")],
                nesting: v6::schema::object::NestingMode::List as i32,
                ..Default::default()
            }),
            optional: true,
            ..Default::default()
        }
    }

    fn v6_schema(
        attributes: Vec<v6::schema::Attribute>,
        blocks: Vec<v6::schema::NestedBlock>,
    ) -> v6::Schema {
        v6::Schema {
            version: 2,
            block: Some(v6::schema::Block {
                version: 2,
                attributes,
                block_types: blocks,
                ..Default::default()
            }),
        }
    }

    fn error(summary: &str) -> v6::Diagnostic {
        v6::Diagnostic {
            severity: v6::diagnostic::Severity::Error as i32,
            summary: summary.into(),
            ..Default::default()
        }
    }

    /// The protobuf tag of field `number` with wire type `wire_type`, as one byte (numbers < 16).
    fn tag(number: u8, wire_type: u8) -> u8 {
        (number << 3) | wire_type
    }

    #[test]
    fn attribute_flags_move_to_protocol_5_field_numbers() {
        let attribute = v6::schema::Attribute {
            write_only: true,
            deprecation_message: "use other".into(),
            sensitive: true,
            ..v6_attribute("secret", "\"string\"")
        };
        // Transcoding by bytes would read protocol 6's write_only (11, a varint) as protocol
        // 5's deprecation_message (11, a string): that is why schemas are converted by field.
        assert!(transcode::<_, v5::schema::Attribute>(attribute.clone()).is_err());

        let mut converter = SchemaConverter::default();
        let converted = converter.attribute(SchemaOwner::Provider, "", attribute);
        assert!(converter.inexpressible.is_empty());
        assert_eq!(
            converted,
            v5::schema::Attribute {
                name: "secret".into(),
                r#type: b"\"string\"".to_vec(),
                optional: true,
                sensitive: true,
                write_only: true,
                deprecation_message: "use other".into(),
                ..Default::default()
            }
        );
        let bytes = converted.encode_to_vec();
        assert!(
            bytes.windows(2).any(|w| w == [tag(10, 0), 1]),
            "write_only is field 10: {bytes:?}"
        );
        let message = [&[tag(11, 2), 9][..], b"use other"].concat();
        assert!(
            bytes.windows(message.len()).any(|w| w == message),
            "deprecation_message is field 11: {bytes:?}"
        );
    }

    #[test]
    fn provider_schema_keeps_everything_protocol_5_can_express() {
        let block = v6::schema::NestedBlock {
            type_name: "rule".into(),
            block: Some(v6::schema::Block {
                attributes: vec![v6_attribute("pattern", "\"string\"")],
                deprecated: true,
                deprecation_message: "rules are going".into(),
                ..Default::default()
            }),
            nesting: v6::schema::nested_block::NestingMode::Group as i32,
            min_items: 0,
            max_items: 1,
        };
        let function = v6::Function {
            parameters: vec![v6::function::Parameter {
                name: "x".into(),
                r#type: b"\"number\"".to_vec(),
                ..Default::default()
            }],
            r#return: Some(v6::function::Return { r#type: b"\"number\"".to_vec() }),
            summary: "doubles".into(),
            ..Default::default()
        };
        let v6_response = v6::get_provider_schema::Response {
            provider: Some(v6_schema(vec![v6_attribute("region", "\"string\"")], vec![])),
            provider_meta: Some(v6_schema(vec![v6_attribute("module", "\"string\"")], vec![])),
            resource_schemas: HashMap::from([(
                "demo_thing".into(),
                v6_schema(vec![v6_attribute("tags", "[\"map\",\"string\"]")], vec![block]),
            )]),
            data_source_schemas: HashMap::from([("demo_info".into(), v6_schema(vec![], vec![]))]),
            ephemeral_resource_schemas: HashMap::from([(
                "demo_token".into(),
                v6_schema(vec![], vec![]),
            )]),
            list_resource_schemas: HashMap::from([(
                "demo_thing".into(),
                v6_schema(vec![], vec![]),
            )]),
            action_schemas: HashMap::from([(
                "demo_poke".into(),
                v6::ActionSchema {
                    schema: Some(v6_schema(
                        vec![v6_attribute("paths", "[\"list\",\"string\"]")],
                        vec![],
                    )),
                },
            )]),
            functions: HashMap::from([("double".into(), function)]),
            diagnostics: vec![v6::Diagnostic {
                severity: v6::diagnostic::Severity::Warning as i32,
                summary: "heads up".into(),
                ..Default::default()
            }],
            server_capabilities: Some(v6::ServerCapabilities {
                plan_destroy: true,
                move_resource_state: true,
                ..Default::default()
            }),
            ..Default::default()
        };
        let v5_response = provider_schema_to_v5(v6_response).unwrap();

        assert_eq!(v5_response.diagnostics.len(), 1);
        assert_eq!(v5_response.diagnostics[0].summary, "heads up");
        assert_eq!(v5_response.diagnostics[0].severity, v5::diagnostic::Severity::Warning as i32);
        let region = &v5_response.provider.as_ref().unwrap().block.as_ref().unwrap().attributes[0];
        assert_eq!((region.name.as_str(), region.optional), ("region", true));
        assert!(v5_response.provider_meta.is_some());

        let thing = &v5_response.resource_schemas["demo_thing"];
        assert_eq!(thing.version, 2);
        let thing_block = thing.block.as_ref().unwrap();
        assert_eq!(thing_block.attributes[0].r#type, b"[\"map\",\"string\"]");
        let rule = &thing_block.block_types[0];
        assert_eq!(rule.type_name, "rule");
        assert_eq!(rule.nesting, v5::schema::nested_block::NestingMode::Group as i32);
        assert_eq!(rule.max_items, 1);
        let rule_block = rule.block.as_ref().unwrap();
        assert_eq!(rule_block.attributes[0].name, "pattern");
        assert_eq!(
            (rule_block.deprecated, rule_block.deprecation_message.as_str()),
            (true, "rules are going")
        );

        assert!(v5_response.data_source_schemas.contains_key("demo_info"));
        assert!(v5_response.ephemeral_resource_schemas.contains_key("demo_token"));
        assert!(v5_response.list_resource_schemas.contains_key("demo_thing"));
        let poke = v5_response.action_schemas["demo_poke"].schema.as_ref().unwrap();
        assert_eq!(poke.block.as_ref().unwrap().attributes[0].name, "paths");
        let double = &v5_response.functions["double"];
        assert_eq!((double.summary.as_str(), double.parameters[0].name.as_str()), ("doubles", "x"));
        assert_eq!(double.r#return.as_ref().unwrap().r#type, b"\"number\"");
        let capabilities = v5_response.server_capabilities.unwrap();
        assert!(capabilities.plan_destroy && capabilities.move_resource_state);
        assert!(!capabilities.get_provider_schema_optional);
    }

    #[test]
    fn nested_attributes_are_refused_naming_where_they_are() {
        let rule = v6::schema::NestedBlock {
            type_name: "rule".into(),
            block: Some(v6::schema::Block {
                attributes: vec![v6_nested_attribute("matches")],
                ..Default::default()
            }),
            nesting: v6::schema::nested_block::NestingMode::List as i32,
            ..Default::default()
        };
        let v6_response = v6::get_provider_schema::Response {
            provider: Some(v6_schema(vec![v6_attribute("region", "\"string\"")], vec![])),
            resource_schemas: HashMap::from([
                ("demo_b".into(), v6_schema(vec![v6_attribute("id", "\"string\"")], vec![rule])),
                ("demo_a".into(), v6_schema(vec![v6_nested_attribute("settings")], vec![])),
            ]),
            data_source_schemas: HashMap::from([(
                "demo_a".into(),
                v6_schema(vec![v6_nested_attribute("items")], vec![]),
            )]),
            diagnostics: vec![error("the provider's own error")],
            ..Default::default()
        };
        let v5_response = provider_schema_to_v5(v6_response).unwrap();

        // No schema at all: Terraform stops at the errors.
        assert!(v5_response.provider.is_none());
        assert!(
            v5_response.resource_schemas.is_empty() && v5_response.data_source_schemas.is_empty()
        );
        let errors: Vec<(&str, &str)> = v5_response
            .diagnostics
            .iter()
            .inspect(|d| assert_eq!(d.severity, v5::diagnostic::Severity::Error as i32))
            .map(|d| (d.summary.as_str(), d.detail.as_str()))
            .collect();
        assert_eq!(errors.len(), 4, "{errors:#?}");
        assert_eq!(errors[0].0, "the provider's own error");
        for (summary, _) in &errors[1..] {
            assert_eq!(*summary, "Nested attributes need plugin protocol 6");
        }
        // Resources in name order, then data sources.
        for ((_, detail), (place, owner)) in errors[1..].iter().zip([
            ("\"settings\"", "resource type \"demo_a\""),
            ("\"rule.matches\"", "resource type \"demo_b\""),
            ("\"items\"", "data source \"demo_a\""),
        ]) {
            assert!(
                detail.contains(&format!("The attribute {place} of {owner} is a nested attribute")),
                "{detail}"
            );
            assert!(detail.contains("protocol 6, which Terraform 1.0 and later offer"), "{detail}");
            assert!(detail.contains("TERRARIUM_PROTOCOL=5"), "{detail}");
            assert!(detail.contains("as a nested block instead"), "{detail}");
        }
    }

    #[test]
    fn computed_blocks_are_refused() {
        let mut schema = v6_schema(vec![], vec![]);
        if let Some(block) = schema.block.as_mut() {
            block.computed = true;
        }
        let v6_response = v6::get_provider_schema::Response {
            resource_schemas: HashMap::from([("demo_c".into(), schema)]),
            ..Default::default()
        };
        let v5_response = provider_schema_to_v5(v6_response).unwrap();
        assert!(v5_response.resource_schemas.is_empty());
        assert_eq!(v5_response.diagnostics.len(), 1);
        assert!(v5_response.diagnostics[0].detail.contains("resource type \"demo_c\" is computed"));
    }

    #[test]
    fn metadata_actions_move_to_field_8_and_state_stores_are_dropped() {
        use v6::get_metadata as m6;
        let v6_metadata = m6::Response {
            server_capabilities: Some(v6::ServerCapabilities {
                plan_destroy: true,
                ..Default::default()
            }),
            diagnostics: vec![error("e")],
            data_sources: vec![m6::DataSourceMetadata { type_name: "d".into() }],
            resources: vec![m6::ResourceMetadata { type_name: "r".into() }],
            functions: vec![m6::FunctionMetadata { name: "f".into() }],
            ephemeral_resources: vec![m6::EphemeralMetadata { type_name: "e".into() }],
            list_resources: vec![m6::ListResourceMetadata { type_name: "l".into() }],
            state_stores: vec![m6::StateStoreMetadata { type_name: "s".into() }],
            actions: vec![m6::ActionMetadata { type_name: "a".into() }],
        };
        let v5_metadata = metadata_to_v5(v6_metadata).unwrap();
        assert_eq!(
            v5_metadata.actions,
            vec![v5::get_metadata::ActionMetadata { type_name: "a".into() }]
        );
        assert_eq!(v5_metadata.resources[0].type_name, "r");
        assert_eq!(v5_metadata.data_sources[0].type_name, "d");
        assert_eq!(v5_metadata.functions[0].name, "f");
        assert_eq!(v5_metadata.ephemeral_resources[0].type_name, "e");
        assert_eq!(v5_metadata.list_resources[0].type_name, "l");
        assert_eq!(v5_metadata.diagnostics[0].summary, "e");
        assert!(v5_metadata.server_capabilities.unwrap().plan_destroy);

        // On the wire, protocol 5's actions are protocol 6's state stores (field 8).
        let as_v6: m6::Response = transcode(v5_metadata).unwrap();
        assert_eq!(as_v6.state_stores, vec![m6::StateStoreMetadata { type_name: "a".into() }]);
        assert!(as_v6.actions.is_empty());
    }

    fn client_capabilities_v5() -> Option<v5::ClientCapabilities> {
        Some(v5::ClientCapabilities { deferral_allowed: true, write_only_attributes_allowed: true })
    }

    fn value(bytes: &[u8]) -> Option<v5::DynamicValue> {
        Some(v5::DynamicValue { msgpack: bytes.to_vec(), json: Vec::new() })
    }

    fn value6(bytes: &[u8]) -> Option<v6::DynamicValue> {
        Some(v6::DynamicValue { msgpack: bytes.to_vec(), json: Vec::new() })
    }

    #[test]
    fn renamed_requests_transcode_field_for_field() {
        let capabilities6 = Some(v6::ClientCapabilities {
            deferral_allowed: true,
            write_only_attributes_allowed: true,
            ..Default::default()
        });

        let validate: v6::validate_resource_config::Request =
            transcode(v5::validate_resource_type_config::Request {
                type_name: "demo_thing".into(),
                config: value(b"\x80"),
                client_capabilities: client_capabilities_v5(),
            })
            .unwrap();
        assert_eq!(
            validate,
            v6::validate_resource_config::Request {
                type_name: "demo_thing".into(),
                config: value6(b"\x80"),
                client_capabilities: capabilities6,
            }
        );

        let validate_data: v6::validate_data_resource_config::Request =
            transcode(v5::validate_data_source_config::Request {
                type_name: "demo_info".into(),
                config: value(b"\xc0"),
            })
            .unwrap();
        assert_eq!(
            (validate_data.type_name.as_str(), validate_data.config),
            ("demo_info", value6(b"\xc0"))
        );

        let configure: v6::configure_provider::Request = transcode(v5::configure::Request {
            terraform_version: "1.15.5".into(),
            config: value(b"\x81\xa1a\x01"),
            client_capabilities: client_capabilities_v5(),
        })
        .unwrap();
        assert_eq!(configure.terraform_version, "1.15.5");
        assert_eq!(configure.config, value6(b"\x81\xa1a\x01"));
        assert!(
            configure
                .client_capabilities
                .is_some_and(|c| c.write_only_attributes_allowed && c.deferral_allowed)
        );

        let prepare: v6::validate_provider_config::Request =
            transcode(v5::prepare_provider_config::Request { config: value(b"\x80") }).unwrap();
        assert_eq!(prepare.config, value6(b"\x80"));

        let stop: v5::stop::Response =
            transcode(v6::stop_provider::Response { error: "busy".into() }).unwrap();
        assert_eq!(stop.error, "busy");
    }

    #[test]
    fn plan_request_transcodes_without_planned_private() {
        let identity =
            Some(v5::ResourceIdentityData { identity_data: value(b"\x81\xa4path\xa2/x") });
        let plan: v6::plan_resource_change::Request =
            transcode(v5::plan_resource_change::Request {
                type_name: "demo_thing".into(),
                prior_state: value(b"\xc0"),
                proposed_new_state: value(b"\x80"),
                config: value(b"\x81\xa1a\xc0"),
                prior_private: b"private".to_vec(),
                provider_meta: value(b"\xc0"),
                client_capabilities: client_capabilities_v5(),
                prior_identity: identity,
            })
            .unwrap();
        assert_eq!(
            plan,
            v6::plan_resource_change::Request {
                type_name: "demo_thing".into(),
                prior_state: value6(b"\xc0"),
                proposed_new_state: value6(b"\x80"),
                config: value6(b"\x81\xa1a\xc0"),
                prior_private: b"private".to_vec(),
                provider_meta: value6(b"\xc0"),
                client_capabilities: Some(v6::ClientCapabilities {
                    deferral_allowed: true,
                    write_only_attributes_allowed: true,
                    ..Default::default()
                }),
                prior_identity: Some(v6::ResourceIdentityData {
                    identity_data: value6(b"\x81\xa4path\xa2/x")
                }),
                planned_private: Vec::new(),
            }
        );
    }

    #[test]
    fn stream_events_transcode_item_by_item() {
        let event: v5::list_resource::Event = transcode(v6::list_resource::Event {
            identity: Some(v6::ResourceIdentityData {
                identity_data: value6(b"\x81\xa4path\xa2/x"),
            }),
            display_name: "x".into(),
            resource_object: value6(b"\x80"),
            diagnostic: vec![error("partial")],
        })
        .unwrap();
        assert_eq!(event.display_name, "x");
        assert_eq!(event.resource_object, value(b"\x80"));
        assert_eq!(event.identity.and_then(|i| i.identity_data), value(b"\x81\xa4path\xa2/x"));
        assert_eq!(event.diagnostic[0].summary, "partial");

        use v6::invoke_action::event as e6;
        let progress: v5::invoke_action::Event = transcode(v6::invoke_action::Event {
            r#type: Some(e6::Type::Progress(e6::Progress { message: "1/2".into() })),
        })
        .unwrap();
        assert_eq!(
            progress.r#type,
            Some(v5::invoke_action::event::Type::Progress(v5::invoke_action::event::Progress {
                message: "1/2".into()
            }))
        );
    }

    // ------------------------------------------------------------ over gRPC, as Terraform calls it

    /// Dials a Unix socket for tonic.
    #[derive(Clone)]
    struct UnixConnector(PathBuf);

    impl tonic::codegen::Service<tonic::codegen::http::Uri> for UnixConnector {
        type Response = hyper_util::rt::TokioIo<tokio::net::UnixStream>;
        type Error = std::io::Error;
        type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

        fn poll_ready(
            &mut self,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Self::Error>> {
            std::task::Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: tonic::codegen::http::Uri) -> Self::Future {
            let socket = self.0.clone();
            Box::pin(async move {
                Ok(hyper_util::rt::TokioIo::new(tokio::net::UnixStream::connect(socket).await?))
            })
        }
    }

    /// The protocol 5 service in front of a real [`super::super::ProviderService`] whose
    /// component failed to load (every call answers the load error), served on a Unix socket.
    async fn serve_failed_provider(
        message: &str,
    ) -> (v5::provider_client::ProviderClient<tonic::transport::Channel>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("plugin.sock");
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        let service = Protocol5::new(super::super::ProviderService::failed(message)).into_server();
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(tokio_stream::wrappers::UnixListenerStream::new(listener)),
        );
        let channel = tonic::transport::Endpoint::from_static("http://unused")
            .connect_with_connector(UnixConnector(socket))
            .await
            .unwrap();
        (v5::provider_client::ProviderClient::new(channel), dir)
    }

    fn has_load_error(diagnostics: &[v5::Diagnostic]) -> bool {
        diagnostics.iter().any(|d| {
            d.severity == v5::diagnostic::Severity::Error as i32
                && d.summary == "Failed to load the provider component"
                && d.detail.contains("no such component")
        })
    }

    #[tokio::test]
    async fn protocol_5_calls_reach_the_protocol_6_service() {
        let (mut client, _dir) = serve_failed_provider("no such component").await;

        let schema =
            client.get_schema(v5::get_provider_schema::Request {}).await.unwrap().into_inner();
        assert!(has_load_error(&schema.diagnostics), "{schema:?}");

        let config = value(b"\x81\xa6region\xa4here");
        let prepared = client
            .prepare_provider_config(v5::prepare_provider_config::Request {
                config: config.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(has_load_error(&prepared.diagnostics), "{prepared:?}");
        assert_eq!(
            prepared.prepared_config, config,
            "prepared_config is the configuration as given"
        );

        let configured = client
            .configure(v5::configure::Request {
                terraform_version: "1.15.5".into(),
                config,
                client_capabilities: client_capabilities_v5(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(has_load_error(&configured.diagnostics), "{configured:?}");

        let validated = client
            .validate_resource_type_config(v5::validate_resource_type_config::Request {
                type_name: "demo_thing".into(),
                config: value(b"\x80"),
                client_capabilities: client_capabilities_v5(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(has_load_error(&validated.diagnostics), "{validated:?}");

        let validated = client
            .validate_data_source_config(v5::validate_data_source_config::Request {
                type_name: "demo_info".into(),
                config: value(b"\x80"),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(has_load_error(&validated.diagnostics), "{validated:?}");

        let planned = client
            .plan_resource_change(v5::plan_resource_change::Request {
                type_name: "demo_thing".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(has_load_error(&planned.diagnostics), "{planned:?}");

        // A provider that never loaded has nothing to stop.
        let stopped = client.stop(v5::stop::Request {}).await.unwrap().into_inner();
        assert_eq!(stopped.error, "");
    }

    #[tokio::test]
    async fn protocol_5_streams_carry_the_protocol_6_events() {
        let (mut client, _dir) = serve_failed_provider("no such component").await;

        let mut events = client
            .list_resource(v5::list_resource::Request {
                type_name: "demo_thing".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let mut diagnostics = Vec::new();
        while let Some(event) = events.message().await.unwrap() {
            diagnostics.extend(event.diagnostic);
        }
        assert!(has_load_error(&diagnostics), "{diagnostics:?}");

        let mut events = client
            .invoke_action(v5::invoke_action::Request {
                action_type: "demo_poke".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let mut completed = None;
        while let Some(event) = events.message().await.unwrap() {
            if let Some(v5::invoke_action::event::Type::Completed(c)) = event.r#type {
                completed = Some(c);
            }
        }
        let completed = completed.expect("the action stream ends with a Completed event");
        assert!(has_load_error(&completed.diagnostics), "{completed:?}");
    }
}
