// Package skills holds the Claude Code skills cairn installs under .claude/skills/ —
// session, context-save, context-restore and session-continuity — each a SKILL.md that tells
// Claude which cairn command to run for a mode and what rules to keep, instead of shell snippets
// to re-type.
//
// The templates live in templates/<name>/SKILL.md and are embedded in the cairn binary, so an
// installed cairn needs no source tree. Render substitutes the absolute path of the cairn CLI
// for {{CAIRN}}, so a skill works whether or not cairn is on PATH, and the prefix of cairn's MCP
// tool names for {{MCP}}: Claude Code names a plugin's MCP tools differently from those of a
// server in .mcp.json or ~/.claude.json.
//
// It is a part of package setup, kept as a package of its own because its templates are a
// contract of their own — the commands Claude is told to run, checked against the CLI by this
// package's tests and testscripts' TestSkillCommandsAsWritten — and cairn context's file filter
// asks IsCairn of it without the installer.
package skills

import (
	"bytes"
	"embed"
	"fmt"
	"strings"

	"github.com/adrg/frontmatter"
)

//go:embed templates
var templates embed.FS

// Names are cairn's skills, in the order they are installed and listed.
var Names = []string{"session", "context-save", "context-restore", "session-continuity"}

// placeholder is replaced by the shell-quoted path of the cairn CLI, mcpPlaceholder by the
// prefix of cairn's MCP tool names.
const (
	placeholder    = "{{CAIRN}}"
	mcpPlaceholder = "{{MCP}}"
)

// The prefixes of cairn's MCP tool names (the tool is the rest: mcp__cairn__search). Claude Code
// names the tools of a server registered under "cairn" mcp__cairn__<tool>, and those of the
// server "cairn" of the plugin "cairn" mcp__plugin_cairn_cairn__<tool> (testscripts/e2e/FINDINGS.md).
const (
	ToolsInstalled = "mcp__cairn__"
	ToolsPlugin    = "mcp__plugin_cairn_cairn__"
)

// generator is the value of metadata.generator in the frontmatter of every skill cairn writes:
// it is how uninstall (and an upgrade) tells cairn's SKILL.md from one a person wrote.
const generator = "cairn"

// Render returns the SKILL.md of skill name with cairn, the absolute path of the CLI, and tools,
// the prefix of cairn's MCP tool names (ToolsInstalled or ToolsPlugin), substituted.
func Render(name, cairn, tools string) ([]byte, error) {
	data, err := templates.ReadFile("templates/" + name + "/SKILL.md")
	if err != nil {
		return nil, fmt.Errorf("no skill %q", name)
	}
	data = bytes.ReplaceAll(data, []byte(placeholder), []byte(ShellQuote(cairn)))
	return bytes.ReplaceAll(data, []byte(mcpPlaceholder), []byte(tools)), nil
}

// IsCairn reports whether data is a SKILL.md that cairn wrote: its frontmatter has
// metadata.generator set to generator.
func IsCairn(data []byte) bool {
	var fm struct {
		Metadata struct {
			Generator string `yaml:"generator"`
		} `yaml:"metadata"`
	}
	if _, err := frontmatter.Parse(bytes.NewReader(data), &fm); err != nil {
		return false
	}
	return fm.Metadata.Generator == generator
}

// ShellQuote returns s as one shell word: unchanged when it holds only characters no shell
// treats specially, else in single quotes, each single quote inside it closed, escaped with a
// backslash and reopened.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
