package setup

import (
	"bytes"
	"strings"
)

// A project install keeps what must never be committed out of git with a block of its own in
// .claude/.gitignore: the personal settings.local.json it approves its MCP server in (Claude
// Code's own file for a person's approvals), cairn's binaries and derived index, and the runtime
// state under .claude/state/ (the session registry, logs, locks, the checkpoint catalog and the
// parked items, which belong to one clone). Everything else cairn writes is the project's to
// decide (README, "What to commit"). The block is cairn's: install writes it again when it
// differs, uninstall takes it out, and the rest of the file is left byte for byte.
const (
	ignoreBegin = "# cairn: runtime state, binaries and personal settings (cairn install writes this block; cairn uninstall removes it)"
	ignoreEnd   = "# end of cairn's block"
)

// ignoreLines are the block's patterns, relative to .claude/.
var ignoreLines = []string{"/cairn/", "/settings.local.json", "/state/"}

// ignoreBlock is cairn's block, each line ended by eol.
func ignoreBlock(eol string) string {
	return ignoreBegin + eol + strings.Join(ignoreLines, eol) + eol + ignoreEnd + eol
}

// findIgnoreBlock returns the byte range of cairn's block in data, its end line included, or
// ok false when there is none (or only a begin line without its end, which is left alone).
func findIgnoreBlock(data []byte) (start, end int, ok bool) {
	off := 0
	start = -1
	for off < len(data) {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		line := strings.TrimRight(string(data[off:next]), "\r\n")
		switch {
		case start < 0 && line == ignoreBegin:
			start = off
		case start >= 0 && line == ignoreEnd:
			return start, next, true
		}
		off = next
	}
	return 0, 0, false
}

// withIgnoreBlock returns data with cairn's block in it: appended when missing, replaced when
// it differs, in the file's line endings.
func withIgnoreBlock(data []byte) []byte {
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	block := ignoreBlock(eol)
	if start, end, ok := findIgnoreBlock(data); ok {
		return append(append(append([]byte(nil), data[:start]...), block...), data[end:]...)
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	return append(out, block...)
}

// withoutIgnoreBlock returns data without cairn's block, and whether it held one.
func withoutIgnoreBlock(data []byte) ([]byte, bool) {
	start, end, ok := findIgnoreBlock(data)
	if !ok {
		return data, false
	}
	return append(append([]byte(nil), data[:start]...), data[end:]...), true
}
