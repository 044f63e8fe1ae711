output "id" {
  value = provider::random::uuid_v5("dns", "example.com")
}
