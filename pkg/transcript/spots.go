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
		act = Activity{}
		upto := min(upto, size)
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
					return err
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
			for len(in) > 0 && in[0]+spotAfter >= lo {
				lo = max(floor, in[0]-spotBefore)
				in = in[1:]
			}
			end, err := endOfLine(r, hi, size)
			if err != nil {
				return err
			}
			if end <= lo {
				continue
			}
			seg, err := defaultLimits.sinceAt(r, end, "", lo, end-lo, false, newActivityScan(r, defaultLimits))
			if err != nil {
				return err
			}
			read += end - lo
			act.AddOlder(*seg.act)
			if seg.boundary >= 0 {
				break // a compaction boundary: what lies before it belongs to an earlier compaction
			}
		}
		return nil
	})
	return act, err
}

// lineHolding looks in [from, to) for the first occurrence of id as a JSON string ("id") and
// returns where its line starts (at or after from), or -1, how many bytes it read, and its
// buffer (buf, grown), for the next call.
func lineHolding(r io.ReaderAt, from, to int64, id string, buf []byte) (int64, int64, []byte, error) {
	needle := []byte(`"` + id + `"`)
	const chunk = 256 << 10
	if cap(buf) < chunk+len(needle) {
		buf = make([]byte, chunk+max(len(needle), maxIDLen))
	}
	buf = buf[:chunk+len(needle)]
	read := int64(0)
	lineStart := from
	for pos := from; pos < to; pos += chunk {
		b := buf[:min(int64(len(buf)), to-pos)]
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
		if j := bytes.LastIndexByte(b[:min(len(b), chunk)], '\n'); j >= 0 {
			lineStart = pos + int64(j) + 1
		}
	}
	return -1, read, buf, nil
}

// maxIDLen is the room lineHolding's buffer keeps past a chunk for the needle: a tool use id and
// its quotes (claims keeps ids of at most 128 bytes).
const maxIDLen = 130

// endOfLine is where the line that holds offset at ends (just past its '\n'), or size; at itself
// when it starts a line (at 0, or after a '\n').
func endOfLine(r io.ReaderAt, at, size int64) (int64, error) {
	if at >= size {
		return size, nil
	}
	if at > 0 {
		var b [1]byte
		if err := readFull(r, b[:], at-1); err != nil {
			return 0, err
		}
		if b[0] == '\n' {
			return at, nil
		}
	}
	buf := make([]byte, 64<<10)
	for pos := at; pos < size; pos += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), size-pos)]
		if err := readFull(r, chunk, pos); err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
	}
	return size, nil
}

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
