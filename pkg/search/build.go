package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// A posting's tf packs the term's count in the title (at most 3: titles are short) and in the
// body: body<<2 | title. BM25F weighs the two (see bm25): a title says what an item is about
// whatever the length of its body.
const (
	titleBits  = 2
	maxTitleTF = 1<<titleBits - 1
)

func packTF(title, body uint32) uint32 { return min(body, 1<<30-1)<<titleBits | min(title, maxTitleTF) }

func unpackTF(tf uint32) (title, body uint32) { return tf & maxTitleTF, tf >> titleBits }

// maxTerms bounds the distinct words of one segment, and so the builder's memory whatever a
// repository commits: each costs about 130 bytes while the segment is built. A history of 20,000
// checkpoints, 20,000 archived items and 100,000 timeline lines holds under 50,000; a log of random
// words could hold millions. Past the bound, words the dictionary does not hold yet are skipped.
// The logs' lines may add words only up to maxLogTerms, so that checkpoints and parked items,
// which are indexed between the audit log and the timeline (files go in path order), keep room
// for theirs.
const (
	maxTerms    = 192 << 10
	maxLogTerms = 128 << 10
)

// builder accumulates one segment in memory.
type builder struct {
	ids      map[string]uint32 // term → its number
	terms    []string
	post     [][]byte // per term: uvarint (docID+1 delta, tf)
	last     []uint32 // per term: the last docID+1 added (0: none yet)
	tf       []uint32 // per term, for the document being added: packTF(title, body)
	touched  []uint32
	docs     []byte
	files    []byte
	tomb     []uint32
	strs     []byte
	interned map[string]uint32
	nDocs    uint32
	kinds    [numKinds]kindStat
	tz       tokenizer
	flags    uint32    // the header's (segWhole)
	postLen  int       // the postings' bytes so far: what a history build flushes on
	crc      uint32    // the written segment's checksum (writeTo sets it)
	now      time.Time // when the files are read: what makes a file racy
}

func newBuilder(now time.Time) *builder {
	return &builder{ids: map[string]uint32{}, interned: map[string]uint32{}, now: now}
}

// maxInterned bounds the strings interned: the ones that repeat (branches, timeline titles) are
// few; a repository's log of distinct branch names must not grow the map without bound.
const maxInterned = 4096

// str stores s in the strings section (once, when intern) and returns its offset.
func (b *builder) str(s string, intern bool) uint32 {
	if intern {
		if off, ok := b.interned[s]; ok {
			return off
		}
	}
	off := uint32(len(b.strs))
	b.strs = append(b.strs, s...)
	if intern && len(b.interned) < maxInterned {
		b.interned[s] = off
	}
	return off
}

// addText counts the tokens of s, as the title's (inc 1) or the body's (inc 1<<titleBits); the
// body's words make the document's length. A word is added to the dictionary only while it holds
// fewer than limit.
func (b *builder) addText(s string, inc uint32, dl *uint32, limit int) {
	b.tz.tokens(s, func(t []byte, kind, _, _ int) {
		if kind == tokWord && inc != 1 {
			*dl++
		}
		id, ok := b.ids[string(t)]
		if !ok {
			if len(b.terms) >= limit {
				return // the dictionary is full: a word it does not hold yet is not indexed
			}
			id = uint32(len(b.terms))
			k := string(t)
			b.ids[k] = id
			b.terms = append(b.terms, k)
			b.post = append(b.post, nil)
			b.last = append(b.last, 0)
			b.tf = append(b.tf, 0)
		}
		if b.tf[id] == 0 {
			b.touched = append(b.touched, id)
		}
		if inc != 1 || b.tf[id]&maxTitleTF < maxTitleTF {
			b.tf[id] += inc
		}
	})
}

// cut shortens s to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && s[len(s)-1]&0xc0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xc0 {
		s = s[:len(s)-1]
	}
	return s
}

func (b *builder) addDoc(d *doc, file uint32) {
	var dl uint32
	limit := maxLogTerms
	if d.kind.isCheckpoint() || d.kind == Parked {
		limit = maxTerms
	}
	b.addText(d.title, 1, &dl, limit)
	b.addText(d.body, 1<<titleBits, &dl, limit)
	id := b.nDocs
	for _, t := range b.touched {
		n := len(b.post[t])
		b.post[t] = binary.AppendUvarint(b.post[t], uint64(id+1-b.last[t]))
		b.post[t] = binary.AppendUvarint(b.post[t], uint64(b.tf[t]))
		b.postLen += len(b.post[t]) - n
		b.last[t] = id + 1
		b.tf[t] = 0
	}
	b.touched = b.touched[:0]
	title, branch := cut(d.title, 1<<16-1), packBranch(d.branch, d.status, d.worktree)
	to := b.str(title, d.kind == Timeline && len(title) <= 64) // timeline titles repeat; items' names do not
	bo := b.str(branch, true)
	var r [docRec]byte
	le := binary.LittleEndian
	le.PutUint64(r[0:], uint64(d.time))
	le.PutUint64(r[8:], uint64(d.off))
	le.PutUint32(r[16:], uint32(min(d.n, 1<<32-1)))
	le.PutUint32(r[20:], dl)
	le.PutUint32(r[24:], file)
	le.PutUint32(r[28:], to)
	le.PutUint32(r[32:], bo)
	le.PutUint16(r[36:], uint16(len(title)))
	r[38] = uint8(len(branch))
	r[39] = uint8(d.kind)
	b.docs = append(b.docs, r[:]...)
	b.nDocs++
	b.kinds[d.kind].docs++
	b.kinds[d.kind].len += uint64(dl)
}

// endFile records f, whose documents start at first. A file that vanished meanwhile is left
// out; one that cannot be read is recorded without documents, so that it is not retried until
// it changes.
func (b *builder) endFile(f file, first uint32, indexed int64, tail uint32, err error) error {
	if errors.Is(err, fs.ErrNotExist) && b.nDocs == first {
		return nil
	}
	var r [fileRec]byte
	le := binary.LittleEndian
	le.PutUint32(r[0:], b.str(f.path, false))
	le.PutUint16(r[4:], uint16(len(f.path)))
	r[6] = uint8(f.src)
	r[7] = f.flags &^ fileRacy
	if f.src == srcCheckpoint && racy(time.Unix(0, f.mtime), b.now) {
		r[7] |= fileRacy
	}
	if f.flags&fileWhole != 0 {
		b.flags |= segWhole
	}
	le.PutUint64(r[8:], uint64(f.mtime))
	le.PutUint64(r[16:], uint64(f.size))
	le.PutUint64(r[24:], uint64(indexed))
	le.PutUint32(r[32:], tail)
	le.PutUint32(r[36:], first)
	le.PutUint32(r[40:], b.nDocs-first)
	le.PutUint32(r[44:], f.ident)
	b.files = append(b.files, r[:]...)
	return err
}

// addFiles indexes the planned files in order, in two stages at once (relay). A file it cannot
// read is recorded empty.
func (b *builder) addFiles(ctx context.Context, c *corpus, plan []planned) error {
	err := relay(func(send func(part) bool) {
		for _, p := range plan {
			var batch []doc
			stopped := false
			indexed, tail, err := c.extract(p.f, p.from, func(d *doc) {
				if stopped {
					return
				}
				if batch = append(batch, *d); len(batch) == batchDocs {
					stopped = !send(part{docs: batch})
					batch = nil
				}
			})
			if stopped || !send(part{docs: batch, end: true, f: p.f, indexed: indexed, tail: tail, err: err}) {
				return
			}
		}
	}, b.consume(ctx))
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// consume returns addFiles' second stage: it tokenizes and counts each file's documents and
// records the file.
func (b *builder) consume(ctx context.Context) func(part) error {
	first := b.nDocs
	n := 0
	return func(p part) error {
		fileNo := uint32(len(b.files) / fileRec)
		for i := range p.docs {
			if d := &p.docs[i]; d.kind > 0 && d.kind < numKinds {
				b.addDoc(d, fileNo)
			}
		}
		if p.end {
			b.endFile(p.f, first, p.indexed, p.tail, p.err)
			first = b.nDocs
			if n++; n%256 == 0 {
				return ctx.Err()
			}
		}
		return nil
	}
}

// part is what the first stage of a build hands the second: documents of one file and, with
// end, how its reading ended.
type part struct {
	docs    []doc
	end     bool // the file's last part: what endFile needs follows
	f       file
	indexed int64
	tail    uint32
	err     error
	read    int64    // a transcript's bytes read (history.go)
	p       histPlan // a transcript's plan
}

// batchDocs is how many documents the first stage hands over at once.
const batchDocs = 256

// relay runs a build in two stages at once: produce, in a goroutine, reads and parses files and
// hands their parts on through send; consume, in this one, tokenizes and counts them in order
// (half the work each, so that a build takes about half as long on two cores). An error of
// consume stops the two (send then reports false); relay waits for produce to end, as it reads
// what the caller owns.
func relay(produce func(send func(part) bool), consume func(part) error) error {
	parts := make(chan part, 8)
	stop := make(chan struct{})
	defer func() {
		close(stop)
		for range parts {
		}
	}()
	go func() {
		defer close(parts)
		produce(func(p part) bool {
			select {
			case parts <- p:
				return true
			case <-stop:
				return false
			}
		})
	}()
	for p := range parts {
		if err := consume(p); err != nil {
			return err
		}
	}
	return nil
}

// writeTo writes the segment; baseID is the checksum of the base a delta extends (0 for a base).
func (b *builder) writeTo(w io.Writer, baseID uint64) error {
	order := make([]uint32, len(b.terms))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(b.terms[x], b.terms[y]) })
	var blobLen, postLen uint64
	for _, id := range order {
		blobLen += uint64(len(b.terms[id]))
		postLen += uint64(len(b.post[id]))
	}
	h := header{nDocs: b.nDocs, nTerms: uint32(len(order)), nFiles: uint32(len(b.files) / fileRec), nTomb: uint32(len(b.tomb)),
		flags: b.flags, baseID: baseID, kinds: b.kinds}
	o := &h.off
	o[secTerms] = headerSize
	o[secBlob] = o[secTerms] + uint64(len(order)+1)*termRec
	o[secPost] = o[secBlob] + blobLen
	o[secDocs] = o[secPost] + postLen
	o[secFiles] = o[secDocs] + uint64(len(b.docs))
	o[secTomb] = o[secFiles] + uint64(len(b.files))
	o[secStr] = o[secTomb] + uint64(len(b.tomb))*4
	o[secEnd] = o[secStr] + uint64(len(b.strs))
	if o[secEnd] > 1<<32-1 {
		return errors.New("search index: over 4 GiB")
	}
	crc := crc32.New(castagnoli())
	mw := io.MultiWriter(w, crc)
	ew := &errWriter{w: mw}
	hdr := make([]byte, headerSize)
	h.put(hdr)
	ew.write(hdr)
	le := binary.LittleEndian
	var rec [termRec]byte
	bo, po := uint32(0), uint32(0)
	for _, id := range order {
		le.PutUint32(rec[0:], bo)
		le.PutUint32(rec[4:], po)
		ew.write(rec[:])
		bo += uint32(len(b.terms[id]))
		po += uint32(len(b.post[id]))
	}
	le.PutUint32(rec[0:], bo)
	le.PutUint32(rec[4:], po)
	ew.write(rec[:])
	for _, id := range order {
		ew.writeString(b.terms[id])
	}
	for _, id := range order {
		ew.write(b.post[id])
	}
	ew.write(b.docs)
	ew.write(b.files)
	for _, t := range b.tomb {
		ew.write(le.AppendUint32(rec[:0], t))
	}
	ew.write(b.strs)
	if ew.err != nil {
		return ew.err
	}
	b.crc = crc.Sum32()
	_, err := w.Write(le.AppendUint32(nil, b.crc))
	return err
}

// errWriter keeps the first error, so that the sections can be written without a check each.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *errWriter) writeString(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// packBranch is what a document's branch field holds, 255 bytes at most: the branch, then for a
// checkpoint a NUL and its status, then for a record of a linked worktree a NUL and the
// worktree's name (a branch name, a status and a worktree's name never hold a NUL).
func packBranch(branch, status, worktree string) string {
	if status == "" && worktree == "" {
		return cut(branch, 255)
	}
	status, worktree = cut(status, 40), cut(worktree, 60)
	if worktree == "" {
		return cut(branch, 255-1-len(status)) + "\x00" + status
	}
	return cut(branch, 255-2-len(status)-len(worktree)) + "\x00" + status + "\x00" + worktree
}

// unpackBranch splits a document's branch field.
func unpackBranch(b []byte) (branch, status, worktree []byte) {
	branch, rest, ok := bytes.Cut(b, []byte{0})
	if !ok {
		return b, nil, nil
	}
	status, worktree, _ = bytes.Cut(rest, []byte{0})
	return branch, status, worktree
}
