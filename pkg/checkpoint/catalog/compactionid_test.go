package catalog

import (
	"testing"
)

func TestIDRoundTrip(t *testing.T) {
	for _, id := range []CompactionID{{"abc-123", "auto", 4567}, {"s", "manual", -1}, {"s", "auto/x", 0}} {
		if got, ok := ParseCompactionID(id.String()); !ok || got != id {
			t.Errorf("%v → %q → %v %v", id, id.String(), got, ok)
		}
	}
	if s := (CompactionID{Size: -1}).String(); s != "nosession/unknown/-1" {
		t.Errorf("%q", s)
	}
	for _, bad := range []string{"", "-", "a/b/c", "abc", "/auto/1", "s/auto/"} {
		if _, ok := ParseCompactionID(bad); ok {
			t.Errorf("%q: ok", bad)
		}
	}
}
