package collision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

func TestModeOf(t *testing.T) {
	for v, want := range map[string]Mode{"": Tell, "on": Tell, "tell": Tell, "off": Off, " OFF ": Off, "0": Off, "false": Off, "no": Off, "ask": Ask, "Ask": Ask} {
		if got := ModeOf(project.Env{"CAIRN_CLAIMS": v}); got != want {
			t.Errorf("CAIRN_CLAIMS=%q: %v, want %v", v, got, want)
		}
	}
}

// Two sessions edit one file: the second is told of the first — its short id, branch and last
// request, read from its own transcript and redacted — and the first is then told of the second.
func TestBeforeWarnsOfTheOtherSession(t *testing.T) {
	root, conf := t.TempDir(), t.TempDir()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	w := projecttest.New(t, root, conf, now)
	reg := registry.Open(w.Project)
	for _, sid := range []string{"aaaaaaaa-1", "bbbbbbbb-2"} {
		if err := reg.Register(sid, "feat", now); err != nil {
			t.Fatal(err)
		}
	}
	tr := filepath.Join(conf, "projects", project.Slug(root), "aaaaaaaa-1.jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o755)
	os.WriteFile(tr, []byte(`{"type":"user","message":{"role":"user","content":"rotate the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 in auth.go"}}`+"\n"), 0o644)

	file := filepath.Join(root, "src", "auth.go")
	if got := Before(w.Project, claims.Open(w.Project, registry.Open(w.Project)), Input{SessionID: "aaaaaaaa-1", FilePath: file}); got != "" {
		t.Fatalf("the first session was warned: %s", got)
	}
	got := Before(w.Project, claims.Open(w.Project, registry.Open(w.Project)), Input{SessionID: "bbbbbbbb-2", FilePath: file})
	for _, want := range []string{`editing "src/auth.go" too`, "session aaaaaaaa, on branch \"feat\"", `its user last asked: "rotate the key `, "[REDACTED]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the warning lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "abcdefghijklmnop") {
		t.Errorf("a secret of the other session's prompt reached the warning:\n%s", got)
	}
	// The other session had no prompt to read: the warning still names it.
	if got := Before(w.Project, claims.Open(w.Project, registry.Open(w.Project)), Input{SessionID: "aaaaaaaa-1", FilePath: file}); !strings.Contains(got, "session bbbbbbbb") || strings.Contains(got, "last asked") {
		t.Errorf("the first session, told of the second:\n%s", got)
	}
	// Outside the project, or without a session, nothing is claimed.
	for _, in := range []Input{{SessionID: "aaaaaaaa-1", FilePath: "/etc/hosts"}, {FilePath: file}, {SessionID: "aaaaaaaa-1"}} {
		if got := Before(w.Project, claims.Open(w.Project, registry.Open(w.Project)), in); got != "" {
			t.Errorf("%+v: %s", in, got)
		}
	}
	if ws := w.Warnings(); len(ws) != 0 {
		t.Errorf("warnings: %q", ws)
	}
}
