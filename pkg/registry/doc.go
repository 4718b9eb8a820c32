package registry

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/tidwall/gjson"
)

// session.json is read and written without encoding/json's reflection (see pkg/jsonw): every
// SessionStart and SessionEnd, and a prompt a minute, read and rewrite it.

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
		if !v.IsObject() {
			return true
		}
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
		d.Sessions = append(d.Sessions, s)
		return true
	})
	return d, nil
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

// encodeDocument writes session.json as json.MarshalIndent(d, "", "  ") does, plus a newline.
func encodeDocument(d document) []byte {
	top := jsonw.OpenIndent(make([]byte, 0, 256+200*len(d.Sessions)), "  ", 0)
	b := top.Key("sessions")
	if len(d.Sessions) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i, s := range d.Sessions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			o := jsonw.OpenIndent(b, "  ", 2)
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
			b = o.Close()
		}
		b = append(b, "\n  ]"...)
	}
	top.B = b
	return append(top.Close(), '\n')
}
