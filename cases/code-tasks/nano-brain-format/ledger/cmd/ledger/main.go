// Command ledger runs the bookkeeping server.
package main

import "example.com/ledger/internal/server"

func main() {
	srv := server.New(":8080")
	srv.Start()
}
