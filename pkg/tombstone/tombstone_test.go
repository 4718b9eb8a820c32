package tombstone

import (
	"errors"
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

// The tombstones never grow past what Read takes: a file Read refused would bring every
// forgotten item back at once. Append says it is full instead, and what was forgotten stays so.
func TestAppendFull(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	files := safefile.Disk{Roots: []string{root}}
	first := Stone{Time: time.Unix(0, 0), ID: "session:0f3c2a9e-1111", Kind: "session"}
	if err := Append(files, config, []Stone{first}); err != nil {
		t.Fatal(err)
	}
	// Lines no stone holds, up to 20 bytes short of what Read takes: the next stone goes past it.
	fi, err := os.Stat(Path(config))
	if err != nil {
		t.Fatal(err)
	}
	n := maxFile - 20 - int(fi.Size())
	pad := []byte(strings.Repeat(strings.Repeat("x", 999)+"\n", n/1000+1)[:n])
	pad[n-1] = '\n'
	f, err := os.OpenFile(Path(config), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(pad)
	f.Close()
	err = Append(files, config, []Stone{{Time: time.Unix(0, 0), ID: "session:2b4d6f80-2222", Kind: "session"}})
	s, rerr := Read(config)
	if rerr != nil || !s.Session("0f3c2a9e-1111") {
		t.Fatalf("after an append to a full file (%v): read %v, the first session forgotten: %v", err, rerr, s.Session("0f3c2a9e-1111"))
	}
	if !errors.Is(err, ErrFull) {
		t.Errorf("append to a full file: %v", err)
	}
}
