//go:build !wasip1

package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// The native build: an ordinary provider binary that Terraform starts through go-plugin's
// handshake, exactly as any terraform-plugin-framework provider does.
func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "serve with support for debuggers (prints TF_REATTACH_PROVIDERS)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/terrarium/pets",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
