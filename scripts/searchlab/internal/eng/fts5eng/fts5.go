// Package fts5eng is SQLite FTS5 (modernc.org/sqlite, pure Go) behind the lab's Searcher. The
// index is one database file: a contentless FTS5 table of title and body (the text is not kept,
// as cidx keeps none: snippets are read back from the files) and a table of each document's
// kind, weight, time, branch, title and place in its file. It is ranked by bm25() with the title
// weighted 3 against the body's 1, times the kind's weight, as cidx ranks.
package fts5eng

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
	_ "modernc.org/sqlite" // the "sqlite" driver, FTS5 built in
)

// File is the database's name in the index directory.
const File = "fts5.db"

// Schema creates the tables.
const Schema = `
CREATE VIRTUAL TABLE f USING fts5(title, body, content='');
CREATE TABLE m(id INTEGER PRIMARY KEY, did TEXT, kind TEXT, w REAL, time INTEGER, branch TEXT, title TEXT, path TEXT, off INTEGER, n INTEGER);
`

type searcher struct {
	db   *sql.DB
	root string
}

// OpenDB opens the database in dir.
func OpenDB(dir string, readOnly bool) (*sql.DB, error) {
	dsn := "file:" + filepath.Join(dir, File)
	if readOnly {
		dsn += "?mode=ro"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Open opens the index in dir of the project at root.
func Open(root, dir string) (lab.Searcher, error) {
	db, err := OpenDB(dir, true)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return &searcher{db: db, root: root}, nil
}

// Match is the FTS5 query of the terms: each a quoted string (implicit AND), a prefix "lru"*.
func Match(q lab.Query) string {
	var parts []string
	for _, t := range q.Terms {
		s := `"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`
		if t.Prefix {
			s += "*"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Search runs the full-text match in FTS5, then the filters on the joined metadata (kind IN,
// branch =, time >=), ordered by bm25 × the kind's weight, newer first among equals.
func (s *searcher) Search(q lab.Query) ([]lab.Hit, error) {
	var where []string
	args := []any{Match(q)}
	if len(q.Kinds) > 0 {
		where = append(where, "m.kind IN ("+strings.TrimSuffix(strings.Repeat("?,", len(q.Kinds)), ",")+")")
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if q.Branch != "" {
		where = append(where, "m.branch = ?")
		args = append(args, q.Branch)
	}
	if !q.Since.IsZero() {
		where = append(where, "m.time >= ?")
		args = append(args, q.Since.Unix())
	}
	cond := ""
	if len(where) > 0 {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, q.Limit)
	rows, err := s.db.Query(`SELECT m.did, m.kind, m.title, m.path, m.off, m.n, x.s * m.w AS score
FROM (SELECT rowid AS r, bm25(f, 3.0, 1.0) AS s FROM f WHERE f MATCH ?) AS x JOIN m ON m.id = x.r
`+cond+` ORDER BY score, m.time DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("fts5: %v", err)
	}
	defer rows.Close()
	var hits []lab.Hit
	for rows.Next() {
		var h lab.Hit
		if err := rows.Scan(&h.ID, &h.Kind, &h.Title, &h.Path, &h.Off, &h.N, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lab.Snippets(s.root, hits, q)
	return hits, nil
}

func (s *searcher) Close() error { return s.db.Close() }
