package recall

import "fmt"

// Phrasings: the wordings a corpus states its phrasing-dependent facts in (the requests,
// decisions, Claude's question and next step, deferrals, test runs and their errors, commits).
// cairn reads some of those facts by their words, and its word lists were written beside the
// default templates (turns.go), so the default corpus says how well cairn reads the phrasings it
// was built on; the held-out templates (heldout.go) were written apart from cairn's lists, in
// two halves by a fixed rule: in every list of heldout.go the templates at even positions (0, 2,
// 4, …) are the dev half, which cairn's rules may be tuned against, and those at odd positions
// are the test half, which they never are. The split is by position in the list as written, so
// adding a template at a list's end never moves another from one half to the other.
const (
	PhrasingDefault = "default" // turns.go's templates
	PhrasingHeldout = "heldout" // heldout.go's, both halves
	PhrasingDev     = "dev"     // heldout.go's even positions: tune against these
	PhrasingTest    = "test"    // heldout.go's odd positions: never tune against these
)

// Phrasings lists the phrasings a corpus can be generated in.
var Phrasings = []string{PhrasingDefault, PhrasingHeldout, PhrasingDev, PhrasingTest}

// half keeps the templates of list the phrasing uses: all of them for heldout, the even or odd
// positions for dev or test.
func half[T any](list []T, phrasing string) []T {
	if phrasing == PhrasingHeldout {
		return list
	}
	var out []T
	for i, t := range list {
		if (i%2 == 0) == (phrasing == PhrasingDev) {
			out = append(out, t)
		}
	}
	return out
}

// phrasebook is one held-out phrasing's templates, each list cut to its half.
type phrasebook struct {
	mains     []string     // %[1]s the request, %[2]s the token
	requests  []string     // %s the request, a verb phrase
	decisions []decisionIn // how a decision is stated
	questions []string     // %s what Claude asks to do, a verb phrase
	closers   []string     // what may follow Claude's question in its last message
	nexts     []string     // %s Claude's next step, a verb phrase
	deferrals []string     // %s the idea deferred, a verb phrase
	runners   []runner     // test commands, their failures and their error lines
	commits   []commitForm // how a commit is made and what git prints
}

func newPhrasebook(phrasing string) (*phrasebook, error) {
	switch phrasing {
	case "", PhrasingDefault:
		return nil, nil
	case PhrasingHeldout, PhrasingDev, PhrasingTest:
	default:
		return nil, fmt.Errorf("unknown phrasing %q (want one of %v)", phrasing, Phrasings)
	}
	return &phrasebook{
		mains:     half(heldMains, phrasing),
		requests:  half(heldRequests, phrasing),
		decisions: half(heldDecisions, phrasing),
		questions: half(heldQuestions, phrasing),
		closers:   half(heldClosers, phrasing),
		nexts:     half(heldNexts, phrasing),
		deferrals: half(heldDeferrals, phrasing),
		runners:   half(heldRunners, phrasing),
		commits:   half(heldCommits, phrasing),
	}, nil
}

// pickHeld draws one of list from the session's seed: a held-out phrasing draws only where the
// default draws nothing, and each choice is drawn apart, so that no two lists are paired.
func (b *builder) pickHeld(list []string) string { return list[b.r.IntN(len(list))] }
