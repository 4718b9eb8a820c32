package search

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// An index is a base segment (base.cidx) and an optional delta segment (delta.cidx) holding
// what changed since the base was built. A segment is one immutable file, written to a temp
// name and renamed, and read through mmap, so that a query touches only the pages it needs.
//
// Segment layout, little-endian:
//
//	header   256 bytes: magic "CAIRNIDX", version u32, nDocs, nTerms, nFiles, nTomb u32,
//	         flags u32, baseID u64 (a delta: the checksum of the base it extends), 8 section
//	         offsets u64 (terms, blob, postings, docs, files, tomb, strings, end), then per kind
//	         {docs u32, length u64} (BM25's average length is per kind), reserved bytes to 256
//	terms    (nTerms+1) × {blobOff u32, postOff u32}, sorted by term; a sentinel last (a term's
//	         document frequency is its postings' count, known once they are read)
//	blob     the terms' bytes
//	postings per term: (uvarint docID+1 delta, uvarint tf)*, docIDs ascending; tf packs the
//	         counts in the body and the title: body<<2 | min(title, 3)
//	docs     nDocs × 40 bytes: time i64, off i64, len u32, dl u32 (the body's words), file u32,
//	         titleOff u32, branchOff u32, titleLen u16, branchLen u8, kind u8; the branch of a
//	         checkpoint is followed by a NUL and its status
//	files    nFiles × 48 bytes: pathOff u32, pathLen u16, source u8, flags u8, mtime i64, size i64,
//	         indexed i64, tail u32, firstDoc u32, nDocs u32, ident u32 (a transcript's device and
//	         inode, safefile.Identity; 0 for the project's files); sorted by path in the base and
//	         delta, by path within each run of a history segment (see history.go)
//	tomb     nTomb × u32: base file numbers whose documents are dead (a delta's)
//	strings  titles, branches and paths
//	trailer  crc32c of everything before it, u32
//
// Every offset and count read from a segment is checked against its section before use, so a
// damaged or hostile file (the fallback index lives inside the project) reads as ErrDamaged,
// never as a panic or a read out of bounds.

const (
	magic       = "CAIRNIDX"
	version     = 5 // 2: a checkpoint's status after its branch; 3: sessions and pruned checkpoints; 4: no df in the term records; 5: a linked worktree's name after a checkpoint's status
	headerSize  = 256
	trailerSize = 4
	termRec     = 8
	docRec      = 40
	fileRec     = 48
)

// A file record's flags.
const (
	// fileRacy: a checkpoint read within the racy window of its mtime.
	fileRacy = 1 << iota
	// fileWhole: a transcript read from its start again (rewritten, cut short, gone or
	// forgotten), whose record replaces every record of its path in the segments before.
	fileWhole
	// filePartial: a transcript not read to its end (the sync's deadline came first): the next
	// sync goes on from where this one stopped.
	filePartial
	// fileForeign: a transcript of another project's session (its cwd is under none of the
	// history's roots), recorded without documents so that it is not read again until it changes.
	fileForeign
	// fileForgotten: a session cairn forget removed; it is never read again.
	fileForgotten
)

// Sections, in file order.
const (
	secTerms = iota
	secBlob
	secPost
	secDocs
	secFiles
	secTomb
	secStr
	secEnd
	numSec
)

// segWhole is the header's flag of a segment that holds a record with fileWhole: a reader then
// looks for the records of earlier segments it replaces (history.go), and only then.
const segWhole = 1

// errDamaged means an index file is not one this code wrote whole: it is rebuilt.
var errDamaged = errors.New("search index damaged")

// castagnoli is the crc32c table, made on first use: at package init it would slow the start of
// every cairn command, search or not (MakeTable caches it).
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// kindStat is how many documents of a kind a segment holds and their total length.
type kindStat struct {
	docs uint32
	len  uint64
}

type header struct {
	nDocs, nTerms, nFiles, nTomb uint32
	flags                        uint32 // segWhole
	baseID                       uint64
	off                          [numSec]uint64
	kinds                        [numKinds]kindStat
}

func (h *header) put(b []byte) {
	le := binary.LittleEndian
	copy(b, magic)
	le.PutUint32(b[8:], version)
	le.PutUint32(b[12:], h.nDocs)
	le.PutUint32(b[16:], h.nTerms)
	le.PutUint32(b[20:], h.nFiles)
	le.PutUint32(b[24:], h.nTomb)
	le.PutUint32(b[28:], h.flags)
	le.PutUint64(b[32:], h.baseID)
	for i, v := range h.off {
		le.PutUint64(b[40+8*i:], v)
	}
	for k, s := range h.kinds {
		le.PutUint32(b[104+12*k:], s.docs)
		le.PutUint64(b[108+12*k:], s.len)
	}
}

// get reads the header of the segment b and checks that every section lies where the counts
// say, in order, inside b.
func (h *header) get(b []byte) error {
	if len(b) < headerSize+trailerSize || string(b[:8]) != magic {
		return errDamaged
	}
	le := binary.LittleEndian
	if le.Uint32(b[8:]) != version {
		return errDamaged
	}
	h.nDocs, h.nTerms, h.nFiles, h.nTomb = le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint32(b[20:]), le.Uint32(b[24:])
	h.flags, h.baseID = le.Uint32(b[28:]), le.Uint64(b[32:])
	for i := range h.off {
		h.off[i] = le.Uint64(b[40+8*i:])
	}
	var sum uint64
	for k := range h.kinds {
		h.kinds[k] = kindStat{le.Uint32(b[104+12*k:]), le.Uint64(b[108+12*k:])}
		sum += uint64(h.kinds[k].docs)
	}
	o := h.off
	for i := 1; i < numSec; i++ {
		if o[i] < o[i-1] {
			return errDamaged
		}
	}
	// Ordered and inside b, so none of the sums below can overflow.
	if o[secEnd]+trailerSize != uint64(len(b)) || o[secTerms] != headerSize ||
		o[secBlob] != o[secTerms]+(uint64(h.nTerms)+1)*termRec ||
		o[secFiles] != o[secDocs]+uint64(h.nDocs)*docRec ||
		o[secTomb] != o[secFiles]+uint64(h.nFiles)*fileRec ||
		o[secStr] != o[secTomb]+uint64(h.nTomb)*4 ||
		sum != uint64(h.nDocs) || h.kinds[0].docs != 0 {
		return errDamaged
	}
	return nil
}

// segment is one index file, mapped or read.
type segment struct {
	h     header
	data  []byte
	crc   uint32 // the trailer: the segment's identity
	unmap func() error
}

// decodeSegment checks data's structure and returns the segment over it.
func decodeSegment(data []byte) (*segment, error) {
	s := &segment{data: data}
	if err := s.h.get(data); err != nil {
		return nil, err
	}
	s.crc = binary.LittleEndian.Uint32(data[s.h.off[secEnd]:])
	return s, nil
}

// verify checks the trailer against the whole segment: what the structure checks cannot see
// (a flipped bit in a posting). It reads every page, so it runs with the periodic full sweep,
// not with every query.
func (s *segment) verify() bool {
	return crc32.Checksum(s.data[:s.h.off[secEnd]], castagnoli()) == s.crc
}

func (s *segment) close() {
	if s != nil && s.unmap != nil {
		s.unmap()
		s.unmap = nil
	}
}

func (s *segment) u16(off uint64) uint16 { return binary.LittleEndian.Uint16(s.data[off:]) }
func (s *segment) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(s.data[off:]) }
func (s *segment) u64(off uint64) uint64 { return binary.LittleEndian.Uint64(s.data[off:]) }

// term returns the i-th term (i < nTerms) and its postings; ok is false when they lie outside
// their sections.
func (s *segment) term(i uint32) (term, post []byte, ok bool) {
	r := s.h.off[secTerms] + uint64(i)*termRec
	b0, p0 := uint64(s.u32(r)), uint64(s.u32(r+4))
	b1, p1 := uint64(s.u32(r+termRec)), uint64(s.u32(r+termRec+4))
	b0, b1, p0, p1 = b0+s.h.off[secBlob], b1+s.h.off[secBlob], p0+s.h.off[secPost], p1+s.h.off[secPost]
	if b0 > b1 || b1 > s.h.off[secPost] || p0 > p1 || p1 > s.h.off[secDocs] {
		return nil, nil, false
	}
	return s.data[b0:b1], s.data[p0:p1], true
}

// find returns the index of the first term >= t (nTerms when none is); ok is false when a
// term on the way is damaged.
func (s *segment) find(t string) (uint32, bool) {
	lo, hi := uint32(0), s.h.nTerms
	for lo < hi {
		m := lo + (hi-lo)/2
		tm, _, ok := s.term(m)
		if !ok {
			return 0, false
		}
		if string(tm) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, true
}

// docInfo is a document's record.
type docInfo struct {
	time, off     int64
	n, dl, file   uint32
	titleOff      uint32
	branchOff     uint32
	titleLen      uint16
	branchLen     uint8
	kind          Kind
	local, global uint32 // its number in the segment and in the index
}

// doc returns document i (< nDocs).
func (s *segment) doc(i uint32) docInfo {
	r := s.h.off[secDocs] + uint64(i)*docRec
	return docInfo{
		time: int64(s.u64(r)), off: int64(s.u64(r + 8)), n: s.u32(r + 16), dl: s.u32(r + 20), file: s.u32(r + 24),
		titleOff: s.u32(r + 28), branchOff: s.u32(r + 32), titleLen: s.u16(r + 36), branchLen: s.data[r+38],
		kind: Kind(s.data[r+39]), local: i,
	}
}

// str returns n bytes of the strings section at off; nil when they lie outside it.
func (s *segment) str(off uint32, n int) []byte {
	a := s.h.off[secStr] + uint64(off)
	if a+uint64(n) > s.h.off[secEnd] {
		return nil
	}
	return s.data[a : a+uint64(n)]
}

// fileInfo is a file's record.
type fileInfo struct {
	file
	pathOff uint32
	pathLen uint16
}

// fileSource is file i's source, read alone.
func (s *segment) fileSource(i uint32) source {
	return source(s.data[s.h.off[secFiles]+uint64(i)*fileRec+6])
}

// file returns file i (< nFiles).
func (s *segment) file(i uint32) fileInfo {
	r := s.h.off[secFiles] + uint64(i)*fileRec
	f := fileInfo{pathOff: s.u32(r), pathLen: s.u16(r + 4)}
	f.src = source(s.data[r+6])
	f.mtime, f.size, f.indexed = int64(s.u64(r+8)), int64(s.u64(r+16)), int64(s.u64(r+24))
	f.tail, f.firstDoc, f.nd, f.ident = s.u32(r+32), s.u32(r+36), s.u32(r+40), s.u32(r+44)
	f.flags = s.data[r+7]
	f.racy = f.flags&fileRacy != 0
	f.path = string(s.str(f.pathOff, int(f.pathLen)))
	return f
}

// filePath returns file i's path without allocating.
func (s *segment) filePath(i uint32) []byte {
	r := s.h.off[secFiles] + uint64(i)*fileRec
	return s.str(s.u32(r), int(s.u16(r+4)))
}

func (s *segment) tomb(i uint32) uint32 { return s.u32(s.h.off[secTomb] + uint64(i)*4) }

// uvarint decodes a varint at p[i:], bounds-checked.
func uvarint(p []byte, i int) (uint64, int, bool) {
	var x uint64
	var sh uint
	for i < len(p) && sh < 64 {
		c := p[i]
		i++
		if c < 0x80 {
			return x | uint64(c)<<sh, i, true
		}
		x |= uint64(c&0x7f) << sh
		sh += 7
	}
	return 0, i, false
}

// postings decodes a posting list into docs and tfs (appending); ok is false when it is
// damaged: a varint cut short, a docID beyond nDocs, or not ascending.
func (s *segment) postings(post []byte, base uint32, docs, tfs []uint32) ([]uint32, []uint32, bool) {
	doc := uint64(0)
	for p := 0; p < len(post); {
		var delta, tf uint64
		var ok bool
		if delta, p, ok = uvarint(post, p); !ok {
			return docs, tfs, false
		}
		if tf, p, ok = uvarint(post, p); !ok {
			return docs, tfs, false
		}
		if delta == 0 || delta > uint64(s.h.nDocs) || tf > 1<<31 {
			return docs, tfs, false
		}
		if doc += delta; doc > uint64(s.h.nDocs) {
			return docs, tfs, false
		}
		docs = append(docs, base+uint32(doc-1))
		tfs = append(tfs, uint32(tf))
	}
	return docs, tfs, true
}
