package settings

import (
	"errors"
	"strings"
	"testing"
)

const bin = "/p/.claude/cairn/bin"

// hooks are the hook binaries the tests wire; cairn's CLI passes its own table.
var hooks = []string{"sessionstart", "userpromptsubmit", "precompact", "sessionend"}

var owner = Owner{BinDirs: []string{bin}, Hooks: hooks}

func plan(dir string) Plan {
	return Plan{Hooks: []Hook{
		{Event: "SessionStart", Command: dir + "/sessionstart", Timeout: 10},
		{Event: "PreCompact", Command: dir + "/precompact", Timeout: 30},
	}, Rule: "Bash(" + dir + "/cairn:*)"}
}

func mustInstall(t *testing.T, in string, p Plan) string {
	t.Helper()
	out, err := Install([]byte(in), p, owner)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	again, err := Install(out, p, owner)
	if err != nil {
		t.Fatalf("second Install: %v", err)
	}
	if string(again) != string(out) {
		t.Fatalf("second Install changed the file:\nfirst:\n%s\nsecond:\n%s", out, again)
	}
	return string(out)
}

func mustUninstall(t *testing.T, in string) string {
	t.Helper()
	out, _, err := Uninstall([]byte(in), owner)
	if err != nil {
		t.Fatalf("Uninstall: %v", err)
	}
	return string(out)
}

func check(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, got, want)
	}
}

func TestInstallIntoNothing(t *testing.T) {
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/p/.claude/cairn/bin/sessionstart",
            "args": [],
            "timeout": 10
          }
        ]
      }
    ],
    "PreCompact": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/p/.claude/cairn/bin/precompact",
            "args": [],
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`
	for _, in := range []string{"", "  \n", "{}\n"} {
		got := mustInstall(t, in, plan(bin))
		check(t, "install into "+strings.TrimSpace(in), got, want)
	}
	// Uninstall leaves an empty object, which the caller may delete.
	out := mustUninstall(t, want)
	check(t, "uninstall", out, "{}\n")
	if !Empty([]byte(out)) {
		t.Errorf("Empty(%q) = false", out)
	}
}

// A file with other hooks, other keys, four-space indentation, and a group with a matcher.
const userFile = `{
    "model": "opus",
    "hooks": {
        "PreCompact": [
            {
                "matcher": "manual",
                "hooks": [
                    { "type": "command", "command": "/usr/local/bin/notify compacting" }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "say done"
                    }
                ]
            }
        ]
    },
    "env": {"A": "1"}
}
`

func TestInstallKeepsEverythingElse(t *testing.T) {
	got := mustInstall(t, userFile, plan(bin))
	want := `{
    "model": "opus",
    "hooks": {
        "PreCompact": [
            {
                "matcher": "manual",
                "hooks": [
                    { "type": "command", "command": "/usr/local/bin/notify compacting" }
                ]
            },
            {
                "matcher": "",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/p/.claude/cairn/bin/precompact",
                        "args": [],
                        "timeout": 30
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "say done"
                    }
                ]
            }
        ],
        "SessionStart": [
            {
                "matcher": "",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/p/.claude/cairn/bin/sessionstart",
                        "args": [],
                        "timeout": 10
                    }
                ]
            }
        ]
    },
    "env": {"A": "1"}
}
`
	check(t, "install", got, want)
	check(t, "uninstall", mustUninstall(t, got), userFile)
}

func TestInstallKeepsTabsAndCRLF(t *testing.T) {
	in := "{\r\n\t\"model\": \"opus\"\r\n}\r\n"
	got := mustInstall(t, in, Plan{Hooks: plan(bin).Hooks[1:]})
	want := "{\r\n\t\"model\": \"opus\",\r\n\t\"hooks\": {\r\n\t\t\"PreCompact\": [\r\n\t\t\t{\r\n" +
		"\t\t\t\t\"matcher\": \"\",\r\n\t\t\t\t\"hooks\": [\r\n\t\t\t\t\t{\r\n" +
		"\t\t\t\t\t\t\"type\": \"command\",\r\n\t\t\t\t\t\t\"command\": \"/p/.claude/cairn/bin/precompact\",\r\n" +
		"\t\t\t\t\t\t\"args\": [],\r\n\t\t\t\t\t\t\"timeout\": 30\r\n\t\t\t\t\t}\r\n\t\t\t\t]\r\n\t\t\t}\r\n" +
		"\t\t]\r\n\t}\r\n}\r\n"
	check(t, "install", got, want)
	check(t, "uninstall", mustUninstall(t, got), in)
}

func TestInstallKeepsOneLine(t *testing.T) {
	in := `{"model":"opus","hooks":{}}`
	got := mustInstall(t, in, Plan{Hooks: plan(bin).Hooks[1:]})
	want := `{"model":"opus","hooks":{"PreCompact":[{"matcher":"","hooks":[{"type":"command","command":"/p/.claude/cairn/bin/precompact","args":[],"timeout":30}]}]}}`
	check(t, "install", got, want)
	// "hooks" was empty before: cairn's removal empties it again but does not delete a key that
	// cairn did not create... it cannot tell, so it removes what its removal emptied.
	check(t, "uninstall", mustUninstall(t, got), `{"model":"opus"}`)
}

func TestUpgradeReplacesInPlace(t *testing.T) {
	// An older cairn: shell form, another checkout's bin dir, a matcher, no timeout; a duplicate
	// in a group shared with someone else's handler; an event cairn no longer uses.
	in := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup|compact",
        "hooks": [
          {"type": "command", "command": "'/old checkout/.claude/cairn/bin/sessionstart'"}
        ]
      },
      {
        "matcher": "",
        "hooks": [
          {"type": "command", "command": "echo hi"},
          {"type": "command", "command": "/old/.claude/cairn/bin/sessionstart", "args": []}
        ]
      }
    ],
    "PostCompact": [
      {"hooks": [{"type": "command", "command": "/old/.claude/cairn/bin/precompact", "args": []}]}
    ]
  },
  "permissions": {"allow": ["Read", "Bash(/old/.claude/cairn/bin/cairn:*)"], "deny": []}
}
`
	p := plan(bin)
	p.RuleMode = keepRule
	got := mustInstall(t, in, p)
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/p/.claude/cairn/bin/sessionstart",
            "args": [],
            "timeout": 10
          }
        ]
      },
      {
        "matcher": "",
        "hooks": [
          {"type": "command", "command": "echo hi"}
        ]
      }
    ],
    "PreCompact": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/p/.claude/cairn/bin/precompact",
            "args": [],
            "timeout": 30
          }
        ]
      }
    ]
  },
  "permissions": {"allow": ["Read", "Bash(/p/.claude/cairn/bin/cairn:*)"], "deny": []}
}
`
	check(t, "upgrade", got, want)
}

func TestLeavesOthersAlone(t *testing.T) {
	// Same names, but not in a cairn bin dir; other handler types; a cairn path in an http hook.
	in := `{
  "hooks": {
    "PreCompact": [
      {"matcher": "", "hooks": [{"type": "command", "command": "/usr/local/bin/precompact", "args": []}]},
      {"matcher": "", "hooks": [{"type": "http", "url": "http://x", "command": "/p/.claude/cairn/bin/precompact"}]}
    ]
  },
  "permissions": {"allow": ["Bash(/usr/local/bin/cairn:*)", "Bash(/p/.claude/cairn/bin/precompact:*)"]}
}`
	out, n, err := Uninstall([]byte(in), owner)
	if err != nil || n != 0 || string(out) != in {
		t.Fatalf("Uninstall = %q, %d, %v; want the input, 0, nil", out, n, err)
	}
	got := mustInstall(t, in, Plan{Hooks: plan(bin).Hooks[1:]})
	if !strings.Contains(got, `"/usr/local/bin/precompact"`) || strings.Count(got, `"matcher"`) != 3 {
		t.Errorf("install touched someone else's entries:\n%s", got)
	}
	check(t, "uninstall after install", mustUninstall(t, got), in)
}

func TestRuleModes(t *testing.T) {
	in := `{
  "permissions": {
    "allow": []
  }
}
`
	p := Plan{Rule: "Bash(/p/.claude/cairn/bin/cairn:*)", RuleMode: AddRule}
	added := mustInstall(t, in, p)
	check(t, "add", added, `{
  "permissions": {
    "allow": [
      "Bash(/p/.claude/cairn/bin/cairn:*)"
    ]
  }
}
`)
	p.RuleMode = keepRule
	check(t, "keep", mustInstall(t, added, p), added)
	check(t, "keep adds none", mustInstall(t, in, p), in)
	p.RuleMode = RemoveRule
	check(t, "remove", mustInstall(t, added, p), "{}\n")

	p.RuleMode = AddRule
	check(t, "add to a file without permissions", mustInstall(t, `{"a": 1}`, p),
		`{"a": 1, "permissions": {"allow": ["Bash(/p/.claude/cairn/bin/cairn:*)"]}}`)
	check(t, "add beside deny", mustInstall(t, "{\n  \"permissions\": {\n    \"deny\": [\"X\"]\n  }\n}", p),
		"{\n  \"permissions\": {\n    \"deny\": [\"X\"],\n    \"allow\": [\n      \"Bash(/p/.claude/cairn/bin/cairn:*)\"\n    ]\n  }\n}")
}

func TestRefused(t *testing.T) {
	p := plan(bin)
	p.RuleMode = AddRule
	for _, in := range []string{
		`{"a": 1,}`,
		`[]`,
		`"x"`,
		"\xef\xbb\xbf{}",
		`{"hooks": []}`,
		`{"hooks": null}`,
		`{"hooks": {"PreCompact": {}}}`,
		`{"hooks": {}, "hooks": {}}`,
		`{"hooks": {"PreCompact": [], "PreCompact": []}}`,
		`{"permissions": []}`,
		`{"permissions": {"allow": "Bash"}}`,
		`{"permissions": {"allow": [], "allow": []}}`,
		`{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}`,
		`{"a": 1} {"b": 2}`,
	} {
		if _, err := Install([]byte(in), p, owner); !errors.Is(err, ErrInvalid) {
			t.Errorf("Install(%s): err = %v; want ErrInvalid", in, err)
		}
	}
	_, err := Install([]byte("{\n  \"a\": 1,\n}"), p, owner)
	if err == nil || !strings.Contains(err.Error(), "line 3, column 1") {
		t.Errorf("error %v does not name the position", err)
	}
	if _, _, err := Uninstall([]byte(`{"hooks": {`), owner); !errors.Is(err, ErrInvalid) {
		t.Errorf("Uninstall of invalid JSON: err = %v; want ErrInvalid", err)
	}
}

func TestEntries(t *testing.T) {
	got := mustInstall(t, userFile, plan(bin))
	es, err := Entries([]byte(got), owner)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Event + " " + e.Matcher + " " + e.Command)
		if e.Exec {
			b.WriteString(" exec")
		}
		if e.Cairn {
			b.WriteString(" cairn")
		}
		if e.Timeout > 0 {
			b.WriteString(" timeout")
		}
		b.WriteString("\n")
	}
	check(t, "entries", b.String(), `PreCompact manual /usr/local/bin/notify compacting
PreCompact  /p/.claude/cairn/bin/precompact exec cairn timeout
Stop  say done
SessionStart  /p/.claude/cairn/bin/sessionstart exec cairn timeout
`)
}

func TestOwner(t *testing.T) {
	o := Owner{BinDirs: []string{"/opt/tools/bin"}, Hooks: hooks}
	for _, c := range []struct {
		cmd  string
		exec bool
		want bool
	}{
		{"/opt/tools/bin/precompact", true, true},
		{"/opt/tools/bin/precompact.exe", true, true},
		{"/opt/tools/bin/other", true, false},
		{"/usr/bin/precompact", true, false},
		{"/home/me/.claude/cairn/bin/sessionend", true, true},
		{"C:/Users/me/.claude/cairn/bin/userpromptsubmit.exe", true, true},
		{`C:\Users\me\.claude\cairn\bin\userpromptsubmit.exe`, true, true},
		{`"$CLAUDE_PROJECT_DIR"/.claude/cairn/bin/precompact --dry-run`, false, true},
		{`'/my dir/.claude/cairn/bin/precompact'`, false, true},
		{`/my dir/.claude/cairn/bin/precompact`, false, false}, // shell form splits at the space
		{`/my dir/.claude/cairn/bin/precompact`, true, true},
		{`/opt/tools/bin/cairn`, true, false},              // the CLI is not a hook
		{`tools/cairn/bin/precompact`, true, false},        // relative: a repository's file
		{`./.claude/cairn/bin/precompact`, true, false},    // relative
		{`"tools/cairn/bin/precompact" --x`, false, false}, // relative, shell form
		{`${CLAUDE_PROJECT_DIR}/.claude/cairn/bin/sessionend`, true, true},
		{``, false, false},
	} {
		if got := o.OwnsCommand(c.cmd, c.exec); got != c.want {
			t.Errorf("OwnsCommand(%q, %v) = %v; want %v", c.cmd, c.exec, got, c.want)
		}
	}
	for rule, want := range map[string]bool{
		"Bash(/opt/tools/bin/cairn:*)":            true,
		"Bash(/opt/tools/bin/cairn *)":            true,
		"Bash(/opt/tools/bin/cairn)":              true,
		"Bash(/my dir/.claude/cairn/bin/cairn:*)": true,
		"Bash(/opt/tools/bin/precompact:*)":       false,
		"Bash(cairn:*)":                           false,
		"Bash(tools/cairn/bin/cairn:*)":           false,
		"Read(/opt/tools/bin/cairn)":              false,
		"Bash(/opt/tools/bin/cairn:*":             false,
	} {
		if got := o.ownsRule(rule); got != want {
			t.Errorf("OwnsRule(%q) = %v; want %v", rule, got, want)
		}
	}
}

// A shell-form hook (for clients before exec form) has no "args"; installing the other form
// over it replaces the entry in place, and each is recognised as cairn's, quoted path and all.
func TestInstallShellForm(t *testing.T) {
	const dir = "/home/me/my proj'q\"$é/.claude/cairn/bin"
	quoted := `'/home/me/my proj'\''q"$é/.claude/cairn/bin/precompact'`
	shell := Plan{Hooks: []Hook{{Event: "PreCompact", Command: quoted, Timeout: 30, Shell: true}}}
	exec := Plan{Hooks: []Hook{{Event: "PreCompact", Command: dir + "/precompact", Timeout: 30}}}
	o := Owner{BinDirs: []string{dir}, Hooks: hooks}

	got, err := Install(nil, shell, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "PreCompact": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "'/home/me/my proj'\\''q\"$é/.claude/cairn/bin/precompact'",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`
	check(t, "shell form", string(got), want)
	es, err := Entries(got, o)
	if err != nil || len(es) != 1 || es[0].Exec || !es[0].Cairn || es[0].Executable() != dir+"/precompact" {
		t.Fatalf("Entries = %+v, %v; want one shell-form entry of cairn's running %s", es, err, dir+"/precompact")
	}

	// Exec form over shell form, and back: one entry each time, no stray copy.
	ex, err := Install(got, exec, o)
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := Entries(ex, o); len(es) != 1 || !es[0].Exec || es[0].Command != dir+"/precompact" {
		t.Errorf("exec form over shell form: %+v\n%s", es, ex)
	}
	back, err := Install(ex, shell, o)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "shell form again", string(back), want)
	un, n, err := Uninstall(back, o)
	if err != nil || n != 1 || !Empty(un) {
		t.Errorf("Uninstall = %q, %d, %v; want it empty, 1 removed", un, n, err)
	}
}

// Owner knows the hooks it is given, and no others: the CLI's table drives it.
func TestOwnerHooksFromTable(t *testing.T) {
	cmd := "/p/.claude/cairn/bin/postcompact"
	if (Owner{Hooks: hooks}).OwnsCommand(cmd, true) {
		t.Errorf("an Owner without postcompact owns %s", cmd)
	}
	if !(Owner{Hooks: append(hooks[:len(hooks):len(hooks)], "postcompact")}).OwnsCommand(cmd, true) {
		t.Errorf("an Owner with postcompact does not own %s", cmd)
	}
	if (Owner{}).OwnsCommand("/p/.claude/cairn/bin/precompact", true) {
		t.Errorf("an Owner with no hooks owns a hook")
	}
}

func TestMCPRules(t *testing.T) {
	read := []string{"mcp__cairn__search", "mcp__cairn__show"}
	in := "{\n  \"permissions\": {\n    \"allow\": [\"Read\", \"mcp__cairn__park\", \"mcp__cairnish__x\"]\n  }\n}\n"
	out := mustInstall(t, in, Plan{MCPRules: read})
	check(t, "install", out, "{\n  \"permissions\": {\n    \"allow\": [\"Read\", \"mcp__cairnish__x\", \"mcp__cairn__search\", \"mcp__cairn__show\"]\n  }\n}\n")
	// All tools: the server's rule replaces the tools' rules.
	all := mustInstall(t, out, Plan{MCPRules: []string{"mcp__cairn"}})
	check(t, "all", all, "{\n  \"permissions\": {\n    \"allow\": [\"Read\", \"mcp__cairnish__x\", \"mcp__cairn\"]\n  }\n}\n")
	// A duplicate is removed; a file without permissions gets them.
	check(t, "duplicate", mustInstall(t, `{"permissions": {"allow": ["mcp__cairn__show", "mcp__cairn__show"]}}`, Plan{MCPRules: []string{"mcp__cairn__show"}}),
		`{"permissions": {"allow": ["mcp__cairn__show"]}}`)
	check(t, "created", mustInstall(t, `{"a": 1}`, Plan{MCPRules: []string{"mcp__cairn__show"}}), `{"a": 1, "permissions": {"allow": ["mcp__cairn__show"]}}`)
	// Uninstall removes every rule of cairn's server, and no one else's.
	check(t, "uninstall", mustUninstall(t, all), "{\n  \"permissions\": {\n    \"allow\": [\"Read\", \"mcp__cairnish__x\"]\n  }\n}\n")
	if _, err := Install([]byte(`{"permissions": []}`), Plan{MCPRules: read}, owner); err == nil {
		t.Errorf("permissions that are not an object: no error")
	}
	for r, want := range map[string]bool{"mcp__cairn": true, "mcp__cairn__search": true, "mcp__cairnx": false, "mcp__cairnish__search": false, "Bash(cairn:*)": false} {
		if isMCPRule(r) != want {
			t.Errorf("IsMCPRule(%q) = %v", r, !want)
		}
	}
}

// A hook without a matcher (PreToolUse's) is written with none, reinstalled in place, read back
// and removed like the others.
func TestInstallNoMatcher(t *testing.T) {
	p := Plan{Hooks: []Hook{{Event: "PreToolUse", Command: bin + "/pretooluse", Timeout: 5, NoMatcher: true}}}
	want := `{
  "hooks": {
    "PreToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/p/.claude/cairn/bin/pretooluse",
            "args": [],
            "timeout": 5
          }
        ]
      }
    ]
  }
}
`
	owner := Owner{BinDirs: []string{bin}, Hooks: append(hooks[:len(hooks):len(hooks)], "pretooluse")}
	mustInstall := func(t *testing.T, in string, p Plan) string {
		out, err := Install([]byte(in), p, owner)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	got := mustInstall(t, "", p)
	check(t, "install", got, want)
	check(t, "reinstall", mustInstall(t, got, p), want)
	// An earlier cairn's group, with an empty matcher, is replaced by one without.
	old := strings.Replace(want, `      {
        "hooks"`, `      {
        "matcher": "",
        "hooks"`, 1)
	check(t, "upgrade", mustInstall(t, old, p), want)
	es, err := Entries([]byte(got), owner)
	if err != nil || len(es) != 1 || es[0].Event != "PreToolUse" || es[0].Matcher != "" || !es[0].Cairn || !es[0].Exec {
		t.Fatalf("Entries = %+v, %v", es, err)
	}
	out, _, err := Uninstall([]byte(got), owner)
	check(t, "uninstall", string(out), "{}\n")
	if err != nil {
		t.Fatal(err)
	}
}
