package testscripts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var hooks = []string{"precompact", "postcompact", "sessionstart", "sessionend", "userpromptsubmit", "pretooluse"}

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
	// another binary's version is the CLI's (pkg/setup's Stamp).
	heavy := []string{"github.com/adrg/frontmatter", "gopkg.in/yaml.v2", "github.com/BurntSushi/toml", "github.com/cairn-hooks/cairn/pkg/checkpoint/saved",
		"debug/buildinfo", "compress/flate", "github.com/cairn-hooks/cairn/pkg/setup"}
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
// index is derived data no hook needs, so none links pkg/search — nor the history's tombstones
// and cairn forget, which only the CLI runs. Transcripts are indexed by the CLI, never in a hook.
func TestHooksLinkNoSearch(t *testing.T) {
	const mod = "github.com/cairn-hooks/cairn/"
	cli := []string{mod + "pkg/search", mod + "pkg/forget", mod + "pkg/tombstone"}
	for _, hook := range hooks {
		for _, p := range cli {
			if slices.Contains(deps(t, hook), p) {
				t.Errorf("%s links %s", hook, p)
			}
		}
	}
	for _, p := range cli {
		if !slices.Contains(deps(t, "cairn"), p) {
			t.Errorf("the CLI should link %s", p)
		}
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
// project's domain (project); the session store (registry) and the claim store (claims) render no
// text for the model (brief), and claims reads no transcript: the flow that warns (collision)
// does both, above it;
// the format of one checkpoint file (checkpoint) sits below its catalog (checkpoint/catalog) and
// its YAML reader (checkpoint/saved) and knows no project, run, task list or timeline. The
// installation is a library the CLI calls (testSetupLayer).
func TestLayering(t *testing.T) {
	t.Run("setup", testSetupLayer)
	const mod = "github.com/cairn-hooks/cairn/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../pkg/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := map[string][]string{
		mod + "pkg/safefile": {mod + "pkg/project"},
		mod + "pkg/registry": {mod + "pkg/brief"},
		mod + "pkg/claims":   {mod + "pkg/brief", mod + "pkg/collision", mod + "pkg/transcript"},
		mod + "pkg/checkpoint": {mod + "pkg/checkpoint/catalog", mod + "pkg/checkpoint/saved", mod + "pkg/project",
			mod + "pkg/runstate", mod + "pkg/tasks", mod + "pkg/timeline"},
		// The tombstones are a file format any reader of the history checks: below search and
		// forget, knowing no project.
		mod + "pkg/tombstone": {mod + "pkg/search", mod + "pkg/forget", mod + "pkg/project"},
		// The transcript reader answers questions of one file: it indexes nothing.
		mod + "pkg/transcript": {mod + "pkg/search", mod + "pkg/tombstone"},
	}
	// The handles a process opens (pkg/stores) are handed to the flows by the hooks: no package
	// below the flows opens them, so a file is read through one handle per process.
	flows := []string{mod + "pkg/compaction", mod + "pkg/handback", mod + "pkg/handoff"}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		n++
		for _, imp := range imports {
			if imp == mod+"pkg/stores" && !slices.Contains(flows, pkg) {
				t.Errorf("%s imports %s: only the flows (%v) are handed the handles", pkg, imp, flows)
			}
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
	// cairn forget is a command's flow: the CLI alone runs it (the MCP server runs the CLI).
	all, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(all)), "\n") {
		f := strings.Fields(line)
		if slices.Contains(f[1:], mod+"pkg/forget") && f[0] != mod+"hooks/cairn" {
			t.Errorf("%s imports pkg/forget: only the CLI runs cairn forget", f[0])
		}
	}
}

// testSetupLayer keeps the installation — install, uninstall, doctor, the plugin build, client
// detection — in pkg/setup and its parts, a library that the CLI alone calls:
//   - no package but hooks/cairn imports pkg/setup or a part of it, so no hook binary and not
//     cairn-mcp links it (each is checked with go list -deps too);
//   - hooks/cairn, the command glue, holds no file named install*, doctor*, plugin* or client*:
//     that logic has one home, and a command's file there is named for what it glues (setup.go);
//   - pkg/setup reads nothing of the world itself: the environment, the working directory, this
//     executable, the clock and the standard streams come in its Host and project.Project.
func testSetupLayer(t *testing.T) {
	const mod = "github.com/cairn-hooks/cairn/"
	const setup = mod + "pkg/setup"
	inSetup := func(pkg string) bool { return pkg == setup || strings.HasPrefix(pkg, setup+"/") }
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if inSetup(f[0]) {
			continue
		}
		for _, imp := range f[1:] {
			if !inSetup(imp) {
				continue
			}
			if f[0] != mod+"hooks/cairn" {
				t.Errorf("%s imports %s: only the CLI (hooks/cairn) calls the installation", f[0], imp)
			}
			importers++
		}
	}
	if importers == 0 {
		t.Fatalf("hooks/cairn imports nothing of %s: the pattern is wrong", setup)
	}
	for _, b := range append([]string{"cairn-mcp"}, hooks...) {
		for _, d := range deps(t, b) {
			if inSetup(d) {
				t.Errorf("%s links %s", b, d)
			}
		}
	}

	glue, err := os.ReadDir("../hooks/cairn")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range glue {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, prefix := range []string{"install", "doctor", "plugin", "client"} {
			if strings.HasPrefix(name, prefix) {
				t.Errorf("hooks/cairn/%s: the %s logic lives in pkg/setup; the CLI keeps the flags, the call and the printing (setup.go)", name, prefix)
			}
		}
	}

	world := map[string]bool{"os.Getenv": true, "os.LookupEnv": true, "os.Environ": true, "os.Getwd": true,
		"os.Executable": true, "os.Stdin": true, "os.Stdout": true, "os.Stderr": true, "os.Exit": true, "time.Now": true}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir("../pkg/setup", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && world[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s: %s.%s: pkg/setup is given the world (Host, project.Project), it does not read it", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("%d files under ../pkg/setup: the path is wrong", files)
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
