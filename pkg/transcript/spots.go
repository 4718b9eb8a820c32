package transcript

import (
	"bytes"
	"io"
	"slices"
)

// ActivityWindow is how far back from a transcript's end ForCompaction reads the commands: a
// command further back is found only through where the session noted it (CommandsAt).
const ActivityWindow = maxActivityScan

// Around a spot — where the transcript stood when PreToolUse ran before a shell command — the
// command's lines lie: its tool use just before or just after (clients write the assistant's line
// before or after the hook), its result after it, past any other tool call's lines of the same
// turn. spotBefore and spotAfter bound the stretch read around each spot; maxSpotRead bounds all
// the stretches of one CommandsAt together.
const (
	spotBefore  = 32 << 10
	spotAfter   = 224 << 10
	maxSpotRead = 2 << 20
)

// Spot is where a session noted a shell command before it ran (PreToolUse): the transcript's
// length then, and the command's tool use id ("" when unknown).
type Spot struct {
	At int64
	ID string
}

// maxSeek bounds how far past a spot CommandsAt looks for its tool use id, and maxSeekAll all the
// looking of one call: clients write a turn's lines in bursts, so a tool use can lie past the
// length noted before it by the results written in between (each up to Claude Code's cap on a
// tool's output), and a new session's transcript may not have existed at all (a spot at 0).
const (
	maxSeek    = 2 << 20
	maxSeekAll = 4 << 20
)

// CommandsAt reads the commands run around spots (where the session noted each shell command
// before it ran: claims.NoteCommand) that lie at or after floor and before upto — the stretch a
// read from the end did not reach — most recent first, until it holds maxCommands or has read
// maxSpotRead bytes: each command with its exit status, the last error and the last commit among
// them, and the decisions stated there. A spot with an id is moved to the line that holds it, when
// that line lies within maxSeek after it and before upto (one past upto was read from the end
// already); one whose id is not found is dropped. A stretch that holds a compaction boundary is
// read only after it.
func (t *File) CommandsAt(spots []Spot, floor, upto int64) (Activity, error) {
	var act Activity
	_, err := t.with(func(r io.ReaderAt, size int64) error {
		var err error
		act, err = commandsAt(r, size, spots, floor, upto)
		return err
	})
	return act, err
}

// commandsAt is CommandsAt over r, size bytes long.
func commandsAt(r io.ReaderAt, size int64, spots []Spot, floor, upto int64) (Activity, error) {
	var act Activity
	upto = min(upto, size)
	var in []int64
	seek := int64(0)
	var buf []byte // lineHolding's, shared
	for _, sp := range spots {
		at := sp.At
		if at < floor || at >= upto {
			continue
		}
		if sp.ID != "" {
			var found, read int64
			var err error
			found, read, buf, err = lineHolding(r, at, min(upto, at+maxSeek, at+maxSeekAll-seek), sp.ID, buf)
			seek += read
			if err != nil {
				return act, err
			}
			if found < 0 {
				continue
			}
			at = found
		}
		if !slices.Contains(in, at) {
			in = append(in, at)
		}
	}
	slices.Sort(in)
	slices.Reverse(in) // most recent first
	read := int64(0)
	for len(in) > 0 && len(act.Commands) < maxCommands && read < maxSpotRead {
		// One stretch: the latest spot's, grown over the spots whose stretches overlap it.
		hi := min(size, in[0]+spotAfter)
		lo := max(floor, in[0]-spotBefore)
		in = in[1:]
		// Grown while it overlaps the next spot's and stays within what is left to read.
		for len(in) > 0 && in[0]+spotAfter >= lo && hi-max(floor, in[0]-spotBefore) <= maxSpotRead-read {
			lo = max(floor, in[0]-spotBefore)
			in = in[1:]
		}
		end, err := stretchEnd(r, lo, hi, size)
		if err != nil {
			return act, err
		}
		if end <= lo {
			continue
		}
		seg, err := defaultLimits.sinceAt(r, end, "", lo, end-lo, false, newActivityScan(r, defaultLimits))
		if err != nil {
			return act, err
		}
		read += end - lo
		act.AddOlder(*seg.act)
		if seg.boundary >= 0 {
			break // a compaction boundary: what lies before it belongs to an earlier compaction
		}
	}
	return act, nil
}

// lineHolding looks in [from, to) for the first occurrence of id as a JSON string ("id") and
// returns where its line starts (at or after from), or -1, how many bytes it read, and its
// buffer (buf, grown), for the next call. It reads small first and doubles up to seekChunk, so
// that a tool use written just past its note (the usual case) costs a few kilobytes of the
// budget, not a whole chunk.
func lineHolding(r io.ReaderAt, from, to int64, id string, buf []byte) (int64, int64, []byte, error) {
	needle := []byte(`"` + id + `"`)
	if cap(buf) < seekChunk+maxIDLen {
		buf = make([]byte, seekChunk+max(len(needle), maxIDLen))
	}
	read := int64(0)
	lineStart := from
	step := int64(firstSeekChunk)
	for pos := from; pos < to; pos += step {
		if read > 0 {
			step = min(2*step, seekChunk)
		}
		b := buf[:min(step+int64(len(needle)), to-pos)]
		if err := readFull(r, b, pos); err != nil {
			return -1, read, buf, err
		}
		read += int64(len(b))
		if i := bytes.Index(b, needle); i >= 0 {
			if j := bytes.LastIndexByte(b[:i], '\n'); j >= 0 {
				lineStart = pos + int64(j) + 1
			}
			return lineStart, read, buf, nil
		}
		if j := bytes.LastIndexByte(b[:min(int64(len(b)), step)], '\n'); j >= 0 {
			lineStart = pos + int64(j) + 1
		}
	}
	return -1, read, buf, nil
}

// lineHolding's reads: the first, and the most any one grows to.
const (
	firstSeekChunk = 16 << 10
	seekChunk      = 256 << 10
)

// maxIDLen is the room lineHolding's buffer keeps past a chunk for the needle: a tool use id and
// its quotes (claims keeps ids of at most 128 bytes).
const maxIDLen = 130

// stretchEnd is where a stretch [lo, hi) read for its commands ends: past the end of the line
// that holds hi (or size), when that line ends within maxLineTail of hi; else where that line
// begins (at or after lo; lo when it began before), so that one huge line (a tool's output runs
// to megabytes) is not read through.
func stretchEnd(r io.ReaderAt, lo, hi, size int64) (int64, error) {
	if hi >= size {
		return size, nil
	}
	if hi > 0 {
		var b [1]byte
		if err := readFull(r, b[:], hi-1); err != nil {
			return 0, err
		}
		if b[0] == '\n' {
			return hi, nil
		}
	}
	buf := make([]byte, 64<<10)
	for pos := hi; pos < min(size, hi+maxLineTail); pos += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), size-pos)]
		if err := readFull(r, chunk, pos); err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
	}
	if hi+maxLineTail >= size {
		return size, nil
	}
	// No end within reach: back to where the line holding hi starts.
	for end := hi; end > lo; {
		start := max(lo, end-int64(len(buf)))
		chunk := buf[:end-start]
		if err := readFull(r, chunk, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return lo, nil
}

// maxLineTail bounds how far past a stretch's end stretchEnd looks for the end of its last line.
const maxLineTail = 1 << 20

// Full reports whether a lists as many commands as an Activity holds.
func (a Activity) Full() bool { return len(a.Commands) >= maxCommands }

// AddOlder adds to a what o found further back: o's commands after a's (one listed already is
// not again), counted in More past maxCommands; o's last error, last commit and decisions where a
// has none, or fewer than maxDecisions.
func (a *Activity) AddOlder(o Activity) {
	for _, c := range o.Commands {
		switch {
		case slices.ContainsFunc(a.Commands, func(d Command) bool { return d.Line == c.Line }):
		case len(a.Commands) < maxCommands:
			a.Commands = append(a.Commands, c)
		default:
			a.More++
		}
	}
	a.More += o.More
	if a.LastError == "" {
		a.LastError = o.LastError
	}
	if a.LastCommit == "" {
		a.LastCommit = o.LastCommit
	}
	for _, d := range o.Decisions {
		if len(a.Decisions) < maxDecisions && !slices.Contains(a.Decisions, d) {
			a.Decisions = append(a.Decisions, d)
		}
	}
}
