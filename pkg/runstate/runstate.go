// Package runstate owns a run's directory under .agents/runs/ (the run whiteboard:
// docs/DESIGN.md, What cairn is for): the active pointer (.agents/runs/active), the run's flat
// state.json, and its whiteboard MEMORY.md ([RefreshWhiteboard]). A process opens the project's
// runs once ([Open]) and passes the handle down: the active pointer and the active run's
// state.json are each read at most once.
//
// The state contract: state.json holds flat top-level string keys only, one key per line, because
// the original whiteboard's hooks read it with grep and sed, and grep and sed readers keep
// working. The writer refuses anything else; the reader skips a nested value with a warning
// naming the key, so one bad key never hides the rest.
package runstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/tidwall/gjson"
)

// Gates are the run's four gates, in display order; each is the key "gate_<name>".
var Gates = [4]string{"spec", "quality", "architecture", "security"}

// Keys are the contract's keys, in the order the writer puts them.
var Keys = []string{
	"run_id", "issue", "phase", "branch", "worktree", "pr",
	"gate_" + Gates[0], "gate_" + Gates[1], "gate_" + Gates[2], "gate_" + Gates[3],
	"plan_open", "updated_at",
}

// Gate returns the verdict of gate name ("" when not given yet).
func (s *State) Gate(name string) string { return s.Get("gate_" + name) }

// State is a parsed state.json: its string values, and the key order as found.
type State struct {
	order  []string
	values map[string]string
}

// Get returns the value of key, or "".
func (s *State) Get(key string) string { return s.values[key] }

// Has reports whether key is present.
func (s *State) Has(key string) bool { _, ok := s.values[key]; return ok }

// Keys returns the keys in file order.
func (s *State) Keys() []string { return append([]string(nil), s.order...) }

// Set sets key to value, appending a new key at the end.
func (s *State) Set(key, value string) {
	if s.values == nil {
		s.values = map[string]string{}
	}
	if _, ok := s.values[key]; !ok {
		s.order = append(s.order, key)
	}
	s.values[key] = value
}

// errUnreadable means state.json is not a JSON object at all.
var errUnreadable = errors.New("state.json is not a JSON object")

// Parse reads state.json tolerantly. Nested values are skipped and non-string scalars kept as
// their text; each yields a warning naming the key. Unreadable JSON returns errUnreadable.
func Parse(data []byte) (State, []string, error) {
	var s State
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
		return s, nil, errUnreadable
	}
	var warnings []string
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		// Keys and values are kept as valid UTF-8, as the JSON writer would make them anyway.
		key := strings.ToValidUTF8(k.String(), "\uFFFD")
		switch {
		case v.IsObject() || v.IsArray():
			warnings = append(warnings, fmt.Sprintf("state.json: key %q is nested, skipped (state.json must be flat)", key))
			return true
		case v.Type == gjson.String:
			s.Set(key, strings.ToValidUTF8(v.Str, "\uFFFD"))
		case v.Type == gjson.Null:
			s.Set(key, "")
		default:
			warnings = append(warnings, fmt.Sprintf("state.json: key %q is not a string, read as %q", key, v.Raw))
			s.Set(key, v.Raw)
		}
		return true
	})
	return s, warnings, nil
}

// Marshal writes s flat, one key per line: the contract's keys first in contract order, then the
// others in the order they were found.
func (s *State) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	var keys []string
	for _, k := range Keys {
		if s.Has(k) {
			keys = append(keys, k)
		}
	}
	for _, k := range s.order {
		if !isContractKey(k) {
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		b.WriteString("  ")
		b.Write(jsonw.String(nil, k))
		b.WriteString(": ")
		b.Write(jsonw.String(nil, redact.Redact(s.values[k]))) // a state value is re-injected: no secret in it
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func isContractKey(k string) bool {
	for _, c := range Keys {
		if c == k {
			return true
		}
	}
	return false
}

// validKey is ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$, by hand: a package-level regexp costs every hook
// process its compile time at start-up.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CheckSet validates one key=value assignment for the writer: a plain key, a value that is not a
// JSON object or array (that would be nested), and, for run_id, a safe name.
func CheckSet(key, value string) error {
	if !validKey(key) {
		return fmt.Errorf("key %q: keys are letters, digits and _ . - (at most 64)", key)
	}
	t := strings.TrimSpace(value)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return fmt.Errorf("key %q: nested value refused (state.json holds flat string values only)", key)
	}
	if key == "run_id" && !project.SafeName(value) {
		return fmt.Errorf("run_id %q is not a safe run id", value)
	}
	return nil
}

// Paths of the run layout, relative to the project root.
const (
	RunsDir    = ".agents/runs"
	ActiveFile = ".agents/runs/active"
)

// Run is the active run.
type Run struct {
	ID  string // the directory's base name
	Dir string // absolute, confined to the project root
	Rel string // Dir relative to the root, with forward slashes
}

// The run's two files, by name.
const (
	stateName  = "state.json"
	MemoryName = "MEMORY.md"
)

// StatePath and MemoryPath are the run's files, absolute; StateRel and MemoryRel the same
// relative to the project root, with forward slashes, as cairn names them to people and Claude.
func (r Run) StatePath() string  { return filepath.Join(r.Dir, stateName) }
func (r Run) MemoryPath() string { return filepath.Join(r.Dir, MemoryName) }
func (r Run) StateRel() string   { return r.Rel + "/" + stateName }
func (r Run) MemoryRel() string  { return r.Rel + "/" + MemoryName }

// ErrNoActive means no run is active: .agents/runs/active is missing or empty.
var ErrNoActive = errors.New("no active run")

// Bounds on what is read: the active file is one line, state.json a dozen short keys.
const (
	maxActive = 4 << 10
	maxState  = 1 << 20
)

// Reserved reports a name the run layout uses for something else: "active" is the file that
// names the active run, so a run directory called that would shadow it.
func Reserved(id string) bool { return id == "active" }

// Active reads .agents/runs/active: one line naming the run directory, as a path relative to the
// root, an absolute path inside it, or a bare run id meaning .agents/runs/<id>. The directory must
// resolve inside root — `..`, absolute paths elsewhere and symlinks leading out are refused.
func Active(root string) (Run, error) {
	data, _, err := safefile.ReadFile(root, ActiveFile, maxActive)
	if errors.Is(err, fs.ErrNotExist) {
		return Run{}, ErrNoActive
	}
	if err != nil {
		return Run{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return Run{}, ErrNoActive
	}
	return Resolve(root, line)
}

// Resolve turns the content of the active file into a confined Run.
func Resolve(root, name string) (Run, error) {
	if strings.ContainsRune(name, 0) {
		return Run{}, fmt.Errorf("%s: run name contains NUL", ActiveFile)
	}
	p := name
	if !strings.ContainsAny(name, `/\`) {
		if !project.SafeName(name) || Reserved(name) {
			return Run{}, fmt.Errorf("%s: %q is not a safe run id", ActiveFile, name)
		}
		p = filepath.Join(root, RunsDir, name)
	}
	dir, err := safefile.Confine(root, p)
	if err != nil {
		return Run{}, fmt.Errorf("%s names %q: %w", ActiveFile, name, err)
	}
	if dir == filepath.Clean(root) {
		return Run{}, fmt.Errorf("%s names the project root itself", ActiveFile)
	}
	if Reserved(filepath.Base(dir)) {
		return Run{}, fmt.Errorf("%s names %q, which the run layout reserves", ActiveFile, name)
	}
	rel, _ := filepath.Rel(root, dir)
	return Run{ID: filepath.Base(dir), Dir: dir, Rel: filepath.ToSlash(rel)}, nil
}

// Load reads and parses the run's state.json, inside the project at root. A missing file is an
// empty state.
func Load(root string, r Run) (State, []string, error) {
	data, _, err := safefile.ReadFile(root, r.StatePath(), maxState)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil, nil
	}
	if err != nil {
		return State{}, nil, err
	}
	return Parse(data)
}

// Runs is the handle on a project's runs for one process: the active pointer and the active
// run's state.json, each read at most once, on first use.
type Runs struct {
	root, config string
	files        safefile.Writer

	resolved bool
	active   Run
	err      error

	loaded   bool
	state    State
	warnings []string
	stateErr error

	boardRead bool // whiteboard holds the active run's MEMORY.md
	board     []byte
	boardErr  error
}

// Open returns the handle on p's runs. It reads nothing until asked.
func Open(p *project.Project) *Runs { return &Runs{root: p.Root, config: p.Config, files: p.Files} }

// A run is the user's only when it was started on this machine: a clone can commit
// .agents/runs/active and a whiteboard, and cairn must not hand them to Claude as "your run".
// `cairn run start` records the run in the user's config directory, which no repository can
// write to: <config>/cairn/runs/<slug of the root>, one run directory (relative to the root) a
// line.
const maxLocalRuns = 64 << 10

func (h *Runs) localFile() string {
	return filepath.Join(h.config, "cairn", "runs", project.Slug(h.root))
}

// StartedHere reports whether run r was started (or adopted) on this machine by `cairn run
// start`. Without a config directory nothing can be told, and no run counts as started here.
func (h *Runs) StartedHere(r Run) bool {
	if h.config == "" {
		return false
	}
	data, _, err := safefile.ReadLoose(h.localFile(), maxLocalRuns)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == r.Rel {
			return true
		}
	}
	return false
}

// MarkStarted records that run r was started on this machine (see StartedHere).
func (h *Runs) MarkStarted(r Run) error {
	if h.config == "" {
		return errors.New("no Claude config directory (neither CLAUDE_CONFIG_DIR nor HOME is set) to record the run in")
	}
	if h.StartedHere(r) {
		return nil
	}
	dir := filepath.Join(h.config, "cairn")
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		return err
	}
	return h.files.Under(dir).Append(h.localFile(), []byte(r.Rel+"\n"), 0o600, safefile.NoSync)
}

// Active is [Active] for the handle's project, read once: ErrNoActive without an active run.
func (h *Runs) Active() (Run, error) {
	if !h.resolved {
		h.resolved = true
		h.active, h.err = Active(h.root)
	}
	return h.active, h.err
}

// maxWhiteboard bounds what is read of MEMORY.md outside a write: it is capped at 200 lines, so
// its head holds the snapshot block and every section a reader looks at.
const maxWhiteboard = 1 << 20

// Whiteboard returns the head (at most 1 MiB) of the active run's MEMORY.md: read once, or what
// the handle's own UpdateWhiteboard left. A missing whiteboard is fs.ErrNotExist; without an
// active run it is Active's error.
func (h *Runs) Whiteboard() ([]byte, error) {
	r, err := h.Active()
	if err != nil {
		return nil, err
	}
	if !h.boardRead {
		h.boardRead = true
		h.board, h.boardErr = safefile.ReadHead(h.root, r.MemoryPath(), maxWhiteboard)
	}
	return h.board, h.boardErr
}

// UpdateWhiteboard rewrites the active run's MEMORY.md under its lock with what edit makes of
// it (as safefile.Writer's Update), and leaves the handle holding what was written (or what
// edit saw, when it changed nothing): SessionStart's late record and the read order that shows
// the whiteboard read it once between them.
func (h *Runs) UpdateWhiteboard(edit safefile.Edit, opts ...safefile.Option) (bool, error) {
	r, err := h.Active()
	if err != nil {
		return false, err
	}
	held, changed, err := safefile.UpdateHeld(h.files, r.MemoryPath(), 0o644, edit, opts...)
	if !held.Known || !held.Exists {
		h.boardRead = false // not known, or gone: read again when asked
		return changed, err
	}
	seen := held.Data
	if len(seen) > maxWhiteboard {
		seen = seen[:maxWhiteboard]
	}
	h.boardRead, h.board, h.boardErr = true, seen, nil
	return changed, err
}

// State is [Load] of the active run's state.json, read once, with the warnings for keys skipped.
// Without an active run it is Active's error.
func (h *Runs) State() (State, []string, error) {
	r, err := h.Active()
	if err != nil {
		return State{}, nil, err
	}
	if !h.loaded {
		h.loaded = true
		h.state, h.warnings, h.stateErr = Load(h.root, r)
	}
	return h.state, h.warnings, h.stateErr
}
