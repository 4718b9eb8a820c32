package recall

import (
	"fmt"
	"strings"
)

// keepInSummary is how likely Claude Code's summary is to carry a fact of each class in its own
// words, as summaries read: the request and the files nearly always, a decision three times in
// four (paraphrased otherwise), tasks often, the branch and errors now and then, commands, exit
// statuses, asides, deferrals and questions almost never.
var keepInSummary = map[string]float64{
	MainRequest:     0.95,
	EditedPath:      0.85,
	Decision:        0.75,
	OpenTask:        0.7,
	LastRequest:     0.6,
	Branch:          0.3,
	ErrorText:       0.25,
	LastCommit:      0.15,
	TestCommand:     0.05,
	CommandStatus:   0.02,
	PendingQuestion: 0.05,
	NextStep:        0.5, // its "Optional Next Step" section
	ParkedDeferral:  0.03,
	ParkedQuestion:  0.03,
}

// summary writes the compaction's summary from what holds: text is what Claude sees after the
// compaction, payload the model's whole reply as PostCompact's compact_summary carries it.
func (b *builder) summary(facts []Fact) (text, payload string) {
	keep := map[string][]Fact{}
	lost := map[string]int{}
	for _, f := range facts {
		if b.r.Float64() < keepInSummary[f.Class] {
			keep[f.Class] = append(keep[f.Class], f)
		} else {
			lost[f.Class]++
		}
	}
	var s strings.Builder
	s.WriteString("1. Primary Request and Intent:\n")
	if fs := keep[MainRequest]; len(fs) > 0 {
		fmt.Fprintf(&s, "   The user reported that %s and asked for a fix that keeps the public API.\n", fs[0].Needle)
	} else {
		fmt.Fprintf(&s, "   The user asked for a fix in the %s package that keeps the public API.\n", b.comp)
	}
	for _, f := range keep[LastRequest] {
		fmt.Fprintf(&s, "   Later the user asked to %s.\n", f.Needle)
	}
	s.WriteString("\n2. Key Technical Concepts:\n   - Go modules, table-driven tests\n   - error wrapping with %w\n")
	for _, f := range keep[Branch] {
		fmt.Fprintf(&s, "   - work happens on the branch %s\n", f.Needle)
	}
	s.WriteString("\n3. Files and Code Sections:\n")
	for _, f := range keep[EditedPath] {
		fmt.Fprintf(&s, "   - %s/%s\n     - Modified as part of the change.\n", "/home/dev/src/app", f.Needle)
	}
	if lost[EditedPath] > 0 {
		s.WriteString("   - A few helper files were touched as well.\n")
	}
	s.WriteString("\n4. Errors and fixes:\n")
	for _, f := range keep[ErrorText] {
		fmt.Fprintf(&s, "   - A test failed with: %s\n", f.Needle)
	}
	for _, f := range keep[TestCommand] {
		fmt.Fprintf(&s, "   - Tests were run with %s\n", f.Needle)
	}
	for _, f := range keep[CommandStatus] {
		fmt.Fprintf(&s, "   - The last command, %s, ended with %s\n", f.Needle, f.Status[0])
	}
	if lost[ErrorText]+lost[TestCommand] > 0 {
		s.WriteString("   - Some test failures around rounding came up and were worked on.\n")
	}
	s.WriteString("\n5. Problem Solving:\n")
	for _, f := range keep[Decision] {
		fmt.Fprintf(&s, "   - Decided to %s.\n", f.Needle)
	}
	if lost[Decision] > 0 {
		fmt.Fprintf(&s, "   - Settled on an approach for the %s data after some discussion.\n", b.comp)
	}
	for _, f := range keep[LastCommit] {
		fmt.Fprintf(&s, "   - Committed the work as %s.\n", f.Needle)
	}
	s.WriteString("\n6. Pending Tasks:\n")
	for _, f := range keep[OpenTask] {
		fmt.Fprintf(&s, "   - %s\n", f.Needle)
	}
	for _, f := range append(keep[ParkedDeferral], keep[ParkedQuestion]...) {
		fmt.Fprintf(&s, "   - Possibly later: %s\n", f.Needle)
	}
	if len(keep[OpenTask]) == 0 && lost[OpenTask] == 0 {
		s.WriteString("   - None explicitly listed.\n")
	}
	s.WriteString("\n7. Current Work:\n")
	fmt.Fprintf(&s, "   Immediately before this summary, work continued on the %s package.\n", b.comp)
	for _, f := range keep[PendingQuestion] {
		fmt.Fprintf(&s, "   Claude had asked whether to %s.\n", f.Needle)
	}
	if fs := keep[NextStep]; len(fs) > 0 {
		fmt.Fprintf(&s, "\n8. Optional Next Step:\n   Claude said it would %s next.\n", fs[0].Needle)
	} else {
		s.WriteString("\n8. Optional Next Step:\n   Continue with the user's latest request.\n")
	}
	body := s.String()
	text = "Summary:\n" + body
	payload = "<analysis>\nLooking back over the conversation in order, the user's requests, the files touched and the open work.\n</analysis>\n\n<summary>\n" + body + "</summary>"
	return text, payload
}
