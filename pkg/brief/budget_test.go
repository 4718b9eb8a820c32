package brief

import (
	"fmt"
	"strings"
	"testing"
)

func TestBudgetFits(t *testing.T) {
	b := budget{Max: 100}
	b.Add("head\n", "")
	b.Add("body", "f.md")
	if got := b.String(); got != "head\nbody\n" {
		t.Fatalf("got %q", got)
	}
}

func TestBudgetCutsAtLinesAndSaysSo(t *testing.T) {
	var body strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&body, "line %02d\n", i)
	}
	for _, max := range []int{200, 500, 799, 9500} {
		b := budget{Max: max}
		b.Add("read these:\n", "")
		whole := b.Add(body.String(), "MEMORY.md")
		b.Add("later part\n", "later.md")
		got := b.String()
		if utf16Len(got) > max {
			t.Fatalf("max %d: %d characters", max, utf16Len(got))
		}
		if max >= 9500 {
			if !whole || strings.Contains(got, "more lines") {
				t.Fatalf("max %d: cut unexpectedly", max)
			}
			continue
		}
		kept := strings.Count(got, "line ")
		want := fmt.Sprintf("… %d more lines: see MEMORY.md\n", 100-kept)
		if !strings.Contains(got, want) {
			t.Fatalf("max %d: no notice %q in %q", max, want, got)
		}
		if !strings.HasSuffix(got, "… 1 more lines: see later.md\n") {
			t.Fatalf("max %d: later part not announced: %q", max, got)
		}
		if strings.Contains(got, "later part") {
			t.Fatalf("max %d: a lower-priority part went in after a cut", max)
		}
	}
}

func TestLenCountsUTF16(t *testing.T) {
	if utf16Len("a€😀") != 4 {
		t.Fatal(utf16Len("a€😀"))
	}
}
