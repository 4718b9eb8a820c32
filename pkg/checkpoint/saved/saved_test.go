package saved

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

var t0 = time.Date(2026, 4, 18, 14, 30, 0, 0, time.FixedZone("PDT", -7*3600))

func disk(root string) safefile.Writer { return safefile.Disk{Roots: []string{root}} }

func TestSaveLoadRoundTrip(t *testing.T) {
	root := t.TempDir()
	e := checkpoint.Entry{
		Title: "Auth refactor: phase 2", Branch: "feat/auth", Time: t0, Status: "in-progress",
		Duration: 90 * time.Second, HasDuration: true,
		Files: []string{"a.go", "dir with space/b.go", `quote"d.go`, "ünï.go"},
		Sections: checkpoint.Sections{
			Summary:   "Line one.\n\n  indented\n### Summary inside\n\\### Notes escaped already",
			Decisions: "## Working on: forged\n## Notes\n- real decision",
			Remaining: "1. a\n2. b",
			Notes:     "tab\there",
		},
	}
	s, err := checkpoint.Save(disk(root), root, e)
	if err != nil {
		t.Fatal(err)
	}
	if want := "memory/projects/" + filepath.Base(root) + "/checkpoints/20260418-143000-auth-refactor-phase-2.md"; s.Rel != want {
		t.Fatalf("rel %q; want %q", s.Rel, want)
	}
	c, err := Load(root, s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "auth-refactor-phase-2" || c.Heading != "Auth refactor: phase 2" || c.Branch != "feat/auth" ||
		c.Status != "in-progress" || !c.HasDuration || c.Duration != 90*time.Second || !c.Time.Equal(t0) ||
		!c.Saved.Equal(time.Date(2026, 4, 18, 14, 30, 0, 0, time.Local)) {
		t.Fatalf("%+v", c)
	}
	if !reflect.DeepEqual(c.Files, e.Files) {
		t.Fatalf("files %q", c.Files)
	}
	if c.Sections != e.Sections {
		t.Fatalf("sections:\n%#v\nwant\n%#v", c.Sections, e.Sections)
	}
}

func TestSaveConcurrentSameSecond(t *testing.T) {
	root := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	paths := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := checkpoint.Save(disk(root), root, checkpoint.Entry{Title: "race", Time: t0, Sections: checkpoint.Sections{Summary: fmt.Sprint("writer ", i)}})
			paths[i], errs[i] = s.Path, err
		}()
	}
	wg.Wait()
	summaries := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		c, err := Load(root, paths[i])
		if err != nil {
			t.Fatal(err)
		}
		summaries[c.Summary] = true
	}
	if len(summaries) != n {
		t.Fatalf("only %d of %d saves survived", len(summaries), n)
	}
}

func TestParseTolerant(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want Checkpoint
	}{
		"bad yaml falls back to lines": {
			in: "---\nstatus: done\nbranch: feat: x\n  bad: [indent\nfiles_modified:\n  - a.go\n  - \"b c.go\"\n---\n## Working on: T\n### Summary\nS\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Status: "done", Kind: "saved", Branch: "feat: x", Files: []string{"a.go", "b c.go"}}, Heading: "T",
				Sections: checkpoint.Sections{Summary: "S"}},
		},
		"files as a string, duration as text, level-2 headings, CRLF": {
			in: "---\r\nstatus: in-progress\r\nsession_duration_s: \"42\"\r\nfiles_modified: one.go\r\n---\r\n\r\n## Working on: X\r\n\r\n## Summary\r\nsum\r\n## Notes\r\nnote\r\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Status: "in-progress", Kind: "saved", Duration: 42 * time.Second, HasDuration: true, Files: []string{"one.go"}},
				Heading: "X", Sections: checkpoint.Sections{Summary: "sum", Notes: "note"}},
		},
		"no frontmatter, no headings": {
			in:   "just some notes\nmore\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Kind: "saved"}, Sections: checkpoint.Sections{Summary: "just some notes\nmore"}},
		},
		"unclosed frontmatter": {
			in:   "---\nstatus: x\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Status: "x", Kind: "saved"}},
		},
		"wrong types": {
			in:   "---\nstatus: [a, b]\nbranch: 123\nsession_duration_s: -5\nfiles_modified: {a: 1}\ntimestamp: nope\n---\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Kind: "saved", Branch: "123", Timestamp: "nope"}},
		},
		"short section names": {
			in:   "---\n---\n### Decisions\nd\n### Next steps\nn\n### Unknown\nstill next\n",
			want: Checkpoint{Frontmatter: checkpoint.Frontmatter{Kind: "saved"}, Sections: checkpoint.Sections{Decisions: "d", Remaining: "n\n### Unknown\nstill next"}},
		},
	} {
		got := Parse([]byte(tc.in))
		got.Time = time.Time{}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, tc.want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	c := Parse(checkpoint.Render(checkpoint.Entry{Time: t0}))
	if !c.Time.Equal(t0) || c.Timestamp != "2026-04-18T14:30:00-07:00" {
		t.Fatalf("%v %q", c.Time, c.Timestamp)
	}
}

func TestLoadRefusesSymlinkOut(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "project")
	os.MkdirAll(root, 0o755)
	target := filepath.Join(dir, "secret")
	os.WriteFile(target, []byte("secret"), 0o600)
	for _, to := range []string{target, "../secret"} {
		link := filepath.Join(root, "20260418-143000-x.md")
		os.Remove(link)
		if err := os.Symlink(to, link); err != nil {
			t.Skip(err)
		}
		if _, err := Load(root, link); err == nil {
			t.Fatalf("loaded through a symlink to %s", to)
		}
	}
}

// FuzzParse: Parse never fails or panics, and what it reads survives a save: rendering the
// parsed checkpoint and parsing that again gives the same fields.
func FuzzParse(f *testing.F) {
	f.Add(string(checkpoint.Render(checkpoint.Entry{Title: "t", Branch: "main", Time: t0, Files: []string{"a"}, Sections: checkpoint.Sections{Summary: "s", Notes: "### Notes"}})))
	f.Add("---\nstatus: [\n---\n### Summary\nx")
	f.Add("+++\nstatus = 'toml'\n+++\n")
	f.Add("---\nfiles_modified:\n  - \"\\x00\"\n---\n")
	f.Add("{\"status\": \"json\"}\n\nbody")
	f.Add("---\na: &a [*a]\n---\n")
	f.Fuzz(func(t *testing.T, in string) {
		c1 := Parse([]byte(in))
		e := checkpoint.Entry{Title: c1.Heading, Status: c1.Status, Branch: c1.Branch, Time: t0, Files: c1.Files, Event: c1.Event, Sections: c1.Sections,
			Duration: c1.Duration, HasDuration: c1.HasDuration}
		c2 := Parse(checkpoint.Render(e))
		if c2.Status != c1.Status && !(c1.Status == "" && c2.Status == checkpoint.StatusInProgress) {
			t.Fatalf("status %q → %q", c1.Status, c2.Status)
		}
		if c2.Branch != c1.Branch || c2.Event != c1.Event || c2.Duration != c1.Duration || c2.HasDuration != c1.HasDuration {
			t.Fatalf("frontmatter %+v → %+v", c1, c2)
		}
		if len(c1.Files) > checkpoint.MaxFiles {
			c1.Files = c1.Files[:checkpoint.MaxFiles]
		}
		if strings.Join(c2.Files, "\x00") != strings.Join(c1.Files, "\x00") {
			t.Fatalf("files %q → %q", c1.Files, c2.Files)
		}
		if c2.Sections != c1.Sections {
			t.Fatalf("sections\n%#v\n→\n%#v", c1.Sections, c2.Sections)
		}
		if want := checkpoint.DisplayTitle(c1.Heading); c2.Heading != want {
			t.Fatalf("heading %q → %q", want, c2.Heading)
		}
	})
}

// seed writes checkpoints at t0+i minutes on the given branches and returns their paths.
func seedCheckpoints(t *testing.T, root string, specs ...[2]string) []string {
	t.Helper()
	var paths []string
	for i, s := range specs {
		saved, err := checkpoint.Save(disk(root), root, checkpoint.Entry{Title: s[0], Branch: s[1], Time: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, saved.Path)
	}
	return paths
}

func TestListNewestFirstByNameNotMtime(t *testing.T) {
	root := t.TempDir()
	paths := seedCheckpoints(t, root, [2]string{"one", "main"}, [2]string{"two", "feat"}, [2]string{"three", "main"})
	// Make the oldest the most recently modified: the order must not change.
	future := time.Now().Add(time.Hour)
	os.Chtimes(paths[0], future, future)
	os.WriteFile(filepath.Join(checkpoint.Dir(root), "README.md"), []byte("not a checkpoint"), 0o644)
	os.Mkdir(filepath.Join(checkpoint.Dir(root), "20260101-000000-dir.md"), 0o755)

	all, err := List(root, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range all {
		got = append(got, l.Title+"@"+l.Branch+"#"+string(rune('0'+l.N)))
	}
	if want := "three@main#1 two@feat#2 one@main#3"; strings.Join(got, " ") != want {
		t.Fatalf("got %v; want %s", got, want)
	}
	main, _ := List(root, "main")
	if len(main) != 2 || main[0].N != 1 || main[1].N != 3 || main[1].Title != "one" {
		t.Fatalf("branch list %+v", main)
	}
	if p, ok := checkpoint.Newest(root, t0.Add(time.Hour)); !ok || p != paths[2] {
		t.Fatalf("Newest = %s %v", p, ok)
	}
	if _, ok := checkpoint.Newest(t.TempDir(), t0); ok {
		t.Fatal("Newest in an empty project")
	}
}

// selectAt is SelectIn over the checkpoints on disk, an hour after t0.
func selectAt(root, which string) (Selection, error) {
	names, err := checkpoint.Names(root)
	if err != nil {
		return Selection{}, err
	}
	return SelectIn(root, names, which, t0.Add(time.Hour))
}

// A checkpoint dated in the future — a clone committed one dated 2099 — is never "the newest":
// not for restore without an argument, not for Newest, even after the user's own saves. It is
// still there, and still selected by its number or its name.
func TestFutureDatedIsNotNewest(t *testing.T) {
	root := t.TempDir()
	seedCheckpoints(t, root, [2]string{"mine", "main"})
	if _, err := checkpoint.Save(disk(root), root, checkpoint.Entry{Title: "forged", Branch: "main", Time: time.Date(2099, 12, 31, 0, 0, 0, 0, time.Local)}); err != nil {
		t.Fatal(err)
	}
	if s, err := selectAt(root, ""); err != nil || s.Title != "mine" {
		t.Fatalf("restore without an argument: %s %v", s.Title, err)
	}
	if p, ok := checkpoint.Newest(root, t0.Add(time.Hour)); !ok || !strings.Contains(p, "-mine.md") {
		t.Fatalf("Newest = %s", p)
	}
	if s, err := selectAt(root, "forged"); err != nil || s.Title != "forged" {
		t.Fatalf("by name: %s %v", s.Title, err)
	}
}

func TestSelect(t *testing.T) {
	root := t.TempDir()
	if _, err := selectAt(root, ""); !errors.Is(err, ErrNone) {
		t.Fatalf("empty: %v", err)
	}
	seedCheckpoints(t, root,
		[2]string{"auth refactor", "feat/auth"},
		[2]string{"api pagination", "main"},
		[2]string{"auth tests", "main"},
	)
	for _, tc := range []struct {
		which   string
		title   string
		n       int
		matches int
	}{
		{"", "auth-tests", 1, 1},
		{"1", "auth-tests", 1, 1},
		{"3", "auth-refactor", 3, 1},
		{"Auth", "auth-tests", 1, 2},
		{"auth refactor", "auth-refactor", 3, 1},
		{"PAGINATION", "api-pagination", 2, 1},
		{"20260418-1431", "api-pagination", 2, 1},
		{" 2 ", "api-pagination", 2, 1},
	} {
		s, err := selectAt(root, tc.which)
		if err != nil {
			t.Errorf("%q: %v", tc.which, err)
			continue
		}
		if s.Title != tc.title || s.N != tc.n || s.Matches != tc.matches {
			t.Errorf("%q: got %s #%d (%d matches); want %s #%d (%d)", tc.which, s.Title, s.N, s.Matches, tc.title, tc.n, tc.matches)
		}
	}
	for _, which := range []string{"4", "0", "-1", "nothing-like-it", "日本", "../"} {
		if s, err := selectAt(root, which); err == nil {
			t.Errorf("%q selected %s", which, s.Name)
		}
	}
}
