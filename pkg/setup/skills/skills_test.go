package skills

import (
	"bytes"
	"fmt"
	"io/fs"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"

	"github.com/cairn-hooks/cairn/pkg/runstate"
)

func TestTemplates(t *testing.T) {
	// Every template directory is a listed skill and every listed skill has a template.
	entries, err := fs.ReadDir(templates, "templates")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		dirs = append(dirs, e.Name())
	}
	want := slices.Clone(Names)
	slices.Sort(want)
	if !slices.Equal(dirs, want) {
		t.Fatalf("templates %v; Names %v", dirs, want)
	}
	// The mode commands every skill must name (README.md, Manual commands).
	commands := map[string][]string{
		"session": {"session resume", "session archive", "session summary", "session park question",
			"session park deferred", "session park side", "session list", "session inbox", "session broadcast"},
		"context-save":       {"context save", "context list"},
		"context-restore":    {"context restore"},
		"session-continuity": {"run start", "run set", "run show", "run end"},
	}
	for _, name := range Names {
		data, err := Render(name, "/opt/my tools/cairn", ToolsInstalled)
		if err != nil {
			t.Fatal(err)
		}
		// The plugin's render differs only in the MCP tools' names, which it has in full.
		plugin, err := Render(name, "/opt/my tools/cairn", ToolsPlugin)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.ReplaceAll(plugin, []byte(ToolsPlugin), []byte(ToolsInstalled)), data) || bytes.Contains(plugin, []byte(" "+ToolsInstalled)) {
			t.Errorf("%s: the plugin's render is not the settings render with the plugin's tool names", name)
		}
		var fm struct {
			Name         string `yaml:"name"`
			Description  string `yaml:"description"`
			ArgumentHint string `yaml:"argument-hint"`
			AllowedTools string `yaml:"allowed-tools"`
		}
		body, err := frontmatter.Parse(bytes.NewReader(data), &fm)
		if err != nil {
			t.Fatalf("%s: frontmatter: %v", name, err)
		}
		if fm.Name != name || fm.Description == "" || len(fm.Description) > 1024 || fm.ArgumentHint == "" || !allowedTools(fm.AllowedTools) {
			t.Errorf("%s: frontmatter %+v", name, fm)
		}
		if !IsCairn(data) {
			t.Errorf("%s: IsCairn = false", name)
		}
		if bytes.Contains(data, []byte("{{")) {
			t.Errorf("%s: a placeholder is left", name)
		}
		if !bytes.Contains(body, []byte("$ARGUMENTS")) {
			t.Errorf("%s: the body does not use $ARGUMENTS", name)
		}
		for _, c := range commands[name] {
			if !bytes.Contains(body, []byte("'/opt/my tools/cairn' "+c)) {
				t.Errorf("%s: no command `%s` with the quoted path", name, c)
			}
		}
	}
	// The rules of the original /session workflow that must survive in the session skill: the
	// question for an empty /session, with the options, and the unknown-flag line with the
	// abort-or-continue question, and the rules on archive, the guard and session start.
	session, _ := Render("session", "/c", ToolsInstalled)
	flat := strings.Join(strings.Fields(string(session)), " ")
	for _, rule := range []string{
		"When $ARGUMENTS is empty, or its first word is none of the modes below",
		`do not guess and do not run anything: use the AskUserQuestion tool to ask the user "Which session mode did you want?"`,
		"(a) resume", "(b) archive <name>", "(c) summary", "(d) park",
		"`! Unknown flag(s): --<token>. Supported modes: resume, archive, summary, park, list, inbox, broadcast.`",
		"use the AskUserQuestion tool to ask the user whether to (a) abort", "(b) continue without the unknown flags. Run nothing until they answer.",
	} {
		if !strings.Contains(flat, rule) {
			t.Errorf("session: %q is missing", rule)
		}
	}
	for _, rule := range []string{"ask the user which item to\n  archive", "ask the user to archive some items first", "not brought up when a session starts"} {
		if !bytes.Contains(session, []byte(rule)) {
			t.Errorf("session: rule %q is missing", rule)
		}
	}
	continuity, _ := Render("session-continuity", "/c", ToolsInstalled)
	for _, s := range []string{"## Current state", "## In progress", "## Next", "## Decisions", "## Blockers", "200 lines", "MUST NOT resume"} {
		if !bytes.Contains(continuity, []byte(s)) {
			t.Errorf("session-continuity: %q is missing", s)
		}
	}
	// Sentences the original workflows' skills had and these keep, the AskUserQuestion tool
	// they name for a question to the user, and what is true of the hooks today.
	for name, rules := range map[string][]string{
		"context-save": {`"Use /context-restore instead — save and restore are separate skills now."`,
			"use the AskUserQuestion tool only if the title genuinely cannot be inferred"},
		"context-restore": {"Use the AskUserQuestion tool to ask the user how to go on", "A) continue", "B) show the whole saved file", "C) nothing more"},
		"session-continuity": {"PreCompact still writes the session snapshot",
			fmt.Sprintf("keep the five sections under %d lines between them", runstate.WhiteboardLines-3)},
	} {
		data, _ := Render(name, "/c", ToolsInstalled)
		flat := strings.Join(strings.Fields(string(data)), " ")
		for _, r := range rules {
			if !strings.Contains(flat, r) {
				t.Errorf("%s: %q is missing", name, r)
			}
		}
	}
	if bytes.Contains(continuity, []byte("inert")) {
		t.Error("session-continuity: the hooks are not inert without a run (PreCompact writes the snapshot and a checkpoint)")
	}
	if _, err := Render("nope", "/c", ToolsInstalled); err == nil {
		t.Error("Render of an unknown skill succeeded")
	}
}

func TestIsCairn(t *testing.T) {
	for in, want := range map[string]bool{
		"---\nname: session\nmetadata:\n  generator: cairn\n---\nbody\n": true,
		"---\nname: session\ndescription: mine\n---\nbody\n":             false,
		"---\nmetadata:\n  generator: someone\n---\n":                    false,
		"no frontmatter, generator: cairn\n":                             false,
		"---\nmetadata: [\n---\n":                                        false,
	} {
		if got := IsCairn([]byte(in)); got != want {
			t.Errorf("IsCairn(%q) = %v; want %v", in, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"/usr/bin/cairn", "/my dir/cairn", "/it's/$HOME/`x`/\"q\"/a\\b", "C:/x y/cairn.exe"} {
		q := ShellQuote(s)
		if regexp.MustCompile(`^[A-Za-z0-9/._+,:@%=-]+$`).MatchString(s) != (q == s) {
			t.Errorf("ShellQuote(%q) = %q", s, q)
		}
		out, err := exec.Command(sh, "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %q back as %q (%v)", q, out, err)
		}
	}
	if !strings.HasPrefix(ShellQuote(""), "'") {
		t.Error("ShellQuote(\"\") is not quoted")
	}
}

// allowedTools accepts Bash followed by cairn's MCP tools only.
func allowedTools(s string) bool {
	tools := strings.Split(s, ", ")
	if tools[0] != "Bash" {
		return false
	}
	for _, t := range tools[1:] {
		name, ok := strings.CutPrefix(t, ToolsInstalled)
		if !ok || !slices.Contains([]string{"search", "show", "list_checkpoints", "save_checkpoint", "park", "list_parked", "archive", "list_sessions", "broadcast"}, name) {
			return false
		}
	}
	return true
}
