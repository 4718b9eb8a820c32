package checkpoint

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
		"line\nbreak":               "line-break", // every whitespace, not only space and tab
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

var update = flag.Bool("update", false, "rewrite testdata/sanitize-title.golden by running the original /context-save title pipeline")

// The sanitiser agrees with the original /context-save workflow's own title pipeline (tr,
// tr -s, cut -c1-60; see writeSeedGolden) wherever that pipeline is defined (titles whose only
// whitespace is spaces and tabs). The pipeline's answers for 200 random titles are kept in
// testdata/sanitize-title.golden; -update runs the pipeline again (it needs sh, tr and cut).
func TestSanitizeTitleMatchesSeedPipeline(t *testing.T) {
	const golden = "testdata/sanitize-title.golden"
	if *update {
		writeSeedGolden(t, golden)
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		inQ, wantQ, ok := strings.Cut(l, "\t")
		in, err1 := strconv.Unquote(inQ)
		want, err2 := strconv.Unquote(wantQ)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad golden line %q", l)
		}
		if got := SanitizeTitle(in); got != want {
			t.Errorf("SanitizeTitle(%q) = %q; the original pipeline gives %q", in, got, want)
		}
		n++
	}
	if n != 200 {
		t.Fatalf("%d golden titles, want 200", n)
	}
}

// writeSeedGolden runs the original /context-save title pipeline on 200 random titles and records
// its answers.
func writeSeedGolden(t *testing.T, golden string) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("-update needs sh")
	}
	const alphabet = "aZ09.-_ \t/$()~`';ÄéxY"
	r := rand.New(rand.NewPCG(1, 2))
	runes := []rune(alphabet)
	var b strings.Builder
	for i := 0; i < 200; i++ {
		var in strings.Builder
		for j := r.IntN(90); j > 0; j-- {
			in.WriteRune(runes[r.IntN(len(runes))])
		}
		cmd := exec.Command(sh, "-c", `printf '%s' "$1" | LC_ALL=C tr '[:upper:]' '[:lower:]' | LC_ALL=C tr -s ' \t' '-' | LC_ALL=C tr -cd 'a-z0-9.-' | cut -c1-60`, "sh", in.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(string(out), "\n") // cut ends its line
		if want == "" {
			want = Untitled
		}
		fmt.Fprintf(&b, "%s\t%s\n", strconv.Quote(in.String()), strconv.Quote(want))
	}
	if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
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
kind: saved
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
	if strings.Contains(got, "worktree:") {
		t.Fatalf("a checkpoint of the main checkout names a worktree:\n%s", got)
	}
	// Written in a linked worktree, it says which, after its branch; the field reads back.
	e.Worktree = "wt-auth"
	got = string(Render(e))
	if !strings.Contains(got, "branch: feat/auth\nworktree: wt-auth\ntimestamp:") {
		t.Fatalf("%s", got)
	}
	fm, _ := SplitLoose([]byte(got))
	if w := ReadFrontmatter(fm).Worktree; w != "wt-auth" {
		t.Fatalf("worktree read back as %q", w)
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

// plainScalar is the regexp it replaces, on every byte and on strings built from the edges.
func TestPlainScalarMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z/][A-Za-z0-9_./+-]*$`)
	var cases []string
	for c := 0; c < 256; c++ {
		cases = append(cases, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a", "/x"+string([]byte{byte(c)})+"y")
	}
	cases = append(cases, "", "main", "feature/x-1.2+b_c", "-x", "1abc", "a b", "é", "a\n")
	for _, s := range cases {
		if got, want := plainScalar(s), re.MatchString(s); got != want {
			t.Errorf("plainScalar(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}

// A file name is a repository's text: one that holds a key is redacted like any other field.
func TestRenderRedactsFileNames(t *testing.T) {
	out := string(Render(Entry{Title: "t", Branch: "main", Time: t0, Files: []string{"notes/c AKIAIOSFODNN7EXAMPLE.txt", "a.go"}}))
	if strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(out, "  - a.go\n") {
		t.Errorf("files_modified:\n%s", out)
	}
}

// The same checkout reached through a symlink keys its checkpoints by its real name, so it sees
// its history; checkpoints kept under the link's name before stay where they are.
func TestDirThroughASymlink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "checkout")
	os.Mkdir(real, 0o755)
	link := filepath.Join(base, "alias")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	s, err := Save(disk(real), real, Entry{Title: "mine", Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got := Dir(link); got != filepath.Join(link, "memory", "projects", "checkout", "checkpoints") {
		t.Fatalf("Dir through the link: %s", got)
	}
	if names, _ := Names(link); len(names) != 1 || names[0] != filepath.Base(s.Path) {
		t.Fatalf("through the link: %v", names)
	}
	// A checkout that kept its checkpoints under the link's name goes on using them.
	old := filepath.Join(base, "old-real")
	os.MkdirAll(filepath.Join(old, "memory", "projects", "old-alias", "checkpoints"), 0o755)
	oldLink := filepath.Join(base, "old-alias")
	os.Symlink(old, oldLink)
	if got := Dir(oldLink); got != filepath.Join(oldLink, "memory", "projects", "old-alias", "checkpoints") {
		t.Fatalf("existing checkpoints moved: %s", got)
	}
}

// The checkpoint directory is the repository's, not a directory name's: a renamed clone keeps the
// one it holds, whatever its name; of several, the one named after the directory wins; several
// others (teammates' clones committed theirs) leave this clone a new one of its own.
func TestDirKeyedByTheRepository(t *testing.T) {
	base := t.TempDir()
	mk := func(root string, names ...string) {
		for _, n := range names {
			os.MkdirAll(filepath.Join(root, "memory", "projects", n, "checkpoints"), 0o755)
		}
	}
	renamed := filepath.Join(base, "renamed")
	mk(renamed, "original")
	os.MkdirAll(filepath.Join(renamed, "memory", "projects", "notes-only"), 0o755) // no checkpoints: not a candidate
	several := filepath.Join(base, "several")
	mk(several, "alice", "several", "zed")
	foreign := filepath.Join(base, "foreign")
	mk(foreign, "alice", "bob")
	fresh := filepath.Join(base, "fresh")
	os.Mkdir(fresh, 0o755)
	for root, want := range map[string]string{renamed: "original", several: "several", foreign: "foreign", fresh: "fresh"} {
		if got := Dir(root); got != filepath.Join(root, "memory", "projects", want, "checkpoints") {
			t.Errorf("Dir(%s) = %s, want the directory %q", filepath.Base(root), got, want)
		}
	}
}
