package parking

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/memindex"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// index writes the MEMORY.md of the memory dir of the given slug spelling.
func (f *fixture) index(t *testing.T, slugDir, content string) string {
	t.Helper()
	dir := filepath.Join(f.config, "projects", slugDir, "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := memindex.Path(dir)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Archiving a legacy file removes the lines of the index beside it that point at it — and only
// those: other parked items, Claude Code's own memories, prose that names the file, line endings
// and order all stay. The audit line says so and keeps the lines.
func TestArchiveRemovesPointer(t *testing.T) {
	f := newFixture(t)
	slug := project.Slug(f.root)
	gone := f.legacy(t, slug, "session-open-cache-idea-2026-03-01.md", "cache-idea", "Deferred: a cache", 3)
	f.legacy(t, slug, "session-open-kept.md", "kept", "Deferred: kept", 3)
	idx := f.index(t, slug, "# Memory index\r\n"+
		"- [Cache idea](session-open-cache-idea-2026-03-01.md) — a cache for the API\r\n"+
		"- [Kept](session-open-kept.md) — kept\r\n"+
		"- [User prefers tabs](feedback_tabs.md) — tabs, not spaces\n"+
		"Note: session-open-cache-idea-2026-03-01.md was parked by /session\r\n"+
		"- [Cache](again)](./session-open-cache-idea-2026-03-01.md \"dup\")")

	it, err := f.store.Archive("cache-idea")
	if err != nil || it.Path != gone {
		t.Fatalf("archive: %+v, %v", it, err)
	}
	if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the legacy file is still there")
	}
	want := "# Memory index\r\n" +
		"- [Kept](session-open-kept.md) — kept\r\n" +
		"- [User prefers tabs](feedback_tabs.md) — tabs, not spaces\n" +
		"Note: session-open-cache-idea-2026-03-01.md was parked by /session\r\n"
	if got := readFile(t, idx); got != want {
		t.Errorf("index:\n%q\nwant\n%q", got, want)
	}
	a := f.audit(t)
	if len(a) != 1 || a[0].Pointer != pointerRemoved ||
		a[0].PointerText != "- [Cache idea](session-open-cache-idea-2026-03-01.md) — a cache for the API\n- [Cache](again)](./session-open-cache-idea-2026-03-01.md \"dup\")" {
		t.Errorf("audit: %+v", a)
	}
}

// Expiry at 30 days, in both memory dirs, does the same; an item whose index has no line for it
// gets no pointer field, and an index without such a line is not rewritten.
func TestExpireRemovesPointer(t *testing.T) {
	f := newFixture(t)
	a, b := project.Slug(f.root), project.LegacySlug(f.root)
	f.legacy(t, a, "session-open-old.md", "old", "o", 30)
	f.legacy(t, b, "session-open-older.md", "older", "o", 45)
	f.legacy(t, b, "session-open-unlisted.md", "unlisted", "u", 31)
	f.legacy(t, a, "session-open-young.md", "young", "y", 29)
	idxA := f.index(t, a, "- [Old](session-open-old.md) — o\n- [Young](session-open-young.md) — y\n")
	idxB := f.index(t, b, "- [Older](session-open-older.md) — o\n")
	other := f.index(t, "-somewhere-else", "- [Old](session-open-old.md) — another project's\n")

	gone, err := f.store.Expire()
	if err != nil || len(gone) != 3 {
		t.Fatalf("expire: %d items, %v", len(gone), err)
	}
	if got := readFile(t, idxA); got != "- [Young](session-open-young.md) — y\n" {
		t.Errorf("index A: %q", got)
	}
	if got := readFile(t, idxB); got != "" {
		t.Errorf("index B: %q", got)
	}
	if got := readFile(t, other); got != "- [Old](session-open-old.md) — another project's\n" {
		t.Errorf("another project's index changed: %q", got)
	}
	ptr := map[string]string{}
	for _, e := range f.audit(t) {
		ptr[e.Item] = e.Pointer
	}
	if ptr["old"] != pointerRemoved || ptr["older"] != pointerRemoved || ptr["unlisted"] != "" {
		t.Errorf("pointer fields: %v", ptr)
	}

	// Nothing left to point at: the index is not rewritten.
	f.legacy(t, a, "session-open-old2.md", "old2", "o", 31)
	before, _ := os.Stat(idxA)
	time.Sleep(10 * time.Millisecond)
	if _, err := f.store.Expire(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(idxA); !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Error("an index without a pointer to the file was rewritten")
	}
}

// An index that is not UTF-8, too large, a symlink or a directory is left byte for byte as it
// is; the item is archived and logged all the same, its audit line says "unchecked", and the
// archive reports an *IndexError.
func TestIndexLeftAlone(t *testing.T) {
	for name, write := range map[string]func(t *testing.T, f *fixture, slug string) string{
		"not UTF-8": func(t *testing.T, f *fixture, slug string) string {
			return f.index(t, slug, "- [X](session-open-x.md) — \xff\n")
		},
		"too large": func(t *testing.T, f *fixture, slug string) string {
			return f.index(t, slug, "- [X](session-open-x.md)\n"+strings.Repeat("- [Y](y.md)\n", memindex.MaxSize/12+1))
		},
		"a symlink": func(t *testing.T, f *fixture, slug string) string {
			p := f.index(t, slug, "")
			real := filepath.Join(t.TempDir(), "MEMORY.md")
			os.WriteFile(real, []byte("- [X](session-open-x.md)\n"), 0o644)
			os.Remove(p)
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
			return real
		},
		"a directory": func(t *testing.T, f *fixture, slug string) string {
			p := f.index(t, slug, "")
			os.Remove(p)
			os.Mkdir(p, 0o755)
			os.WriteFile(filepath.Join(p, "x"), []byte("- [X](session-open-x.md)\n"), 0o644)
			return filepath.Join(p, "x")
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			slug := project.Slug(f.root)
			gone := f.legacy(t, slug, "session-open-x.md", "x", "d", 1)
			idx := write(t, f, slug)
			before := readFile(t, idx)
			_, err := f.store.Archive("x")
			var ie *IndexError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "may still point at session-open-x.md") {
				t.Fatalf("want an *IndexError, got %v", err)
			}
			if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
				t.Error("the legacy file is still there")
			}
			if readFile(t, idx) != before {
				t.Error("the index changed")
			}
			if a := f.audit(t); len(a) != 1 || a[0].Pointer != pointerUnchecked || a[0].Item != "x" {
				t.Errorf("audit: %+v", a)
			}
		})
	}
}

// failingIndex is a writer whose edits of MEMORY.md fail.
type failingIndex struct{ safefile.Writer }

func (w failingIndex) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	if filepath.Base(path) == memindex.Name {
		return false, errors.New("disk full")
	}
	return w.Writer.Update(path, perm, fn, opts...)
}

func (w failingIndex) Under(dirs ...string) safefile.Writer {
	return failingIndex{w.Writer.Under(dirs...)}
}

// A failed edit of the index costs neither the audit line nor the removal: it happens after both,
// comes back as an *IndexError, which Park joins to its own outcome, and a second audit line
// corrects the first.
func TestIndexFailureKeepsAuditLine(t *testing.T) {
	f := newFixture(t)
	slug := project.Slug(f.root)
	s := New(f.root, f.config, failingIndex{safefile.Disk{Roots: []string{f.root}}}, clock)
	gone := f.legacy(t, slug, "session-open-x.md", "x", "d", 1)
	idx := f.index(t, slug, "- [X](session-open-x.md)\n")
	it, err := s.Archive("x")
	var ie *IndexError
	if !errors.As(err, &ie) || it.Name != "x" || !strings.Contains(err.Error(), "disk full; it may still point at session-open-x.md") {
		t.Fatalf("archive: %+v, %v", it, err)
	}
	if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the legacy file is still there")
	}
	// The first line said removed; the second corrects it, and neither reads as a second archive.
	a := f.audit(t)
	if len(a) != 2 || a[0].Item != "x" || a[0].Pointer != pointerRemoved || a[1].Item != "x" || a[1].Action != ActionPointerKept ||
		!strings.Contains(a[1].Text, "the memory index still points at session-open-x.md: ") || IsRemoval(a[1].Action) {
		t.Errorf("audit: %+v", a)
	}
	if kept, _ := ReadAudit(f.root, func(e AuditEntry) bool { return IsRemoval(e.Action) }); len(kept) != 1 {
		t.Errorf("removals read back: %+v", kept)
	}
	if readFile(t, idx) != "- [X](session-open-x.md)\n" {
		t.Error("the index changed")
	}

	// Park expires an old file first: the index warning comes with the parked item.
	f.legacy(t, slug, "session-open-old.md", "old", "d", 40)
	f.index(t, slug, "- [Old](session-open-old.md)\n")
	pit, added, err := s.Park(Bullet{Summary: "Deferred: later. Context: now."})
	if ie, rest := IndexWarning(err); ie == nil || rest != nil || !added || pit.Slug == "" {
		t.Fatalf("park: %+v %v, %v", pit, added, err)
	}
}

// TestPointerRemovalRacesClaudeCode races cairn's removal of a pointer against Claude Code's
// own writes to the index. Claude Code takes no cairn lock: in a loop, it reads the index, adds
// a line and writes the whole file back atomically (a temp file renamed over it), or, in every
// other round, appends the line in place.
//
// What wins is the last rename. cairn reads the index again just before its rename and starts
// over when it changed (safefile.Recheck), so a write of Claude Code's that lands while cairn
// edits is kept; only one landing in the moment between that last read and cairn's rename (or
// an append to the file cairn is replacing) is lost. When Claude Code writes in a tight loop,
// cairn gives up after a few tries and the pointer stays. Claude Code's own read-modify-write
// can, in the same way, write back a pointer that cairn has just removed. cairn doctor reports
// a pointer left either way, and --fix removes it.
//
// Each round asserts what always holds: the legacy file is gone and logged; the index is never
// torn or reordered, and the lines it had before the race all survive but the pointer; once the
// writers stop, one more removal leaves no pointer and every other line. It logs how the rounds
// ended and how many of Claude Code's lines were lost: a handful in a few thousand writes here,
// where Claude Code writes every few hundred microseconds (ten times as many without the
// recheck); Claude Code writes its index when it saves a memory, seconds apart at the least.
func TestPointerRemovalRacesClaudeCode(t *testing.T) {
	rounds := 24
	if testing.Short() {
		rounds = 10
	}
	var removed, writtenBack, gaveUp, lost, total int
	for r := range rounds {
		f := newFixture(t)
		slug := project.Slug(f.root)
		gone := f.legacy(t, slug, "session-open-x.md", "x", "d", 1)
		base := "# Memory\n- [X](session-open-x.md) — parked\n- [Tabs](feedback_tabs.md) — tabs\n"
		idx := f.index(t, slug, base)

		appending := r%2 == 1
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var writes int
		wg.Add(1)
		go func() { // Claude Code
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				line := fmt.Sprintf("- [cc %d](cc_%d.md) — from Claude Code\n", k, k)
				if err := ccWrite(idx, line, appending); err != nil {
					t.Error(err)
					return
				}
				writes = k + 1
				time.Sleep(time.Duration(r%4) * 100 * time.Microsecond)
			}
		}()
		time.Sleep(time.Duration(r%3) * 200 * time.Microsecond)
		_, err := f.store.Archive("x")
		close(stop)
		wg.Wait()

		ie, other := IndexWarning(err)
		if other != nil || ie != nil && !errors.Is(ie.Errs[0], safefile.ErrChanged) {
			t.Fatalf("round %d: %v", r, err)
		}
		if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("round %d: the legacy file is still there", r)
		}
		// The archive's line says removed; when cairn gave up, a second corrects it.
		a := f.audit(t)
		if want := map[bool]int{false: 1, true: 2}[ie != nil]; len(a) != want || a[0].Pointer != pointerRemoved || len(a) == 2 && a[1].Action != ActionPointerKept {
			t.Fatalf("round %d: audit %+v", r, a)
		}

		// Never torn, never reordered: the head of the file, then Claude Code's lines in order.
		got := readFile(t, idx)
		rest, ok := strings.CutPrefix(got, "# Memory\n")
		rest, left := strings.CutPrefix(rest, "- [X](session-open-x.md) — parked\n")
		switch {
		case !left:
			removed++
		case ie != nil:
			gaveUp++
		default:
			writtenBack++
		}
		rest, ok2 := strings.CutPrefix(rest, "- [Tabs](feedback_tabs.md) — tabs\n")
		if !ok || !ok2 {
			t.Fatalf("round %d: the head of the index is damaged:\n%s", r, got)
		}
		next := 0
		for _, l := range strings.SplitAfter(rest, "\n") {
			if l == "" {
				continue
			}
			var k int
			if _, err := fmt.Sscanf(l, "- [cc %d]", &k); err != nil || k < next || !strings.HasSuffix(l, fmt.Sprintf("(cc_%d.md) — from Claude Code\n", k)) {
				t.Fatalf("round %d: torn or out of order at %q:\n%s", r, l, got)
			}
			lost += k - next
			next = k + 1
		}
		lost += writes - next
		total += writes

		// Quiet again: one more removal, as cairn doctor --fix does, leaves no pointer and
		// every line that survived.
		if _, err := memindex.Drop(f.store.Legacy, filepath.Dir(idx), func(f string) bool { return f == "session-open-x.md" }); err != nil {
			t.Fatal(err)
		}
		after := readFile(t, idx)
		if strings.Contains(after, "session-open-x.md") || after != strings.Replace(got, "- [X](session-open-x.md) — parked\n", "", 1) {
			t.Fatalf("round %d: after the race, the pointer could not be removed cleanly:\n%s", r, after)
		}
	}
	t.Logf("%d rounds: pointer removed %d, written back by Claude Code %d, left as cairn gave up %d; Claude Code lines lost %d of %d",
		rounds, removed, writtenBack, gaveUp, lost, total)
}

// ccWrite is one write of Claude Code's to the index at idx: line appended in place, or the
// whole file read, extended and renamed over the old one.
func ccWrite(idx, line string, appending bool) error {
	if appending {
		fh, err := os.OpenFile(idx, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		_, err = fh.WriteString(line)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		return err
	}
	old, err := os.ReadFile(idx)
	if err != nil {
		return err
	}
	tmp := idx + ".cc"
	if err := os.WriteFile(tmp, append(old, line...), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, idx)
}
