"""PrivateState: the bytes Terraform keeps beside a state, as the SDK reads and writes them."""

import json

from terrarium import PrivateState


def test_entries_set_are_stored_as_a_json_object_and_read_back():
    first = PrivateState()
    assert first.encode() == b"", "nothing set: nothing stored"
    first["created"] = 1
    stored = first.encode()
    assert json.loads(stored) == {"created": 1}
    again = PrivateState(stored)
    assert again["created"] == 1
    again["reads"] = again.get("reads", 0) + 1
    assert json.loads(again.encode()) == {"created": 1, "reads": 1}
    again.clear()
    assert again.encode() == b"", "every entry removed: nothing stored"


def test_a_change_inside_a_nested_value_is_stored():
    private = PrivateState(b'{"counts":{"reads":1}}')
    private["counts"]["reads"] = 2
    assert json.loads(private.encode()) == {"counts": {"reads": 2}}


def test_bytes_that_are_not_a_json_object_are_kept_unless_an_entry_is_set():
    foreign = b"\x00another SDK"
    kept = PrivateState(foreign)
    assert dict(kept) == {}
    assert kept.encode() == foreign
    kept["x"] = True
    assert json.loads(kept.encode()) == {"x": True}
