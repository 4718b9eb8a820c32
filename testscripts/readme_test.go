package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeQuickStart runs the README's Quick start as it is written, in a fresh $HOME with a
// new project at ~/src/myproject and Claude Code installed: its install block from cairn's clone
// (install.sh, then cairn doctor in the project, which must report no problem and no warning),
// then its uninstall block, which must leave the project as it was. The blocks are read from the
// README itself, so the README and this test cannot drift apart.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("install.sh builds every binary")
	}
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Read by this process, install.sh joins the inputs go test keys its cache on.
	if _, err := os.ReadFile(filepath.Join(src, "install.sh")); err != nil {
		t.Fatal(err)
	}
	blocks := quickStartBlocks(t, string(readme))
	if len(blocks) != 2 {
		t.Fatalf("the Quick start has %d sh blocks; want 2, the install and the uninstall:\n%q", len(blocks), blocks)
	}
	install, uninstall := blocks[0], blocks[1]
	if !strings.Contains(install, "./install.sh") || !strings.Contains(install, " doctor") || !strings.Contains(uninstall, "--uninstall") {
		t.Fatalf("the Quick start's blocks are not an install with a doctor and an uninstall:\n%s\n%s", install, uninstall)
	}

	home := filepath.Join(t.TempDir(), "home")
	proj := filepath.Join(home, "src", "myproject")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	env := quickStartEnv(t, home)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "a new project"}} {
		git := exec.Command("git", args...)
		git.Dir, git.Env = proj, env
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}

	out := runBlock(t, src, env, install)
	var doctor []string
	for _, l := range strings.Split(out, "\n") {
		if regexp.MustCompile(`^(ok  |warn|FAIL) `).MatchString(l) {
			doctor = append(doctor, l)
		}
	}
	if len(doctor) < 10 {
		t.Fatalf("the install block ran no cairn doctor:\n%s", out)
	}
	for _, l := range doctor {
		if !strings.HasPrefix(l, "ok ") {
			t.Errorf("doctor after the Quick start's install: %s", l)
		}
	}
	if !strings.Contains(out, "ok   client: Claude Code ") {
		t.Errorf("doctor did not find the Claude Code installed in this HOME:\n%s", out)
	}

	runBlock(t, src, env, uninstall)
	status := exec.Command("git", "status", "--porcelain", "--ignored", "--untracked-files=all")
	status.Dir, status.Env = proj, env
	if left, err := status.Output(); err != nil || len(left) > 0 {
		t.Errorf("after the Quick start's uninstall the project holds (%v):\n%s", err, left)
	}
}

// quickStartBlocks are the ```sh blocks of the README's "## Quick start" section.
func quickStartBlocks(t *testing.T, readme string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		t.Fatal("the README has no ## Quick start")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```$").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// quickStartEnv is a newcomer's environment: HOME and nothing of cairn's or Claude Code's
// configured, Claude Code installed as its native installer lays it out (~/.local/bin/claude,
// a link into ~/.local/share/claude/versions/), and the test process's Go caches, so that the
// build needs no network.
func quickStartEnv(t *testing.T, home string) []string {
	t.Helper()
	versions := filepath.Join(home, ".local", "share", "claude", "versions")
	bin := filepath.Join(home, ".local", "bin")
	for _, d := range []string{versions, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	client := filepath.Join(versions, "2.1.332")
	if err := writeExecutable(client, []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(client, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "PATH", k == "TMPDIR", strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "CAIRN"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "GO"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=newcomer", "GIT_AUTHOR_EMAIL=newcomer@example.invalid",
		"GIT_COMMITTER_NAME=newcomer", "GIT_COMMITTER_EMAIL=newcomer@example.invalid")
	if d := os.Getenv("TMPDIR"); d != "" {
		env = append(env, "TMPDIR="+d)
	}
	kv, err := goEnv()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(kv); i += 2 {
		env = append(env, kv[i]+"="+kv[i+1])
	}
	return env
}

// runBlock runs a README block as a person pastes it into a shell: in dir, stopping at the first
// command that fails. It returns what the block printed.
func runBlock(t *testing.T, dir string, env []string, block string) string {
	t.Helper()
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's block\n%s\nfailed: %v\n%s", block, err, out)
	}
	return string(out)
}
