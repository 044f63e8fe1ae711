resource "random_string" "suffix" {
  length  = 8
  upper   = false
  special = false
}
