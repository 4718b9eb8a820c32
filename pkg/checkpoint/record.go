package checkpoint

import (
	"strconv"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/redact"
)

// Record is what cairn took from the transcript about what a session did besides editing files
// (those are files_modified): what Claude Code's compaction summaries drop most — the commands
// run and what came of them, the last error, the last commit — and what the next turn needs —
// Claude's open question and stated next step, the user's last requests. The automatic and
// hand-off checkpoints write it into their Notes as a block of "- key: value" lines
// (RecordBlock), and the hand-back reads it back from there (ReadRecord): one format, written
// and read by cairn, and, like every checkpoint's text, only ever handed to the model quoted.
type Record struct {
	Commands   []Command // most recent first
	More       int       // commands run before those, not listed
	LastError  string
	LastCommit string   // "<sha> <subject>"
	Question   string   // the question Claude's last message ended on, unanswered
	NextStep   string   // the next step Claude's last message stated
	Ended      string   // how Claude's last message ended, when it stated no question or next step cairn read
	Requests   []string // the user's last requests, most recent first, as typed
	First      string   // the session's first request: what it was started for
	Decisions  []string // decisions stated by the user or Claude, most recent first
}

// Command is one shell command of a Record.
type Command struct {
	Status string // "exit 0", "exit 1", "not run", "interrupted", "no result"
	Line   string // the command, one line
	Output string // for a failure, the most telling output line
}

// Failed reports whether the command ran and exited with a status other than 0.
func (c Command) Failed() bool { return strings.HasPrefix(c.Status, "exit ") && c.Status != "exit 0" }

// recordHead starts the block; ReadRecord finds it by this line.
const recordHead = "Session record, from the transcript (secrets redacted):"

// Bounds of a record block: one line per value, a few of each kind.
const (
	maxRecordCommands  = 12
	maxRecordRequests  = 3
	maxRecordDecisions = 3
	maxRecordRunes     = 300
)

// empty reports whether r holds nothing to write.
func (r Record) empty() bool {
	return len(r.Commands) == 0 && r.LastError == "" && r.LastCommit == "" && r.Question == "" &&
		r.NextStep == "" && r.Ended == "" && len(r.Requests) == 0 && r.First == "" && len(r.Decisions) == 0
}

// RecordBlock writes r as the block a checkpoint's Notes hold, every value redacted, then made
// one line and cut at a word (CutWords), so that no part of a secret is left at a cut; "" when r
// is empty. A command is "- command: <status>: <command line>", its telling output line the
// "- output: …" line after it: a command holds any text, so nothing after its status is split.
func RecordBlock(r Record) string {
	if r.empty() {
		return ""
	}
	var b strings.Builder
	b.WriteString(recordHead + "\n")
	line := func(key, v string) {
		if v = recordValue(v); v != "" {
			b.WriteString("- " + key + ": " + v + "\n")
		}
	}
	line("error", r.LastError)
	for i, c := range r.Commands {
		if i == maxRecordCommands {
			break
		}
		if cmd := recordValue(c.Line); cmd != "" {
			b.WriteString("- command: " + Status(c.Status) + ": " + cmd + "\n")
			line("output", c.Output)
		}
	}
	if more := r.More + max(len(r.Commands)-maxRecordCommands, 0); more > 0 {
		b.WriteString("- earlier commands: " + strconv.Itoa(more) + "\n")
	}
	line("commit", r.LastCommit)
	for i, d := range r.Decisions {
		if i == maxRecordDecisions {
			break
		}
		line("decision", d)
	}
	line("asked", r.Question)
	line("next", r.NextStep)
	line("ended", r.Ended)
	for i, q := range r.Requests {
		if i == maxRecordRequests {
			break
		}
		line("request", q)
	}
	line("first request", r.First)
	return strings.TrimSuffix(b.String(), "\n")
}

func recordValue(v string) string { return CutWords(plain.Line(redact.Redact(v), 0), maxRecordRunes) }

// CutWords cuts s to at most max runes (0: no bound) at a word boundary, ending it with "…": a
// cut never leaves part of a word, so a token that a redaction would have recognised whole cannot
// be left as a prefix it no longer recognises. A first word longer than max is dropped whole.
func CutWords(s string, max int) string {
	r := []rune(s)
	if max <= 0 || len(r) <= max {
		return s
	}
	cut := string(r[:max-1])
	if i := strings.LastIndexAny(cut, " \t"); i >= 0 {
		return strings.TrimRight(cut[:i], " \t") + " …"
	}
	return "…"
}

// Status is s when it is a status a record holds ("exit N", "not run", "interrupted", "no result",
// "result too long"), else "unknown": the status is written bare, so it must be one of cairn's
// words, never text from a file.
func Status(s string) string {
	switch s {
	case "not run", "interrupted", "no result", "result too long":
		return s
	}
	if n, ok := strings.CutPrefix(s, "exit "); ok && n != "" && len(n) <= 4 && strings.Trim(n, "-0123456789") == "" {
		if _, err := strconv.Atoi(n); err == nil {
			return s
		}
	}
	return "unknown"
}

// blockAt returns where the block whose first line is head starts in notes, or -1: the last line
// that is head itself, at a line's start. A prompt or a reply quoted in the Notes is a bullet
// ("- …") or a quote ("> …"), so it can hold head's words but never be that line.
func blockAt(notes, head string) int {
	at := -1
	for i := 0; i < len(notes); {
		j := strings.Index(notes[i:], head)
		if j < 0 {
			break
		}
		k := i + j
		end := k + len(head)
		if (k == 0 || notes[k-1] == '\n') && (end == len(notes) || notes[end] == '\n') {
			at = k
		}
		i = end
	}
	return at
}

// ReadRecord reads the record block back from a checkpoint's Notes; the zero Record when there
// is none. Lines it does not know are skipped, so that a hand-edited block reads as far as it can;
// a status that is not one of a record's is read as "unknown".
func ReadRecord(notes string) Record {
	var r Record
	i := blockAt(notes, recordHead)
	if i < 0 {
		return r
	}
	rest := strings.TrimPrefix(notes[i+len(recordHead):], "\n")
	for _, l := range strings.Split(rest, "\n") {
		key, v, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": ")
		if !ok || !strings.HasPrefix(l, "- ") {
			break // the block ends at its first line of another shape (a blank line)
		}
		v = plain.Line(v, maxRecordRunes)
		switch key {
		case "error":
			r.LastError = v
		case "command":
			status, cmd, _ := strings.Cut(v, ": ")
			if len(r.Commands) < maxRecordCommands {
				r.Commands = append(r.Commands, Command{Status: Status(status), Line: cmd})
			}
		case "output":
			if n := len(r.Commands); n > 0 && r.Commands[n-1].Output == "" {
				r.Commands[n-1].Output = v
			}
		case "earlier commands":
			r.More, _ = strconv.Atoi(v)
		case "commit":
			r.LastCommit = v
		case "asked":
			r.Question = v
		case "next":
			r.NextStep = v
		case "ended":
			r.Ended = v
		case "decision":
			if len(r.Decisions) < maxRecordDecisions {
				r.Decisions = append(r.Decisions, v)
			}
		case "first request":
			r.First = v
		case "request":
			if len(r.Requests) < maxRecordRequests {
				r.Requests = append(r.Requests, v)
			}
		}
	}
	return r
}

// lossHead starts the loss record: what cairn held of a compaction that Claude Code's summary
// of it lacks, written into the automatic checkpoint when PostCompact brings the summary.
const lossHead = "Not in Claude Code's summary (cairn's record holds them; secrets redacted):"

// maxLost bounds the loss record.
const maxLost = 24

// Lost lists what r and files (the paths edited) hold that summary does not mention, as
// "kind: value" lines in the hand-back's order: the last error, the commands, the last commit,
// the files, the question and the next step (or, without either, how Claude's last message ended). A path counts as mentioned when the summary names
// it or its base name; any other value when the summary holds it whole.
func (r Record) Lost(files []string, summary string) []string {
	var out []string
	add := func(kind, v string) {
		if v != "" && !strings.Contains(summary, v) && len(out) < maxLost {
			out = append(out, kind+": "+v)
		}
	}
	add("error", r.LastError)
	for _, c := range r.Commands {
		if c.Line != "" && !strings.Contains(summary, c.Line) && len(out) < maxLost {
			out = append(out, "command: "+Status(c.Status)+": "+c.Line)
		}
	}
	add("commit", r.LastCommit)
	for _, f := range files {
		if len(out) >= maxLost {
			break // a long file list is not searched past what the record can list
		}
		base := f[strings.LastIndexByte(f, '/')+1:]
		if !strings.Contains(summary, f) && !strings.Contains(summary, base) {
			out = append(out, "file: "+f)
		}
	}
	for _, d := range r.Decisions {
		add("decision", d)
	}
	add("asked", r.Question)
	add("next", r.NextStep)
	add("ended", r.Ended)
	return out
}

// LossBlock writes the loss record for a checkpoint's Notes; "" when nothing was lost.
func LossBlock(lost []string) string {
	if len(lost) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(lossHead)
	for _, l := range lost {
		b.WriteString("\n- " + recordValue(l))
	}
	return b.String()
}

// ReadLoss reads the loss record back from Notes, and returns Notes without it (so that a
// rewrite replaces the block rather than adding a second).
func ReadLoss(notes string) (lost []string, rest string) {
	i := blockAt(notes, lossHead)
	if i < 0 {
		return nil, notes
	}
	end := len(notes)
	lines := strings.SplitAfter(notes[i+len(lossHead):], "\n")
	off := i + len(lossHead)
	for j, l := range lines {
		if j == 0 && strings.TrimSpace(l) == "" {
			off += len(l)
			continue
		}
		if !strings.HasPrefix(l, "- ") {
			end = off
			break
		}
		lost = append(lost, plain.Line(strings.TrimPrefix(l, "- "), maxRecordRunes))
		off += len(l)
	}
	rest = strings.TrimRight(notes[:i], "\n")
	if tail := strings.TrimLeft(notes[end:], "\n"); tail != "" {
		if rest != "" {
			rest += "\n\n"
		}
		rest += tail
	}
	return lost, rest
}
