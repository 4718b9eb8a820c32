package search

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Remove deletes the index of the project at root, for cairn uninstall: in the cache directory
// and in the project, where an index goes when the cache cannot be written. Only the files an
// index writes are removed, by name (and the temp files of a write that was cut), each inside its
// tree and never through a link; a directory goes only when that empties it. It returns the
// index directories it removed. The index is derived, so removing it loses nothing.
func Remove(root, cacheDir string) ([]string, error) {
	var gone []string
	var firstErr error
	places := [][2]string{}
	if cacheDir != "" {
		tree, dir := Location(root, cacheDir)
		places = append(places, [2]string{tree, dir})
	}
	tree, dir := Location(root, "")
	places = append(places, [2]string{tree, dir})
	for _, p := range places {
		ok, err := removeIndexDir(p[0], p[1])
		if ok {
			gone = append(gone, p[1])
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return gone, firstErr
}

// indexNames are the files an index directory holds.
var indexNames = map[string]bool{baseName: true, deltaName: true, stampName: true, lockName: true, ".gitignore": true,
	histManifest: true, histLock: true}

// isIndexName reports whether name is one of an index directory's files: a fixed one or a history
// segment.
func isIndexName(name string) bool { return indexNames[name] || isHistName(name) }

// removeIndexDir removes the index files in dir, inside tree, and dir itself once empty. It
// reports whether dir is gone.
func removeIndexDir(tree, dir string) (bool, error) {
	rel, err := filepath.Rel(tree, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false, err
	}
	r, err := os.OpenRoot(tree)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer r.Close()
	fi, err := r.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !fi.IsDir():
		return false, nil // a link or a file where the index would be: not the index
	}
	d, err := r.Open(rel)
	if err != nil {
		return false, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if !isIndexName(n) && !isTemp(n) {
			continue
		}
		p := filepath.Join(rel, n)
		if fi, err := r.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := r.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	if err := r.Remove(rel); err != nil {
		return false, nil // something else is in it: left as it is
	}
	return true, nil
}

// isTemp reports whether name is the temp file of an index write that was cut: ".<name>.tmp<digits>".
func isTemp(name string) bool {
	i := strings.LastIndex(name, ".tmp")
	if len(name) < 2 || name[0] != '.' || i < 1 || i+len(".tmp") == len(name) {
		return false
	}
	for _, c := range name[i+len(".tmp"):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return isIndexName(name[1:i])
}
