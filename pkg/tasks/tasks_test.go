package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestForSession(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "tasks", "sess-1")
	write(t, dir, "1.json", `{"id":"1","subject":"Read the spec","description":"all of it","activeForm":"Reading the spec","status":"completed","blocks":[],"blockedBy":[]}`)
	write(t, dir, "10.json", `{"id":"10","subject":"Ship","description":"","activeForm":"Shipping","status":"pending"}`)
	write(t, dir, "2.json", `{"id":"2","subject":"Write the parser","activeForm":"Writing the parser","status":"in_progress","owner":"x"}`)
	write(t, dir, "3.json", `{"id":3,"subject":"Numeric id","status":"deleted"}`)
	write(t, dir, "abc.json", `{"subject":"No id","status":"pending"}`)
	write(t, dir, "bad.json", `{"id":"99","subject":`)
	write(t, dir, "array.json", `[1,2]`)
	write(t, dir, "big.json", `{"id":"98","subject":"`+strings.Repeat("x", maxFileSize)+`"}`)
	write(t, dir, ".lock", ``)
	write(t, dir, "notes.txt", `{"id":"97"}`)
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(config, "secret.json")
	write(t, config, "secret.json", `{"id":"96","subject":"outside"}`)
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}

	ts, err := ForSession(config, "sess-1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	if want := []string{"1", "2", "3", "10", "abc"}; !slices.Equal(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	if want := (Task{ID: "1", Subject: "Read the spec", Description: "all of it", ActiveForm: "Reading the spec", Status: "completed"}); ts[0] != want {
		t.Errorf("task 1 = %+v, want %+v", ts[0], want)
	}
	if ts[2].Status != "deleted" {
		t.Errorf("an unknown status is kept: %+v", ts[2])
	}

	open := Open(ts)
	if len(open) != 3 || open[0].ID != "2" || open[1].ID != "10" || open[2].ID != "abc" {
		t.Errorf("Open = %+v, want 2, 10, abc", open)
	}
	if done := Completed(ts); len(done) != 1 || done[0].ID != "1" {
		t.Errorf("Completed = %+v", done)
	}
}

func TestForSessionMissing(t *testing.T) {
	config := t.TempDir()
	if ts, err := ForSession(config, "none"); ts != nil || err != nil {
		t.Errorf("missing dir: %v, %v", ts, err)
	}
	if ts, err := ForSession(filepath.Join(config, "no-config"), "none"); ts != nil || err != nil {
		t.Errorf("missing config: %v, %v", ts, err)
	}
	write(t, filepath.Join(config, "tasks"), "file-not-dir", "x")
	if _, err := ForSession(config, "file-not-dir"); err == nil {
		t.Error("a file where the directory should be: no error")
	}
}

func TestForSessionRefusesBadIDs(t *testing.T) {
	for _, id := range []string{"", "..", "a/b", `a\b`, "../x", "a..b", "x\x00y", "/abs"} {
		if _, err := ForSession(t.TempDir(), id); err == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
}

func TestForSessionBounded(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "tasks", "s")
	for i := range maxFiles + 50 {
		write(t, dir, fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"id":"%d","status":"pending"}`, i))
	}
	ts, err := ForSession(config, "s")
	if err != nil || len(ts) != maxFiles {
		t.Errorf("%d tasks, %v; want %d", len(ts), err, maxFiles)
	}
}

// Big task files cost at most maxTotal bytes of reading together, and one over maxFileSize is
// not read at all: a hostile tasks directory cannot make PreCompact slow or large.
func TestForSessionBoundedBytes(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "tasks", "s")
	pad := strings.Repeat("x", 60<<10)
	for i := range 60 {
		write(t, dir, fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"id":"%d","status":"pending","description":"%s"}`, i, pad))
	}
	write(t, dir, "huge.json", `{"id":"huge","status":"pending","description":"`+strings.Repeat("y", maxFileSize)+`"}`)
	ts, err := ForSession(config, "s")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ts); n == 0 || n > maxTotal/(60<<10)+1 {
		t.Errorf("%d tasks read from 60 files of 60 KiB; the total bound is %d bytes", n, maxTotal)
	}
	for _, tk := range ts {
		if tk.ID == "huge" {
			t.Error("a file over the size bound was read")
		}
	}
}

func TestOpenCompletedEmpty(t *testing.T) {
	if Open(nil) != nil || Completed(nil) != nil {
		t.Error("nil in, non-nil out")
	}
}
