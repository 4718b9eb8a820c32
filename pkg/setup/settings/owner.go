package settings

import (
	"path"
	"strings"
)

// CLIName is the command-line tool's binary, named by cairn's Bash permission rule.
const CLIName = "cairn"

// Owner recognises cairn's entries in a settings file by the executable they run: a hook binary
// (one of Hooks) or, for a permission rule, the cairn CLI, at an absolute path — the only
// kind install writes, or one under $CLAUDE_PROJECT_DIR — that lies either in one of BinDirs or in any directory ending in
// "cairn/bin", the directory install.sh installs into at both scopes. A relative path
// ("tools/cairn/bin/precompact") is never cairn's: it would name a file a cloned repository
// supplies. The second rule lets an upgrade that moved the binaries (another checkout, another
// scope) still find and replace the old entries; a hook binary of the same name elsewhere (say
// /usr/local/bin/precompact) belongs to someone else and is never touched.
type Owner struct {
	BinDirs []string
	// Hooks are the names of cairn's hook binaries, without ".exe". The CLI passes the names of
	// the hooks it wires (one table, pkg/setup's hookSpecs), so a hook added there is
	// recognised here with no other change.
	Hooks []string
}

// OwnsCommand reports whether a hook handler's command is one of cairn's hook binaries. In exec
// form (the handler has "args") the command is the executable's path as it stands; in shell form
// it is the first word with its shell quotes removed, so entries written by hand or by an older,
// shell-form cairn are recognised too.
func (o Owner) OwnsCommand(command string, execForm bool) bool {
	if !execForm {
		command = firstWord(command)
	}
	return o.owns(command, o.Hooks...)
}

// ownsRule reports whether a permission rule is cairn's: "Bash(<cairn>:*)", "Bash(<cairn> *)" or
// "Bash(<cairn>)" with <cairn> the path of the CLI in a cairn bin directory, taken literally.
func (o Owner) ownsRule(rule string) bool {
	inner, ok := strings.CutPrefix(rule, "Bash(")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return false
	}
	for _, suffix := range []string{":*", " *"} {
		if p, ok := strings.CutSuffix(inner, suffix); ok {
			inner = p
			break
		}
	}
	return o.owns(inner, CLIName)
}

func (o Owner) owns(p string, names ...string) bool {
	if p == "" {
		return false
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if !absolute(p) {
		return false
	}
	base := strings.TrimSuffix(path.Base(p), ".exe")
	known := false
	for _, n := range names {
		known = known || base == n
	}
	if !known {
		return false
	}
	dir := path.Dir(p)
	for _, d := range o.BinDirs {
		if d != "" && dir == path.Clean(strings.ReplaceAll(d, `\`, "/")) {
			return true
		}
	}
	return path.Base(dir) == "bin" && path.Base(path.Dir(dir)) == "cairn"
}

// absolute reports a path that names one file wherever the command runs: "/…" on Unix, a drive
// ("C:/…") or a UNC share ("//host/…") on Windows, or a path under the project root as Claude
// Code expands it ($CLAUDE_PROJECT_DIR/…, as people write shell-form entries by hand).
func absolute(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "$CLAUDE_PROJECT_DIR/") || strings.HasPrefix(p, "${CLAUDE_PROJECT_DIR}/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// firstWord returns the first word of a shell command with its quotes removed: enough to read
// the executable of `"/My Dir/.claude/cairn/bin/precompact" --flag` or
// `"$CLAUDE_PROJECT_DIR"/.claude/cairn/bin/precompact`. Variables are not expanded.
func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Executable returns the path of the program the handler runs: the command itself in exec form,
// the first word of the command, unquoted, in shell form.
func (e Entry) Executable() string {
	if e.Exec {
		return e.Command
	}
	return firstWord(e.Command)
}
