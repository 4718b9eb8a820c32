package setup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
)

// Install works from what its Host gives it, and refuses before it writes: with no --bin and no
// executable to be found it says what to pass; with a bin directory (relative to Host.Cwd) that
// holds no binaries, the self-test refuses with a hint. Nothing is printed, nothing is created.
func TestInstallRefusesBeforeWriting(t *testing.T) {
	proj := t.TempDir()
	var out bytes.Buffer
	h := Host{
		Env: project.Env{"HOME": t.TempDir()}, Cwd: proj, Out: &out,
		Self: func() (string, error) { return "", errors.New("no executable here") },
		Warn: func(format string, args ...any) { t.Errorf("warned: "+format, args...) },
		Hint: func(format string, args ...any) { t.Errorf("hinted: "+format, args...) },
	}
	err := Install(context.Background(), h, InstallOptions{Target: Target{Project: "."}})
	if err == nil || err.Error() != "finding this executable: no executable here; pass --bin DIR" {
		t.Errorf("without --bin or an executable: %v", err)
	}
	err = Install(context.Background(), h, InstallOptions{Target: Target{Project: ".", Bin: "bin"}})
	var he HintedError
	if !errors.As(err, &he) || !strings.HasPrefix(err.Error(), filepath.Join(proj, "bin", hookSpecs[0].binary)+" is missing") || he.Hint == "" {
		t.Errorf("an empty bin directory: %v (hint %q)", err, he.Hint)
	}
	if entries, _ := os.ReadDir(proj); len(entries) > 0 || out.Len() > 0 {
		t.Errorf("a refused install left %v and printed %q", entries, out.String())
	}
	// A version that is not one is the command's mistake, not a file's.
	if _, _, err := versionOf("latest", nil); !errors.As(err, new(UsageError)) {
		t.Errorf("--claude-version latest: %v, want a UsageError", err)
	}
}

// Doctor reads the project it is given and nothing else of the process: in an empty project, with
// no config directory's settings and no PATH, it finds nothing wired, and says so as failures.
func TestDoctorEmptyProject(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	w := projecttest.New(t, root, config, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	r := Doctor(context.Background(), w.Project, DoctorOptions{})
	byCheck := map[string]Finding{}
	fails := 0
	for _, f := range r.Findings {
		if _, seen := byCheck[f.Check]; !seen {
			byCheck[f.Check] = f
		}
		if f.Status == statusFail {
			fails++
		}
	}
	if f := byCheck["settings"]; f.Status != statusFail || !strings.Contains(f.Detail, "no settings file found") {
		t.Errorf("settings: %+v", f)
	}
	if f := byCheck["client"]; f.Status != statusWarn || !strings.Contains(f.Detail, "no claude on PATH") {
		t.Errorf("client: %+v", f)
	}
	if f := byCheck["hook "+hookSpecs[0].event]; f.Status != statusFail {
		t.Errorf("hook %s: %+v", hookSpecs[0].event, f)
	}
	if r.Failed() != fails || fails == 0 {
		t.Errorf("Failed() = %d, %d findings failed", r.Failed(), fails)
	}
	want := []string{filepath.Join(config, "settings.json"), filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json")}
	if strings.Join(r.SettingsFiles, "\n") != strings.Join(want, "\n") {
		t.Errorf("settings files %q, want %q", r.SettingsFiles, want)
	}
	if len(w.Warnings()) > 0 {
		t.Errorf("doctor warned: %q", w.Warnings())
	}
}
