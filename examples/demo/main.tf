# The configuration `make demo` runs: both example providers, each a WebAssembly component
# served by terrarium. Nothing here knows that: it is ordinary Terraform.

terraform {
  required_providers {
    # examples/null: a drop-in replacement for the registry's hashicorp/null 2.1.2.
    null = {
      source  = "hashicorp/null"
      version = "2.1.2"
    }
    # examples/random: a provider in the spirit of hashicorp/random.
    random = {
      source  = "terrarium/random"
      version = "0.1.0"
    }
  }
}

variable "greeting" {
  type    = string
  default = "hello"
}

resource "random_string" "suffix" {
  length  = 8
  special = false
  keepers = {
    greeting = var.greeting
  }
}

resource "null_resource" "greeter" {
  # A new suffix, or a new greeting, replaces this resource.
  triggers = {
    message = "${var.greeting} from terrarium-${random_string.suffix.result}"
  }
}

data "null_data_source" "summary" {
  inputs = {
    message = null_resource.greeter.triggers.message
    id      = null_resource.greeter.id
  }
}

output "message" {
  value = data.null_data_source.summary.outputs["message"]
}

# A provider function, evaluated by the random component.
output "namespace_id" {
  value = provider::random::uuid_v5("dns", "terrarium.example")
}
