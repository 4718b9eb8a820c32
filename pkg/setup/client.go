package setup

// Claude Code, the client cairn's hooks run in: its release decides how a hook is wired.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
)

// clientVersion is a Claude Code release number: major, minor, patch.
type clientVersion [3]int

// execFormSince is the first Claude Code release whose hook handlers take "args" and spawn
// "command" directly, with no shell (exec form; docs/DESIGN.md, Facts about Claude Code).
// Older releases run every command through /bin/sh and drop "args" without a word, so an
// exec-form entry whose path needs quoting (a space, a quote, "$", a non-ASCII letter) cannot
// start there; a quoted shell-form command works on every release, but a quoted command with
// "args" fails with ENOENT on the newer ones (testscripts/e2e/FINDINGS.md §k).
// So the form is chosen by the version.
var execFormSince = clientVersion{2, 1, 139}

// ClientVersionEnv overrides the client version for cairn install and cairn doctor: for a
// client that is not on PATH, and for tests.
const ClientVersionEnv = "CAIRN_CLAUDE_VERSION"

// parseClientVersion reads "2.1.100", "v2.1.100" or what `claude --version` prints,
// "2.1.100 (Claude Code)".
func parseClientVersion(s string) (clientVersion, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, " \t\n("); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return clientVersion{}, false
	}
	var v clientVersion
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			return clientVersion{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v clientVersion) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// before reports whether v is an earlier release than w.
func (v clientVersion) before(w clientVersion) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// client is what cairn knows of the Claude Code installed here.
type client struct {
	version clientVersion
	known   bool
	from    string // where the version was read, for messages
}

// execForm reports whether hooks are wired in exec form for this client: yes unless it is known
// to be older than exec form. An unknown client is taken to be a current one.
func (cl client) execForm() bool { return !cl.known || !cl.version.before(execFormSince) }

func (cl client) String() string {
	if !cl.known {
		return "Claude Code (version unknown)"
	}
	return "Claude Code " + cl.version.String()
}

// shellCommand is a hook's command in shell form: the path as one POSIX shell word, in single
// quotes when it holds anything a shell treats specially (a single quote inside it is closed,
// escaped and reopened), which /bin/sh — and Git Bash on Windows — runs as that one file
// whatever the path holds.
func shellCommand(path string) string { return skills.ShellQuote(path) }

// needsQuoting reports whether /bin/sh would not run path as it stands: it splits words at
// spaces, and quotes, "$", globs and non-ASCII letters all change what it sees.
func needsQuoting(path string) bool { return skills.ShellQuote(path) != path }

// versionOf is the client version from a flag or the environment, if one is given: an
// explicit version wins over the client found on PATH.
func versionOf(flagValue string, env project.Env) (client, bool, error) {
	for _, src := range []struct{ value, from string }{
		{flagValue, "--claude-version"},
		{env.Get(ClientVersionEnv), "$" + ClientVersionEnv},
	} {
		if src.value == "" {
			continue
		}
		v, ok := parseClientVersion(src.value)
		if !ok {
			return client{}, false, UsageError{fmt.Sprintf("%s %q is not a Claude Code version like 2.1.139", src.from, src.value)}
		}
		return client{version: v, known: true, from: src.from}, true, nil
	}
	return client{}, false, nil
}

// claudeVersionTimeout bounds `claude --version`; a node-based release takes about a second to
// start on a slow machine.
const claudeVersionTimeout = 20 * time.Second

// installClient is the client cairn install wires for: --claude-version, else
// $CAIRN_CLAUDE_VERSION, else what `claude --version` of the claude on PATH prints. install may
// run it: it is the user's own client, found outside the project (see lookPath), and install is
// a deliberate act that runs binaries already (its self-test). A client not found, or that does
// not answer, is unknown.
func installClient(ctx context.Context, h Host, flagValue string) (client, error) {
	if cl, ok, err := versionOf(flagValue, h.Env); ok || err != nil {
		return cl, err
	}
	path := lookPath(h.Env, "claude", runtime.GOOS)
	if path == "" {
		return client{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, claudeVersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = h.Env.List()
	out, err := cmd.Output()
	if err != nil {
		h.Warn("%s --version: %v; wiring in the form every release starts", path, err)
		return client{}, nil
	}
	v, ok := parseClientVersion(string(out))
	if !ok {
		h.Warn("%s --version printed %q, not a Claude Code version; wiring in the form every release starts", path, strings.TrimSpace(string(out)))
		return client{}, nil
	}
	return client{version: v, known: true, from: "claude --version of " + path}, nil
}

// doctorClient is the client doctor judges the wiring for: $CAIRN_CLAUDE_VERSION, else the
// version recorded in the files of the claude on PATH, read without running it (doctor executes
// nothing: docs/DESIGN.md, Invariants). Unknown when neither says.
func doctorClient(env project.Env) client {
	if cl, ok, err := versionOf("", env); ok && err == nil {
		return cl
	}
	path := lookPath(env, "claude", runtime.GOOS)
	if path == "" {
		return client{}
	}
	if v, from, ok := installedClientVersion(path); ok {
		return client{version: v, known: true, from: from}
	}
	return client{}
}

// maxPackageJSON bounds the package.json read for a version.
const maxPackageJSON = 1 << 20

// installedClientVersion reads the version of the claude executable at path from the files
// around it, as the two ways Claude Code is installed lay them out:
//   - npm: path resolves to …/node_modules/@anthropic-ai/claude-code/cli.js (older releases),
//     …/claude-code/bin/claude.exe or …/claude-code-<platform>/claude, and the package.json
//     of that package, one or two directories up, names the version;
//   - the native installer: path resolves to …/versions/<version>.
func installedClientVersion(path string) (clientVersion, string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return clientVersion{}, "", false
	}
	if filepath.Base(filepath.Dir(real)) == "versions" {
		if v, ok := parseClientVersion(filepath.Base(real)); ok {
			return v, real, true
		}
	}
	dir := filepath.Dir(real)
	for range 3 {
		pj := filepath.Join(dir, "package.json")
		if data, _, err := safefile.ReadLoose(pj, maxPackageJSON); err == nil {
			name := gjson.GetBytes(data, "name").String()
			if strings.HasPrefix(name, "@anthropic-ai/claude-code") {
				if v, ok := parseClientVersion(gjson.GetBytes(data, "version").String()); ok {
					return v, pj, true
				}
			}
		}
		dir = filepath.Dir(dir)
	}
	return clientVersion{}, "", false
}

// lookPath finds an executable on env's PATH as goos would, skipping relative entries: an
// empty or relative entry names the working directory, which may be a repository's files.
func lookPath(env project.Env, name, goos string) string {
	suffixes := []string{""}
	if goos == "windows" {
		suffixes = []string{".exe", ".cmd"}
	}
	for _, dir := range filepath.SplitList(env.Get("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, s := range suffixes {
			p := filepath.Join(dir, name+s)
			fi, err := os.Stat(p)
			if err == nil && fi.Mode().IsRegular() && (goos == "windows" || fi.Mode().Perm()&0o111 != 0) {
				return p
			}
		}
	}
	return ""
}
