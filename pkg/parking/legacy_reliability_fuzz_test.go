package parking

import (
	"github.com/cairn-hooks/cairn/pkg/flatmatter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzLegacyFile: reading a legacy session-open-*.md file never panics, whatever its frontmatter
// (valid YAML, YAML that the strict parser refuses and the loose reader takes, or none at all);
// an item read from it has a valid slug, keeps the whole file for the audit log, and lists as
// exactly one line (its name and description cannot forge a line of the resume layout).
func FuzzLegacyFile(f *testing.F) {
	for _, s := range []string{
		"---\nname: fix-login\ndescription: Deferred: the login. Context: sso.\ntype: project\n---\n\n**Why:** asked\n**How to apply:** ask\n",
		"---\nname: \"a\\nb\"\ndescription: 'x'\n---\nbody\n",
		"---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n",
		"---\nname: [1, 2]\ndescription: {a: b}\n---\n",
		"---\nname: x\n",
		"---\n---",
		"no frontmatter at all\n- **x** — y",
		"---\nname: \x00\xff\ndescription: \u2028\n---\n**why:**\n**HOW TO APPLY:**",
		"",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxLegacySize+1 {
			return
		}
		path := filepath.Join(dir, "session-open-fuzz-2026-11-01.md")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lf, ok := readLegacyFile(dir, path)
		if len(data) > maxLegacySize {
			if ok {
				t.Fatalf("a file over %d bytes was read as an item", maxLegacySize)
			}
			return
		}
		if !ok {
			t.Fatalf("a regular file of %d bytes was not read", len(data))
		}
		if lf.text != string(data) {
			t.Fatalf("the audit text is not the whole file")
		}
		if !ValidSlug(lf.slug) {
			t.Fatalf("invalid slug %q from %q", lf.slug, data)
		}
		if lf.name == "" || !utf8.ValidString(lf.name) {
			t.Fatalf("bad name %q", lf.name)
		}
		for _, s := range []string{lf.desc, lf.why, lf.how} {
			if strings.ContainsAny(s, "\r\n\x00") || !utf8.ValidString(s) {
				t.Fatalf("field not one valid line: %q", s)
			}
		}
		_ = legacyItem(lf, time.UTC) // resume's rendering of it, one line, is tested where it lives (hooks/cairn)
		// The line reader on its own: never panics, and its body is a suffix of the input.
		if _, body, _ := flatmatter.Split(data); !strings.HasSuffix(string(data), string(body)) {
			t.Fatalf("loose body %q is not a suffix of the file", body)
		}
	})
}
