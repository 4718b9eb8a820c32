package timeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

func TestAppendOneLineTimeFirst(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.FixedZone("x", 3600))
	d := safefile.Disk{Roots: []string{root}}
	if err := Append(d, root, Event{Time: t0, Event: SessionStart, Session: "s1", Source: "startup"}); err != nil {
		t.Fatal(err)
	}
	if err := Append(d, root, Event{Time: t0, Event: SessionEnd, Session: "s1", Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, File))
	want := `{"ts":"2026-11-29T09:00:00Z","event":"session_start","session":"s1","source":"startup"}` + "\n" +
		`{"ts":"2026-11-29T09:00:00Z","event":"session_end","session":"s1","reason":"other"}` + "\n"
	if string(data) != want {
		t.Fatalf("%s", data)
	}
}
