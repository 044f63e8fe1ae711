"""guest-sdk/python/README.md, run as a newcomer would: its files written into an empty
directory, built, its tests run, installed with `terrarium install` and applied by a real
terraform. Needs the terrarium binary (TERRARIUM_BIN) and terraform (TERRAFORM); the
end-to-end suite sets both."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SDK = Path(__file__).resolve().parent.parent
README = SDK / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.S)


def run(*args, cwd, env=None, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_readme_takes_a_newcomer_from_an_empty_directory_to_terraform_apply(tmp_path):
    terrarium, terraform = os.environ.get("TERRARIUM_BIN"), os.environ.get("TERRAFORM")
    if not (terrarium and terraform):
        pytest.skip("needs TERRARIUM_BIN and TERRAFORM (the end-to-end suite sets them)")
    project = tmp_path / "notes"
    project.mkdir()
    for code in blocks("python"):
        name = re.match(r"# file: (\S+)\n", code).group(1)
        (project / name).write_text(code)

    # 1. The reader's shell: the SDK on PYTHONPATH, terrarium on PATH.
    env = {**os.environ, "PYTHONPATH": str(SDK), "PATH": f"{Path(terrarium).parent}:{os.environ['PATH']}"}
    # 3. Build it
    run(sys.executable, "-m", "terrarium.build", "provider.py", "-o", "target/notes.wasm", cwd=project, env=env)
    # 4. Test it, without terraform (pytest in a fresh process, as the reader runs it)
    run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_provider.py", cwd=project, env=env)

    # 5. Install it and apply as written (the reader answers yes to apply), with the README's
    # directory moved into this test's: nothing on the way may warn.
    notes = tmp_path / "srv-notes"
    sh = blocks("sh")
    (install,) = [b for b in sh if "terrarium install" in b]
    (apply,) = [b for b in sh if "terraform init" in b]
    (hcl,) = blocks("hcl")
    (project / "main.tf").write_text(hcl.replace("/tmp/notes", str(notes)))
    script = (install + apply).replace("/tmp/notes", str(notes))
    tf_env = {
        **env,
        "PATH": f"{Path(terrarium).parent}:{Path(terraform).parent}:{os.environ['PATH']}",
        "TF_LOG_PROVIDER": "info",
        "TF_LOG_PATH": str(tmp_path / "terraform.log"),
        "TF_CLI_ARGS_apply": "-auto-approve",
        "CHECKPOINT_DISABLE": "1",
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    tf_env.pop("TF_CLI_CONFIG_FILE", None)
    tf_env.pop("TF_IN_AUTOMATION", None)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=project, env=tf_env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"the README's install and apply failed:\n{script}\n{output}"
    warnings = [line for line in output.splitlines() if "warning" in line.lower()]
    assert not warnings, f"the README's install and apply warned {warnings}:\n{script}\n{output}"
    assert "Apply complete!" in output, output
    assert (notes / "todo").read_text() == "buy milk"
    assert "wrote a note" in (tmp_path / "terraform.log").read_text()
    work = project
    tf_env = {**tf_env, "TF_CLI_CONFIG_FILE": str(project / "notes.tfrc")}
    # Planned and applied consistently: nothing left to do.
    plan = subprocess.run([terraform, "plan", "-detailed-exitcode", "-input=false"], cwd=work, env=tf_env, capture_output=True, text=True)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    run(terraform, "destroy", "-auto-approve", "-input=false", cwd=work, env=tf_env)
    assert not (notes / "todo").exists()

    # Iterating: `terrarium dev --build ... --watch .` builds, serves, and terraform reattaches.
    (dev_command,) = [b for b in blocks("sh") if "terrarium dev" in b]
    args = shlex.split(dev_command.replace("\\\n", " ").replace("/tmp/notes", str(notes)))
    assert args[:2] == ["terrarium", "dev"]
    log = tmp_path / "dev.log"
    with open(log, "w") as stderr:
        dev = subprocess.Popen([terrarium, *args[1:]], cwd=project, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        first = dev.stdout.readline()
        assert first.startswith("export TF_REATTACH_PROVIDERS="), first + log.read_text()
        reattach = shlex.split(first.removeprefix("export TF_REATTACH_PROVIDERS="))[0]
        dev_work = tmp_path / "dev-work"
        dev_work.mkdir()
        (dev_work / "main.tf").write_text(hcl.replace("/tmp/notes", str(notes)))
        dev_env = {**tf_env, "TF_REATTACH_PROVIDERS": reattach, "TF_CLI_CONFIG_FILE": str(tmp_path / "none.tfrc")}
        (tmp_path / "none.tfrc").write_text("disable_checkpoint = true\n")
        run(terraform, "init", "-input=false", cwd=dev_work, env=dev_env)
        plan = run(terraform, "plan", "-input=false", "-no-color", cwd=dev_work, env=dev_env)
        assert "notes_note.todo will be created" in plan.stdout, plan.stdout
        assert 'mode   = "plain"' in plan.stdout, plan.stdout
        assert "building" in log.read_text()
    finally:
        dev.terminate()
        dev.wait()
