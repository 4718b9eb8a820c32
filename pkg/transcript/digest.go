package transcript

import (
	"io"
	"slices"
	"strings"
)

// Digest is what one session did, read forwards over its whole transcript (Messages): what
// `cairn show session:<id>` prints. Its strings are cleaned (plain.Text) but not redacted: the
// caller redacts them on their way out, as it does everything it prints.
type Digest struct {
	Cwd    string // where the session started: the first line's cwd
	Branch string // the last gitBranch seen
	// Start and End are the first and the last timestamps, as written.
	Start, End string
	Prompts    int      // how many prompts the user typed
	First      []string // the first prompts, in order (at most digestFirst)
	Last       []string // the last prompts after those, in order (at most digestLast)
	Edited     []string // the files edited, most recently edited first (at most digestEdited)
	MoreEdited int      // files edited besides those
	Commands   []Command
	// MoreCommands counts the commands run before those listed (the last digestCommands, in the
	// order they ran).
	MoreCommands int
	Summaries    []string // Claude Code's compaction summaries, oldest first (the last digestSummaries)
	Decisions    []string // sentences that state a decision, oldest first (the last digestDecisions)
}

// Bounds of a Digest: enough to say what a session was about, and what it left, on one screen or
// two.
const (
	digestFirst      = 3
	digestLast       = 3
	digestEdited     = 40
	digestCommands   = 20
	digestSummaries  = 3
	digestDecisions  = 10
	digestSummary    = 2000 // runes of each summary
	digestPromptRune = 500  // runes of each prompt
	maxDigestPaths   = 4096 // distinct paths remembered
)

// ReadDigest reads the transcript at path whole, in bounded memory, for its Digest. A missing
// file gives ok false and no error.
func ReadDigest(path string) (d Digest, ok bool, err error) {
	ok, err = withFile(path, func(r io.ReaderAt, size int64) error {
		d = digestAt(r, size)
		return nil
	})
	return d, ok, err
}

func digestAt(r io.ReaderAt, size int64) Digest {
	var (
		d       Digest
		pending = map[string]*Command{}
		cmds    []*Command
		lastAt  = map[string]int{} // path → the position of its last edit
		n       int
	)
	Messages(r, 0, size, func(m *Message) bool {
		if m == nil {
			return true
		}
		if d.Cwd == "" && m.Cwd != "" {
			d.Cwd = clean(m.Cwd)
		}
		if m.Branch != "" && m.Branch != d.Branch {
			d.Branch = clean(m.Branch)
		}
		if m.Time != "" {
			if d.Start == "" {
				d.Start = clean(m.Time)
			}
			if m.Time != d.End {
				d.End = clean(m.Time)
			}
		}
		switch m.Kind {
		case Typed:
			d.Prompts++
			p := oneLine(m.Text, digestPromptRune)
			if len(d.First) < digestFirst {
				d.First = append(d.First, p)
			} else if d.Last = append(d.Last, p); len(d.Last) > digestLast {
				d.Last = d.Last[1:]
			}
			d.decisions(m.Text)
		case Said:
			d.decisions(m.Text)
		case Summarized:
			s := strings.TrimSpace(clean(m.Text))
			if r := []rune(s); len(r) > digestSummary {
				s = string(r[:digestSummary-1]) + "…"
			}
			if d.Summaries = append(d.Summaries, s); len(d.Summaries) > digestSummaries {
				d.Summaries = d.Summaries[1:]
			}
		case Ran:
			c := &Command{Line: oneLine(m.Text, maxCommandRunes), Status: "no result"}
			if len(pending) >= maxBashIDs {
				clear(pending)
			}
			pending[m.ID] = c
			if cmds = append(cmds, c); len(cmds) > digestCommands {
				cmds = cmds[1:]
				d.MoreCommands++
			}
		case Outcome:
			if c, ok := pending[m.ID]; ok {
				c.Status, c.Output = clean(m.Status), clean(m.Text)
				delete(pending, m.ID)
			}
		case Edited:
			p := clean(m.Text)
			if _, seen := lastAt[p]; seen || len(lastAt) < maxDigestPaths {
				lastAt[p] = n
			}
			n++
		}
		return true
	})
	for p := range lastAt {
		d.Edited = append(d.Edited, p)
	}
	slices.SortFunc(d.Edited, func(a, b string) int { return lastAt[b] - lastAt[a] })
	if len(d.Edited) > digestEdited {
		d.MoreEdited = len(d.Edited) - digestEdited
		d.Edited = d.Edited[:digestEdited]
	}
	for _, c := range cmds {
		d.Commands = append(d.Commands, *c)
	}
	return d
}

// decisions notes the decisions text states, the last digestDecisions, each once.
func (d *Digest) decisions(text string) {
	if len(text) > maxDecisionLine || !mayDecideText([]byte(text)) {
		return
	}
	for _, s := range Decided(text) {
		if slices.Contains(d.Decisions, s) {
			continue
		}
		if d.Decisions = append(d.Decisions, s); len(d.Decisions) > digestDecisions {
			d.Decisions = d.Decisions[1:]
		}
	}
}
