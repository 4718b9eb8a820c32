package tombstone

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// What Append writes, Read recognises: a session by its id, content by its hash; the file keeps
// no content.
func TestAppendRead(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	files := safefile.Disk{Roots: []string{root}}
	secret := []byte("- **dark-mode** — the password is hunter2")
	stones := []Stone{
		{Time: time.Unix(0, 0), Project: root, ID: "session:0f3c2a9e-1111", Kind: "session"},
		{Time: time.Unix(0, 0), Project: root, ID: "archived:20261101-000000-dark-mode", Kind: "archived", Hash: Hash(secret)},
	}
	if err := Append(files, config, stones); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(Path(config))
	if strings.Contains(string(data), "hunter2") || strings.Count(string(data), "\n") != 2 {
		t.Fatalf("the file: %s", data)
	}
	s, err := Read(config)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Session("0f3c2a9e-1111") || s.Session("0f3c2a9e") || !s.Content(secret) || s.Content([]byte("other")) || s.Empty() || s.Print[0] == 0 {
		t.Errorf("set: %+v", s)
	}
	empty, err := Read(t.TempDir())
	if err != nil || !empty.Empty() || empty.Print != [2]int64{} {
		t.Errorf("no file: %+v %v", empty, err)
	}
}
