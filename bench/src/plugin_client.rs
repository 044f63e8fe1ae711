//! Playing Terraform's side of go-plugin for one provider process: started, handshaken and
//! dialled over mutual TLS by `terrarium-plugin-client` (shared with the host's integration
//! tests), then the calls the benchmarks make. Protocol 6 uses the host crate's generated
//! client; protocol 5 (the Go null provider 2.1.2) uses the few tfplugin5 messages the
//! benchmarks need, declared below (their field numbers are the same as tfplugin6's).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::bail;
use terrarium_model::{Type, Value};
use terrarium_plugin_client::LaunchedPlugin;
use terrarium_proto::plugin::Empty;
use terrarium_proto::plugin::grpc_controller_client::GrpcControllerClient;
use terrarium_proto::tfplugin6 as pb6;
use terrarium_proto::tfplugin6::provider_client::ProviderClient;
use terrarium_tfplugin::plugin;
use tokio::process::Child;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;

use crate::within;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    V5,
    V6,
}

/// How to start a provider process.
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    pub protocol: Protocol,
}

impl Launch {
    pub fn new(program: &Path, protocol: Protocol) -> Launch {
        Launch { program: program.to_path_buf(), args: vec![], env: vec![], protocol }
    }
}

/// A provider process that has printed its handshake line.
pub struct RunningPlugin {
    child: Child,
    protocol: Protocol,
    channel: Channel,
}

/// How long a start or a first schema answer may take before the run gives up: a guard against a
/// hung provider, not a measurement. A cold cache compiles the component with Cranelift, which
/// for a 30 MiB debug build takes minutes on a loaded two-core machine (the smoke run in
/// `make test` meets exactly that).
const PATIENCE: Duration = Duration::from_secs(600);

impl RunningPlugin {
    /// Starts the process as Terraform does (terrarium-plugin-client) and returns once it has
    /// printed its handshake line (the channel connects lazily, so no RPC has been made yet).
    pub async fn start(launch: &Launch) -> anyhow::Result<RunningPlugin> {
        let shared = terrarium_plugin_client::Launch {
            program: launch.program.clone(),
            args: launch.args.clone(),
            env: launch.env.clone(),
            protocol_versions: if launch.protocol == Protocol::V5 { "5" } else { "6" }.into(),
            patience: PATIENCE,
        };
        let LaunchedPlugin { child, handshake, channel } =
            terrarium_plugin_client::launch(&shared).await?;
        if handshake.network != "unix" || handshake.server_certificate.is_none() {
            bail!("{}: unexpected handshake {handshake:?}", launch.program.display());
        }
        Ok(RunningPlugin { child, protocol: launch.protocol, channel })
    }

    /// Makes the first call Terraform makes, GetProviderSchema, and waits for its answer.
    pub async fn ready(self) -> anyhow::Result<RunningPlugin> {
        match self.protocol {
            Protocol::V6 => {
                let response = within(PATIENCE, "GetProviderSchema", async {
                    Ok(ProviderClient::new(self.channel.clone())
                        .max_decoding_message_size(usize::MAX)
                        .get_provider_schema(pb6::get_provider_schema::Request {})
                        .await?)
                })
                .await?;
                errors_in(&response.get_ref().diagnostics)?;
            }
            Protocol::V5 => {
                let _: v5::Opaque =
                    within(PATIENCE, "GetSchema", self.unary_v5("GetSchema", v5::Opaque {}))
                        .await?;
            }
        }
        Ok(self)
    }

    async fn unary_v5<Req, Resp>(&self, method: &'static str, request: Req) -> anyhow::Result<Resp>
    where
        Req: prost::Message + Send + Sync + 'static,
        Resp: prost::Message + Default + Send + Sync + 'static,
    {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        grpc.ready().await?;
        let path = PathAndQuery::try_from(format!("/tfplugin5.Provider/{method}"))?;
        let response = grpc
            .unary(
                tonic::Request::new(request),
                path,
                tonic_prost::ProstCodec::<Req, Resp>::default(),
            )
            .await?;
        Ok(response.into_inner())
    }

    /// ConfigureProvider with an empty configuration (both nulls have no provider arguments).
    pub async fn configure_empty(&mut self) -> anyhow::Result<()> {
        // msgpack: an empty map, i.e. an object with no attributes.
        let config = vec![0x80];
        match self.protocol {
            Protocol::V6 => {
                let response = ProviderClient::new(self.channel.clone())
                    .configure_provider(pb6::configure_provider::Request {
                        terraform_version: "1.15.5".into(),
                        config: Some(pb6::DynamicValue { msgpack: config, json: vec![] }),
                        ..Default::default()
                    })
                    .await?;
                errors_in(&response.get_ref().diagnostics)
            }
            Protocol::V5 => {
                let response: v5::DiagnosticsOnly = self
                    .unary_v5(
                        "Configure",
                        v5::Configure {
                            terraform_version: "1.15.5".into(),
                            config: Some(v5::DynamicValue { msgpack: config, json: vec![] }),
                        },
                    )
                    .await?;
                v5_errors(&response.diagnostics)
            }
        }
    }

    /// One ReadResource call; fails unless a new state came back without errors.
    pub async fn read_resource(&mut self, type_name: &str, state: &[u8]) -> anyhow::Result<()> {
        match self.protocol {
            Protocol::V6 => {
                let response = ProviderClient::new(self.channel.clone())
                    .read_resource(pb6::read_resource::Request {
                        type_name: type_name.into(),
                        current_state: Some(pb6::DynamicValue {
                            msgpack: state.to_vec(),
                            json: vec![],
                        }),
                        ..Default::default()
                    })
                    .await?;
                errors_in(&response.get_ref().diagnostics)?;
                if response.get_ref().new_state.is_none() {
                    bail!("ReadResource returned no state");
                }
            }
            Protocol::V5 => {
                let response: v5::ReadResourceResponse = self
                    .unary_v5(
                        "ReadResource",
                        v5::ReadResourceRequest {
                            type_name: type_name.into(),
                            current_state: Some(v5::DynamicValue {
                                msgpack: state.to_vec(),
                                json: vec![],
                            }),
                        },
                    )
                    .await?;
                v5_errors(&response.diagnostics)?;
                if response.new_state.is_none() {
                    bail!("ReadResource returned no state");
                }
            }
        }
        Ok(())
    }

    /// The provider process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// ConfigureProvider with `config` (msgpack of the provider schema's object type).
    pub async fn configure(&mut self, config: Vec<u8>) -> anyhow::Result<()> {
        let response = ProviderClient::new(self.channel.clone())
            .configure_provider(pb6::configure_provider::Request {
                terraform_version: "1.15.5".into(),
                config: Some(pb6::DynamicValue { msgpack: config, json: vec![] }),
                ..Default::default()
            })
            .await?;
        errors_in(&response.get_ref().diagnostics)
    }

    /// Starts a ListResource call (protocol 6) and returns its stream of events once the
    /// response headers have arrived.
    pub async fn list_resource(
        &mut self,
        request: pb6::list_resource::Request,
    ) -> anyhow::Result<tonic::Streaming<pb6::list_resource::Event>> {
        let response = ProviderClient::new(self.channel.clone())
            .max_decoding_message_size(plugin::MAX_MESSAGE_SIZE)
            .list_resource(request)
            .await?;
        Ok(response.into_inner())
    }

    /// Starts an InvokeAction call (protocol 6) and returns its stream of events.
    pub async fn invoke_action(
        &mut self,
        request: pb6::invoke_action::Request,
    ) -> anyhow::Result<tonic::Streaming<pb6::invoke_action::Event>> {
        let response = ProviderClient::new(self.channel.clone())
            .max_decoding_message_size(plugin::MAX_MESSAGE_SIZE)
            .invoke_action(request)
            .await?;
        Ok(response.into_inner())
    }

    /// `n` ReadResource calls sent at once (each takes an instance of the provider's pool,
    /// creating one when none is idle); fails unless every one answered without errors.
    pub async fn read_resources_at_once(
        &mut self,
        type_name: &str,
        state: &[u8],
        n: usize,
    ) -> anyhow::Result<()> {
        let calls = (0..n).map(|_| {
            let mut client = ProviderClient::new(self.channel.clone());
            let request = pb6::read_resource::Request {
                type_name: type_name.into(),
                current_state: Some(pb6::DynamicValue { msgpack: state.to_vec(), json: vec![] }),
                ..Default::default()
            };
            async move {
                let response = client.read_resource(request).await?;
                errors_in(&response.get_ref().diagnostics)?;
                if response.get_ref().new_state.is_none() {
                    bail!("ReadResource returned no state");
                }
                Ok(())
            }
        });
        for result in futures::future::join_all(calls).await {
            result?;
        }
        Ok(())
    }

    /// `n` concurrent ApplyResourceChange calls on the faulty fixture's `slow` mode, each of
    /// which waits 200 ms on the host clock inside the guest.
    pub async fn slow_applies(&mut self, n: usize) -> anyhow::Result<()> {
        let ty = Type::from_json(r#"["object",{"id":"string","mode":"string","value":"string"}]"#)?;
        let object = |id: Value, value: Value| {
            Value::Object(
                [
                    ("id".to_string(), id),
                    ("mode".to_string(), Value::string("slow")),
                    ("value".to_string(), value),
                ]
                .into_iter()
                .collect(),
            )
        };
        let planned =
            terrarium_codec::encode_msgpack(&object(Value::unknown(), Value::unknown()), &ty)?;
        let config = terrarium_codec::encode_msgpack(&object(Value::Null, Value::Null), &ty)?;
        let calls = (0..n).map(|_| {
            let mut client = ProviderClient::new(self.channel.clone());
            let request = pb6::apply_resource_change::Request {
                type_name: "faulty_thing".into(),
                prior_state: Some(pb6::DynamicValue { msgpack: vec![0xc0], json: vec![] }),
                planned_state: Some(pb6::DynamicValue { msgpack: planned.clone(), json: vec![] }),
                config: Some(pb6::DynamicValue { msgpack: config.clone(), json: vec![] }),
                ..Default::default()
            };
            async move {
                let response = client.apply_resource_change(request).await?;
                errors_in(&response.get_ref().diagnostics)
            }
        });
        for result in futures::future::join_all(calls).await {
            result?;
        }
        Ok(())
    }

    /// GRPCController/Shutdown, then wait for the process (killing it after 5 s).
    pub async fn stop(mut self) {
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            GrpcControllerClient::new(self.channel.clone()).shutdown(Empty {}),
        )
        .await;
        if tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await.is_err() {
            let _ = self.child.kill().await;
        }
    }
}

fn errors_in(diags: &[pb6::Diagnostic]) -> anyhow::Result<()> {
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == pb6::diagnostic::Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        bail!("the provider answered with errors: {}", errors.join("; "))
    }
}

fn v5_errors(diags: &[v5::Diagnostic]) -> anyhow::Result<()> {
    // Severity 1 is ERROR in tfplugin5 as in tfplugin6.
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == 1)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        bail!("the Go provider answered with errors: {}", errors.join("; "))
    }
}

/// The tfplugin5 messages used here (fields the benchmarks do not need are left out; protobuf
/// skips them when decoding).
mod v5 {
    /// A message whose content is not looked at (GetSchema's request and response).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Opaque {}

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DynamicValue {
        #[prost(bytes = "vec", tag = "1")]
        pub msgpack: Vec<u8>,
        #[prost(bytes = "vec", tag = "2")]
        pub json: Vec<u8>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Diagnostic {
        #[prost(int32, tag = "1")]
        pub severity: i32,
        #[prost(string, tag = "2")]
        pub summary: String,
        #[prost(string, tag = "3")]
        pub detail: String,
    }

    /// Configure.Request{1 terraform_version; 2 config}.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Configure {
        #[prost(string, tag = "1")]
        pub terraform_version: String,
        #[prost(message, optional, tag = "2")]
        pub config: Option<DynamicValue>,
    }

    /// Configure.Response{1 diagnostics}.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DiagnosticsOnly {
        #[prost(message, repeated, tag = "1")]
        pub diagnostics: Vec<Diagnostic>,
    }

    /// ReadResource.Request{1 type_name; 2 current_state}.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ReadResourceRequest {
        #[prost(string, tag = "1")]
        pub type_name: String,
        #[prost(message, optional, tag = "2")]
        pub current_state: Option<DynamicValue>,
    }

    /// ReadResource.Response{1 new_state; 2 diagnostics}.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ReadResourceResponse {
        #[prost(message, optional, tag = "1")]
        pub new_state: Option<DynamicValue>,
        #[prost(message, repeated, tag = "2")]
        pub diagnostics: Vec<Diagnostic>,
    }
}
