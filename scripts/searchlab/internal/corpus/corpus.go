// Package corpus turns a project's history into the documents the lab's engines index, as
// pkg/search's source.go does: one per checkpoint (its heading as the title; Summary, Decisions,
// Remaining, Notes and the files as the body), one per audit line (the item's slug; its text),
// one per timeline line (the event with its source, trigger or reason; the branch, the
// checkpoint's name and the session's first 8 characters), one per open parked item.
package corpus

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Doc is one searchable document.
type Doc struct {
	ID     string
	Kind   string // lab.KindNames
	Time   int64  // unix seconds, 0 when unknown
	Branch string
	Title  string
	Body   string
	Path   string // relative to the root, with '/'
	Off, N int64  // the line's bytes (JSON lines); N == 0 for a whole file
}

const (
	auditRel       = ".notes/logs/session-archive.jsonl"
	legacyAuditRel = ".claude/logs/session-archive.jsonl"
	parkedRel      = ".claude/state/session-context.md"
)

// Walk calls fn with each document of the project at root; d is reused between calls.
func Walk(root string, fn func(d *Doc) error) error {
	dir := checkpoint.Dir(root)
	rel, _ := filepath.Rel(root, dir)
	rel = filepath.ToSlash(rel)
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".md") && len(n) > len("20060102-150405-.md") && n[8] == '-' && n[15] == '-' {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var d Doc
	for _, n := range names {
		data, err := readHead(filepath.Join(dir, n), checkpoint.MaxRead)
		if err != nil {
			continue
		}
		d = checkpointDoc(n, data)
		d.Path, d.ID = rel+"/"+n, strings.TrimSuffix(n, ".md")
		if err := fn(&d); err != nil {
			return err
		}
	}
	for _, p := range []string{auditRel, legacyAuditRel, timeline.File} {
		if err := lines(root, p, func(off int64, line []byte) error {
			var ok bool
			if p == timeline.File {
				d, ok = timelineDoc(line)
			} else {
				d, ok = auditDoc(line)
			}
			if !ok {
				return nil
			}
			d.Path, d.Off, d.N = p, off, int64(len(line))
			d.ID = p + "#" + strconv.FormatInt(off, 10)
			return fn(&d)
		}); err != nil {
			return err
		}
	}
	items, _ := (&parking.Store{Root: root, Now: time.Now}).List()
	for _, it := range items {
		d = Doc{ID: "parked:" + it.Slug, Kind: "parked", Title: it.Name, Body: it.Text, Path: parkedRel}
		if t, err := time.ParseInLocation(parking.DateLayout, it.Raised, time.Local); err == nil {
			d.Time = t.Unix()
		}
		if err := fn(&d); err != nil {
			return err
		}
	}
	return nil
}

func readHead(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// lines calls fn with each whole line of the file at rel (without its newline) and its offset.
func lines(root, rel string, fn func(off int64, line []byte) error) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for {
		line, err := r.ReadSlice('\n')
		if err != nil { // EOF, an unfinished line, or one longer than 1 MiB: skipped
			if err == bufio.ErrBufferFull {
				off += int64(len(line))
				for err == bufio.ErrBufferFull {
					line, err = r.ReadSlice('\n')
					off += int64(len(line))
				}
				continue
			}
			return nil
		}
		if err := fn(off, line[:len(line)-1]); err != nil {
			return err
		}
		off += int64(len(line))
	}
}

func checkpointDoc(name string, data []byte) Doc {
	fm, body := checkpoint.SplitLoose(data)
	front := checkpoint.ReadFrontmatter(fm)
	heading, sec := checkpoint.ParseBody(body)
	title, saved, _ := checkpoint.SplitName(name)
	if heading != "" {
		title = heading
	}
	var b strings.Builder
	for _, s := range []string{sec.Summary, sec.Decisions, sec.Remaining, sec.Notes} {
		if s != "" {
			b.WriteString(s)
			b.WriteString("\n\n")
		}
	}
	if len(front.Files) > 0 {
		b.WriteString("Files: " + strings.Join(front.Files, " "))
	}
	kind := "saved"
	if front.Status == checkpoint.StatusAuto {
		kind = "auto"
	}
	if s, ok := fm["kind"].(string); ok {
		switch s = strings.ToLower(strings.TrimSpace(s)); s {
		case "saved", "auto", "handoff":
			kind = s
		}
	}
	return Doc{Kind: kind, Time: unix(saved), Branch: front.Branch, Title: title, Body: strings.TrimSpace(b.String())}
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func auditDoc(line []byte) (Doc, bool) {
	e, ok := parking.ParseAuditLine(line)
	if !ok || !parking.IsRemoval(e.Action) {
		return Doc{}, false // a correction line (pointer_kept) is not an item, as pkg/search reads it
	}
	kind := "archived"
	if e.Action == parking.ActionExpired {
		kind = "expired"
	}
	return Doc{Kind: kind, Time: unix(e.Time()), Title: e.Item, Body: e.Text}, true
}

func timelineDoc(line []byte) (Doc, bool) {
	ev, ok := timeline.Parse(line)
	if !ok {
		return Doc{}, false
	}
	title := ev.Event
	for _, s := range []string{ev.Source, ev.Trigger, ev.Reason} {
		if s != "" {
			title += " (" + s + ")"
		}
	}
	cp := ev.Checkpoint
	if i := strings.LastIndexByte(cp, '/'); i >= 0 {
		cp = cp[i+1:]
	}
	sess := ev.Session
	if len(sess) > 8 {
		sess = sess[:8]
	}
	return Doc{Kind: "timeline", Time: unix(ev.Time), Branch: ev.Branch, Title: title,
		Body: strings.Join([]string{ev.Branch, strings.TrimSuffix(cp, ".md"), sess}, " ")}, true
}
