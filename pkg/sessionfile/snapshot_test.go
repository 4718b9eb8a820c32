package sessionfile

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestRefreshKeepsParkedItemsByteForByte(t *testing.T) {
	parked := "## Parked items\n\n- **a-b** — Deferred: x. Context: y. Raised: 2026-11-01. Why: z. How to apply: w.\r\n- hand written * bullet --- odd\n"
	old := "# Session context\n\nsome prose\n\n" + parked
	s := Snapshot{Event: "s/auto/10", At: t0, SessionID: "s", Trigger: "auto", Branch: "main", Tasks: []string{"[pending] t"}, Files: []string{"a.go"}}
	got := Refresh([]byte(old), true, s)
	if !bytes.HasSuffix(got, []byte(parked)) {
		t.Fatalf("parked items changed:\n%s", got)
	}
	if !bytes.HasPrefix(got, []byte("# Session context\n\n"+Markers.Begin+" event=s/auto/10 at=2026-11-29T10:00:00Z -->\n")) {
		t.Fatalf("block not after the title:\n%s", got)
	}
	// Same event, later clock: byte-identical. New event: new time, parked items still intact.
	if again := Refresh(got, true, Snapshot{Event: "s/auto/10", At: t0.Add(time.Hour), SessionID: "s", Trigger: "auto", Branch: "main", Tasks: []string{"[pending] t"}, Files: []string{"a.go"}}); !bytes.Equal(again, got) {
		t.Fatalf("repeat changed the file:\n%s\n---\n%s", got, again)
	}
	next := Refresh(got, true, Snapshot{Event: "s/auto/20", At: t0.Add(time.Hour), SessionID: "s"})
	if !bytes.Contains(next, []byte("at=2026-11-29T11:00:00Z")) || !bytes.HasSuffix(next, []byte(parked)) || bytes.Count(next, []byte(Markers.Begin)) != 1 {
		t.Fatalf("refresh:\n%s", next)
	}
}

func TestRefreshCreates(t *testing.T) {
	got := string(Refresh(nil, false, Snapshot{Event: "e", At: t0}))
	if !strings.HasPrefix(got, "# Session context\n\n"+Markers.Begin) || !strings.HasSuffix(got, Markers.End+"\n\n## Parked items\n") {
		t.Fatalf("%s", got)
	}
	if !strings.Contains(got, "- Open tasks: none\n") {
		t.Fatalf("%s", got)
	}
}

func TestListsBounded(t *testing.T) {
	var files []string
	for i := 0; i < 100; i++ {
		files = append(files, "f.go\n## Forged")
	}
	got := string(Refresh(nil, false, Snapshot{Event: "e", At: t0, Files: files}))
	if strings.Count(got, "  - f.go") != maxItems || !strings.Contains(got, "  - … 70 more\n") || strings.Contains(got, "\n## Forged") {
		t.Fatalf("%s", got)
	}
}

func TestEvent(t *testing.T) {
	if ev := Event(Refresh(nil, false, Snapshot{Event: "abc-123/auto/4567", At: t0})); ev != "abc-123/auto/4567" {
		t.Fatalf("%q", ev)
	}
	for _, bad := range []string{"", "# x\n"} {
		if ev := Event([]byte(bad)); ev != "" {
			t.Errorf("%q: %q", bad, ev)
		}
	}
}
