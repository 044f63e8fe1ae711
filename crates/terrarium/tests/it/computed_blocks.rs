//! Computed nested blocks (protocol 6.11, Terraform 1.16) over real gRPC against a `terrarium
//! serve` process, with `tests/guests/slow`'s `slow_network`, whose `address` block the Rust
//! SDK declares computed (`#[tf(block, computed)]`). No Terraform 1.16 can be installed here,
//! so these requests play it: a client that said `computed_blocks_allowed` is shown the block
//! marked computed; any other client (Terraform 1.15 and older, protocol 5) a computed
//! attribute of the block's type, which it can plan unknown and store (e2e
//! `conformance::a_computed_block_plans_and_applies_under_terraform_1_15`).

use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, guest};

fn slow() -> std::path::PathBuf {
    guest("slow_provider.wasm", "slow-provider")
}

async fn network_schema(p: &mut ServedProvider) -> pb::schema::Block {
    let schema = p.client.get_provider_schema(pb::get_provider_schema::Request {}).await;
    let mut schema = schema.expect("GetProviderSchema").into_inner();
    assert!(schema.diagnostics.is_empty(), "{:?}", schema.diagnostics);
    let network = schema.resource_schemas.remove("slow_network").expect("slow_network schema");
    network.block.expect("a block")
}

/// ConfigureProvider with these client capabilities (the slow provider has no configuration:
/// an empty object, msgpack 0x80).
async fn configure(p: &mut ServedProvider, client: pb::ClientCapabilities) {
    let r = p
        .client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.16.0".into(),
            config: Some(pb::DynamicValue { msgpack: vec![0x80], json: Vec::new() }),
            client_capabilities: Some(client),
        })
        .await
        .expect("ConfigureProvider")
        .into_inner();
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_allows_computed_blocks_sees_the_block_marked_computed() {
    let mut p = ServedProvider::start(&slow(), &[]).await;
    configure(
        &mut p,
        pb::ClientCapabilities { computed_blocks_allowed: true, ..Default::default() },
    )
    .await;
    let block = network_schema(&mut p).await;
    let address = block
        .block_types
        .iter()
        .find(|b| b.type_name == "address")
        .expect("address is a nested block");
    let inner = address.block.as_ref().expect("its block");
    assert!(inner.computed, "{address:?}");
    assert_eq!(address.nesting, pb::schema::nested_block::NestingMode::List as i32);
    assert!(inner.attributes.iter().any(|a| a.name == "ip" && a.computed));
    assert!(!block.attributes.iter().any(|a| a.name == "address"));
    // Only that block: the root block is not computed.
    assert!(!block.computed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_computed_blocks_sees_a_computed_attribute_of_the_block_type() {
    let mut p = ServedProvider::start(&slow(), &[]).await;
    // Terraform 1.15 sends its capabilities without the 6.11 ones; before any request
    // (GetProviderSchema comes first) the host knows nothing and shows the same.
    let before = network_schema(&mut p).await;
    configure(
        &mut p,
        pb::ClientCapabilities {
            deferral_allowed: true,
            write_only_attributes_allowed: true,
            ..Default::default()
        },
    )
    .await;
    let block = network_schema(&mut p).await;
    assert_eq!(before, block);
    assert!(!block.block_types.iter().any(|b| b.type_name == "address"), "{block:?}");
    let address =
        block.attributes.iter().find(|a| a.name == "address").expect("address is an attribute");
    assert!(address.computed && !address.optional && !address.required, "{address:?}");
    let ty: serde_json::Value = serde_json::from_slice(&address.r#type).expect("a JSON type");
    assert_eq!(
        ty,
        serde_json::json!(["list", ["object", {"ip": "string", "port": "number"}]]),
        "the block's type"
    );
}
