package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hugePageMapped returns the bytes of this process's mappings marked for
// huge pages: "hg" among their VmFlags in /proc/self/smaps.
func hugePageMapped(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var total, size int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "Size:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			size = kb << 10
		case len(fields) > 0 && fields[0] == "VmFlags:" && strings.Contains(sc.Text(), " hg"):
			total += size
		}
	}
	return total
}

// A store file past loadHeapMin gets the heap its load fills marked for
// huge pages before the load; a smaller one does not.
func TestPrepareLoadHeapAsksForHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	before := hugePageMapped(t)
	prepareLoadHeap(sparse("small", loadHeapMin-1))
	if got := hugePageMapped(t); got != before {
		t.Fatalf("a file below %d bytes: %d bytes marked, %d before", loadHeapMin, got, before)
	}
	prepareLoadHeap(sparse("large", 2*loadHeapMin))
	if got := hugePageMapped(t) - before; got < 2*loadHeapMin {
		t.Fatalf("a file of %d bytes: %d more bytes marked, want at least as many", 2*loadHeapMin, got)
	}
}
