package memindex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		line, target string
		ok           bool
	}{
		{"- [Cache idea](session-open-cache-idea.md) — a cache for the API", "session-open-cache-idea.md", true},
		{"- [Cache idea](./session-open-cache-idea.md)", "./session-open-cache-idea.md", true},
		{"* [T](<session-open-a b.md>) — hook", "session-open-a b.md", true},
		{`+ [T](session-open-a.md "a title") — hook`, "session-open-a.md", true},
		{"- [T](session-open-a.md 'a title')", "session-open-a.md", true},
		{"- [T](session-open-a.md (a title))", "session-open-a.md", true},
		{"1. [T](session-open-a.md): hook", "session-open-a.md", true},
		{"12) [T](session-open-a.md)", "session-open-a.md", true},
		{"  - [T](session-open-a.md)", "session-open-a.md", true},
		{"\t- [T](session-open-a.md)", "session-open-a.md", true},
		{"- [ ] [T](session-open-a.md)", "session-open-a.md", true},
		{"- [x](session-open-a.md)", "session-open-a.md", true},
		{"- [](session-open-a.md)", "session-open-a.md", true},
		{"- [T](session-open-a.md)— hook", "session-open-a.md", true},
		{`- [T](session\_open.md)`, "session_open.md", true},
		{"- [T](a(b).md) — hook", "a(b).md", true},

		// Titles holding brackets, parentheses and "](".
		{"- [Cache](maybe)](session-open-cache.md) — hook", "session-open-cache.md", true},
		{"- [Use [x] here](session-open-a.md)", "session-open-a.md", true},
		{"- [Why (really)?](session-open-a.md)", "session-open-a.md", true},
		{`- [A \](b) c](session-open-a.md)`, "session-open-a.md", true},
		{"- [a](b)[c](session-open-a.md)", "session-open-a.md", true},

		// The first link that can end is the item; later links are prose.
		{"- [Notes](notes.md) — see [x](session-open-a.md)", "notes.md", true},

		// Not a pointer.
		{"session-open-a.md", "", false},
		{"- see session-open-a.md", "", false},
		{"- Notes: [x](session-open-a.md)", "", false},
		{"[T](session-open-a.md)", "", false},
		{"-[T](session-open-a.md)", "", false},
		{"- [T](session-open-a.md", "", false},
		{"- [T]( )", "", false},
		{"- [T]()", "", false},
		{"- [T](a b)", "", false},
		{"- [T](a \"t\"x)", "", false},
		{"- [T](a \"t)", "", false},
		{"- [T](<a<b>)", "", false},
		{"- [T](session-open-a.md)x", "", false},
		{"- [T] (session-open-a.md)", "", false},
		{"# [T](session-open-a.md)", "", false},
		{"> - [T](session-open-a.md)", "", false},
		{"1234567890. [T](session-open-a.md)", "", false},
		{"", "", false},
	} {
		got, ok := target(tc.line)
		if got != tc.target || ok != tc.ok {
			t.Errorf("Target(%q) = %q, %v; want %q, %v", tc.line, got, ok, tc.target, tc.ok)
		}
	}
}

func TestFile(t *testing.T) {
	for target, want := range map[string]string{
		"session-open-a.md":                "session-open-a.md",
		"./session-open-a.md":              "session-open-a.md",
		"sub/../session-open-a.md":         "session-open-a.md",
		"session-open-a.md#why":            "session-open-a.md",
		"session%2Dopen-a.md":              "session-open-a.md",
		"session%2dopen-a.md":              "session-open-a.md",
		"session-open-a.md%":               "session-open-a.md%",
		"session-open-a%zz.md":             "session-open-a%zz.md",
		"session-open-a b.md":              "session-open-a b.md",
		"../memory/session-open-a.md":      "",
		"other/session-open-a.md":          "",
		"/home/me/session-open-a.md":       "",
		"https://x.test/session-open-a.md": "",
		"file:session-open-a.md":           "",
		"C:session-open-a.md":              "",
		"%2Fetc%2Fsession-open-a.md":       "",
		".":                                "",
		"#top":                             "",
	} {
		if got := file(target); got != want {
			t.Errorf("File(%q) = %q, want %q", target, got, want)
		}
	}
}

func is(name string) func(string) bool { return func(f string) bool { return f == name } }

func TestRemove(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		gone          []string
	}{
		{
			name: "one of several",
			in:   "# Memory\n\n- [Cache idea](session-open-cache-idea.md) — a cache\n- [Kept](session-open-kept.md) — kept\n- [Style](feedback_style.md) — tabs\n",
			out:  "# Memory\n\n- [Kept](session-open-kept.md) — kept\n- [Style](feedback_style.md) — tabs\n",
			gone: []string{"- [Cache idea](session-open-cache-idea.md) — a cache"},
		},
		{
			name: "CRLF, the others' endings kept",
			in:   "- [A](a.md)\r\n- [X](./session-open-cache-idea.md)\r\n- [B](b.md)\n- [C](c.md)",
			out:  "- [A](a.md)\r\n- [B](b.md)\n- [C](c.md)",
			gone: []string{"- [X](./session-open-cache-idea.md)"},
		},
		{
			name: "lone CR endings are lines",
			in:   "- [A](a.md)\r- [X](session-open-cache-idea.md)\r- [B](b.md)\r",
			out:  "- [A](a.md)\r- [B](b.md)\r",
			gone: []string{"- [X](session-open-cache-idea.md)"},
		},
		{
			name: "last line without an ending",
			in:   "- [A](a.md)\n- [X](session-open-cache-idea.md)",
			out:  "- [A](a.md)\n",
			gone: []string{"- [X](session-open-cache-idea.md)"},
		},
		{
			name: "a byte-order mark stays",
			in:   "\uFEFF- [X](session-open-cache-idea.md)\n- [A](a.md)\n",
			out:  "\uFEFF- [A](a.md)\n",
			gone: []string{"- [X](session-open-cache-idea.md)"},
		},
		{
			name: "title with ]( and every copy",
			in:   "- [Cache](maybe)](session-open-cache-idea.md) — hook\n- [A](a.md)\n  - [again](<session-open-cache-idea.md> \"t\")\n",
			out:  "- [A](a.md)\n",
			gone: []string{"- [Cache](maybe)](session-open-cache-idea.md) — hook", "  - [again](<session-open-cache-idea.md> \"t\")"},
		},
		{
			name: "prose, other directories, similar names and code are kept",
			in: "session-open-cache-idea.md is gone\n- see [it](session-open-cache-idea.md)\n" +
				"- [A](a.md) — was [x](session-open-cache-idea.md)\n- [B](../x/session-open-cache-idea.md)\n" +
				"- [C](session-open-cache-idea.md.bak)\n- [D](session-open-cache-idea-2.md)\n" +
				"```\n- [E](session-open-cache-idea.md)\n```\n~~~~\n- [F](session-open-cache-idea.md)\n~~~\n~~~~~\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, gone, err := Remove([]byte(tc.in), is("session-open-cache-idea.md"))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.out
			if tc.gone == nil {
				want = tc.in
			}
			if string(out) != want {
				t.Errorf("got\n%q\nwant\n%q", out, want)
			}
			if strings.Join(gone, "|") != strings.Join(tc.gone, "|") {
				t.Errorf("removed %q, want %q", gone, tc.gone)
			}
		})
	}
	bad := []byte("- [X](session-open-cache-idea.md)\n\xff\n")
	if out, gone, err := Remove(bad, is("session-open-cache-idea.md")); !errors.Is(err, errNotUTF8) || string(out) != string(bad) || gone != nil {
		t.Errorf("not UTF-8: %q, %q, %v", out, gone, err)
	}
}

func TestPointers(t *testing.T) {
	ps, err := Pointers([]byte("# Index\n- [A](session-open-a.md) — x\r\n\n```\n- [B](b.md)\n```\n1. [C](https://c.test/c.md)\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Pointer{
		{Line: 2, Text: "- [A](session-open-a.md) — x", Target: "session-open-a.md", File: "session-open-a.md"},
		{Line: 7, Text: "1. [C](https://c.test/c.md)", Target: "https://c.test/c.md", File: ""},
	}
	if len(ps) != len(want) {
		t.Fatalf("got %+v", ps)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("pointer %d: %+v, want %+v", i, ps[i], want[i])
		}
	}
}

// TestReadAndDrop: the index is read and edited through safefile: a missing one is not created,
// one that is a symlink, too large or not UTF-8 is refused and left as it is, and Drop keeps
// the file's mode.
func TestReadAndDrop(t *testing.T) {
	proj, dir := t.TempDir(), t.TempDir()
	w := safefile.Disk{Roots: []string{proj}}.Under(dir)
	drop := is("session-open-a.md")

	if _, err := Read(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if gone, err := Drop(w, dir, drop); err != nil || gone != nil {
		t.Errorf("missing: %q, %v", gone, err)
	}
	if _, err := os.Lstat(Path(dir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing index was created")
	}

	os.WriteFile(Path(dir), []byte("- [A](session-open-a.md)\n- [B](b.md)\n"), 0o600)
	gone, err := Drop(w, dir, drop)
	if err != nil || len(gone) != 1 {
		t.Fatalf("%q, %v", gone, err)
	}
	if data, _ := os.ReadFile(Path(dir)); string(data) != "- [B](b.md)\n" {
		t.Errorf("after Drop: %q", data)
	}
	if fi, _ := os.Stat(Path(dir)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}

	for name, make := range map[string]func(){
		"not UTF-8": func() { os.WriteFile(Path(dir), []byte("- [A](session-open-a.md)\n\xfe\n"), 0o644) },
		"too large": func() {
			os.WriteFile(Path(dir), []byte("- [A](session-open-a.md)\n"+strings.Repeat("x\n", MaxSize/2)), 0o644)
		},
		"a symlink": func() {
			real := filepath.Join(t.TempDir(), "MEMORY.md")
			os.WriteFile(real, []byte("- [A](session-open-a.md)\n"), 0o644)
			os.Symlink(real, Path(dir))
		},
	} {
		os.Remove(Path(dir))
		make()
		before, _ := os.ReadFile(Path(dir))
		if _, err := Read(dir); err == nil {
			t.Errorf("%s: Read gave no error", name)
		}
		if _, err := Drop(w, dir, drop); err == nil {
			t.Errorf("%s: Drop gave no error", name)
		}
		if after, _ := os.ReadFile(Path(dir)); string(after) != string(before) {
			t.Errorf("%s: the index changed", name)
		}
	}
}

// interloper is a Writer whose first edit of a file sees Claude Code write that file first, in
// the moment between cairn's read and its rename: the write cairn's Recheck must not lose.
type interloper struct {
	safefile.Writer
	line string
	done bool
}

func (w *interloper) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	return w.Writer.Update(path, perm, func(old []byte, exists bool) ([]byte, error) {
		if !w.done {
			w.done = true
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, err
			}
			f.WriteString(w.line)
			f.Close()
		}
		return fn(old, exists)
	}, opts...)
}

// Claude Code writes the index while cairn removes a pointer from it: cairn reads the index
// again before its rename, sees the change and edits the newer content, so Claude Code's line
// is kept (without the recheck, cairn's rename would drop it).
func TestDropKeepsAConcurrentWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(Path(dir), []byte("- [X](session-open-x.md) — parked\n- [Tabs](feedback_tabs.md)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &interloper{Writer: safefile.Disk{Roots: []string{dir}}, line: "- [New](new.md) — written by Claude Code\n"}
	gone, err := Drop(w, dir, func(f string) bool { return f == "session-open-x.md" })
	if err != nil || len(gone) != 1 {
		t.Fatalf("Drop: %v %v", gone, err)
	}
	got, _ := os.ReadFile(Path(dir))
	if string(got) != "- [Tabs](feedback_tabs.md)\n- [New](new.md) — written by Claude Code\n" {
		t.Errorf("the index after the race:\n%s", got)
	}
}
