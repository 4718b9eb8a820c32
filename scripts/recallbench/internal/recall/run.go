// Package recall measures how much of what a session established reaches the model after a
// compaction, after /clear and at the next session's startup, with cairn's hooks and without
// them. It is scripts/recallbench's logic, apart from its main so that the floor test runs it
// in-process:
//
//  1. [Corpus] generates seeded sessions of varied shape, each with labelled facts and the
//     moments at which each must hold, and a compaction summary written the way Claude Code's
//     read (summary.go);
//  2. [Replay] plays each on a fake machine through the built hooks as processes, in the order
//     Claude Code sends the events, appending the transcript as the session goes;
//  3. [Score] looks for each fact's needle in what each arm puts in front of the model, and for
//     the negative controls: other projects' facts, expired and archived parked items.
package recall

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Options say what to run.
type Options struct {
	Seed     uint64
	Phrasing string // the corpus's wordings (phrasing.go): "" or PhrasingDefault, or a held-out one
	Sessions int
	MaxSize  int       // bytes: the largest transcript
	Bin      string    // the built binaries
	Work     string    // an empty directory for the fake machine
	Progress io.Writer // one line per session; nil for none
}

// Run generates the corpus, replays every session and scores them.
func Run(ctx context.Context, o Options) (Report, []Played, error) {
	m := &Machine{Bin: o.Bin, Work: o.Work, Now: time.Now()}
	sessions, err := Corpus(o.Seed, o.Sessions, o.MaxSize, o.Phrasing)
	if err != nil {
		return Report{}, nil, err
	}
	played := make([]Played, 0, len(sessions))
	for i := range sessions {
		p, err := Replay(ctx, m, &sessions[i])
		if err != nil {
			return Report{}, nil, fmt.Errorf("session %d (%s): %w", i, sessions[i].Shape, err)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "recallbench: session %d/%d %s, %s\n", i+1, len(sessions), sessions[i].Shape, size(p.Bytes))
		}
		played = append(played, p)
	}
	rep := Score(played)
	rep.Seed, rep.Sessions, rep.MaxSize = o.Seed, o.Sessions, o.MaxSize
	if o.Phrasing != PhrasingDefault {
		rep.Phrasing = o.Phrasing
	}
	return rep, played, nil
}
