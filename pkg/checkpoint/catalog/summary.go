package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/flatmatter"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// summaryLabel opens Claude Code's own summary inside an automatic checkpoint's Summary, after
// cairn's lines: what follows it, to the end of the section, is the compact_summary that
// PostCompact received, so that a person or Claude reading the checkpoint knows whose words they
// are.
const summaryLabel = "Claude Code's own summary of the conversation, written at this compaction (compact_summary; secrets redacted):"

// decisionsInSummary replaces autoEntry's "not recorded" Decisions once the summary is there.
const decisionsInSummary = "Not recorded separately: Claude Code's summary above covers the conversation's decisions."

// maxSummaryBytes bounds the summary kept: Claude Code's are a few thousand words; a larger one
// is cut, and the cut said.
const maxSummaryBytes = 64 << 10

// CompactSummary turns PostCompact's compact_summary — the model's raw reply to the compaction
// request, an <analysis> block then the <summary> — into the text a checkpoint keeps: the
// analysis dropped, the summary's tags removed, text only (plain.Body: secrets redacted, control
// characters gone), cut to 64 KiB. A reply without the tags is kept whole.
func CompactSummary(raw string) string {
	s := raw
	if i := strings.Index(s, "<analysis>"); i >= 0 {
		if j := strings.Index(s[i:], "</analysis>"); j >= 0 {
			s = s[:i] + s[i+j+len("</analysis>"):]
		}
	}
	if i := strings.Index(s, "<summary>"); i >= 0 {
		s = s[i+len("<summary>"):]
		if j := strings.LastIndex(s, "</summary>"); j >= 0 {
			s = s[:j]
		}
	}
	s = strings.TrimSpace(plain.Body(s))
	if len(s) > maxSummaryBytes {
		n := len(s)
		cut := maxSummaryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("\n\n… (cut by cairn: the summary was %d bytes; the rest is in Claude Code's transcript)", n)
	}
	return s
}

// errNotAuto reports a checkpoint that is not (or no longer) an automatic one.
var errNotAuto = errors.New("not an automatic checkpoint")

// AttachSummary keeps summary (CompactSummary's text) in the automatic checkpoint c: cairn's
// own lines of the Summary stay first, then summaryLabel and the summary; the Decisions line
// says the summary covers them; the Notes end with the loss record, what cairn's record of the
// compaction (the files, the session record) holds that the summary lacks (checkpoint.Lost). Only the body is rewritten — the frontmatter keeps its bytes —
// and a repeat with the same summary changes nothing (changed false). A checkpoint whose kind is
// no longer auto is left alone (errNotAuto).
func AttachSummary(files safefile.Writer, root string, c Entry, summary string) (changed bool, err error) {
	return files.Update(c.Path(root), checkpoint.Perm, func(old []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, fmt.Errorf("%s: %w", c.File, fs.ErrNotExist)
		}
		fields, body, closed := flatmatter.Split(old)
		if !closed {
			return nil, fmt.Errorf("%s: %w", c.File, errNotAuto)
		}
		fm := checkpoint.ReadFrontmatter(fields)
		if fm.Kind != checkpoint.KindAuto {
			return nil, fmt.Errorf("%s: %w", c.File, errNotAuto)
		}
		heading, sec := checkpoint.ParseBody(body)
		own := sec.Summary // cairn's lines, before any summary attached already
		if strings.HasPrefix(own, summaryLabel) {
			own = ""
		} else if i := strings.Index(own, "\n"+summaryLabel); i >= 0 {
			own = own[:i]
		}
		own = strings.TrimRight(own, "\n")
		var s strings.Builder
		if own != "" {
			s.WriteString(own + "\n\n")
		}
		s.WriteString(summaryLabel + "\n\n" + summary)
		sec.Summary = s.String()
		if !strings.HasPrefix(sec.Decisions, decisionsInSummary) {
			run := strings.Contains(sec.Decisions, runstate.MemoryName)
			sec.Decisions = decisionsInSummary
			if run {
				sec.Decisions += " See also the run's MEMORY.md, ## Decisions."
			}
		}
		// The loss record: what cairn held of this compaction that the summary lacks.
		_, notes := checkpoint.ReadLoss(sec.Notes)
		if loss := checkpoint.LossBlock(checkpoint.ReadRecord(notes).Lost(fm.Files, summary)); loss != "" {
			if notes != "" {
				notes += "\n\n"
			}
			notes += loss
		}
		sec.Notes = notes
		var b bytes.Buffer
		b.Write(old[:len(old)-len(body)])
		// Every section was redacted when the checkpoint was written, the summary by
		// CompactSummary: a second pass over a long summary would cost PostCompact a third of
		// its budget and change nothing.
		return checkpoint.RenderBody(&b, checkpoint.Entry{Title: heading, Sections: sec}, func(s string) string { return s }), nil
	}, safefile.Limit(checkpoint.MaxRead))
}

// ClaudeSummary returns the Claude Code summary an automatic checkpoint's Summary section
// holds (what follows summaryLabel), or "".
func ClaudeSummary(section string) string {
	if strings.HasPrefix(section, summaryLabel) {
		return strings.TrimSpace(section[len(summaryLabel):])
	}
	if i := strings.Index(section, "\n"+summaryLabel); i >= 0 {
		return strings.TrimSpace(section[i+1+len(summaryLabel):])
	}
	return ""
}

// maxSummaryTasks bounds the items pendingInSummary returns.
const maxSummaryTasks = 8

// pendingInSummary returns the items of the "Pending Tasks" section of Claude Code's compaction
// summary (text holding it, such as a checkpoint's Summary), at most maxSummaryTasks, each one
// line: Claude Code's summaries are numbered sections ("7. Pending Tasks:", then "- item" lines,
// then "8. Current Work:"), and that section is the one record of what was still to do that a
// session keeps when the task tools are off (current models from Claude Code 2.1.268). Items that
// only say there is nothing ("None", "No pending tasks") are left out.
func pendingInSummary(text string) []string {
	var out []string
	summarySection(text, func(head string) bool { return strings.HasPrefix(head, "pending tasks") }, func(t string) bool {
		item := plain.Line(strings.TrimSpace(strings.TrimLeft(t, "-*•0123456789. ")), maxTaskRunes)
		low := strings.ToLower(strings.Trim(item, ".: "))
		if item == "" || low == "none" || strings.HasPrefix(low, "none ") || strings.HasPrefix(low, "no pending") || strings.HasPrefix(low, "no tasks") {
			return true
		}
		out = append(out, item)
		return len(out) < maxSummaryTasks
	})
	return out
}

// nextInSummary returns the first line of the "Optional Next Step" section (or "Next Step") of
// Claude Code's compaction summary (text holding it), "" when there is none: the summarising
// model's own reading of what was to come next, in its words.
func nextInSummary(text string) string {
	next := ""
	summarySection(text, func(head string) bool {
		return head == "optional next step" || head == "next step" || head == "next steps"
	}, func(t string) bool {
		if step := strings.TrimSpace(strings.TrimLeft(t, "-*•")); !namesNoStep(step) {
			next = plain.Line(step, maxTaskRunes)
		}
		return false
	})
	return next
}

// stepFiller are the words of a next step that names nothing: "Continue with the user's latest
// request.", "None: the work is complete.", "Proceed with the current task."
var stepFiller = []string{"continue", "continuing", "proceed", "resume", "keep", "going", "with", "the", "user", "user's",
	"users", "latest", "last", "current", "request", "requests", "task", "tasks", "work", "working", "on", "next", "step",
	"steps", "any", "as", "requested", "none", "no", "is", "complete", "completed", "done", "nothing", "further", "pending", "a", "to", "be", "of"}

// namesNoStep reports a next step made of stepFiller alone: it says there is work, not which.
func namesNoStep(step string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(step, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		if !slices.Contains(stepFiller, w) {
			return false
		}
	}
	return true
}

// maxSummaryDecisions bounds the items decidedInSummary returns.
const maxSummaryDecisions = 4

// decidedInSummary returns the decisions Claude Code's compaction summary (text holding it)
// states in its "Problem Solving" section, or a section whose heading names decisions ("Key
// Decisions"), at most maxSummaryDecisions, each one line: the summary restates what the
// conversation settled in its own words ("Decided to keep amounts in integer cents."), whatever
// words the user or Claude had stated it in, and so keeps decisions no rule of cairn's read in the
// transcript. An item is taken when it states a decision by transcript.Decided's rule.
func decidedInSummary(text string) []string {
	var out []string
	summarySection(text, func(head string) bool {
		return head == "problem solving" || strings.Contains(head, "decision")
	}, func(t string) bool {
		item := strings.TrimSpace(strings.TrimLeft(t, "-*•0123456789. "))
		if vague(item) {
			return true
		}
		for _, d := range transcript.Decided(item) {
			out = append(out, plain.Line(d, maxTaskRunes))
			if len(out) == maxSummaryDecisions {
				return false
			}
		}
		return true
	})
	return out
}

// vagueChoices name a choice without saying which: "Settled on an approach for the data after
// some discussion" says that something was decided, and nothing a later session could act on.
var vagueChoices = []string{" an approach", " a solution", " a plan", " an option", " a direction", " a way forward", " some approach"}

// vague reports an item of a summary that says a decision was made without saying which.
func vague(item string) bool {
	l := strings.ToLower(item)
	return slices.ContainsFunc(vagueChoices, func(v string) bool {
		i := strings.Index(l, v)
		return i >= 0 && (i+len(v) == len(l) || !unicode.IsLetter(rune(l[i+len(v)])))
	})
}

// maxTaskRunes bounds one task line.
const maxTaskRunes = 200

// summarySection calls each with every non-empty line (trimmed) of the sections of Claude Code's
// summary in text whose heading open accepts (given its name in lower case, as summaryHeading
// reads it), in order, until each returns false. A bold label set in ("   **High priority:**")
// labels part of a section: it neither ends the section nor is one of its lines.
func summarySection(text string, open func(head string) bool, each func(t string) bool) {
	in := false
	for l := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(l)
		if head, label, ok := summaryHeading(t); ok {
			if !label || !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				in = open(head)
			}
			continue
		}
		if in && t != "" && !each(t) {
			return
		}
	}
}

// summaryHeading reports whether line t (trimmed) opens a section of Claude Code's summary, and
// the section's name in lower case: a markdown heading ("## Pending Tasks"), a number, a dot and
// words ending in a colon ("8. Current Work:"), bold or not ("**8. Current Work:**"), or a line
// that is only a bold label ("**Pending Tasks:**", label true), which is a heading only when it is
// not set in.
func summaryHeading(t string) (head string, label, ok bool) {
	name := func() string { return strings.ToLower(strings.Trim(strings.TrimLeft(t, "0123456789. #*_"), "*_: ")) }
	if strings.HasPrefix(t, "#") {
		return name(), false, true
	}
	if !strings.HasSuffix(strings.TrimRight(t, "*_ "), ":") {
		return "", false, false
	}
	bold := strings.TrimLeft(t, "*_")
	i := 0
	for i < len(bold) && bold[i] >= '0' && bold[i] <= '9' {
		i++
	}
	if i > 0 && i < len(bold) && bold[i] == '.' {
		return name(), false, true
	}
	if len(bold) < len(t) && !strings.ContainsAny(strings.Trim(t, "*_: "), "*_") {
		return name(), true, true // the whole line is one bold label
	}
	return "", false, false
}
