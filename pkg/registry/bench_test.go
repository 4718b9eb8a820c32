package registry

import (
	"fmt"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// BenchmarkLookup200 is a prompt's read of the registry at its cap of 200 sessions, the
// prompt's own session registered last (the newest):
//
//	go test -run '^$' -bench Lookup200 -benchmem ./pkg/registry/
//
// It reads session.json and decodes one line (lineOf); "whole" decodes every session, as a
// prompt did before session.json had a line per session.
func BenchmarkLookup200(b *testing.B) {
	root := b.TempDir()
	r := open(safefile.Disk{Roots: []string{root}}, root)
	var last string
	for i := range maxSessions {
		last = fmt.Sprintf("%08x-7a3c-4d1e-9b2f-%012x", i, i)
		if err := r.Register(last, "main", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("line", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := r.lookup(last); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, _, err := safefile.ReadFile(r.root, r.path(), maxRegistry)
			if err != nil {
				b.Fatal(err)
			}
			d, err := decodeDocument(data)
			if err != nil || find(&d, last) == nil {
				b.Fatal("not found", err)
			}
		}
	})
}
