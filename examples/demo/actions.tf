# An action, run only when asked for: terraform apply -invoke=action.files_touch.stamp
# (Terraform 1.14+; `make demo` leaves this file out for OpenTofu, which has no actions).
action "files_touch" "stamp" {
  config {
    paths = ["${abspath(path.module)}/out/stamp"]
  }
}
