package search

import (
	"fmt"
	"strings"
	"testing"
)

// A log larger than maxLogIndexed is indexed from its newest maxLogIndexed bytes: its oldest
// lines are not searched, its newest are, and the line cut by the bound is skipped whole.
func TestLogTailBound(t *testing.T) {
	p := newTestProject(t)
	oldest := p.audit(at(-40), "oldest-item", "archived", "- **oldest-item** — Deferred: zebraoldest.")
	filler := strings.Repeat("x", 1000)
	var b strings.Builder
	for b.Len() < maxLogIndexed+1<<20 {
		b.WriteString(jsonLine(map[string]string{"ts": at(-30).UTC().Format("2006-01-02T15:04:05Z"), "item": "filler", "action": "archived", "text": filler}))
	}
	p.appendFile(auditRel, b.String())
	newest := p.audit(at(-1), "newest-item", "archived", "- **newest-item** — Deferred: zebranewest.")
	ix := p.index(t.TempDir())
	defer ix.Close()
	mustSync(t, ix)
	if got := ids(t, ix, "zebranewest", Options{}); !has(got, newest) {
		t.Errorf("the newest line is not found: %v", got)
	}
	if got := ids(t, ix, "zebraoldest", Options{}); has(got, oldest) {
		t.Errorf("a line beyond the bound was indexed: %v", got)
	}
}

// A segment holds at most maxTerms distinct words: a log of random words does not grow the
// builder without bound, and a checkpoint's words, indexed after the audit log, stay searchable.
func TestTermBound(t *testing.T) {
	p := newTestProject(t)
	first := saved(p, -2, "Cache design", "We chose an LRU cache for the zebrafirst parser.")
	var b strings.Builder
	for i := 0; i < maxTerms+5000; i++ {
		fmt.Fprintf(&b, "w%07x ", i)
		if i%50 == 49 {
			p.audit(at(-1), fmt.Sprintf("item-%d", i), "archived", b.String())
			b.Reset()
		}
	}
	b2 := newBuilder(at(0))
	for i := 0; i < maxTerms+10; i++ {
		b2.addText(fmt.Sprintf("u%07x", i), 1<<titleBits, new(uint32), maxTerms)
	}
	if len(b2.terms) != maxTerms {
		t.Errorf("the builder holds %d terms, want the bound %d", len(b2.terms), maxTerms)
	}
	ix := p.index(t.TempDir())
	defer ix.Close()
	mustSync(t, ix)
	if got := ids(t, ix, "zebrafirst", Options{}); !has(got, first) {
		t.Errorf("a checkpoint's word is lost to a log's random words: %v", got)
	}
}
