package main

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// prepareLoadHeap readies the heap that loading the store file at path is
// about to fill, about 1.2 bytes of memory a byte of file. Fresh memory
// comes from the kernel a 4 KiB page fault at a time, on the goroutine
// that first touches it: for a million messages some 85,000 faults, the
// larger part of a restart on a virtual machine, where each fault costs
// the host too. So it allocates a block of that size, which maps it
// untouched, asks for transparent huge pages there (MADV_HUGEPAGE: on a
// system that gives them only where asked, Debian's default, the runtime
// never asks), and frees the block for the load to reuse, lowest
// addresses first. Then a goroutine faults the block in ahead of the load
// (MADV_POPULATE_WRITE, which leaves the bytes as they are), on another
// core than the load's. A kernel without either madvise loads as before.
func prepareLoadHeap(path string) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < loadHeapMin || unsafe.Sizeof(uintptr(0)) < 8 {
		return // a 32-bit process has no room to spare for a block this large
	}
	heap := make([]byte, fi.Size()/4*5)
	_ = syscall.Madvise(heap, syscall.MADV_HUGEPAGE)
	// The block's addresses outlive it: the runtime never unmaps its heap,
	// so the madvise below reaches memory that is mapped, whoever holds it.
	start, size := uintptr(unsafe.Pointer(unsafe.SliceData(heap))), uintptr(len(heap))
	heap = nil
	runtime.GC() // frees the block: the collector is off during a load
	go func() {
		for off := uintptr(0); off < size; off += populateStep {
			syscall.Syscall(syscall.SYS_MADVISE, start+off, min(populateStep, size-off), madvPopulateWrite)
		}
	}()
}

const (
	// loadHeapMin is the least file worth it: a small store loads in
	// milliseconds whatever its pages.
	loadHeapMin = 64 << 20
	// populateStep is how much one madvise faults in, a few huge pages,
	// so that the faulting stays ahead of the load from the start.
	populateStep = 8 << 20
	// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which the
	// syscall package does not name.
	madvPopulateWrite = 23
)
