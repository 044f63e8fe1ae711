terraform {
  required_providers {
    random = {
      source = "terrarium/random"
    }
  }
}

provider "random" {}
