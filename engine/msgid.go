package engine

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"io"
)

// idKeyLen is the length of a queue's message-id key: an AES-128 key.
const idKeyLen = 16

// messageIDs gives the messages a queue sends the ids SQS gives, random
// version 4 UUIDs, without a record keeping them: a message's id is its
// sequence number and the instant it was sent, enciphered under a key of
// the queue's, random and kept in the queue's record, then marked as a
// UUID. The instant tells apart two messages of one number, which a store
// that lost its last second of writes to a power cut hands out again. A
// record holds an empty id for it, 15 bytes where the raw id took 16, so
// a 200-byte message's record fits Go's 224-byte size class rather than
// the 240-byte one. A block cipher is a permutation, so no two messages of
// a queue share the 128 bits; the UUID's 6 fixed bits leave ids as
// unlikely to meet as random ones are. A queue made again, by a create
// after a delete or a state's load, has a new key, so ids do not repeat
// across queues of one name either. Messages whose ids come from
// elsewhere, moved in or given by a state, keep them in their records.
type messageIDs struct {
	block cipher.Block // nil for none: a record's empty id stays empty
}

func newMessageIDs(key []byte) (messageIDs, error) {
	if len(key) != idKeyLen {
		return messageIDs{}, fmt.Errorf("a message-id key of %d bytes, want %d", len(key), idKeyLen)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return messageIDs{}, err
	}
	return messageIDs{block: b}, nil
}

// newIDKey reads a new key from random.
func newIDKey(random io.Reader) ([]byte, error) {
	key := make([]byte, idKeyLen)
	if _, err := io.ReadFull(random, key); err != nil {
		return nil, fmt.Errorf("message-id key: %w", err)
	}
	return key, nil
}

// of returns the raw id of the message numbered seq, sent at sentAt.
func (ids messageIDs) of(seq uint64, sentAt int64) (id [16]byte) {
	binary.LittleEndian.PutUint64(id[:8], seq)
	binary.LittleEndian.PutUint64(id[8:], uint64(sentAt))
	ids.block.Encrypt(id[:], id[:])
	id[6] = id[6]&0x0f | 0x40 // the version, as putRawIDs sets it
	id[8] = id[8]&0x3f | 0x80 // and the variant
	return id
}
