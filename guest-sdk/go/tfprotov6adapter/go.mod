module terrarium.dev/sdk/tfprotov6adapter

go 1.27.1

require (
	github.com/hashicorp/terraform-plugin-go v0.31.0
	go.bytecodealliance.org/pkg v0.4.0
	terrarium.dev/sdk v0.0.0
)

require (
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
)

// The SDK in this checkout (for its generated WIT bindings: terrarium.dev/sdk/internal/wit
// may be imported here, as this module's path is inside the SDK's), and the bindings'
// runtime scripts/setup puts in build/go/.
replace (
	go.bytecodealliance.org/pkg v0.4.0 => ../../../build/go/bytecodealliance-pkg-v0.4.0
	terrarium.dev/sdk => ../
)
