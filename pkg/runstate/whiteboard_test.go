package runstate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func snap(event string, at time.Time) Snapshot {
	var st State
	st.Set("phase", "build")
	return Snapshot{Event: event, At: at, RunID: "r1", State: st, Trigger: "auto",
		Tasks: []string{"[in progress] write the parser", "[pending] wire it"},
		Files: []string{"pkg/a.go", "pkg/b.go"}}
}

func TestRefreshCreates(t *testing.T) {
	res := RefreshWhiteboard(nil, false, snap("s/auto/1", t0))
	got := string(res.Data)
	for _, want := range []string{"# Run r1 — whiteboard\n", "event=s/auto/1 at=2026-11-29T10:00:00Z", "## Current state\n", "## Blockers\n", "  - [in progress] write the parser\n", "  - pkg/b.go\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if res.Dropped != 0 || res.Lines > WhiteboardLines {
		t.Errorf("dropped %d, lines %d", res.Dropped, res.Lines)
	}
}

// The same event keeps its recorded time, so a repeated PreCompact is byte-identical even when
// the clock has moved; a new event takes the new time.
func TestRefreshSameEventIsIdempotent(t *testing.T) {
	first := RefreshWhiteboard(nil, false, snap("s/auto/1", t0)).Data
	again := RefreshWhiteboard(first, true, snap("s/auto/1", t0.Add(time.Minute))).Data
	if !bytes.Equal(first, again) {
		t.Fatalf("same event changed the file:\n%s\n---\n%s", first, again)
	}
	next := RefreshWhiteboard(first, true, snap("s/auto/2", t0.Add(time.Minute))).Data
	if !bytes.Contains(next, []byte("at=2026-11-29T10:01:00Z")) {
		t.Fatalf("new event kept the old time:\n%s", next)
	}
}

func TestRefreshKeepsProse(t *testing.T) {
	old := "# T\n\nintro\n<!-- cairn:snapshot begin event=x at=bad -->\nold\n<!-- cairn:snapshot end -->\n\n## Current state\nkeep <!-- me -->\n"
	got := string(RefreshWhiteboard([]byte(old), true, snap("e", t0)).Data)
	if !strings.HasPrefix(got, "# T\n\nintro\n<!-- cairn:snapshot begin event=e ") || !strings.HasSuffix(got, "<!-- cairn:snapshot end -->\n\n## Current state\nkeep <!-- me -->\n") {
		t.Fatalf("prose moved:\n%s", got)
	}
	if strings.Contains(got, "\nold\n") {
		t.Fatal("old block kept")
	}
}

// A begin marker without an end runs to the next heading: replaced, not duplicated.
func TestRefreshDamagedBlock(t *testing.T) {
	old := "# T\n<!-- cairn:snapshot begin event=x at=2020-01-01T00:00:00Z -->\n- stale\n## Next\ndo it\n"
	got := string(RefreshWhiteboard([]byte(old), true, snap("e", t0)).Data)
	if strings.Count(got, beginPrefix) != 1 || strings.Contains(got, "- stale") || !strings.HasSuffix(got, "## Next\ndo it\n") {
		t.Fatalf("damaged block not repaired:\n%s", got)
	}
}

func TestRefreshCap(t *testing.T) {
	s := snap("e", t0)
	for i := 0; i < 50; i++ {
		s.Files = append(s.Files, fmt.Sprintf("f%d.go", i))
	}
	for _, prose := range []int{100, 170, 185, 195, 300} {
		var b strings.Builder
		b.WriteString("# T\n\n## Current state\n")
		for i := 0; i < prose; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		res := RefreshWhiteboard([]byte(b.String()), true, s)
		proseLines := prose + 3
		if proseLines+3 <= WhiteboardLines && res.Lines > WhiteboardLines {
			t.Errorf("prose %d: %d lines", prose, res.Lines)
		}
		if got := strings.Count(string(res.Data), "\nline "); got != prose {
			t.Errorf("prose %d: %d prose lines kept", prose, got)
		}
		if res.ProseOver != (proseLines+3 > WhiteboardLines) {
			t.Errorf("prose %d: ProseOver=%v", prose, res.ProseOver)
		}
		if prose == 100 && res.Dropped != 0 {
			t.Errorf("prose 100: dropped %d", res.Dropped)
		}
		if prose == 170 && !strings.Contains(string(res.Data), "  - … ") {
			t.Errorf("prose 170: list not shortened with a count:\n%s", res.Data)
		}
	}
}

// Values from state.json cannot break out of the block or forge headings.
func TestCleanValues(t *testing.T) {
	s := snap("e", t0)
	s.State.Set("phase", "x\n## Current state\n<!-- cairn:snapshot end -->")
	got := string(RefreshWhiteboard(nil, false, s).Data)
	if strings.Count(got, "\n## Current state") != 1 || strings.Count(got, "\n"+endMarker) != 1 {
		t.Fatalf("forged structure:\n%s", got)
	}
}

func FuzzRefresh(f *testing.F) {
	f.Add([]byte("# T\n<!-- cairn:snapshot begin event=a at=2020-01-01T00:00:00Z -->\nx\n<!-- cairn:snapshot end -->\n## Next\n"), "e")
	f.Add([]byte("<!-- cairn:snapshot begin\n<!-- cairn:snapshot begin\n"), "")
	f.Add([]byte("\r\n\r\n## a\r\n"), "x y")
	f.Fuzz(func(t *testing.T, old []byte, event string) {
		s := snap(event, t0)
		res := RefreshWhiteboard(old, true, s)
		if n := strings.Count("\n"+string(res.Data), "\n"+beginPrefix); n != 1 {
			t.Fatalf("%d blocks", n)
		}
		again := RefreshWhiteboard(res.Data, true, s)
		if !bytes.Equal(again.Data, res.Data) {
			t.Fatalf("not idempotent:\n%q\n%q", res.Data, again.Data)
		}
	})
}

// The fit is computed, not searched by re-rendering: thousands of edited files cost no more than
// fifty, and the lists stop at maxListItems with a count of the rest.
func TestFitLongLists(t *testing.T) {
	s := snap("e", t0)
	for i := 0; i < 4096; i++ {
		s.Files = append(s.Files, fmt.Sprintf("pkg/f%04d.go", i))
	}
	res := RefreshWhiteboard(nil, false, s)
	got := string(res.Data)
	if strings.Count(got, "  - pkg/") != maxListItems || !strings.Contains(got, fmt.Sprintf("  - … %d more\n", len(s.Files)-maxListItems)) || res.Lines > WhiteboardLines {
		t.Fatalf("%d lines:\n%s", res.Lines, got)
	}
	if allocs := testing.AllocsPerRun(3, func() { RefreshWhiteboard(nil, false, s) }); allocs > 2000 {
		t.Errorf("%v allocations for one refresh: the fit is re-rendering", allocs)
	}
}
