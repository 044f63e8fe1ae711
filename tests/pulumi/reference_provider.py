"""A real Pulumi provider plugin built on the `pulumi` package's own provider server
(`pulumi.provider.main`), to check the harness against something Terrarium did not write.

The SDK's server answers GetPluginInfo, GetSchema, Configure, Invoke, Call, Construct and
Cancel; Handshake, Check, Create and the other resource RPCs are Unimplemented there (its
Provider base class is for component providers). Run as `reference_provider.py ENGINE`, as the
engine runs a plugin.
"""

import json
import sys

from pulumi.provider import main
from pulumi.provider.provider import InvokeResult, Provider

SCHEMA = {
    "name": "reference",
    "version": "0.0.1",
    "functions": {
        "reference:index/echo:echo": {
            "inputs": {"properties": {"text": {"type": "string"}}, "required": ["text"]},
            "outputs": {"properties": {"result": {"type": "string"}}, "required": ["result"]},
        }
    },
}


class Reference(Provider):
    def __init__(self):
        super().__init__("0.0.1", json.dumps(SCHEMA))

    def invoke(self, token, args):
        if token != "reference:index/echo:echo":
            raise Exception(f"unknown function {token}")
        return InvokeResult(outputs={"result": args["text"]})


if __name__ == "__main__":
    main(Reference(), sys.argv[1:])
