// Package queue indexes stored entries in the background.
package queue

import (
	"example.com/ledger/internal/search"
	"example.com/ledger/internal/store"
)

// Queue hands entry ids to the indexing worker.
type Queue struct {
	ids   chan string
	store *store.Store
	index *search.Index
}

// New returns a queue feeding index from st.
func New(st *store.Store, index *search.Index) *Queue {
	return &Queue{ids: make(chan string, 64), store: st, index: index}
}

// Enqueue schedules one entry for indexing.
func (q *Queue) Enqueue(id string) { q.ids <- id }

// Run indexes entries as they arrive.
func (q *Queue) Run() {
	for id := range q.ids {
		q.process(id)
	}
}

func (q *Queue) process(id string) {
	entry := q.store.Find(id)
	q.index.Add(entry.ID, entry.Memo)
}
