// Package wasihttp makes ordinary net/http code work in a Terrarium provider: importing it
// (`import _ "terrarium.dev/sdk/wasihttp"`, in main.go) makes http.DefaultTransport, and so
// http.DefaultClient, http.Get and every client without a Transport of its own, send its
// requests over wasi:http inside a component; a client with its own Transport takes
// wasihttp.Transport{}. It is a package of its own because net/http (with crypto/tls) adds
// about 5 MB to a component: a provider that sends no HTTP does not pay for it.
//
// Terrarium runs a provider deny-by-default:
// a request reaches the network only when the user granted its origin (scheme, host and
// port), with `terrarium install --allow-http https://api.example.com` or allow_http in the
// provider's grants file. A refused request fails with a *terrarium.Diagnostic ("HTTP request denied by
// the sandbox") that names the origin and the grant that allows it, also through the
// *url.Error that http.Client wraps it in: return the error, and Terraform shows the user what
// to do. Once Terraform has asked the provider to stop (terrarium.Stopping), no request goes out.
// Redirects are followed by http.Client, each a new request the host checks like the first.
// Outside a component (natively, in unit tests) http.DefaultTransport stays Go's own, and
// Transport fails every request.
package wasihttp

import (
	"fmt"
	"net/url"
	"strings"

	terrarium "terrarium.dev/sdk"
)

// Transport is an http.RoundTripper over wasi:http: each request goes to the host, which
// sends it only to an origin the user granted. It is http.DefaultTransport inside a
// component once this package is imported; set it as the Transport of a client that has its
// own.
type Transport struct{}

// origin is the scheme, host and port (when not the scheme's default) of u, as grants name it.
func origin(u *url.URL) string {
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" || (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		return u.Scheme + "://" + host
	}
	return u.Scheme + "://" + host + ":" + port
}

// denialRemedy is what a person does to let the provider reach origin (the Rust, Python and
// TypeScript SDKs say the same): grants are the person's, and Terraform's lock file hashes
// the package.
func denialRemedy(origin string) string {
	return "Terrarium runs providers deny-by-default, and only you grant them more. If you installed " +
		"the provider with `terrarium install`, run that command again with `--force --allow-http " + origin + "` " +
		"added (the new install replaces its grants: keep its other grant flags), then delete the " +
		"provider's entry from .terraform.lock.hcl and run `terraform init` (the package changed, so the " +
		"checksum Terraform locked for it did too). If `terraform init` installed it from a release, add " +
		"\"" + origin + "\" to allow_http in the grants file that `terrarium grants show PACKAGE_DIR` says the " +
		"provider runs with; nothing else needs to change. Under `terrarium dev`, add " +
		"`--allow-http " + origin + "` to its command."
}

// httpDenied is the diagnostic of a request the sandbox refused.
func httpDenied(u *url.URL) *terrarium.Diagnostic {
	o := origin(u)
	return terrarium.NewError("HTTP request denied by the sandbox", fmt.Sprintf(
		"the request to %s was refused by Terrarium's sandbox: the provider has no grant for %s. %s",
		u.Redacted(), o, denialRemedy(o)))
}

// httpTooLarge is the diagnostic of a response larger than the grants allow.
func httpTooLarge(u *url.URL) *terrarium.Diagnostic {
	return terrarium.NewError("HTTP response too large", fmt.Sprintf(
		"the response from %s is larger than the provider's HTTP response limit. Raise it with "+
			"`[limits] http_response = \"SIZE\"` in the provider's grants file, or reinstall with "+
			"`terrarium install --http-response SIZE`.", u.Redacted()))
}

// httpStopped is the error of a request not sent because Terraform asked the provider to stop.
func httpStopped(u *url.URL) *terrarium.Diagnostic {
	return terrarium.NewError("Operation interrupted", fmt.Sprintf(
		"the request to %s was not sent: Terraform asked the provider to stop (Ctrl-C)", u.Redacted()))
}
