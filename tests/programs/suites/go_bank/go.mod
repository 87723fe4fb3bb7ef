module chess-trace.example/go_bank

go 1.19
