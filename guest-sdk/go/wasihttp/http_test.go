package wasihttp

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	terrarium "terrarium.dev/sdk"
)

func TestOriginsAreWhatGrantsName(tt *testing.T) {
	for raw, want := range map[string]string{
		"https://api.example.com/v1?x=1":    "https://api.example.com",
		"https://api.example.com:443/v1":    "https://api.example.com",
		"http://127.0.0.1:8080/motd":        "http://127.0.0.1:8080",
		"http://[::1]:9000/":                "http://[::1]:9000",
		"http://user:secret@example.com/a":  "http://example.com",
		"https://API.example.com:8443/path": "https://API.example.com:8443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			tt.Fatal(err)
		}
		if got := origin(u); got != want {
			tt.Errorf("origin(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestADenialSaysHowToGrantTheOriginThroughHTTPClient(tt *testing.T) {
	u, _ := url.Parse("http://user:secret@127.0.0.1:8080/motd")
	// http.Client wraps a RoundTripper's error in *url.Error: the SDK finds the diagnostic in it.
	err := error(&url.Error{Op: "Get", URL: u.Redacted(), Err: httpDenied(u)})
	var d *terrarium.Diagnostic
	if !errors.As(err, &d) {
		tt.Fatalf("no diagnostic in %v", err)
	}
	for _, want := range []string{
		"run that command again with `--force --allow-http http://127.0.0.1:8080` added",
		"delete the provider's entry from .terraform.lock.hcl",
		"`terrarium grants show PACKAGE_DIR`",
		"Under `terrarium dev`, add `--allow-http http://127.0.0.1:8080` to its command.",
	} {
		if !strings.Contains(d.Detail, want) {
			tt.Errorf("the denial does not say %q:\n%s", want, d.Detail)
		}
	}
	if d.Summary != "HTTP request denied by the sandbox" || strings.Contains(d.Detail, "secret") {
		tt.Errorf("summary %q, detail %q", d.Summary, d.Detail)
	}
}

func TestNativelyTheTransportRefusesAndDefaultTransportIsGos(tt *testing.T) {
	if _, ok := http.DefaultTransport.(*http.Transport); !ok {
		tt.Fatalf("natively http.DefaultTransport should stay Go's, not %T", http.DefaultTransport)
	}
	req, _ := http.NewRequest("GET", "https://example.com/", nil)
	if _, err := (Transport{}).RoundTrip(req); err == nil || !strings.Contains(err.Error(), "only available inside a Terrarium component") {
		tt.Fatalf("native RoundTrip: %v", err)
	}
}
