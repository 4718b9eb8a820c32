package brief

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

var t0 = time.Date(2026, 4, 18, 12, 0, 0, 0, time.UTC)

// deliver is what the UserPromptSubmit hook does: the registry offers, Deliveries lays out.
func deliver(t *testing.T, r *registry.Registry, sid string, now time.Time, budget int) string {
	t.Helper()
	var text string
	err := r.OnPrompt(sid, now, func(msgs []registry.Message, more bool) int {
		var n int
		text, n = Deliveries(msgs, more, budget, now)
		return n
	})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestDeliveryLayout(t *testing.T) {
	root := t.TempDir()
	r := registry.Open(&project.Project{Root: root, Files: safefile.Disk{Roots: []string{root}}})
	r.Register("a", "main", t0)
	r.Register("b", "main", t0)
	r.Broadcast("a", "  Ready for review\n", t0.Add(time.Minute))
	got := deliver(t, r, "b", t0.Add(6*time.Minute), 2000)
	if want := deliveryHeader + "- [a, 5m ago] Ready for review"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestDeliveriesBudget(t *testing.T) {
	root := t.TempDir()
	r := registry.Open(&project.Project{Root: root, Files: safefile.Disk{Roots: []string{root}}})
	r.Register("a", "", t0)
	r.Register("b", "", t0)
	const n = 10
	for i := range n {
		r.Broadcast("a", fmt.Sprintf("message %02d %s", i, strings.Repeat("x", 40)), t0)
		r.Broadcast("b", "own message, never delivered to b", t0)
	}
	budget := len(deliveryHeader) + 3*60 + 40
	now := t0.Add(time.Minute)
	got := map[string]int{}
	first := deliver(t, r, "b", now, budget)
	if utf16Len(first) > budget {
		t.Fatalf("%d characters over a budget of %d", utf16Len(first), budget)
	}
	lines := strings.Split(first, "\n")
	if last := lines[len(lines)-1]; last != fmt.Sprintf("… %d more: run cairn session inbox", n-(len(lines)-2)) {
		t.Fatalf("last line %q of\n%s", last, first)
	}
	for _, l := range lines[1 : len(lines)-1] {
		got[l[strings.Index(l, "message"):][:10]]++
	}
	if len(got) == 0 || len(got) == n {
		t.Fatalf("budget not exercised:\n%s", first)
	}
	// The next prompt delivers the next ones; the inbox the rest: each once.
	second := deliver(t, r, "b", now, budget)
	for _, l := range strings.Split(second, "\n") {
		if i := strings.Index(l, "message "); i >= 0 {
			got[l[i:][:10]]++
		}
	}
	msgs, _ := r.Inbox("b", now)
	for _, m := range msgs {
		got[m.Msg[:10]]++
	}
	for i := range n {
		if k := fmt.Sprintf("message %02d", i); got[k] != 1 {
			t.Errorf("%s delivered %d times", k, got[k])
		}
	}
	if text := deliver(t, r, "b", now, budget); text != "" {
		t.Fatalf("left over: %q", text)
	}
	// A budget too small for even the notice delivers nothing and keeps everything.
	r.Broadcast("a", "kept", now)
	if text := deliver(t, r, "b", now.Add(time.Hour), 10); text != "" {
		t.Fatalf("%q", text)
	}
	if msgs, _ := r.Inbox("b", now); len(msgs) != 1 || msgs[0].Msg != "kept" {
		t.Fatalf("%+v", msgs)
	}
	// A first message that does not fit alone: only the notice, nothing marked seen.
	r.Broadcast("a", strings.Repeat("y", 500), now)
	if text := deliver(t, r, "b", now.Add(2*time.Hour), 100); text != "… 1 more: run cairn session inbox" {
		t.Fatalf("%q", text)
	}
	if msgs, _ := r.Inbox("b", now); len(msgs) != 1 {
		t.Fatalf("%+v", msgs)
	}
}

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{30 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago", 50 * time.Hour: "2d ago"} {
		if got := Ago(t0.Add(d), t0); got != want {
			t.Errorf("%v: %s", d, got)
		}
	}
}
