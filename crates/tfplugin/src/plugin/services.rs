//! go-plugin's own gRPC services, served beside the provider's.

use std::pin::Pin;

use futures::Stream;
use futures::StreamExt as _;
use tonic::service::Routes;
use tonic::{Request, Response, Status};
use tonic_health::ServingStatus;

use super::MAX_MESSAGE_SIZE;
use super::Shutdown;
use terrarium_proto::plugin::grpc_controller_server::{GrpcController, GrpcControllerServer};
use terrarium_proto::plugin::grpc_stdio_server::{GrpcStdio, GrpcStdioServer};
use terrarium_proto::plugin::{Empty, StdioData};

/// The health service name go-plugin's client checks (`GRPCServiceName`).
pub const HEALTH_SERVICE_NAME: &str = "plugin";

/// Adds `plugin.GRPCController`, `plugin.GRPCStdio` and `grpc.health.v1.Health`
/// (reporting [`HEALTH_SERVICE_NAME`] as SERVING) to `services`. `shutdown` is
/// triggered by `GRPCController/Shutdown` and ends the stdio streams.
///
/// `plugin.GRPCBroker` is deliberately absent: Terraform starts its stream and
/// ignores the `Unimplemented` answer.
pub async fn add_go_plugin_services(services: Routes, shutdown: &Shutdown) -> Routes {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_service_status(HEALTH_SERVICE_NAME, ServingStatus::Serving).await;

    services
        .add_service(
            GrpcControllerServer::new(Controller { shutdown: shutdown.clone() })
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        )
        .add_service(
            GrpcStdioServer::new(Stdio { shutdown: shutdown.clone() })
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        )
        .add_service(
            health_service
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        )
}

/// `plugin.GRPCController`: Terraform's way to end the plugin after each walk.
struct Controller {
    shutdown: Shutdown,
}

#[tonic::async_trait]
impl GrpcController for Controller {
    async fn shutdown(&self, _request: Request<Empty>) -> Result<Response<Empty>, Status> {
        tracing::debug!("GRPCController/Shutdown received; stopping the server");
        // The server drains gracefully, so this answer still reaches Terraform.
        self.shutdown.trigger();
        Ok(Response::new(Empty {}))
    }
}

/// `plugin.GRPCStdio`: go-plugin forwards a Go plugin's stdout/stderr through
/// it. Ours go straight to the inherited descriptors (stderr is read by
/// Terraform directly), so the stream stays open and silent until shutdown.
struct Stdio {
    shutdown: Shutdown,
}

type StdioStream = Pin<Box<dyn Stream<Item = Result<StdioData, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl GrpcStdio for Stdio {
    type StreamStdioStream = StdioStream;

    async fn stream_stdio(
        &self,
        _request: Request<()>,
    ) -> Result<Response<Self::StreamStdioStream>, Status> {
        let shutdown = self.shutdown.clone();
        // Ending at shutdown lets the graceful drain finish instead of waiting
        // on a stream that never closes.
        let stream = futures::stream::once(async move { shutdown.wait().await })
            .filter_map(|()| futures::future::ready(None));
        Ok(Response::new(Box::pin(stream)))
    }
}
