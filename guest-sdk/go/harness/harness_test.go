package harness

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestAMaskMarksUnknownsAtEveryDepth(t *testing.T) {
	value := map[string]any{"id": nil, "name": "rex", "toys": []any{
		map[string]any{"kind": "ball", "serial": nil}, map[string]any{"kind": "bone", "serial": "s1"}}}
	mask := map[string]any{"id": true, "toys": []any{map[string]any{"serial": true}, false}}
	got := fmt.Sprint(WithUnknowns(value, mask))
	want := "map[id:(known after apply) name:rex toys:[map[kind:ball serial:(known after apply)] map[kind:bone serial:s1]]]"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if WithUnknowns("x", false) != "x" || WithUnknowns(nil, true) != Unknown {
		t.Fatal("a whole value's mask")
	}
}

func TestAnErrorIsAFailureAndAWarningIsNot(t *testing.T) {
	var answer map[string]any
	_ = json.Unmarshal([]byte(`{"diagnostics": [
		{"severity": "warning", "summary": "Old", "detail": "d", "attribute": ""},
		{"severity": "error", "summary": "Bad name", "detail": "too long", "attribute": "toys[0].kind"}]}`), &answer)
	warnings, err := split("plan", answer)
	failure, ok := err.(*Failure)
	if !ok || len(warnings) != 1 || failure.Diagnostics[0].Attribute != "toys[0].kind" {
		t.Fatalf("warnings %v, error %v", warnings, err)
	}
	if !failure.Mentions("too long") || failure.Mentions("Old") {
		t.Fatalf("Mentions: %v", failure)
	}
	if _, err := split("plan", map[string]any{}); err != nil {
		t.Fatal(err)
	}
}
