package registry

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// randomDocument makes a registry with awkward strings and every optional field both set and not.
func randomDocument(r *rand.Rand, n int) document {
	strs := []string{"", "main", "feature/<x>&y", "é\u2028\"q\"\\", "\x01\xff", "a-uuid-4c1e"}
	pick := func() string { return strs[r.IntN(len(strs))] }
	at := func() time.Time {
		if r.IntN(4) == 0 {
			return time.Time{}
		}
		return time.Unix(1.7e9+r.Int64N(1e8), 0).UTC()
	}
	var d document
	for range n {
		d.Sessions = append(d.Sessions, Session{
			ID: pick() + fmt.Sprint(r.IntN(100)), Started: at(), LastActivity: at(), Branch: pick(),
			Status: pick(), Ended: at(), EndedBy: pick(), Cursor: r.Int64N(1 << 40),
		})
	}
	return d
}

// session.json is one session per line, each what json.Marshal writes for it, inside a frame
// that makes the whole a JSON document; it reads back as json.Unmarshal reads it, and what
// earlier cairns wrote (json.MarshalIndent's layout) reads the same.
func TestDocumentLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		d := randomDocument(r, 1+i%9)
		got := encodeDocument(d)
		lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		if lines[0] != docHead || lines[len(lines)-1] != "]}" || len(lines) != len(d.Sessions)+2 {
			t.Fatalf("layout:\n%s", got)
		}
		for j, s := range d.Sessions {
			want, _ := json.Marshal(s)
			if line := strings.TrimSuffix(lines[j+1], ","); line != string(want) || (j < len(d.Sessions)-1) != strings.HasSuffix(lines[j+1], ",") {
				t.Fatalf("line %d:\n%s\nwant\n%s", j, lines[j+1], want)
			}
		}
		var viaJSON document
		if err := json.Unmarshal(got, &viaJSON); err != nil {
			t.Fatal(err)
		}
		back, err := decodeDocument(got)
		if err != nil || !reflect.DeepEqual(back, viaJSON) {
			t.Fatalf("decode: %v\n%+v\nwant\n%+v", err, back, viaJSON)
		}
		indented, _ := json.MarshalIndent(d, "", "  ")
		if old, err := decodeDocument(indented); err != nil || !reflect.DeepEqual(old, back) {
			t.Fatalf("the earlier layout reads otherwise: %v\n%+v\nwant\n%+v", err, old, back)
		}
	}
	if got := string(encodeDocument(document{})); got != `{"sessions":[]}`+"\n" {
		t.Errorf("empty: %q", got)
	}
}

// lineOf finds a session exactly where decodeDocument and find do, or says it cannot.
func TestLineOfAgreesWithTheWholeDocument(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		d := randomDocument(r, 1+i%12)
		data := encodeDocument(d)
		for _, s := range d.Sessions {
			got, start, end, ok := lineOf(data, s.ID)
			if !utf8.ValidString(s.ID) {
				if ok {
					t.Fatalf("%q found, but JSON cannot hold it", s.ID)
				}
				continue // find does not find it in the decoded document either
			}
			if !ok {
				t.Fatalf("%q not found in\n%s", s.ID, data)
			}
			back, _ := decodeDocument(data)
			if !reflect.DeepEqual(got, *find(&back, s.ID)) {
				t.Fatalf("%q: %+v, want %+v", s.ID, got, *find(&back, s.ID))
			}
			// Splicing the same session back reads the same; another value changes that session only.
			if same, _ := decodeDocument(splice(data, start, end, got)); !reflect.DeepEqual(same, back) {
				t.Fatalf("splice of the same session: %+v\nwant\n%+v", same, back)
			}
			moved := got
			moved.Cursor++
			spliced, _ := decodeDocument(splice(data, start, end, moved))
			fixed := back
			*find(&fixed, s.ID) = moved
			if !reflect.DeepEqual(spliced, fixed) {
				t.Fatalf("splice: %+v\nwant\n%+v", spliced, fixed)
			}
		}
	}
	// Not in the layout (indented, torn) or not a JSON object: the whole document decides.
	d := document{Sessions: []Session{{ID: "a", Cursor: 1}, {ID: "b", Branch: "a", Cursor: 2}, {ID: "a", Cursor: 3}}}
	indented, _ := json.MarshalIndent(d, "", "  ")
	data := encodeDocument(d)
	for name, in := range map[string][]byte{
		"indented":   indented,
		"torn":       data[:len(data)-2],
		"a bad line": []byte(docHead + "\n{\"id\":\"b\",\"cursor\":}" + docTail),
		"not b":      []byte(docHead + "\n{\"id\":\"b\",\"id\":\"c\"}" + docTail),
	} {
		if _, _, _, ok := lineOf(in, "b"); ok {
			t.Errorf("%s: lineOf found b", name)
		}
	}
	// Another field that names b is not b's line; of two lines for a, the first is a's, as find has it.
	if s, _, _, ok := lineOf(encodeDocument(document{Sessions: []Session{{ID: "x", Branch: "b"}, {ID: "b", Cursor: 7}}}), "b"); !ok || s.Cursor != 7 {
		t.Errorf("b: %+v %v", s, ok)
	}
	if s, _, _, ok := lineOf(data, "a"); !ok || s.Cursor != 1 {
		t.Errorf("a: %+v %v, want the first a", s, ok)
	}
}

func TestDecodeDocumentTolerance(t *testing.T) {
	for _, bad := range []string{"", "{", "[]", `"x"`, "null", "{}x"} {
		if _, err := decodeDocument([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	d, err := decodeDocument([]byte(`{"sessions":[1,"x",{"id":"a","cursor":"7","started":"yesterday","status":3},{"id":"b","cursor":12}],"other":true}`))
	if err != nil || len(d.Sessions) != 2 || d.Sessions[0].ID != "a" || d.Sessions[0].Cursor != 0 || !d.Sessions[0].Started.IsZero() ||
		d.Sessions[0].Status != "" || d.Sessions[1].Cursor != 12 {
		t.Fatalf("%+v %v", d, err)
	}
	if d, err := decodeDocument([]byte(`{"sessions":null}`)); err != nil || len(d.Sessions) != 0 {
		t.Fatalf("%+v %v", d, err)
	}
}

// FuzzDecodeDocument: any input decodes or is refused without a panic, and what decodes
// survives a write and a read.
func FuzzDecodeDocument(f *testing.F) {
	f.Add(string(encodeDocument(randomDocument(rand.New(rand.NewPCG(3, 4)), 3))))
	f.Add(`{"sessions":[{"id":"a","cursor":1e30,"ended":"2026-01-01T00:00:00.5+02:00"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		d, err := decodeDocument([]byte(in))
		if err != nil {
			return
		}
		for i := range d.Sessions {
			// What json and jsonw write for a time is RFC 3339 in the time's own zone; compare instants.
			for _, tp := range []*time.Time{&d.Sessions[i].Started, &d.Sessions[i].LastActivity, &d.Sessions[i].Ended} {
				if tp.Year() < 0 || tp.Year() > 9999 {
					return // json.Marshal refuses these years too
				}
			}
		}
		back, err := decodeDocument(encodeDocument(d))
		if err != nil || len(back.Sessions) != len(d.Sessions) {
			t.Fatalf("%v: %d sessions, want %d", err, len(back.Sessions), len(d.Sessions))
		}
		for i, s := range back.Sessions {
			w := d.Sessions[i]
			if s.ID != string([]rune(w.ID)) || s.Cursor != w.Cursor || !s.Started.Equal(w.Started) || !s.Ended.Equal(w.Ended) || !s.LastActivity.Equal(w.LastActivity) {
				t.Fatalf("%+v\n→\n%+v", w, s)
			}
		}
	})
}

// An event line is what encoding/json wrote for the same record.
func TestEventLineMatchesEncodingJSON(t *testing.T) {
	for _, e := range []Event{
		{Time: time.Date(2026, 11, 30, 2, 6, 25, 9, time.FixedZone("x", 3600)), From: "a", Type: TypeBroadcast, Msg: "ship <it> & \"go\"\n\xff"},
		{Time: time.Time{}, From: "", Type: TypeStart},
	} {
		want, _ := json.Marshal(struct {
			TS   string `json:"ts"`
			From string `json:"from"`
			Type string `json:"type"`
			Msg  string `json:"msg,omitempty"`
		}{e.Time.UTC().Format(time.RFC3339), e.From, e.Type, e.Msg})
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%s\nwant\n%s", got, want)
		}
	}
}

// FuzzLineOf: any file and id give a line or a refusal without a panic, and a line found is
// sid's session as a JSON object, inside the file.
func FuzzLineOf(f *testing.F) {
	f.Add(string(encodeDocument(randomDocument(rand.New(rand.NewPCG(7, 8)), 4))), "a-uuid-4c1e3")
	f.Add(docHead+"\n{\"id\":\"b\",\n]}\n", "b")
	f.Add(docHead+"\n{\"id\":\"b\","+docTail, "b")
	f.Fuzz(func(t *testing.T, data, sid string) {
		s, start, end, ok := lineOf([]byte(data), sid)
		if !ok {
			return
		}
		if s.ID != sid || start < 0 || end > len(data) || start > end || !json.Valid([]byte(data[start:end])) {
			t.Fatalf("%q %d %d %+v", data, start, end, s)
		}
	})
}
