package server

import "example.com/ledger/internal/server/handlers"

func registerRoutes(s *Server) {
	s.echo.GET("/health", s.health)

	api := s.echo.Group("/api/v1", requestID())
	api.GET("/entries/:id", handlers.GetEntry(s.store))
	api.POST("/search", handlers.Search(s.index))

	signed := authMiddleware(s.keys)
	write := api.Group("", signed)
	write.POST("/entries", handlers.CreateEntry(s.store, s.queue))
}
