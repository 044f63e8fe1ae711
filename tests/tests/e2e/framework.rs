//! An existing terraform-plugin-framework provider as a component: examples/pets/framework
//! (the pets of examples/pets/SPEC.md on terraform-plugin-framework v1.19) built twice from the
//! same source, as an ordinary native provider binary and as a component served through
//! guest-sdk/go/tfprotov6adapter. Both go through every step of the pets conformance suite
//! with real terraform: the native build must meet the spec, and the component must show
//! exactly the same human plans, plan JSON, states and diagnostics (errors included).

use crate::pets::conformance;
use terrarium_tests::Provider;

#[test]
fn the_framework_pets_behave_the_same_natively_and_as_a_component() -> anyhow::Result<()> {
    conformance(&[Provider::PetsFrameworkNative, Provider::PetsFramework])
}
