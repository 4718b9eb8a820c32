package testscripts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/skills"
)

// Every command line the skills tell Claude to run works when each piece of user text starts with
// "-" ("--force push fix" used to exit 2, and the skills told Claude to run it again). The
// command lines are taken from the rendered skills themselves, their placeholders filled with
// such text, and run through sh as the Bash tool runs them, in a real git project on a fake HOME.
func TestSkillCommandsTakeTextStartingWithDash(t *testing.T) {
	cairn := filepath.Join(binDir, "cairn")
	cmdRe := regexp.MustCompile("`(" + regexp.QuoteMeta(skills.ShellQuote(cairn)) + " [^`]*)`")
	var lines []string
	for _, name := range skills.Names {
		data, err := skills.Render(name, cairn, skills.ToolsInstalled)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cmdRe.FindAllStringSubmatch(string(data), -1) {
			lines = append(lines, m[1])
		}
	}
	// Placeholders get text that starts with "-"; a <key>=<value> gets a value that does.
	fill := strings.NewReplacer(
		"'<key>=<value>'…", "'phase=-review'",
		"'<key>=<value>'", "'phase=-review'",
		"'<N>'", "'-42'",
		"'<P>'", "'-7'",
		"'<id>'", "'dash-run'", // a run id is a name, not text: it may not start with "-"
		"'<text>'", "'-idea text'", // archive the item park parked
		resultID, resultID, // filled when it runs, from a search
	)
	placeholder := regexp.MustCompile(`'<[^>]*>'`)
	resultIDs := 0
	var runnable []string
	for _, l := range lines {
		if strings.Contains(l, "…") && !strings.Contains(l, "'<key>=<value>'…") || strings.HasSuffix(l, " run set") {
			continue // prose about a command, not a command line
		}
		l = fill.Replace(l)
		l = placeholder.ReplaceAllStringFunc(l, func(p string) string {
			if p == resultID {
				resultIDs++
				return p
			}
			return "'-" + strings.Trim(p, "'<>") + " text'"
		})
		runnable = append(runnable, l)
	}
	// Run them in an order where each finds what it needs: the run first, park before archive,
	// save before restore, the run's end last.
	rank := func(l string) int {
		for i, w := range []string{"run start", "run set", "run show", "session park", "session archive", "context save", "context restore", "context list", "session", "run end"} {
			if strings.Contains(l, " "+w) {
				return i
			}
		}
		return 99
	}
	sort.SliceStable(runnable, func(i, j int) bool { return rank(runnable[i]) < rank(runnable[j]) })

	work := t.TempDir()
	home, proj := filepath.Join(work, "home"), filepath.Join(work, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"CLAUDE_PROJECT_DIR="+proj, "CLAUDE_CODE_SESSION_ID=skills-test", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"))
	git := exec.Command("git", "init", "-q", "-b", "main")
	git.Dir, git.Env = proj, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if resultIDs == 0 {
		t.Errorf("no skill runs cairn show with %s", resultID)
	}
	if len(runnable) < 12 {
		t.Fatalf("only %d command lines found in the skills:\n%s", len(runnable), strings.Join(runnable, "\n"))
	}
	for _, l := range runnable {
		if strings.Contains(l, resultID) {
			// show takes an id that search gave: the first for the text parked and saved above.
			id := firstResultID(t, cairn, proj, env)
			l = strings.ReplaceAll(l, resultID, skills.ShellQuote(id))
		}
		cmd := exec.Command("sh", "-c", l)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s\n  failed: %v\n%s", l, err, out)
		}
	}
}

// resultID is the skills' placeholder for an id that cairn search printed.
const resultID = "'<result id>'"

// firstResultID is the id of the best result of cairn search for "text" in proj.
func firstResultID(t *testing.T, cairn, proj string, env []string) string {
	t.Helper()
	cmd := exec.Command(cairn, "search", "--json", "--limit", "1", "--", "text")
	cmd.Dir, cmd.Env = proj, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cairn search: %v\n%s", err, out)
	}
	var r struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Results) == 0 {
		t.Fatalf("cairn search found nothing for text the skills parked and saved (%v):\n%s", err, out)
	}
	return r.Results[0].ID
}
