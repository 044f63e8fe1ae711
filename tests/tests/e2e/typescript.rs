//! Providers written in TypeScript (guest-sdk/js), built with componentize-js: the host serves
//! them like any component.

use terrarium_tests::Provider;

use crate::inspect::inspect_matches_terraform;

#[test]
fn pets_ts_inspect_matches_terraform_providers_schema() -> anyhow::Result<()> {
    inspect_matches_terraform(Provider::PetsTs)
}
