package recall

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// visible is text as the model reads it for matching: cairn writes "<" as "&lt;" where a fence
// could be closed, and a quoted value's '"' and '\' as \" and \\, which is undone; nothing
// else is. (A needle without '"' or '\' is found in the text exactly when it is found in what
// visible makes of it.)
func visible(text string) string { return unescape.Replace(text) }

var unescape = strings.NewReplacer("&lt;", "<", `\"`, `"`, `\\`, `\`)

// Found reports whether f shows in text: its needle appears (case-sensitively), and when f has
// Status spellings, one of them is on a line that holds the needle.
func Found(f Fact, text string) bool {
	text = visible(text)
	if len(f.Status) == 0 {
		return strings.Contains(text, f.Needle)
	}
	for line := range strings.Lines(text) {
		if !strings.Contains(line, f.Needle) {
			continue
		}
		for _, s := range f.Status {
			if strings.Contains(line, s) {
				return true
			}
		}
	}
	return false
}

// The arms: what the model has at a moment in each.
const (
	ArmCairn    = "cairn"         // the summary (after a compaction) and cairn's context
	ArmSummary  = "summary"       // Claude Code's summary alone (after a compaction only)
	ArmNone     = "none"          // nothing
	ArmRestored = "cairn+restore" // cairn's, plus what /context-restore prints for the checkpoint it names
)

// Row is the score of one arm at one moment, over every session.
type Row struct {
	Moment    string  `json:"moment"`
	Arm       string  `json:"arm"`
	Instances int     `json:"instances"` // moments scored (a session may compact twice)
	Facts     int     `json:"facts"`     // facts that hold, parked classes left out
	Kept      int     `json:"kept"`
	Recall    float64 `json:"recall"`
	// Chars is the mean number of characters the arm adds to the context per moment: cairn's
	// context (and the restored checkpoint for cairn+restore), or the summary for the summary arm.
	Chars    int `json:"chars_mean"`
	MaxChars int `json:"chars_max"`
	// SummaryLacks counts the facts the summary does not carry (all of them after /clear and at
	// startup, where there is no summary); Added, those of them the arm has all the same.
	SummaryLacks int `json:"summary_lacks"`
	Added        int `json:"added"`
	// NegativeChars sums the lengths of other projects' needles found in the arm's text;
	// Leaked counts the session's expired and archived items found there or in the parked list.
	NegativeChars int `json:"negative_chars"`
	Leaked        int `json:"expired_leaked"`
}

// ClassRow is one fact class at one moment.
type ClassRow struct {
	Moment string         `json:"moment"`
	Class  string         `json:"class"`
	Facts  int            `json:"facts"`
	Kept   map[string]int `json:"kept"` // by arm
}

// ParkedRow is a parked class at one moment: by design its text stays out of the context, and
// the user gets it by asking.
type ParkedRow struct {
	Moment    string `json:"moment"`
	Class     string `json:"class"`
	Facts     int    `json:"facts"`
	InContext int    `json:"in_context"` // in cairn's context
	Asked     int    `json:"asked"`      // listed by cairn session resume
}

// Report is the benchmark's result.
type Report struct {
	Seed     uint64      `json:"seed"`
	Phrasing string      `json:"phrasing,omitempty"` // the corpus's wordings (phrasing.go); "" is the default
	Sessions int         `json:"sessions"`
	MaxSize  int         `json:"max_size"`
	Bytes    int64       `json:"transcript_bytes"`
	Facts    int         `json:"facts"` // fact instances scored, parked ones included
	Rows     []Row       `json:"rows"`
	Classes  []ClassRow  `json:"classes"`
	Parked   []ParkedRow `json:"parked"`
	Stderr   []string    `json:"stderr,omitempty"`
}

// Row returns the row of moment and arm, or a zero Row.
func (r *Report) Row(moment, arm string) Row {
	for _, x := range r.Rows {
		if x.Moment == moment && x.Arm == arm {
			return x
		}
	}
	return Row{}
}

// armsAt lists the arms scored at a moment: after /clear and at startup there is no summary.
func armsAt(moment string) []string {
	if moment == AfterCompaction {
		return []string{ArmCairn, ArmSummary, ArmNone, ArmRestored}
	}
	return []string{ArmCairn, ArmNone, ArmRestored}
}

// text is what arm has at seen, and the characters the arm itself adds.
func (s *Seen) text(arm string) (text string, chars int) {
	switch arm {
	case ArmCairn:
		return s.Summary + "\n" + s.Context, utf8.RuneCountInString(s.Context)
	case ArmSummary:
		return s.Summary, utf8.RuneCountInString(s.Summary)
	case ArmRestored:
		return s.Summary + "\n" + s.Context + "\n" + s.Restored, utf8.RuneCountInString(s.Context) + utf8.RuneCountInString(s.Restored)
	}
	return "", 0
}

// negatives are the needles no session but the one they belong to may show.
type negatives struct {
	token  string
	needle []string
}

func negativesOf(s *Session) negatives {
	n := negatives{token: s.Token}
	seen := map[string]bool{}
	add := func(x string) {
		if !seen[x] {
			seen[x] = true
			n.needle = append(n.needle, x)
		}
	}
	for _, st := range s.Steps {
		for _, f := range st.Facts {
			add(f.Needle)
		}
	}
	add(s.Expired.Needle)
	add(s.Archived.Needle)
	return n
}

// foreignChars sums the lengths of the needles of sessions other than own found in text.
func foreignChars(text string, own int, all []negatives) int {
	text = visible(text)
	n := 0
	for j, neg := range all {
		if j == own || !strings.Contains(text, neg.token) {
			continue
		}
		for _, x := range neg.needle {
			if strings.Contains(text, x) {
				n += len(x)
			}
		}
	}
	return n
}

// Score scores the replays.
func Score(played []Played) Report {
	var rep Report
	all := make([]negatives, len(played))
	for i := range played {
		all[i] = negativesOf(played[i].Session)
		rep.Bytes += played[i].Bytes
	}
	rows := map[[2]string]*Row{}
	classes := map[[2]string]*ClassRow{}
	parked := map[[2]string]*ParkedRow{}
	stderr := map[string]bool{}
	for i := range played {
		p := &played[i]
		for _, line := range p.Stderr {
			if !stderr[line] {
				stderr[line] = true
				rep.Stderr = append(rep.Stderr, line)
			}
		}
		for k := range p.Seen {
			seen := &p.Seen[k]
			for _, arm := range armsAt(seen.Moment) {
				key := [2]string{seen.Moment, arm}
				row := rows[key]
				if row == nil {
					row = &Row{Moment: seen.Moment, Arm: arm}
					rows[key] = row
				}
				text, chars := seen.text(arm)
				row.Instances++
				row.Chars += chars
				row.MaxChars = max(row.MaxChars, chars)
				row.NegativeChars += foreignChars(text, i, all)
				for _, f := range []Fact{p.Session.Expired, p.Session.Archived} {
					if Found(f, text) || (arm == ArmCairn || arm == ArmRestored) && Found(f, seen.Asked) {
						row.Leaked++
					}
				}
				for _, f := range seen.Facts {
					found := Found(f, text)
					if Parked(f.Class) {
						if arm != ArmCairn {
							continue
						}
						pr := parked[[2]string{seen.Moment, f.Class}]
						if pr == nil {
							pr = &ParkedRow{Moment: seen.Moment, Class: f.Class}
							parked[[2]string{seen.Moment, f.Class}] = pr
						}
						pr.Facts++
						if Found(f, seen.Context) {
							pr.InContext++
						}
						if Found(f, seen.Asked) {
							pr.Asked++
						}
						continue
					}
					row.Facts++
					if found {
						row.Kept++
					}
					if !Found(f, seen.Summary) {
						row.SummaryLacks++
						if found {
							row.Added++
						}
					}
					ck := [2]string{seen.Moment, f.Class}
					cr := classes[ck]
					if cr == nil {
						cr = &ClassRow{Moment: seen.Moment, Class: f.Class, Kept: map[string]int{}}
						classes[ck] = cr
					}
					if arm == ArmCairn {
						cr.Facts++
					}
					if found {
						cr.Kept[arm]++
					}
				}
			}
			rep.Facts += len(seen.Facts)
		}
	}
	for _, m := range Moments {
		for _, arm := range armsAt(m) {
			if r := rows[[2]string{m, arm}]; r != nil {
				if r.Facts > 0 {
					r.Recall = float64(r.Kept) / float64(r.Facts)
				}
				r.Chars /= max(1, r.Instances)
				rep.Rows = append(rep.Rows, *r)
			}
		}
		for _, c := range classOrder {
			if r := classes[[2]string{m, c}]; r != nil {
				rep.Classes = append(rep.Classes, *r)
			}
			if r := parked[[2]string{m, c}]; r != nil {
				rep.Parked = append(rep.Parked, *r)
			}
		}
	}
	return rep
}

var classOrder = []string{MainRequest, LastRequest, EditedPath, TestCommand, CommandStatus, ErrorText, Decision,
	PendingQuestion, NextStep, Branch, LastCommit, OpenTask, ParkedDeferral, ParkedQuestion}

// Markdown renders the report as the tables docs/BENCHMARKS.md shows.
func (r *Report) Markdown() string {
	var b strings.Builder
	phrasing := ""
	if r.Phrasing != "" && r.Phrasing != PhrasingDefault {
		phrasing = ", " + r.Phrasing + " phrasings"
	}
	fmt.Fprintf(&b, "%d sessions (seed %d%s, transcripts up to %s, %s in all), %d facts.\n\n", r.Sessions, r.Seed, phrasing, size(int64(r.MaxSize)), size(r.Bytes), r.Facts)
	b.WriteString("| moment | arm | facts kept | recall | chars injected, mean / max | summary lacks → arm adds | negative-control chars | expired/archived leaked |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d / %d | %.1f%% | %d / %d | %d → %d | %d | %d |\n", x.Moment, x.Arm, x.Kept, x.Facts, 100*x.Recall,
			x.Chars, x.MaxChars, x.SummaryLacks, x.Added, x.NegativeChars, x.Leaked)
	}
	b.WriteString("\nBy fact class (kept / facts that hold):\n\n")
	b.WriteString("| class | compaction: summary | compaction: summary + cairn | /clear: cairn | startup: cairn | startup: cairn + restore |\n|---|---|---|---|---|---|\n")
	for _, c := range classOrder {
		if Parked(c) || !slices.ContainsFunc(r.Classes, func(x ClassRow) bool { return x.Class == c }) {
			continue // a class no session of the corpus has (the default corpus states no next step)
		}
		cell := func(moment, arm string) string {
			for _, x := range r.Classes {
				if x.Moment == moment && x.Class == c {
					return fmt.Sprintf("%d / %d", x.Kept[arm], x.Facts)
				}
			}
			return "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", c, cell(AfterCompaction, ArmSummary), cell(AfterCompaction, ArmCairn),
			cell(AfterClear, ArmCairn), cell(NextStartup, ArmCairn), cell(NextStartup, ArmRestored))
	}
	b.WriteString("\nParked items, scored apart (their text reaches the model only when asked):\n\n")
	b.WriteString("| class | moment | facts | in cairn's context | listed by `cairn session resume` |\n|---|---|---|---|---|\n")
	for _, x := range r.Parked {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d |\n", x.Class, x.Moment, x.Facts, x.InContext, x.Asked)
	}
	if len(r.Stderr) > 0 {
		fmt.Fprintf(&b, "\nThe hooks and commands wrote on stderr %d time(s), the first:\n\n", len(r.Stderr))
		for _, l := range r.Stderr[:min(5, len(r.Stderr))] {
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(l, "`", "'"))
		}
	}
	return b.String()
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// Floor is the recorded regression floor: the cairn arm's recall at each moment, and the
// negative controls, which must stay at zero.
type Floor struct {
	Seed     uint64             `json:"seed"`
	Phrasing string             `json:"phrasing,omitempty"` // the corpus's wordings; "" is the default
	Sessions int                `json:"sessions"`
	MaxSize  int                `json:"max_size"`
	Recall   map[string]float64 `json:"recall"` // by moment, the cairn arm
}

// Below lists how r falls short of f: a moment whose cairn recall is under the floor, any
// negative-control character, any expired or archived item that came back.
func (f Floor) Below(r *Report) []string {
	var out []string
	moments := make([]string, 0, len(f.Recall))
	for m := range f.Recall {
		moments = append(moments, m)
	}
	slices.Sort(moments)
	for _, m := range moments {
		got := r.Row(m, ArmCairn)
		if got.Instances == 0 {
			out = append(out, fmt.Sprintf("%s: no moment scored", m))
		} else if got.Recall < f.Recall[m] {
			out = append(out, fmt.Sprintf("%s: cairn's recall %.4f is below the floor %.4f (%d of %d facts)", m, got.Recall, f.Recall[m], got.Kept, got.Facts))
		}
	}
	for _, x := range r.Rows {
		if x.NegativeChars > 0 {
			out = append(out, fmt.Sprintf("%s, %s: %d characters of other projects' facts", x.Moment, x.Arm, x.NegativeChars))
		}
		if x.Leaked > 0 {
			out = append(out, fmt.Sprintf("%s, %s: %d expired or archived items came back", x.Moment, x.Arm, x.Leaked))
		}
	}
	return out
}
