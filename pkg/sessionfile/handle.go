package sessionfile

import (
	"errors"
	"io/fs"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Context is the handle on session-context.md for one process: read at most once, without the
// lock (the file is replaced atomically), and refreshed by its own writes, so that a hook that
// counts the parked items, checks which compaction the snapshot records and refreshes the
// snapshot reads the file once outside the lock. A process opens it once ([Open]) and passes it
// down — package parking reads and writes its section through it. It is used by one goroutine at
// a time.
type Context struct {
	root  string
	files safefile.Writer

	loaded bool
	data   []byte
	exists bool
	err    error
}

// Open returns the handle on p's session-context.md. It reads nothing until asked.
func Open(p *project.Project) *Context { return OpenAt(p.Root, p.Files) }

// OpenAt is Open for the project at root written through files: for a store built without a
// world (the doctor's dry-run view of the parked items).
func OpenAt(root string, files safefile.Writer) *Context { return &Context{root: root, files: files} }

// Read returns the file's content, and whether it exists: read on the first call, then what was
// read or what this handle wrote since. A file that cannot be read gives its error, every time.
func (c *Context) Read() (data []byte, exists bool, err error) {
	if !c.loaded {
		c.loaded = true
		c.data, _, c.err = safefile.ReadFile(c.root, Path(c.root), MaxSize)
		c.exists = c.err == nil
		if errors.Is(c.err, fs.ErrNotExist) {
			c.data, c.err = nil, nil
		}
	}
	return c.data, c.exists, c.err
}

// Update rewrites the file under its lock with what edit makes of its current content (as
// safefile.Writer's Update, bounded by MaxSize), and leaves the handle holding the file as the
// lock left it: what edit made, or what edit saw when it changed nothing. A failed write makes
// the next Read read the file again.
func (c *Context) Update(edit safefile.Edit, opts ...safefile.Option) (changed bool, err error) {
	h, changed, err := safefile.UpdateHeld(c.files, Path(c.root), 0o644, edit, append(opts, safefile.Limit(MaxSize))...)
	c.loaded, c.data, c.exists, c.err = h.Known, h.Data, h.Exists, nil
	return changed, err
}
