package search

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
)

// seedSegments builds a small real index and returns its base and delta files.
func seedSegments(t testing.TB) (base, delta []byte) {
	dir := t.TempDir()
	p := &testProject{t: t, root: filepath.Join(dir, "proj")}
	os.MkdirAll(p.root, 0o755)
	p.checkpoint(checkpoint.Entry{Title: "Login parser", Branch: "main", Time: at(-2), Files: []string{"pkg/a_b.go"},
		Sections: checkpoint.Sections{Summary: "the parser streams tokens; ReadHead bounds reads"}}, "")
	p.audit(at(-1), "item", parking.ActionArchived, "- **item** — parser idea")
	p.event(at(-1), map[string]string{"event": "session_start", "branch": "main", "session": "abc"})
	cache := filepath.Join(dir, "cache")
	ix := Open(Config{Root: p.root, CacheDir: cache})
	ix.Sync(context.Background())
	p.checkpoint(checkpoint.Entry{Title: "Second", Branch: "dev", Time: at(-1), Sections: checkpoint.Sections{Summary: "parser again"}}, "handoff")
	ix.Sync(context.Background())
	ix.Close()
	base, _ = os.ReadFile(filepath.Join(ix.dir, baseName))
	delta, _ = os.ReadFile(filepath.Join(ix.dir, deltaName))
	if len(base) == 0 || len(delta) == 0 {
		t.Fatal("no seed segments")
	}
	return base, delta
}

// A damaged (or hostile: the fallback index lives inside the project) index file never makes
// the decoder or a query panic or read out of bounds: it is refused, or read for what it says.
func FuzzDecodeSegment(f *testing.F) {
	base, delta := seedSegments(f)
	f.Add(base)
	f.Add(delta)
	f.Add(base[:headerSize+trailerSize])
	f.Add(append(bytes.Clone(base[:len(base)-1]), 0))
	f.Add([]byte(magic))
	good, err := decodeSegment(base)
	if err != nil {
		f.Fatal(err)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSegment(data)
		if err != nil {
			return
		}
		for i := uint32(0); i < min(s.h.nTerms, 2000); i++ {
			if _, post, ok := s.term(i); ok {
				s.postings(post, 0, nil, nil)
			}
		}
		for i := uint32(0); i < min(s.h.nDocs, 2000); i++ {
			d := s.doc(i)
			s.str(d.titleOff, int(d.titleLen))
			s.str(d.branchOff, int(d.branchLen))
		}
		for i := uint32(0); i < min(s.h.nFiles, 2000); i++ {
			s.file(i)
		}
		for i := uint32(0); i < min(s.h.nTomb, 2000); i++ {
			s.tomb(i)
		}
		s.verify()
		// As a base, and as the delta of a good base.
		for _, pair := range [][2]*segment{{s, nil}, {good, s}} {
			ix := &Index{tree: root, dir: root, c: newCorpus(root, "", "", nil), stored: false}
			ix.use(pair[0], pair[1])
			ix.indexedCheckpoints()
			for _, q := range []string{"parser", "pars*", "login parser", "readhead", "a_b"} {
				ix.run(parseQuery(q), Options{Limit: 5})
			}
		}
	})
}
