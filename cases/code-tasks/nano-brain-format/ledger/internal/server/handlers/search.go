package handlers

import (
	"github.com/labstack/echo/v4"

	"example.com/ledger/internal/search"
)

// Search answers a free-text query over the indexed entries.
func Search(index *search.Index) echo.HandlerFunc {
	return func(c echo.Context) error {
		hits := index.Query(c.QueryParam("q"), 10)
		return c.JSON(200, search.ApplyRecencyBoost(hits))
	}
}
