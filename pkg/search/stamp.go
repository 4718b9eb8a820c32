package search

import (
	"encoding/binary"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// stamp is the cheap freshness check a query starts with: the checkpoint directory's mtime (a
// checkpoint added, removed or renamed changes it, and cairn never rewrites one) and the mtime
// and size of the single files. A handful of stat calls, where checking every file costs one
// per checkpoint (docs/BENCHMARKS.md measures both).
type stamp struct {
	dir  int64 // the checkpoint directory's mtime (ns); 0 when it is missing
	racy bool  // the directory changed too recently for its mtime to be trusted
	// racyFiles: the index holds checkpoints read too soon after they changed (file.racy):
	// the next sync stats them again, without listing the directory.
	racyFiles bool
	fixed     [5][2]int64
	full      int64  // unix seconds of the last full sweep (every file stat'ed)
	index     uint64 // the index state the stamp describes (see Index.id)
}

// fullEvery bounds how long a checkpoint edited in place (which leaves its directory's mtime
// alone) can go unnoticed: a query after this long stats every file again and checks the
// index's checksum.
const fullEvery = 10 * time.Minute

// racyWindow: a directory whose mtime is this close to now may change again within the
// timestamp's granularity without its mtime changing, so the next query lists its names again
// (git's racy-index rule). File systems with whole-second timestamps (FAT, HFS+, some network
// ones) need seconds; those with nanoseconds (ext4, APFS, tmpfs) tick with the kernel's clock,
// a few milliseconds, so a fraction of a second is plenty — and spares a long-running process
// a listing of every name on each search in the seconds after a save.
const (
	racyWindow     = 2 * time.Second
	racyWindowFine = 100 * time.Millisecond
)

// racy reports whether an mtime is too recent to be trusted. One in the future (a clock
// skewed, a file copied from elsewhere) is not: waiting would not settle it.
func racy(mtime, now time.Time) bool {
	d := now.Sub(mtime)
	if mtime.Nanosecond() != 0 {
		return d >= 0 && d < racyWindowFine
	}
	return d >= 0 && d < racyWindow
}

func (c *corpus) currentStamp(now time.Time) stamp {
	var s stamp
	if fi, err := safefile.Stat(c.at(c.ckpts)); err == nil {
		s.dir = fi.ModTime().UnixNano()
		s.racy = racy(fi.ModTime(), now)
	}
	for i, p := range []string{auditRel, legacyAuditRel, timelineRel, prunedRel} {
		if m, sz, ok := c.stat(p); ok {
			s.fixed[i] = [2]int64{m, sz}
		}
	}
	if m, sz, ok := c.parkedPrint(); ok {
		s.fixed[4] = [2]int64{m, sz}
	}
	return s
}

// checkpointsFresh reports whether the checkpoint directory needs no listing.
func (old stamp) checkpointsFresh(cur stamp, id uint64, now time.Time) bool {
	return old.index == id && old.dir == cur.dir && !old.racy && now.Unix()-old.full < int64(fullEvery/time.Second)
}

// fresh reports whether nothing changed since old was recorded for index state id.
func (old stamp) fresh(cur stamp, id uint64, now time.Time) bool {
	return old.checkpointsFresh(cur, id, now) && old.fixed == cur.fixed && !old.racyFiles
}

const (
	stampMagic = "CSTAMP02"
	stampLen   = len(stampMagic) + 8 + 1 + 16*len(stamp{}.fixed) + 8 + 8
)

func (s stamp) marshal() []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, stampLen)
	b = append(b, stampMagic...)
	b = le.AppendUint64(b, uint64(s.dir))
	r := byte(0)
	if s.racy {
		r |= 1
	}
	if s.racyFiles {
		r |= 2
	}
	b = append(b, r)
	for _, f := range s.fixed {
		b = le.AppendUint64(b, uint64(f[0]))
		b = le.AppendUint64(b, uint64(f[1]))
	}
	b = le.AppendUint64(b, uint64(s.full))
	return le.AppendUint64(b, s.index)
}

// unmarshalStamp reads a stamp; ok is false for anything else (a full sweep follows).
func unmarshalStamp(b []byte) (s stamp, ok bool) {
	if len(b) != stampLen || string(b[:len(stampMagic)]) != stampMagic {
		return s, false
	}
	le := binary.LittleEndian
	b = b[len(stampMagic):]
	s.dir = int64(le.Uint64(b))
	s.racy, s.racyFiles = b[8]&1 != 0, b[8]&2 != 0
	b = b[9:]
	for i := range s.fixed {
		s.fixed[i] = [2]int64{int64(le.Uint64(b[16*i:])), int64(le.Uint64(b[16*i+8:]))}
	}
	b = b[16*len(s.fixed):]
	s.full = int64(le.Uint64(b))
	s.index = le.Uint64(b[8:])
	return s, true
}
