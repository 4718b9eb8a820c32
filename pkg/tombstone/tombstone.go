// Package tombstone keeps what `cairn forget` removed: one JSON line per forgotten item in
// <config>/cairn/forgotten.jsonl, holding its id, its kind and a hash of its content — never the
// content itself — so that nothing cairn derives again (the search index rebuilt, a checkpoint
// that git brings back, a transcript read anew) brings a forgotten item back.
//
// The file lives under Claude Code's config directory, with cairn's other machine-local records,
// not in the project: a cloned repository can commit any file of the project, and tombstones there
// would let a repository hide the user's own history from their searches (a session, a checkpoint
// whose content it knows). Forgetting is one person's act on their machine; it reaches neither
// another clone nor a copy someone made (README, Forget).
//
// It stands alone because two layers read it: `cairn forget` (pkg/forget) writes it, and the
// search index (pkg/search), which forget itself drives, checks every document against it.
package tombstone

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Dir and File: the tombstones are <config>/Dir/File.
const (
	Dir  = "cairn"
	File = "forgotten.jsonl"
)

// Path is the tombstones' file under Claude Code's config directory.
func Path(config string) string { return filepath.Join(config, Dir, File) }

// Stone is one forgotten item.
type Stone struct {
	Time    time.Time
	Project string // the project root it was forgotten in
	ID      string // as cairn search printed it: a checkpoint's name, parked:…, session:…
	Kind    string // saved, auto, handoff, parked, archived, expired, timeline, pruned, session
	// Hash is Hash of the item's content (a checkpoint's file, a log's line, a parked bullet); ""
	// for a session, which its id names wherever it is.
	Hash string
}

// Hash is the fingerprint a Stone keeps of content: FNV-128a, hex (the standard library's; a
// cryptographic hash would link the FIPS module into the CLI, and nothing here is a secret to
// protect: the hash only recognises content the user chose to forget).
func Hash(content []byte) string {
	h := fnv.New128a()
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// line is the stone's JSON line.
func (s Stone) line() []byte {
	o := jsonw.Open(nil)
	o.Str("ts", s.Time.UTC().Format(time.RFC3339))
	o.StrOmitEmpty("project", s.Project)
	o.Str("id", s.ID)
	o.StrOmitEmpty("kind", s.Kind)
	o.StrOmitEmpty("hash", s.Hash)
	return append(o.Close(), '\n')
}

// Append adds stones to the file, in one synced append under its lock: a tombstone is what keeps
// a forgotten item from coming back, so it is on disk before the item's last copy goes. files is
// the project's writer: Append lets it out under <config>/cairn alone (its lock stays in the
// project's lock directory, as the records of runs and parked items do).
func Append(files safefile.Writer, config string, stones []Stone) error {
	var b []byte
	for _, s := range stones {
		b = append(b, s.line()...)
	}
	if len(b) == 0 {
		return nil
	}
	dir := filepath.Join(config, Dir)
	if fi, err := os.Lstat(Path(config)); err == nil && fi.Size()+int64(len(b)) > maxAppend {
		return fmt.Errorf("%w (%d KiB)", ErrFull, fi.Size()>>10)
	}
	if _, dry := files.(safefile.DryRun); !dry {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	return files.Under(dir).Append(Path(config), b, 0o600)
}

// maxFile bounds the read of the tombstones: tens of thousands of forgotten items.
const maxFile = 8 << 20

// maxAppend is where Append stops: a file Read refuses would let every forgotten item back at
// once, so the file never grows past what Read takes. The MiB below maxFile is room for the
// appends of forgets that run at the same time (each checks the size before it takes the lock).
const maxAppend = maxFile - 1<<20

// ErrFull is Append's answer once the tombstones reach maxAppend.
var ErrFull = errors.New("too many forgotten items: the tombstones are full")

// Set is the tombstones, read once.
type Set struct {
	sessions map[string]bool
	hashes   map[string]bool
	// Print is the file's size and modification time when read (zero without a file): a reader
	// that keeps something derived compares it to know when to look again.
	Print [2]int64
}

// Read reads the tombstones under config. A missing file (or config "") is an empty set; an
// unreadable one is an error, and an empty set with it.
func Read(config string) (*Set, error) {
	s := &Set{sessions: map[string]bool{}, hashes: map[string]bool{}}
	if config == "" {
		return s, nil
	}
	data, fi, err := safefile.ReadLoose(Path(config), maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	s.Print = [2]int64{fi.Size(), fi.ModTime().UnixNano()}
	for _, l := range strings.Split(string(data), "\n") {
		if !gjson.Valid(l) {
			continue
		}
		v := gjson.Parse(l)
		if id := v.Get("id").Str; strings.HasPrefix(id, SessionPrefix) {
			s.sessions[strings.TrimPrefix(id, SessionPrefix)] = true
		}
		if h := v.Get("hash").Str; h != "" {
			s.hashes[h] = true
		}
	}
	return s, nil
}

// SessionPrefix starts a session's id.
const SessionPrefix = "session:"

// Empty reports whether nothing was forgotten.
func (s *Set) Empty() bool { return s == nil || len(s.sessions) == 0 && len(s.hashes) == 0 }

// Session reports whether the session with this id was forgotten.
func (s *Set) Session(id string) bool { return s != nil && s.sessions[id] }

// Content reports whether content was forgotten: a stone holds its Hash.
func (s *Set) Content(content []byte) bool {
	return s != nil && len(s.hashes) > 0 && s.hashes[Hash(content)]
}
