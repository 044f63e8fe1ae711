resource "random_integer" "port" {
  min = 1024
  max = 65535
}
