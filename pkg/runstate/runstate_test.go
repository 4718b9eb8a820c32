package runstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/project"
)

func TestParseTolerant(t *testing.T) {
	st, warnings, err := Parse([]byte(`{"run_id":"r1","gates":{"a":1},"plan_open":3,"done":true,"list":[1],"phase":null,"x":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	if st.Get("run_id") != "r1" || st.Get("plan_open") != "3" || st.Get("done") != "true" || st.Get("x") != "y" || st.Has("gates") || st.Has("list") {
		t.Fatalf("state %v", st.Keys())
	}
	if len(warnings) != 4 || !strings.Contains(warnings[0], `"gates" is nested`) {
		t.Fatalf("warnings %q", warnings)
	}
	for _, bad := range []string{"", "{", "[1]", `"s"`, "{\"a\":1", "nul"} {
		if _, _, err := Parse([]byte(bad)); !errors.Is(err, errUnreadable) {
			t.Errorf("Parse(%q) err = %v", bad, err)
		}
	}
}

func TestMarshalFlatOneKeyPerLine(t *testing.T) {
	var st State
	st.Set("zeta", "z")
	st.Set("phase", "p\n\"quoted\"")
	st.Set("run_id", "r1")
	got := string(st.Marshal())
	want := "{\n  \"run_id\": \"r1\",\n  \"phase\": \"p\\n\\\"quoted\\\"\",\n  \"zeta\": \"z\"\n}\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	back, w, err := Parse([]byte(got))
	if err != nil || len(w) != 0 || back.Get("phase") != "p\n\"quoted\"" {
		t.Fatalf("round trip: %v %v %q", err, w, back.Get("phase"))
	}
}

func TestCheckSet(t *testing.T) {
	for _, ok := range [][2]string{{"phase", "x"}, {"plan_open", "3"}, {"note", "[draft"}, {"note", "{not json"}} {
		if err := CheckSet(ok[0], ok[1]); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for _, bad := range [][2]string{{"gates", `{"a":"b"}`}, {"plan", " [1,2]"}, {"bad key", "x"}, {"", "x"}, {"run_id", "../x"}} {
		if err := CheckSet(bad[0], bad[1]); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestActive(t *testing.T) {
	root := t.TempDir()
	if _, err := Active(root); !errors.Is(err, ErrNoActive) {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, RunsDir), 0o755)
	for content, want := range map[string]string{
		"r1\n":                                ".agents/runs/r1",
		".agents/runs/r2\nextra\n":            ".agents/runs/r2",
		"  other/place  \n":                   "other/place",
		filepath.Join(root, "abs/run") + "\n": "abs/run",
	} {
		os.WriteFile(filepath.Join(root, ActiveFile), []byte(content), 0o644)
		r, err := Active(root)
		if err != nil || r.Rel != want {
			t.Errorf("%q: %+v %v", content, r, err)
		}
	}
	for _, content := range []string{"../x", "/etc", ".", "..", "-rf"} {
		os.WriteFile(filepath.Join(root, ActiveFile), []byte(content), 0o644)
		if _, err := Active(root); err == nil {
			t.Errorf("%q accepted", content)
		}
	}
	os.WriteFile(filepath.Join(root, ActiveFile), []byte("\n"), 0o644)
	if _, err := Active(root); !errors.Is(err, ErrNoActive) {
		t.Errorf("empty file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"run_id":"r1","gates":{"a":[1]}}`))
	f.Add([]byte(`{"a":"\u0000","b":1e999}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, _, err := Parse(data)
		if err != nil {
			return
		}
		back, w, err := Parse(st.Marshal())
		if err != nil || len(w) != 0 {
			t.Fatalf("marshal output unreadable: %v %v", err, w)
		}
		for _, k := range st.Keys() {
			if back.Get(k) != st.Get(k) {
				t.Fatalf("key %q: %q != %q", k, back.Get(k), st.Get(k))
			}
		}
	})
}

// The handle resolves the active pointer and reads state.json once: changed behind its back, it
// still answers from its first read.
func TestRunsHandleReadsOnce(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, RunsDir, "r1")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(root, ActiveFile), []byte("r1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"phase": "build"}`), 0o644)
	h := Open(&project.Project{Root: root})
	r, err := h.Active()
	st, _, serr := h.State()
	if err != nil || serr != nil || r.ID != "r1" || st.Get("phase") != "build" {
		t.Fatal(r, err, st, serr)
	}
	os.Remove(filepath.Join(root, ActiveFile))
	os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"phase": "review"}`), 0o644)
	if r, err := h.Active(); err != nil || r.ID != "r1" {
		t.Fatal("reread the active pointer:", r, err)
	}
	if st, _, _ := h.State(); st.Get("phase") != "build" {
		t.Fatal("reread state.json:", st.Get("phase"))
	}
	if _, err := Open(&project.Project{Root: root}).Active(); !errors.Is(err, ErrNoActive) {
		t.Fatal("a fresh handle reads the pointer anew:", err)
	}
}
