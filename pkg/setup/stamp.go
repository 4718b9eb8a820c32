package setup

// The version of a cairn binary, read from its file without running it: doctor asks it of
// whatever a settings file names, and a diagnostic never executes what a repository supplies;
// the plugin build asks it of binaries built for another platform. It is the CLI's alone:
// debug/buildinfo links the ELF, Mach-O and PE readers, whose start-up cost the hooks do not pay.

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// maxBinary bounds how much of a file Stamp reads: cairn's binaries are a few MiB.
const maxBinary = 64 << 20

// Stamp reads, without running it, the version of the cairn binary at path and the package it was
// built from (for a hook, "github.com/cairn-hooks/cairn/hooks/<name>"), as that binary's String
// would report it. The file is opened without blocking and must be a regular file: `cairn
// doctor` asks this of whatever a settings file names, and a diagnostic never executes what a
// repository supplies.
func Stamp(path string) (ver, pkg string, err error) {
	f, fi, err := safefile.OpenLoose(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	bi, err := buildinfo.Read(f)
	if err != nil {
		return "", "", fmt.Errorf("%s: no Go build information (%v): not one of cairn's binaries", path, err)
	}
	v, ok, err := findStamp(f, min(fi.Size(), maxBinary))
	if err != nil {
		return "", "", err
	}
	if ok {
		return v, bi.Path, nil
	}
	return version.ModuleVersion(bi), bi.Path, nil
}

// stampChunk is how much of a binary findStamp holds at once.
const stampChunk = 1 << 20

// maxStamp bounds a stamp's value: the version, up to its ';'.
const maxStamp = 128

// findStamp looks for the first marker in the first size bytes of r and returns the value after
// it, when a ';' ends it within maxStamp bytes. It reads a chunk at a time: the file is whatever
// a settings file names, padded to any size, and doctor must stay small whatever it reads.
func findStamp(r io.ReaderAt, size int64) (string, bool, error) {
	m := []byte(version.Marker())
	buf := make([]byte, len(m)-1+stampChunk)
	carry := 0 // the end of the previous chunk, where a marker may begin
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf[carry:carry+int(min(stampChunk, size-off))], off)
		if err != nil && err != io.EOF {
			return "", false, err
		}
		if n == 0 {
			break // shrank since fstat
		}
		data := buf[:carry+n]
		if i := bytes.Index(data, m); i >= 0 {
			at := off - int64(carry) + int64(i+len(m))
			val := make([]byte, min(maxStamp+1, max(size-at, 0)))
			k, err := r.ReadAt(val, at)
			if err != nil && err != io.EOF {
				return "", false, err
			}
			if j := bytes.IndexByte(val[:k], ';'); j >= 0 {
				return string(val[:j]), true, nil
			}
			return "", false, nil
		}
		off += int64(n)
		carry = min(len(m)-1, len(data))
		copy(buf, data[len(data)-carry:])
	}
	return "", false, nil
}
