package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
)

func TestParseClientVersion(t *testing.T) {
	for in, want := range map[string]string{
		"2.1.100 (Claude Code)\n": "2.1.100",
		"2.1.332":                 "2.1.332",
		"v2.1.139":                "2.1.139",
		"10.0.1 (Claude Code)":    "10.0.1",
	} {
		v, ok := parseClientVersion(in)
		if !ok || v.String() != want {
			t.Errorf("parseClientVersion(%q) = %v, %v; want %s", in, v, ok, want)
		}
	}
	for _, in := range []string{"", "2.1", "2.1.x", "claude 2.1.100", "2.1.-1", "2.1.+1", "2..1", "1.2.3.4"} {
		if v, ok := parseClientVersion(in); ok {
			t.Errorf("parseClientVersion(%q) = %v; want it refused", in, v)
		}
	}
}

// The form follows the version: exec form from 2.1.139 on, and for a client cairn could not find.
func TestClientExecForm(t *testing.T) {
	for v, want := range map[string]bool{"2.1.100": false, "2.1.138": false, "2.1.139": true, "2.1.197": true, "2.2.0": true, "3.0.0": true, "1.9.999": false} {
		cv, _ := parseClientVersion(v)
		if got := (client{version: cv, known: true}).execForm(); got != want {
			t.Errorf("%s: execForm = %v, want %v", v, got, want)
		}
	}
	if !(client{}).execForm() {
		t.Errorf("an unknown client is wired in shell form; want exec form (every current client)")
	}
}

// hookCommand spells the binary's path for the platform the hooks run on, whatever the host.
func TestHookCommandPlatforms(t *testing.T) {
	for _, c := range []struct{ goos, bin, want string }{
		{"linux", "/home/me/proj/.claude/cairn/bin", "/home/me/proj/.claude/cairn/bin/precompact"},
		{"darwin", "/Users/me/my proj/.claude/cairn/bin/", "/Users/me/my proj/.claude/cairn/bin/precompact"},
		{"windows", `C:\Users\me\.claude\cairn\bin`, "C:/Users/me/.claude/cairn/bin/precompact.exe"},
		{"windows", `C:\Users\Zoë O'Neil\proj\.claude\cairn\bin\`, "C:/Users/Zoë O'Neil/proj/.claude/cairn/bin/precompact.exe"},
		{"windows", `\\fileserver\home\me\.claude\cairn\bin`, "//fileserver/home/me/.claude/cairn/bin/precompact.exe"},
		{"windows", "C:/tools/cairn/bin", "C:/tools/cairn/bin/precompact.exe"},
	} {
		if got := hookCommand(c.goos, c.bin, "precompact"); got != c.want {
			t.Errorf("hookCommand(%s, %q) = %q, want %q", c.goos, c.bin, got, c.want)
		}
	}
}

// Every row of hookSpecs is wired, each as the client needs it, and cairn's Owner recognises
// every entry written: exec form with a real .exe on Windows, a quoted shell word for a client
// before exec form.
func TestHookPlan(t *testing.T) {
	old, _ := parseClientVersion("2.1.100")
	cur, _ := parseClientVersion("2.1.332")
	for _, c := range []struct {
		goos, bin string
		cl        client
		exec      bool
		first     string // the command of the first hook
	}{
		{"linux", "/p/.claude/cairn/bin", client{version: cur, known: true}, true, "/p/.claude/cairn/bin/" + hookSpecs[0].binary},
		{"linux", "/p/.claude/cairn/bin", client{}, true, "/p/.claude/cairn/bin/" + hookSpecs[0].binary},
		{"linux", "/p/.claude/cairn/bin", client{version: old, known: true}, false, "/p/.claude/cairn/bin/" + hookSpecs[0].binary},
		{"linux", "/w/my proj'q\"$é/.claude/cairn/bin", client{version: old, known: true}, false,
			`'/w/my proj'\''q"$é/.claude/cairn/bin/` + hookSpecs[0].binary + `'`},
		{"windows", `C:\Users\me\.claude\cairn\bin`, client{version: cur, known: true}, true, "C:/Users/me/.claude/cairn/bin/" + hookSpecs[0].binary + ".exe"},
		{"windows", `C:\Users\Me Q\.claude\cairn\bin`, client{version: old, known: true}, false, "'C:/Users/Me Q/.claude/cairn/bin/" + hookSpecs[0].binary + ".exe'"},
	} {
		hs := hookPlan(c.goos, c.bin, c.cl)
		if len(hs) != len(hookSpecs) {
			t.Fatalf("%d hooks planned for %d rows of hookSpecs", len(hs), len(hookSpecs))
		}
		if hs[0].Command != c.first {
			t.Errorf("%s %q %v: first command %q, want %q", c.goos, c.bin, c.cl, hs[0].Command, c.first)
		}
		own := owner(c.bin)
		for i, h := range hs {
			if h.Event != hookSpecs[i].event || h.Timeout != hookSpecs[i].timeout || h.Shell == c.exec {
				t.Errorf("%s: hook %d = %+v, want %s in %s form", c.goos, i, h, hookSpecs[i].event, map[bool]string{true: "exec", false: "shell"}[c.exec])
			}
			if c.goos == "windows" && !strings.HasSuffix(strings.Trim(h.Command, "'"), hookSpecs[i].binary+".exe") {
				t.Errorf("windows: %q does not run a .exe", h.Command)
			}
			if !own.OwnsCommand(h.Command, !h.Shell) {
				t.Errorf("%s: cairn does not recognise its own entry %q", c.goos, h.Command)
			}
		}
	}
}

// The settings.json written for Windows names each hook's .exe in exec form, parses as JSON,
// and reads back as cairn's entries.
func TestWindowsSettingsFile(t *testing.T) {
	cur, _ := parseClientVersion("2.1.332")
	bin := `C:\Users\me\proj\.claude\cairn\bin`
	data, err := settings.Install(nil, settings.Plan{Hooks: hookPlan("windows", bin, client{version: cur, known: true})}, owner(bin))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, h := range hookSpecs {
		groups := doc.Hooks[h.event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", h.event, groups)
		}
		e := groups[0].Hooks[0]
		if want := "C:/Users/me/proj/.claude/cairn/bin/" + h.binary + ".exe"; e.Command != want || e.Args == nil {
			t.Errorf("%s: command %q args %v, want %q in exec form", h.event, e.Command, e.Args, want)
		}
	}
	es, err := settings.Entries(data, owner(bin))
	if err != nil || len(es) != len(hookSpecs) {
		t.Fatalf("entries: %v %v", es, err)
	}
	for _, e := range es {
		if !e.Cairn {
			t.Errorf("%q is not read back as cairn's", e.Command)
		}
	}
}

// lookPath finds an executable on PATH, never in a relative entry (the working directory may be
// a repository's).
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "abs", "claude")
	plainFile := filepath.Join(dir, "noexec", "claude")
	for _, p := range []string{exe, plainFile} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plainFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "abs"))
	list := strings.Join([]string{".", "abs", "", filepath.Join(dir, "noexec"), filepath.Join(dir, "abs")}, string(os.PathListSeparator))
	if got := lookPath(project.Env{"PATH": list}, "claude", "linux"); got != exe {
		t.Errorf("lookPath = %q, want %q (relative entries skipped, a file without x skipped)", got, exe)
	}
	if got := lookPath(project.Env{"PATH": "."}, "claude", "linux"); got != "" {
		t.Errorf("lookPath with PATH=. = %q, want nothing", got)
	}
	// With Windows's semantics: the name takes .exe or .cmd, in that order, no execute bit is
	// needed, and the variable may be spelt Path (an Env from Windows holds it as PATH).
	win := filepath.Join(dir, "win")
	os.MkdirAll(win, 0o755)
	os.WriteFile(filepath.Join(win, "claude.cmd"), []byte("@echo off\n"), 0o644)
	os.WriteFile(filepath.Join(win, "claude"), []byte("x"), 0o755) // no suffix: not what Windows runs
	if got := lookPath(project.Env{"PATH": win}, "claude", "windows"); got != filepath.Join(win, "claude.cmd") {
		t.Errorf("windows: lookPath = %q, want claude.cmd", got)
	}
	os.WriteFile(filepath.Join(win, "claude.exe"), []byte("MZ"), 0o644)
	if got := lookPath(project.Env{"PATH": win}, "claude", "windows"); got != filepath.Join(win, "claude.exe") {
		t.Errorf("windows: lookPath = %q, want claude.exe before claude.cmd", got)
	}
}

// doctor reads the client's version from its files, as npm and the native installer lay them
// out, without running anything.
func TestInstalledClientVersion(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, name string) string {
		p := filepath.Join(dir, "bin-"+name, "claude")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("npm1/node_modules/@anthropic-ai/claude-code/cli.js", "#!/usr/bin/env node\n", 0o755)
	write("npm1/node_modules/@anthropic-ai/claude-code/package.json", `{"name":"@anthropic-ai/claude-code","version":"2.1.100"}`, 0o644)
	native := write("npm2/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "\x7fELF", 0o755)
	write("npm2/node_modules/@anthropic-ai/claude-code/package.json", `{"name":"@anthropic-ai/claude-code","version":"2.1.332"}`, 0o644)
	installer := write("share/claude/versions/2.1.197", "\x7fELF", 0o755)
	other := write("elsewhere/claude", "#!/bin/sh\n", 0o755)
	write("elsewhere/package.json", `{"name":"not-claude","version":"9.9.9"}`, 0o644)

	for path, want := range map[string]string{
		link(old, "old"):             "2.1.100",
		link(native, "native"):       "2.1.332",
		link(installer, "installer"): "2.1.197",
		other:                        "",
	} {
		v, from, ok := installedClientVersion(path)
		got := ""
		if ok {
			got = v.String()
		}
		if got != want {
			t.Errorf("installedClientVersion(%s) = %q (from %s), want %q", path, got, from, want)
		}
	}
	// The override wins, and a bad one is refused.
	if cl := doctorClient(project.Env{ClientVersionEnv: "2.1.100", "PATH": filepath.Dir(link(native, "native2"))}); !cl.known || cl.version.String() != "2.1.100" {
		t.Errorf("doctorClient with $%s: %+v", ClientVersionEnv, cl)
	}
	if _, _, err := versionOf("", project.Env{ClientVersionEnv: "latest"}); err == nil {
		t.Errorf("$%s=latest accepted", ClientVersionEnv)
	}
}
