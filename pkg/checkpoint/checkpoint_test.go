package checkpoint

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

var t0 = time.Date(2026, 4, 18, 14, 30, 0, 0, time.FixedZone("PDT", -7*3600))

func disk(root string) safefile.Writer { return safefile.Disk{Roots: []string{root}} }

func TestSanitizeTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Auth Refactor":             "auth-refactor",
		"a - b":                     "a-b",
		"a--b":                      "a-b",
		"a\t\t b":                   "a-b",
		"line\nbreak":               "line-break", // SPEC: every whitespace, not only space and tab
		"../":                       "..",
		"../../etc/passwd":          "....etcpasswd",
		"$(rm -rf ~)":               "rm-rf-",
		"`reboot`; echo pwned":      "reboot-echo-pwned",
		"Ünïcode 日本語":               "ncode-",
		"日本語":                       Untitled,
		"":                          Untitled,
		"   ":                       "-",
		"v1.2 release":              "v1.2-release",
		"KELVIN \u212a":             "kelvin-", // ASCII lowering only, as tr does in the C locale
		strings.Repeat("ab ", 200):  strings.Repeat("ab-", 20),
		strings.Repeat("x", 500):    strings.Repeat("x", 60),
		"a\u00a0b":                  "a-b",
		"snake_case/and\\slashes":   "snakecaseandslashes",
		"MiXeD-CaSe.Title.With.Dot": "mixed-case.title.with.dot",
	} {
		if got := SanitizeTitle(in); got != want {
			t.Errorf("SanitizeTitle(%q) = %q; want %q", in, got, want)
		}
	}
}

// The sanitiser agrees with seed 002's own pipeline wherever the seed is defined (titles whose
// only whitespace is spaces and tabs).
func TestSanitizeTitleMatchesSeedPipeline(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	const alphabet = "aZ09.-_ \t/$()~`';ÄéxY"
	r := rand.New(rand.NewPCG(1, 2))
	runes := []rune(alphabet)
	for i := 0; i < 200; i++ {
		var b strings.Builder
		for j := r.IntN(90); j > 0; j-- {
			b.WriteRune(runes[r.IntN(len(runes))])
		}
		in := b.String()
		cmd := exec.Command(sh, "-c", `printf '%s' "$1" | LC_ALL=C tr '[:upper:]' '[:lower:]' | LC_ALL=C tr -s ' \t' '-' | LC_ALL=C tr -cd 'a-z0-9.-' | cut -c1-60`, "sh", in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(string(out), "\n") // cut ends its line
		if want == "" {
			want = Untitled
		}
		if got := SanitizeTitle(in); got != want {
			t.Errorf("SanitizeTitle(%q) = %q; the seed's pipeline gives %q", in, got, want)
		}
	}
}

func TestRenderExact(t *testing.T) {
	e := Entry{
		Title: "Auth refactor", Branch: "feat/auth", Time: t0,
		Duration: 5025 * time.Second, HasDuration: true,
		Files:    []string{"pkg/auth/a.go", "weird: name.go", "-dash", "true"},
		Sections: Sections{Summary: "Moving auth.", Decisions: "- JWT", Remaining: "1. tests", Notes: ""},
	}
	want := `---
status: in-progress
branch: feat/auth
timestamp: 2026-04-18T14:30:00-07:00
session_duration_s: 5025
files_modified:
  - pkg/auth/a.go
  - "weird: name.go"
  - "-dash"
  - "true"
---

## Working on: Auth refactor

### Summary

Moving auth.

### Decisions Made

- JWT

### Remaining Work

1. tests

### Notes

`
	if got := string(Render(e)); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	e.HasDuration, e.Files, e.Status = false, nil, "completed"
	got := string(Render(e))
	if strings.Contains(got, "session_duration_s") || !strings.Contains(got, "files_modified: []\n") || !strings.Contains(got, "status: completed\n") {
		t.Fatalf("%s", got)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	root := t.TempDir()
	e := Entry{
		Title: "Auth refactor: phase 2", Branch: "feat/auth", Time: t0, Status: "in-progress",
		Duration: 90 * time.Second, HasDuration: true,
		Files: []string{"a.go", "dir with space/b.go", `quote"d.go`, "ünï.go"},
		Sections: Sections{
			Summary:   "Line one.\n\n  indented\n### Summary inside\n\\### Notes escaped already",
			Decisions: "## Working on: forged\n## Notes\n- real decision",
			Remaining: "1. a\n2. b",
			Notes:     "tab\there",
		},
	}
	s, err := Save(disk(root), root, e)
	if err != nil {
		t.Fatal(err)
	}
	if want := "memory/projects/" + filepath.Base(root) + "/checkpoints/20260418-143000-auth-refactor-phase-2.md"; s.Rel != want {
		t.Fatalf("rel %q; want %q", s.Rel, want)
	}
	c, err := Load(s.Path)
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

func TestSaveCollisionsNeverOverwrite(t *testing.T) {
	root := t.TempDir()
	e := Entry{Title: "same", Branch: "main", Time: t0, Sections: Sections{Summary: "first"}}
	first, err := Save(disk(root), root, e)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(first.Path)
	seen := map[string]bool{first.Path: true}
	for i := 0; i < 5; i++ {
		e.Summary = fmt.Sprint("save ", i)
		s, err := Save(disk(root), root, e)
		if err != nil {
			t.Fatal(err)
		}
		if seen[s.Path] {
			t.Fatalf("%s saved twice", s.Path)
		}
		seen[s.Path] = true
		if base := filepath.Base(s.Path); len(base) != len("20260418-143000-same-abcd.md") || !strings.HasPrefix(base, "20260418-143000-same-") {
			t.Fatalf("collision name %s", base)
		}
	}
	if after, _ := os.ReadFile(first.Path); !bytes.Equal(before, after) {
		t.Fatal("first checkpoint overwritten")
	}
	names, _ := Names(root)
	if len(names) != 6 {
		t.Fatalf("%d checkpoints: %q", len(names), names)
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
			s, err := Save(disk(root), root, Entry{Title: "race", Time: t0, Sections: Sections{Summary: fmt.Sprint("writer ", i)}})
			paths[i], errs[i] = s.Path, err
		}()
	}
	wg.Wait()
	summaries := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		c, err := Load(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		summaries[c.Summary] = true
	}
	if len(summaries) != n {
		t.Fatalf("only %d of %d saves survived", len(summaries), n)
	}
}

func TestSaveRefusesSymlinkedDirOutside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "memory", "projects", filepath.Base(root)), 0o755)
	if err := os.Symlink(outside, Dir(root)); err != nil {
		t.Skip(err)
	}
	if _, err := Save(disk(root), root, Entry{Title: "x", Time: t0}); err == nil {
		t.Fatal("saved through a symlink leading out of the project")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("wrote outside: %v", ents)
	}
}

func TestParseTolerant(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want Checkpoint
	}{
		"bad yaml falls back to lines": {
			in: "---\nstatus: done\nbranch: feat: x\n  bad: [indent\nfiles_modified:\n  - a.go\n  - \"b c.go\"\n---\n## Working on: T\n### Summary\nS\n",
			want: Checkpoint{Status: "done", Branch: "feat: x", Files: []string{"a.go", "b c.go"}, Heading: "T",
				Sections: Sections{Summary: "S"}},
		},
		"files as a string, duration as text, level-2 headings, CRLF": {
			in: "---\r\nstatus: in-progress\r\nsession_duration_s: \"42\"\r\nfiles_modified: one.go\r\n---\r\n\r\n## Working on: X\r\n\r\n## Summary\r\nsum\r\n## Notes\r\nnote\r\n",
			want: Checkpoint{Status: "in-progress", Duration: 42 * time.Second, HasDuration: true, Files: []string{"one.go"},
				Heading: "X", Sections: Sections{Summary: "sum", Notes: "note"}},
		},
		"no frontmatter, no headings": {
			in:   "just some notes\nmore\n",
			want: Checkpoint{Sections: Sections{Summary: "just some notes\nmore"}},
		},
		"unclosed frontmatter": {
			in:   "---\nstatus: x\n",
			want: Checkpoint{Status: "x"},
		},
		"wrong types": {
			in:   "---\nstatus: [a, b]\nbranch: 123\nsession_duration_s: -5\nfiles_modified: {a: 1}\ntimestamp: nope\n---\n",
			want: Checkpoint{Branch: "123", Timestamp: "nope"},
		},
		"short section names": {
			in:   "---\n---\n### Decisions\nd\n### Next steps\nn\n### Unknown\nstill next\n",
			want: Checkpoint{Sections: Sections{Decisions: "d", Remaining: "n\n### Unknown\nstill next"}},
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
	c := Parse(Render(Entry{Time: t0}))
	if !c.Time.Equal(t0) || c.Timestamp != "2026-04-18T14:30:00-07:00" {
		t.Fatalf("%v %q", c.Time, c.Timestamp)
	}
}

func TestLoadRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "secret")
	os.WriteFile(target, []byte("secret"), 0o600)
	link := filepath.Join(dir, "20260418-143000-x.md")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Load(link); err == nil {
		t.Fatal("loaded through a symlink")
	}
}

// FuzzParse: Parse never fails or panics, and what it reads survives a save: rendering the
// parsed checkpoint and parsing that again gives the same fields.
func FuzzParse(f *testing.F) {
	f.Add(string(Render(Entry{Title: "t", Branch: "main", Time: t0, Files: []string{"a"}, Sections: Sections{Summary: "s", Notes: "### Notes"}})))
	f.Add("---\nstatus: [\n---\n### Summary\nx")
	f.Add("+++\nstatus = 'toml'\n+++\n")
	f.Add("---\nfiles_modified:\n  - \"\\x00\"\n---\n")
	f.Add("{\"status\": \"json\"}\n\nbody")
	f.Add("---\na: &a [*a]\n---\n")
	f.Fuzz(func(t *testing.T, in string) {
		c1 := Parse([]byte(in))
		e := Entry{Title: c1.Heading, Status: c1.Status, Branch: c1.Branch, Time: t0, Files: c1.Files, Event: c1.Event, Sections: c1.Sections,
			Duration: c1.Duration, HasDuration: c1.HasDuration}
		c2 := Parse(Render(e))
		if c2.Status != c1.Status && !(c1.Status == "" && c2.Status == StatusInProgress) {
			t.Fatalf("status %q → %q", c1.Status, c2.Status)
		}
		if c2.Branch != c1.Branch || c2.Event != c1.Event || c2.Duration != c1.Duration || c2.HasDuration != c1.HasDuration {
			t.Fatalf("frontmatter %+v → %+v", c1, c2)
		}
		if len(c1.Files) > maxFiles {
			c1.Files = c1.Files[:maxFiles]
		}
		if strings.Join(c2.Files, "\x00") != strings.Join(c1.Files, "\x00") {
			t.Fatalf("files %q → %q", c1.Files, c2.Files)
		}
		if c2.Sections != c1.Sections {
			t.Fatalf("sections\n%#v\n→\n%#v", c1.Sections, c2.Sections)
		}
		if want := DisplayTitle(c1.Heading); c2.Heading != want {
			t.Fatalf("heading %q → %q", want, c2.Heading)
		}
	})
}
