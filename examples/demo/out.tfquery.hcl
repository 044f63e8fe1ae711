# `terraform query` reads this file: list every file in out/ with its identity, streamed from the
# files component (examples/files/src/list.rs).
list "files_file" "out" {
  provider = files
  config {
    directory = "${abspath(path.module)}/out"
  }
}
