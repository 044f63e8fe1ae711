//go:build wasip1

package main

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"terrarium.dev/sdk/tfprotov6adapter"
)

// The component build (GOOS=wasip1, -buildmode=c-shared): the module is a reactor, which runs
// its init functions and never main, so the provider is handed to the adapter here instead of
// to providerserver.Serve. This file and the build tag on main.go are the whole difference
// between the two builds.
func init() {
	tfprotov6adapter.Serve(providerserver.NewProtocol6(New(version)())())
}

func main() {}
