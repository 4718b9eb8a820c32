//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// A catalog a clone committed broken — a FIFO, a link out, a huge file, a directory, text that is
// not a catalog — does not stop automatic checkpoints or hand-offs: the first handle that reads
// it moves it aside and rebuilds it from the checkpoints, says so once, and the write that
// follows is done. What a link pointed to is untouched.
func TestCatalogHeals(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(outside, []byte(`[{"file":"x"}]`), 0o644)
	for name, plant := range map[string]func(p string) error{
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"symlink": func(p string) error { return os.Symlink(outside, p) },
		"huge": func(p string) error {
			f, err := os.Create(p)
			if err == nil {
				err = f.Truncate(maxIndexSize + 1)
				f.Close()
			}
			return err
		},
		"directory": func(p string) error { return os.Mkdir(p, 0o755) },
		"garbage":   func(p string) error { return os.WriteFile(p, []byte(`{"not":"an array"}`), 0o644) },
		// What a power cut can leave of a catalog replaced without an fsync (safefile.NoSync).
		"empty": func(p string) error { return os.WriteFile(p, nil, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			makeAuto(t, root, "s1", "main", t0, 1)
			if _, err := catalogOf(disk(root), root).Handoff(HandoffInput{SessionID: "s0", Branch: "main", Now: t0.Add(time.Minute), Doing: "the lexer"}); err != nil {
				t.Fatal(err)
			}
			index := filepath.Join(root, IndexFile)
			os.Remove(index)
			if err := plant(index); err != nil {
				t.Skip(err)
			}
			var warnings []string
			p := &project.Project{Root: root, Files: safefile.Disk{Roots: []string{root}},
				Warn: func(f string, a ...any) { warnings = append(warnings, f) }}
			x := Open(p, timeline.Open(p))
			if c, ok := x.Latest(checkpoint.KindHandoff, "s0", "main"); !ok || c.Line != "the lexer" {
				t.Fatalf("the rebuilt catalog lacks the hand-off: %+v", x.Entries())
			}
			in := autoInput()
			in.SessionID, in.Event, in.Now = "s2", "s2/auto/9", t0.Add(2*time.Minute)
			if _, written, err := x.Auto(in); err != nil || !written {
				t.Fatalf("no automatic checkpoint after the repair: %v %v", written, err)
			}
			if !Open(p, timeline.Open(p)).Recorded("s2/auto/9") || !Open(p, timeline.Open(p)).Recorded("s1/auto/1") {
				t.Fatalf("the catalog on disk: %+v", Open(p, timeline.Open(p)).Entries())
			}
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "repaired: ") {
				t.Fatalf("warnings: %q", warnings)
			}
			if data, _ := os.ReadFile(outside); string(data) != `[{"file":"x"}]` {
				t.Fatalf("the link's target changed: %q", data)
			}
			if aside, _ := filepath.Glob(filepath.Join(filepath.Dir(index), ".checkpoint-events.json.broken-*")); len(aside) != 1 {
				t.Fatalf("moved aside: %v", aside)
			}
		})
	}
}
