package search

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemove(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	_, inCache := Location(root, cache)
	_, inProject := Location(root, "")
	for _, dir := range []string{inCache, inProject} {
		os.MkdirAll(dir, 0o700)
		for _, n := range []string{baseName, stampName, lockName, "." + deltaName + ".tmp123", histManifest, histLock, histName(7), "." + histName(8) + ".tmp9"} {
			os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
		}
	}
	os.WriteFile(filepath.Join(inProject, "mine.txt"), []byte("mine"), 0o600)
	gone, err := Remove(root, cache)
	if err != nil || len(gone) != 1 || gone[0] != inCache {
		t.Fatalf("Remove = %v, %v; want [%s]", gone, err, inCache)
	}
	if _, err := os.Stat(inCache); !os.IsNotExist(err) {
		t.Errorf("%s is still there", inCache)
	}
	if names, _ := os.ReadDir(inProject); len(names) != 1 || names[0].Name() != "mine.txt" {
		t.Errorf("%s holds %v; want only mine.txt", inProject, names)
	}

	// A link where the index would be is not followed.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, baseName), []byte("x"), 0o600)
	os.RemoveAll(inProject)
	os.Symlink(other, inProject)
	if gone, err := Remove(root, ""); err != nil || len(gone) != 0 {
		t.Errorf("Remove through a link = %v, %v", gone, err)
	}
	if _, err := os.Stat(filepath.Join(other, baseName)); err != nil {
		t.Errorf("a file behind the link went: %v", err)
	}
	if isTemp(".mine.tmp1") || !isTemp(".stamp.tmp42") || isTemp(".stamp.tmp") || !isTemp("."+histName(1)+".tmp3") || isHistName("hist-x.cidx") {
		t.Error("isTemp")
	}
}
