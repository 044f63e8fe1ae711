module terrarium.dev/tests/guests/slow

go 1.27.1

require terrarium.dev/sdk v0.0.0

require go.bytecodealliance.org/pkg v0.4.0 // indirect

// The SDK in this checkout, and the bindings' runtime scripts/setup puts in build/go/.
replace (
	terrarium.dev/sdk => ../../../../guest-sdk/go
	go.bytecodealliance.org/pkg v0.4.0 => ../../../../build/go/bytecodealliance-pkg-v0.4.0
)
