package engine

import (
	"cmp"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// messageTable holds a file store's message records, by keyspace and
// sequence number, beside the buntdb that holds every other record. A
// million records in buntdb's B-tree took about 76 MB of items and tree
// nodes, and loading them about 0.8 s of CPU, most of it comparing keys
// down the tree; here a record costs a string of 16 bytes in its page, a
// load's insert a page lookup, and its key is never kept: it is the
// keyspace and number. Only keys in messageKey's exact form are held here,
// so that each key is in one place and reads back as written. It is used
// under the lock of the buntdb beside it, like buntdb's own records.
type messageTable struct {
	// spaces holds each keyspace's records in pages of seqPageSize
	// consecutive sequence numbers, as the index keeps messages.
	spaces map[string]map[uint64]msgPage
	n      int // records held
}

// msgPage holds the records of the slots in used, in slot order: a page
// of a few records left among many gone costs only theirs.
type msgPage struct {
	recs []string
	used uint64
}

// at returns the index in recs of slot's record, or of where it goes.
func (p *msgPage) at(slot uint64) int { return bits.OnesCount64(p.used & (1<<slot - 1)) }

func newMessageTable() *messageTable {
	return &messageTable{spaces: map[string]map[uint64]msgPage{}}
}

// splitMessageKey returns the keyspace and sequence number of a key in
// messageKey's exact form.
func splitMessageKey(key string) (keyspace string, seq uint64, ok bool) {
	rest, ok := strings.CutPrefix(key, messagePrefix)
	colon := strings.IndexByte(rest, ':')
	if !ok || colon < 0 || !isKeyspace(rest[:colon]) {
		return "", 0, false
	}
	seq, ok = parseSeq(rest[colon:])
	if !ok || len(rest) != colon+2+seqDigits(seq) { // one SEQ, with no colon before it
		return "", 0, false
	}
	return rest[:colon], seq, true
}

// isKeyspace reports whether s is keyspaceOf of some number: base 36
// digits with no leading zero, few enough for a uint64.
func isKeyspace(s string) bool {
	if s == "" || len(s) > 13 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	if len(s) == 13 { // some of 13 digits are past the range
		_, err := strconv.ParseUint(s, 36, 64)
		return err == nil
	}
	return true
}

// messageKeyLen is len(messageKey(keyspace, seq)).
func messageKeyLen(keyspace string, seq uint64) int {
	return len(messagePrefix) + len(keyspace) + 2 + seqDigits(seq)
}

func (r *messageTable) get(keyspace string, seq uint64) (string, bool) {
	space := r.spaces[keyspace]
	if space == nil {
		return "", false
	}
	p, slot := space[seq>>seqPageBits], seq&(seqPageSize-1)
	if p.used&(1<<slot) == 0 {
		return "", false
	}
	return p.recs[p.at(slot)], true
}

// set stores v and returns the record it replaced, if any.
func (r *messageTable) set(keyspace string, seq uint64, v string) (old string, had bool) {
	space := r.spaces[keyspace]
	if space == nil {
		space = map[uint64]msgPage{}
		r.spaces[strings.Clone(keyspace)] = space
	}
	k, slot := seq>>seqPageBits, seq&(seqPageSize-1)
	p := space[k]
	i := p.at(slot)
	if p.used&(1<<slot) != 0 {
		old, p.recs[i] = p.recs[i], v
		return old, true
	}
	if p.recs == nil && slot == 0 {
		// Most pages fill from their first slot on, a send or a load's
		// record at a time: room for them all from the start.
		p.recs = make([]string, 0, seqPageSize)
	}
	p.recs = slices.Insert(p.recs, i, v)
	p.used |= 1 << slot
	space[k] = p
	r.n++
	return "", false
}

// delete removes the record and returns it, if there was one.
func (r *messageTable) delete(keyspace string, seq uint64) (old string, had bool) {
	space := r.spaces[keyspace]
	if space == nil {
		return "", false
	}
	k, slot := seq>>seqPageBits, seq&(seqPageSize-1)
	p := space[k]
	if p.used&(1<<slot) == 0 {
		return "", false
	}
	i := p.at(slot)
	old = p.recs[i]
	r.n--
	if p.used &^= 1 << slot; p.used == 0 {
		delete(space, k)
		if len(space) == 0 {
			delete(r.spaces, keyspace)
		}
		return old, true
	}
	p.recs = slices.Delete(p.recs, i, i+1)
	if c := cap(p.recs); c >= 16 && len(p.recs) <= c/4 {
		p.recs = slices.Clone(p.recs) // the few left among many gone
	}
	space[k] = p
	return old, true
}

func (r *messageTable) reset() { *r = *newMessageTable() }

// keyspaces returns the keyspaces that hold records, in the order of
// their keys: by recordPrefix(messagePrefix, keyspace), in which "10:"
// sorts before "1:".
func (r *messageTable) keyspaces() []string {
	return slices.SortedFunc(maps.Keys(r.spaces), compareKeyspaceKeys)
}

// compareKeyspaceKeys compares a+":" with b+":", without making either.
func compareKeyspaceKeys(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 || len(a) == len(b) {
		return c
	}
	if len(a) < len(b) {
		return cmp.Compare(':', b[n])
	}
	return cmp.Compare(a[n], ':')
}

// pageNumbers returns a keyspace's page numbers, in order.
func (r *messageTable) pageNumbers(keyspace string) []uint64 {
	space := r.spaces[keyspace]
	if space == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(space))
}

// ascendPages calls fn with each record of the pages numbered pages, in
// order, from sequence number from on, until fn returns false, which
// ascendPages returns then. Pages gone since pages was listed are passed
// over.
func (r *messageTable) ascendPages(keyspace string, pages []uint64, from uint64, fn func(seq uint64, v string) bool) bool {
	space := r.spaces[keyspace]
	if space == nil {
		return true
	}
	start, _ := slices.BinarySearch(pages, from>>seqPageBits)
	for _, k := range pages[start:] {
		p := space[k]
		i := 0
		for used := p.used; used != 0; used &= used - 1 {
			seq := k<<seqPageBits | uint64(bits.TrailingZeros64(used))
			if seq >= from && !fn(seq, p.recs[i]) {
				return false
			}
			i++
		}
	}
	return true
}

// setLens is the length of a set command of each record, in all.
func (r *messageTable) setLens() int64 {
	var n int64
	for keyspace, space := range r.spaces {
		for k, p := range space {
			i := 0
			for used := p.used; used != 0; used &= used - 1 {
				seq := k<<seqPageBits | uint64(bits.TrailingZeros64(used))
				n += int64(setLen(messageKeyLen(keyspace, seq), len(p.recs[i])))
				i++
			}
		}
	}
	return n
}

// last returns a keyspace's highest sequence number.
func (r *messageTable) last(keyspace string) (uint64, bool) {
	space := r.spaces[keyspace]
	if space == nil {
		return 0, false
	}
	top := slices.Max(slices.Collect(maps.Keys(space)))
	return top<<seqPageBits | uint64(63-bits.LeadingZeros64(space[top].used)), true
}

// ascend calls fn with the records whose keys start with prefix and are
// at least from, in key order, until fn returns false, which ascend
// returns then.
func (r *messageTable) ascend(prefix, from string, fn func(key, v string) bool) bool {
	spaces := []string(nil)
	switch rest, inside := strings.CutPrefix(prefix, messagePrefix); {
	case inside && strings.IndexByte(rest, ':') >= 0:
		// One keyspace's, if any: its own prefix, or a longer one.
		ks := rest[:strings.IndexByte(rest, ':')]
		if r.spaces[ks] == nil {
			return true
		}
		spaces = []string{ks}
	case inside || strings.HasPrefix(messagePrefix, prefix):
		spaces = r.keyspaces()
	default:
		return true
	}
	var buf []byte
	for _, ks := range spaces {
		kp := recordPrefix(messagePrefix, ks)
		low := uint64(0) // the least number of a key at least from
		if fks, seq, ok := splitMessageKey(from); ok && fks == ks {
			low = seq
		} else if from > kp && !strings.HasPrefix(from, kp) {
			continue // every key of the keyspace sorts before from
		}
		more := r.ascendPages(ks, r.pageNumbers(ks), low, func(seq uint64, v string) bool {
			buf = appendRecordKey(buf[:0], messagePrefix, ks, seq)
			key := unsafe.String(unsafe.SliceData(buf), len(buf))
			if key < from || !strings.HasPrefix(key, prefix) {
				return true
			}
			return fn(strings.Clone(key), v)
		})
		if !more {
			return false
		}
	}
	return true
}
