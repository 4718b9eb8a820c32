// Package transcript answers the few questions cairn asks of Claude Code's session transcript
// (the JSONL file at the payload's transcript_path) without reading the whole of it.
//
// Transcripts reach hundreds of megabytes and single lines of tens of megabytes, and hooks run on
// every prompt under a 16 MiB memory budget (docs/DESIGN.md, Budgets), so every question is
// answered in bounded memory (a few MiB) and, where the question allows it, with bounded reading:
//
//   - The file is read backwards from its end in windows that start at 64 KiB and double up
//     to 256 KiB (1 MiB for a line that needs it), and reading stops at the answer. LastAssistantText, LastUserPrompts and
//     LastTodos also give up after reading 256 MiB and answer with what they found by then.
//   - Questions about what happened since the last compaction (LastBoundary,
//     EditedFilesSinceBoundary) read back to the boundary, so they cost what was written since,
//     at memory speed (docs/BENCHMARKS.md): only the few lines holding a telling token are
//     parsed. HookRuns reads forwards over the last maxBytes only.
//   - A line is held whole only up to 1 MiB. A longer line is seen through its first 1 MiB,
//     closed into valid JSON where it was cut, and its extent is found by
//     scanning for '\n' in 1 MiB chunks. Text taken from such a line is truncated, and a 60 MB
//     tool result costs a scan for '\n' over it, never 60 MB of memory.
//
// The format is internal to Claude Code and changes between versions (docs/DESIGN.md, Facts about
// Claude Code), so reading is tolerant: unknown line types and fields are ignored, a line that is
// not valid JSON is skipped (a last line still being written is the common case), CRLF line ends
// are accepted, invalid UTF-8 in returned text is replaced with U+FFFD, and a missing file reads
// as empty. A path that is not a regular file gives ErrNotRegular and is not opened. The file is
// read through one descriptor, so a file replaced meanwhile is read as it was; a file that
// shrinks while it is read is read once more from its new end, and a second failure is an error.
package transcript

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// maxText bounds the assistant text LastAssistantText gathers across the lines of one message.
const maxText = 1 << 20

// maxEditedFiles bounds the paths EditedFilesSinceBoundary returns.
const maxEditedFiles = 4096

// editTools are the tools whose tool_use input names a file they change, and the input field that
// names it (docs/TRANSCRIPT.md).
var editTools = map[string]string{
	"Edit":         "file_path",
	"Write":        "file_path",
	"MultiEdit":    "file_path", // legacy, still in older transcripts
	"NotebookEdit": "notebook_path",
}

// LastAssistantText returns the text of Claude's last assistant message: the "text" blocks of
// the last API message, joined by a blank line (thinking and tool_use blocks are left out).
// One API message spans several lines that share message.id, possibly with other lines (tool
// results, attachments) between them; all of them are gathered. Sidechain lines, API error
// messages and messages Claude Code synthesised (model "<synthetic>") are not Claude's and are
// skipped. The result is "" when there is no such message or no file. A line longer than 1 MiB
// contributes only the text in its first 1 MiB; text beyond 1 MiB in total keeps its last part.
func LastAssistantText(path string) (string, error) {
	return defaultLimits.lastAssistantText(path)
}

// LastUserPrompts returns up to n of the prompts the user typed, most recent first: "user" lines
// whose message.content is a string, or an array of text blocks (joined by "\n") with no
// tool_result. Lines written by the harness are skipped: isMeta, isCompactSummary, sidechain,
// and text that is only a slash command, its output, shell-mode (!) input or output, or an
// interruption marker (see isHarnessText). A prompt longer than 1 MiB is truncated.
func LastUserPrompts(path string, n int) ([]string, error) {
	return defaultLimits.lastUserPrompts(path, n)
}

// LastPrompt returns the last prompt the user typed (as LastUserPrompts reads prompts), looking
// at the last maxBytes of the transcript at most: "" when there is none within them. For a hook
// that asks what another session is working on before an edit, whose cost must not grow with
// that session's transcript.
func LastPrompt(path string, maxBytes int64) (string, error) {
	lim := defaultLimits
	lim.maxBackScan = min(lim.maxBackScan, max(maxBytes, 1))
	out, err := lim.lastUserPrompts(path, 1)
	if len(out) == 0 {
		return "", err
	}
	return out[0], err
}

// EditedFilesSinceBoundary returns the files that Edit, Write, MultiEdit and NotebookEdit tool
// uses named (file_path, notebook_path) after the last compaction boundary, or in the whole
// transcript when there is none: de-duplicated, most recently edited first, at most 4096.
// It reads the transcript once, from the end back to the boundary: its cost is that of the
// bytes written since the last compaction, whatever came before. A path inside root is made
// relative to it; other paths stay absolute. Paths are cleaned and use forward slashes; the
// comparison with root is lexical: symlinks are not resolved. Tool uses of subagents (sidechain lines) count too, as
// they edit the same files; a tool use that was then refused or failed counts as well.
func EditedFilesSinceBoundary(path, root string) ([]string, error) {
	return defaultLimits.editedFilesSinceBoundary(path, root)
}

// Todo is one item of a TodoWrite list: its content is the Subject; ID is the todo's id when it
// has one, else its 1-based position; Status is pending, in_progress or completed.
type Todo struct{ ID, Subject, Status string }

// LastTodos returns the todo list of the last TodoWrite tool use, for transcripts of sessions
// that used TodoWrite instead of Claude Code's task files. found is false when no TodoWrite was
// seen.
func LastTodos(path string) ([]Todo, bool, error) {
	return defaultLimits.lastTodos(path)
}

func (lim limits) lastAssistantText(path string) (string, error) {
	var text string
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		text, err = lim.lastAssistantTextAt(r, size)
		return err
	})
	return text, err
}

func (lim limits) lastAssistantTextAt(r io.ReaderAt, size int64) (string, error) {
	s := newBackScanner(r, size, lim, lim.maxBackScan)
	defer s.release() // what is returned is cleaned: copies
	var (
		p      parser
		found  bool
		target string
		parts  []string // text blocks, last first
		total  int
	)
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		// Parse only the lines that can matter: assistant lines, and once the message is found,
		// the prompts and boundaries that end it. Tool results are most of the bytes.
		if isToolResult(l.data) || !bytes.Contains(l.data, []byte(`"assistant"`)) &&
			(!found || !bytes.Contains(l.data, []byte(`"user"`)) && !mayBeBoundary(l.data)) {
			continue
		}
		e, ok := p.entry(l)
		if !ok || e.sidechain {
			continue
		}
		if found && (e.isPrompt() || e.isBoundary()) {
			break // a message never spans a typed prompt or a compaction
		}
		if e.kind() != "assistant" || e.synthetic() {
			continue
		}
		id := e.msg("id").String()
		if found && (target == "" || id != target) {
			break
		}
		if !found {
			found, target = true, strings.Clone(id)
		}
		blocks := textBlocks(e.msg("content"))
		for i := len(blocks) - 1; i >= 0 && total < maxText; i-- {
			parts = append(parts, clean(blocks[i]))
			total += len(blocks[i])
		}
	}
	slices.Reverse(parts)
	return strings.Join(parts, "\n\n"), s.err
}

// textBlocks returns the text of the "text" blocks of a message's content, in order. A string
// content (older transcripts) is one text block.
func textBlocks(content gjson.Result) []string {
	if content.Type == gjson.String {
		return []string{content.String()}
	}
	var out []string
	content.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str == "text" {
			out = append(out, b.Get("text").String())
		}
		return true
	})
	return out
}

func (lim limits) lastUserPrompts(path string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []string
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		out, err = lim.lastUserPromptsAt(r, size, n)
		return err
	})
	return out, err
}

func (lim limits) lastUserPromptsAt(r io.ReaderAt, size int64, n int) ([]string, error) {
	out, _, _, err := lim.promptLinesAt(r, size, n, 0)
	return out, err
}

// promptLinesAt is lastUserPromptsAt with the offsets of the prompts' lines, looking only at the
// lines that end at or after offset from: those a reader of the file's first from bytes did not
// see whole. stopped reports that it gave up (maxBackScan) before it found n prompts or came to
// from.
func (lim limits) promptLinesAt(r io.ReaderAt, size int64, n int, from int64) (out []string, at []int64, stopped bool, err error) {
	var (
		p parser
		s = newBackScanner(r, size, lim, lim.maxBackScan)
	)
	defer s.release() // the prompts are cleaned: copies
	for len(out) < n {
		l, ok := s.next()
		if !ok || lineEnd(l) < from {
			break
		}
		if text, ok := p.promptLine(l); ok {
			out, at = append(out, text), append(at, l.off)
		}
	}
	return out, at, s.stopped && len(out) < n, s.err
}

// lineEnd is the offset just past the last byte of l's content.
func lineEnd(l line) int64 {
	if l.truncated && l.end > 0 {
		return l.end
	}
	return l.off + int64(len(l.data))
}

// promptLine is the prompt l holds, cleaned, if it holds one.
func (p *parser) promptLine(l line) (string, bool) {
	// Every user line says "user"; most of them near the end are tool results.
	if isToolResult(l.data) || !bytes.Contains(l.data, []byte(`"user"`)) {
		return "", false
	}
	if e, ok := p.entry(l); ok {
		if text, ok := e.prompt(); ok {
			return clean(text), true
		}
	}
	return "", false
}

// promptAt is the prompt of the line that starts at offset off; ok is false when no line starts
// there or it holds no prompt.
func (lim limits) promptAt(r io.ReaderAt, size, off int64) (string, bool, error) {
	if off < 0 || off >= size {
		return "", false, nil
	}
	// A prompt line is short: read a few KiB first (the window doubles for a longer one).
	lim.minWindow = min(lim.minWindow, promptWindow)
	s := newFwdScanner(r, size, off, lim)
	l, ok := s.next()
	if !ok || l.off != off {
		return "", false, s.err
	}
	var p parser
	text, ok := p.promptLine(l)
	return text, ok, nil
}

// promptWindow is promptAt's first read.
const promptWindow = 4 << 10

// wordsAt is LastWords' reading of the prompts: the last n, most recent first, with their lines'
// offsets. earlier is what the same reading returned when the file was from bytes long (a
// checkpoint's record of it, most recent first): the lines before from are not read again, only
// the prompts still needed, at those offsets. Where that record cannot be used whole (a line at
// one of its offsets holds no prompt, as in a file rewritten since, or it falls short of n), the
// file is read back as without it, so the answer is always the one a reading from the end gives.
func (lim limits) wordsAt(r io.ReaderAt, size int64, n int, from int64, earlier []int64) ([]string, []int64, error) {
	fromEnd := func() ([]string, []int64, error) {
		out, at, _, err := lim.promptLinesAt(r, size, n, 0)
		return out, at, err
	}
	if from <= 0 || from > size || len(earlier) == 0 {
		return fromEnd()
	}
	out, at, stopped, err := lim.promptLinesAt(r, size, n, from)
	if err != nil || len(out) == n || stopped {
		// Stopped short of from, a reading from the end gives up there too: what it found is its
		// answer, and the recorded prompts, older than what it could not read, are not.
		return out, at, err
	}
	prev := from
	for _, off := range earlier {
		if len(out) == n {
			break
		}
		if off >= prev {
			if off >= from {
				continue // recorded after from, and read above if it is a prompt
			}
			return fromEnd() // not most recent first
		}
		prev = off
		if slices.Contains(at, off) {
			continue
		}
		text, ok, err := lim.promptAt(r, size, off)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return fromEnd()
		}
		out, at = append(out, text), append(at, off)
	}
	if len(out) < n {
		return fromEnd() // fewer recorded than needed: read back
	}
	return out, at, nil
}

func (lim limits) editedFilesSinceBoundary(path, root string) ([]string, error) {
	var out []string
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		out, err = lim.editedFilesAt(r, size, root)
		return err
	})
	return out, err
}

// editedFilesAt reads back from the end to the last boundary, once: the lines after the
// boundary are exactly the ones to look at, and meeting them last-first gives the most recent
// edit of each file first.
func (lim limits) editedFilesAt(r io.ReaderAt, size int64, root string) ([]string, error) {
	out, _, err := lim.editedSinceAt(r, size, root, 0, 0, false)
	return out, err
}

// editedSinceAt is editedFilesAt stopping also at offset from, and after budget bytes (0: no
// bound). With wantTasks, tasks reports a task tool used in the lines it read (TodoWrite,
// TaskCreate, TaskUpdate); without, no line is tested for one.
func (lim limits) editedSinceAt(r io.ReaderAt, size int64, root string, from, budget int64, wantTasks bool) (out []string, tasks bool, err error) {
	seg, err := lim.sinceAt(r, size, root, from, budget, wantTasks, nil)
	return seg.since, seg.tasks, err
}

// segment is what one backward pass finds.
type segment struct {
	since []string  // files edited at or after offset from, most recent first
	tasks bool      // a task tool was used at or after from
	act   *Activity // with act: the commands in the last maxActivityScan bytes of that stretch
	cut   bool      // the budget ran out before offset from or the boundary: since is the latest only
	// boundary is where the last boundary's line starts when the scan met it, 0 when it read back
	// to the start of the file and met none, -1 when it stopped before either (at from, or cut).
	boundary int64
}

// maxActivityScan bounds the stretch, from the end, in which a pass also reads the commands and
// decisions (activityScan): their tests cost a few passes over each line, and a hand-back wants
// the latest, so that a pass costs the same whatever lies before it. What came earlier is in the
// checkpoints' records, which the hand-off and the hand-back read back.
const maxActivityScan = 4 << 20

// sinceAt reads back from the end to offset from and the last boundary (and after budget bytes,
// 0: no bound): the files edited there and, with wantTasks, whether a task tool was used. With
// act it also collects, in the same pass and within maxActivityScan of the end, the commands run
// and the decisions stated (activityScan).
func (lim limits) sinceAt(r io.ReaderAt, size int64, root string, from, budget int64, wantTasks bool, act *activityScan) (seg segment, err error) {
	var (
		seen  = map[string]bool{}
		p     parser
		s     = newBackScanner(r, size, lim, budget)
		paths []string  // one line's, reused: the paths are copied (clean) before they are kept
		m     lineMarks // an active line's tokens, found in one walk: the tests below read them
	)
	defer s.release() // what is kept (paths, commands, decisions) is cleaned or copied
	seg.boundary = -1
	for len(seen) < maxEditedFiles {
		l, ok := s.next()
		if !ok && !s.stopped && s.err == nil && from == 0 {
			seg.boundary = 0 // read back to the start: no boundary in the file
		}
		if !ok || l.off < from {
			break
		}
		// A line in the stretch the commands are read in is tested for a dozen tokens, which one
		// walk over its quotes finds at once (lineMarks); a line before it only for the boundary
		// and the tools, whose three searches for rare bytes run faster than the walk.
		active := act != nil && l.off >= size-maxActivityScan
		if active {
			m.of(l.data)
		}
		if active && m.any(markBoundary|markSummary) || !active && mayBeBoundary(l.data) {
			if e, ok := p.entry(l); ok && !e.sidechain && e.isBoundary() {
				seg.boundary = l.off
				break
			}
		}
		if active && m.has(markResultHead) { // isToolResult
			act.result(l, &m)
			continue // a user line: no edits, no task tools
		}
		if active && mayDecideMarked(l.data, &m) {
			if e, ok := p.entry(l); ok {
				act.decisions(e)
			}
		}
		var edit, task, bash bool // the tool's name and a tool_use block
		if active {
			edit = m.any(markEdit|markWrite) && m.has(markToolUse)
			task = wantTasks && !seg.tasks && m.has(markTask|markToolUse)
			bash = m.has(markBash | markToolUse)
		} else {
			edit, task = mayEdit(l.data), wantTasks && !seg.tasks && mayTask(l.data)
		}
		if !edit && !task && !bash {
			continue
		}
		e, ok := p.entry(l)
		if !ok || e.kind() != "assistant" {
			continue
		}
		if bash {
			act.commands(e)
		}
		paths = paths[:0]
		e.msg("content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str != "tool_use" {
				return true
			}
			name := b.Get("name").Str
			if key, ok := editTools[name]; ok {
				if fp := b.Get("input." + key).String(); fp != "" {
					paths = append(paths, fp)
				}
			}
			if taskTools[name] && !e.sidechain {
				seg.tasks = true
			}
			return true
		})
		for i := len(paths) - 1; i >= 0; i-- { // the last block of a line is the latest
			// Two spellings of one file (absolute and relative to root) become one entry.
			if rel := relTo(root, clean(paths[i])); !seen[rel] {
				seen[rel] = true
				seg.since = append(seg.since, rel)
			}
		}
	}
	if act != nil {
		seg.act = &act.act
	}
	seg.cut = s.stopped
	return seg, s.err
}

// taskTools are the tools that change a session's task list: the todo list of older clients,
// the task files of newer ones.
var taskTools = map[string]bool{"TodoWrite": true, "TaskCreate": true, "TaskUpdate": true}

func mayTask(b []byte) bool {
	return (bytes.Contains(b, []byte(`TodoWrite"`)) || bytes.Contains(b, []byte(`TaskCreate"`)) || bytes.Contains(b, []byte(`TaskUpdate"`))) &&
		bytes.Contains(b, []byte(`"tool_use"`))
}

// Filters that reject almost every line before it is parsed, so that scans that must cover
// a region run at memory speed. They look for JSON string tokens that end with a quote: inside
// a string value (a tool result quoting a transcript, a prompt about this code) the quotes are
// escaped, so such text does not match. Each token starts with a byte that is rare in
// transcripts ('_', an upper-case letter), which keeps bytes.Index on its fast path.
func mayBeBoundary(b []byte) bool {
	return bytes.Contains(b, []byte(`_boundary"`)) || bytes.Contains(b, []byte(`CompactSummary"`))
}

// isToolResult reports whether a line is a tool's answer: a user line whose content holds a
// tool_result block. Such a line is never a prompt or an assistant line, and tool results are
// most of the bytes near the end, so the "last" questions drop them first, looking only at the
// line's head: Claude Code writes the block's "type":"tool_result" a few hundred bytes in.
// Text cannot fake the token, as quotes inside a string value are escaped. A line whose token
// comes later is not recognised here and is only examined more slowly. (The whole-region scans
// do without it: the rare-byte tokens they look for are cheaper than this one.)
func isToolResult(b []byte) bool {
	return bytes.Contains(b[:min(len(b), toolResultHead)], []byte(`tool_result"`))
}

// toolResultHead is how far into a line isToolResult looks; the token sits after the common
// fields (cwd, sessionId, version, gitBranch, …) and tool_use_id.
const toolResultHead = 2 << 10

func mayEdit(b []byte) bool {
	// Edit" also ends "MultiEdit" and "NotebookEdit". Tool results say "tool_use_id", never
	// "tool_use" in quotes.
	return (bytes.Contains(b, []byte(`Edit"`)) || bytes.Contains(b, []byte(`Write"`))) &&
		bytes.Contains(b, []byte(`"tool_use"`))
}

// relTo returns fp relative to root, with forward slashes, when fp is inside root; otherwise
// fp cleaned, with forward slashes.
func relTo(root, fp string) string {
	c := filepath.Clean(fp)
	if root != "" && filepath.IsAbs(c) {
		rel, err := filepath.Rel(filepath.Clean(root), c)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(c)
}

func (lim limits) lastTodos(path string) ([]Todo, bool, error) {
	var (
		out   []Todo
		found bool
	)
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		out, found, err = lim.lastTodosAt(r, size)
		return err
	})
	return out, found, err
}

func (lim limits) lastTodosAt(r io.ReaderAt, size int64) ([]Todo, bool, error) {
	var (
		out   []Todo
		found bool
		p     parser
		s     = newBackScanner(r, size, lim, lim.maxBackScan)
	)
	defer s.release() // the todos are cleaned: copies
	for !found {
		l, ok := s.next()
		if !ok {
			break
		}
		if !bytes.Contains(l.data, []byte(`TodoWrite"`)) {
			continue
		}
		e, ok := p.entry(l)
		if !ok || e.sidechain || e.kind() != "assistant" {
			continue
		}
		e.msg("content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_use" && b.Get("name").Str == "TodoWrite" {
				found, out = true, todos(b.Get("input.todos"))
			}
			return true
		})
	}
	return out, found, s.err
}

func todos(list gjson.Result) []Todo {
	var out []Todo
	list.ForEach(func(_, t gjson.Result) bool {
		id := t.Get("id").String()
		if id == "" {
			id = itoa(len(out) + 1)
		}
		out = append(out, Todo{
			ID:      clean(id),
			Subject: clean(t.Get("content").String()),
			Status:  clean(t.Get("status").String()),
		})
		return true
	})
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

// clean returns s as text (plain.Text), as an independent copy: strings taken from a line alias
// the scanner's buffer and must not outlive it.
func clean(s string) string {
	return strings.Clone(plain.Text(s))
}

// parser turns scanned lines into entries, reusing its buffer for repaired long lines.
type parser struct {
	fix []byte
}

// entry parses l. A complete line must be valid JSON; a truncated one is closed by closePrefix.
// The entry aliases l.data (or the parser's buffer) and is valid until the next call.
func (p *parser) entry(l line) (entry, bool) {
	doc := l.data
	if l.truncated {
		if p.fix == nil {
			p.fix = make([]byte, 0, len(l.data)+maxRepairDepth+1) // the most closePrefix adds
		}
		fixed := closePrefix(p.fix[:0], l.data)
		if fixed == nil {
			return entry{}, false
		}
		p.fix, doc = fixed, fixed
	} else if !gjson.ValidBytes(doc) {
		return entry{}, false
	}
	// A string view of the bytes, without the copy gjson.GetBytes makes of every result: results
	// are read in place and copied by clean before they are kept.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(doc), len(doc)))
	if !root.IsObject() {
		return entry{}, false
	}
	var e entry
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			e.typ = v.Str
		case "subtype":
			e.subtype = v.Str
		case "timestamp":
			e.timestamp = v.Str
		case "gitBranch":
			e.branch = v.Str
		case "cwd":
			e.cwd = v.Str
		case "isSidechain":
			e.sidechain = v.Bool()
		case "isMeta":
			e.meta = v.Bool()
		case "isCompactSummary":
			e.compactSummary = v.Bool()
		case "isVisibleInTranscriptOnly":
			e.transcriptOnly = v.Bool()
		case "isApiErrorMessage":
			e.apiError = v.Bool()
		case "message":
			e.message = v
		case "attachment":
			e.attachment = v
		}
		return true
	})
	return e, true
}

// entry is the part of a transcript line that cairn looks at.
type entry struct {
	typ, subtype   string
	timestamp      string
	branch, cwd    string
	sidechain      bool
	meta           bool
	compactSummary bool
	transcriptOnly bool
	apiError       bool
	message        gjson.Result
	attachment     gjson.Result
}

// kind is the line's type; for a long line cut before its "type" field (assistant lines write
// it after the message), the message's role stands in.
func (e entry) kind() string {
	if e.typ != "" {
		return e.typ
	}
	return e.message.Get("role").Str
}

func (e entry) msg(path string) gjson.Result { return e.message.Get(path) }

func (e entry) synthetic() bool {
	return e.apiError || e.msg("model").Str == "<synthetic>"
}

func (e entry) isBoundary() bool {
	k := e.kind()
	return k == "system" && e.subtype == "compact_boundary" || k == "user" && e.compactSummary
}

func (e entry) isPrompt() bool {
	_, ok := e.prompt()
	return ok
}

// prompt returns the text the user typed on this line, if it is such a line.
func (e entry) prompt() (string, bool) {
	if e.kind() != "user" || e.sidechain || e.meta || e.compactSummary || e.transcriptOnly {
		return "", false
	}
	content := e.msg("content")
	var text string
	switch {
	case content.Type == gjson.String:
		text = content.String()
	case content.IsArray():
		var texts []string
		tool := false
		content.ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "tool_result":
				tool = true
				return false
			case "text":
				// IDE integrations add blocks such as <ide_opened_file> beside the prompt.
				if t := b.Get("text").String(); !isHarnessText(t) {
					texts = append(texts, t)
				}
			}
			return true
		})
		if tool || len(texts) == 0 {
			return "", false
		}
		text = strings.Join(texts, "\n")
	default:
		return "", false
	}
	if strings.TrimSpace(text) == "" || isHarnessText(text) {
		return "", false
	}
	return text, true
}

// harnessPrefixes start user-line text that Claude Code writes, not the user: slash-command
// invocations and their output, shell-mode (!) input and output, background task notices,
// reminders, IDE context, and interruption markers. In an array of text blocks, such blocks
// are dropped and the others kept. A typed prompt that happens to start with one of these
// tags is skipped too; that is the price of a deterministic rule.
var harnessPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>", "<system-reminder>", "<user-memory-input>",
	"<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>",
	"[Request interrupted by user",
	"Caveat: The messages below were generated by the user while running local commands",
}

func isHarnessText(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// Compaction is what a compaction's records take from the transcript.
type Compaction struct {
	Size   int64    // the transcript's length when it was opened
	Edited []string // EditedFilesSinceBoundary
	// EditsCut says that Edited is the files edited in the last bound bytes only (ForCompaction's
	// bound): the stretch since the last boundary is longer.
	EditsCut bool
	Prompts  []string // LastUserPrompts
	At       []int64  // the offsets of the prompts' lines (Words.At)
	Todos    []Todo   // LastTodos, for sessions without task files
	HasTodos bool
	Activity Activity // the commands since the last boundary
	LastText string   // LastAssistantText: Claude's last message
	// Boundary is where the last compaction boundary's line starts when the read met it, 0 when
	// the transcript has none, -1 when the read stopped before (bound).
	Boundary int64
}

// ForCompaction reads, from the transcript's end, what a compaction records: the files edited
// since the last boundary (paths inside root made relative to it) — no further back than bound
// bytes when bound > 0, and then EditsCut says whether the boundary lay beyond — the commands and
// decisions of the last 4 MiB, the last n prompts, Claude's last message and, when todos is
// true, the last TodoWrite list within 4 MiB of the end (nearTodos). A missing file gives a zero
// Compaction with Size -1 and no error.
func (t *File) ForCompaction(root string, n int, todos bool, bound int64) (Compaction, error) {
	c := Compaction{Size: -1}
	_, err := t.with(func(r io.ReaderAt, size int64) error {
		c = Compaction{Size: size}
		seg, err := defaultLimits.sinceAt(r, size, root, 0, max(bound, 0), false, newActivityScan(r, defaultLimits))
		if err != nil {
			return err
		}
		c.Edited, c.EditsCut, c.Activity, c.Boundary = seg.since, seg.cut, *seg.act, seg.boundary
		if c.Prompts, c.At, _, err = defaultLimits.promptLinesAt(r, size, n, 0); err != nil {
			return err
		}
		if c.LastText, err = defaultLimits.lastAssistantTextAt(r, size); err != nil {
			return err
		}
		if todos {
			c.Todos, c.HasTodos, err = nearTodos(r, size)
		}
		return err
	})
	return c, err
}

// Handoff is what SessionEnd asks first of the transcript: whether the session did work since
// its last checkpoint.
type Handoff struct {
	Size     int64    // the transcript's length when it was opened; -1 when there is none
	Edited   []string // files edited after offset from and after the last boundary, latest first
	Tasks    bool     // a task tool was used after from and after the last boundary
	Activity Activity // the commands after from and after the last boundary
	Todos    []Todo   // with todos: the last TodoWrite list since the last boundary
	HasTodos bool
	First    string   // the session's first prompt: what it was started for
	Prompts  []string // LastWords', when the hand-off is written
	LastText string
}

// nearTodos is the last TodoWrite list within maxActivityScan of the end: a session without task
// files or a todo list (current models on 2.1.268+) must not pay a scan of the whole file at
// every compaction and every end, and a session that keeps a todo list writes it often.
func nearTodos(r io.ReaderAt, size int64) ([]Todo, bool, error) {
	near := defaultLimits
	near.maxBackScan = maxActivityScan
	return near.lastTodosAt(r, size)
}

// ForHandoff opens the transcript once and reads, from its end back to offset from (and no
// further than the last boundary, and 256 MiB), what came after the session's last checkpoint:
// the files edited, whether a task tool was used, the commands run and the decisions stated; with
// first, the session's first prompt; with todos, the last TodoWrite list. A missing file gives
// Size -1 and no error.
func (t *File) ForHandoff(root string, from int64, first, todos bool) (Handoff, error) {
	h := Handoff{Size: -1}
	_, err := t.with(func(r io.ReaderAt, size int64) error {
		h = Handoff{Size: size}
		lim := defaultLimits
		seg, err := lim.sinceAt(r, size, root, max(from, 0), lim.maxBackScan, true, newActivityScan(r, lim))
		if err != nil {
			return err
		}
		h.Edited, h.Tasks, h.Activity = seg.since, seg.tasks, *seg.act
		if first {
			if h.First, err = lim.firstPromptAt(r, size); err != nil {
				return err
			}
		}
		if todos {
			h.Todos, h.HasTodos, err = nearTodos(r, size)
		}
		return err
	})
	return h, err
}

// Words is what a hand-off quotes of the transcript: the last prompts, most recent first, the
// offsets of their lines (a later hand-off's earlier), and Claude's last message.
type Words struct {
	Prompts  []string
	At       []int64
	LastText string
}

// LastWords opens the transcript once and reads, from its end, the last n prompts and Claude's
// last message. earlier is the At of a checkpoint taken when the transcript was from bytes long
// (nil: none): the prompts before from are then read at those offsets, not found again by
// reading back over everything since (wordsAt), with the same answer.
func (t *File) LastWords(n int, from int64, earlier []int64) (w Words, err error) {
	_, err = t.with(func(r io.ReaderAt, size int64) error {
		lim := defaultLimits
		var err error
		if w.Prompts, w.At, err = lim.wordsAt(r, size, n, from, earlier); err != nil {
			return err
		}
		w.LastText, err = lim.lastAssistantTextAt(r, size)
		return err
	})
	return w, err
}
