package parking

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// editOnly is a writer whose Update reads the file and runs the edit but writes nothing: it
// times the CPU of a park without the disk.
type editOnly struct{ safefile.Writer }

func (w editOnly) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	old, err := os.ReadFile(path)
	if _, err := fn(old, err == nil); err != nil && err != safefile.ErrNoChange {
		return false, err
	}
	return true, nil
}

// BenchmarkAutoPark is what UserPromptSubmit does to park an item with 9 open: the guard's count
// (FreshBullets), then Park, on a new Store as each hook process makes one.
//
//	go test -run '^$' -bench AutoPark -benchmem ./pkg/parking/
func BenchmarkAutoPark(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	sb.WriteString("# Session context\n\n## Parked items\n\n")
	for i := range 9 {
		fmt.Fprintf(&sb, "- **item-%d** — Deferred: the theme migration for item %d. Context: we were fixing the token. Raised: 2026-03-0%d. Why: It came up mid-task. How to apply: Ask whether it is still wanted.\n", i, i, i+1)
	}
	p := sessionfile.Path(root)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(sb.String()), 0o644)
	w := editOnly{safefile.Disk{Roots: []string{root}}}
	b.ReportAllocs()
	for b.Loop() {
		s := New(root, "", w, clock)
		if n := s.FreshBullets(); n != 9 {
			b.Fatal(n)
		}
		if _, added, err := s.Park(Bullet{Summary: "User raised: Add a --verbose flag to the CLI. Pending: Which file should I look at next?", Why: "Raised while another question was open.", How: "Ask the user."}); err != nil || !added {
			b.Fatal(added, err)
		}
	}
}
