package testscripts

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var hooks = []string{"precompact", "postcompact", "sessionstart", "sessionend", "userpromptsubmit"}

// deps lists the packages a binary under hooks/ links.
func deps(t *testing.T, binary string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "github.com/cairn-hooks/cairn/hooks/"+binary).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", binary, err)
	}
	return strings.Fields(string(out))
}

// The hooks run as fresh processes, so every package they link costs its init on every run: no
// hook links the YAML front-matter parser (0.2–0.3 ms of init, a tenth of UserPromptSubmit's
// budget). Only the CLI reads checkpoints through YAML (pkg/checkpoint/saved).
func TestHooksLinkNoYAML(t *testing.T) {
	// debug/buildinfo brings the ELF, Mach-O and PE readers, compress/flate and zstd: reading
	// another binary's version is the CLI's (pkg/buildstamp).
	heavy := []string{"github.com/adrg/frontmatter", "gopkg.in/yaml.v2", "github.com/BurntSushi/toml", "github.com/cairn-hooks/cairn/pkg/checkpoint/saved",
		"debug/buildinfo", "compress/flate", "github.com/cairn-hooks/cairn/pkg/buildstamp"}
	for _, hook := range hooks {
		d := deps(t, hook)
		for _, h := range heavy {
			if slices.Contains(d, h) {
				t.Errorf("%s links %s", hook, h)
			}
		}
	}
	if !slices.Contains(deps(t, "cairn"), "github.com/adrg/frontmatter") {
		t.Errorf("the CLI should read checkpoints through adrg/frontmatter")
	}
}

// The search index is the CLI's (and the MCP server's): the hooks stay small and fast, and an
// index is derived data no hook needs, so none links pkg/search.
func TestHooksLinkNoSearch(t *testing.T) {
	const search = "github.com/cairn-hooks/cairn/pkg/search"
	for _, hook := range hooks {
		if slices.Contains(deps(t, hook), search) {
			t.Errorf("%s links %s", hook, search)
		}
	}
	if !slices.Contains(deps(t, "cairn"), search) {
		t.Errorf("the CLI should link %s", search)
	}
}

// The MCP SDK is cairn-mcp's alone: it doubles a binary's size and start-up time, and the hooks
// and the CLI run as fresh processes (`cairn session resume` is held to 2× a bare binary:
// docs/DESIGN.md, Budgets).
func TestOnlyTheServerLinksMCP(t *testing.T) {
	const sdk = "github.com/modelcontextprotocol/go-sdk/mcp"
	for _, b := range append([]string{"cairn"}, hooks...) {
		if slices.Contains(deps(t, b), sdk) {
			t.Errorf("%s links %s", b, sdk)
		}
	}
	if !slices.Contains(deps(t, "cairn-mcp"), sdk) {
		t.Errorf("cairn-mcp should link %s", sdk)
	}
}

// Layering reads downward (docs/DESIGN.md, The parts): no library package imports the hooks'
// runner (pkg/hookio) or anything under hooks/; the file layer (safefile) knows nothing of the
// project's domain (project); the session store (registry) renders no text for the model (brief).
func TestLayering(t *testing.T) {
	const mod = "github.com/cairn-hooks/cairn/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../pkg/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := map[string][]string{
		mod + "pkg/safefile": {mod + "pkg/project"},
		mod + "pkg/registry": {mod + "pkg/brief"},
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		n++
		for _, imp := range imports {
			if imp == mod+"pkg/hookio" && pkg != mod+"pkg/hookio" {
				t.Errorf("%s imports the hook runner %s", pkg, imp)
			}
			if strings.HasPrefix(imp, mod+"hooks/") {
				t.Errorf("%s imports %s: libraries do not import the binaries", pkg, imp)
			}
			if slices.Contains(forbidden[pkg], imp) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
	if n < 30 {
		t.Fatalf("go list gave %d packages under pkg/: the pattern is wrong", n)
	}
}

// The top level is the design card: the binaries (hooks), the libraries (pkg), the
// tools (scripts), every test of the built binaries (testscripts), the installer, the module and
// the documents. A new kind of thing finds its room under one of these, never beside them.
var topLevel = []string{
	".ci", ".gitattributes", ".gitignore", "LICENSE", "README.md", "docs", "go.mod", "go.sum",
	"hooks", "install.sh", "pkg", "scripts", "testscripts",
}

// TestTopLevel fails if git tracks anything at the top of the repository that is not on the
// card.
func TestTopLevel(t *testing.T) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v): the tracked top level is not checked", err)
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		top, _, _ := strings.Cut(p, "/")
		if !seen[top] && !slices.Contains(topLevel, top) {
			t.Errorf("git tracks %s at the top level: move it under hooks/, pkg/, scripts/, testscripts/ or docs/ (or add it to topLevel with the reason)", top)
		}
		seen[top] = true
	}
	if !seen["go.mod"] || !seen["testscripts"] {
		t.Fatalf("git ls-files from %s does not list go.mod and testscripts: the directory is wrong", cmd.Dir)
	}
}

// testscripts/testbin builds binaries for tests; it is not under an internal/ directory (so that
// hooks/cairn-mcp's test can import it), so this keeps it out of every build but a test's.
func TestTestbinOnlyInTests(t *testing.T) {
	const testbin = "github.com/cairn-hooks/cairn/testscripts/testbin"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if slices.Contains(f[1:], testbin) {
			t.Errorf("%s imports %s outside its tests", f[0], testbin)
		}
	}
}
