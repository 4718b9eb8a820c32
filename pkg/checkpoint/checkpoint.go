// Package checkpoint is the format of one checkpoint file, the saved working context of
// /context-save and /context-restore (docs/DESIGN.md, What cairn is for), and the directory that
// holds them: one markdown file per save under memory/projects/<basename(root)>/checkpoints/
// ([Dir]), named YYYYMMDD-HHMMSS-<title>.md ([SanitizeTitle], [SplitName], [Names]), with a YAML
// frontmatter (status, kind, branch, timestamp, session_duration_s, files_modified) and four
// sections ([Sections]). [Render] and [Save] write one file; [SplitLoose], [ReadFrontmatter] and
// [ParseBody] read one back without YAML, which is what the hooks need.
//
// Checkpoints are append-only: a save never overwrites or deletes a file. Their canonical order
// is the filename's timestamp prefix, never the file's mtime, which copies and rsync do not keep.
// What a checkpoint says is its writer's: a person's save is the CLI's (hooks/cairn, read back
// through package saved), the automatic checkpoints and hand-offs cairn writes itself are package
// catalog's, which lists them in the catalog and prunes them.
package checkpoint

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Statuses cairn writes. A save may carry any other [a-z0-9-] status (--status).
const (
	StatusInProgress = "in-progress"
	StatusAuto       = "auto" // written by the PreCompact hook, not by a person
)

// Kinds of checkpoint, told apart by the frontmatter's kind: field (docs/DESIGN.md, Where state
// lives).
const (
	KindSaved   = "saved"   // by the user, with cairn context save (/context-save); never pruned
	KindAuto    = "auto"    // by PreCompact and PostCompact, one per compaction
	KindHandoff = "handoff" // by SessionEnd, one per session that did work
)

// kindOf is a checkpoint's kind as its frontmatter gives it; a checkpoint written before kinds
// existed is auto when its status is, else saved.
func kindOf(kind, status string) string {
	switch kind {
	case KindSaved, KindAuto, KindHandoff:
		return kind
	}
	if status == StatusAuto {
		return KindAuto
	}
	return KindSaved
}

// maxTitle is the original workflow's `cut -c1-60` on the sanitised title.
const maxTitle = 60

// maxDisplayTitle bounds the title as written in the "## Working on:" heading.
const maxDisplayTitle = 200

// maxFiles bounds files_modified: a tree full of untracked build output must not make a
// checkpoint megabytes long. The count beyond it is reported by Save's caller, not recorded.
const maxFiles = 200

// Untitled is the title of a checkpoint saved without one, or whose title sanitises to nothing.
const Untitled = "untitled"

// timestampLayout is ISO-8601 with a numeric offset, as the original workflow writes it
// (2026-04-18T14:30:00-07:00); Go's RFC3339 would write "Z" for UTC.
const timestampLayout = "2006-01-02T15:04:05-07:00"

// NameLayout is the filename prefix: the original workflow's `date +%Y%m%d-%H%M%S`, local time.
const NameLayout = "20060102-150405"

// Dir returns the checkpoint directory of the project whose knowledge lives under root (a
// repository's main checkout: a linked worktree's checkpoints live there too):
// memory/projects/<name>/checkpoints. The directory is the repository's, not a directory name's:
// name is that of the memory/projects/<name>/checkpoints directory root holds already, whatever
// it is called, so that a renamed clone keeps its history; of several, the one named after the
// root's directory (the base name of the path as given, then of its real path). When root holds
// none — or several, none of them named after it — a new one is named after the root's real
// path, so that the checkout reached through a symlink (or a renamed link to it) sees the same
// history. Checkpoints saved before, under the base name of the path as given, keep working where
// they are: that directory exists, and is named after the directory.
func Dir(root string) string {
	return filepath.Join(root, "memory", "projects", projectName(root), "checkpoints")
}

// projectNames memoises projectName: Dir is asked often, and the answer does not change while a
// process runs.
var projectNames sync.Map

// maxProjectNames bounds the names of memory/projects read to find the checkpoint directory.
const maxProjectNames = 1024

func projectName(root string) string {
	if v, ok := projectNames.Load(root); ok {
		return v.(string)
	}
	given, real := filepath.Base(root), filepath.Base(root)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		real = filepath.Base(r)
	}
	held := heldNames(root)
	name := real
	switch {
	case slices.Contains(held, given):
		name = given
	case slices.Contains(held, real):
	case len(held) == 1:
		name = held[0]
	}
	projectNames.Store(root, name)
	return name
}

// heldNames returns the names under root's memory/projects that hold a checkpoints directory.
func heldNames(root string) []string {
	dir := filepath.Join(root, "memory", "projects")
	names, _, err := safefile.ReadDir(root, dir, maxProjectNames)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if fi, err := safefile.Stat(root, filepath.Join(dir, n, "checkpoints")); err == nil && fi.IsDir() {
			out = append(out, n)
		}
	}
	return out
}

// SanitizeTitle turns a title into the part of a checkpoint filename after the timestamp, as the
// title rule says (docs/DESIGN.md, Where state lives) and the original /context-save pipeline
// does: A-Z are lowercased, every whitespace character becomes '-' and runs of '-' are squeezed
// to one (the pipeline's `tr -s ' \t' '-'`, which also squeezes dashes that were already there),
// then everything but a-z, 0-9, '.' and '-' is dropped and the result is cut to 60 bytes. An
// empty result is "untitled". The pipeline treats only space and tab as whitespace; the rule says
// whitespace, so newlines and other Unicode spaces count too.
func SanitizeTitle(title string) string {
	var b strings.Builder
	lastDash := false
	for _, r := range title {
		if unicode.IsSpace(r) {
			r = '-'
		}
		if r == '-' {
			if lastDash {
				continue
			}
			lastDash = true
			b.WriteByte('-')
			continue
		}
		lastDash = false
		b.WriteRune(r)
	}
	var out []byte
	for _, c := range []byte(b.String()) {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			out = append(out, c)
		}
		if len(out) == maxTitle {
			break
		}
	}
	if len(out) == 0 {
		return Untitled
	}
	return string(out)
}

// DisplayTitle is the title as the "## Working on:" heading shows it: one line (control
// characters dropped, whitespace runs made one space), at most 200 characters, "untitled" when
// empty. Unlike the filename it keeps case, Unicode and punctuation.
func DisplayTitle(title string) string {
	s := plain.Field(title, maxDisplayTitle)
	if s == "" {
		return Untitled
	}
	return s
}

// Sections are the four parts of a checkpoint's body, as markdown.
type Sections struct {
	Summary   string
	Decisions string
	Remaining string
	Notes     string
}

// Entry is what Save writes.
type Entry struct {
	Title       string        // as given; sanitised for the filename, one-lined for the heading
	Status      string        // "" means in-progress
	Kind        string        // KindSaved, KindAuto or KindHandoff; "" means saved
	Branch      string        // the branch the work is on
	Worktree    string        // the linked worktree it was written in; "" in the main checkout
	Time        time.Time     // names the file (local time) and fills timestamp
	Duration    time.Duration // session duration, written when HasDuration
	HasDuration bool
	Files       []string // files_modified, relative to the root; at most 200 are written
	Event       string   // the compaction an automatic checkpoint was taken for (package catalog's Auto)
	Session     string   // the session a hand-off was written for (package catalog's Handoff)
	Sections
}

// headings are the body's section headings, in file order; Parse finds them again.
var headings = [4]string{"Summary", "Decisions Made", "Remaining Work", "Notes"}

const workingOn = "## Working on: "

// Render returns the file content for e. The same entry always renders to the same bytes.
func Render(e Entry) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	status := e.Status
	if status == "" {
		status = StatusInProgress
	}
	fmt.Fprintf(&b, "status: %s\n", yamlScalar(status))
	fmt.Fprintf(&b, "kind: %s\n", kindOf(e.Kind, status))
	fmt.Fprintf(&b, "branch: %s\n", yamlScalar(redact.Redact(e.Branch)))
	if e.Worktree != "" {
		fmt.Fprintf(&b, "worktree: %s\n", yamlScalar(plain.Line(redact.Redact(e.Worktree), 200)))
	}
	fmt.Fprintf(&b, "timestamp: %s\n", e.Time.Format(timestampLayout))
	if e.HasDuration {
		fmt.Fprintf(&b, "session_duration_s: %d\n", int64(max(e.Duration, 0)/time.Second))
	}
	if e.Event != "" {
		fmt.Fprintf(&b, "event: %s\n", yamlScalar(e.Event))
	}
	if e.Session != "" {
		fmt.Fprintf(&b, "session: %s\n", yamlScalar(plain.Line(e.Session, 200)))
	}
	files := e.Files
	if len(files) > maxFiles {
		files = files[:maxFiles]
	}
	if len(files) == 0 {
		b.WriteString("files_modified: []\n")
	} else {
		b.WriteString("files_modified:\n")
		for _, f := range files {
			fmt.Fprintf(&b, "  - %s\n", yamlScalar(redact.Redact(f))) // a repository names its files
		}
	}
	b.WriteString("---\n")
	return RenderBody(&b, e, redact.Redact)
}

// RenderBody appends what follows the frontmatter: a blank line, the "## Working on:" heading
// and the four sections, each passed through clean (redact.Redact) first.
func RenderBody(b *bytes.Buffer, e Entry, clean func(string) string) []byte {
	b.WriteString("\n" + workingOn + DisplayTitle(e.Title) + "\n")
	for i, body := range [4]string{e.Summary, e.Decisions, e.Remaining, e.Notes} {
		fmt.Fprintf(b, "\n### %s\n\n", headings[i])
		if body = neutralize(clean(body)); body != "" {
			b.WriteString(body + "\n")
		}
	}
	return b.Bytes()
}

// plainScalar reports what YAML reads back as the same string without quotes: a letter or '/',
// then letters, digits and "_./+-" (the regexp ^[A-Za-z/][A-Za-z0-9_./+-]*$, without compiling one
// in every hook's start-up).
func plainScalar(s string) bool {
	if s == "" || !(isLetter(s[0]) || s[0] == '/') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(isLetter(c) || c >= '0' && c <= '9' || strings.IndexByte("_./+-", c) >= 0) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// yamlScalar writes s plain when YAML reads it back unchanged, else as a double-quoted scalar
// (a JSON string is a valid one), so that a branch or a path can never forge a key.
func yamlScalar(s string) string {
	switch strings.ToLower(s) {
	case "", "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", ".inf", ".nan":
		return string(jsonw.String(nil, s))
	}
	if plainScalar(s) {
		return s
	}
	return string(jsonw.String(nil, strings.ToValidUTF8(s, "\uFFFD")))
}

// neutralize keeps section text from forging the file's structure: a line that would read as one
// of the checkpoint's own headings is escaped with a backslash, which markdown renders as the
// text it was; a line that already starts with backslashes before such a heading gets one more,
// so that Parse, which removes one, gives back exactly what was written. CRLF becomes LF and
// the text is trimmed as Parse trims it.
func neutralize(s string) string {
	s = trimSection(lf(s))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if isStructural(strings.TrimLeft(l, `\`)) {
			lines[i] = `\` + l
		}
	}
	return strings.Join(lines, "\n")
}

// lf makes text valid UTF-8 with bare LF line ends: each line loses every carriage return it
// ends with, so that "\r\r\n" does not turn into a "\r\n" that a second pass would change again.
// lf(lf(s)) == lf(s), which is what lets a saved checkpoint read back as it was written.
func lf(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.Contains(s, "\r\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return strings.Join(lines, "\n")
}

// trimSection drops the blank lines around a section's text and the blanks at its end.
func trimSection(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "\r\n"), " \t\r\n")
}

// isStructural reports whether line would be read as the "## Working on:" line or as a section
// heading.
func isStructural(line string) bool {
	if strings.HasPrefix(line, strings.TrimSpace(workingOn)) {
		return true
	}
	_, known := sectionHeading(line)
	return known
}

// sectionHeading reads a line as a section heading: "### X" (what cairn writes) or "## X" (what a
// hand edit may have), where X is one of the four sections.
func sectionHeading(line string) (int, bool) {
	h, ok := strings.CutPrefix(line, "### ")
	if !ok {
		if h, ok = strings.CutPrefix(line, "## "); !ok {
			return 0, false
		}
	}
	return sectionIndex(h)
}

// sectionIndex maps a "### " heading's text to its section, case-insensitively, accepting the
// short forms people type ("Decisions", "Remaining", "Next steps").
func sectionIndex(h string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(h)) {
	case "summary":
		return 0, true
	case "decisions made", "decisions":
		return 1, true
	case "remaining work", "remaining", "next steps", "next":
		return 2, true
	case "notes":
		return 3, true
	}
	return 0, false
}

// Saved names a checkpoint that Save wrote, or one that exists ([SavedAt]).
type Saved struct {
	Path  string // absolute
	Rel   string // relative to the root, with forward slashes
	Title string // the sanitised title, as in the filename (without a collision suffix)
}

// maxAttempts bounds the collision suffixes Save tries: with 36^4 suffixes, needing more than a
// handful means something other than chance is wrong.
const maxAttempts = 16

// Save writes e as a new checkpoint and returns where. The file is
// <Dir(root)>/YYYYMMDD-HHMMSS-<SanitizeTitle(title)>.md; when that name exists already (two saves
// in the same second with the same title) a random 4-character [a-z0-9] suffix is added, as the
// original workflow does. The existence check and the write happen under the file's lock, so a
// concurrent save can never be overwritten: the file is created or another name is tried.
func Save(files safefile.Writer, root string, e Entry, opts ...safefile.Option) (Saved, error) {
	slug := SanitizeTitle(redact.Redact(e.Title)) // a file name is written too
	if e.Title == "" {
		e.Title = slug
	}
	content := Render(e)
	base := e.Time.Format(NameLayout) + "-" + slug
	dir := Dir(root)
	name := base + ".md"
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			name = base + "-" + randomSuffix() + ".md"
		}
		path := filepath.Join(dir, name)
		created, err := files.Create(path, content, Perm, opts...)
		if err != nil {
			return Saved{}, err
		}
		if !created {
			continue
		}
		return Saved{Path: path, Rel: rel(root, path), Title: slug}, nil
	}
	return Saved{}, fmt.Errorf("%s: %d names taken in a row; not saving", rel(root, filepath.Join(dir, base+".md")), maxAttempts)
}

// SavedAt names an existing checkpoint as Save names the one it writes.
func SavedAt(root, path string) Saved {
	title, _, _ := SplitName(filepath.Base(path))
	return Saved{Path: path, Rel: rel(root, path), Title: title}
}

func randomSuffix() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}

func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// Perm is the mode of a checkpoint: people read and commit them.
const Perm fs.FileMode = 0o644

// FormatDuration writes a session duration as the CONTEXT SAVED and RESUMING CONTEXT blocks show
// it: "45s", "12m", "1h 23m".
func FormatDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh %dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// ParseMarkdown reads sections given as markdown (cairn context save reads them from stdin):
// "### Summary", "### Decisions Made", "### Remaining Work" and "### Notes" headings ("##" works
// too, as do the short names "Decisions", "Remaining", "Next steps"), in any order; text before
// the first heading, or plain text without any, is the summary. A "## Working on: <title>" line
// gives a title.
func ParseMarkdown(text string) (title string, s Sections) {
	return ParseBody([]byte(text))
}

// MaxFiles is how many files_modified entries a checkpoint records.
const MaxFiles = maxFiles
