package parking

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/flatmatter"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Legacy parked items are the session-open-*.md memory files of the original /session workflow,
// one item per file, in Claude Code's per-project memory directory. cairn reads them and removes
// them when they are archived or expire; it never writes one.
const (
	legacyPrefix = "session-open-"
	legacySuffix = ".md"
	// A parked item is a few hundred bytes and there are at most ten, so these bounds never bind
	// on real data; they keep a hook's time and memory bounded whatever the directory holds
	// (16 MiB peak: docs/DESIGN.md, Budgets): at most maxLegacyEntries directory entries are
	// looked at, at most maxLegacyFiles items read, and a file over maxLegacySize is not an item.
	maxLegacyEntries = 10000
	maxLegacyFiles   = 200
	maxLegacySize    = 16 << 10
)

// LegacyDirs returns the memory directories where the original /session workflow kept parked
// items for the project at root: <config>/projects/<slug>/memory under Claude Code's slug
// spelling and under that workflow's (see [project.Slug] and [project.LegacySlug]), without
// duplicates. It returns nil when config is "".
func LegacyDirs(config, root string) []string {
	if config == "" || root == "" {
		return nil
	}
	var dirs []string
	for _, slug := range []string{project.Slug(root), project.LegacySlug(root)} {
		d := filepath.Join(config, "projects", slug, "memory")
		if slug != "" && (len(dirs) == 0 || dirs[0] != d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// IsLegacyName reports whether name is the name of a legacy parked item: session-open-*.md.
func IsLegacyName(name string) bool {
	return strings.HasPrefix(name, legacyPrefix) && strings.HasSuffix(name, legacySuffix)
}

// legacyFile is one session-open-*.md file.
type legacyFile struct {
	path      string
	mod       time.Time
	slug      string
	name      string
	desc      string
	why, how  string
	text      string // the whole file, for the audit log
	searchFor string // lowercased name, description and body, for archive matching
}

// readLegacy reads the legacy files of dirs, newest first. A missing directory holds nothing;
// entries that are not regular files (symlinks included) or are too large are skipped.
func readLegacy(dirs []string) ([]legacyFile, error) {
	var out []legacyFile
	var firstErr error
	for _, dir := range dirs {
		names, _, err := safefile.ReadDir(dir, dir, maxLegacyEntries)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		for _, n := range names {
			// A name that is not a regular file (a link, a FIFO) is refused by the reader.
			if !IsLegacyName(n) || len(out) >= maxLegacyFiles {
				continue
			}
			if lf, ok := readLegacyFile(dir, filepath.Join(dir, n)); ok {
				out = append(out, lf)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].mod.Equal(out[j].mod) {
			return out[i].mod.After(out[j].mod)
		}
		return out[i].path < out[j].path
	})
	return out, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func readLegacyFile(dir, path string) (legacyFile, bool) {
	data, fi, err := safefile.ReadFile(dir, path, maxLegacySize)
	if err != nil {
		return legacyFile{}, false
	}
	// The legacy files carry flat "name: …" / "description: …" frontmatter; a line reader takes
	// them as written (a YAML parser refuses the common "description: Deferred: x") and keeps the
	// YAML library out of the hooks that run on every prompt.
	var meta struct{ Name, Description string }
	fm, body, closed := flatmatter.Split(data)
	if closed {
		meta.Name, meta.Description = flatmatter.String(fm, "name"), flatmatter.String(fm, "description")
	} else {
		body = data // no frontmatter, or one never closed: all of it is the body
	}
	lf := legacyFile{
		path: path,
		mod:  fi.ModTime(),
		name: strings.ToValidUTF8(strings.TrimSpace(meta.Name), "\uFFFD"),
		desc: plain.Line(meta.Description, 0),
		text: string(data),
	}
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), legacyPrefix), legacySuffix)
	if len(base) > len(DateLayout)+1 && parseDate(base[len(base)-len(DateLayout):]) != "" && base[len(base)-len(DateLayout)-1] == '-' {
		base = base[:len(base)-len(DateLayout)-1]
	}
	lf.slug = Slugify(lf.name)
	if lf.slug == "" {
		lf.slug = Slugify(base)
	}
	if lf.slug == "" {
		lf.slug = "item"
	}
	if lf.name == "" {
		lf.name = lf.slug
	}
	for _, l := range strings.Split(string(body), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case hasFold(t, "**why:**"):
			lf.why = plain.Line(t[len("**why:**"):], 0)
		case hasFold(t, "**how to apply:**"):
			lf.how = plain.Line(t[len("**how to apply:**"):], 0)
		case lf.desc == "":
			lf.desc = plain.Line(t, 0)
		}
	}
	lf.searchFor = strings.ToLower(lf.name + "\n" + lf.desc + "\n" + string(body))
	return lf, true
}

func hasFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
