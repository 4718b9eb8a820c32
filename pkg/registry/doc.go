package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/tidwall/gjson"
)

// session.json is read and written without encoding/json's reflection (see pkg/jsonw): every
// SessionStart and SessionEnd, and a prompt a minute, read and rewrite it.
//
// Layout. One session per line, each line what json.Marshal writes for its Session:
//
//	{"sessions":[
//	{"id":"…","started":"…","last_activity":"…","branch":"main","status":"active","cursor":123},
//	{"id":"…",…}
//	]}
//
// so that a prompt reads its own session's line and none of the other 199 (lineOf), and a
// change to one session rewrites that line and copies the rest of the file as bytes (splice).
// The file is one JSON document all the same: any JSON reader, earlier cairns included (which
// wrote it indented, as json.MarshalIndent does), reads it whole, and a file in any other layout
// is read whole (decodeDocument) and written back in this one at the next change.

// Frame of the layout: what comes before the first session's line and after the last one's.
const (
	docHead  = `{"sessions":[`
	docTail  = "\n]}\n"
	docEmpty = docHead + "]}\n"
	idPrefix = "\n{\"id\":" // how a session's line starts, after the newline that ends the one before
)

// decodeDocument reads session.json. Only a file that is not a JSON object is an error; inside
// it, a session that is not an object is skipped and a field of the wrong type reads as empty.
func decodeDocument(data []byte) (document, error) {
	if !gjson.ValidBytes(data) {
		// Only a broken file pays for encoding/json, for its message that says where.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return document{}, err
		}
		return document{}, errors.New("not valid JSON")
	}
	top := gjson.ParseBytes(data)
	if !top.IsObject() {
		return document{}, errors.New("not a JSON object")
	}
	var d document
	top.Get("sessions").ForEach(func(_, v gjson.Result) bool {
		if v.IsObject() {
			d.Sessions = append(d.Sessions, decodeSession(v))
		}
		return true
	})
	return d, nil
}

// decodeSession reads one session object; a field of the wrong type reads as empty.
func decodeSession(v gjson.Result) Session {
	var s Session
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			s.ID = str(f)
		case "started":
			s.Started = timeOf(f)
		case "last_activity":
			s.LastActivity = timeOf(f)
		case "branch":
			s.Branch = str(f)
		case "status":
			s.Status = str(f)
		case "ended":
			s.Ended = timeOf(f)
		case "ended_by":
			s.EndedBy = str(f)
		case "cursor":
			if f.Type == gjson.Number {
				s.Cursor = f.Int()
			}
		}
		return true
	})
	return s
}

// lineOf finds session sid in data without decoding the other sessions: it returns the session
// and where its line lies in data (without the comma after it). ok is false unless data is in
// the layout encodeDocument writes (its frame) and holds a line that starts with sid's id, and
// that line is a JSON object; then the first such line is sid's record, as it is find's in every
// file this package writes, each session on a line of its own. (A file edited by hand within the
// frame but out of the layout — a session spread over several lines — can read otherwise here
// until the next change to the whole registry rewrites it.) It costs one search of data for a
// needle that starts with a newline, and the parse of one line.
func lineOf(data []byte, sid string) (s Session, start, end int, ok bool) {
	if !bytes.HasPrefix(data, []byte(docHead)) || !bytes.HasSuffix(data, []byte(docTail)) {
		return Session{}, 0, 0, false
	}
	i := bytes.Index(data, append(jsonw.String([]byte(idPrefix), sid), ','))
	if i < 0 {
		return Session{}, 0, 0, false
	}
	start = i + 1
	end = start + bytes.IndexByte(data[start:], '\n') // the frame's tail holds a newline after it
	line := bytes.TrimSuffix(data[start:end], []byte(","))
	if !gjson.ValidBytes(line) {
		return Session{}, 0, 0, false
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return Session{}, 0, 0, false
	}
	if s = decodeSession(v); s.ID != sid {
		return Session{}, 0, 0, false
	}
	return s, start, start + len(line), true
}

// splice returns data with the line at [start, end) replaced by session s's.
func splice(data []byte, start, end int, s Session) []byte {
	out := make([]byte, 0, len(data)+64)
	out = append(out, data[:start]...)
	out = appendSession(out, s)
	return append(out, data[end:]...)
}

func str(f gjson.Result) string {
	if f.Type != gjson.String {
		return ""
	}
	return f.Str
}

func timeOf(f gjson.Result) time.Time {
	if f.Type != gjson.String {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, f.Str)
	if err != nil {
		return time.Time{}
	}
	return t
}

// encodeDocument writes session.json in its layout (see above).
func encodeDocument(d document) []byte {
	if len(d.Sessions) == 0 {
		return []byte(docEmpty)
	}
	b := append(make([]byte, 0, 32+256*len(d.Sessions)), docHead...)
	for i, s := range d.Sessions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSession(append(b, '\n'), s)
	}
	return append(b, docTail...)
}

// appendSession appends s as json.Marshal writes it.
func appendSession(b []byte, s Session) []byte {
	o := jsonw.Open(b)
	o.Str("id", s.ID)
	o.Time("started", s.Started)
	o.Time("last_activity", s.LastActivity)
	o.StrOmitEmpty("branch", s.Branch)
	o.Str("status", s.Status)
	if !s.Ended.IsZero() {
		o.Time("ended", s.Ended)
	}
	o.StrOmitEmpty("ended_by", s.EndedBy)
	o.Int("cursor", s.Cursor)
	return o.Close()
}
