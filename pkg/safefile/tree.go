// Package safefile is the only way cairn touches a file in a project it does not trust: every
// read, create, rename and delete happens inside a tree (the project root, or one of Claude
// Code's own directories), confined by the kernel at the moment of use rather than by a check
// made before it.
//
// Reading (ReadFile, ReadHead, Open) refuses anything but a regular file, opens without
// blocking (a FIFO at a state path cannot stall a hook) and reads at most a stated bound.
// Writing (Writer) is atomic replacement — a temp file in the same directory, fsync, rename —
// read-modify-write under a lock, locked appends that first cut a torn last record, and
// creation that never overwrites. A dry-run writer prints the planned change instead.
//
// Confinement is os.Root's: a path is resolved component by component from a descriptor of
// the tree's directory, symlinks are followed only while they stay inside it (absolute links
// are refused), and nothing can be swapped in between a check and the use. On Linux, macOS and
// Windows that is the standard library's guarantee (see os.Root); Confine is the same rule as
// a check on a path, for error messages and for paths handed to other programs.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrOutside reports a path that would leave its tree.
var ErrOutside = errors.New("path leaves the project root")

// within reports whether the cleaned absolute path p is root itself or below it, lexically.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// local returns path (absolute, or relative to dir) relative to dir, refusing one that leaves
// it lexically; "." names dir itself.
func local(dir, path string) (string, error) {
	// The common case, a clean path below a clean dir, without filepath.Rel's allocations.
	if rest, ok := strings.CutPrefix(path, dir); ok && len(rest) > 1 && rest[0] == filepath.Separator {
		if rest = rest[1:]; filepath.IsLocal(rest) && filepath.Clean(rest) == rest {
			return rest, nil
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s: %w", path, ErrOutside)
	}
	return rel, nil
}

// trees caches one open os.Root per directory for the life of the process (a hook's few
// milliseconds, or the CLI's one command): opening it costs an open and an fstat. The cache is
// bounded so that a long-lived process or a test touching many directories does not hold many
// descriptors.
var trees struct {
	sync.Mutex
	m     map[string]*os.Root
	order []string
}

const maxTrees = 64

// Release closes the directories the process holds open for its trees. A long-lived process
// (the MCP server) calls it between requests, and a test before it unmounts a file system; the
// next operation opens them again.
func Release() {
	trees.Lock()
	defer trees.Unlock()
	for _, r := range trees.m {
		r.Close()
	}
	trees.m, trees.order = nil, nil
	releaseFDs()
}

// tree returns the open root of dir.
func tree(dir string) (*os.Root, error) {
	dir = filepath.Clean(dir)
	return cached(dir, func() (*os.Root, error) { return os.OpenRoot(asDir(dir)) })
}

// asDir names the directory at name so that opening it cannot block. os.OpenRoot, Root.OpenRoot
// and Root.Open open the last component of a name without O_DIRECTORY or O_NONBLOCK, so a FIFO
// that a repository planted where a directory belongs would stall the open until some process
// writes to it. In "name/." every component of name is resolved as a directory — a FIFO, a
// device or a regular file there fails with ENOTDIR at once — and "." opens the directory
// itself, whatever was resolved: nothing can be swapped in between.
func asDir(name string) string {
	return name + string(filepath.Separator) + "."
}

// cached returns the root cached under key, opening it with open when there is none.
func cached(key string, open func() (*os.Root, error)) (*os.Root, error) {
	trees.Lock()
	r, ok := trees.m[key]
	trees.Unlock()
	if ok {
		return r, nil
	}
	r, err := open() // without the lock: opening a subtree opens the trees above it
	if err != nil {
		return nil, err
	}
	trees.Lock()
	defer trees.Unlock()
	if other, ok := trees.m[key]; ok {
		r.Close() // another goroutine opened it meanwhile
		return other, nil
	}
	if trees.m == nil {
		trees.m = map[string]*os.Root{}
	}
	if len(trees.order) == maxTrees {
		old := trees.order[0]
		trees.order = trees.order[1:]
		// Not closed: another goroutine may be using it; the finalizer closes it.
		delete(trees.m, old)
	}
	trees.m[key] = r
	trees.order = append(trees.order, key)
	return r, nil
}

// at returns a root confined to the tree at dir and path's name relative to it. Where path's
// directory exists, the root is that directory itself, opened once through the tree (so it is
// inside it) and cached: an operation on a name in it then costs one system call instead of a
// walk down from the tree's top, and the directory cannot be swapped for a link in between,
// since the root holds the directory, not its name. A directory removed while the process
// holds it is not seen again: long-lived processes call Release between requests.
func at(dir, path string) (*os.Root, string, error) {
	rel, err := local(dir, path)
	if err != nil {
		return nil, "", err
	}
	r, err := tree(dir)
	if err != nil {
		return nil, "", err
	}
	parent, base := filepath.Split(rel)
	if parent == "" {
		return r, rel, nil
	}
	sub, err := subtree(r, filepath.Clean(dir), filepath.Clean(parent))
	if err != nil {
		// Missing (a writer creates it through the tree) or refused (the operation reports it).
		return r, rel, nil
	}
	return sub, base, nil
}

// subtree returns the directory rel of the tree top (whose root is r), opening each directory on
// the way once, through the one above it.
func subtree(r *os.Root, top, rel string) (*os.Root, error) {
	return cached(filepath.Join(top, rel), func() (*os.Root, error) {
		parent, base := filepath.Split(rel)
		if parent == "" {
			return r.OpenRoot(asDir(rel))
		}
		up, err := subtree(r, top, filepath.Clean(parent))
		if err != nil {
			return nil, err
		}
		return up.OpenRoot(asDir(base))
	})
}

// outside turns os.Root's refusal of an escape into ErrOutside, so that callers and messages
// name it the same way whatever the platform reported.
func outside(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent") {
		return fmt.Errorf("%s: resolves outside the project root: %w", path, ErrOutside)
	}
	return err
}

// Confine checks that p (absolute, or relative to root) stays inside root, lexically and after
// every symlink that exists along the way, and returns it cleaned. A path whose tail does not
// exist yet is judged by its deepest existing ancestor. It is os.Root's rule as a check: use it
// to refuse a name early with a clear message; the operations confine again when they happen.
func Confine(root, p string) (string, error) {
	root = filepath.Clean(root)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !within(root, p) {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return p, err
	}
	if err, ok := fastConfine(root, rel, p); ok {
		if err != nil {
			return "", err
		}
		return p, nil
	}
	r, err := tree(root)
	if err != nil {
		return "", err
	}
	cur := ""
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, name)
		if _, err := r.Lstat(cur); err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
				return p, nil // what comes next will be created under what exists, which is inside
			}
			return "", outside(p, err)
		}
		// Stat follows the links along the way, and fails for any that leads out or dangles.
		if _, err := r.Stat(cur); err != nil {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return "", fmt.Errorf("%s: a symlink on the way dangles: %w", p, ErrOutside)
			case errors.Is(err, errNotDir):
				return p, nil
			case errors.Is(outside(p, err), ErrOutside):
				return "", outside(p, err)
			}
			return "", fmt.Errorf("%s: %w", p, ErrOutside)
		}
	}
	return p, nil
}
