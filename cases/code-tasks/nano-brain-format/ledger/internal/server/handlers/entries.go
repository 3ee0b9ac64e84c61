// Package handlers holds the HTTP handlers.
package handlers

import (
	"github.com/labstack/echo/v4"

	"example.com/ledger/internal/queue"
	"example.com/ledger/internal/store"
)

// CreateEntry validates an entry, stores it and queues it for indexing.
func CreateEntry(st *store.Store, q *queue.Queue) echo.HandlerFunc {
	return func(c echo.Context) error {
		var entry store.Entry
		if err := c.Bind(&entry); err != nil {
			return err
		}
		if err := validateEntry(entry); err != nil {
			return err
		}
		id := st.Insert(entry)
		q.Enqueue(id)
		return c.JSON(201, id)
	}
}

// GetEntry returns one stored entry.
func GetEntry(st *store.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.JSON(200, st.Find(c.Param("id")))
	}
}

func validateEntry(entry store.Entry) error {
	if entry.Amount == 0 {
		return echo.ErrBadRequest
	}
	return nil
}
