package checkpoint

import (
	"testing"
)

// IsName agrees with SplitName on every kind of name, valid dates and invalid ones.
func TestIsNameMatchesSplitName(t *testing.T) {
	for _, n := range []string{
		"20260418-143000-x.md", "20240229-000000-leap.md", "20230229-000000-noleap.md", "21000229-000000-c.md",
		"20000229-235959-y2k.md", "20261301-000000-m13.md", "20261200-000000-d0.md", "20260431-000000-apr31.md",
		"20260418-240000-h24.md", "20260418-236000-m60.md", "20260418-235960-s60.md", "20260418-143000-.md",
		"20260418-143000.md", "20260418_143000-x.md", "2026041a-143000-x.md", "20260418-143000-x.txt",
		"+2026418-143000-x.md", "20260418-1430000x.md", "x.md", "", "00000101-000000-zero.md",
	} {
		_, _, want := SplitName(n)
		if got := IsName(n); got != want {
			t.Errorf("IsName(%q) = %v, SplitName says %v", n, got, want)
		}
	}
}

func FuzzIsName(f *testing.F) {
	f.Add("20260418-143000-x.md")
	f.Fuzz(func(t *testing.T, n string) {
		if _, _, want := SplitName(n); IsName(n) != want {
			t.Fatalf("IsName(%q) != %v", n, want)
		}
	})
}
