# The configuration `make demo` runs: the example providers, each a WebAssembly component
# served by terrarium (pets is written in TypeScript, the others in Rust). Nothing here knows
# that: it is ordinary Terraform.

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
    # examples/files: files, only inside the directory its grants allow (out/ here).
    files = {
      source  = "terrarium/files"
      version = "0.1.0"
    }
    # examples/pets/typescript: pets as JSON files in pets/, a provider written in TypeScript.
    pets = {
      source  = "terrarium/pets"
      version = "0.1.0"
    }
  }
}

provider "pets" {
  directory = "${abspath(path.module)}/pets"
}

# Defaults at depth (species, legs, owner.notify, toy colors), computed ids: planned by the
# host from the schema the TypeScript provider declares.
resource "pets_pet" "rex" {
  name  = "rex"
  owner = { name = "terrarium" }
  toys  = [{ kind = "ball" }]
  collar {
    size = "m"
  }
}

output "pet_greeting" {
  value = provider::pets::greeting(pets_pet.rex.name)
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

# An ephemeral resource: opened for each run, never stored in plan or state...
ephemeral "random_password" "token" {
  length  = 20
  special = false
}

# ...written to a file through a write-only attribute, also never stored. Bump
# content_wo_version to write a new password.
resource "files_file" "token" {
  filename           = "${abspath(path.module)}/out/token.txt"
  content_wo         = ephemeral.random_password.token.result
  content_wo_version = 1
}

resource "files_file" "greeting" {
  filename = "${abspath(path.module)}/out/greeting.txt"
  content  = "${data.null_data_source.summary.outputs["message"]}\n"
}
