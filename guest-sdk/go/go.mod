module terrarium.dev/sdk

go 1.27.1

require go.bytecodealliance.org/pkg v0.4.0

// The bindings' runtime is not on the Go proxy: scripts/setup copies it out of the
// wit-bindgen-go crate (the generator that writes internal/wit) into build/go/.
replace go.bytecodealliance.org/pkg v0.4.0 => ../../build/go/bytecodealliance-pkg-v0.4.0
