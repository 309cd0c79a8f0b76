//go:build !linux

package main

// prepareLoadHeap does nothing where the kernel has no transparent huge
// pages to ask for.
func prepareLoadHeap(string) {}
