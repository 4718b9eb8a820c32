package testscripts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/setup/skills"
)

// Every command line the skills tell Claude to run works when each piece of user text starts with
// "-" ("--force push fix" used to exit 2, and the skills told Claude to run it again). The
// command lines are taken from the rendered skills themselves, their placeholders filled with
// such text, and run through sh as the Bash tool runs them, in a real git project on a fake HOME.
func TestSkillCommandsTakeTextStartingWithDash(t *testing.T) {
	cairn := filepath.Join(binDir, "cairn")
	var lines []string
	for _, name := range skills.Names {
		lines = append(lines, skillCommands(t, name, cairn)...)
	}
	// Placeholders get text that starts with "-"; a <key>=<value> gets a value that does.
	fill := strings.NewReplacer(
		"'<key>=<value>'…", "'phase=-review'",
		"'<key>=<value>'", "'phase=-review'",
		"'<N>'", "'-42'",
		"'<P>'", "'-7'",
		"'<id>'", "'dash-run'", // a run id is a name, not text: it may not start with "-"
		"'<text>'", "'-idea text'", // archive the item park parked
		"'<fragment or number>'", "'-title text'", // restore the context save saved
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

	proj, env := skillsProject(t)
	if resultIDs == 0 {
		t.Errorf("no skill runs cairn show with %s", resultID)
	}
	if len(runnable) < 12 {
		t.Fatalf("only %d command lines found in the skills:\n%s", len(runnable), strings.Join(runnable, "\n"))
	}
	for _, l := range runnable {
		if strings.Contains(l, resultID) {
			// show takes an id that search gave: the first for the text parked and saved above.
			id := firstResultID(t, cairn, proj, env, "text")
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

// skillCommands are the command lines skill name tells Claude to run, in the order it names
// them: each `<cairn> …` in backquotes, and each line of a fenced block that starts with cairn.
func skillCommands(t *testing.T, name, cairn string) []string {
	t.Helper()
	data, err := skills.Render(name, cairn, skills.ToolsInstalled)
	if err != nil {
		t.Fatal(err)
	}
	q := regexp.QuoteMeta(skills.ShellQuote(cairn))
	re := regexp.MustCompile("(?m)`(" + q + " [^`]*)`|^ *(" + q + " .*)$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// skillProse are the places a skill names a command in passing, not as one to run: each
// skill's, as written after cairn's path. Every other command line of a skill runs in
// TestSkillCommandsAsWritten.
var skillProse = map[string][]string{
	"session-continuity": {"run set"}, // "Record run state with `cairn run set`"
}

// TestSkillCommandsAsWritten runs every command line of every skill as the skill writes it,
// through sh as the Bash tool runs it, with its placeholders filled in as Claude would fill
// them, in a real git project on a fake HOME: each must succeed, and what it prints is what
// the skill says it prints. A command a skill names that cannot run as written (a flag that
// is gone, a quoting the CLI reads otherwise) fails here.
func TestSkillCommandsAsWritten(t *testing.T) {
	cairn := filepath.Join(binDir, "cairn")
	proj, env := skillsProject(t)
	idea := 0
	fill := func(l string) string {
		r := strings.NewReplacer(
			"'<key>=<value>'…", "'phase=review' 'gate_spec=pass'",
			"'<N>'", "'42'", "'<P>'", "'7'", "'<id>'", "'skills-run'",
			"'<why>'", "'it can wait'", "'<how>'", "'ask once the parser is done'",
			"'<question asked>'", "'which cache?'", "'<why it was deferred>'", "'the parser comes first'",
			"'<what we were doing>'", "'writing the parser'",
			"'<text>'", "'skills idea 1'", "'<message>'", "'hello from the skills test'",
			"'<summary>'", "'the parser is half done'", "'<decisions>'", "'- tokens stream, not buffer'",
			"'<remaining>'", "'1. wire the parser'", "'<notes>'", `'it'\''s slow on 1 GB'`, // a quote written as the skills say
			"'<title>'", "'skills test save'", "'<fragment or number>'", "'skills test save'",
			"'<words>'", "'parser'",
		)
		if strings.Contains(l, "'<idea>'") {
			idea++
			l = strings.Replace(l, "'<idea>'", fmt.Sprintf("'skills idea %d'", idea), 1)
		}
		return r.Replace(l)
	}
	// What a command prints, by the command: what the skill tells Claude to show.
	want := map[string]*regexp.Regexp{
		" run start":                regexp.MustCompile(`(?m)^Run skills-run started: `),
		" run show":                 regexp.MustCompile(`"run_id": "skills-run"|run_id`),
		" session park":             regexp.MustCompile(`(?m)^Parked: skills-idea-\d `),
		" session resume":           regexp.MustCompile(`(?m)^## Session Pending — `),
		" session archive":          regexp.MustCompile(`(?m)^Archived: skills-idea-1$`),
		" context save":             regexp.MustCompile(`(?m)^CONTEXT SAVED\n═+\nTitle:    skills test save$`),
		" context list":             regexp.MustCompile(`(?m)^SAVED CONTEXTS \(main branch\)$`),
		" context restore":          regexp.MustCompile(`(?m)^RESUMING CONTEXT\n(.*\n)*### Decisions Made\n- tokens stream, not buffer$`),
		" search --kind checkpoint": regexp.MustCompile(`(?m)^saved · just now · main · skills test save$`),
		" session summary":          regexp.MustCompile(`(?m)^## Session Summary — |→ `),
		" session broadcast":        regexp.MustCompile(`(?m)^Broadcast `),
		" run end":                  regexp.MustCompile(`(?m)skills-run`),
	}
	type line struct{ skill, cmd string }
	var lines []line
	for _, name := range skills.Names {
		ran := 0
		for _, l := range skillCommands(t, name, cairn) {
			rest := strings.TrimPrefix(l, skills.ShellQuote(cairn)+" ")
			if slices.Contains(skillProse[name], rest) {
				continue
			}
			lines = append(lines, line{name, l})
			ran++
		}
		if ran == 0 {
			t.Errorf("%s: no command line found", name)
		}
	}
	rank := func(l string) int {
		for i, w := range []string{"run start", "run set", "run show", "session park", "session resume", "session archive", "context save", "context list", "context restore", "search", "show", "session", "run end"} {
			if strings.Contains(l, " "+w) {
				return i
			}
		}
		return 99
	}
	sort.SliceStable(lines, func(i, j int) bool { return rank(lines[i].cmd) < rank(lines[j].cmd) })
	for _, l := range lines {
		cmdline := fill(l.cmd)
		if strings.Contains(cmdline, resultID) {
			cmdline = strings.ReplaceAll(cmdline, resultID, skills.ShellQuote(firstResultID(t, cairn, proj, env, "parser")))
		}
		if p := regexp.MustCompile(`'<[^>]*>'`).FindString(cmdline); p != "" {
			t.Errorf("%s: %s: placeholder %s has no value in this test", l.skill, cmdline, p)
			continue
		}
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Dir, cmd.Env = proj, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %s\n  failed: %v\n%s%s", l.skill, cmdline, err, stdout.String(), stderr.String())
			continue
		}
		if stderr.Len() > 0 {
			t.Errorf("%s: %s\n  wrote to stderr: %s", l.skill, cmdline, stderr.String())
		}
		for k, re := range want {
			if strings.Contains(l.cmd, k) && !re.MatchString(stdout.String()) {
				t.Errorf("%s: %s\n  printed %q; want a match for %s", l.skill, cmdline, stdout.String(), re)
			}
		}
	}
}

// skillsProject is a git project on a fake HOME, and the environment the skills' commands run
// in there: Claude Code's session id, as the Bash tool has it.
func skillsProject(t *testing.T) (proj string, env []string) {
	t.Helper()
	work := t.TempDir()
	home := filepath.Join(work, "home")
	proj = filepath.Join(work, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"CLAUDE_PROJECT_DIR="+proj, "CLAUDE_CODE_SESSION_ID=skills-test", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"), "TZ=UTC", "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	git := exec.Command("git", "init", "-q", "-b", "main")
	git.Dir, git.Env = proj, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return proj, env
}

// resultID is the skills' placeholder for an id that cairn search printed.
const resultID = "'<result id>'"

// firstResultID is the id of the best result of cairn search for query in proj.
func firstResultID(t *testing.T, cairn, proj string, env []string, query string) string {
	t.Helper()
	cmd := exec.Command(cairn, "search", "--json", "--limit", "1", "--", query)
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
		t.Fatalf("cairn search found nothing for %q, which the skills parked and saved (%v):\n%s", query, err, out)
	}
	return r.Results[0].ID
}
