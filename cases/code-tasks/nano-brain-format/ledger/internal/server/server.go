// Package server wires the store, the queue and the search index behind the HTTP API.
package server

import (
	"github.com/labstack/echo/v4"

	"example.com/ledger/internal/queue"
	"example.com/ledger/internal/search"
	"example.com/ledger/internal/store"
)

// Server owns the HTTP router and the services behind it.
type Server struct {
	echo  *echo.Echo
	addr  string
	keys  []string
	store *store.Store
	queue *queue.Queue
	index *search.Index
}

// New builds a server listening on addr.
func New(addr string) *Server {
	s := &Server{echo: echo.New(), addr: addr, store: store.Open(), index: search.NewIndex()}
	s.queue = queue.New(s.store, s.index)
	registerRoutes(s)
	return s
}

// Start serves until the process ends.
func (s *Server) Start() error {
	go s.queue.Run()
	return s.echo.Start(s.addr)
}

func (s *Server) health(c echo.Context) error {
	return c.String(200, s.store.Status())
}
