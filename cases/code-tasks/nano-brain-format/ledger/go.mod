module example.com/ledger

go 1.22

require github.com/labstack/echo/v4 v4.12.0
