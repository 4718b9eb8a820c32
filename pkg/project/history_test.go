package project

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The directories of a root's transcripts: its slug, the slugs of directories below it (and of
// other projects whose slug starts the same way, which a reader tells apart by cwd), its legacy
// spelling; not another project's, not a file or a link, and a name two roots' slugs start goes
// to the longer slug.
func TestTranscriptDirs(t *testing.T) {
	config := t.TempDir()
	projects := filepath.Join(config, "projects")
	for _, d := range []string{"-w-proj", "-w-proj-sub", "-w-proj-wt", "-w-proj-wt-x", "-w-projx", "-w-other", "w-proj"} {
		if err := os.MkdirAll(filepath.Join(projects, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(projects, "-w-proj-file"), nil, 0o600)
	os.Symlink(filepath.Join(projects, "-w-other"), filepath.Join(projects, "-w-proj-link"))

	got := TranscriptDirs(config, []string{"/w/proj"})
	want := []TranscriptDir{
		{Name: "-w-proj", Root: "/w/proj", Exact: true},
		{Name: "-w-proj-sub", Root: "/w/proj"},
		{Name: "-w-proj-wt", Root: "/w/proj"},
		{Name: "-w-proj-wt-x", Root: "/w/proj"},
		{Name: "w-proj", Root: "/w/proj"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("one root:\n got %+v\nwant %+v", got, want)
	}

	got = TranscriptDirs(config, []string{"/w/proj", "/w/proj-wt"})
	want = []TranscriptDir{
		{Name: "-w-proj", Root: "/w/proj", Exact: true},
		{Name: "-w-proj-sub", Root: "/w/proj"},
		{Name: "-w-proj-wt", Root: "/w/proj-wt", Exact: true},
		{Name: "-w-proj-wt-x", Root: "/w/proj-wt"},
		{Name: "w-proj", Root: "/w/proj"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("two roots:\n got %+v\nwant %+v", got, want)
	}
	if got := TranscriptDirs("", []string{"/w/proj"}); got != nil {
		t.Errorf("no config: %+v", got)
	}
	if got := TranscriptDirs(filepath.Join(config, "nope"), []string{"/w/proj"}); got != nil {
		t.Errorf("no projects directory: %+v", got)
	}
}

// SessionRanHere finds a session under the root's slug and under a subdirectory's, and nowhere
// else.
func TestSessionRanHere(t *testing.T) {
	config := t.TempDir()
	p := &Project{Root: "/w/proj", Config: config}
	write := func(dir, name string) {
		d := filepath.Join(config, "projects", dir)
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, name), nil, 0o600)
	}
	write("-w-proj", "s1.jsonl")
	write("-w-proj-sub", "s2.jsonl")
	write("-w-other", "s3.jsonl")
	for sid, want := range map[string]bool{"s1": true, "s2": true, "s3": false, "s4": false, "../x": false} {
		if got := p.SessionRanHere(sid); got != want {
			t.Errorf("%s: %v, want %v", sid, got, want)
		}
	}
}
