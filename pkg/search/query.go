package search

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Options narrow a search.
type Options struct {
	Kinds  KindSet   // 0: every kind
	Branch string    // "": any branch; else only items recorded on it (parked and audit items have none)
	Since  time.Time // zero: any time; else only items from then on
	Limit  int       // at most this many results; 0 is DefaultLimit
	// Wait brings the history up to date whatever it takes (cairn search --wait); without it a
	// search spends at most DefaultBudget on it and answers from the index as it then is.
	Wait bool
}

// DefaultLimit is how many results a search returns unless told.
const DefaultLimit = 10

// Result is one item found.
type Result struct {
	ID       string // what Show and `cairn context restore` (for a checkpoint) take
	Kind     Kind
	Title    string
	Branch   string
	Worktree string    // the linked worktree a checkpoint or a timeline event came from; "" for the main checkout
	Time     time.Time // zero when unknown
	Snippet  string    // one line around the matches, each between markOpen and markClose
	Path     string    // the file, relative to the root that holds it, with '/'; a session's transcript, absolute
	Score    float64   // BM25 times the kind's weight; higher is better
	// Cwd is a session's: the directory it started in (where `claude --resume` finds it).
	Cwd string
}

// Results are a search's answer.
type Results struct {
	Items []Result
	Total int // items that matched, before the limit
	// Partial: no item holds every word of the query, so these hold some of them, most first.
	Partial bool
	// History is what the search's sync of the history did, and what it left to index.
	History HistoryStats
}

// ErrNoWords reports a query without a single word to look for.
var ErrNoWords = errors.New("the query has no words to search for")

// BM25's parameters, the usual ones, and the title's weight in BM25F: a title word counts as
// titleWeight body words, unnormalised by the body's length.
const (
	k1          = 1.2
	b           = 0.75
	titleWeight = 3
)

// idf is BM25's inverse document frequency in its non-negative form (Lucene's).
func idf(n, df int) float64 {
	df = min(df, n)
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// bm25 is one term's BM25F score: tf packs the term's count in the title and the body
// (packTF), dl is the body's length in words and avgdl that of the item's kind.
func bm25(idf float64, tf, dl uint32, avgdl float64) float64 {
	title, body := unpackTF(tf)
	f := titleWeight*float64(title) + float64(body)/(1-b+b*float64(dl)/avgdl)
	return idf * f * (k1 + 1) / (f + k1)
}

// Search finds the items that hold every word of query (all words must match; "word*" matches
// a prefix; humps and joins of identifiers rank the exact form first), ranked by BM25 times
// their kind's weight, newer first among equal scores. When no item holds them all, it returns
// those that hold some, marked Partial. The index is brought up to date first; an index found
// damaged is rebuilt whole and the search run again.
func (ix *Index) Search(ctx context.Context, query string, o Options) (Results, error) {
	terms := parseQuery(query)
	if !slices.ContainsFunc(terms, func(t term) bool { return !t.optional }) {
		return Results{}, ErrNoWords
	}
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, err := ix.sync(ctx, false); err != nil {
		return Results{}, err
	}
	budget := DefaultBudget
	if o.Wait {
		budget = 0
	}
	hs, err := ix.syncHistory(ctx, budget)
	if err != nil {
		return Results{}, err
	}
	rs, err := ix.run(terms, o)
	if errors.Is(err, errDamaged) {
		ix.unload()
		if _, err := ix.sync(ctx, true); err != nil {
			return Results{}, err
		}
		ix.resetHistory()
		if hs, err = ix.syncHistory(ctx, budget); err != nil {
			return Results{}, err
		}
		rs, err = ix.run(terms, o)
	}
	rs.History = hs
	return rs, err
}

// cursor walks one term's posting list.
type cursor struct {
	docs, tfs []uint32
	i         int
	idf       float64
	optional  bool
}

// at moves the cursor to the first document >= d and returns its tf when that is d.
func (c *cursor) at(d uint32) (uint32, bool) {
	if c.i < len(c.docs) && c.docs[c.i] < d {
		n, _ := slices.BinarySearch(c.docs[c.i:], d)
		c.i += n
	}
	if c.i < len(c.docs) && c.docs[c.i] == d {
		return c.tfs[c.i], true
	}
	return 0, false
}

// view is one segment as a query sees it: where its documents start in the global numbering (the
// base's first, then the delta's, then the history's in order), and which of them are dead.
type view struct {
	s    *segment
	base uint32
	dead []bool
	hist int // its place in the history; -1 for the base and the delta
}

// views lists the loaded segments in global document order.
func (ix *Index) views() []view {
	var out []view
	n := uint32(0)
	add := func(s *segment, dead []bool, hist int) {
		if s != nil {
			out = append(out, view{s: s, base: n, dead: dead, hist: hist})
			n += s.h.nDocs
		}
	}
	add(ix.base, ix.dead, -1)
	add(ix.delta, nil, -1)
	if ix.hist != nil {
		for i, s := range ix.hist.segs {
			add(s, ix.hist.dead[i], i)
		}
	}
	return out
}

// viewOf returns the view that holds global document d; ok is false when none does.
func viewOf(vs []view, d uint32) (view, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if d >= vs[i].base {
			return vs[i], d-vs[i].base < vs[i].s.h.nDocs
		}
	}
	return view{}, false
}

// postings returns the term's posting list over every segment, in global document numbers. A
// prefix merges the lists of its first 1,024 expansions in each.
func (ix *Index) postings(vs []view, t term) (docs, tfs []uint32, err error) {
	for _, v := range vs {
		s, off := v.s, v.base
		i, ok := s.find(t.text)
		if !ok {
			return nil, nil, errDamaged
		}
		start, lists := len(docs), 0
		for ; i < s.h.nTerms && lists < 1024; i++ {
			tm, post, ok := s.term(i)
			if !ok {
				return nil, nil, errDamaged
			}
			if t.prefix && !bytes.HasPrefix(tm, []byte(t.text)) || !t.prefix && string(tm) != t.text {
				break
			}
			// A posting is two bytes at least: a bound on the documents to make room for.
			if n := int(min(uint32(len(post)/2), s.h.nDocs)); cap(docs)-len(docs) < n {
				docs, tfs = slices.Grow(docs, n), slices.Grow(tfs, n)
			}
			if docs, tfs, ok = s.postings(post, off, docs, tfs); !ok {
				return nil, nil, errDamaged
			}
			lists++
			if !t.prefix {
				break
			}
		}
		if lists > 1 { // a prefix: one list, ascending, tfs of the same document summed
			docs, tfs = mergeSorted(docs, tfs, start)
		}
	}
	return docs, tfs, nil
}

func mergeSorted(docs, tfs []uint32, start int) ([]uint32, []uint32) {
	type p struct{ d, tf uint32 }
	ps := make([]p, 0, len(docs)-start)
	for i := start; i < len(docs); i++ {
		ps = append(ps, p{docs[i], tfs[i]})
	}
	slices.SortFunc(ps, func(a, b p) int { return int(int64(a.d) - int64(b.d)) })
	docs, tfs = docs[:start], tfs[:start]
	for _, x := range ps {
		if n := len(docs); n > start && docs[n-1] == x.d {
			t0, b0 := unpackTF(tfs[n-1])
			t1, b1 := unpackTF(x.tf)
			tfs[n-1] = packTF(t0+t1, b0+b1)
			continue
		}
		docs, tfs = append(docs, x.d), append(tfs, x.tf)
	}
	return docs, tfs
}

// hit is a candidate for the top results.
type hit struct {
	doc   uint32
	score float64
	time  int64
}

// better orders hits: by score, then newer first, then later in the index.
func better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.time != b.time {
		return a.time > b.time
	}
	return a.doc > b.doc
}

// topK keeps the best k hits in a min-heap.
type topK struct {
	k  int
	hs []hit
}

func (t *topK) Len() int           { return len(t.hs) }
func (t *topK) Less(i, j int) bool { return better(t.hs[j], t.hs[i]) }
func (t *topK) Swap(i, j int)      { t.hs[i], t.hs[j] = t.hs[j], t.hs[i] }
func (t *topK) Push(x any)         { t.hs = append(t.hs, x.(hit)) }
func (t *topK) Pop() any           { h := t.hs[len(t.hs)-1]; t.hs = t.hs[:len(t.hs)-1]; return h }

func (t *topK) offer(h hit) {
	if len(t.hs) < t.k {
		heap.Push(t, h)
	} else if better(h, t.hs[0]) {
		t.hs[0] = h
		heap.Fix(t, 0)
	}
}

func (t *topK) sorted() []hit {
	out := make([]hit, len(t.hs))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(t).(hit)
	}
	return out
}

// quantum: scores are compared at this precision, so that items a hair apart count as equally
// relevant and the newer comes first.
const quantum = 1e-4

// run evaluates the query on the loaded segments. A memory fault while reading them (a mapped
// file cut short under the process) reads as errDamaged.
func (ix *Index) run(terms []term, o Options) (rs Results, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			rs, err = Results{}, errDamaged
		}
	}()
	if ix.base == nil {
		return Results{}, errDamaged
	}
	vs := ix.views()
	var stats [numKinds]kindStat
	for _, v := range vs {
		for k := range stats {
			stats[k].docs += v.s.h.kinds[k].docs
			stats[k].len += v.s.h.kinds[k].len
		}
	}
	for k := range stats {
		stats[k].docs -= ix.deadKinds[k].docs
		stats[k].len -= ix.deadKinds[k].len
		if ix.hist != nil {
			stats[k].docs -= ix.hist.deadKinds[k].docs
			stats[k].len -= ix.hist.deadKinds[k].len
		}
	}
	n := 0
	var avgdl [numKinds]float64
	for k, s := range stats {
		n += int(s.docs)
		avgdl[k] = 1
		if s.docs > 0 && s.len > 0 {
			avgdl[k] = float64(s.len) / float64(s.docs)
		}
	}
	if n == 0 {
		return Results{}, nil
	}
	curs := make([]cursor, len(terms))
	var req []int
	for j, t := range terms {
		docs, tfs, err := ix.postings(vs, t)
		if err != nil {
			return Results{}, err
		}
		curs[j] = cursor{docs: docs, tfs: tfs, idf: idf(n, len(docs)), optional: t.optional}
		if !t.optional {
			req = append(req, j)
		}
	}
	slices.SortFunc(req, func(a, b int) int { return len(curs[a].docs) - len(curs[b].docs) })

	var since int64
	if !o.Since.IsZero() {
		since = o.Since.Unix()
	}
	var branch []byte
	if o.Branch != "" {
		branch = []byte(o.Branch)
	}
	top := &topK{k: o.Limit}
	total := 0
	// A session's stretches are one result: its best stretch, scored as that stretch.
	sessions := map[int32]hit{}
	var damaged bool
	consider := func(d uint32) {
		v, ok := viewOf(vs, d)
		if !ok {
			damaged = true
			return
		}
		local := d - v.base
		if v.dead != nil && v.dead[local] {
			return
		}
		s := v.s
		di := s.doc(local)
		if di.kind == 0 || di.kind >= numKinds || !o.Kinds.has(di.kind) || di.time < since {
			return
		}
		if b, _, _ := unpackBranch(s.str(di.branchOff, int(di.branchLen))); branch != nil && !bytes.Equal(b, branch) {
			return
		}
		score := 0.0
		for j := range curs {
			if tf, ok := curs[j].at(d); ok {
				score += bm25(curs[j].idf, tf, di.dl, avgdl[di.kind])
			}
		}
		score = math.Round(score*weight[di.kind]/quantum) * quantum
		h := hit{doc: d, score: score, time: di.time}
		if v.hist >= 0 {
			if di.file >= s.h.nFiles {
				damaged = true
				return
			}
			key := ix.hist.session(v.hist, di.file)
			best, seen := sessions[key]
			if !seen {
				total++
			}
			if !seen || better(h, best) {
				sessions[key] = h
			}
			return
		}
		total++
		top.offer(h)
	}

	// Every word: walk the shortest list, look each document up in the others.
	driver := &curs[req[0]]
next:
	for idx, d := range driver.docs {
		driver.i = idx
		for _, j := range req[1:] {
			if _, ok := curs[j].at(d); !ok {
				if curs[j].i >= len(curs[j].docs) {
					break next
				}
				continue next
			}
		}
		consider(d)
	}
	partial := false
	if total == 0 && len(req) > 1 {
		// Some words: walk the lists together, lowest document first.
		partial = true
		for j := range curs {
			curs[j].i = 0
		}
		for {
			d, any := uint32(math.MaxUint32), false
			for _, j := range req {
				if c := &curs[j]; c.i < len(c.docs) && c.docs[c.i] <= d {
					d, any = c.docs[c.i], true
				}
			}
			if !any {
				break
			}
			consider(d)
			for _, j := range req {
				if c := &curs[j]; c.i < len(c.docs) && c.docs[c.i] == d {
					c.i++
				}
			}
		}
	}
	if damaged {
		return Results{}, errDamaged
	}
	for _, h := range sessions {
		top.offer(h)
	}
	rs = Results{Total: total, Partial: partial && total > 0}
	rd := ix.newReader()
	defer rd.close()
	for _, h := range top.sorted() {
		v, _ := viewOf(vs, h.doc)
		s, local := v.s, h.doc-v.base
		di := s.doc(local)
		if di.file >= s.h.nFiles {
			return Results{}, errDamaged
		}
		b, _, wt := unpackBranch(s.str(di.branchOff, int(di.branchLen)))
		r := Result{
			Kind: di.kind, Title: string(s.str(di.titleOff, int(di.titleLen))), Branch: string(b), Worktree: string(wt),
			Path: string(s.filePath(di.file)), Score: h.score,
		}
		if di.time != 0 {
			r.Time = time.Unix(di.time, 0)
		}
		if v.hist >= 0 {
			if !rd.session(&r, di, terms) {
				rs.Total--
				continue
			}
			rs.Items = append(rs.Items, r)
			continue
		}
		text, id, ok := rd.read(r.Path, di, r.Title)
		if !ok { // changed since it was indexed: the next search checks every file again
			ix.forgetStamp()
			rs.Total--
			continue
		}
		r.ID, r.Snippet = id, snippet(text, terms)
		rs.Items = append(rs.Items, r)
	}
	return rs, nil
}

// forgetStamp makes the next sync a full sweep.
func (ix *Index) forgetStamp() {
	ix.lastOK = false
	if ix.stored {
		safefile.Disk{Roots: []string{ix.tree}}.Remove(ix.path(stampName))
	}
}

// reader reads results' text and ids back from their files, each file opened once.
type reader struct {
	c      *corpus
	h      *history
	files  map[string]*os.File
	starts map[string][2]string // a session's title and cwd, by path
	dirs   map[string]bool      // the history's transcript directories, once a session is read
}

func (ix *Index) newReader() *reader {
	return &reader{c: ix.c, h: ix.hist, files: map[string]*os.File{}}
}

func (r *reader) close() {
	for _, f := range r.files {
		if f != nil {
			f.Close()
		}
	}
}

// read returns the text a document's snippet is cut from and its id; ok is false when the
// file no longer holds the document where the index says it is.
func (r *reader) read(rel string, di docInfo, title string) (text, id string, ok bool) {
	switch {
	case di.kind.isCheckpoint():
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		tree, abs := r.c.at(rel)
		data, err := safefile.ReadHead(tree, abs, checkpoint.MaxRead)
		if err != nil {
			return "", "", false
		}
		return parseCheckpoint(name, data).text, strings.TrimSuffix(name, ".md"), true
	case di.kind == Parked:
		items, _ := r.c.parkedItems()
		for _, it := range items {
			if cut(it.Name, 1<<16-1) == title {
				return it.Text, parkedID(it), true
			}
		}
		return "", "", false
	}
	f, seen := r.files[rel]
	if !seen {
		f, _, _ = safefile.Open(r.c.at(rel))
		r.files[rel] = f
	}
	if f == nil || di.n > maxLine {
		return "", "", false
	}
	line := make([]byte, di.n)
	if _, err := f.ReadAt(line, di.off); err != nil {
		return "", "", false
	}
	if di.kind == Pruned {
		e, ok := parsePruned(line)
		if !ok {
			return "", "", false
		}
		p := parseCheckpoint(e.name, []byte(e.text))
		if cut(p.title, 1<<16-1) != title {
			return "", "", false
		}
		return p.text, prunedID(e), true
	}
	if di.kind == Timeline {
		ev, ok := timeline.Parse(line)
		if !ok || cut(timelineTitle(ev), 1<<16-1) != title {
			return "", "", false
		}
		return timelineTitle(ev) + " " + timelineBody(ev), timelineID(ev, line), true
	}
	e, ok := parking.ParseAuditLine(line)
	if !ok || cut(e.Item, 1<<16-1) != title || auditKind(e.Action) != di.kind {
		return "", "", false
	}
	return e.Text, auditID(e, line), true
}
