package parking

import (
	"fmt"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Ages are whole calendar days in the clock's location, not 24-hour periods.
func TestAgeCalendarDays(t *testing.T) {
	late := time.Date(2026, 3, 10, 0, 5, 0, 0, time.UTC)
	for date, want := range map[string]int{"2026-03-10": 0, "2026-03-09": 1, "2026-02-08": 30, "2026-03-11": 0, "bad": 0} {
		if got := ageDays(date, late); got != want {
			t.Errorf("ageDays(%s) = %d, want %d", date, got, want)
		}
	}
	// A legacy file modified at 23:30 local time yesterday is one day old at 00:05 today.
	loc := time.FixedZone("X", 5*3600)
	f := newFixture(t)
	p := f.legacy(t, "x", "session-open-a.md", "a", "a", 0)
	mt := time.Date(2026, 3, 9, 23, 30, 0, 0, loc)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	lf, ok := readLegacyFile(filepath.Dir(p), p)
	if !ok {
		t.Fatal("not read")
	}
	it := legacyItem(lf, loc)
	if it.Raised != "2026-03-09" || it.Age(time.Date(2026, 3, 10, 0, 5, 0, 0, loc)) != 1 {
		t.Fatalf("%+v", it)
	}
}

func TestLegacyFileShapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	// No frontmatter: slug from the file name (date dropped), description from the body.
	lf, ok := readLegacyFile(dir, write("session-open-my-idea-2026-01-02.md", "Just a line.\nMore.\n"))
	if !ok || lf.slug != "my-idea" || lf.name != "my-idea" || lf.desc != "Just a line." {
		t.Fatalf("%+v", lf)
	}
	// Frontmatter that is not valid YAML is read line by line.
	lf, ok = readLegacyFile(dir, write("session-open-broken.md", "---\nname: [unclosed\ndescription: Deferred: a: b\n---\nbody\n"))
	if !ok || lf.slug != "unclosed" || lf.name != "[unclosed" || lf.desc != "Deferred: a: b" {
		t.Fatalf("%+v", lf)
	}
	// An unterminated block is all body.
	lf, ok = readLegacyFile(dir, write("session-open-open.md", "---\nname: x: y\nno end\n"))
	if !ok || lf.slug != "open" || lf.desc != "---" {
		t.Fatalf("%+v", lf)
	}
	// Too large: not an item.
	if _, ok := readLegacyFile(dir, write("session-open-big.md", strings.Repeat("x", maxLegacySize+1))); ok {
		t.Fatal("read a huge file")
	}
	// Symlinks and other names are skipped by the directory reader.
	os.Symlink(filepath.Join(dir, "session-open-broken.md"), filepath.Join(dir, "session-open-link.md"))
	write("notes.md", "x")
	lfs, err := readLegacy([]string{dir, filepath.Join(dir, "missing")})
	if err != nil || len(lfs) != 3 {
		t.Fatalf("%d %v", len(lfs), err)
	}
}

// Whatever the directories and files hold, reading is bounded.
func TestReadingIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range maxLegacyFiles + 50 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("session-open-%d.md", i)), []byte("x"), 0o644)
	}
	lfs, err := readLegacy([]string{dir})
	if err != nil || len(lfs) != maxLegacyFiles {
		t.Fatalf("%d %v", len(lfs), err)
	}
	f := newFixture(t)
	f.write(t, "## Parked items\n\n- **x** — y\n"+strings.Repeat("z", sessionfile.MaxSize))
	if _, err := f.store.List(); err == nil || !strings.Contains(err.Error(), "refusing to read it") {
		t.Fatal(err)
	}
	if _, err := f.store.Expire(); err == nil {
		t.Fatal("expired from a huge file")
	}
}
