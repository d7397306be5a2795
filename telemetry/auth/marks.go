package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// The nonce store's file only grows between compactions, and each line is
// checksummed, so a damaged line is found. A file that lost its last lines
// whole (deleted by hand, a backup or a snapshot of the file system put
// back, a write the storage acknowledged and then lost) reads as sound,
// and the nonces on those lines would be accepted again: a command
// captured while valid could be replayed. The mark is a separate small
// file, replaced atomically after every recorded nonce, that says how
// many nonces were recorded; a store whose file ends before its mark (or
// whose mark is missing or damaged while the file has numbered records)
// is treated as damaged: everything issued before it was found is refused.
//
// The mark detects a rollback, not an attacker who can write the state
// directory: they can rewrite both files consistently (docs/SECURITY.md).

type markRecord struct {
	S int64 `json:"s"`
}

func (s *NonceStore) markPath() string { return filepath.Join(s.cfg.Dir, MarkFile) }

// checkMark compares the file with the mark; it returns why they do not
// agree ("" when they do) and moves s.seq past the mark.
func (s *NonceStore) checkMark() string {
	data, err := os.ReadFile(s.markPath())
	if errors.Is(err, os.ErrNotExist) {
		if s.seq > 0 {
			return fmt.Sprintf("%s is missing while the store holds %d numbered records", MarkFile, s.seq)
		}
		return "" // a new store, or one written before marks existed
	}
	if err != nil {
		return fmt.Sprintf("%s cannot be read: %v", MarkFile, err)
	}
	r, ok := parseMark(data)
	if !ok {
		return fmt.Sprintf("%s is damaged", MarkFile)
	}
	if r.S > s.seq {
		seq := s.seq
		s.seq = r.S
		return fmt.Sprintf("the file ends at record %d but %d were recorded (%s): it was rolled back or cut", seq, r.S, MarkFile)
	}
	return ""
}

func parseMark(data []byte) (markRecord, bool) {
	var r markRecord
	if len(data) < 10 || data[8] != ' ' || data[len(data)-1] != '\n' {
		return r, false
	}
	body := data[9 : len(data)-1]
	var sum uint32
	if _, err := fmt.Sscanf(string(data[:8]), "%08x", &sum); err != nil || sum != crc32.ChecksumIEEE(body) {
		return r, false
	}
	return r, json.Unmarshal(body, &r) == nil
}

// writeMark replaces the mark with s.seq: a new file, synced, renamed
// over the old one, the directory synced.
func (s *NonceStore) writeMark() error {
	js, _ := json.Marshal(markRecord{S: s.seq})
	data := fmt.Appendf(nil, "%08x %s\n", crc32.ChecksumIEEE(js), js)
	tmp := s.markPath() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.markPath())
	}
	if err == nil {
		err = syncDir(s.cfg.Dir)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
