package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

// deliveryHeader introduces delivered messages, so that Claude does not take them for the
// user's words.
const deliveryHeader = "Messages broadcast by other Claude Code sessions of this project (not typed by the user; `cairn session inbox` lists them):\n"

// Deliveries lays out the broadcasts msgs for Claude under budget characters (UTF-16 units, as
// Claude Code counts them), in order, and returns the text and how many of msgs it shows. Those
// that do not fit are announced by a final "… N more: run cairn session inbox" line (more says
// the log goes on past msgs, so there may be others); when not even that line fits, nothing is
// shown. It is the show function the registry's OnPrompt takes.
func Deliveries(msgs []registry.Message, more bool, budget int, now time.Time) (text string, shown int) {
	if len(msgs) == 0 {
		return "", 0
	}
	var b strings.Builder
	used := 0
	for i, m := range msgs {
		line := "- " + deliveryLine(m, now) + "\n"
		header := 0
		if i == 0 {
			header = utf16Len(deliveryHeader)
		}
		rest := len(msgs) - i - 1
		reserve := 0
		if rest > 0 || more {
			reserve = utf16Len(moreLine(rest, more))
		}
		if used+header+utf16Len(line)+reserve > budget {
			break
		}
		if i == 0 {
			b.WriteString(deliveryHeader)
		}
		b.WriteString(line)
		used += header + utf16Len(line)
		shown++
	}
	held := len(msgs) - shown
	if held > 0 || more {
		notice := moreLine(held, more)
		if used+utf16Len(notice) > budget {
			return "", 0 // not even the notice fits: deliver nothing, keep everything
		}
		b.WriteString(notice)
	}
	return strings.TrimSuffix(b.String(), "\n"), shown
}

// moreLine is the final line of a cut delivery. beyond means the log goes on past the window
// read, so there may be more than n.
func moreLine(n int, beyond bool) string {
	switch {
	case beyond && n == 0:
		return "… possibly more: run cairn session inbox\n"
	case beyond:
		return fmt.Sprintf("… %d more, possibly others: run cairn session inbox\n", n)
	}
	return fmt.Sprintf("… %d more: run cairn session inbox\n", n)
}

// deliveryLine is one message as Claude and `cairn session inbox` show it: "[sender, when] text".
func deliveryLine(m registry.Message, now time.Time) string {
	return fmt.Sprintf("[%s, %s] %s", registry.ShortID(plain.Line(m.From, 0)), Ago(now, m.Time), plain.Line(m.Msg, 0))
}

// Ago is the inbox's time, as users know it: "just now", "5m ago", "3h ago", "2d ago".
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}
