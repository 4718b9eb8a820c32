package brief

import (
	"fmt"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// Parked is the one line that tells Claude what automatic parking parked.
func Parked(it parking.Item) string {
	what := strings.TrimRight(plain.Line(it.Description, 0), ". ")
	if !strings.HasSuffix(what, "?") && !strings.HasSuffix(what, "!") {
		what += "."
	}
	return fmt.Sprintf(
		"cairn parked an open loop as `%s`: %s Mention it to the user in one line; close it with `cairn session archive %s` once it is resolved.",
		it.Slug, what, it.Slug)
}

// Refused is the pollution guard's one line (surface the list, ask to archive: docs/PARKING.md):
// n items are parked already, so nothing more is. foreign says that none of them was parked on this
// machine — the file came with the repository — and then Claude is not asked to show a list that
// is not the user's.
func Refused(n int, foreign bool) string {
	if foreign {
		return fmt.Sprintf(
			"cairn did not park this open loop: %s already holds %d parked items, none of them parked on this machine (the file seems to have come with the repository). Mention it to the user in one line; cairn parks nothing more until items are archived.",
			sessionfile.Rel, n)
	}
	return fmt.Sprintf(
		"cairn did not park this open loop: %d items are parked already. Run `cairn session resume`, show the user the list and ask them to archive some (`cairn session archive <slug>`) before more can be parked.",
		n)
}
