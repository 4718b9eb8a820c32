//go:build linux

package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/saved"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// Files cairn writes, relative to the project root (docs/DESIGN.md, Where state lives).
const (
	fileContext   = ".claude/state/session-context.md"
	fileSessions  = ".claude/state/session.json"
	fileEvents    = ".claude/state/session.events.jsonl"
	fileLog       = ".claude/state/cairn.log"
	fileCkptIndex = ".claude/state/checkpoint-events.json"
	fileAudit     = ".notes/logs/session-archive.jsonl"
	fileTimeline  = "memory/timeline.jsonl"
	fileActive    = ".agents/runs/active"
)

// state is what a project holds, read the way cairn's own readers read it. problems lists every
// file that does not parse, is empty, torn, or holds a structure twice.
type state struct {
	problems    []string
	run         map[string]string // state.json of the active run; nil without one
	runRel      string
	memory      string
	parked      map[string]parking.Item // current bullets and legacy items, by slug
	audit       []parking.AuditEntry    // every line of the audit log
	events      []registry.Event        // every line of the event log
	timeline    []map[string]any
	checkpoints map[string]saved.Checkpoint // by file name
	sessions    []registry.Session
	temps       []string // leftover temp files (.NAME.tmp*), project-relative
	// Lines of the JSON-lines logs that do not parse: a problem, except where a test allows the
	// fragments a full disk leaves. torn holds each log's torn last record (safefile.TornTail):
	// what a writer killed mid-append leaves until the next append cuts it. It is not damage —
	// every reader skips it, which checkTornTailsSkipped proves — so mustBeSound accepts it; an
	// unterminated last line of any other shape is a problem.
	garbage map[string][]string
	torn    map[string]string
}

func (s *state) problem(format string, args ...any) {
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

// tempName is a temp file of safefile: "." + base + ".tmp" + random digits.
var tempName = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// readState reads and checks every file cairn writes in m's project.
func readState(m *machine) state {
	var s state
	root := m.proj

	// Run state and whiteboard.
	if r, err := runstate.Active(root); err == nil {
		s.runRel = r.Rel
		data, err := os.ReadFile(r.StatePath())
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			s.problem("%s/state.json: %v", r.Rel, err)
		case len(data) == 0:
			s.problem("%s/state.json is empty", r.Rel)
		default:
			st, _, err := runstate.Parse(data)
			if err != nil {
				s.problem("%s/state.json does not parse: %v: %q", r.Rel, err, clipText(string(data), 300))
			}
			s.run = map[string]string{}
			for _, k := range st.Keys() {
				s.run[k] = st.Get(k)
			}
		}
		if data, err := os.ReadFile(r.MemoryPath()); err == nil {
			s.memory = string(data)
			checkWhiteboard(&s, r.Rel+"/MEMORY.md", s.memory)
		}
	} else if !errors.Is(err, runstate.ErrNoActive) {
		s.problem("%s: %v", fileActive, err)
	}

	// session-context.md: the parked items and the snapshot section.
	if data, err := os.ReadFile(m.p(fileContext)); err == nil {
		if len(data) == 0 {
			s.problem("%s is empty", fileContext)
		}
		begins, ends := markerLines(string(data), sessionfile.Markers.Begin, sessionfile.Markers.End)
		if begins > 1 || begins != ends {
			s.problem("%s: %d snapshot begin lines and %d end lines", fileContext, begins, ends)
		}
		if c := strings.Count(string(data), "\n"+sessionfile.ParkedHeading+"\n") + boolInt(strings.HasPrefix(string(data), sessionfile.ParkedHeading+"\n")); c > 1 {
			s.problem("%s: %d %q headings", fileContext, c, sessionfile.ParkedHeading)
		}
	}
	items, err := parking.New(root, m.config, safefile.Disk{Roots: []string{root}}, time.Now).List()
	if err != nil {
		s.problem("parked items: %v", err)
	}
	s.parked = map[string]parking.Item{}
	for _, it := range items {
		if _, dup := s.parked[it.Slug]; dup {
			s.problem("parked item %s listed twice", it.Slug)
		}
		s.parked[it.Slug] = it
	}

	// Append-only logs: every line one JSON object, every line ended.
	jsonLines(&s, m, fileAudit, func(line []byte) error {
		var e parking.AuditEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Item == "" || (e.Action != parking.ActionArchived && e.Action != parking.ActionExpired) {
			return fmt.Errorf("not an audit entry")
		}
		s.audit = append(s.audit, e)
		return nil
	})
	if got, err := parking.ReadAudit(root, nil); err != nil {
		s.problem("%s: ReadAudit: %v", fileAudit, err)
	} else if len(got) != len(s.audit) {
		s.problem("%s: cairn reads %d entries of %d lines", fileAudit, len(got), len(s.audit))
	}
	jsonLines(&s, m, fileEvents, func(line []byte) error {
		e, ok := registry.ParseEvent(line)
		if !ok {
			return fmt.Errorf("not an event")
		}
		s.events = append(s.events, e)
		return nil
	})
	jsonLines(&s, m, fileTimeline, func(line []byte) error {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		s.timeline = append(s.timeline, e)
		return nil
	})
	if data, err := os.ReadFile(m.p(fileLog)); err == nil && len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		s.problem("%s: last line not ended", fileLog)
	}

	// JSON documents.
	if data, err := os.ReadFile(m.p(fileSessions)); err == nil {
		var d struct{ Sessions []registry.Session }
		if err := json.Unmarshal(data, &d); err != nil {
			s.problem("%s does not parse: %v", fileSessions, err)
		}
		s.sessions = d.Sessions
	}
	if data, err := os.ReadFile(m.p(fileCkptIndex)); err == nil {
		var idx []map[string]any
		if err := json.Unmarshal(data, &idx); err != nil {
			s.problem("%s does not parse: %v", fileCkptIndex, err)
		}
	}

	// Checkpoints: every one complete.
	s.checkpoints = map[string]saved.Checkpoint{}
	names, err := checkpoint.Names(root)
	if err != nil {
		s.problem("checkpoints: %v", err)
	}
	for _, n := range names {
		p := filepath.Join(checkpoint.Dir(root), n)
		data, err := os.ReadFile(p)
		if err != nil {
			s.problem("checkpoint %s: %v", n, err)
			continue
		}
		c := saved.Parse(data)
		if len(data) == 0 || c.Status == "" || !bytes.Contains(data, []byte("\n### Notes\n")) {
			s.problem("checkpoint %s is torn or incomplete: %q", n, clipText(string(data), 300))
		}
		s.checkpoints[n] = c
	}

	// Temp files left by killed writers.
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && tempName.MatchString(d.Name()) {
			rel, _ := filepath.Rel(root, p)
			s.temps = append(s.temps, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(s.temps)
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// markerLines counts the lines that start with begin and the lines that are end.
func markerLines(text, begin, end string) (begins, ends int) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.HasPrefix(l, begin) {
			begins++
		}
		if l == end {
			ends++
		}
	}
	return begins, ends
}

// checkWhiteboard checks MEMORY.md: not empty, one snapshot block at most, each of the five
// prose sections exactly once.
func checkWhiteboard(s *state, name, text string) {
	if text == "" {
		s.problem("%s is empty", name)
		return
	}
	begins, ends := markerLines(text, "<!-- cairn:snapshot begin", "<!-- cairn:snapshot end -->")
	if begins > 1 || begins != ends {
		s.problem("%s: %d snapshot begin lines and %d end lines", name, begins, ends)
	}
	for _, sec := range runstate.Sections {
		if n := strings.Count("\n"+text, "\n## "+sec+"\n"); n != 1 {
			s.problem("%s: section %q appears %d times", name, sec, n)
		}
	}
}

// jsonLines checks an append-only JSON-lines log: each line passes fn, the last line is ended.
func jsonLines(s *state, m *machine, rel string, fn func([]byte) error) {
	data, err := os.ReadFile(m.p(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		s.problem("%s: %v", rel, err)
		return
	}
	if s.garbage == nil {
		s.garbage, s.torn = map[string][]string{}, map[string]string{}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		i := bytes.LastIndexByte(data, '\n') + 1
		if n := safefile.TornTail(data); n > 0 {
			s.torn[rel] = string(data[i:])
		} else {
			s.problem("%s: the last line has no end and is not a torn record: %q", rel, clipText(string(data[i:]), 200))
		}
		data = data[:i]
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(data) == 0 {
			break
		}
		if err := fn(line); err != nil {
			s.garbage[rel] = append(s.garbage[rel], fmt.Sprintf("line %d does not parse (%v): %q", i+1, err, clipText(string(line), 300)))
		}
	}
}

// mustBeSound fails the test with every problem of s, unparseable log lines included. A torn last
// record is not a problem (see state.torn).
func mustBeSound(t testing.TB, what string, s state) {
	t.Helper()
	p := s.problems
	for rel, lines := range s.garbage {
		for _, l := range lines {
			p = append(p, rel+": "+l)
		}
	}
	if len(p) > 0 {
		sort.Strings(p)
		t.Errorf("%s: the project's files are damaged:\n%s", what, strings.Join(p, "\n"))
	}
}

// slugs returns the parked slugs, sorted.
func (s state) slugs() []string {
	var out []string
	for k := range s.parked {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// audited counts the audit lines for item with action.
func (s state) audited(item, action string) int {
	n := 0
	for _, e := range s.audit {
		if e.Item == item && e.Action == action {
			n++
		}
	}
	return n
}

// broadcasts counts the broadcast events whose message is msg.
func (s state) broadcasts(msg string) int {
	n := 0
	for _, e := range s.events {
		if e.Type == registry.TypeBroadcast && e.Msg == msg {
			n++
		}
	}
	return n
}

// checkpointsTitled returns the names of the checkpoints whose file name has title after the
// timestamp (with or without a collision suffix).
func (s state) checkpointsTitled(title string) []string {
	var out []string
	for n := range s.checkpoints {
		stem := strings.TrimSuffix(n, ".md")
		if len(stem) > 16 && (stem[16:] == title || strings.HasPrefix(stem[16:], title+"-") && len(stem[16:]) == len(title)+5) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// checkpointsForEvent returns the automatic checkpoints recorded for a compaction event.
func (s state) checkpointsForEvent(event string) []string {
	var out []string
	for n, c := range s.checkpoints {
		if c.Event == event {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// timelineCount counts the timeline lines of one event kind.
func (s state) timelineCount(event string) int {
	n := 0
	for _, e := range s.timeline {
		if e["event"] == event {
			n++
		}
	}
	return n
}

// prunedLogged reports whether the timeline logs the removal of the checkpoint named name
// (retention, or a session's newer hand-off), as cairn writes it before removing the file.
func (s state) prunedLogged(name string) bool {
	for _, ev := range s.timeline {
		cp, _ := ev["checkpoint"].(string)
		note, _ := ev["note"].(string)
		if ev["event"] == "checkpoint_pruned" && strings.HasSuffix(cp, "/checkpoints/"+name) && !strings.HasPrefix(note, "not removed") {
			return true
		}
	}
	return false
}
