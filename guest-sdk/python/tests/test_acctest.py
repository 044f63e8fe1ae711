"""The acceptance-test checks on a state as `terraform show -json` gives it. (The whole
TestCase runs through a real terraform in the scaffold's test: e2e `scaffold::`.)"""

import pytest

from terrarium.acctest import AcceptanceFailure, Check, TestCase

STATE = {
    "outputs": {"greeting": {"sensitive": False, "value": "Hello, world!", "type": "string"}},
    "root_module": {
        "resources": [
            {
                "address": "pets_pet.rex",
                "values": {"id": "rex", "legs": 4, "good": True, "toys": [{"kind": "ball"}], "nick": None},
            }
        ]
    },
}


def test_attr_compares_as_json_through_lists():
    Check.attr("pets_pet.rex", "legs", 4.0)(STATE)
    Check.attr("pets_pet.rex", "toys.0.kind", "ball")(STATE)
    Check.attr("pets_pet.rex", "toys", [{"kind": "ball"}])(STATE)
    with pytest.raises(AcceptanceFailure, match=r"pets_pet.rex.legs is 4, expected 3"):
        Check.attr("pets_pet.rex", "legs", 3)(STATE)
    # true is not 1, as JSON has it.
    with pytest.raises(AcceptanceFailure, match="good is true, expected 1"):
        Check.attr("pets_pet.rex", "good", 1)(STATE)


def test_a_missing_resource_or_attribute_is_named():
    with pytest.raises(AcceptanceFailure, match="no pets_pet.tom in the state"):
        Check.attr("pets_pet.tom", "legs", 4)(STATE)
    with pytest.raises(AcceptanceFailure, match="pets_pet.rex has no toys.1.kind"):
        Check.attr("pets_pet.rex", "toys.1.kind", "ball")(STATE)


def test_attr_set_refuses_null_and_output_reads_the_outputs():
    Check.attr_set("pets_pet.rex", "id")(STATE)
    with pytest.raises(AcceptanceFailure, match="pets_pet.rex.nick is not set"):
        Check.attr_set("pets_pet.rex", "nick")(STATE)
    Check.output("greeting", "Hello, world!")(STATE)
    with pytest.raises(AcceptanceFailure, match="no output farewell"):
        Check.output("farewell", "Bye")(STATE)


def test_pytest_does_not_collect_the_test_case_class():
    assert TestCase.__test__ is False
