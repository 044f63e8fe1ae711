package terrarium

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	p "terrarium.dev/sdk/internal/wit/imports/terrarium_provider_provider"
)

type testLease struct {
	Seconds int64  `tf:"seconds"`
	Token   String `tf:"token,computed"`
}

type lease struct{ closed *[]string }

var renewAt = time.Unix(1700000000, 5)

func (lease) Open(_ context.Context, c testLease) (Opened[testLease], error) {
	if c.Seconds < 0 {
		return Opened[testLease]{}, NewError("Bad lease", "negative").At(Attr("seconds"))
	}
	c.Token = StringValue("token")
	return Opened[testLease]{Result: c, Private: []byte("p1"), RenewAt: renewAt}, nil
}

func (lease) Renew(_ context.Context, private []byte) (Renewed, error) {
	if string(private) != "p1" {
		return Renewed{}, errors.New("lost the private data: " + string(private))
	}
	return Renewed{Private: []byte("p2")}, nil
}

func (l lease) Close(_ context.Context, private []byte) error {
	*l.closed = append(*l.closed, string(private))
	return nil
}

func TestEphemeralResourcesOpenRenewAndClose(tt *testing.T) {
	var closed []string
	e := &exports{&providerDef{ephemeral: map[string]*EphemeralResourceType{}}}
	er := NewEphemeralResource[testLease]("x_lease", lease{&closed})
	e.d.ephemeral["x_lease"] = &er

	if s := e.GetSchema(); len(s.EphemeralResources) != 1 || s.EphemeralResources[0].Name != "x_lease" {
		tt.Fatalf("schema %+v", s.EphemeralResources)
	}
	if b := e.GetBehaviour(); len(b.EphemeralResources) != 1 {
		tt.Fatalf("behaviour %+v", b.EphemeralResources)
	}
	config, _ := encode(testLease{Seconds: 3, Token: StringNull()})
	opened := e.OpenEphemeralResource(p.OpenEphemeralResourceRequest{TypeName: "x_lease", Config: toWIT(config)})
	if len(opened.Diagnostics) != 0 || fromWIT(opened.Result).attr("token").text != "token" ||
		string(opened.Private.Some()) != "p1" || opened.RenewAt.Some().Seconds != 1700000000 || opened.RenewAt.Some().Nanoseconds != 5 {
		tt.Fatalf("opened %+v", opened)
	}
	renewed := e.RenewEphemeralResource("x_lease", opened.Private)
	if len(renewed.Diagnostics) != 0 || string(renewed.Private.Some()) != "p2" || !renewed.RenewAt.IsNone() {
		tt.Fatalf("renewed %+v", renewed)
	}
	if ds := e.CloseEphemeralResource("x_lease", renewed.Private); len(ds) != 0 || strings.Join(closed, ",") != "p2" {
		tt.Fatalf("close %+v, closed %v", ds, closed)
	}

	bad, _ := encode(testLease{Seconds: -1, Token: StringNull()})
	failed := e.OpenEphemeralResource(p.OpenEphemeralResourceRequest{TypeName: "x_lease", Config: toWIT(bad)})
	if len(failed.Diagnostics) != 1 || failed.Diagnostics[0].Summary != "Bad lease" {
		tt.Fatalf("failed open %+v", failed.Diagnostics)
	}
	unknown := e.CloseEphemeralResource("x_nope", witTypes.None[[]uint8]())
	if len(unknown) != 1 || !strings.Contains(unknown[0].Detail+unknown[0].Summary, "x_nope") {
		tt.Fatalf("unknown type %+v", unknown)
	}
}
