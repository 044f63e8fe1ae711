//go:build !wasip1

package wasihttp

import (
	"fmt"
	"net/http"
)

// RoundTrip fails outside a component: there is no wasi:http to send the request through.
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("HTTP through wasihttp.Transport is only available inside a Terrarium component (request to %s)",
		req.URL.Redacted())
}
